// Tests of agentwasm dev's handler: the static assets (media types,
// precompressed twins, stale twins, no escapes), the proxy and MCP endpoints
// in both eras, list-changed reaching a real session in both eras, and the
// upstream path with its key kept out of every answer.

package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentwasm/agentwasm/session/mcpclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentwasm/agentwasm/session"
)

// devServer serves newDevHandler over web and dist folders.
func devServer(t *testing.T, o devOptions) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(newDevHandler(o))
	t.Cleanup(srv.Close)
	return srv
}

// get sends a GET with headers as pairs.
func get(t *testing.T, url string, kv ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	for i := 0; i+1 < len(kv); i += 2 {
		req.Header.Set(kv[i], kv[i+1])
	}
	// No transparent decompression: the test reads what was sent.
	resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, body
}

func write(t *testing.T, path, body string, mod time.Time) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
	require.NoError(t, os.Chtimes(path, mod, mod))
}

func TestDevAssets(t *testing.T) {
	root := t.TempDir()
	web, dist := filepath.Join(root, "web"), filepath.Join(root, "dist")
	now := time.Now()
	write(t, filepath.Join(root, "secret.txt"), "SECRET", now)
	write(t, filepath.Join(web, "index.html"), "<!doctype html>demo", now)
	write(t, filepath.Join(web, "app.mjs"), "export {}", now)
	write(t, filepath.Join(web, ".secret"), "no", now)
	write(t, filepath.Join(dist, "agentwasm.wasm"), "RAW", now)
	write(t, filepath.Join(dist, "agentwasm.wasm.br"), "BROTLI", now)
	write(t, filepath.Join(dist, "agentwasm.wasm.gz"), "GZIP", now)
	write(t, filepath.Join(dist, "wasm_exec.js"), "RAWJS", now)
	write(t, filepath.Join(dist, "wasm_exec.js.br"), "STALE", now.Add(-time.Hour)) // older than its file
	require.NoError(t, os.MkdirAll(filepath.Join(dist, "sub"), 0o755))
	srv := devServer(t, devOptions{WebDir: web, DistDir: dist})

	cases := []struct {
		name, path, accept string
		status             int
		body, ctype, enc   string
	}{
		{"the page", "/", "", 200, "<!doctype html>demo", "text/html; charset=utf-8", ""},
		{"a module of the page", "/app.mjs", "br", 200, "export {}", "text/javascript; charset=utf-8", ""},
		{"brotli when accepted", "/dist/agentwasm.wasm", "gzip, deflate, br", 200, "BROTLI", "application/wasm", "br"},
		{"gzip when brotli is not", "/dist/agentwasm.wasm", "gzip", 200, "GZIP", "application/wasm", "gzip"},
		{"brotli refused with q=0", "/dist/agentwasm.wasm", "br;q=0, gzip", 200, "GZIP", "application/wasm", "gzip"},
		{"identity otherwise", "/dist/agentwasm.wasm", "", 200, "RAW", "application/wasm", ""},
		{"a stale twin is not served", "/dist/wasm_exec.js", "br", 200, "RAWJS", "text/javascript; charset=utf-8", ""},
		{"no dot files", "/.secret", "", 404, "", "", ""},
		{"no listings", "/dist/sub/", "", 404, "", "", ""},
		{"missing", "/nope.js", "", 404, "", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, body := get(t, srv.URL+c.path, "Accept-Encoding", c.accept)
			require.Equal(t, c.status, resp.StatusCode, string(body))
			if c.status != 200 {
				return
			}
			assert.Equal(t, c.body, string(body))
			assert.Equal(t, c.ctype, resp.Header.Get("Content-Type"))
			assert.Equal(t, c.enc, resp.Header.Get("Content-Encoding"))
			assert.Contains(t, resp.Header.Values("Vary"), "Accept-Encoding")
		})
	}
	// No escape from the folders: the mux cleans the path (and redirects),
	// and the handler cleans what reaches it.
	for _, path := range []string{"/dist/../secret.txt", "/../secret.txt", "/dist/%2e%2e/secret.txt"} {
		resp, err := http.Get(srv.URL + path)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusNotFound, resp.StatusCode, path)
		assert.NotContains(t, string(body), "SECRET", path)
	}
	rec := httptest.NewRecorder()
	assets(dist).ServeHTTP(rec, &http.Request{Method: http.MethodGet, URL: &url.URL{Path: "/../secret.txt"}, Header: http.Header{}})
	assert.Equal(t, http.StatusNotFound, rec.Code)

	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/", nil)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
}

// jsonPost sends one JSON post (a JSON-RPC message to the MCP endpoint, the
// demo's reset) to the dev server, with headers as pairs.
func jsonPost(t *testing.T, url, body string, kv ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(kv); i += 2 {
		req.Header.Set(kv[i], kv[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}

func TestDevEndpoints(t *testing.T) {
	srv := devServer(t, devOptions{WebDir: t.TempDir(), DistDir: t.TempDir()})

	resp, body := get(t, srv.URL+"/api/v1/studio/ai/capabilities")
	require.Equal(t, 200, resp.StatusCode)
	assert.JSONEq(t, `{"enabled":true,"defaultProvider":"scripted","providers":[{"name":"scripted","default":true,"toolSupport":true,"defaultModel":"scripted-model","models":["scripted-model"]}]}`, string(body))

	chat, err := http.Post(srv.URL+"/api/v1/studio/ai/chat", "application/json", strings.NewReader(`{"messages":[{"role":"user","content":"hi"}]}`))
	require.NoError(t, err)
	sse, _ := io.ReadAll(chat.Body)
	chat.Body.Close()
	assert.Equal(t, "text/event-stream", chat.Header.Get("Content-Type"))
	assert.True(t, strings.HasPrefix(string(sse), "event: message_start\n"), string(sse))
	assert.Contains(t, string(sse), "event: message_stop\n")

	mcp := srv.URL + "/api/mcp"
	t.Run("session era", func(t *testing.T) {
		resp, body := jsonPost(t, mcp, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		require.Equal(t, 200, resp.StatusCode, body)
		assert.Contains(t, body, `"listChanged":true`)
		sid := resp.Header.Get("Mcp-Session-Id")
		require.NotEmpty(t, sid)
		resp, body = jsonPost(t, mcp, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, "Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-11-25")
		require.Equal(t, 200, resp.StatusCode, body)
		assert.Contains(t, body, `"name":"honua_studio_add_layer"`)
		assert.Contains(t, body, `"honua.studio":{"family":"honua.studio.composition"`)
	})
	t.Run("stateless era", func(t *testing.T) {
		meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
		resp, body := jsonPost(t, mcp, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+meta+`}}`,
			"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/list")
		require.Equal(t, 200, resp.StatusCode, body)
		assert.Contains(t, body, `"name":"honua_studio_create_draft"`)
	})
}

// TestDevListChangedReachesASession: a session watching the catalog sees the
// tool the first draft adds, over the stateless era's subscriptions/listen
// and over the session era's GET stream — streams that stay open well past
// the server's (here short) bound on reading a request body.
func TestDevListChangedReachesASession(t *testing.T) {
	const bodyBound = 50 * time.Millisecond
	for _, era := range []mcpclient.Era{mcpclient.EraStateless, mcpclient.EraSession} {
		t.Run(string(era), func(t *testing.T) {
			base := "http://" + limitServer(t, devOptions{WebDir: t.TempDir(), DistDir: t.TempDir(), BodyTimeout: bodyBound}) + "/api"
			client, err := mcpclient.New(mcpclient.Config{URL: base + "/mcp", Era: era})
			require.NoError(t, err)
			reports := make(chan session.ToolDiscoveryReport, 8)
			s, err := session.New(session.Options{
				BaseURL:              base,
				MCPClient:            client,
				WatchToolListChanged: true,
				OnEvent: func(ev session.Event) {
					if ev.Discovery != nil {
						reports <- *ev.Discovery
					}
				},
			})
			require.NoError(t, err)
			defer s.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()

			// Discover and let the watch subscribe first, as the demo page does
			// at load: a change made before the subscription is not announced.
			// (The server registers a listener before it answers, so "open"
			// means the change will be heard.)
			_, err = s.RefreshTools(ctx)
			require.NoError(t, err)
			require.Eventually(t, func() bool { return s.ToolWatchStatus() == session.WatchOpen }, 20*time.Second, 5*time.Millisecond)
			// The stream outlives the body bound (a connection-wide read
			// deadline would have ended it by now).
			time.Sleep(10 * bodyBound)
			require.Equal(t, session.WatchOpen, s.ToolWatchStatus())

			turn := s.Chat(ctx, "add a schools layer", session.ChatOptions{})
			require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
			first := <-reports
			assert.NotContains(t, first.Routed, "honua_studio_preview_draft")
			assert.Contains(t, first.Routed, "honua_studio_add_layer")
			for {
				select {
				case rep := <-reports:
					if contains(rep.Routed, "honua_studio_preview_draft") {
						return
					}
				case <-ctx.Done():
					t.Fatalf("the watch never brought honua_studio_preview_draft; watch %v", s.ToolWatchStatus())
				}
			}
		})
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// TestDevUpstream: with --upstream, chats go to an OpenAI-compatible server
// with the key, the capabilities name it, and the key never comes back.
func TestDevUpstream(t *testing.T) {
	const key = "sk-test-1234567890"
	var gotAuth, gotModel string
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth = r.Header.Get("Authorization")
		b, _ := io.ReadAll(r.Body)
		if bytes.Contains(b, []byte(`"model":"tiny"`)) {
			gotModel = "tiny"
		}
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		if strings.Contains(string(b), "deny") {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"error":{"message":"bad key `+key+`"}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, `data: {"id":"x","object":"chat.completion.chunk","model":"tiny","choices":[{"index":0,"delta":{"content":"Hello from upstream."},"finish_reason":null}]}`+"\n\n"+
			`data: {"id":"x","object":"chat.completion.chunk","model":"tiny","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\n"+
			"data: [DONE]\n\n")
	}))
	defer upstream.Close()
	srv := devServer(t, devOptions{WebDir: t.TempDir(), DistDir: t.TempDir(), Upstream: upstream.URL, Model: "tiny", APIKey: key})

	_, caps := get(t, srv.URL+"/api/v1/studio/ai/capabilities")
	assert.JSONEq(t, `{"enabled":true,"defaultProvider":"openai-compatible","providers":[{"name":"openai-compatible","default":true,"toolSupport":true,"defaultModel":"tiny","models":["tiny"]}]}`, string(caps))

	s, err := session.New(session.Options{BaseURL: srv.URL + "/api", DisableToolDiscovery: true})
	require.NoError(t, err)
	defer s.Close()
	turn := s.Chat(context.Background(), "hi", session.ChatOptions{})
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	assert.Equal(t, "Hello from upstream.", turn.Text)
	assert.Equal(t, "Bearer "+key, gotAuth)
	assert.Equal(t, "tiny", gotModel)

	turn = s.Chat(context.Background(), "deny", session.ChatOptions{})
	assert.Equal(t, session.StatusError, turn.Status)
	assert.Contains(t, turn.ErrorMessage, "AGENTWASM_API_KEY")
	assert.NotContains(t, turn.ErrorMessage, key)
	for _, ev := range turn.Events {
		assert.NotContains(t, ev.ErrorMessage, key)
	}
}
