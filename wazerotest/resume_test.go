// Approval as an interruption through the wasip1 module: the turn stops on
// the ask, session.resume answers it through the port's human door, and the
// action's handler hook runs exactly once (declined: never).

package wazerotest_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentwasm/agentwasm/wazerotest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The model's rounds as transport lines: pay, confirm, then text.
var (
	payLines = `{"type":"messageStart","model":"scripted"}` + "\n" +
		`{"type":"toolCallStart","toolCallId":"c1","toolName":"shop.do_action"}` + "\n" +
		`{"type":"toolCallStop","toolArguments":{"action":"checkout.pay"}}` + "\n" +
		`{"type":"messageStop","stopReason":"toolCall","promptTokens":40,"completionTokens":4}`
	confirmLines = `{"type":"toolCallStart","toolCallId":"c2","toolName":"shop.do_action"}` + "\n" +
		`{"type":"toolCallStop","toolArguments":{"action":"checkout.pay","confirm":true}}` + "\n" +
		`{"type":"messageStop","stopReason":"toolCall","promptTokens":60,"completionTokens":6}`
)

func textLines(text string) string {
	return `{"type":"textDelta","text":"` + text + `"}` + "\n" + `{"type":"messageStop","stopReason":"endTurn"}`
}

// resumeInstance is a module with the shop port (requiring approval, the
// person at checkout) and a session whose kit it is, driven by rounds.
func resumeInstance(t *testing.T, rounds ...string) (*wazerotest.Instance, *recorder, int, int) {
	t.Helper()
	var port int
	handler := handlerHook(&port)
	next := 0
	rec := &recorder{}
	rec.exec = func(ctx context.Context, call wazerotest.HookCall) ([]byte, error) {
		if call.Hook == "transport" {
			rec.mu.Lock()
			defer rec.mu.Unlock()
			next++
			return []byte(rounds[min(next, len(rounds))-1]), nil
		}
		return handler(ctx, call)
	}
	inst := wazerotest.New(t, wazerotest.Options{Hook: rec.hook})
	ctx := context.Background()
	port, _ = inst.CreatePort(ctx, shopGraph, map[string]any{
		"requireHumanApproval": true, "page": "checkout", "handlers": []string{"checkout.pay"},
	})
	id := inst.CreateSession(ctx, map[string]any{"port": port, "transport": true, "disableToolDiscovery": true})
	return inst, rec, port, id
}

func TestResumeThroughTheModule(t *testing.T) {
	ctx := context.Background()
	inst, rec, _, id := resumeInstance(t, payLines, confirmLines, textLines("Paid."))

	turn := inst.Chat(ctx, id, "Pay for my order.")
	require.Equal(t, "completed", turn.Status, turn.ErrorMessage)
	assert.Equal(t, 1, turn.Rounds, "one model round: the turn stops on the ask")
	assert.Equal(t, &wazerotest.Usage{InputTokens: 40, OutputTokens: 4}, turn.Usage)
	require.Len(t, turn.PendingApprovals, 1)
	ask := turn.PendingApprovals[0]
	assert.Equal(t, "c1", ask.ToolCallID)
	assert.Equal(t, "shop.do_action", ask.ToolName)
	assert.Equal(t, "checkout.pay", ask.Action)
	var detail map[string]any
	require.NoError(t, json.Unmarshal(ask.Detail, &detail), string(ask.Detail))
	assert.Equal(t, true, detail["awaitingHuman"])
	assert.Empty(t, rec.hooks("handler"))

	unknown := inst.Resume(ctx, id, []string{"ask#9"}, nil)
	assert.Equal(t, "error", unknown.Status)
	assert.Equal(t, "unknown_ask", unknown.ErrorCode)

	turn = inst.Resume(ctx, id, []string{ask.AskID}, nil)
	require.Equal(t, "completed", turn.Status, turn.ErrorMessage)
	assert.Equal(t, "Paid.", turn.Text)
	assert.Empty(t, turn.PendingApprovals)
	assert.Equal(t, &wazerotest.Usage{InputTokens: 60, OutputTokens: 6}, turn.Usage)
	require.Len(t, rec.hooks("handler"), 1, "the handler ran exactly once")
	var steps []wazerotest.Step
	for _, ev := range inst.Events(id) {
		if ev.Type == "stepFinish" {
			steps = append(steps, *ev.Step)
		}
	}
	require.Len(t, steps, 3)
	assert.Equal(t, 1, steps[0].Round)
	assert.Equal(t, "toolCall", steps[0].StopReason)
	require.Len(t, steps[0].ToolCalls, 1)
	assert.Equal(t, "c1", steps[0].ToolCalls[0].ToolCallID)
	assert.Equal(t, wazerotest.Step{Round: 2, Text: "Paid.", ToolCalls: []wazerotest.DispatchRecord{}, StopReason: "endTurn"}, steps[2])

	again := inst.Resume(ctx, id, []string{ask.AskID}, nil)
	assert.Equal(t, "unknown_ask", again.ErrorCode, "resuming twice")
	assert.Len(t, rec.hooks("handler"), 1)
}

func TestResumeDeclineThroughTheModule(t *testing.T) {
	ctx := context.Background()
	inst, rec, port, id := resumeInstance(t, payLines, textLines("I will not pay."))
	turn := inst.Chat(ctx, id, "Pay for my order.")
	require.Len(t, turn.PendingApprovals, 1)
	turn = inst.Resume(ctx, id, nil, []string{turn.PendingApprovals[0].AskID})
	require.Equal(t, "completed", turn.Status, turn.ErrorMessage)
	assert.Equal(t, "I will not pay.", turn.Text)
	asks, err := inst.PortDo(ctx, port, "port.asks", nil)
	require.NoError(t, err)
	assert.Contains(t, string(asks.Value), `"declined"`)
	assert.Empty(t, rec.hooks("handler"), "the handler never ran")

	// The port's change events carry their version.
	for _, ev := range inst.Events(port) {
		if ev.Type == "change" {
			assert.NotNil(t, ev.Version)
		}
	}
}
