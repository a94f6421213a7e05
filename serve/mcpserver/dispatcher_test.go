// Tests of the transport-free MCP dispatcher: both eras, the error codes,
// batches, sessions, the stateless era's _meta and header checks, and
// recovery from a failing tool server.

package mcpserver

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeTools is a ToolServer for dispatcher tests.
type fakeTools struct{ calls atomic.Int32 }

const fakeToolList = `[{"name":"echo","description":"Echoes its arguments.","inputSchema":{"type":"object"}},` +
	`{"name":"tagged","description":"Has a header parameter.","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer","x-mcp-header":"N"}}}},` +
	`{"name":"boom","description":"Panics.","inputSchema":{"type":"object"}},` +
	`{"name":"garbage","description":"Answers something that is not JSON.","inputSchema":{"type":"object"}}]`

func (f *fakeTools) ListTools() []byte { return []byte(fakeToolList) }

func (f *fakeTools) CallTool(_ context.Context, name string, args []byte) []byte {
	f.calls.Add(1)
	switch name {
	case "boom":
		panic("tool exploded")
	case "garbage":
		return []byte("not json")
	}
	return []byte(`{"content":[{"type":"text","text":` + string(mustJSON(name+" "+string(args))) + `}]}`)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// rpc decodes an answer for assertions.
type rpc struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  map[string]any  `json:"result"`
	Error   *struct {
		Code    int            `json:"code"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	} `json:"error"`
}

func decodeRPC(t *testing.T, b []byte) rpc {
	t.Helper()
	var r rpc
	require.NoError(t, json.Unmarshal(b, &r), "answer: %s", b)
	require.Equal(t, "2.0", r.JSONRPC)
	return r
}

// headers builds a Header func from pairs.
func headers(kv ...string) func(string) (string, bool) {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[strings.ToLower(kv[i])] = kv[i+1]
	}
	return func(name string) (string, bool) { v, ok := m[strings.ToLower(name)]; return v, ok }
}

const statelessMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// statelessHeaders are the standard headers of a stateless request.
func statelessHeaders(method, name string, extra ...string) func(string) (string, bool) {
	kv := []string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", method}
	if name != "" {
		kv = append(kv, "Mcp-Name", name)
	}
	return headers(append(kv, extra...)...)
}

func TestMCPDispatcherSessionEra(t *testing.T) {
	d := New(&fakeTools{}, Options{Name: "shop", Version: "1.2.3", Sessions: true})
	ctx := context.Background()

	init := d.Handle(ctx, Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)})
	require.Equal(t, 200, init.Status)
	require.NotEmpty(t, init.SessionID)
	r := decodeRPC(t, init.Body)
	assert.JSONEq(t, `1`, string(r.ID))
	assert.Equal(t, "2025-06-18", r.Result["protocolVersion"])
	assert.Equal(t, map[string]any{"tools": map[string]any{"listChanged": false}}, r.Result["capabilities"])
	assert.Equal(t, map[string]any{"name": "shop", "version": "1.2.3"}, r.Result["serverInfo"])

	tests := []struct {
		name   string
		body   string
		status int
		check  func(t *testing.T, r rpc)
	}{
		{"initialized notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, 202, nil},
		{"ping", `{"jsonrpc":"2.0","id":"p","method":"ping"}`, 200, func(t *testing.T, r rpc) {
			assert.JSONEq(t, `"p"`, string(r.ID))
			assert.Empty(t, r.Result)
			assert.NotNil(t, r.Result)
		}},
		{"tools/list", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, 200, func(t *testing.T, r rpc) {
			assert.Len(t, r.Result["tools"], 4)
			assert.NotContains(t, r.Result, "ttlMs")
		}},
		{"tools/call", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"a":1}}}`, 200, func(t *testing.T, r rpc) {
			assert.Equal(t, `echo {"a":1}`, r.Result["content"].([]any)[0].(map[string]any)["text"])
			assert.NotContains(t, r.Result, "resultType")
		}},
		{"tools/call without arguments", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo"}}`, 200, func(t *testing.T, r rpc) {
			assert.Equal(t, `echo {}`, r.Result["content"].([]any)[0].(map[string]any)["text"])
		}},
		{"unknown method", `{"jsonrpc":"2.0","id":5,"method":"nope/nope"}`, 200, func(t *testing.T, r rpc) {
			assert.Equal(t, MethodNotFound, r.Error.Code)
		}},
		{"server/discover without _meta", `{"jsonrpc":"2.0","id":6,"method":"server/discover","params":{}}`, 400, func(t *testing.T, r rpc) {
			assert.Equal(t, InvalidParams, r.Error.Code)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := d.Handle(ctx, Request{Body: []byte(tc.body), SessionID: init.SessionID})
			assert.Equal(t, tc.status, resp.Status)
			if tc.check == nil {
				assert.Nil(t, resp.Body)
				return
			}
			tc.check(t, decodeRPC(t, resp.Body))
		})
	}

	t.Run("unknown and ended sessions are 404", func(t *testing.T) {
		resp := d.Handle(ctx, Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), SessionID: "nope"})
		assert.Equal(t, 404, resp.Status)
		assert.True(t, d.EndSession(init.SessionID))
		assert.False(t, d.EndSession(init.SessionID))
		resp = d.Handle(ctx, Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), SessionID: init.SessionID})
		assert.Equal(t, 404, resp.Status)
		assert.Equal(t, SessionNotFound, decodeRPC(t, resp.Body).Error.Code)
	})
}

func TestMCPDispatcherNegotiatesVersions(t *testing.T) {
	d := New(&fakeTools{}, Options{})
	for _, tc := range []struct{ asked, got string }{
		{"2025-03-26", "2025-03-26"}, {"2025-06-18", "2025-06-18"}, {"2025-11-25", "2025-11-25"},
		{"2024-11-05", "2025-11-25"}, {"1999-01-01", "2025-11-25"}, {"", "2025-11-25"},
	} {
		t.Run(tc.asked, func(t *testing.T) {
			resp := d.Handle(context.Background(), Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + tc.asked + `"}}`)})
			assert.Equal(t, tc.got, decodeRPC(t, resp.Body).Result["protocolVersion"])
			assert.Empty(t, resp.SessionID, "sessions are off by default")
		})
	}
}

func TestMCPDispatcherToolsListByteIdentical(t *testing.T) {
	d := New(&fakeTools{}, Options{})
	for _, tc := range []struct {
		name string
		req  Request
	}{
		{"session era", Request{Body: []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`)}},
		{"stateless era", Request{Body: []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{` + statelessMeta + `}}`), Header: statelessHeaders("tools/list", "")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first := d.Handle(context.Background(), tc.req).Body
			for i := 0; i < 5; i++ {
				assert.Equal(t, string(first), string(d.Handle(context.Background(), tc.req).Body))
			}
			r := decodeRPC(t, first)
			assert.Len(t, r.Result["tools"], 4)
		})
	}
}

func TestMCPDispatcherErrors(t *testing.T) {
	d := New(&fakeTools{}, Options{})
	tests := []struct {
		name   string
		body   string
		code   int
		status int
		id     string
	}{
		{"empty body", ``, ParseError, 400, "null"},
		{"truncated", `{"jsonrpc":"2.0","id":1,`, ParseError, 400, "null"},
		{"bad literal", `{"jsonrpc":"2.0","id":1,"method":tru}`, ParseError, 400, "null"},
		{"trailing data", `{"jsonrpc":"2.0","id":1,"method":"ping"} x`, ParseError, 400, "null"},
		{"not an object", `42`, InvalidRequest, 400, "null"},
		{"a string", `"ping"`, InvalidRequest, 400, "null"},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, InvalidRequest, 400, "1"},
		{"missing jsonrpc", `{"id":1,"method":"ping"}`, InvalidRequest, 400, "1"},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, InvalidRequest, 400, "null"},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, InvalidRequest, 400, "null"},
		{"numeric method", `{"jsonrpc":"2.0","id":1,"method":5}`, InvalidRequest, 400, "1"},
		{"no method", `{"jsonrpc":"2.0","id":1}`, InvalidRequest, 400, "1"},
		{"params an array", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1]}`, InvalidParams, 400, "1"},
		{"call without name", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`, InvalidParams, 200, "1"},
		{"call with a numeric name", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":3}}`, InvalidParams, 200, "1"},
		{"arguments not an object", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":[1]}}`, InvalidParams, 200, "1"},
		{"unknown method", `{"jsonrpc":"2.0","id":"x","method":"resources/list"}`, MethodNotFound, 200, `"x"`},
		{"tool server returns garbage", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"garbage"}}`, InternalError, 200, "1"},
		{"tool server panics", `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"boom"}}`, InternalError, 200, "9"},
		{"empty batch", `[]`, InvalidRequest, 400, "null"},
		{"batch outside 2025-03-26", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, InvalidRequest, 400, "null"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := d.Handle(context.Background(), Request{Body: []byte(tc.body)})
			assert.Equal(t, tc.status, resp.Status)
			r := decodeRPC(t, resp.Body)
			require.NotNil(t, r.Error, "answer: %s", resp.Body)
			assert.Equal(t, tc.code, r.Error.Code, r.Error.Message)
			assert.JSONEq(t, tc.id, string(r.ID))
		})
	}
}

func TestMCPDispatcherPanicDoesNotBreakNextRequest(t *testing.T) {
	ts := &fakeTools{}
	d := New(ts, Options{})
	for i := 0; i < 3; i++ {
		resp := d.Handle(context.Background(), Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"boom"}}`)})
		assert.Equal(t, InternalError, decodeRPC(t, resp.Body).Error.Code)
		resp = d.Handle(context.Background(), Request{Body: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo"}}`)})
		assert.Nil(t, decodeRPC(t, resp.Body).Error)
	}
	assert.Equal(t, int32(6), ts.calls.Load())
}

// panicList panics in ListTools.
type panicList struct{ fakeTools }

func (*panicList) ListTools() []byte { panic("no list") }

func TestMCPDispatcherListToolsPanicServesEmptyList(t *testing.T) {
	d := New(&panicList{}, Options{})
	resp := d.Handle(context.Background(), Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)})
	assert.Equal(t, []any{}, decodeRPC(t, resp.Body).Result["tools"])
}

func TestMCPDispatcherBatches(t *testing.T) {
	d := New(&fakeTools{}, Options{})
	h := headers("MCP-Protocol-Version", "2025-03-26")
	resp := d.Handle(context.Background(), Request{Header: h, Body: []byte(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":2,"method":"nope"},5]`)})
	require.Equal(t, 200, resp.Status)
	var answers []rpc
	require.NoError(t, json.Unmarshal(resp.Body, &answers))
	require.Len(t, answers, 3)
	assert.Nil(t, answers[0].Error)
	assert.Equal(t, MethodNotFound, answers[1].Error.Code)
	assert.Equal(t, InvalidRequest, answers[2].Error.Code)

	resp = d.Handle(context.Background(), Request{Header: h, Body: []byte(`[{"jsonrpc":"2.0","method":"notifications/initialized"}]`)})
	assert.Equal(t, 202, resp.Status)
	assert.Nil(t, resp.Body)
}

func TestMCPDispatcherStatelessEra(t *testing.T) {
	d := New(&fakeTools{}, Options{Name: "shop", Version: "2"})
	discover := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + statelessMeta + `}}`
	tests := []struct {
		name   string
		body   string
		header func(string) (string, bool)
		status int
		code   int // 0: a result
		check  func(t *testing.T, r rpc)
	}{
		{"discover", discover, statelessHeaders("server/discover", ""), 200, 0, func(t *testing.T, r rpc) {
			// Every revision the endpoint serves, as its unsupported-version
			// error lists them (the conformance suite checks the two agree).
			assert.Equal(t, []any{"2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}, r.Result["supportedVersions"])
			assert.Equal(t, "complete", r.Result["resultType"])
			assert.Contains(t, r.Result, "ttlMs")
			assert.Equal(t, "private", r.Result["cacheScope"])
			assert.Equal(t, map[string]any{"name": "shop", "version": "2"}, r.Result["_meta"].(map[string]any)["io.modelcontextprotocol/serverInfo"])
		}},
		{"discover in-process, no headers", discover, nil, 200, 0, nil},
		{"tools/list has caching hints", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + statelessMeta + `}}`, statelessHeaders("tools/list", ""), 200, 0, func(t *testing.T, r rpc) {
			assert.Equal(t, float64(0), r.Result["ttlMs"])
			assert.Equal(t, "private", r.Result["cacheScope"])
			assert.Equal(t, "complete", r.Result["resultType"])
		}},
		{"tools/call has resultType", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo",` + statelessMeta + `}}`, statelessHeaders("tools/call", "echo"), 200, 0, func(t *testing.T, r rpc) {
			assert.Equal(t, "complete", r.Result["resultType"])
		}},
		{"Mcp-Name with white space", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo",` + statelessMeta + `}}`, statelessHeaders("tools/call", "  echo "), 200, 0, nil},
		{"missing _meta", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`, statelessHeaders("server/discover", ""), 400, InvalidParams, nil},
		{"_meta without protocolVersion", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}}`, statelessHeaders("server/discover", ""), 400, InvalidParams, nil},
		{"_meta without capabilities", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, statelessHeaders("server/discover", ""), 400, InvalidParams, nil},
		{"missing version header", discover, headers("Mcp-Method", "server/discover"), 400, HeaderMismatch, nil},
		{"header differs from _meta", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"v9","io.modelcontextprotocol/clientCapabilities":{}}}}`, statelessHeaders("server/discover", ""), 400, HeaderMismatch, nil},
		{"unsupported version", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"v9","io.modelcontextprotocol/clientCapabilities":{}}}}`, headers("MCP-Protocol-Version", "v9", "Mcp-Method", "server/discover"), 400, UnsupportedProtocol, func(t *testing.T, r rpc) {
			assert.Equal(t, map[string]any{"supported": []any{"2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}, "requested": "v9"}, r.Error.Data,
				"every revision the endpoint serves")
		}},
		{"missing Mcp-Method", discover, headers("MCP-Protocol-Version", "2026-07-28"), 400, HeaderMismatch, nil},
		{"Mcp-Method differs", discover, statelessHeaders("tools/list", ""), 400, HeaderMismatch, nil},
		{"Mcp-Method is case-sensitive", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + statelessMeta + `}}`, statelessHeaders("TOOLS/LIST", ""), 400, HeaderMismatch, nil},
		{"missing Mcp-Name", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo",` + statelessMeta + `}}`, statelessHeaders("tools/call", ""), 400, HeaderMismatch, nil},
		{"Mcp-Name differs", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo",` + statelessMeta + `}}`, statelessHeaders("tools/call", "other"), 400, HeaderMismatch, nil},
		{"ping is gone", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{` + statelessMeta + `}}`, statelessHeaders("ping", ""), 404, MethodNotFound, nil},
		{"initialize is gone", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{` + statelessMeta + `}}`, statelessHeaders("initialize", ""), 404, MethodNotFound, nil},
		{"unknown method", `{"jsonrpc":"2.0","id":1,"method":"x/y","params":{` + statelessMeta + `}}`, statelessHeaders("x/y", ""), 404, MethodNotFound, nil},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}`, statelessHeaders("notifications/cancelled", ""), 202, 0, nil},
		{"batch", `[` + discover + `]`, statelessHeaders("server/discover", ""), 400, InvalidRequest, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := d.Handle(context.Background(), Request{Body: []byte(tc.body), Header: tc.header})
			assert.Equal(t, tc.status, resp.Status, "answer: %s", resp.Body)
			if resp.Status == 202 {
				assert.Nil(t, resp.Body)
				return
			}
			r := decodeRPC(t, resp.Body)
			if strings.HasPrefix(tc.body, "[") {
				assert.JSONEq(t, `null`, string(r.ID), "a refused batch has no one id")
			} else {
				assert.JSONEq(t, `1`, string(r.ID), "errors carry the request id")
			}
			if tc.code == 0 {
				require.Nil(t, r.Error, "answer: %s", resp.Body)
			} else {
				require.NotNil(t, r.Error, "answer: %s", resp.Body)
				assert.Equal(t, tc.code, r.Error.Code, r.Error.Message)
			}
			if tc.check != nil {
				tc.check(t, r)
			}
		})
	}
}

func TestMCPDispatcherParamHeaders(t *testing.T) {
	d := New(&fakeTools{}, Options{})
	call := func(args string, extra ...string) Response {
		return d.Handle(context.Background(), Request{
			Body:   []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"tagged","arguments":` + args + `,` + statelessMeta + `}}`),
			Header: statelessHeaders("tools/call", "tagged", extra...),
		})
	}
	tests := []struct {
		name   string
		args   string
		extra  []string
		status int
	}{
		{"no value, no header", `{}`, nil, 200},
		{"literal match", `{"region":"eu"}`, []string{"Mcp-Param-Region", "eu"}, 200},
		{"base64 match", `{"region":"Hello"}`, []string{"Mcp-Param-Region", "=?base64?SGVsbG8=?="}, 200},
		{"no suffix is literal", `{"region":"=?base64?SGVsbG8="}`, []string{"Mcp-Param-Region", "=?base64?SGVsbG8="}, 200},
		{"a number", `{"n":42}`, []string{"Mcp-Param-N", "42"}, 200},
		{"header name case", `{"region":"eu"}`, []string{"mcp-param-region", "eu"}, 200},
		{"header missing", `{"region":"eu"}`, nil, 400},
		{"value differs", `{"region":"eu"}`, []string{"Mcp-Param-Region", "us"}, 400},
		{"bad padding", `{"region":"Hello"}`, []string{"Mcp-Param-Region", "=?base64?SGVsbG8?="}, 400},
		{"bad characters", `{"region":"Hello"}`, []string{"Mcp-Param-Region", "=?base64?SGVs!!!bG8=?="}, 400},
		{"header without value", `{}`, []string{"Mcp-Param-Region", "eu"}, 400},
		{"raw UTF-8 refused", `{"region":"café"}`, []string{"Mcp-Param-Region", "café"}, 400},
		{"control character refused", `{"region":"a\u0001"}`, []string{"Mcp-Param-Region", "a\x01"}, 400},
		{"UTF-8 as base64", `{"region":"café"}`, []string{"Mcp-Param-Region", "=?base64?Y2Fmw6k=?="}, 200},
		{"an integer written as 42.0", `{"n":42.0}`, []string{"Mcp-Param-N", "42"}, 200},
		{"a different number", `{"n":42.5}`, []string{"Mcp-Param-N", "42"}, 400},
		{"a duplicated argument", `{"region":"eu","region":"us"}`, []string{"Mcp-Param-Region", "eu"}, 400},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := call(tc.args, tc.extra...)
			assert.Equal(t, tc.status, resp.Status, "answer: %s", resp.Body)
			if tc.status == 400 {
				code := HeaderMismatch
				if strings.Contains(tc.name, "duplicated") {
					code = InvalidParams
				}
				assert.Equal(t, code, decodeRPC(t, resp.Body).Error.Code)
			}
		})
	}
}

func TestMCPDispatcherEraLimit(t *testing.T) {
	ping := Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)}
	discover := Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + statelessMeta + `}}`)}
	session := New(&fakeTools{}, Options{Era: "session"})
	assert.Equal(t, 200, session.Handle(context.Background(), ping).Status)
	assert.Equal(t, 404, session.Handle(context.Background(), discover).Status)
	stateless := New(&fakeTools{}, Options{Era: "stateless"})
	assert.Equal(t, 404, stateless.Handle(context.Background(), ping).Status)
	res := stateless.Handle(context.Background(), discover)
	assert.Equal(t, 200, res.Status)
	// A stateless-only endpoint's discover lists the one revision it serves.
	assert.Equal(t, []any{"2026-07-28"}, decodeRPC(t, res.Body).Result["supportedVersions"])
}

// capTools wants the whole call.
type capTools struct{ fakeTools }

func (*capTools) HandleToolCall(_ context.Context, call ToolCall) ([]byte, *Error) {
	if !strings.Contains(string(call.ClientCapabilities), "sampling") {
		return nil, &Error{Code: MissingCapability, Message: "needs sampling", Data: []byte(`{"requiredCapabilities":{"sampling":{}}}`)}
	}
	return []byte(`{"content":[]}`), nil
}

func TestMCPDispatcherCallHandlerErrors(t *testing.T) {
	d := New(&capTools{}, Options{})
	resp := d.Handle(context.Background(), Request{
		Body:   []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo",` + statelessMeta + `}}`),
		Header: statelessHeaders("tools/call", "echo"),
	})
	assert.Equal(t, 400, resp.Status)
	r := decodeRPC(t, resp.Body)
	assert.Equal(t, MissingCapability, r.Error.Code)
	assert.Equal(t, map[string]any{"requiredCapabilities": map[string]any{"sampling": map[string]any{}}}, r.Error.Data)
}

func TestMCPDispatcherExtraMethods(t *testing.T) {
	d := New(&fakeTools{}, Options{
		Capabilities: []byte(`{"tools":{},"prompts":{}}`),
		Methods: map[string]Method{
			"prompts/list": func(context.Context, []byte) ([]byte, *Error) { return []byte(`{"prompts":[]}`), nil },
			"bad":          func(context.Context, []byte) ([]byte, *Error) { panic("x") },
		},
	})
	r := decodeRPC(t, d.Handle(context.Background(), Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"prompts/list","params":{` + statelessMeta + `}}`)}).Body)
	assert.Equal(t, "private", r.Result["cacheScope"])
	assert.Equal(t, []any{}, r.Result["prompts"])
	r = decodeRPC(t, d.Handle(context.Background(), Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"bad"}`)}).Body)
	assert.Equal(t, InternalError, r.Error.Code)
	r = decodeRPC(t, d.Handle(context.Background(), Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`)}).Body)
	assert.Equal(t, map[string]any{"tools": map[string]any{}, "prompts": map[string]any{}}, r.Result["capabilities"])
}

func TestMCPDispatcherMcpNameBase64(t *testing.T) {
	d := New(&fakeTools{}, Options{})
	call := func(name string) Response {
		return d.Handle(context.Background(), Request{
			Body:   []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo",` + statelessMeta + `}}`),
			Header: statelessHeaders("tools/call", name),
		})
	}
	assert.Equal(t, 200, call("=?base64?ZWNobw==?=").Status, "an encoded Mcp-Name is decoded before the comparison")
	resp := call("=?base64?ZWNobA==?=") // "echl"
	assert.Equal(t, 400, resp.Status)
	assert.Equal(t, HeaderMismatch, decodeRPC(t, resp.Body).Error.Code)
	resp = call("=?base64?not base64?=")
	assert.Equal(t, 400, resp.Status)
	assert.Equal(t, HeaderMismatch, decodeRPC(t, resp.Body).Error.Code)
}

func TestMCPDispatcherRefusesDuplicateMembers(t *testing.T) {
	f := &fakeTools{}
	d := New(f, Options{})
	tests := []struct {
		name, body, id string
		code           int
	}{
		{"two ids", `{"jsonrpc":"2.0","id":7,"id":8,"method":"ping"}`, "null", InvalidRequest},
		{"two methods", `{"jsonrpc":"2.0","id":7,"method":"ping","method":"tools/list"}`, "7", InvalidRequest},
		{"two names", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","name":"boom"}}`, "7", InvalidParams},
		{"deep in the arguments", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"a":[{"b":1,"c":{"x":1,"y":2,"x":3}}]}}}`, "7", InvalidParams},
		{"an escaped twin", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"ab":1,"a\u0062":2}}}`, "7", InvalidParams},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := d.Handle(context.Background(), Request{Body: []byte(tc.body)})
			assert.Equal(t, 400, resp.Status)
			r := decodeRPC(t, resp.Body)
			assert.JSONEq(t, tc.id, string(r.ID))
			require.NotNil(t, r.Error)
			assert.Equal(t, tc.code, r.Error.Code)
			assert.Contains(t, r.Error.Message, "appears twice")
		})
	}
	assert.Zero(t, f.calls.Load(), "no tool ran on an ambiguous message")
	// the same keys in different objects, in strings and in many members are fine
	many := strings.Builder{}
	for i := 0; i < 40; i++ {
		many.WriteString(`"k` + strconv.Itoa(i) + `":1,`)
	}
	for _, args := range []string{
		`{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}],"c":"\"a\":1,\"a\":2"}`,
		`{` + many.String() + `"end":true}`,
	} {
		resp := d.Handle(context.Background(), Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":` + args + `}}`)})
		assert.Equal(t, 200, resp.Status, "answer: %s", resp.Body)
		assert.Nil(t, decodeRPC(t, resp.Body).Error)
	}
	many.Reset()
	for i := 0; i < 40; i++ {
		many.WriteString(`"k` + strconv.Itoa(i) + `":1,`)
	}
	resp := d.Handle(context.Background(), Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{` + many.String() + `"k3":2}}}`)})
	assert.Equal(t, 400, resp.Status, "a duplicate among many members (the map path)")
}

func TestMCPDispatcherUnsupportedVersionHeader(t *testing.T) {
	d := New(&fakeTools{}, Options{})
	both := []any{"2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}
	for _, tc := range []struct {
		version   string
		supported []any // every revision the endpoint serves, whichever era the header puts the request in
	}{
		{"1999-01-01", both}, // older than the stateless revision: the session era
		{"2024-11-05", both},
		{"2099-01-01", both}, // the stateless era
		{"v9", both},
		{"", both},
	} {
		v := tc.version
		resp := d.Handle(context.Background(), Request{
			Body:   []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`),
			Header: headers("MCP-Protocol-Version", v),
		})
		assert.Equal(t, 400, resp.Status, "version %q", v)
		r := decodeRPC(t, resp.Body)
		require.NotNil(t, r.Error, "version %q", v)
		assert.Equal(t, UnsupportedProtocol, r.Error.Code, "not a complaint about _meta: %s", resp.Body)
		assert.Equal(t, tc.supported, r.Error.Data["supported"], "version %q", v)
		assert.Equal(t, v, r.Error.Data["requested"])
	}
	// a served session-era version in the header still works
	resp := d.Handle(context.Background(), Request{Body: []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`), Header: headers("MCP-Protocol-Version", "2025-06-18")})
	assert.Equal(t, 200, resp.Status)
}

func TestMCPDispatcherStatelessIgnoresSessionID(t *testing.T) {
	d := New(&fakeTools{}, Options{Sessions: true})
	stateless := d.Handle(context.Background(), Request{
		Body:      []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + statelessMeta + `}}`),
		Header:    statelessHeaders("tools/list", ""),
		SessionID: "stale",
	})
	assert.Equal(t, 200, stateless.Status, "the 2026-07-28 revision ignores Mcp-Session-Id: %s", stateless.Body)
	assert.Empty(t, stateless.SessionID)
	for _, body := range []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`} {
		resp := d.Handle(context.Background(), Request{Body: []byte(body), SessionID: "stale"})
		assert.Equal(t, 404, resp.Status, "a session-era request of an ended session: %s", body)
		assert.Contains(t, string(resp.Body), "send initialize")
	}
	resp := d.Handle(context.Background(), Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`), SessionID: "stale"})
	assert.Equal(t, 200, resp.Status, "initialize with a stale id starts a new session")
	assert.NotEmpty(t, resp.SessionID)
}

// errorCode is the JSON-RPC error code of an answer (0: a result).
func errorCode(t *testing.T, body []byte) int {
	t.Helper()
	if r := decodeRPC(t, body); r.Error != nil {
		return r.Error.Code
	}
	return 0
}

// manyTools lists n tools named t0 … t(n-1).
type manyTools struct {
	fakeTools
	n int
}

func (m *manyTools) ListTools() []byte {
	var b strings.Builder
	b.WriteString("[")
	for i := 0; i < m.n; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"name":"t` + strconv.Itoa(i) + `","inputSchema":{"type":"object"}}`)
	}
	b.WriteString("]")
	return []byte(b.String())
}

func TestMCPDispatcherUnknownToolIsInvalidParams(t *testing.T) {
	f := &fakeTools{}
	d := New(f, Options{})
	tests := []struct {
		name   string
		req    Request
		status int
	}{
		{"session era", Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope","arguments":{}}}`)}, 200},
		{"stateless era", Request{
			Body:   []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope",` + statelessMeta + `}}`),
			Header: statelessHeaders("tools/call", "nope"),
		}, 400},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := d.Handle(context.Background(), tc.req)
			assert.Equal(t, tc.status, resp.Status, "answer: %s", resp.Body)
			r := decodeRPC(t, resp.Body)
			require.NotNil(t, r.Error, "an unknown tool is a protocol error, not a tool result: %s", resp.Body)
			assert.Nil(t, r.Result)
			assert.Equal(t, InvalidParams, r.Error.Code)
			assert.Contains(t, r.Error.Message, `"nope"`)
			assert.Equal(t, "nope", r.Error.Data["tool"])
			assert.Equal(t, []any{"echo", "tagged", "boom", "garbage"}, r.Error.Data["validTools"])
			assert.Equal(t, float64(4), r.Error.Data["validToolCount"])
		})
	}
	assert.Zero(t, f.calls.Load(), "the tool server never saw the unknown name")

	t.Run("the list of valid names is capped", func(t *testing.T) {
		d := New(&manyTools{n: 60}, Options{})
		resp := d.Handle(context.Background(), Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t60"}}`)})
		r := decodeRPC(t, resp.Body)
		require.NotNil(t, r.Error)
		assert.Len(t, r.Error.Data["validTools"], 50)
		assert.Equal(t, float64(60), r.Error.Data["validToolCount"])
		resp = d.Handle(context.Background(), Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t59"}}`)})
		assert.Nil(t, decodeRPC(t, resp.Body).Error, "a listed tool past the cap is still callable")
	})
	t.Run("a tool that appears on ToolsChanged becomes callable", func(t *testing.T) {
		m := &manyTools{n: 1}
		d := New(m, Options{})
		call := Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t1"}}`)}
		assert.Equal(t, InvalidParams, errorCode(t, d.Handle(context.Background(), call).Body))
		m.n = 2
		d.ToolsChanged()
		assert.Nil(t, decodeRPC(t, d.Handle(context.Background(), call).Body).Error)
	})
}

func TestMCPDispatcherSessionIDRequired(t *testing.T) {
	ctx := context.Background()
	d := New(&fakeTools{}, Options{Sessions: true})
	init := func() string {
		resp := d.Handle(ctx, Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`)})
		require.Equal(t, 200, resp.Status, "initialize needs no session id: %s", resp.Body)
		require.NotEmpty(t, resp.SessionID)
		return resp.SessionID
	}
	tests := []struct {
		name   string
		body   string
		header func(string) (string, bool)
		id     string
	}{
		{"ping before initialize", `{"jsonrpc":"2.0","id":7,"method":"ping"}`, nil, "7"},
		{"tools/list", `{"jsonrpc":"2.0","id":"a","method":"tools/list"}`, headers("MCP-Protocol-Version", "2025-11-25"), `"a"`},
		{"tools/call", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo"}}`, nil, "2"},
		{"a notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil, "null"},
		{"a batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, headers("MCP-Protocol-Version", "2025-03-26"), "null"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, when := range []string{"before", "after"} {
				if when == "after" {
					init()
				}
				resp := d.Handle(ctx, Request{Body: []byte(tc.body), Header: tc.header})
				assert.Equal(t, 400, resp.Status, "%s initialize: %s", when, resp.Body)
				r := decodeRPC(t, resp.Body)
				require.NotNil(t, r.Error, "answer: %s", resp.Body)
				assert.Equal(t, InvalidRequest, r.Error.Code)
				assert.Contains(t, r.Error.Message, "Mcp-Session-Id")
				assert.Contains(t, r.Error.Message, "initialize")
				assert.JSONEq(t, tc.id, string(r.ID))
			}
		})
	}
	t.Run("with the id it is served", func(t *testing.T) {
		sid := init()
		resp := d.Handle(ctx, Request{Body: []byte(`{"jsonrpc":"2.0","id":7,"method":"ping"}`), SessionID: sid})
		assert.Equal(t, 200, resp.Status)
	})
	t.Run("the stateless era needs no session id", func(t *testing.T) {
		resp := d.Handle(ctx, Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + statelessMeta + `}}`), Header: statelessHeaders("tools/list", "")})
		assert.Equal(t, 200, resp.Status, "answer: %s", resp.Body)
	})
	t.Run("without sessions no id is needed", func(t *testing.T) {
		d := New(&fakeTools{}, Options{})
		resp := d.Handle(ctx, Request{Body: []byte(`{"jsonrpc":"2.0","id":7,"method":"ping"}`)})
		assert.Equal(t, 200, resp.Status)
	})
}

func TestMCPDispatcherSessionEraVersionHeader(t *testing.T) {
	ctx := context.Background()
	d := New(&fakeTools{}, Options{Sessions: true})
	init := d.Handle(ctx, Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`)})
	require.Equal(t, 200, init.Status)
	sid := init.SessionID
	sessionEra := []any{"2025-03-26", "2025-06-18", "2025-11-25"}
	both := append(append([]any{}, sessionEra...), "2026-07-28") // an endpoint serving both eras lists both
	tests := []struct {
		name       string
		body       string
		version    string // "": no header
		status     int
		negotiated string // the error's data.negotiated ("" none)
	}{
		{"the negotiated version", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, "2025-06-18", 200, ""},
		{"no header: the negotiated version is assumed", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, "", 200, ""},
		{"2024-11-05 is never negotiated", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, "2024-11-05", 400, ""},
		{"an older unknown revision", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, "1999-01-01", 400, ""},
		{"another session-era version than the negotiated one", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, "2025-11-25", 400, "2025-06-18"},
		{"a notification with another version", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "2025-03-26", 400, "2025-06-18"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := Request{Body: []byte(tc.body), SessionID: sid}
			if tc.version != "" {
				req.Header = headers("MCP-Protocol-Version", tc.version)
			}
			resp := d.Handle(ctx, req)
			assert.Equal(t, tc.status, resp.Status, "answer: %s", resp.Body)
			if tc.status == 200 {
				assert.Nil(t, decodeRPC(t, resp.Body).Error)
				return
			}
			r := decodeRPC(t, resp.Body)
			require.NotNil(t, r.Error, "answer: %s", resp.Body)
			assert.Equal(t, UnsupportedProtocol, r.Error.Code, r.Error.Message)
			assert.Equal(t, both, r.Error.Data["supported"], "every revision the endpoint serves")
			assert.Equal(t, tc.version, r.Error.Data["requested"])
			if tc.negotiated != "" {
				assert.Equal(t, tc.negotiated, r.Error.Data["negotiated"])
				assert.Contains(t, r.Error.Message, tc.negotiated)
			}
			if strings.Contains(tc.body, `"id"`) {
				assert.JSONEq(t, "3", string(r.ID))
			}
		})
	}
	t.Run("without sessions a session-era version is checked too", func(t *testing.T) {
		d := New(&fakeTools{}, Options{})
		resp := d.Handle(ctx, Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), Header: headers("MCP-Protocol-Version", "2024-11-05")})
		assert.Equal(t, 400, resp.Status)
		r := decodeRPC(t, resp.Body)
		require.NotNil(t, r.Error)
		assert.Equal(t, UnsupportedProtocol, r.Error.Code)
		assert.Equal(t, both, r.Error.Data["supported"])
		for _, v := range []string{"2025-03-26", "2025-06-18", "2025-11-25"} {
			resp = d.Handle(ctx, Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), Header: headers("MCP-Protocol-Version", v)})
			assert.Equal(t, 200, resp.Status, "without a session any session-era version is fine: %s", v)
		}
	})
	t.Run("a session-only server answers an unknown version with its versions", func(t *testing.T) {
		d := New(&fakeTools{}, Options{Era: "session"})
		resp := d.Handle(ctx, Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), Header: headers("MCP-Protocol-Version", "2099-01-01")})
		assert.Equal(t, 400, resp.Status, "answer: %s", resp.Body)
		r := decodeRPC(t, resp.Body)
		require.NotNil(t, r.Error)
		assert.Equal(t, sessionEra, r.Error.Data["supported"])
	})
}

func TestMCPDispatcherSessionNotFoundCarriesID(t *testing.T) {
	d := New(&fakeTools{}, Options{Sessions: true})
	for _, tc := range []struct{ body, id string }{
		{`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, "7"},
		{`{"jsonrpc":"2.0","id":"x-1","method":"ping"}`, `"x-1"`},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "null"},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, "null"},
	} {
		resp := d.Handle(context.Background(), Request{Body: []byte(tc.body), SessionID: "gone"})
		assert.Equal(t, 404, resp.Status)
		r := decodeRPC(t, resp.Body)
		require.NotNil(t, r.Error)
		assert.Equal(t, SessionNotFound, r.Error.Code)
		assert.JSONEq(t, tc.id, string(r.ID), "body %s", tc.body)
	}
}

func TestMCPDispatcherStatelessRemovedMethodsAreNotFound(t *testing.T) {
	d := New(&fakeTools{}, Options{})
	for _, method := range []string{"ping", "initialize", "logging/setLevel", "x/y"} {
		for _, params := range []string{`{}`, `{` + statelessMeta + `}`} {
			t.Run(method+" "+params, func(t *testing.T) {
				resp := d.Handle(context.Background(), Request{
					Body:   []byte(`{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + params + `}`),
					Header: statelessHeaders(method, ""),
				})
				assert.Equal(t, statusFor(MethodNotFound, true), resp.Status, "answer: %s", resp.Body)
				assert.Equal(t, 404, resp.Status)
				r := decodeRPC(t, resp.Body)
				require.NotNil(t, r.Error)
				assert.Equal(t, MethodNotFound, r.Error.Code, r.Error.Message)
				assert.JSONEq(t, "1", string(r.ID))
			})
		}
	}
	// a served method still needs its _meta
	resp := d.Handle(context.Background(), Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`), Header: statelessHeaders("tools/list", "")})
	assert.Equal(t, 400, resp.Status)
	assert.Equal(t, InvalidParams, errorCode(t, resp.Body))
}
