//go:build !js && !wasip1

// The session over the real MCP client (session/mcpclient) and a fake MCP
// server: discovery, a composition call, the list-changed watch (also
// against a server that offers no stream or pings on it), and the helpers
// the session's MCP tests share.

package session_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/session"
	"github.com/agentwasm/agentwasm/session/mcpclient"
	"github.com/agentwasm/agentwasm/testing/fakemcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The session over the real HTTP MCP client and a fake MCP server, in both
// eras: discovery under the default policy, a composition call with the
// draft bound, and the list-changed watch refreshing the catalog.
func TestSessionOverHTTPMCP(t *testing.T) {
	for _, era := range []struct {
		name string
		era  fakemcp.Era
	}{{"session era", fakemcp.Session}, {"stateless era", fakemcp.Stateless}} {
		t.Run(era.name, func(t *testing.T) {
			var version atomic.Int32
			version.Store(1)
			tools := func() []json.RawMessage {
				return []json.RawMessage{
					json.RawMessage(fmt.Sprintf(`{"name":"honua_studio_set_view","description":"v%d","inputSchema":{"type":"object"},"_meta":{"honua.studio":{"family":"honua.studio.composition","view":"setup"}}}`, version.Load())),
					json.RawMessage(`{"name":"unclassified_tool","inputSchema":{"type":"object"}}`),
				}
			}
			var gotArgs atomic.Value
			srv := &fakemcp.Server{Era: era.era, Tools: tools(), Call: func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, *fakemcp.RPCError) {
				gotArgs.Store(string(args))
				return json.RawMessage(`{"content":[{"type":"text","text":"ok"}],"structuredContent":{"draftId":"d1","generation":6}}`), nil
			}}
			base := startHandler(t, srv)
			client, err := mcpclient.New(mcpclient.Config{URL: base + "/mcp", Fetcher: &bridge.HTTPFetcher{}})
			require.NoError(t, err)
			tr := session.NewScriptedTransport(session.ToolCallRound(call("1", "honua_studio_set_view", `{"zoom":4}`)), session.TextRound("zoomed"))
			statuses := newStatusLog()
			s := newScripted(t, tr, func(o *session.Options) {
				o.MCPClient = client
				o.Draft = &session.DraftBinding{DraftID: "d1", Generation: 5}
				o.WatchToolListChanged = true
				o.ToolListChangedWatch = &session.WatchOptions{InitialDelay: time.Millisecond, OnStatus: statuses.add}
			})
			t.Cleanup(func() { _ = s.Close() })

			turn := s.Chat(context.Background(), "zoom in")
			require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
			require.Len(t, turn.ToolCalls, 1)
			rec := turn.ToolCalls[0]
			assert.True(t, rec.OK, rec.ErrorMessage)
			assert.Equal(t, session.PlaneComposition, rec.Plane)
			assert.JSONEq(t, `{"zoom":4,"draftId":"d1","generation":5}`, gotArgs.Load().(string))
			assert.Equal(t, &session.DraftBinding{DraftID: "d1", Generation: 6}, s.Draft())
			rep := s.ToolDiscovery()
			assert.Equal(t, []string{"honua_studio_set_view"}, rep.Routed)
			assert.Equal(t, 1, rep.Pages)
			require.Len(t, rep.Rejected, 1)
			assert.Equal(t, session.RejectUnclassified, rep.Rejected[0].Reason)

			// The watch is open; a list change brings the new catalog in.
			statuses.waitStatus(t, session.WatchOpen)
			require.Eventually(t, func() bool { return srv.OpenStreams() == 1 }, waitBound, time.Millisecond)
			version.Store(2)
			srv.Tools = tools()
			srv.NotifyToolsChanged()
			require.Eventually(t, func() bool {
				ts := s.Tools()
				return len(ts) == 1 && ts[0].Description == "v2"
			}, waitBound, 2*time.Millisecond)
			assert.Equal(t, 1, srv.OpenStreams(), "still one stream")
		})
	}
}

func TestWatchUnsupportedOverHTTP(t *testing.T) {
	for _, era := range []fakemcp.Era{fakemcp.Session, fakemcp.Stateless} {
		srv := &fakemcp.Server{Era: era, NoStream: true, Tools: []json.RawMessage{json.RawMessage(`{"name":"honua_studio_set_view","_meta":{"honua.studio":{"family":"honua.studio.composition"}}}`)}}
		base := startHandler(t, srv)
		client, err := mcpclient.New(mcpclient.Config{URL: base + "/mcp", Fetcher: &bridge.HTTPFetcher{}})
		require.NoError(t, err)
		statuses := newStatusLog()
		s := newScripted(t, session.NewScriptedTransport(session.TextRound("x")), func(o *session.Options) {
			o.MCPClient = client
			o.WatchToolListChanged = true
			o.ToolListChangedWatch = &session.WatchOptions{InitialDelay: time.Millisecond, OnStatus: statuses.add}
		})
		t.Cleanup(func() { _ = s.Close() })
		s.Chat(context.Background(), "hi")
		statuses.waitStatus(t, session.WatchUnsupported)
		assert.Equal(t, []string{"honua_studio_set_view"}, toolNames(s.Tools()), "the catalog is kept")
	}
}

// The helpers below start the default client against a fake server, as
// session/mcpclient's own tests do.

const mcpBound = 5 * time.Second

// mcpTools returns tool descriptors with the given names.
func mcpTools(names ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(names))
	for i, n := range names {
		out[i] = json.RawMessage(fmt.Sprintf(`{"name":%q,"description":"tool %d","inputSchema":{"type":"object"},"_meta":{"honua.studio":{"family":"f"}}}`, n, i))
	}
	return out
}

// startMCP serves h and returns a client for it; cfg may adjust the
// configuration.
func startMCP(t *testing.T, h http.Handler, cfg func(*mcpclient.Config)) *mcpclient.Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	c := mcpclient.Config{
		URL:     srv.URL + "/api/mcp",
		Fetcher: &bridge.HTTPFetcher{Client: srv.Client()},
		Auth:    session.StaticToken("token-abcdef"),
	}
	if cfg != nil {
		cfg(&c)
	}
	client, err := mcpclient.New(c)
	require.NoError(t, err)
	return client
}

// waitUntil polls cond until it holds or mcpBound passes.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(mcpBound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// countOf returns how many times s occurs in list.
func countOf(list []string, s string) int {
	n := 0
	for _, v := range list {
		if v == s {
			n++
		}
	}
	return n
}

// requireAnswer checks the client's answer to server request r: the same
// id, the request's headers, and an empty result for ping or a -32601
// error naming any other method.
func requireAnswer(t *testing.T, r fakemcp.ServerRequest, sessionID, result string) {
	t.Helper()
	require.NotNil(t, r.Answer, "the client answered the server's %s", r.Method)
	a := r.Answer
	assert.JSONEq(t, string(r.ID), string(a.ID), "the answer carries the request's id")
	h := a.Header
	assert.Equal(t, sessionID, h.Get("Mcp-Session-Id"))
	assert.Equal(t, "2025-11-25", h.Get("Mcp-Protocol-Version"))
	assert.Equal(t, "Bearer token-abcdef", h.Get("Authorization"))
	assert.Equal(t, "application/json", h.Get("Content-Type"))
	assert.Contains(t, h.Get("Accept"), "application/json")
	assert.Contains(t, h.Get("Accept"), "text/event-stream")
	if result != "" {
		assert.Nil(t, a.Error)
		assert.JSONEq(t, result, string(a.Result))
		return
	}
	require.NotNil(t, a.Error, "a request the client does not handle gets an error")
	assert.Nil(t, a.Result)
	assert.Equal(t, -32601, a.Error.Code)
	assert.Equal(t, "method not found: "+r.Method+" (this client does not handle it)", a.Error.Message)
}

// The list-changed watch of a session against a server that pings on its
// GET stream: the pings are answered, the stream stays open (no reconnect),
// a list change still refreshes the catalog, and the session is never
// re-initialized.
func TestWatchStaysOpenWithAPingingServer(t *testing.T) {
	srv := &fakemcp.Server{Era: fakemcp.Session, Tools: mcpTools("a"), PingTimeout: time.Minute}
	client := startMCP(t, srv, nil)
	statuses := newStatusLog()
	s := newScripted(t, session.NewScriptedTransport(session.TextRound("x")), func(o *session.Options) {
		o.MCPClient = client
		o.WatchToolListChanged = true
		o.ToolListChangedWatch = &session.WatchOptions{OnStatus: statuses.add}
	})
	t.Cleanup(func() { _ = s.Close() })
	require.Equal(t, session.StatusCompleted, s.Chat(context.Background(), "start").Status)
	statuses.waitStatus(t, session.WatchOpen)
	waitUntil(t, "the watch's stream is open", func() bool { return srv.OpenStreams() == 1 })

	for range 3 {
		ids := srv.SendRequest("ping")
		require.Len(t, ids, 1)
		waitFor(t, srv.Answered(ids[0]), "the answer to the ping")
	}
	for _, r := range srv.ServerRequests() {
		requireAnswer(t, r, "session-1", `{}`)
	}

	srv.NotifyToolsChanged()
	waitUntil(t, "the list change refreshed the catalog", func() bool { return countOf(srv.RPCMethods(), "tools/list") == 2 })
	assert.Equal(t, session.WatchOpen, s.ToolWatchStatus())
	assert.Equal(t, []string{session.WatchConnecting, session.WatchOpen}, statuses.list(), "no reconnect")
	methods := srv.RPCMethods()
	assert.Equal(t, 1, countOf(methods, "initialize"), "the session was never renewed: %v", methods)
	assert.Equal(t, 1, countOf(methods, "GET"))
	assert.Equal(t, 1, srv.OpenStreams())
	for _, r := range srv.Requests()[2:] {
		assert.Equal(t, "session-1", r.Header.Get("Mcp-Session-Id"))
	}
}
