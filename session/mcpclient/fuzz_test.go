package mcpclient

import (
	"bytes"
	"errors"
	"testing"

	"github.com/agentwasm/agentwasm/internal/wire"
)

// FuzzMCPResponse feeds arbitrary bodies, as JSON and as event streams, to
// the MCP answer reader and the tools/call result reader: they must never
// panic, and every failure must be one of the client's error kinds.
func FuzzMCPResponse(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"isError":true,"structuredContent":{"code":"x","message":"y"}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[{"type":"text","text":"{\"code\":7}"}]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required"}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad","data":[1]}}`,
		`{"jsonrpc":"2.0","error":{"code":-32000,"message":"no session"}}`,
		"id: a\ndata:\n\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
		"data: {\"jsonrpc\":\"2.0\",\n" + "data: \"id\":1,\"result\":{\"content\":[]}}\n\n",
		"data: {\"jsonrpc\":\"2.0\",\"id\":\"s\\\"1\",\"method\":\"sampling/\\u0000x\"}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
		"\xef\xbb\xbf: c\r\ndata: {}\r\r",
		`null`, `[]`, `{"id":null,"result":null}`, ``,
	} {
		f.Add(false, []byte(seed))
		f.Add(true, []byte(seed))
	}
	f.Fuzz(func(t *testing.T, sse bool, body []byte) {
		ct := "application/json"
		if sse {
			ct = "text/event-stream; charset=utf-8"
		}
		notes := 0
		answer := func(m *wire.RPCMessage) {
			if a, ok := serverAnswer(m); ok && !wire.Valid(a) {
				t.Fatalf("the answer to a server request is not JSON: %s", a)
			}
		}
		raw, err := decodeAnswer("tools/call", 1, ct, bytes.NewReader(body), 4096, func(*wire.RPCMessage) { notes++ }, answer)
		if err != nil {
			checkMCPErrorKind(t, err)
			return
		}
		if len(raw) == 0 {
			t.Fatalf("an answer with no result and no error")
		}
		res, err := callToolResult("t", raw)
		if err != nil {
			checkMCPErrorKind(t, err)
			var te *ToolError
			if errors.As(err, &te) && (te.Code == "" || !res.IsError) {
				t.Fatalf("a tool error without a code or an isError result: %+v", te)
			}
		}
		var lr wire.MCPListToolsResult
		_ = wire.Unmarshal(raw, &lr)
	})
}

func checkMCPErrorKind(t *testing.T, err error) {
	t.Helper()
	var (
		te *TransportError
		pe *ProtocolError
		ce *ToolError
	)
	if !errors.As(err, &te) && !errors.As(err, &pe) && !errors.As(err, &ce) {
		t.Fatalf("an error of no MCP kind: %T %v", err, err)
	}
}
