//go:build !js && !wasip1 && !agentwasm_sessiononly

// A turn stopped on an approval survives session.snapshot and restore: the
// restored session (its kit the same port, which keeps the ask) has the
// pending ask, and session.resume on it approves through the port's door
// and runs the turn on.

package command_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentwasm/agentwasm/wasm/internal/command"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSnapshotKeepsThePendingAsk(t *testing.T) {
	host := &approvalHost{rounds: []string{payRound}}
	rt := command.New(false)
	a := checkoutSession(t, rt, host)
	_, raw := call(t, context.Background(), rt, chatCmd(a, "Pay."), command.Hooks{})
	turn := turnOf(t, raw)
	require.Len(t, turn.PendingApprovals, 1, raw)
	var ask struct {
		AskID string `json:"askId"`
	}
	require.NoError(t, json.Unmarshal(turn.PendingApprovals[0], &ask))

	snap := snapshotOf(t, rt, a)
	var doc struct {
		Pending []struct {
			AskID      string          `json:"askId"`
			ToolCallID string          `json:"toolCallId"`
			Action     string          `json:"action"`
			Detail     json.RawMessage `json:"detail"`
		} `json:"pending"`
	}
	require.NoError(t, json.Unmarshal(snap, &doc))
	require.Len(t, doc.Pending, 1)
	assert.Equal(t, ask.AskID, doc.Pending[0].AskID)
	assert.Equal(t, "c1", doc.Pending[0].ToolCallID)
	assert.Equal(t, "checkout.pay", doc.Pending[0].Action)
	assert.Contains(t, string(doc.Pending[0].Detail), `"awaitingHuman":true`)

	// The page's session goes; a new one over the same port without the
	// snapshot knows no such ask, one with it resumes it.
	r, raw := call(t, context.Background(), rt, map[string]any{"op": "session.close", "session": a}, command.Hooks{})
	require.True(t, r.OK, raw)
	portID := a - 1 // checkoutSession opened the port just before the session
	fresh := create(t, rt, map[string]any{"port": portID, "transport": true, "disableToolDiscovery": true}, host.hooks())
	_, raw = call(t, context.Background(), rt, map[string]any{"op": "session.resume", "session": fresh, "approve": []string{ask.AskID}}, command.Hooks{})
	assert.Equal(t, "unknown_ask", turnOf(t, raw).ErrorCode, "without the snapshot")

	host.rounds = append(host.rounds, confirmRound, paidRound)
	b := create(t, rt, map[string]any{"port": portID, "transport": true, "disableToolDiscovery": true, "restore": snap}, host.hooks())
	_, raw = call(t, context.Background(), rt, map[string]any{"op": "session.resume", "session": b, "approve": []string{ask.AskID}}, command.Hooks{})
	turn = turnOf(t, raw)
	require.Equal(t, "completed", turn.Status, turn.ErrorMessage)
	assert.Empty(t, turn.ErrorCode, "the restored session knows the ask and resumes it")
	assert.Equal(t, 2, turn.Rounds)
	assert.JSONEq(t, `{"inputTokens":350,"outputTokens":15}`, string(turn.Usage))
	host.mu.Lock()
	require.Len(t, host.requests, 3, "the original chat, then the restored session's two rounds")
	assert.Contains(t, host.requests[1], `"role":"user","content":"Approved: the person approved \"`+ask.AskID+`\" (checkout.pay: Pay for the order) in the app.`,
		"the resumed request carries the approval after the restored history")
	assert.Contains(t, host.requests[1], `"role":"user","content":"Pay."`)
	host.mu.Unlock()
	// Whether the port then performs the fire for the new session (the
	// ask's caller was the closed one) is the port's rule, not tested here.
}
