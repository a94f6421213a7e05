package wazerotest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/agentwasm/agentwasm/testing/fakeproxy"
	"github.com/agentwasm/agentwasm/wazerotest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An MCP client that accepts tools/list and never answers: with the
// default 15 s discovery timeout on a virtual clock, the turn still
// completes on the runtime tools, in milliseconds of real time.
func TestSilentDiscoveryWithDefaultTimeoutOnVirtualClock(t *testing.T) {
	clock := wazerotest.NewVirtualClock(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC))
	proxy := fakeproxy.New(fakeproxy.Reply{Body: fakeproxy.TextStream("degraded but fine")})
	hook := func(ctx context.Context, call wazerotest.HookCall) ([]byte, error) {
		switch call.Hook {
		case "mcp.listTools":
			<-ctx.Done() // accepts and never answers
			return nil, ctx.Err()
		case "execute":
			return []byte(`{"status":"ok"}`), nil
		}
		return nil, fmt.Errorf("unexpected hook %s", call.Hook)
	}
	inst := wazerotest.New(t, wazerotest.Options{Handler: proxy, Hook: hook, Clock: clock})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := inst.CreateSession(ctx, map[string]any{"mcpClient": true, "tools": []any{filterTool}, "execute": true})
	before := clock.Now()
	turn := inst.Chat(ctx, id, "hi")
	require.Equal(t, "completed", turn.Status, turn.ErrorMessage)
	assert.Equal(t, "degraded but fine", turn.Text)
	assert.GreaterOrEqual(t, clock.Now().Sub(before), 15*time.Second, "the default bound passed in virtual time")

	tools, _ := json.Marshal(proxy.ChatRequests()[0].JSON()["tools"])
	assert.JSONEq(t, `[{"name":"setFilter","description":"Filter the map","inputSchema":{"type":"object"}}]`, string(tools), "runtime tools only")
	r, err := inst.Do(ctx, map[string]any{"op": "session.toolDiscovery", "session": id})
	require.NoError(t, err)
	require.NotNil(t, r.Report)
	assert.Equal(t, "tools/list did not respond within 15000ms.", r.Report.ErrorMessage)
}

// Composition calls through the module carry the session's draft, and a
// conflict reloads the draft and retries once.
func TestDraftBindingThroughTheModule(t *testing.T) {
	proxy := fakeproxy.New(
		fakeproxy.Reply{Body: fakeproxy.ToolCallStream(fakeproxy.Call{ID: "1", Name: "honua_studio_set_view", Args: `{"zoom":3}`})},
		fakeproxy.Reply{Body: fakeproxy.TextStream("ok")},
	)
	var calls []string
	hook := func(ctx context.Context, call wazerotest.HookCall) ([]byte, error) {
		switch call.Hook {
		case "mcp.listTools":
			return []byte(`{"tools":[{"name":"honua_studio_set_view","_meta":{"honua.studio":{"family":"honua.studio.composition"}}}]}`), nil
		case "mcp.callTool":
			calls = append(calls, string(call.Payload))
			switch len(calls) {
			case 1:
				return []byte(`{"isError":true,"content":[{"type":"text","text":"{\"code\":\"failed_precondition\",\"message\":\"stale\"}"}]}`), nil
			case 2:
				return []byte(`{"structuredContent":{"draftId":"d1","generation":11}}`), nil
			default:
				return []byte(`{"structuredContent":{"draft":{"draftId":"d1","generation":12}}}`), nil
			}
		}
		return nil, fmt.Errorf("unexpected hook %s", call.Hook)
	}
	inst := wazerotest.New(t, wazerotest.Options{Handler: proxy, Hook: hook})
	ctx := context.Background()
	id := inst.CreateSession(ctx, map[string]any{"mcpClient": true, "draft": map[string]any{"draftId": "d1", "generation": 10}})
	turn := inst.Chat(ctx, id, "zoom")
	require.Equal(t, "completed", turn.Status, turn.ErrorMessage)
	require.Len(t, turn.ToolCalls, 1)
	rec := turn.ToolCalls[0]
	assert.True(t, rec.OK, rec.ErrorMessage)
	assert.True(t, rec.RetriedAfterConflict)
	assert.Equal(t, &wazerotest.Draft{DraftID: "d1", Generation: 12}, rec.Draft)
	require.Len(t, calls, 3)
	assert.JSONEq(t, `{"name":"honua_studio_set_view","arguments":{"zoom":3,"draftId":"d1","generation":10}}`, calls[0])
	assert.JSONEq(t, `{"name":"honua_studio_get_draft","arguments":{"draftId":"d1"}}`, calls[1])
	assert.JSONEq(t, `{"name":"honua_studio_set_view","arguments":{"zoom":3,"draftId":"d1","generation":11}}`, calls[2])
	r, err := inst.Do(ctx, map[string]any{"op": "session.draft", "session": id})
	require.NoError(t, err)
	assert.Equal(t, &wazerotest.Draft{DraftID: "d1", Generation: 12}, r.Draft)
}
