// The list-changed watch and discovery through the wasip1 module: a silent
// watch stream beside a chat, and a silent MCP endpoint on a virtual clock.

package wazerotest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/agentwasm/agentwasm/testing/fakemcp"
	"github.com/agentwasm/agentwasm/testing/fakeproxy"
	"github.com/agentwasm/agentwasm/wazerotest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The module discovers tools on {baseUrl}/mcp with its own HTTP MCP
// client, opens the list-changed watch, and a watch stream that never
// sends does not stall the next chat; a list change then brings the new
// catalog in.
func TestWatchBesideChatThroughTheModule(t *testing.T) {
	tool := func(desc string) []json.RawMessage {
		return []json.RawMessage{json.RawMessage(`{"name":"honua_studio_set_view","description":"` + desc + `","_meta":{"honua.studio":{"family":"honua.studio.composition"}}}`)}
	}
	mcp := &fakemcp.Server{Era: fakemcp.Session, Tools: tool("v1")}
	proxy := fakeproxy.New(fakeproxy.Reply{Body: fakeproxy.TextStream("fine")})
	mux := http.NewServeMux()
	mux.Handle("/api/mcp", mcp)
	mux.Handle("/", proxy)
	inst := wazerotest.New(t, wazerotest.Options{Handler: mux})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	id := inst.CreateSession(ctx, map[string]any{"watchToolListChanged": true, "toolListChangedWatch": map[string]any{"initialDelayMs": 5}})

	turn := inst.Chat(ctx, id, "one")
	require.Equal(t, "completed", turn.Status, turn.ErrorMessage)
	// Let the watch connect (background work runs during calls).
	for i := 0; i < 200 && mcp.OpenStreams() == 0; i++ {
		_, err := inst.Do(ctx, map[string]any{"op": "poll", "session": id, "timeoutMs": 5})
		require.NoError(t, err)
	}
	require.Equal(t, 1, mcp.OpenStreams(), "the watch stream is open")

	// The stream is silent: a chat still completes.
	turn = inst.Chat(ctx, id, "two")
	assert.Equal(t, "completed", turn.Status, turn.ErrorMessage)
	assert.Equal(t, "fine", turn.Text)

	// A list change: one more discovery, still one stream.
	mcp.Tools = tool("v2")
	mcp.NotifyToolsChanged()
	var desc string
	for i := 0; i < 200 && desc != "v2"; i++ {
		_, err := inst.Do(ctx, map[string]any{"op": "poll", "session": id, "timeoutMs": 5})
		require.NoError(t, err)
		r, err := inst.Do(ctx, map[string]any{"op": "session.tools", "session": id})
		require.NoError(t, err)
		if len(r.Tools) == 1 {
			desc = r.Tools[0].Description
		}
	}
	assert.Equal(t, "v2", desc)
	assert.Equal(t, 1, mcp.OpenStreams())
	var statuses []string
	for _, ev := range inst.Events(id) {
		if ev.Type == "toolWatch" {
			statuses = append(statuses, ev.Status)
		}
	}
	assert.Contains(t, statuses, "open")
}

// An MCP endpoint that accepts every request and never answers: with the
// default 15 s discovery bound on a virtual clock, the turn completes on the
// runtime tools, and the report says why.
func TestSilentMCPEndpointOnVirtualClock(t *testing.T) {
	clock := wazerotest.NewVirtualClock(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC))
	proxy := fakeproxy.New(fakeproxy.Reply{Body: fakeproxy.TextStream("runtime tools only")})
	mux := http.NewServeMux()
	mux.HandleFunc("/api/mcp", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	mux.Handle("/", proxy)
	inst := wazerotest.New(t, wazerotest.Options{Handler: mux, Clock: clock})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := inst.CreateSession(ctx, map[string]any{"tools": []any{filterTool}})
	before := clock.Now()
	turn := inst.Chat(ctx, id, "hi")
	require.Equal(t, "completed", turn.Status, turn.ErrorMessage)
	assert.Equal(t, "runtime tools only", turn.Text)
	assert.GreaterOrEqual(t, clock.Now().Sub(before), 15*time.Second)
	r, err := inst.Do(ctx, map[string]any{"op": "session.toolDiscovery", "session": id})
	require.NoError(t, err)
	assert.Equal(t, "server/discover did not respond within 15000ms.", r.Report.ErrorMessage, "the era probe is the request that hung")
	tools, _ := json.Marshal(proxy.ChatRequests()[0].JSON()["tools"])
	assert.JSONEq(t, `[{"name":"setFilter","description":"Filter the map","inputSchema":{"type":"object"}}]`, string(tools))
}
