// Tests of POST /api/demo/reset: it answers {"reset":true} and puts the
// demo MCP server back as it started — the list-changed moment and the
// draft conflict happen again for a new conversation, and the old one is
// told its draft went with the reset — and it is refused like the rest of
// /api: another origin's page, a post that is not JSON, another method.

package main

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentwasm/agentwasm/session"
	"github.com/agentwasm/agentwasm/session/mcpclient"
)

// catalogHas lists the dev server's MCP catalog (the stateless era) and
// reports whether it holds name.
func catalogHas(t *testing.T, base, name string) bool {
	t.Helper()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	resp, body := jsonPost(t, base+"/api/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+meta+`}}`,
		"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/list")
	require.Equal(t, 200, resp.StatusCode, body)
	require.Contains(t, body, "honua_studio_add_layer")
	return strings.Contains(body, `"name":"`+name+`"`)
}

// TestDemoResetAgain: a watching session sees the catalog grow with the
// first draft, shrink back at the reset, and grow again with a new
// conversation's first draft, whose first edit meets the collaborator's
// conflict again; the conversation from before the reset is told, in
// words, that its draft went with it.
func TestDemoResetAgain(t *testing.T) {
	addr := limitServer(t, devOptions{WebDir: t.TempDir(), DistDir: t.TempDir()})
	base := "http://" + addr
	newSession := func(watch bool, reports chan<- session.ToolDiscoveryReport) *session.Session {
		client, err := mcpclient.New(mcpclient.Config{URL: base + "/api/mcp"})
		require.NoError(t, err)
		s, err := session.New(session.Options{
			BaseURL:              base + "/api",
			MCPClient:            client,
			WatchToolListChanged: watch,
			OnEvent: func(ev session.Event) {
				if ev.Discovery != nil && reports != nil {
					reports <- *ev.Discovery
				}
			},
		})
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	reports := make(chan session.ToolDiscoveryReport, 16)
	watcher := newSession(true, reports)
	_, err := watcher.RefreshTools(ctx)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return watcher.ToolWatchStatus() == session.WatchOpen }, 20*time.Second, 5*time.Millisecond)
	select {
	case <-reports: // the discovery just made
	case <-ctx.Done():
		t.Fatal("RefreshTools sent no discovery report")
	}
	waitFor := func(preview bool, why string) {
		t.Helper()
		for {
			select {
			case rep := <-reports:
				if contains(rep.Routed, "honua_studio_preview_draft") == preview {
					return
				}
			case <-ctx.Done():
				t.Fatalf("%s: no report came; watch %v", why, watcher.ToolWatchStatus())
			}
		}
	}
	addSchools := func(s *session.Session) session.Turn {
		t.Helper()
		turn := s.Chat(ctx, "add a schools layer", session.ChatOptions{})
		require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
		return turn
	}

	first := newSession(false, nil)
	turn := addSchools(first)
	require.Len(t, turn.ToolCalls, 2)
	assert.True(t, turn.ToolCalls[1].RetriedAfterConflict)
	waitFor(true, "the first draft adds the preview tool")

	resp, body := jsonPost(t, base+demoResetPath, `{}`, "Origin", base)
	require.Equal(t, 200, resp.StatusCode, body)
	assert.JSONEq(t, `{"reset":true}`, body)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	waitFor(false, "the reset takes it away, and listeners are told")
	assert.False(t, catalogHas(t, base, "honua_studio_preview_draft"))

	// A new conversation meets what the first one met.
	again := addSchools(newSession(false, nil))
	require.Len(t, again.ToolCalls, 2)
	assert.Equal(t, "honua_studio_create_draft", again.ToolCalls[0].ToolName)
	assert.True(t, again.ToolCalls[1].RetriedAfterConflict, "the collaborator's conflict happens again")
	waitFor(true, "the list-changed moment happens again")

	// The conversation from before the reset is told what happened.
	old := first.Chat(ctx, "add a parks layer", session.ChatOptions{})
	require.Equal(t, session.StatusCompleted, old.Status, old.ErrorMessage)
	assert.Contains(t, old.Text, "removed when the demo was reset")
}

// TestDemoResetRefusals: the reset is behind the /api policy like the
// proxy and MCP — another origin's page (its form, its text/plain fetch,
// a null or same-host other-port origin) and a rebound host name are
// refused first — and it refuses what is not a POST of a JSON object;
// none of the refused requests resets anything.
func TestDemoResetRefusals(t *testing.T) {
	const allowed = "http://127.0.0.1:5173"
	srv := devServer(t, devOptions{WebDir: t.TempDir(), DistDir: t.TempDir(), AllowOrigins: []string{allowed}})
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	self := "http://127.0.0.1:" + port
	// A draft, so that a reset would show: the catalog holds the preview tool.
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	resp, body := jsonPost(t, srv.URL+"/api/mcp", init)
	require.Equal(t, 200, resp.StatusCode, body)
	sid := resp.Header.Get("Mcp-Session-Id")
	resp, body = jsonPost(t, srv.URL+"/api/mcp", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"honua_studio_create_draft","arguments":{"title":"x"}}}`,
		"Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-11-25")
	require.Equal(t, 200, resp.StatusCode, body)
	require.True(t, catalogHas(t, srv.URL, "honua_studio_preview_draft"))

	cases := []struct {
		name    string
		method  string
		host    string // the Host header; "" is the server's own
		headers []string
		body    string
		status  int
		code    string
	}{
		{"another origin's page", "POST", "", []string{"Origin", "http://evil.example", "Content-Type", "application/json"}, `{}`, 403, "forbidden_origin"},
		{"another port of the same host", "POST", "", []string{"Origin", "http://127.0.0.1:1", "Content-Type", "application/json"}, `{}`, 403, "forbidden_origin"},
		{"a null Origin (a sandboxed frame)", "POST", "", []string{"Origin", "null", "Content-Type", "application/json"}, `{}`, 403, "forbidden_origin"},
		{"a cross-site request without Origin", "POST", "", []string{"Sec-Fetch-Site", "cross-site", "Content-Type", "application/json"}, `{}`, 403, "forbidden_origin"},
		// A hostile page's simple requests: a form's post, or fetch with
		// text/plain (no preflight), carry its Origin.
		{"another origin's form", "POST", "", []string{"Origin", "http://evil.example", "Sec-Fetch-Site", "cross-site", "Content-Type", "application/x-www-form-urlencoded"}, `a=b`, 403, "forbidden_origin"},
		{"another origin's text/plain post", "POST", "", []string{"Origin", "http://evil.example", "Sec-Fetch-Site", "cross-site", "Content-Type", "text/plain"}, `{}`, 403, "forbidden_origin"},
		// A rebound name: the hostile page's own origin, its name now
		// resolving to this server.
		{"a rebound Host", "POST", "evil.example:" + port, []string{"Origin", "http://evil.example:" + port, "Content-Type", "application/json"}, `{}`, 403, "forbidden_host"},
		{"a rebound Host's text/plain post", "POST", "evil.example:" + port, []string{"Origin", "http://evil.example:" + port, "Content-Type", "text/plain"}, `{}`, 403, "forbidden_host"},
		{"a form", "POST", "", []string{"Origin", self, "Content-Type", "application/x-www-form-urlencoded"}, `a=b`, 415, "unsupported_media_type"},
		{"text/plain", "POST", "", []string{"Origin", self, "Content-Type", "text/plain"}, `{}`, 415, "unsupported_media_type"},
		{"no media type", "POST", "", nil, `{}`, 415, "unsupported_media_type"},
		{"a GET", "GET", "", []string{"Origin", self}, "", 405, "method_not_allowed"},
		{"not JSON", "POST", "", []string{"Origin", self, "Content-Type", "application/json"}, `reset`, 400, "invalid_request"},
		{"not an object", "POST", "", []string{"Origin", self, "Content-Type", "application/json"}, `[]`, 400, "invalid_request"},
		{"no body", "POST", "", []string{"Origin", self, "Content-Type", "application/json"}, ``, 400, "invalid_request"},
		{"too large", "POST", "", []string{"Origin", self, "Content-Type", "application/json"}, `{"x":"` + strings.Repeat("a", maxResetBody) + `"}`, 400, "invalid_request"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, body := apiRequest(t, srv, c.method, demoResetPath, c.host, c.body, c.headers...)
			require.Equal(t, c.status, resp.StatusCode, string(body))
			assert.Equal(t, c.code, errorCode(body), string(body))
			assert.True(t, catalogHas(t, srv.URL, "honua_studio_preview_draft"), "nothing was reset")
		})
	}

	// An allowed origin may reset, with its CORS answer; the preflight too.
	resp, body = jsonPost(t, srv.URL+demoResetPath, `{}`, "Origin", allowed)
	require.Equal(t, 200, resp.StatusCode, body)
	assert.Equal(t, allowed, resp.Header.Get("Access-Control-Allow-Origin"))
	assert.False(t, catalogHas(t, srv.URL, "honua_studio_preview_draft"), "the reset happened")
	resp, _ = apiRequest(t, srv, "OPTIONS", demoResetPath, "", "", "Origin", allowed, "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type")
	assert.Equal(t, 204, resp.StatusCode)
}
