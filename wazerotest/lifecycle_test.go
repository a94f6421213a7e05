package wazerotest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentwasm/agentwasm/testing/fakeproxy"
	"github.com/agentwasm/agentwasm/wazerotest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// messages returns the session's history through the module.
func messages(t *testing.T, inst *wazerotest.Instance, id int) []wazerotest.Message {
	t.Helper()
	r, err := inst.Do(context.Background(), map[string]any{"op": "session.messages", "session": id})
	require.NoError(t, err)
	require.True(t, r.OK, "%+v", r.Error)
	return r.Messages
}

// A proxy that refuses one request with 413 fails that turn only: the
// history is as it was before it, and the next turn sends nothing of it.
func TestRefusedRequestThroughTheModule(t *testing.T) {
	proxy := fakeproxy.New(
		fakeproxy.Reply{Body: fakeproxy.TextStream("one")},
		fakeproxy.Reply{Status: 413, Body: "request entity too large"},
		fakeproxy.Reply{Body: fakeproxy.TextStream("three")})
	inst := wazerotest.New(t, wazerotest.Options{Handler: proxy})
	ctx := context.Background()
	id := inst.CreateSession(ctx, map[string]any{"disableToolDiscovery": true})
	require.Equal(t, "completed", inst.Chat(ctx, id, "a").Status)
	before := messages(t, inst, id)
	refused := inst.Chat(ctx, id, "b")
	require.Equal(t, "error", refused.Status)
	assert.Contains(t, refused.ErrorMessage, "413")
	assert.Equal(t, before, messages(t, inst, id))
	require.Equal(t, "completed", inst.Chat(ctx, id, "c").Status)
	reqs := fakeproxy.WithoutMCP(proxy.Requests())
	require.Len(t, reqs, 3)
	assert.Equal(t, []any{
		map[string]any{"role": "user", "content": "a"},
		map[string]any{"role": "assistant", "content": "one"},
		map[string]any{"role": "user", "content": "c"},
	}, reqs[2].JSON()["messages"])
}

// A page tool's answers through the module: null reaches the model as data
// null, and a 12 MB result fails as result_too_large, after which the next
// turn completes with requests under the proxy's bound.
func TestPageToolResultsThroughTheModule(t *testing.T) {
	cases := []struct {
		name, answer, content, code string
	}{
		{"null", `{"status":"ok","data":null}`, `{"status":"ok","data":null}`, ""},
		{"12 MB", `{"status":"ok","data":"` + strings.Repeat("x", 12<<20) + `"}`, "", "result_too_large"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			proxy := fakeproxy.New(
				fakeproxy.Reply{Body: fakeproxy.ToolCallStream(fakeproxy.Call{ID: "c1", Name: "page"})},
				fakeproxy.Reply{Body: fakeproxy.TextStream("read")},
				fakeproxy.Reply{Body: fakeproxy.TextStream("next")})
			inst := wazerotest.New(t, wazerotest.Options{Handler: proxy, Hook: func(context.Context, wazerotest.HookCall) ([]byte, error) {
				return []byte(tc.answer), nil
			}})
			ctx := context.Background()
			id := inst.CreateSession(ctx, map[string]any{"disableToolDiscovery": true, "execute": true,
				"tools": []any{map[string]any{"name": "page", "inputSchema": map[string]any{"type": "object"}}}})
			turn := inst.Chat(ctx, id, "read the page")
			require.Equal(t, "completed", turn.Status, turn.ErrorMessage)
			require.Len(t, turn.ToolCalls, 1)
			rec := turn.ToolCalls[0]
			assert.Equal(t, tc.code, rec.ErrorCode)
			if tc.content != "" {
				assert.Equal(t, tc.content, rec.Content)
			} else {
				assert.Contains(t, rec.Content, `"code":"`+tc.code+`"`)
			}
			assert.Equal(t, "completed", inst.Chat(ctx, id, "and now?").Status)
			for i, r := range fakeproxy.WithoutMCP(proxy.Requests()) {
				assert.LessOrEqual(t, len(r.Body), 8<<20, "request %d", i)
			}
		})
	}
}
