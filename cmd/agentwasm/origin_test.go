// Tests of the origin policy under /api: every refusal (a rebound Host, a
// foreign or null Origin, a CORS simple request, a form, a disallowed
// preflight, a cross-site request without Origin), the requests it serves
// (a same-origin page, curl, an allowed origin with its preflight), the
// allow flags' validation, a non-loopback --addr without --allow-host, and
// the bound on concurrent chats — with an upstream that counts what reaches
// it, which is never a refused request.

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentwasm/agentwasm/cmd/agentwasm/internal/demomcp"
	"github.com/agentwasm/agentwasm/serve/mcpserver"
)

// countingUpstream is an OpenAI-compatible upstream that counts the chat
// requests reaching it; block, when set, holds each answer until closed
// (entered gets one value per request first).
type countingUpstream struct {
	*httptest.Server
	n       atomic.Int64
	block   chan struct{}
	entered chan struct{}
}

func newCountingUpstream(t *testing.T, block bool) *countingUpstream {
	t.Helper()
	u := &countingUpstream{entered: make(chan struct{}, 64)}
	if block {
		u.block = make(chan struct{})
	}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.n.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, `data: {"id":"x","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"Hello."},"finish_reason":null}]}`+"\n\n")
		w.(http.Flusher).Flush()
		u.entered <- struct{}{}
		if u.block != nil {
			select {
			case <-u.block:
			case <-r.Context().Done():
				return
			}
		}
		_, _ = io.WriteString(w, `data: {"id":"x","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(u.Close)
	return u
}

// apiRequest sends one request to the dev server: method, path, the Host
// (srv's own when ""), headers as pairs and a body.
func apiRequest(t *testing.T, srv *httptest.Server, method, path, host, body string, kv ...string) (*http.Response, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, srv.URL+path, rd)
	require.NoError(t, err)
	if host != "" {
		req.Host = host
	}
	for i := 0; i+1 < len(kv); i += 2 {
		req.Header.Set(kv[i], kv[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, b
}

// errorCode is the code of a {"error":{"code"}} body ("" if none).
func errorCode(body []byte) string {
	var e struct {
		Error struct{ Code string } `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	return e.Error.Code
}

const chatBody = `{"messages":[{"role":"user","content":"hi"}]}`

func TestOriginPolicy(t *testing.T) {
	up := newCountingUpstream(t, false)
	const allowed = "http://127.0.0.1:5173"
	var log syncBuffer
	srv := devServer(t, devOptions{WebDir: t.TempDir(), DistDir: t.TempDir(), Upstream: up.URL, Model: "m", APIKey: "sk-test-0000000000",
		AllowOrigins: []string{allowed + "/"}, AllowHosts: []string{"studio.test"}, Log: &log})
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	self := "http://127.0.0.1:" + port
	chat, mcp, caps := "/api/v1/studio/ai/chat", "/api/mcp", "/api/v1/studio/ai/capabilities"
	const ping = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

	cases := []struct {
		name         string
		method, path string
		host         string
		headers      []string
		body         string
		status       int
		code         string
		acao         string // the Access-Control-Allow-Origin expected
	}{
		// Served.
		{"the server's own page", "POST", chat, "", []string{"Origin", self, "Content-Type", "application/json"}, chatBody, 200, "", ""},
		{"curl: no Origin", "POST", chat, "", []string{"Content-Type", "application/json"}, chatBody, 200, "", ""},
		{"JSON with parameters", "POST", chat, "", []string{"Content-Type", "application/json; charset=utf-8"}, chatBody, 200, "", ""},
		{"Host localhost", "POST", chat, "localhost:" + port, []string{"Origin", "http://localhost:" + port, "Content-Type", "application/json"}, chatBody, 200, "", ""},
		{"Host [::1]", "POST", chat, "[::1]:" + port, []string{"Content-Type", "application/json"}, chatBody, 200, "", ""},
		{"a page on another loopback name of the server", "POST", chat, "", []string{"Origin", "http://localhost:" + port, "Content-Type", "application/json"}, chatBody, 200, "", "http://localhost:" + port},
		{"an allowed Host", "POST", chat, "studio.test:" + port, []string{"Origin", "http://studio.test:" + port, "Content-Type", "application/json"}, chatBody, 200, "", ""},
		{"an allowed origin", "POST", chat, "", []string{"Origin", allowed, "Content-Type", "application/json"}, chatBody, 200, "", allowed},
		{"an allowed origin's preflight", "OPTIONS", chat, "", []string{"Origin", allowed, "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type,authorization"}, "", 204, "", allowed},
		{"an allowed origin's traced chat preflight", "OPTIONS", chat, "", []string{"Origin", allowed, "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type,traceparent,tracestate"}, "", 204, "", allowed},
		{"an allowed origin's traced pass-through preflight", "OPTIONS", openAIChatPath, "", []string{"Origin", allowed, "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "authorization, content-type, traceparent, tracestate"}, "", 204, "", allowed},
		{"an allowed origin's traced MCP preflight", "OPTIONS", mcp, "", []string{"Origin", allowed, "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type, mcp-protocol-version, mcp-param-region, traceparent, tracestate"}, "", 204, "", allowed},
		{"an allowed origin's MCP preflight", "OPTIONS", mcp, "", []string{"Origin", allowed, "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type, mcp-protocol-version, mcp-method, mcp-param-region"}, "", 204, "", allowed},
		{"an allowed origin's capabilities", "GET", caps, "", []string{"Origin", allowed}, "", 200, "", allowed},
		{"an allowed origin's MCP", "POST", mcp, "", []string{"Origin", allowed, "Content-Type", "application/json", "Accept", "application/json, text/event-stream"}, init, 200, "", allowed},
		{"a navigation to the capabilities", "GET", caps, "", []string{"Sec-Fetch-Site", "none"}, "", 200, "", ""},

		// Refused: the Host.
		{"a rebound Host", "POST", chat, "evil.example:" + port, []string{"Origin", "http://evil.example:" + port, "Content-Type", "application/json"}, chatBody, 403, "forbidden_host", ""},
		{"a rebound Host, no Origin", "POST", chat, "evil.example:" + port, []string{"Content-Type", "application/json"}, chatBody, 403, "forbidden_host", ""},
		{"a rebound Host, capabilities", "GET", caps, "evil.example:" + port, nil, "", 403, "forbidden_host", ""},
		{"a rebound Host, MCP", "POST", mcp, "evil.example:" + port, []string{"Content-Type", "application/json"}, ping, 403, "forbidden_host", ""},
		{"a loopback name at another port", "POST", chat, "127.0.0.1:1", []string{"Content-Type", "application/json"}, chatBody, 403, "forbidden_host", ""},
		{"an allowed host at another port", "POST", chat, "studio.test:1", []string{"Content-Type", "application/json"}, chatBody, 403, "forbidden_host", ""},
		{"a rebound Host's preflight", "OPTIONS", chat, "evil.example:" + port, []string{"Origin", "http://evil.example:" + port, "Access-Control-Request-Method", "POST"}, "", 403, "forbidden_host", ""},

		// Refused: the Origin.
		{"a foreign page, text/plain", "POST", chat, "", []string{"Origin", "http://evil.example", "Content-Type", "text/plain"}, chatBody, 403, "forbidden_origin", ""},
		{"a foreign page, JSON", "POST", chat, "", []string{"Origin", "http://evil.example", "Content-Type", "application/json"}, chatBody, 403, "forbidden_origin", ""},
		{"a foreign page's form", "POST", chat, "", []string{"Origin", "http://evil.example", "Content-Type", "application/x-www-form-urlencoded"}, "a=b", 403, "forbidden_origin", ""},
		{"a page on another local port", "POST", chat, "", []string{"Origin", "http://127.0.0.1:5174", "Content-Type", "application/json"}, chatBody, 403, "forbidden_origin", ""},
		{"the server's address over https", "POST", chat, "", []string{"Origin", "https://127.0.0.1:" + port, "Content-Type", "application/json"}, chatBody, 403, "forbidden_origin", ""},
		{"a null Origin", "POST", chat, "", []string{"Origin", "null", "Content-Type", "application/json"}, chatBody, 403, "forbidden_origin", ""},
		{"an empty Origin", "POST", chat, "", []string{"Origin", "", "Content-Type", "application/json"}, chatBody, 403, "forbidden_origin", ""},
		{"a foreign page, MCP", "POST", mcp, "", []string{"Origin", "http://evil.example", "Content-Type", "application/json"}, ping, 403, "forbidden_origin", ""},
		{"a foreign page, capabilities", "GET", caps, "", []string{"Origin", "http://evil.example"}, "", 403, "forbidden_origin", ""},
		{"a cross-site request without Origin", "POST", chat, "", []string{"Sec-Fetch-Site", "cross-site", "Content-Type", "application/json"}, chatBody, 403, "forbidden_origin", ""},
		{"a same-site request without Origin", "GET", caps, "", []string{"Sec-Fetch-Site", "same-site"}, "", 403, "forbidden_origin", ""},

		// Refused: the preflight.
		{"a foreign page's preflight", "OPTIONS", chat, "", []string{"Origin", "http://evil.example", "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type"}, "", 403, "forbidden_origin", ""},
		{"a null Origin's preflight", "OPTIONS", chat, "", []string{"Origin", "null", "Access-Control-Request-Method", "POST"}, "", 403, "forbidden_origin", ""},
		{"a preflight for another method", "OPTIONS", chat, "", []string{"Origin", allowed, "Access-Control-Request-Method", "PUT"}, "", 403, "forbidden_method", ""},
		{"a preflight for another header", "OPTIONS", chat, "", []string{"Origin", allowed, "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type, x-evil"}, "", 403, "forbidden_header", ""},
		{"a preflight for baggage", "OPTIONS", chat, "", []string{"Origin", allowed, "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type, traceparent, baggage"}, "", 403, "forbidden_header", ""},
		{"a foreign page's traced preflight", "OPTIONS", openAIChatPath, "", []string{"Origin", "http://evil.example", "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type, traceparent"}, "", 403, "forbidden_origin", ""},

		// Refused: the media type.
		{"text/plain, no Origin", "POST", chat, "", []string{"Content-Type", "text/plain"}, chatBody, 415, "unsupported_media_type", ""},
		{"a form, no Origin", "POST", chat, "", []string{"Content-Type", "application/x-www-form-urlencoded"}, "a=b", 415, "unsupported_media_type", ""},
		{"a multipart form, no Origin", "POST", chat, "", []string{"Content-Type", "multipart/form-data; boundary=x"}, "--x--", 415, "unsupported_media_type", ""},
		{"no media type", "POST", chat, "", nil, chatBody, 415, "unsupported_media_type", ""},
		{"an allowed origin, text/plain", "POST", chat, "", []string{"Origin", allowed, "Content-Type", "text/plain"}, chatBody, 415, "unsupported_media_type", allowed},
		{"the own page, text/plain, MCP", "POST", mcp, "", []string{"Origin", self, "Content-Type", "text/plain"}, ping, 415, "unsupported_media_type", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := up.n.Load()
			resp, body := apiRequest(t, srv, c.method, c.path, c.host, c.body, c.headers...)
			require.Equal(t, c.status, resp.StatusCode, string(body))
			assert.Equal(t, c.code, errorCode(body), string(body))
			assert.Equal(t, c.acao, resp.Header.Get("Access-Control-Allow-Origin"))
			assert.NotEqual(t, "*", resp.Header.Get("Access-Control-Allow-Origin"))
			want := before
			if c.status == 200 && c.path == chat {
				want++
				assert.Contains(t, string(body), "Hello.")
			}
			assert.Equal(t, want, up.n.Load(), "requests reaching the upstream")
			if c.code != "" {
				assert.Contains(t, log.String(), fmt.Sprintf("api: refused %d %s: %s ", c.status, c.code, c.method), "the refusal is logged")
			}
			if c.status >= 400 {
				assert.Contains(t, resp.Header.Get("Content-Type"), "application/json")
				if c.code == "forbidden_host" || c.code == "forbidden_origin" {
					assert.Regexp(t, `--allow-(host|origin)|allowed`, string(body), "the message says what to do")
				}
			}
			if c.acao != "" {
				assert.Contains(t, resp.Header.Values("Vary"), "Origin")
			}
			if c.method == "OPTIONS" && c.status == 204 {
				h := resp.Header
				assert.Equal(t, "GET, HEAD, POST, DELETE", h.Get("Access-Control-Allow-Methods"))
				assert.Equal(t, "600", h.Get("Access-Control-Max-Age"))
				allowHeaders := strings.ToLower(h.Get("Access-Control-Allow-Headers"))
				for _, want := range []string{"content-type", "authorization", "accept", "last-event-id", "traceparent", "tracestate"} {
					assert.Contains(t, allowHeaders, want)
				}
				if c.path == mcp {
					assert.Contains(t, allowHeaders, "mcp-param-region")
					assert.Contains(t, allowHeaders, "mcp-protocol-version")
				}
			}
			if c.acao != "" && c.method != "OPTIONS" {
				assert.Contains(t, resp.Header.Get("Access-Control-Expose-Headers"), "Mcp-Session-Id")
				assert.Contains(t, resp.Header.Get("Access-Control-Expose-Headers"), "Retry-After")
			}
		})
	}
}

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestAllowFlags(t *testing.T) {
	origins := []struct{ in, want string }{
		{"http://127.0.0.1:5173", "http://127.0.0.1:5173"},
		{"http://127.0.0.1:5173/", "http://127.0.0.1:5173"},
		{"HTTPS://App.Example.com:443", "https://app.example.com"},
		{"http://localhost:80", "http://localhost"},
		{"http://[::1]:3000", "http://[::1]:3000"},
		{"http://127.0.0.1:5173/app", ""},
		{"http://127.0.0.1:5173/?q", ""},
		{"http://user@127.0.0.1:5173", ""},
		{"null", ""},
		{"*", ""},
		{"127.0.0.1:5173", ""},
		{"ftp://host", ""},
		{"http://", ""},
		{"http://host:99999", ""},
	}
	for _, c := range origins {
		got, err := parseAllowOrigin(c.in)
		if c.want == "" {
			assert.Error(t, err, c.in)
			if err != nil {
				assert.Contains(t, err.Error(), "scheme://host[:port]")
			}
			continue
		}
		assert.NoError(t, err, c.in)
		assert.Equal(t, c.want, got, c.in)
	}
	hosts := []struct {
		in   string
		want hostRule
		ok   bool
	}{
		{"studio.lan", hostRule{"studio.lan", ""}, true},
		{"Studio.LAN:8080", hostRule{"studio.lan", "8080"}, true},
		{"192.168.1.5", hostRule{"192.168.1.5", ""}, true},
		{"[fe80::1]:8080", hostRule{"fe80::1", "8080"}, true},
		{"[fe80::1]", hostRule{"fe80::1", ""}, true},
		{"fe80::1", hostRule{"fe80::1", ""}, true},
		{"http://studio.lan", hostRule{}, false},
		{"studio.lan/x", hostRule{}, false},
		{"studio.lan:0", hostRule{}, false},
		{"studio.lan:http", hostRule{}, false},
		{"*", hostRule{}, false},
		{"", hostRule{}, false},
		{":8080", hostRule{}, false},
	}
	for _, c := range hosts {
		got, err := parseAllowHost(c.in)
		if !c.ok {
			assert.Error(t, err, c.in)
			continue
		}
		assert.NoError(t, err, c.in)
		assert.Equal(t, c.want, got, c.in)
	}
}

// TestDevStartRefusals: runDev refuses a non-loopback --addr without
// --allow-host, and invalid allow values, before serving.
func TestDevStartRefusals(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"every address, no allowed hosts", []string{"--addr", "0.0.0.0:0"}, "--allow-host"},
		{"an invalid origin", []string{"--allow-origin", "http://127.0.0.1:5173/app"}, "--allow-origin"},
		{"a null origin", []string{"--allow-origin", "null"}, "--allow-origin"},
		{"an invalid host", []string{"--allow-host", "http://studio.lan"}, "--allow-host"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := runDev(append(c.args, "--web", t.TempDir(), "--dist", t.TempDir()), &out, &errb)
			assert.Equal(t, 2, code, errb.String())
			assert.Contains(t, errb.String(), c.want)
			assert.NotContains(t, out.String(), "open http")
		})
	}
}

// TestDevNonLoopbackHosts: with a non-loopback address, the hosts named by
// --allow-host are served (the proxy and MCP alike, their pages as own
// origins) and any other name is refused by both.
func TestDevNonLoopbackHosts(t *testing.T) {
	up := newCountingUpstream(t, false)
	srv := devServer(t, devOptions{WebDir: t.TempDir(), DistDir: t.TempDir(), Addr: "192.0.2.7:0", Upstream: up.URL, Model: "m",
		AllowHosts: []string{"studio.lan"}})
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, c := range []struct {
		host   string
		status int
	}{
		{"studio.lan:" + port, 200},
		{"192.0.2.7:" + port, 200},
		{"other.lan:" + port, 403},
	} {
		resp, body := apiRequest(t, srv, "POST", "/api/v1/studio/ai/chat", c.host, chatBody, "Origin", "http://"+c.host, "Content-Type", "application/json")
		assert.Equal(t, c.status, resp.StatusCode, "%s: %s", c.host, body)
		resp, body = apiRequest(t, srv, "POST", "/api/mcp", c.host, init, "Origin", "http://"+c.host, "Content-Type", "application/json", "Accept", "application/json, text/event-stream")
		assert.Equal(t, c.status, resp.StatusCode, "%s: %s", c.host, body)
	}
	assert.Equal(t, int64(2), up.n.Load())
}

// TestDevOtherLoopbackAddress: with --addr 127.0.0.2:PORT (a loopback
// address other than 127.0.0.1, which needs no --allow-host), the address
// printed to open is served as the page's own, by the proxy and MCP alike.
func TestDevOtherLoopbackAddress(t *testing.T) {
	up := newCountingUpstream(t, false)
	srv := devServer(t, devOptions{WebDir: t.TempDir(), DistDir: t.TempDir(), Addr: "127.0.0.2:0", Upstream: up.URL, Model: "m"})
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	host := "127.0.0.2:" + port
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	resp, body := apiRequest(t, srv, "POST", "/api/v1/studio/ai/chat", host, chatBody, "Origin", "http://"+host, "Content-Type", "application/json")
	assert.Equal(t, 200, resp.StatusCode, string(body))
	resp, body = apiRequest(t, srv, "POST", "/api/mcp", host, init, "Origin", "http://"+host, "Content-Type", "application/json", "Accept", "application/json, text/event-stream")
	assert.Equal(t, 200, resp.StatusCode, string(body))
	assert.Equal(t, int64(1), up.n.Load())
	// Another loopback address is still not this server's name.
	resp, body = apiRequest(t, srv, "POST", "/api/v1/studio/ai/chat", "127.0.0.3:"+port, chatBody, "Content-Type", "application/json")
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, string(body))
}

// TestDevMCPKeepsItsOwnHostChecks: the MCP handler itself, given the
// policy's hosts, refuses any other Host even on a listener where it would
// otherwise accept any (a non-loopback one), so its rebinding protection
// does not rest on the policy alone.
func TestDevMCPKeepsItsOwnHostChecks(t *testing.T) {
	policy, err := newOriginPolicy([]string{"studio.lan", "192.0.2.7:8080"}, []string{"http://127.0.0.1:5173"})
	require.NoError(t, err)
	opts := devMCPOptions(policy)
	assert.Equal(t, []string{"studio.lan", "192.0.2.7:8080"}, opts.AllowedHosts)
	assert.Equal(t, []string{"http://127.0.0.1:5173"}, opts.AllowedOrigins)
	// A request that reached a LAN address of the machine.
	lan := &net.TCPAddr{IP: net.ParseIP("192.0.2.7"), Port: 8080}
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	serveOn := func(h http.Handler, host string) int {
		req := httptest.NewRequest("POST", "http://"+host+"/", strings.NewReader(init))
		req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, lan))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	guarded := demomcp.New().Handler(opts)
	for _, c := range []struct {
		host   string
		status int
	}{{"studio.lan:8080", 200}, {"192.0.2.7:8080", 200}, {"192.0.2.7:9090", 403}, {"evil.example:8080", 403}} {
		assert.Equal(t, c.status, serveOn(guarded, c.host), c.host)
	}
	// Without the hosts, the handler on such a listener serves any Host:
	// the protection the options keep on.
	assert.Equal(t, 200, serveOn(demomcp.New().Handler(mcpserver.HandlerOptions{}), "evil.example:8080"))
}

// TestDevMaxConcurrent: past --max-concurrent, a chat is answered 429 with
// Retry-After and never reaches the upstream.
func TestDevMaxConcurrent(t *testing.T) {
	up := newCountingUpstream(t, true)
	srv := devServer(t, devOptions{WebDir: t.TempDir(), DistDir: t.TempDir(), Upstream: up.URL, Model: "m", MaxConcurrent: 1})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		resp, body := apiRequest(t, srv, "POST", "/api/v1/studio/ai/chat", "", chatBody, "Content-Type", "application/json")
		assert.Equal(t, 200, resp.StatusCode)
		assert.Contains(t, string(body), "message_stop")
	}()
	select {
	case <-up.entered:
	case <-time.After(30 * time.Second): // a safety net only
		t.Fatal("the first chat never reached the upstream")
	}
	resp, body := apiRequest(t, srv, "POST", "/api/v1/studio/ai/chat", "", chatBody, "Content-Type", "application/json")
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode, string(body))
	assert.Equal(t, "too_many_requests", errorCode(body))
	assert.NotEmpty(t, resp.Header.Get("Retry-After"))
	assert.Equal(t, int64(1), up.n.Load(), "the refused chat never reached the upstream")
	close(up.block)
	wg.Wait()
}

// TestDevAllowModel: --model is the default, --allow-model adds models a
// page may name, the capabilities list them, and any other model is refused
// without an upstream request.
func TestDevAllowModel(t *testing.T) {
	up := newCountingUpstream(t, false)
	srv := devServer(t, devOptions{WebDir: t.TempDir(), DistDir: t.TempDir(), Upstream: up.URL, Model: "m", AllowModels: []string{"big", "m"}})
	_, caps := get(t, srv.URL+"/api/v1/studio/ai/capabilities")
	assert.JSONEq(t, `{"enabled":true,"defaultProvider":"openai-compatible","providers":[{"name":"openai-compatible","default":true,"toolSupport":true,"defaultModel":"m","models":["m","big"]}]}`, string(caps))
	for _, c := range []struct {
		model string
		sent  bool
	}{{"", true}, {"m", true}, {"big", true}, {"gpt-expensive", false}} {
		before := up.n.Load()
		body := `{"model":"` + c.model + `","messages":[{"role":"user","content":"hi"}]}`
		resp, answer := apiRequest(t, srv, "POST", "/api/v1/studio/ai/chat", "", body, "Content-Type", "application/json")
		require.Equal(t, 200, resp.StatusCode)
		if c.sent {
			assert.Equal(t, before+1, up.n.Load(), c.model)
			assert.Contains(t, string(answer), "message_stop", c.model)
		} else {
			assert.Equal(t, before, up.n.Load(), c.model)
			assert.Contains(t, string(answer), "model_not_allowed", c.model)
		}
	}
}

// TestDevBehindABundlerProxy: an app's dev server (Vite's server.proxy)
// forwarding /api to agentwasm dev. With changeOrigin the proxy rewrites
// Host to the dev server's, and passes on what the browser sent: the page's
// Origin (on a POST) and Sec-Fetch-Site: same-origin (the page called its
// own server). So the chat and MCP POSTs are served only when the page's
// origin is allowed with --allow-origin, exactly as the address bar shows it
// (localhost and 127.0.0.1 are different origins); without changeOrigin
// the Host is the app's and is refused whatever is allowed. A GET the page
// sends to its own origin carries no Origin and is served.
func TestDevBehindABundlerProxy(t *testing.T) {
	const page = "http://localhost:5173" // the origin Vite prints
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	cases := []struct {
		name         string
		allow        []string
		changeOrigin bool
		origin       string // the page's origin, as the browser sends it
		status       int
		code         string
	}{
		{"changeOrigin and the page's origin allowed", []string{page}, true, page, 200, ""},
		{"changeOrigin, nothing allowed", nil, true, page, 403, "forbidden_origin"},
		{"changeOrigin, the page opened at 127.0.0.1, localhost allowed", []string{page}, true, "http://127.0.0.1:5173", 403, "forbidden_origin"},
		{"changeOrigin, both names allowed", []string{page, "http://127.0.0.1:5173"}, true, "http://127.0.0.1:5173", 200, ""},
		{"no changeOrigin: the app's Host", []string{page}, false, page, 403, "forbidden_host"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			up := newCountingUpstream(t, false)
			srv := devServer(t, devOptions{WebDir: t.TempDir(), DistDir: t.TempDir(), Upstream: up.URL, Model: "m", APIKey: "sk-test-0000000000",
				AllowOrigins: c.allow})
			host := "" // changeOrigin: the dev server's own host:port
			if !c.changeOrigin {
				host = strings.TrimPrefix(c.origin, "http://")
			}
			// The headers Vite's proxy passes on from the browser's fetch.
			post := func(path, body string, more ...string) (*http.Response, []byte) {
				kv := append([]string{"Origin", c.origin, "Sec-Fetch-Site", "same-origin", "Sec-Fetch-Mode", "cors",
					"Content-Type", "application/json"}, more...)
				return apiRequest(t, srv, "POST", path, host, body, kv...)
			}
			resp, body := post("/api/v1/studio/ai/chat", chatBody, "Accept", "text/event-stream")
			require.Equal(t, c.status, resp.StatusCode, string(body))
			assert.Equal(t, c.code, errorCode(body))
			resp, body = post("/api/mcp", init, "Accept", "application/json, text/event-stream")
			assert.Equal(t, c.status, resp.StatusCode, string(body))
			if c.status == 200 {
				assert.Contains(t, string(body), `"protocolVersion"`)
				assert.Equal(t, int64(1), up.n.Load())
			} else {
				assert.Contains(t, string(body), "--allow-", "the message says what to do")
				assert.Equal(t, int64(0), up.n.Load(), "nothing reached the upstream")
			}
			// The capabilities GET: same-origin for the browser, so no Origin.
			resp, body = apiRequest(t, srv, "GET", "/api/v1/studio/ai/capabilities", host, "", "Sec-Fetch-Site", "same-origin", "Accept", "application/json")
			if c.changeOrigin {
				assert.Equal(t, 200, resp.StatusCode, string(body))
			} else {
				assert.Equal(t, 403, resp.StatusCode, string(body))
			}
		})
	}
}
