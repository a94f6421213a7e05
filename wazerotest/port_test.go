// The serving port through the wasip1 module: handlers behind the handler
// hook, settlement, the human doors, the in-module MCP server, bad commands,
// a handler that never answers, and a session whose kit is a port.

package wazerotest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentwasm/agentwasm/wazerotest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shopGraph: go to checkout, then pay (high-effect).
var shopGraph = json.RawMessage(`{"id":"shop",
 "pages":[{"id":"cart"},{"id":"checkout"},{"id":"done"}],
 "actions":[
  {"id":"cart.checkout","does":"Go to checkout","on":"cart","goTo":"checkout","input":"none"},
  {"id":"checkout.pay","does":"Pay for the order","on":"checkout","goTo":"done","confirm":true,"input":"none"},
  {"id":"cart.fail","does":"Always fails","on":"cart","input":"none"}],
 "journeys":[{"id":"buy","does":"Buy what is in the cart","steps":["cart.checkout","checkout.pay"]}]}`)

// handlerHook answers the port's handler hook: each action's data, or an
// error for cart.fail.
func handlerHook(port *int) func(ctx context.Context, call wazerotest.HookCall) ([]byte, error) {
	return func(ctx context.Context, call wazerotest.HookCall) ([]byte, error) {
		if call.Hook != "handler" {
			return nil, fmt.Errorf("unexpected hook %s", call.Hook)
		}
		if *port != 0 && call.Session != *port {
			return nil, fmt.Errorf("handler hook for %d, not the port %d", call.Session, *port)
		}
		var h struct{ Action, Source, TransitionID string }
		if err := json.Unmarshal(call.Payload, &h); err != nil {
			return nil, err
		}
		if h.Action == "cart.fail" {
			return nil, fmt.Errorf("the warehouse is closed")
		}
		return []byte(fmt.Sprintf(`{"ran":%q,"by":%q,"id":%q}`, h.Action, h.Source, h.TransitionID)), nil
	}
}

// settled polls the module (its background work runs only during a call)
// until the transition settles, and returns did_it_work's answer.
func settled(ctx context.Context, t *testing.T, inst *wazerotest.Instance, port int, id string) map[string]any {
	t.Helper()
	for i := 0; i < 500; i++ {
		facts := inst.PortCall(ctx, port, "shop.did_it_work", map[string]any{"transitionId": id})
		if facts["judgment"] != "still-pending" {
			return facts
		}
		_, err := inst.Do(ctx, map[string]any{"op": "poll", "timeoutMs": 5})
		require.NoError(t, err)
	}
	t.Fatalf("%s never settled", id)
	return nil
}

// A port in the wasip1 module: its handlers run through the handler hook,
// a fire settles in the background (poll lets it), refusals carry the
// hook's error, and the human door approves an ask.
func TestPortThroughTheModule(t *testing.T) {
	var port int
	rec := &recorder{exec: handlerHook(&port)}
	inst := wazerotest.New(t, wazerotest.Options{Hook: rec.hook})
	ctx := context.Background()
	var tools json.RawMessage
	port, tools = inst.CreatePort(ctx, shopGraph, map[string]any{
		"requireHumanApproval": true,
		"handlers":             []string{"cart.checkout", "checkout.pay", "cart.fail"},
	})
	var names []string
	var list []struct{ Name string }
	require.NoError(t, json.Unmarshal(tools, &list))
	for _, tl := range list {
		names = append(names, tl.Name)
	}
	assert.Equal(t, []string{"shop.journey.buy", "shop.whats_here", "shop.why", "shop.do_action", "shop.did_it_work"}, names)

	fired := inst.PortCall(ctx, port, "shop.do_action", map[string]any{"action": "cart.checkout"})
	require.Equal(t, true, fired["ok"], fired)
	id, _ := fired["transitionId"].(string)
	require.Equal(t, "cart.checkout#1", id)
	facts := settled(ctx, t, inst, port, id)
	assert.Equal(t, "performed", facts["effectStatus"], facts)
	assert.Equal(t, map[string]any{"ran": "cart.checkout", "by": "agent", "id": "cart.checkout#1"}, facts["data"])
	require.Len(t, rec.hooks("handler"), 1)

	// Through the port's MCP server, which has no sessions: its calls have
	// no identity, so an approval backs one only when it cites the askId.
	mcpPay := func(args map[string]any) (map[string]any, bool, string) {
		t.Helper()
		resp, err := inst.PortDo(ctx, port, "port.mcp", map[string]any{"message": map[string]any{
			"jsonrpc": "2.0", "id": 1, "method": "tools/call",
			"params": map[string]any{"name": "shop.do_action", "arguments": args},
		}})
		require.NoError(t, err)
		require.True(t, resp.OK, resp.Error)
		var mcp struct {
			Result struct {
				StructuredContent map[string]any `json:"structuredContent"`
				IsError           bool           `json:"isError"`
			} `json:"result"`
		}
		require.NoError(t, json.Unmarshal(resp.Value, &mcp), string(resp.Value))
		return mcp.Result.StructuredContent, mcp.Result.IsError, string(resp.Value)
	}
	asked, _, _ := mcpPay(map[string]any{"action": "checkout.pay"})
	assert.Equal(t, "needs-confirm", asked["judgment"], asked)
	assert.NotContains(t, asked, "transitionId")
	askID, _ := asked["askId"].(string)
	assert.Regexp(t, `^ask_[a-z2-7]{26}$`, askID, "an unguessable id")
	r, err := inst.PortDo(ctx, port, "port.approveAsk", map[string]any{"askId": askID, "by": "ana"})
	require.NoError(t, err)
	require.True(t, r.OK, r.Error)
	bare, _, raw := mcpPay(map[string]any{"action": "checkout.pay", "confirm": true})
	assert.Equal(t, "ASK_ID_REQUIRED", bare["reason"], raw)
	guessed, _, raw := mcpPay(map[string]any{"action": "checkout.pay", "confirm": true, "askId": "ask_aaaaaaaaaaaaaaaaaaaaaaaaaa"})
	assert.Equal(t, "ASK_UNKNOWN", guessed["reason"], raw)
	// Citing it: the fold waits for the handler hook.
	paid, isError, raw := mcpPay(map[string]any{"action": "checkout.pay", "confirm": true, "askId": askID})
	assert.Equal(t, "performed", paid["effectStatus"], raw)
	assert.False(t, isError)

	st, err := inst.PortDo(ctx, port, "port.state", nil)
	require.NoError(t, err)
	assert.Contains(t, string(st.Value), `"page":"done"`)

	// Back to the cart; a handler that fails refuses its fire with the error.
	_, err = inst.PortDo(ctx, port, "port.navigate", map[string]any{"page": "cart"})
	require.NoError(t, err)
	failed := inst.PortCall(ctx, port, "shop.do_action", map[string]any{"action": "cart.fail"})
	facts = settled(ctx, t, inst, port, failed["transitionId"].(string))
	assert.Equal(t, "refused", facts["effectStatus"], facts)
	assert.Contains(t, facts["error"], "the warehouse is closed")

	// Events: the port streamed change events to its id.
	var changes int
	for _, ev := range inst.Events(port) {
		if ev.Type == "change" {
			changes++
		}
	}
	assert.Greater(t, changes, 3)
}

// Bad input to the port commands: clear errors, and the module serves on.
func TestPortCommandErrors(t *testing.T) {
	inst := wazerotest.New(t, wazerotest.Options{})
	ctx := context.Background()
	cases := []struct {
		name string
		cmd  map[string]any
		code string
		text string
	}{
		{"no graph", map[string]any{"op": "port.create"}, "bad_options", "needs a graph"},
		{"bad graph", map[string]any{"op": "port.create", "graph": map[string]any{"id": "g", "pages": []any{}, "actions": []any{map[string]any{"id": "x.y", "does": "d", "on": "x"}}}}, "bad_options", `"x.y"`},
		{"handler for an unknown action", map[string]any{"op": "port.create", "graph": shopGraph, "options": map[string]any{"handlers": []string{"no.such"}}}, "bad_options", "no.such"},
		{"bad mode", map[string]any{"op": "port.create", "graph": shopGraph, "options": map[string]any{"journeyTools": "many"}}, "bad_options", "journeyTools"},
		{"unknown port", map[string]any{"op": "port.call", "port": 999, "name": "x"}, "unknown_port", "999"},
		{"ask unknown", map[string]any{"op": "port.approveAsk", "port": -1, "askId": "ask#1"}, "unknown_port", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := inst.Do(ctx, tc.cmd)
			require.NoError(t, err)
			require.False(t, r.OK)
			assert.Equal(t, tc.code, r.Error.Code, r.Error.Message)
			assert.Contains(t, r.Error.Message, tc.text)
		})
	}
	port, _ := inst.CreatePort(ctx, shopGraph, nil)
	r, err := inst.PortDo(ctx, port, "port.approveAsk", map[string]any{"askId": "ask#7"})
	require.NoError(t, err)
	assert.Equal(t, "refused", r.Error.Code)
	// Garbage arguments are a refusal result, never a failed command.
	res := inst.PortCall(ctx, port, "shop.do_action", strings.Repeat("x", 10))
	assert.Equal(t, false, res["ok"])
	res = inst.PortCall(ctx, port, "shop.why", map[string]any{"key": 12})
	assert.Equal(t, false, res["ok"])
	assert.True(t, inst.Version(ctx).OK, "the module still serves")
}

// The join through the wasm module: a scripted model in a session whose kit
// is a port opens the journey, meets needs-confirm (the turn stops on the
// ask), the test approves through the human door, the model confirms in the
// next chat, and the step fires.
func TestSessionDrivesPortThroughTheModule(t *testing.T) {
	var port int
	handler := handlerHook(&port)
	rounds := []string{
		`{"type":"toolCallStart","toolCallId":"c1","toolName":"shop.journey.buy"}` + "\n" + `{"type":"toolCallStop","toolArguments":{}}` + "\n" + `{"type":"messageStop","stopReason":"toolCall"}`,
		`{"type":"toolCallStart","toolCallId":"c2","toolName":"shop.journey.buy"}` + "\n" + `{"type":"toolCallStop","toolArguments":{"step":"checkout"}}` + "\n" + `{"type":"messageStop","stopReason":"toolCall"}`,
		`{"type":"toolCallStart","toolCallId":"c3","toolName":"shop.journey.buy"}` + "\n" + `{"type":"toolCallStop","toolArguments":{"step":"pay"}}` + "\n" + `{"type":"messageStop","stopReason":"toolCall"}`,
		// The turn stops on the ask; the next one comes after the person approved.
		`{"type":"toolCallStart","toolCallId":"c4","toolName":"shop.journey.buy"}` + "\n" + `{"type":"toolCallStop","toolArguments":{"step":"pay","confirm":true}}` + "\n" + `{"type":"messageStop","stopReason":"toolCall"}`,
		`{"type":"textDelta","text":"Paid."}` + "\n" + `{"type":"messageStop","stopReason":"endTurn"}`,
	}
	next := 0
	rec := &recorder{exec: func(ctx context.Context, call wazerotest.HookCall) ([]byte, error) {
		if call.Hook == "transport" {
			next++
			return []byte(rounds[next-1]), nil
		}
		return handler(ctx, call)
	}}
	inst := wazerotest.New(t, wazerotest.Options{Hook: rec.hook})
	ctx := context.Background()
	port, _ = inst.CreatePort(ctx, shopGraph, map[string]any{
		"requireHumanApproval": true, "handlers": []string{"cart.checkout", "checkout.pay"},
	})
	id := inst.CreateSession(ctx, map[string]any{"port": port, "transport": true, "disableToolDiscovery": true})
	turn := inst.Chat(ctx, id, "Buy my cart.")
	require.Equal(t, "completed", turn.Status, turn.ErrorMessage)
	require.Len(t, turn.ToolCalls, 3)
	require.Len(t, turn.PendingApprovals, 1)
	data := func(rec wazerotest.DispatchRecord) map[string]any {
		var c struct{ Data map[string]any }
		require.NoError(t, json.Unmarshal([]byte(rec.Content), &c), rec.Content)
		return c.Data
	}
	assert.Equal(t, "performed", data(turn.ToolCalls[1])["effectStatus"], turn.ToolCalls[1].Content)
	asked := data(turn.ToolCalls[2])
	require.Equal(t, "needs-confirm", asked["judgment"], turn.ToolCalls[2].Content)
	require.Len(t, rec.hooks("handler"), 1, "pay has not run")

	r, err := inst.PortDo(ctx, port, "port.approveAsk", map[string]any{"askId": asked["askId"], "by": "ana"})
	require.NoError(t, err)
	require.True(t, r.OK, r.Error)
	turn = inst.Chat(ctx, id, "Approved.")
	require.Equal(t, "completed", turn.Status, turn.ErrorMessage)
	paid := data(turn.ToolCalls[0])
	assert.Equal(t, "performed", paid["effectStatus"], turn.ToolCalls[0].Content)
	assert.Equal(t, "Paid.", turn.Text)
	assert.Len(t, rec.hooks("handler"), 2)
}

// A handler hook that never answers: the fire stays pending and the module
// serves on; the MCP server's settlement fold gives up at its default
// 250 ms ceiling on a virtual clock and answers pending.
func TestPortHandlerThatNeverAnswers(t *testing.T) {
	clock := wazerotest.NewVirtualClock(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC))
	never := func(ctx context.Context, call wazerotest.HookCall) ([]byte, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	inst := wazerotest.New(t, wazerotest.Options{Hook: never, Clock: clock})
	ctx := context.Background()
	port, _ := inst.CreatePort(ctx, shopGraph, map[string]any{"handlers": []string{"cart.checkout"}})
	before := clock.Now()
	resp, err := inst.PortDo(ctx, port, "port.mcp", map[string]any{"message": map[string]any{
		"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": "shop.do_action", "arguments": map[string]any{"action": "cart.checkout"}},
	}})
	require.NoError(t, err)
	require.True(t, resp.OK, resp.Error)
	var mcp struct {
		Result struct {
			StructuredContent map[string]any `json:"structuredContent"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal(resp.Value, &mcp), string(resp.Value))
	assert.Equal(t, "pending", mcp.Result.StructuredContent["effectStatus"], string(resp.Value))
	assert.Contains(t, mcp.Result.StructuredContent, "settleWith")
	assert.GreaterOrEqual(t, clock.Now().Sub(before), 250*time.Millisecond, "the fold waited its ceiling")

	facts := inst.PortCall(ctx, port, "shop.did_it_work", map[string]any{"transitionId": "cart.checkout#1"})
	assert.Equal(t, "still-pending", facts["judgment"], facts)
	assert.True(t, inst.Version(ctx).OK, "the module still serves")
}
