//go:build !js && !wasip1 && !agentwasm_sessiononly

// An approval belongs to the session that asked: two sessions with one
// port as their kit; the person approves the first one's ask, the second
// one's model confirms the same step and is refused without using it;
// the first one's resume then fires it, once.

package command_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentwasm/agentwasm/wasm/internal/command"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// portAsks reads port.asks.
func portAsks(t *testing.T, rt *command.Runtime, port int) []map[string]any {
	t.Helper()
	_, raw := call(t, context.Background(), rt, map[string]any{"op": "port.asks", "port": port}, command.Hooks{})
	var r struct {
		OK    bool             `json:"ok"`
		Value []map[string]any `json:"value"`
	}
	require.NoError(t, json.Unmarshal([]byte(raw), &r), raw)
	require.True(t, r.OK, raw)
	return r.Value
}

func TestApprovalIsTheSessionThatAsked(t *testing.T) {
	notPaidRound := `{"type":"textDelta","text":"Not paid."}
{"type":"messageStop","stopReason":"endTurn","promptTokens":200,"completionTokens":3}`
	// The host's script, in the order the turns run: A asks; B confirms,
	// is refused and says so; A, resumed, confirms and is done.
	host := &approvalHost{rounds: []string{payRound, confirmRound, notPaidRound, confirmRound, paidRound}}
	rt := command.New(false)
	r, raw := call(t, context.Background(), rt, `{"op":"port.create","graph":`+checkoutGraph+
		`,"options":{"requireHumanApproval":true,"handlers":["checkout.pay"]}}`, host.hooks())
	require.True(t, r.OK, raw)
	var created struct{ Port int }
	require.NoError(t, json.Unmarshal([]byte(raw), &created))
	port := created.Port
	a := create(t, rt, map[string]any{"port": port, "transport": true, "disableToolDiscovery": true}, host.hooks())
	b := create(t, rt, map[string]any{"port": port, "transport": true, "disableToolDiscovery": true}, host.hooks())

	_, raw = call(t, context.Background(), rt, chatCmd(a, "Pay."), command.Hooks{})
	turn := turnOf(t, raw)
	require.Len(t, turn.PendingApprovals, 1, raw)
	var pending struct {
		AskID string `json:"askId"`
	}
	require.NoError(t, json.Unmarshal(turn.PendingApprovals[0], &pending))
	assert.Regexp(t, `^ask_[a-z2-7]{26}$`, pending.AskID, "an unguessable id")
	r, raw = call(t, context.Background(), rt, map[string]any{"op": "port.approveAsk", "port": port, "askId": pending.AskID, "by": "ana"}, command.Hooks{})
	require.True(t, r.OK, raw)

	_, raw = call(t, context.Background(), rt, chatCmd(b, "Pay."), command.Hooks{})
	turn = turnOf(t, raw)
	require.Equal(t, "completed", turn.Status, turn.ErrorMessage)
	assert.Equal(t, "Not paid.", turn.Text)
	require.Len(t, turn.ToolCalls, 1)
	assert.Contains(t, string(turn.ToolCalls[0]), `\"reason\":\"APPROVAL_NOT_YOURS\"`, "B's confirm is refused")
	assert.Empty(t, host.handlerRuns(), "nothing ran")
	asks := portAsks(t, rt, port)
	require.Len(t, asks, 1, "B raised no ask and used none")
	assert.Equal(t, "approved", asks[0]["state"], "still A's to use: approved and unused")

	_, raw = call(t, context.Background(), rt, map[string]any{"op": "session.resume", "session": a, "approve": []string{pending.AskID}}, command.Hooks{})
	turn = turnOf(t, raw)
	require.Equal(t, "completed", turn.Status, turn.ErrorMessage)
	assert.Equal(t, "Paid.", turn.Text)
	assert.Equal(t, []string{"checkout.pay"}, host.handlerRuns(), "A's confirm ran it, once")
	asks = portAsks(t, rt, port)
	assert.Equal(t, "used", asks[0]["state"])
}

func TestRevokeAnApprovedUnusedAsk(t *testing.T) {
	host := &approvalHost{rounds: []string{payRound, confirmRound, `{"type":"textDelta","text":"Withdrawn."}
{"type":"messageStop","stopReason":"endTurn"}`}}
	rt := command.New(false)
	r, raw := call(t, context.Background(), rt, `{"op":"port.create","graph":`+checkoutGraph+
		`,"options":{"requireHumanApproval":true,"handlers":["checkout.pay"]}}`, host.hooks())
	require.True(t, r.OK, raw)
	var created struct{ Port int }
	require.NoError(t, json.Unmarshal([]byte(raw), &created))
	a := create(t, rt, map[string]any{"port": created.Port, "transport": true, "disableToolDiscovery": true}, host.hooks())
	_, raw = call(t, context.Background(), rt, chatCmd(a, "Pay."), command.Hooks{})
	require.Len(t, turnOf(t, raw).PendingApprovals, 1, raw)
	askID := portAsks(t, rt, created.Port)[0]["askId"].(string)
	r, raw = call(t, context.Background(), rt, map[string]any{"op": "port.approveAsk", "port": created.Port, "askId": askID}, command.Hooks{})
	require.True(t, r.OK, raw)
	assert.Equal(t, "approved", portAsks(t, rt, created.Port)[0]["state"])
	r, raw = call(t, context.Background(), rt, map[string]any{"op": "port.revokeAsk", "port": created.Port, "askId": askID, "by": "ana"}, command.Hooks{})
	require.True(t, r.OK, raw)
	assert.Equal(t, "revoked", portAsks(t, rt, created.Port)[0]["state"])
	r, raw = call(t, context.Background(), rt, map[string]any{"op": "port.revokeAsk", "port": created.Port, "askId": askID}, command.Hooks{})
	assert.False(t, r.OK, "revoking twice is refused: %s", raw)
	assert.Equal(t, command.CodeRefused, r.Error.Code)
}
