//go:build !js && !wasip1

// The default MCP client New builds on {BaseURL}/mcp: against a proxy with
// no MCP endpoint, one with one, and with DisableToolDiscovery.

package session_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"

	"github.com/agentwasm/agentwasm/session"
	"github.com/agentwasm/agentwasm/testing/fakemcp"
	"github.com/agentwasm/agentwasm/testing/fakeproxy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mcpRequests returns the proxy's requests to {BaseURL}/mcp.
func mcpRequests(p *fakeproxy.Proxy) []fakeproxy.Request {
	var out []fakeproxy.Request
	for _, r := range p.Requests() {
		if r.Path == "/api/mcp" {
			out = append(out, r)
		}
	}
	return out
}

// advertised returns the tool names a chat request advertised.
func advertised(t *testing.T, r fakeproxy.Request) []string {
	t.Helper()
	var body struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &body))
	names := []string{}
	for _, tl := range body.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// eventLog records a session's events; safe for the discovery goroutine.
type eventLog struct {
	mu     sync.Mutex
	events []session.Event
}

func (l *eventLog) add(ev session.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, ev)
}

func (l *eventLog) discoveries() []session.ToolDiscoveryReport {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []session.ToolDiscoveryReport
	for _, ev := range l.events {
		if ev.Type == session.EventTypeToolDiscovery && ev.Discovery != nil {
			out = append(out, *ev.Discovery)
		}
	}
	return out
}

// With no MCPClient given, a session discovers on {BaseURL}/mcp. A proxy
// with no MCP endpoint (404) makes the endpoint absent: the turn still
// completes on the runtime tools, the absence is on ToolDiscovery(), and,
// absence being remembered, the next turn does not ask again.
func TestDefaultMCPClientOnAProxyWithoutMCP(t *testing.T) {
	proxy := fakeproxy.New(
		fakeproxy.Reply{Body: fakeproxy.ToolCallStream(fakeproxy.Call{ID: "c1", Name: "setFilter", Args: `{"field":"pop"}`})},
		fakeproxy.Reply{Body: fakeproxy.TextStream("Filtered.")},
		fakeproxy.Reply{Body: fakeproxy.TextStream("Again.")})
	base := startHandler(t, proxy)
	exec := &recordingExec{}
	var log eventLog
	s := newSession(t, base, func(o *session.Options) {
		withTool(exec)(o)
		o.OnEvent = log.add
	})

	turn := chat(t, context.Background(), s, "filter")
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	assert.Equal(t, "Filtered.", turn.Text)
	assert.Equal(t, []string{"setFilter"}, exec.names(), "the runtime tool ran")
	first := len(mcpRequests(proxy))
	assert.Positive(t, first, "the default client asked {BaseURL}/mcp")
	rep := s.ToolDiscovery()
	assert.NotEmpty(t, rep.ErrorMessage, "the failed pass is reported")
	assert.Empty(t, rep.Routed)
	assert.Equal(t, []string{"setFilter"}, toolNames(s.Tools()), "only the runtime tools are advertised")
	chats := chatRequests(proxy)
	require.Len(t, chats, 2)
	for _, r := range chats {
		assert.Equal(t, []string{"setFilter"}, advertised(t, r))
	}
	reports := log.discoveries()
	require.Len(t, reports, 1)
	assert.Equal(t, rep.ErrorMessage, reports[0].ErrorMessage)

	// The absence is remembered: the next turn does not discover again.
	turn = chat(t, context.Background(), s, "again")
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	assert.Equal(t, "Again.", turn.Text)
	assert.Equal(t, first, len(mcpRequests(proxy)), "the second turn did not ask {BaseURL}/mcp again")
	assert.Len(t, log.discoveries(), 1)
	assert.Contains(t, s.ToolDiscovery().ErrorMessage, "has no MCP endpoint")
	assert.Len(t, chatRequests(proxy), 3)
}

// With no MCPClient given, a session discovers on {BaseURL}/mcp with the
// HTTP MCP client, sending the session's Auth token, and advertises the
// classified tools it routes after the runtime ones. A successful pass is
// cached: the next turn does not list again.
func TestDefaultMCPClientDiscoversOnBaseURL(t *testing.T) {
	for _, era := range []struct {
		name string
		era  fakemcp.Era
	}{{"session era", fakemcp.Session}, {"stateless era", fakemcp.Stateless}} {
		t.Run(era.name, func(t *testing.T) {
			srv := &fakemcp.Server{Era: era.era, Tools: []json.RawMessage{
				json.RawMessage(`{"name":"honua_studio_set_view","description":"Set the view.","inputSchema":{"type":"object"},"_meta":{"honua.studio":{"family":"honua.studio.composition","view":"setup"}}}`),
				json.RawMessage(`{"name":"unclassified_tool","inputSchema":{"type":"object"}}`),
			}}
			proxy := fakeproxy.New(fakeproxy.Reply{Body: fakeproxy.TextStream("ok")})
			mux := http.NewServeMux()
			mux.Handle("/api/mcp", srv)
			mux.Handle("/", proxy)
			base := startHandler(t, mux)
			s := newSession(t, base, func(o *session.Options) {
				o.Tools = []session.ToolDefinition{tool("setFilter")}
				o.Execute = &recordingExec{}
				o.Auth = session.StaticToken("mcp-token")
			})
			t.Cleanup(func() { _ = s.Close() })

			turn := chat(t, context.Background(), s, "hi")
			require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
			rep := s.ToolDiscovery()
			assert.Empty(t, rep.ErrorMessage)
			assert.Equal(t, []string{"honua_studio_set_view"}, rep.Routed)
			require.Len(t, rep.Rejected, 1)
			assert.Equal(t, session.RejectUnclassified, rep.Rejected[0].Reason)
			assert.Equal(t, []string{"setFilter", "honua_studio_set_view"}, toolNames(s.Tools()))
			chats := chatRequests(proxy)
			require.Len(t, chats, 1)
			assert.Equal(t, []string{"setFilter", "honua_studio_set_view"}, advertised(t, chats[0]), "the discovered tool is advertised")
			assert.Empty(t, mcpRequests(proxy), "the MCP requests went to the MCP server, not the chat proxy")

			reqs := srv.Requests()
			require.NotEmpty(t, reqs)
			for _, r := range reqs {
				assert.Equal(t, "Bearer mcp-token", r.Header.Get("authorization"), "the session's Auth reaches the MCP client")
			}
			assert.Contains(t, srv.RPCMethods(), "tools/list")

			listed := len(srv.RPCMethods())
			require.Equal(t, session.StatusCompleted, chat(t, context.Background(), s, "again").Status)
			assert.Len(t, srv.RPCMethods(), listed, "the successful pass is cached")
			assert.Len(t, chatRequests(proxy), 2)
		})
	}
}

// DisableToolDiscovery: no default client, no request to {BaseURL}/mcp,
// only the runtime tools advertised, turn after turn.
func TestDisableToolDiscoveryContactsNoMCP(t *testing.T) {
	proxy := fakeproxy.New(fakeproxy.Reply{Body: fakeproxy.TextStream("ok")})
	base := startHandler(t, proxy)
	s := newSession(t, base, func(o *session.Options) {
		withTool(&recordingExec{})(o)
		o.DisableToolDiscovery = true
	})
	for _, text := range []string{"one", "two"} {
		turn := chat(t, context.Background(), s, text)
		require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	}
	for _, r := range proxy.Requests() {
		assert.NotEqual(t, "/api/mcp", r.Path, "no request goes to /mcp")
	}
	assert.Len(t, chatRequests(proxy), 2)
	assert.Empty(t, s.ToolDiscovery().ErrorMessage)
	assert.Equal(t, []string{"setFilter"}, toolNames(s.Tools()))
	for _, r := range chatRequests(proxy) {
		assert.Equal(t, []string{"setFilter"}, advertised(t, r))
	}
}
