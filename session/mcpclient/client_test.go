//go:build !js && !wasip1

// Tests of the client over a fake MCP server (testing/fakemcp) in both
// eras: the tools/list walk, the handshake, era negotiation, errors,
// cancellation, Close, bearer tokens, parameter headers and the listen
// stream.

package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
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

// mcpBound bounds every wait of the MCP client tests.
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

// mcpCtx is a context bounded by mcpBound.
func mcpCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), mcpBound)
	t.Cleanup(cancel)
	return ctx
}

// toolNames returns the names of tools.
func mcpToolNames(tools []mcpclient.Tool) []string {
	var out []string
	for _, tl := range tools {
		out = append(out, tl.Name)
	}
	return out
}

// rpcParams decodes a recorded request's params.
func rpcParams(t *testing.T, r fakemcp.Request) map[string]json.RawMessage {
	t.Helper()
	var p map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(r.RPC.Params, &p), "params of %s", r.RPC.Method)
	return p
}

func TestMCPListToolsWalksPagesInServerOrder(t *testing.T) {
	for _, tc := range []struct {
		name string
		era  fakemcp.Era
		sse  bool
	}{
		{"session era, JSON", fakemcp.Session, false},
		{"session era, SSE", fakemcp.Session, true},
		{"stateless era, JSON", fakemcp.Stateless, false},
		{"stateless era, SSE", fakemcp.Stateless, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := &fakemcp.Server{Era: tc.era, SSE: tc.sse, Tools: mcpTools("b_tool", "a_tool", "c_tool"), PageSize: 2}
			c := startMCP(t, srv, nil)
			tools, pages, err := c.ListToolPages(mcpCtx(t))
			require.NoError(t, err)
			assert.Equal(t, []string{"b_tool", "a_tool", "c_tool"}, mcpToolNames(tools))
			assert.Equal(t, 2, pages)
			assert.JSONEq(t, `{"type":"object"}`, string(tools[0].InputSchema))
			assert.JSONEq(t, `{"honua.studio":{"family":"f"}}`, string(tools[0].Meta))
			assert.Equal(t, "tool 1", tools[1].Description)

			var cursors []string
			for _, r := range srv.Requests() {
				if r.RPC.Method == "tools/list" {
					var p struct {
						Cursor *string `json:"cursor"`
					}
					require.NoError(t, json.Unmarshal(r.RPC.Params, &p))
					cursors = append(cursors, fmt.Sprint(p.Cursor != nil, " ", deref(p.Cursor)))
				}
			}
			assert.Equal(t, []string{"false ", "true page-2"}, cursors)
		})
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func TestMCPListToolsRefusesABrokenWalk(t *testing.T) {
	for _, tc := range []struct {
		name     string
		next     func(cursor string) string
		maxPages int
		requests int
		message  string
	}{
		{"repeated cursor", func(string) string { return "again" }, 0, 2, `repeated the cursor "again"`},
		{"cursor cycle", func(c string) string {
			if c == "x" {
				return "y"
			}
			return "x"
		}, 0, 3, `repeated the cursor "x"`},
		{"endless cursors past MaxPages", func(c string) string { return c + "+" }, 3, 3, "more than 3 pages"},
		{"endless cursors past the default 50", func(c string) string { return c + "+" }, 0, 50, "more than 50 pages"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := &fakemcp.Server{Era: fakemcp.Stateless, Tools: mcpTools("a"), NextCursor: tc.next}
			c := startMCP(t, srv, func(cfg *mcpclient.Config) { cfg.MaxPages = tc.maxPages })
			tools, err := c.ListTools(mcpCtx(t))
			assert.Nil(t, tools, "no partial catalog")
			var pe *mcpclient.ProtocolError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, -32603, pe.Code)
			assert.Contains(t, pe.Message, tc.message)
			n := 0
			for _, m := range srv.RPCMethods() {
				if m == "tools/list" {
					n++
				}
			}
			assert.Equal(t, tc.requests, n)
		})
	}
}

func TestMCPSessionEraHandshake(t *testing.T) {
	for _, tc := range []struct {
		name, view, wantView string
	}{
		{"default view", "", "setup"},
		{"chosen view", "design", "design"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := &fakemcp.Server{Era: fakemcp.Session, Tools: mcpTools("a")}
			c := startMCP(t, srv, func(cfg *mcpclient.Config) {
				cfg.Era = mcpclient.EraSession
				cfg.WorkflowView = tc.view
				cfg.ClientName, cfg.ClientVersion = "studio-test", "9.9.9"
			})
			_, err := c.ListTools(mcpCtx(t))
			require.NoError(t, err)
			_, err = c.CallTool(mcpCtx(t), "a", json.RawMessage(`{"x":1}`))
			require.NoError(t, err)
			assert.Equal(t, mcpclient.EraSession, c.Era())

			reqs := srv.Requests()
			require.Equal(t, []string{"initialize", "notifications/initialized", "tools/list", "tools/call"}, srv.RPCMethods())
			for _, r := range reqs {
				assert.Equal(t, "POST", r.HTTPMethod)
				assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
				assert.Equal(t, "application/json, text/event-stream", r.Header.Get("Accept"))
				assert.Equal(t, "Bearer token-abcdef", r.Header.Get("Authorization"))
				assert.Empty(t, r.Header.Get("Mcp-Method"), "no stateless headers in the session era")
			}
			init := reqs[0]
			assert.Empty(t, init.Header.Get("Mcp-Session-Id"))
			assert.Empty(t, init.Header.Get("Mcp-Protocol-Version"), "the version header comes after initialization")
			p := rpcParams(t, init)
			assert.JSONEq(t, `"2025-11-25"`, string(p["protocolVersion"]))
			assert.JSONEq(t, `{}`, string(p["capabilities"]))
			assert.JSONEq(t, `{"name":"studio-test","version":"9.9.9"}`, string(p["clientInfo"]))
			assert.JSONEq(t, fmt.Sprintf(`{"honua.io/workflow-view":%q}`, tc.wantView), string(p["_meta"]))
			assert.JSONEq(t, `1`, string(init.RPC.ID))

			assert.Nil(t, reqs[1].RPC.ID, "initialized is a notification")
			for _, r := range reqs[1:] {
				assert.Equal(t, "session-1", r.Header.Get("Mcp-Session-Id"), r.RPC.Method)
				assert.Equal(t, "2025-11-25", r.Header.Get("Mcp-Protocol-Version"), r.RPC.Method)
			}
			assert.NotContains(t, string(reqs[2].RPC.Params), "_meta", "no per-request _meta in the session era")
			assert.JSONEq(t, `{"x":1}`, string(rpcParams(t, reqs[3])["arguments"]))
		})
	}
}

func TestMCPStatelessEraRequests(t *testing.T) {
	for _, tc := range []struct {
		name, tool, mcpName string
	}{
		{"plain name", "get_weather", "get_weather"},
		{"non-ASCII name is Base64", "météo", "=?base64?bcOpdMOpbw==?="},
		{"sentinel-looking name is Base64", "=?base64?x?=", "=?base64?PT9iYXNlNjQ/eD89?="},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := &fakemcp.Server{Era: fakemcp.Stateless, Tools: mcpTools("a")}
			c := startMCP(t, srv, func(cfg *mcpclient.Config) { cfg.Era = mcpclient.EraStateless })
			_, err := c.ListTools(mcpCtx(t))
			require.NoError(t, err)
			_, err = c.CallTool(mcpCtx(t), tc.tool, nil)
			require.NoError(t, err)

			require.Equal(t, []string{"tools/list", "tools/call"}, srv.RPCMethods(), "no initialize, no discover")
			for _, r := range srv.Requests() {
				assert.Equal(t, "2026-07-28", r.Header.Get("Mcp-Protocol-Version"))
				assert.Equal(t, r.RPC.Method, r.Header.Get("Mcp-Method"))
				assert.Empty(t, r.Header.Get("Mcp-Session-Id"))
				assert.Equal(t, "Bearer token-abcdef", r.Header.Get("Authorization"))
				assert.JSONEq(t, `{
					"io.modelcontextprotocol/protocolVersion": "2026-07-28",
					"io.modelcontextprotocol/clientInfo": {"name": "agentwasm", "version": "0.1.0"},
					"io.modelcontextprotocol/clientCapabilities": {}
				}`, string(rpcParams(t, r)["_meta"]))
			}
			reqs := srv.Requests()
			assert.Empty(t, reqs[0].Header.Get("Mcp-Name"), "tools/list has no Mcp-Name")
			assert.Equal(t, tc.mcpName, reqs[1].Header.Get("Mcp-Name"))
			p := rpcParams(t, reqs[1])
			assert.JSONEq(t, fmt.Sprintf("%q", tc.tool), string(p["name"]))
			assert.JSONEq(t, `{}`, string(p["arguments"]), "no arguments are sent as {}")
		})
	}
}

// discoverAnswer wraps h, answering server/discover with status and body,
// in which `"id":1` is replaced by the request's id.
func discoverAnswer(h http.Handler, status int, body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Method") == "server/discover" {
			var req struct {
				ID json.RawMessage `json:"id"`
			}
			_ = json.NewDecoder(r.Body).Decode(&req)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_, _ = w.Write([]byte(strings.Replace(body, `"id":1`, `"id":`+string(req.ID), 1)))
			return
		}
		h.ServeHTTP(w, r)
	})
}

func TestMCPAutoNegotiation(t *testing.T) {
	legacy := []string{"server/discover", "initialize", "notifications/initialized", "tools/list", "tools/list"}
	for _, tc := range []struct {
		name    string
		handler func(*fakemcp.Server) http.Handler
		srv     *fakemcp.Server
		era     mcpclient.Era
		methods []string
	}{
		{name: "stateless server", srv: &fakemcp.Server{Era: fakemcp.Stateless},
			era: mcpclient.EraStateless, methods: []string{"server/discover", "tools/list", "tools/list"}},
		{name: "dual-era server stays stateless", srv: &fakemcp.Server{Era: fakemcp.Dual},
			era: mcpclient.EraStateless, methods: []string{"server/discover", "tools/list", "tools/list"}},
		{name: "legacy 400 without a stateless error", srv: &fakemcp.Server{Era: fakemcp.Session, Discover: fakemcp.Discover400},
			era: mcpclient.EraSession, methods: legacy},
		{name: "legacy 404", srv: &fakemcp.Server{Era: fakemcp.Session, Discover: fakemcp.Discover404},
			era: mcpclient.EraSession, methods: legacy},
		{name: "legacy 405", srv: &fakemcp.Server{Era: fakemcp.Session, Discover: fakemcp.Discover405},
			era: mcpclient.EraSession, methods: legacy},
		{name: "legacy method not found", srv: &fakemcp.Server{Era: fakemcp.Session, Discover: fakemcp.DiscoverMethodNotFound},
			era: mcpclient.EraSession, methods: legacy},
		{name: "legacy 400 with an empty body", srv: &fakemcp.Server{Era: fakemcp.Session},
			handler: func(s *fakemcp.Server) http.Handler { return discoverAnswer(s, 400, "") },
			era:     mcpclient.EraSession, methods: legacy},
		{name: "unsupported version naming a session-era version", srv: &fakemcp.Server{Era: fakemcp.Session},
			handler: func(s *fakemcp.Server) http.Handler {
				return discoverAnswer(s, 400, `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2025-06-18"],"requested":"2026-07-28"}}}`)
			},
			era: mcpclient.EraSession, methods: legacy},
		{name: "discover naming only session-era versions", srv: &fakemcp.Server{Era: fakemcp.Dual},
			handler: func(s *fakemcp.Server) http.Handler {
				return discoverAnswer(s, 200, `{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2025-11-25"],"capabilities":{}}}`)
			},
			era: mcpclient.EraSession, methods: legacy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := tc.srv
			srv.Tools = mcpTools("a", "b")
			var h http.Handler = srv
			if tc.handler != nil {
				h = tc.handler(srv)
			}
			c := startMCP(t, h, nil)
			assert.Equal(t, mcpclient.EraAuto, c.Era())
			for range 2 {
				tools, err := c.ListTools(mcpCtx(t))
				require.NoError(t, err)
				assert.Equal(t, []string{"a", "b"}, mcpToolNames(tools))
			}
			assert.Equal(t, tc.era, c.Era())
			methods := srv.RPCMethods()
			if tc.handler != nil {
				methods = append([]string{"server/discover"}, methods...) // answered by the wrapper
			}
			assert.Equal(t, tc.methods, methods, "the probe costs one request")

			c.Reset()
			assert.Equal(t, mcpclient.EraAuto, c.Era(), "Reset forgets the era")
			_, err := c.ListTools(mcpCtx(t))
			require.NoError(t, err)
			n := 0
			for _, m := range srv.RPCMethods() {
				if m == "server/discover" {
					n++
				}
			}
			if tc.handler == nil {
				assert.Equal(t, 2, n, "probed again after Reset")
			}
		})
	}
}

func TestMCPAutoNegotiationKeepsStatelessErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
		code int
	}{
		{"header mismatch", `{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"Header mismatch"}}`, -32020},
		{"missing capability", `{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"Missing capability","data":{"requiredCapabilities":{}}}}`, -32021},
		{"unsupported version, no common one", `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2027-01-01"]}}}`, -32022},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := &fakemcp.Server{Era: fakemcp.Session}
			c := startMCP(t, discoverAnswer(srv, 400, tc.body), nil)
			_, err := c.ListTools(mcpCtx(t))
			var pe *mcpclient.ProtocolError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tc.code, pe.Code)
			assert.Equal(t, 400, pe.Status)
			assert.Empty(t, srv.RPCMethods(), "no fallback to initialize")
		})
	}
}

func TestMCPEventStreamAnswer(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	srv := &fakemcp.Server{Era: fakemcp.Stateless, SSE: true, Call: func(_ context.Context, name string, args json.RawMessage) (json.RawMessage, *fakemcp.RPCError) {
		return json.RawMessage(`{"content":[{"type":"text","text":"the answer"}],"structuredContent":{"ok":true}}`), nil
	}}
	c := startMCP(t, srv, func(cfg *mcpclient.Config) {
		cfg.OnNotification = func(method string, params json.RawMessage) {
			mu.Lock()
			seen = append(seen, method)
			mu.Unlock()
			panic("an observer panic is ignored")
		}
	})
	res, err := c.CallTool(mcpCtx(t), "t", json.RawMessage(` {"a":"b"} `))
	require.NoError(t, err)
	assert.JSONEq(t, `[{"type":"text","text":"the answer"}]`, string(res.Content))
	assert.JSONEq(t, `{"ok":true}`, string(res.StructuredContent))
	assert.False(t, res.IsError)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"notifications/progress", "notifications/progress"}, seen, "one per request: the probe and the call")
}

func TestMCPSessionExpiry(t *testing.T) {
	t.Run("a 404 re-initializes once and retries", func(t *testing.T) {
		srv := &fakemcp.Server{Era: fakemcp.Session, Tools: mcpTools("a")}
		c := startMCP(t, srv, func(cfg *mcpclient.Config) { cfg.Era = mcpclient.EraSession })
		_, err := c.ListTools(mcpCtx(t))
		require.NoError(t, err)
		srv.ExpireSessions(1)
		tools, err := c.ListTools(mcpCtx(t))
		require.NoError(t, err)
		assert.Equal(t, []string{"a"}, mcpToolNames(tools))
		assert.Equal(t, []string{"initialize", "notifications/initialized", "tools/list",
			"tools/list", "initialize", "notifications/initialized", "tools/list"}, srv.RPCMethods())
		reqs := srv.Requests()
		assert.Equal(t, "session-1", reqs[3].Header.Get("Mcp-Session-Id"))
		assert.Empty(t, reqs[4].Header.Get("Mcp-Session-Id"), "a new initialize carries no session id")
		assert.Equal(t, "session-2", reqs[6].Header.Get("Mcp-Session-Id"))
	})
	t.Run("a second 404 is an error", func(t *testing.T) {
		srv := &fakemcp.Server{Era: fakemcp.Session, Tools: mcpTools("a")}
		c := startMCP(t, srv, func(cfg *mcpclient.Config) { cfg.Era = mcpclient.EraSession })
		_, err := c.ListTools(mcpCtx(t))
		require.NoError(t, err)
		srv.ExpireSessions(100)
		_, err = c.CallTool(mcpCtx(t), "a", nil)
		require.Error(t, err)
		inits := 0
		for _, m := range srv.RPCMethods() {
			if m == "initialize" {
				inits++
			}
		}
		assert.Equal(t, 2, inits, "re-initialized once, not more")
	})
	t.Run("a 404 in the stateless era is not a session end", func(t *testing.T) {
		srv := &fakemcp.Server{Era: fakemcp.Stateless}
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Mcp-Method") == "tools/call" {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(404)
				_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}`))
				return
			}
			srv.ServeHTTP(w, r)
		})
		c := startMCP(t, h, nil)
		_, err := c.CallTool(mcpCtx(t), "a", nil)
		var pe *mcpclient.ProtocolError
		require.ErrorAs(t, err, &pe)
		assert.Equal(t, -32601, pe.Code)
		assert.Equal(t, []string{"server/discover"}, srv.RPCMethods())
	})
}

func TestMCPToolErrors(t *testing.T) {
	for _, tc := range []struct {
		name, result, code, message string
	}{
		{"structuredContent", `{"isError":true,"structuredContent":{"code":"failed_precondition","message":"stale generation"},"content":[{"type":"text","text":"{\"code\":\"other\",\"message\":\"no\"}"}]}`, "failed_precondition", "stale generation"},
		{"first text block as JSON", `{"isError":true,"content":[{"type":"image","data":"","mimeType":"image/png"},{"type":"text","text":"{\"code\":\"not_found\",\"message\":\"no such layer\"}"},{"type":"text","text":"later"}]}`, "not_found", "no such layer"},
		{"raw text", `{"isError":true,"content":[{"type":"text","text":"boom: it broke"}]}`, "unknown", "boom: it broke"},
		{"numeric code", `{"isError":true,"structuredContent":{"code":42,"message":"odd"}}`, "42", "odd"},
		{"structuredContent without code or message falls to text", `{"isError":true,"structuredContent":{"rows":[]},"content":[{"type":"text","text":"plain"}]}`, "unknown", "plain"},
		{"nothing at all", `{"isError":true,"content":[]}`, "unknown", "the tool reported an error without a message"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := &fakemcp.Server{Era: fakemcp.Stateless, Call: func(context.Context, string, json.RawMessage) (json.RawMessage, *fakemcp.RPCError) {
				return json.RawMessage(tc.result), nil
			}}
			c := startMCP(t, srv, nil)
			res, err := c.CallTool(mcpCtx(t), "composer", nil)
			var te *mcpclient.ToolError
			require.ErrorAs(t, err, &te)
			assert.Equal(t, tc.code, te.Code)
			assert.Equal(t, tc.message, te.Message)
			assert.Equal(t, "composer", te.Tool)
			assert.True(t, res.IsError)
			assert.True(t, te.Result.IsError)
		})
	}
}

func TestMCPProtocolErrorKeepsItsCode(t *testing.T) {
	for _, sse := range []bool{false, true} {
		t.Run(fmt.Sprint("sse=", sse), func(t *testing.T) {
			srv := &fakemcp.Server{Era: fakemcp.Session, SSE: sse, Call: func(context.Context, string, json.RawMessage) (json.RawMessage, *fakemcp.RPCError) {
				return nil, &fakemcp.RPCError{Code: -32602, Message: "Unknown tool: nope", Data: []byte(`{"tool":"nope"}`)}
			}}
			c := startMCP(t, srv, nil)
			_, err := c.CallTool(mcpCtx(t), "nope", json.RawMessage(`{}`))
			var pe *mcpclient.ProtocolError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, -32602, pe.Code)
			assert.Equal(t, "Unknown tool: nope", pe.Message)
			assert.JSONEq(t, `{"tool":"nope"}`, string(pe.Data))
			assert.Equal(t, "tools/call", pe.Method)
		})
	}
}

func TestMCPTransportErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		ct     string
		body   string
		max    int
		msg    string
	}{
		{"server error status", 500, "text/plain", "oops", 0, "error status"},
		{"malformed JSON", 200, "application/json", `{"jsonrpc":`, 0, "not a JSON-RPC message"},
		{"answer to another id", 200, "application/json", `{"jsonrpc":"2.0","id":99,"result":{}}`, 0, "not the response"},
		{"neither result nor error", 200, "application/json", `{"jsonrpc":"2.0","id":1}`, 0, "neither a result nor an error"},
		{"stream ends before the answer", 200, "text/event-stream", "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n", 0, "ended before the answer"},
		{"malformed event", 200, "text/event-stream", "data: nope\n\n", 0, "not a JSON-RPC message"},
		{"body too large", 200, "application/json", `{"jsonrpc":"2.0","id":1,"result":{"content":"` + strings.Repeat("x", 2000) + `"}}`, 1024, "too large"},
		{"event too large", 200, "text/event-stream", `data: {"jsonrpc":"2.0","id":1,"result":{"content":"` + strings.Repeat("x", 2000) + "\"}}\n\n", 1024, "too large"},
		{"accepted without an answer", 202, "", "", 0, "without answering"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tc.ct != "" {
					w.Header().Set("Content-Type", tc.ct)
				}
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			})
			c := startMCP(t, h, func(cfg *mcpclient.Config) {
				cfg.Era = mcpclient.EraStateless
				cfg.MaxResponseBytes = tc.max
			})
			_, err := c.CallTool(mcpCtx(t), "t", nil)
			var te *mcpclient.TransportError
			require.ErrorAs(t, err, &te)
			assert.Contains(t, te.Error(), tc.msg)
			if tc.status != 200 {
				assert.Equal(t, tc.status, te.Status)
			}
			assert.NotContains(t, err.Error(), "token-abcdef")
		})
	}
	t.Run("unreachable server", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		url := srv.URL
		srv.Close()
		c, err := mcpclient.New(mcpclient.Config{URL: url + "/mcp", Fetcher: &bridge.HTTPFetcher{}})
		require.NoError(t, err)
		_, err = c.ListTools(mcpCtx(t))
		var te *mcpclient.TransportError
		require.ErrorAs(t, err, &te)
		assert.Equal(t, "server/discover", te.Method)
		assert.Contains(t, te.Error(), "could not reach")
	})
}

func TestMCPCallToolCancelled(t *testing.T) {
	for _, tc := range []struct {
		name    string
		handler func(started chan<- struct{}) http.Handler
	}{
		{"before the response head", func(started chan<- struct{}) http.Handler {
			return &fakemcp.Server{Era: fakemcp.Stateless, Call: func(ctx context.Context, _ string, _ json.RawMessage) (json.RawMessage, *fakemcp.RPCError) {
				close(started)
				<-ctx.Done()
				return nil, &fakemcp.RPCError{Code: -1, Message: "cancelled"}
			}}
		}},
		{"in the middle of the event stream", func(started chan<- struct{}) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = w.Write([]byte("data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n"))
				w.(http.Flusher).Flush()
				close(started)
				<-r.Context().Done()
			})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			started := make(chan struct{})
			c := startMCP(t, tc.handler(started), func(cfg *mcpclient.Config) { cfg.Era = mcpclient.EraStateless })
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := c.CallTool(ctx, "slow", nil)
				done <- err
			}()
			select {
			case <-started:
			case <-time.After(mcpBound):
				t.Fatal("the call never reached the server")
			}
			cancel()
			select {
			case err := <-done:
				assert.ErrorIs(t, err, context.Canceled)
				var te *mcpclient.TransportError
				assert.False(t, errors.As(err, &te), "a cancellation is not a transport failure: %v", err)
			case <-time.After(mcpBound):
				t.Fatal("CallTool did not return after the context was cancelled")
			}
		})
	}
}

func TestMCPClose(t *testing.T) {
	t.Run("session era sends DELETE with the session id", func(t *testing.T) {
		srv := &fakemcp.Server{Era: fakemcp.Session, Tools: mcpTools("a")}
		c := startMCP(t, srv, nil)
		_, err := c.ListTools(mcpCtx(t))
		require.NoError(t, err)
		require.Equal(t, 1, srv.LiveSessions())
		require.NoError(t, c.Close())
		assert.Equal(t, 0, srv.LiveSessions())
		reqs := srv.Requests()
		last := reqs[len(reqs)-1]
		assert.Equal(t, "DELETE", last.HTTPMethod)
		assert.Equal(t, "session-1", last.Header.Get("Mcp-Session-Id"))
		assert.Equal(t, "2025-11-25", last.Header.Get("Mcp-Protocol-Version"))
		assert.Equal(t, "Bearer token-abcdef", last.Header.Get("Authorization"))
		assert.Equal(t, mcpclient.EraAuto, c.Era(), "Close forgets the era")

		n := len(srv.Requests())
		require.NoError(t, c.Close(), "a second Close is a no-op")
		assert.Len(t, srv.Requests(), n)

		_, err = c.ListTools(mcpCtx(t))
		require.NoError(t, err, "a closed client starts a new session")
		assert.Equal(t, 1, srv.LiveSessions())
	})
	t.Run("stateless era sends nothing", func(t *testing.T) {
		srv := &fakemcp.Server{Era: fakemcp.Stateless}
		c := startMCP(t, srv, nil)
		_, err := c.ListTools(mcpCtx(t))
		require.NoError(t, err)
		n := len(srv.Requests())
		require.NoError(t, c.Close())
		assert.Len(t, srv.Requests(), n)
	})
	t.Run("CloseContext ends with its context", func(t *testing.T) {
		srv := &fakemcp.Server{Era: fakemcp.Session, Tools: mcpTools("a")}
		hang := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodDelete {
				<-r.Context().Done() // a server that never answers the DELETE
				return
			}
			srv.ServeHTTP(w, r)
		})
		c := startMCP(t, hang, nil)
		_, err := c.ListTools(mcpCtx(t))
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		start := time.Now()
		err = c.CloseContext(ctx)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Less(t, time.Since(start), mcpBound, "the DELETE ended with the context, not CloseTimeout")
		assert.Equal(t, mcpclient.EraAuto, c.Era(), "the session is forgotten all the same")
	})
}

func TestMCPBearerToken(t *testing.T) {
	t.Run("asked afresh for every request", func(t *testing.T) {
		var n atomic.Int32
		srv := &fakemcp.Server{Era: fakemcp.Session, Tools: mcpTools("a")}
		c := startMCP(t, srv, func(cfg *mcpclient.Config) {
			cfg.Auth = session.TokenFunc(func(context.Context, bool) (string, error) {
				return fmt.Sprintf("token-%d", n.Add(1)), nil
			})
		})
		_, err := c.ListTools(mcpCtx(t))
		require.NoError(t, err)
		var got []string
		for _, r := range srv.Requests() {
			got = append(got, r.Header.Get("Authorization"))
		}
		assert.Equal(t, []string{"Bearer token-1", "Bearer token-2", "Bearer token-3", "Bearer token-4"}, got)
	})
	t.Run("a 401 refreshes once and retries", func(t *testing.T) {
		srv := &fakemcp.Server{Era: fakemcp.Stateless, Tools: mcpTools("a")}
		var refreshes atomic.Int32
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer fresh" {
				w.WriteHeader(401)
				return
			}
			srv.ServeHTTP(w, r)
		})
		c := startMCP(t, h, func(cfg *mcpclient.Config) {
			cfg.Auth = session.TokenFunc(func(_ context.Context, force bool) (string, error) {
				if force {
					refreshes.Add(1)
					return "fresh", nil
				}
				return "stale", nil
			})
		})
		tools, err := c.ListTools(mcpCtx(t))
		require.NoError(t, err)
		assert.Equal(t, []string{"a"}, mcpToolNames(tools))
		assert.Equal(t, int32(2), refreshes.Load(), "one refresh per request: discover and tools/list")
	})
	t.Run("a second 401 is a transport error", func(t *testing.T) {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(401) })
		c := startMCP(t, h, nil)
		_, err := c.ListTools(mcpCtx(t))
		var te *mcpclient.TransportError
		require.ErrorAs(t, err, &te)
		assert.Equal(t, 401, te.Status)
		assert.NotContains(t, err.Error(), "token-abcdef")
	})
	t.Run("a token source failure", func(t *testing.T) {
		srv := &fakemcp.Server{Era: fakemcp.Stateless}
		c := startMCP(t, srv, func(cfg *mcpclient.Config) {
			cfg.Auth = session.TokenFunc(func(context.Context, bool) (string, error) { panic("no token") })
		})
		_, err := c.ListTools(mcpCtx(t))
		var te *mcpclient.TransportError
		require.ErrorAs(t, err, &te)
		assert.Contains(t, te.Error(), "panicked")
		assert.Empty(t, srv.Requests())
	})
}

func TestMCPConcurrentCallsShareOneHandshake(t *testing.T) {
	srv := &fakemcp.Server{Era: fakemcp.Session, Tools: mcpTools("a")}
	c := startMCP(t, srv, nil)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			_, err := c.ListTools(mcpCtx(t))
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	counts := map[string]int{}
	for _, m := range srv.RPCMethods() {
		counts[m]++
	}
	assert.Equal(t, map[string]int{"server/discover": 1, "initialize": 1, "notifications/initialized": 1, "tools/list": 8}, counts)
}

func TestNewValidates(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  mcpclient.Config
	}{
		{"no URL", mcpclient.Config{}},
		{"unknown era", mcpclient.Config{URL: "http://x/mcp", Era: "modern"}},
		{"negative pages", mcpclient.Config{URL: "http://x/mcp", MaxPages: -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := mcpclient.New(tc.cfg)
			assert.Error(t, err)
		})
	}
	var _ session.MCPClient = (*mcpclient.Client)(nil)
}

func TestMCPSessionEraEdges(t *testing.T) {
	t.Run("a server without session ids", func(t *testing.T) {
		srv := &fakemcp.Server{Era: fakemcp.Session, NoSessionID: true, Tools: mcpTools("a")}
		c := startMCP(t, srv, func(cfg *mcpclient.Config) { cfg.Era = mcpclient.EraSession })
		_, err := c.ListTools(mcpCtx(t))
		require.NoError(t, err)
		require.NoError(t, c.Close())
		assert.Equal(t, []string{"initialize", "notifications/initialized", "tools/list"}, srv.RPCMethods(), "no DELETE without a session id")
		for _, r := range srv.Requests() {
			assert.Empty(t, r.Header.Get("Mcp-Session-Id"))
		}
	})
	t.Run("an initialize answer in a version the client does not speak", func(t *testing.T) {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2024-11-05","capabilities":{}}}`))
		})
		c := startMCP(t, h, func(cfg *mcpclient.Config) { cfg.Era = mcpclient.EraSession })
		_, err := c.ListTools(mcpCtx(t))
		var pe *mcpclient.ProtocolError
		require.ErrorAs(t, err, &pe)
		assert.Equal(t, -32022, pe.Code)
		assert.Contains(t, pe.Message, "2024-11-05")
	})
	t.Run("a refused initialized notification fails the handshake", func(t *testing.T) {
		srv := &fakemcp.Server{Era: fakemcp.Session}
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Mcp-Session-Id") != "" {
				w.WriteHeader(500)
				return
			}
			srv.ServeHTTP(w, r)
		})
		c := startMCP(t, h, func(cfg *mcpclient.Config) { cfg.Era = mcpclient.EraSession })
		_, err := c.ListTools(mcpCtx(t))
		var te *mcpclient.TransportError
		require.ErrorAs(t, err, &te)
		assert.Equal(t, "notifications/initialized", te.Method)
		assert.Equal(t, 500, te.Status)
	})
}

func TestMCPInputRequiredIsAProtocolError(t *testing.T) {
	srv := &fakemcp.Server{Era: fakemcp.Stateless, Call: func(context.Context, string, json.RawMessage) (json.RawMessage, *fakemcp.RPCError) {
		return json.RawMessage(`{"resultType":"input_required","inputRequests":{}}`), nil
	}}
	c := startMCP(t, srv, nil)
	_, err := c.CallTool(mcpCtx(t), "t", nil)
	var pe *mcpclient.ProtocolError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, -32603, pe.Code)
	assert.Contains(t, pe.Message, "input_required")
}

func TestMCPCallToolRefusesNonObjectArguments(t *testing.T) {
	srv := &fakemcp.Server{Era: fakemcp.Stateless}
	c := startMCP(t, srv, nil)
	for _, args := range []string{`[1]`, `"x"`, `{"a":`} {
		_, err := c.CallTool(mcpCtx(t), "t", json.RawMessage(args))
		assert.Error(t, err, args)
	}
	assert.Empty(t, srv.Requests(), "nothing is sent")
}

func TestMCPParamHeaders(t *testing.T) {
	tools := []json.RawMessage{
		json.RawMessage(`{"name":"execute_sql","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"query":{"type":"string"}}}}`),
		json.RawMessage(`{"name":"bad_header","inputSchema":{"type":"object","properties":{"n":{"type":"number","x-mcp-header":"N"}}}}`),
		json.RawMessage(`{"name":"plain","inputSchema":{"type":"object"}}`),
	}
	for _, tc := range []struct {
		name      string
		era       fakemcp.Era
		wantTools []string
		rejected  []string
		header    string
	}{
		{"stateless era mirrors and rejects", fakemcp.Stateless, []string{"execute_sql", "plain"}, []string{"bad_header"}, "us-west1"},
		{"session era ignores the annotations", fakemcp.Session, []string{"execute_sql", "bad_header", "plain"}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := &fakemcp.Server{Era: tc.era, Tools: tools}
			var rejected []string
			c := startMCP(t, srv, func(cfg *mcpclient.Config) {
				cfg.OnToolRejected = func(name, reason string) {
					rejected = append(rejected, name)
					assert.Contains(t, reason, "x-mcp-header")
				}
			})
			got, err := c.ListTools(mcpCtx(t))
			require.NoError(t, err)
			assert.Equal(t, tc.wantTools, mcpToolNames(got))
			assert.Equal(t, tc.rejected, rejected)
			_, err = c.CallTool(mcpCtx(t), "execute_sql", json.RawMessage(`{"region":"us-west1","query":"SELECT 1"}`))
			require.NoError(t, err)
			_, err = c.CallTool(mcpCtx(t), "plain", json.RawMessage(`{"region":"us-west1"}`))
			require.NoError(t, err)
			reqs := srv.Requests()
			assert.Equal(t, tc.header, reqs[len(reqs)-2].Header.Get("Mcp-Param-Region"))
			assert.Empty(t, reqs[len(reqs)-1].Header.Get("Mcp-Param-Region"), "only annotated tools mirror")
		})
	}
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

func TestMCPListenToolListChanged(t *testing.T) {
	t.Run("session era GET stream", func(t *testing.T) {
		srv := &fakemcp.Server{Era: fakemcp.Session, Tools: mcpTools("a")}
		c := startMCP(t, srv, nil)
		_, err := c.ListTools(mcpCtx(t))
		require.NoError(t, err)
		st, err := c.ListenToolListChanged(mcpCtx(t), "")
		require.NoError(t, err)
		waitUntil(t, "the stream is open", func() bool { return srv.OpenStreams() == 1 })
		reqs := srv.Requests()
		get := reqs[len(reqs)-1]
		assert.Equal(t, "GET", get.HTTPMethod)
		assert.Equal(t, "text/event-stream", get.Header.Get("Accept"))
		assert.Equal(t, "session-1", get.Header.Get("Mcp-Session-Id"))
		assert.Equal(t, "2025-11-25", get.Header.Get("Mcp-Protocol-Version"))
		assert.Equal(t, "Bearer token-abcdef", get.Header.Get("Authorization"))
		assert.Empty(t, get.Header.Get("Last-Event-Id"))

		assert.Equal(t, 1, srv.NotifyToolsChanged())
		method, _, err := st.Next()
		require.NoError(t, err)
		assert.Equal(t, "notifications/tools/list_changed", method)
		assert.Equal(t, "ev-1", st.LastEventID())
		require.NoError(t, st.Close())
		require.NoError(t, st.Close(), "Close is idempotent")
		waitUntil(t, "the server sees the stream end", func() bool { return srv.OpenStreams() == 0 })

		st, err = c.ListenToolListChanged(mcpCtx(t), "ev-1")
		require.NoError(t, err)
		defer st.Close()
		reqs = srv.Requests()
		assert.Equal(t, "ev-1", reqs[len(reqs)-1].Header.Get("Last-Event-Id"))
	})
	t.Run("stateless era subscriptions/listen", func(t *testing.T) {
		srv := &fakemcp.Server{Era: fakemcp.Stateless}
		c := startMCP(t, srv, nil)
		st, err := c.ListenToolListChanged(mcpCtx(t), "ignored")
		require.NoError(t, err)
		defer st.Close()
		assert.Equal(t, []string{"server/discover", "subscriptions/listen"}, srv.RPCMethods())
		listen := srv.Requests()[1]
		assert.Equal(t, "subscriptions/listen", listen.Header.Get("Mcp-Method"))
		assert.Empty(t, listen.Header.Get("Last-Event-Id"))
		p := rpcParams(t, listen)
		assert.JSONEq(t, `{"toolsListChanged":true}`, string(p["notifications"]))
		assert.Contains(t, string(p["_meta"]), `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`)

		method, _, err := st.Next()
		require.NoError(t, err)
		assert.Equal(t, "notifications/subscriptions/acknowledged", method)
		srv.NotifyToolsChanged()
		method, params, err := st.Next()
		require.NoError(t, err)
		assert.Equal(t, "notifications/tools/list_changed", method)
		assert.JSONEq(t, fmt.Sprintf(`{"_meta":{"io.modelcontextprotocol/subscriptionId":%s}}`, listen.RPC.ID), string(params))
		srv.EndStreams()
		_, _, err = st.Next()
		assert.ErrorIs(t, err, mcpclient.ErrListenClosed)
	})
	t.Run("unsupported streams", func(t *testing.T) {
		for _, era := range []fakemcp.Era{fakemcp.Session, fakemcp.Stateless} {
			srv := &fakemcp.Server{Era: era, NoStream: true}
			c := startMCP(t, srv, nil)
			_, err := c.ListenToolListChanged(mcpCtx(t), "")
			require.Error(t, err)
			var te *mcpclient.TransportError
			var pe *mcpclient.ProtocolError
			if era == fakemcp.Session {
				require.ErrorAs(t, err, &te)
				assert.Equal(t, 405, te.Status)
			} else {
				require.ErrorAs(t, err, &pe)
				assert.Equal(t, 404, pe.Status)
				assert.Equal(t, -32601, pe.Code)
			}
		}
	})
	t.Run("a 404 on the GET renews the session once", func(t *testing.T) {
		srv := &fakemcp.Server{Era: fakemcp.Session}
		c := startMCP(t, srv, func(cfg *mcpclient.Config) { cfg.Era = mcpclient.EraSession })
		_, err := c.ListTools(mcpCtx(t))
		require.NoError(t, err)
		srv.DropSessions()
		st, err := c.ListenToolListChanged(mcpCtx(t), "")
		require.NoError(t, err)
		defer st.Close()
		assert.Equal(t, []string{"initialize", "notifications/initialized", "tools/list", "GET", "initialize", "notifications/initialized", "GET"}, srv.RPCMethods())
		reqs := srv.Requests()
		assert.Equal(t, "session-2", reqs[len(reqs)-1].Header.Get("Mcp-Session-Id"))
	})
	t.Run("cancelling ctx ends a blocked Next", func(t *testing.T) {
		srv := &fakemcp.Server{Era: fakemcp.Stateless}
		c := startMCP(t, srv, nil)
		ctx, cancel := context.WithCancel(context.Background())
		st, err := c.ListenToolListChanged(ctx, "")
		require.NoError(t, err)
		defer st.Close()
		_, _, err = st.Next() // the acknowledgement
		require.NoError(t, err)
		done := make(chan error, 1)
		go func() {
			_, _, err := st.Next()
			done <- err
		}()
		cancel()
		select {
		case err := <-done:
			assert.Error(t, err)
		case <-time.After(mcpBound):
			t.Fatal("Next did not return after the context was cancelled")
		}
	})
}

func TestMCPCallToolCancelledWithADeafFetcher(t *testing.T) {
	// A fetcher whose body ignores the context: the client closes it.
	pr, pw := io.Pipe()
	defer pw.Close()
	f := bridge.FetcherFunc(func(ctx context.Context, req *bridge.Request) (*bridge.Response, error) {
		return &bridge.Response{Status: 200, Header: bridge.Header{"content-type": "text/event-stream"}, Body: pr}, nil
	})
	c, err := mcpclient.New(mcpclient.Config{URL: "http://example.invalid/mcp", Fetcher: f, Era: mcpclient.EraStateless})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.CallTool(ctx, "slow", nil)
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(mcpBound):
		t.Fatal("CallTool did not return after the context was cancelled")
	}
}
