package wazerotest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/agentwasm/agentwasm/testing/fakeproxy"
	"github.com/agentwasm/agentwasm/wazerotest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recorder is a Hook that records every callback and answers execute.
type recorder struct {
	mu    sync.Mutex
	calls []wazerotest.HookCall
	exec  func(ctx context.Context, call wazerotest.HookCall) ([]byte, error)
}

func (r *recorder) hook(ctx context.Context, call wazerotest.HookCall) ([]byte, error) {
	r.mu.Lock()
	r.calls = append(r.calls, call)
	r.mu.Unlock()
	return r.exec(ctx, call)
}

func (r *recorder) hooks(name string) []wazerotest.HookCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []wazerotest.HookCall
	for _, c := range r.calls {
		if c.Hook == name {
			out = append(out, c)
		}
	}
	return out
}

var filterTool = map[string]any{"name": "setFilter", "description": "Filter the map", "inputSchema": map[string]any{"type": "object"}}

func TestRuntimeToolOverTwoRounds(t *testing.T) {
	proxy := fakeproxy.New(
		fakeproxy.Reply{Body: fakeproxy.ToolCallStream(fakeproxy.Call{ID: "c1", Name: "setFilter", Args: `{"field":"age"}`})},
		fakeproxy.Reply{Body: fakeproxy.TextStream("Filtered.")},
	)
	rec := &recorder{exec: func(ctx context.Context, call wazerotest.HookCall) ([]byte, error) {
		return []byte(`{"status":"ok","data":{"applied":true}}`), nil
	}}
	inst := wazerotest.New(t, wazerotest.Options{Handler: proxy, Hook: rec.hook})
	ctx := context.Background()
	id := inst.CreateSession(ctx, map[string]any{"tools": []any{filterTool}, "execute": true})
	turn := inst.Chat(ctx, id, "filter by age")

	require.Equal(t, "completed", turn.Status, turn.ErrorMessage)
	assert.Equal(t, "Filtered.", turn.Text)
	assert.Equal(t, 2, turn.Rounds)
	require.Len(t, turn.ToolCalls, 1)
	assert.Equal(t, wazerotest.DispatchRecord{ToolCallID: "c1", ToolName: "setFilter", Plane: "runtime", OK: true,
		Content: `{"status":"ok","data":{"applied":true}}`}, turn.ToolCalls[0])

	execs := rec.hooks("execute")
	require.Len(t, execs, 1)
	assert.Equal(t, id, execs[0].Session)
	assert.JSONEq(t, `{"toolCallId":"c1","name":"setFilter","args":{"field":"age"}}`, string(execs[0].Payload))

	reqs := proxy.ChatRequests()
	require.Len(t, reqs, 2)
	msgs, _ := json.Marshal(reqs[1].JSON()["messages"])
	assert.JSONEq(t, `[
		{"role":"user","content":"filter by age"},
		{"role":"assistant","content":"","toolCalls":[{"id":"c1","name":"setFilter","arguments":{"field":"age"}}]},
		{"role":"tool","content":"{\"status\":\"ok\",\"data\":{\"applied\":true}}","toolCallId":"c1","toolName":"setFilter"}
	]`, string(msgs))

	var results []wazerotest.DispatchRecord
	for _, ev := range inst.Events(id) {
		if ev.Type == "toolResult" {
			results = append(results, *ev.Result)
		}
	}
	assert.Equal(t, turn.ToolCalls, results, "a toolResult event per dispatch")
}

func TestRoutingThroughTheModule(t *testing.T) {
	proxy := fakeproxy.New(
		fakeproxy.Reply{Body: fakeproxy.ToolCallStream(
			fakeproxy.Call{ID: "1", Name: "zoom"}, fakeproxy.Call{ID: "2", Name: "setFilter"},
			fakeproxy.Call{ID: "3", Name: "nowhere"}, fakeproxy.Call{ID: "4", Name: "deny"})},
		fakeproxy.Reply{Body: fakeproxy.TextStream("ok")},
	)
	var order []string
	rec := &recorder{exec: func(ctx context.Context, call wazerotest.HookCall) ([]byte, error) {
		var c struct{ Name string }
		_ = json.Unmarshal(call.Payload, &c)
		order = append(order, call.Hook+":"+c.Name)
		switch c.Name {
		case "deny":
			return []byte(`{"status":"denied","deniedReason":"not now"}`), nil
		case "setFilter":
			return nil, errors.New("filter panel is closed")
		}
		return []byte(`{"status":"dry-run"}`), nil
	}}
	inst := wazerotest.New(t, wazerotest.Options{Handler: proxy, Hook: rec.hook})
	ctx := context.Background()
	id := inst.CreateSession(ctx, map[string]any{
		"kit":   map[string]any{"tools": []any{map[string]any{"name": "zoom"}, map[string]any{"name": "deny"}}, "execute": true},
		"tools": []any{filterTool, map[string]any{"name": "zoom", "description": "shadowed by the kit's"}},
	})
	turn := inst.Chat(ctx, id, "go")
	require.Equal(t, "completed", turn.Status, turn.ErrorMessage)
	assert.Equal(t, []string{"kit.execute:zoom", "kit.execute:setFilter", "kit.execute:deny"}, order, "stream order, unknown tool never executed")
	require.Len(t, turn.ToolCalls, 4)
	assert.True(t, turn.ToolCalls[0].OK, "dry-run is success")
	assert.Equal(t, "execution_failed", turn.ToolCalls[1].ErrorCode)
	assert.Contains(t, turn.ToolCalls[1].ErrorMessage, "filter panel is closed")
	assert.Equal(t, []string{"unknown", "unknown_tool", "No tool named nowhere is available to this session."},
		[]string{turn.ToolCalls[2].Plane, turn.ToolCalls[2].ErrorCode, turn.ToolCalls[2].ErrorMessage})
	assert.Equal(t, "not now", turn.ToolCalls[3].ErrorMessage)

	tools, _ := json.Marshal(proxy.ChatRequests()[0].JSON()["tools"])
	assert.JSONEq(t, `[{"name":"zoom"},{"name":"deny"},{"name":"setFilter","description":"Filter the map","inputSchema":{"type":"object"}}]`, string(tools))
}

func TestMaxToolRoundsThroughTheModule(t *testing.T) {
	proxy := fakeproxy.New(fakeproxy.Reply{Body: fakeproxy.ToolCallStream(fakeproxy.Call{ID: "x", Name: "setFilter"})})
	rec := &recorder{exec: func(context.Context, wazerotest.HookCall) ([]byte, error) { return []byte(`{"status":"ok"}`), nil }}
	inst := wazerotest.New(t, wazerotest.Options{Handler: proxy, Hook: rec.hook})
	ctx := context.Background()
	id := inst.CreateSession(ctx, map[string]any{"tools": []any{filterTool}, "execute": true, "maxToolRounds": 2})
	turn := inst.Chat(ctx, id, "loop")
	assert.Equal(t, "completed", turn.Status)
	assert.Equal(t, 2, turn.Rounds)
	assert.Len(t, turn.ToolCalls, 2)
	assert.Len(t, rec.hooks("execute"), 2)
	assert.Len(t, proxy.ChatRequests(), 2, "no third request")
}

func TestHostCallbacksThroughTheModule(t *testing.T) {
	// auth with a 401 refresh, a system function once per turn, and a
	// transport with no network at all.
	rec := &recorder{}
	var systemCalls int
	rec.exec = func(ctx context.Context, call wazerotest.HookCall) ([]byte, error) {
		switch call.Hook {
		case "system":
			systemCalls++
			return []byte(fmt.Sprintf("%q", fmt.Sprintf("prompt %d", systemCalls))), nil
		case "execute":
			return []byte(`{"status":"ok"}`), nil
		case "transport":
			var req struct{ Messages []json.RawMessage }
			_ = json.Unmarshal(call.Payload, &req)
			if len(req.Messages) == 1 {
				return []byte(`{"type":"toolCallStart","toolCallId":"t1","toolName":"setFilter"}
{"type":"toolCallDelta","toolArgumentsDelta":"{\"field\":"}
{"type":"toolCallDelta","toolArgumentsDelta":"\"name\"}"}
{"type":"someFutureEvent"}
{"type":"toolCallStop"}
{"type":"messageStop","stopReason":"toolCall"}
`), nil
			}
			return []byte(`{"type":"textDelta","text":"sorted"}` + "\n" + `{"type":"messageStop","stopReason":"endTurn"}`), nil
		}
		return nil, fmt.Errorf("unexpected hook %s", call.Hook)
	}
	inst := wazerotest.New(t, wazerotest.Options{Hook: rec.hook}) // no Handler: any fetch fails
	ctx := context.Background()
	id := inst.CreateSession(ctx, map[string]any{"transport": true, "systemFunction": true, "tools": []any{filterTool}, "execute": true})
	turn := inst.Chat(ctx, id, "sort")
	require.Equal(t, "completed", turn.Status, turn.ErrorMessage)
	assert.Equal(t, "sorted", turn.Text)
	assert.Equal(t, 1, systemCalls, "once per turn, not per round")
	execs := rec.hooks("execute")
	require.Len(t, execs, 1)
	assert.JSONEq(t, `{"toolCallId":"t1","name":"setFilter","args":{"field":"name"}}`, string(execs[0].Payload))
	transports := rec.hooks("transport")
	require.Len(t, transports, 2)
	var second struct{ System string }
	require.NoError(t, json.Unmarshal(transports[1].Payload, &second))
	assert.Equal(t, "prompt 1", second.System)

	// auth: stale token, 401, fresh token.
	proxy := fakeproxy.New(fakeproxy.Reply{Status: 401}, fakeproxy.Reply{Body: fakeproxy.TextStream("in")})
	var refreshes []string
	auth := &recorder{exec: func(ctx context.Context, call wazerotest.HookCall) ([]byte, error) {
		refreshes = append(refreshes, string(call.Payload))
		if string(call.Payload) == `{"forceRefresh":true}` {
			return []byte(`"fresh-secret"`), nil
		}
		return []byte(`"stale-secret"`), nil
	}}
	inst2 := wazerotest.New(t, wazerotest.Options{Handler: proxy, Hook: auth.hook})
	// Discovery off: the token asks counted here are the chat requests' only.
	id2 := inst2.CreateSession(ctx, map[string]any{"auth": true, "disableToolDiscovery": true})
	turn = inst2.Chat(ctx, id2, "hi")
	assert.Equal(t, "in", turn.Text)
	assert.Equal(t, []string{`{"forceRefresh":false}`, `{"forceRefresh":true}`}, refreshes)
	reqs := proxy.ChatRequests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "Bearer stale-secret", reqs[0].Header.Get("authorization"))
	assert.Equal(t, "Bearer fresh-secret", reqs[1].Header.Get("authorization"))
}

func TestExecutorThatNeverReturnsIsCutOff(t *testing.T) {
	proxy := fakeproxy.New(fakeproxy.Reply{Body: fakeproxy.ToolCallStream(fakeproxy.Call{ID: "1", Name: "setFilter"}, fakeproxy.Call{ID: "2", Name: "setFilter"})})
	released := make(chan struct{})
	rec := &recorder{exec: func(ctx context.Context, call wazerotest.HookCall) ([]byte, error) {
		<-ctx.Done() // until the module gives up on it
		close(released)
		return nil, ctx.Err()
	}}
	inst := wazerotest.New(t, wazerotest.Options{Handler: proxy, Hook: rec.hook})
	id := inst.CreateSession(context.Background(), map[string]any{"tools": []any{filterTool}, "execute": true})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	turn := inst.Chat(ctx, id, "hang")
	assert.Equal(t, "cancelled", turn.Status)
	require.Len(t, turn.ToolCalls, 1)
	assert.Equal(t, "cancelled", turn.ToolCalls[0].ErrorCode)
	select {
	case <-released:
	case <-time.After(10 * time.Second):
		t.Fatal("the hook's context was never cancelled")
	}
	r, err := inst.Do(context.Background(), map[string]any{"op": "session.messages", "session": id})
	require.NoError(t, err)
	var answered []string
	for _, m := range r.Messages {
		if m.Role == "tool" {
			answered = append(answered, m.ToolCallID)
		}
	}
	assert.Equal(t, []string{"1", "2"}, answered, "every call in history has its answer")
}
