//go:build !js && !wasip1

// Tests of the Streamable HTTP handler through a real loopback server: both
// eras, sessions and DELETE, GET 405, DNS-rebinding protection, size and
// media-type checks, and one bad request not affecting the next.

package mcpserver

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// post sends one JSON-RPC POST; kv are extra headers.
func post(t *testing.T, url, body string, kv ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(kv); i += 2 {
		if strings.EqualFold(kv[i], "Host") {
			req.Host = kv[i+1]
			continue
		}
		req.Header.Set(kv[i], kv[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}

func newTestMCPServer(t *testing.T, dopts Options, hopts HandlerOptions) *httptest.Server {
	srv := httptest.NewServer(NewHandler(New(&fakeTools{}, dopts), hopts))
	t.Cleanup(srv.Close)
	return srv
}

func TestMCPHandlerSessionEra(t *testing.T) {
	srv := newTestMCPServer(t, Options{Sessions: true}, HandlerOptions{})
	resp, body := post(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	require.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	sid := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, sid)
	assert.Contains(t, body, `"protocolVersion":"2025-11-25"`)

	resp, body = post(t, srv.URL, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-11-25")
	assert.Equal(t, 202, resp.StatusCode)
	assert.Empty(t, body)

	resp, body = post(t, srv.URL, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"x":true}}}`, "Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-11-25")
	assert.Equal(t, 200, resp.StatusCode)
	assert.Contains(t, body, `echo {\"x\":true}`)

	get, err := http.Get(srv.URL)
	require.NoError(t, err)
	get.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, get.StatusCode)
	assert.Equal(t, "POST, DELETE", get.Header.Get("Allow"))

	del := func(id string) int {
		req, _ := http.NewRequest(http.MethodDelete, srv.URL, nil)
		if id != "" {
			req.Header.Set("Mcp-Session-Id", id)
		}
		r, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		r.Body.Close()
		return r.StatusCode
	}
	assert.Equal(t, 400, del(""))
	assert.Equal(t, 204, del(sid))
	assert.Equal(t, 404, del(sid))
	resp, _ = post(t, srv.URL, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, "Mcp-Session-Id", sid)
	assert.Equal(t, 404, resp.StatusCode, "an ended session is gone")
}

func TestMCPHandlerStatelessEra(t *testing.T) {
	srv := newTestMCPServer(t, Options{}, HandlerOptions{})
	resp, body := post(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+statelessMeta+`}}`,
		"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "server/discover")
	require.Equal(t, 200, resp.StatusCode, body)
	assert.Contains(t, body, `"supportedVersions":["2025-03-26","2025-06-18","2025-11-25","2026-07-28"]`)
	assert.Empty(t, resp.Header.Get("Mcp-Session-Id"))

	resp, body = post(t, srv.URL, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo",`+statelessMeta+`}}`,
		"mcp-protocol-version", "2026-07-28", "MCP-METHOD", "tools/call", "mcp-name", "echo")
	assert.Equal(t, 200, resp.StatusCode, body)
	assert.Contains(t, body, `"resultType":"complete"`)

	resp, body = post(t, srv.URL, `{"jsonrpc":"2.0","id":3,"method":"ping","params":{`+statelessMeta+`}}`,
		"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "ping")
	assert.Equal(t, 404, resp.StatusCode)
	assert.Contains(t, body, `"code":-32601`)
	assert.Contains(t, body, `"id":3`)

	get, err := http.Get(srv.URL)
	require.NoError(t, err)
	get.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, get.StatusCode)
	assert.Equal(t, "POST", get.Header.Get("Allow"))
}

func TestMCPHandlerRefusals(t *testing.T) {
	srv := newTestMCPServer(t, Options{}, HandlerOptions{MaxBodyBytes: 1024, AllowedOrigins: []string{"https://app.example.com"}})
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	host := strings.TrimPrefix(srv.URL, "http://")
	tests := []struct {
		name   string
		body   string
		kv     []string
		status int
		code   string
	}{
		{"no Origin", ping, nil, 200, ""},
		{"same-host Origin", ping, []string{"Origin", srv.URL}, 200, ""},
		{"localhost Origin", ping, []string{"Origin", "http://localhost:3000"}, 200, ""},
		{"configured Origin", ping, []string{"Origin", "https://app.example.com"}, 200, ""},
		{"foreign Origin", ping, []string{"Origin", "https://evil.example.com"}, 403, ""},
		{"null Origin", ping, []string{"Origin", "null"}, 403, ""},
		{"rebound Host", ping, []string{"Host", "evil.example.com", "Origin", "http://evil.example.com"}, 403, ""},
		{"rebound Host without Origin", ping, []string{"Host", "evil.example.com:" + strings.Split(host, ":")[1]}, 403, ""},
		{"localhost Host", ping, []string{"Host", "localhost:" + strings.Split(host, ":")[1]}, 200, ""},
		{"oversized body", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 2000) + `"}}`, nil, 413, "-32600"},
		{"malformed JSON", `{"jsonrpc":`, nil, 400, "-32700"},
		{"invalid request", `{"jsonrpc":"2.0","id":1}`, nil, 400, "-32600"},
		{"wrong content type", ping, []string{"Content-Type", "text/plain"}, 415, ""},
		{"json with charset", ping, []string{"Content-Type", "application/json; charset=utf-8"}, 200, ""},
		{"not acceptable", ping, []string{"Accept", "text/html"}, 406, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := post(t, srv.URL, tc.body, tc.kv...)
			assert.Equal(t, tc.status, resp.StatusCode, body)
			if tc.code != "" {
				assert.Contains(t, body, `"code":`+tc.code)
			}
			// the next good request is unaffected
			resp, body = post(t, srv.URL, ping)
			assert.Equal(t, 200, resp.StatusCode)
			assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{}}`, body)
		})
	}
}

func TestMCPHandlerAllowedHosts(t *testing.T) {
	srv := newTestMCPServer(t, Options{}, HandlerOptions{AllowedHosts: []string{"mcp.internal"}})
	resp, _ := post(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, "Host", "mcp.internal:8080")
	assert.Equal(t, 200, resp.StatusCode)
	resp, _ = post(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, "Host", "other.internal")
	assert.Equal(t, 403, resp.StatusCode)
}

// panicServer panics in every call, even in the handler path.
type panicHandlerTools struct{ fakeTools }

func (*panicHandlerTools) HandleToolCall(context.Context, ToolCall) ([]byte, *Error) {
	panic("handler exploded")
}

func TestMCPHandlerPanicDoesNotBreakNextRequest(t *testing.T) {
	srv := httptest.NewServer(NewHandler(New(&panicHandlerTools{}, Options{}), HandlerOptions{}))
	defer srv.Close()
	for i := 0; i < 3; i++ {
		resp, body := post(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}`)
		assert.Equal(t, 200, resp.StatusCode)
		assert.Contains(t, body, `"code":-32603`)
		resp, _ = post(t, srv.URL, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		assert.Equal(t, 200, resp.StatusCode)
	}
}

// newHTTPForDispatcher serves d on a loopback test server and returns its URL.
func newHTTPForDispatcher(t *testing.T, d *Dispatcher) string {
	srv := httptest.NewServer(NewHandler(d, HandlerOptions{}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// A traced page's requests carry traceparent and tracestate: a preflight
// that asks for them is allowed them.
func TestMCPHandlerCORSAllowsTraceContext(t *testing.T) {
	srv := newTestMCPServer(t, Options{}, HandlerOptions{AllowedOrigins: []string{"https://app.example.com"}})
	req, err := http.NewRequestWithContext(context.Background(), http.MethodOptions, srv.URL, nil)
	require.NoError(t, err)
	req.Header.Set("Origin", "https://app.example.com")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "content-type,mcp-protocol-version,traceparent,tracestate")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNoContent, resp.StatusCode)
	allowed := strings.Split(strings.ReplaceAll(resp.Header.Get("Access-Control-Allow-Headers"), " ", ""), ",")
	assert.Contains(t, allowed, "traceparent")
	assert.Contains(t, allowed, "tracestate")

	resp, _ = post(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`,
		"Origin", "https://app.example.com", "traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "tracestate", "vendor=1")
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the request with them is answered")
	assert.Equal(t, "https://app.example.com", resp.Header.Get("Access-Control-Allow-Origin"))
}

func TestMCPHandlerCORSForConfiguredOrigins(t *testing.T) {
	srv := newTestMCPServer(t, Options{Sessions: true}, HandlerOptions{AllowedOrigins: []string{"https://app.example.com/"}})
	preflight := func(origin string) *http.Response {
		req, err := http.NewRequestWithContext(context.Background(), http.MethodOptions, srv.URL, nil)
		require.NoError(t, err)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "content-type, mcp-protocol-version, mcp-param-region")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp
	}
	resp := preflight("https://app.example.com")
	assert.Equal(t, http.StatusNoContent, resp.StatusCode, "a configured origin's preflight succeeds")
	assert.Equal(t, "https://app.example.com", resp.Header.Get("Access-Control-Allow-Origin"))
	assert.Equal(t, "POST, DELETE", resp.Header.Get("Access-Control-Allow-Methods"))
	assert.Contains(t, resp.Header.Get("Access-Control-Allow-Headers"), "mcp-param-region")

	resp = preflight("https://evil.example.com")
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	assert.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"))

	resp, _ = post(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`, "Origin", "https://app.example.com")
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "https://app.example.com", resp.Header.Get("Access-Control-Allow-Origin"))
	assert.Contains(t, resp.Header.Get("Access-Control-Expose-Headers"), "Mcp-Session-Id", "the page must be able to read its session id")

	resp, _ = post(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	assert.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"), "no CORS headers without an Origin")

	// OPTIONS that is not a preflight is still 405
	req, err := http.NewRequestWithContext(context.Background(), http.MethodOptions, srv.URL, nil)
	require.NoError(t, err)
	r, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	r.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, r.StatusCode)
}

func TestMCPHandlerParallelMixedRequests(t *testing.T) {
	srv := newTestMCPServer(t, Options{Sessions: true}, HandlerOptions{})
	bodies := []string{
		`{"jsonrpc":"2.0","id":%d,"method":"ping"}`,
		`{"jsonrpc":`,
		`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`,
		`{"jsonrpc":"2.0","id":%d,"id":0,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"boom"}}`,
	}
	resp, _ := post(t, srv.URL, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, sid)
	var mu sync.Mutex
	sessions := map[string]bool{sid: true}
	var wg sync.WaitGroup
	for i := 0; i < 60; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			tmpl := bodies[i%len(bodies)]
			body := tmpl
			if strings.Contains(tmpl, "%d") {
				body = strings.Replace(tmpl, "%d", strconv.Itoa(i), 1)
			}
			resp, got := post(t, srv.URL, body, "Mcp-Session-Id", sid)
			switch i % len(bodies) {
			case 0:
				assert.JSONEq(t, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"result":{}}`, got)
			case 1:
				assert.Equal(t, 400, resp.StatusCode)
			case 2:
				sid := resp.Header.Get("Mcp-Session-Id")
				assert.NotEmpty(t, sid)
				mu.Lock()
				assert.False(t, sessions[sid], "session ids are unique")
				sessions[sid] = true
				mu.Unlock()
				assert.Contains(t, got, `"id":`+strconv.Itoa(i)+`,`)
			case 3:
				assert.Equal(t, 400, resp.StatusCode)
			case 4:
				assert.Contains(t, got, `"id":`+strconv.Itoa(i)+`,"error":{"code":-32603`)
			}
		}(i)
	}
	wg.Wait()
	assert.Len(t, sessions, 13)
}

// On a listener that is not loopback (a LAN or public address: the request
// carries no loopback local address), AllowedHosts, once set, is enforced:
// a rebound name is refused; without it any Host is served.
func TestMCPHandlerAllowedHostsOffLoopback(t *testing.T) {
	ping := func(h http.Handler, host string) int {
		req := httptest.NewRequest("POST", "http://"+host+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	guarded := NewHandler(New(&fakeTools{}, Options{}), HandlerOptions{AllowedHosts: []string{"mcp.example.com"}})
	assert.Equal(t, 200, ping(guarded, "mcp.example.com"))
	assert.Equal(t, 200, ping(guarded, "mcp.example.com:8443"))
	assert.Equal(t, 403, ping(guarded, "attacker.example"))
	open := NewHandler(New(&fakeTools{}, Options{}), HandlerOptions{})
	assert.Equal(t, 200, ping(open, "attacker.example"), "no AllowedHosts: a public server serves any Host")
}

// sseEvents reads the data lines of an event stream body.
func sseEvents(body string) []string {
	var out []string
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "data: ") {
			out = append(out, strings.TrimPrefix(line, "data: "))
		}
	}
	return out
}

func TestMCPHandlerProgressStreamsTheAnswer(t *testing.T) {
	srv := httptest.NewServer(NewHandler(New(&progressTools{}, Options{}), HandlerOptions{}))
	t.Cleanup(srv.Close)
	call := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","_meta":{"progressToken":"t"}}}`
	stateless := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","_meta":{"progressToken":"t","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	tests := []struct {
		name   string
		body   string
		kv     []string
		stream bool
	}{
		{"session era", call, nil, true},
		{"stateless era", stateless, []string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "echo"}, true},
		{"the client takes no event stream", call, []string{"Accept", "application/json"}, false},
		{"no token", `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo"}}`, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := post(t, srv.URL, tc.body, tc.kv...)
			require.Equal(t, 200, resp.StatusCode, body)
			if !tc.stream {
				assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
				assert.NotContains(t, body, "notifications/progress")
				assert.Contains(t, body, `"id":9,"result"`)
				return
			}
			assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
			events := sseEvents(body)
			require.Len(t, events, 4, body)
			for i, p := range []string{`"progress":0,`, `"progress":50,`, `"progress":100,`} {
				assert.Contains(t, events[i], `"method":"notifications/progress","params":{"progressToken":"t",`+p)
			}
			assert.Contains(t, events[3], `"id":9,"result":{`, "the answer is the last event")
		})
	}
}

func TestMCPHandlerFullSessionTableIs503(t *testing.T) {
	d := New(&fakeTools{}, Options{Sessions: true, MaxSessions: 1, SessionIdle: time.Hour})
	srv := httptest.NewServer(NewHandler(d, HandlerOptions{}))
	t.Cleanup(srv.Close)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`
	resp, body := post(t, srv.URL, init)
	require.Equal(t, 200, resp.StatusCode, body)
	resp, body = post(t, srv.URL, init)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, body)
	assert.Equal(t, "3600", resp.Header.Get("Retry-After"))
	assert.Empty(t, resp.Header.Get("Mcp-Session-Id"))
	assert.Contains(t, body, `"code":-32000`)
}
