// Degraded discovery and hostile tool lists through the wasip1 module.

package wazerotest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentwasm/agentwasm/testing/fakemcp"
	"github.com/agentwasm/agentwasm/testing/fakeproxy"
	"github.com/agentwasm/agentwasm/wazerotest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// composed is a classified composition tool as an MCP server lists it.
func composed(name string) json.RawMessage {
	return json.RawMessage(`{"name":"` + name + `","inputSchema":{"type":"object"},"_meta":{"honua.studio":{"family":"honua.studio.composition"}}}`)
}

// toolNamesOf lists the names of a session.tools reply.
func toolNamesOf(r wazerotest.Reply) []string {
	var out []string
	for _, t := range r.Tools {
		out = append(out, t.Name)
	}
	return out
}

// An MCP endpoint that never answers, on a virtual clock: the first turn
// waits the 15 s discovery bound once, and the report names the request
// that hung (the era probe, server/discover); the next turn does not wait
// again; once the endpoint answers, a background retry brings the catalog
// in without any turn waiting for it.
func TestDegradedDiscoveryThroughTheModule(t *testing.T) {
	clock := wazerotest.NewVirtualClock(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC))
	proxy := fakeproxy.New(fakeproxy.Reply{Body: fakeproxy.TextStream("fine")})
	var live atomic.Bool
	mcp := &fakemcp.Server{Era: fakemcp.Stateless, Tools: []json.RawMessage{composed("honua_studio_set_view")}}
	mux := http.NewServeMux()
	mux.HandleFunc("/api/mcp", func(w http.ResponseWriter, r *http.Request) {
		if !live.Load() {
			<-r.Context().Done() // accepts every request and never answers
			return
		}
		mcp.ServeHTTP(w, r)
	})
	mux.Handle("/", proxy)
	inst := wazerotest.New(t, wazerotest.Options{Handler: mux, Clock: clock})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := inst.CreateSession(ctx, map[string]any{"tools": []any{filterTool}})

	before := clock.Now()
	turn := inst.Chat(ctx, id, "one")
	require.Equal(t, "completed", turn.Status, turn.ErrorMessage)
	assert.GreaterOrEqual(t, clock.Now().Sub(before), 15*time.Second, "the first turn waits the bound")
	r, err := inst.Do(ctx, map[string]any{"op": "session.toolDiscovery", "session": id})
	require.NoError(t, err)
	require.NotNil(t, r.Report)
	assert.Equal(t, "server/discover did not respond within 15000ms.", r.Report.ErrorMessage)

	before = clock.Now()
	turn = inst.Chat(ctx, id, "two")
	require.Equal(t, "completed", turn.Status, turn.ErrorMessage)
	assert.Less(t, clock.Now().Sub(before), 15*time.Second, "the second turn does not wait for discovery again")
	tools, _ := json.Marshal(proxy.ChatRequests()[1].JSON()["tools"])
	assert.JSONEq(t, `[{"name":"setFilter","description":"Filter the map","inputSchema":{"type":"object"}}]`, string(tools))

	live.Store(true)
	var names []string
	for i := 0; i < 400 && len(names) < 2; i++ {
		_, err := inst.Do(ctx, map[string]any{"op": "poll", "session": id, "timeoutMs": 500})
		require.NoError(t, err)
		r, err := inst.Do(ctx, map[string]any{"op": "session.tools", "session": id})
		require.NoError(t, err)
		names = toolNamesOf(r)
	}
	assert.Equal(t, []string{"setFilter", "honua_studio_set_view"}, names, "a background retry found the catalog")
	r, err = inst.Do(ctx, map[string]any{"op": "session.toolDiscovery", "session": id})
	require.NoError(t, err)
	assert.Empty(t, r.Report.ErrorMessage)
	assert.Equal(t, []string{"honua_studio_set_view"}, r.Report.Routed)
}

// One tool nested 12000 deep and tools with hostile names among good ones,
// through the module's own MCP client: the good tools are routed, the
// others refused and named in the report.
func TestHostileToolListThroughTheModule(t *testing.T) {
	deep := json.RawMessage(`{"name":"honua_studio_poisoned","inputSchema":` + strings.Repeat(`{"a":`, 11999) + "{}" + strings.Repeat("}", 11999) + `,"_meta":{"honua.studio":{"family":"honua.studio.composition"}}}`)
	mcp := &fakemcp.Server{Era: fakemcp.Session, SSE: true, Tools: []json.RawMessage{
		composed("honua_studio_set_view"),
		deep,
		composed(`evil\u0000name`),
		composed(`evil\u202etxt`),
		json.RawMessage(`{"name":"honua_studio_string_schema","inputSchema":"string","_meta":{"honua.studio":{"family":"honua.studio.composition"}}}`),
		composed("honua_studio_add_layer"),
	}}
	proxy := fakeproxy.New(fakeproxy.Reply{Body: fakeproxy.TextStream("fine")})
	mux := http.NewServeMux()
	mux.Handle("/api/mcp", mcp)
	mux.Handle("/", proxy)
	inst := wazerotest.New(t, wazerotest.Options{Handler: mux})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := inst.CreateSession(ctx, map[string]any{})
	r, err := inst.Do(ctx, map[string]any{"op": "session.refreshTools", "session": id})
	require.NoError(t, err)
	require.NotNil(t, r.Report, "%+v", r)
	assert.Empty(t, r.Report.ErrorMessage)
	assert.Equal(t, 6, r.Report.Discovered)
	assert.Equal(t, []string{"honua_studio_set_view", "honua_studio_add_layer"}, r.Report.Routed)
	var rejected []string
	for _, j := range r.Report.Rejected {
		rejected = append(rejected, j.Name+" "+j.Reason)
	}
	assert.Equal(t, []string{"honua_studio_poisoned schema", "evil\x00name name", "evil\u202etxt name", "honua_studio_string_schema schema"}, rejected)
}
