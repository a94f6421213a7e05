// Fuzz tests of the client's readers and writers: an answer as a JSON body
// or an event stream, a tools/call result, a tools/list result, a
// notification stream, and the Mcp-Param-* header values of a call's
// arguments.

package mcpclient

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/internal/mcp"
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

// FuzzReadToolList feeds arbitrary tools/list results to ReadToolList: it
// must never panic, a failure returns nothing, and a descriptor it read
// has valid UTF-8 strings and, for each raw member, valid JSON or nothing.
func FuzzReadToolList(f *testing.F) {
	for _, seed := range []string{
		`{"tools":[{"name":"a","inputSchema":{"type":"object"}}],"nextCursor":"n"}`,
		`{"tools":[{"name":"a\u0000"},{"name":" "},{"name":"b","inputSchema":"x"},1,null,{"name":"c","annotations":[]}]}`,
		`{"tools":[{"name":"d","inputSchema":[[[[[[[[]]]]]]]],"_meta":{"x":1}},{"name":"e","description":"\u00e9\xff"}]}`,
		`{"tools":[{"name":7},{"name":"f","title":{}}],"tools":[]}`,
		`{"tools":null,"nextCursor":null}`, `null`, `[]`, `{"tools":[`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tools, cursor, err := ReadToolList(data)
		if err != nil {
			if tools != nil || cursor != "" {
				t.Fatalf("a failed read returned %d tools and the cursor %q", len(tools), cursor)
			}
			return
		}
		if !utf8.ValidString(cursor) {
			t.Fatalf("the cursor %q is not UTF-8", cursor)
		}
		for _, tl := range tools {
			if tl.Unreadable != "" {
				continue
			}
			for _, s := range []string{tl.Name, tl.Title, tl.Description} {
				if !utf8.ValidString(s) {
					t.Fatalf("a descriptor read with a string that is not UTF-8: %q", s)
				}
			}
			for _, raw := range [][]byte{tl.InputSchema, tl.OutputSchema, tl.Annotations, tl.Meta} {
				if len(raw) > 0 && !wire.Valid(raw) {
					t.Fatalf("a descriptor of %q read with a member that is not JSON: %q", tl.Name, raw)
				}
			}
		}
	})
}

// FuzzParamHeaderValues feeds arbitrary arguments to the Mcp-Param-*
// header values of a stateless-era tools/call: every value sent is
// header-safe (visible ASCII with inner spaces and tabs), and decodes back
// to the string, integer or boolean the arguments hold at its path.
func FuzzParamHeaderValues(f *testing.F) {
	for _, seed := range []string{
		`{"s":"us-west1","o":{"i":42},"b":true}`, `{"s":"Hello, 世界"}`, `{"s":" padded "}`,
		`{"s":"line1\nline2"}`, `{"s":"=?base64?literal?="}`, `{"o":{"i":42.0}}`,
		`{"s":null,"o":{"i":1.5},"b":9007199254740993}`, `{"o":"x"}`, `{"s":"\u0000\t"}`, `{"o":{"i":-0}}`, `[]`, ``,
	} {
		f.Add([]byte(seed))
	}
	hs := []mcp.ParamHeader{{Path: []string{"s"}, Name: "S"}, {Path: []string{"o", "i"}, Name: "Deep-I"}, {Path: []string{"b"}, Name: "B"}}
	f.Fuzz(func(t *testing.T, args []byte) {
		got := paramHeaderValues(hs, args)
		for _, h := range hs {
			name := strings.ToLower(mcp.HeaderParamPrefix + h.Name)
			v, ok := got[name]
			if !ok {
				continue
			}
			if v != strings.TrimSpace(v) && v != "" {
				t.Fatalf("%s: %q has outer white space", name, v)
			}
			for i := 0; i < len(v); i++ {
				if b := v[i]; b != ' ' && b != '\t' && (b < 0x21 || b > 0x7e) {
					t.Fatalf("%s: %q is not header-safe", name, v)
				}
			}
			dec, err := mcp.DecodeHeaderValue(v)
			if err != nil {
				t.Fatalf("%s: %q does not decode: %v", name, v, err)
			}
			arg := mcp.ArgumentAt(args, h.Path)
			switch {
			case arg[0] == '"':
				if s, err := wire.DecodeString(arg); err != nil || s != dec {
					t.Fatalf("%s: %q decodes to %q, the argument is %s", name, v, dec, arg)
				}
			case string(arg) == "true" || string(arg) == "false":
				if dec != string(arg) {
					t.Fatalf("%s: %q for the argument %s", name, dec, arg)
				}
			default:
				n, err := strconv.ParseInt(dec, 10, 64)
				if err != nil || n > maxSafeInteger || n < -maxSafeInteger {
					t.Fatalf("%s: %q for the argument %s is not a safe integer", name, dec, arg)
				}
			}
		}
		if len(got) > len(hs) {
			t.Fatalf("more headers than annotations: %v", got)
		}
	})
}

// FuzzListenStream reads arbitrary event streams as a notification stream,
// in both eras: Next never panics, yields only notifications (a method),
// hands the answerer only server requests (session era), and ends with an
// error, never looping past the stream's end.
func FuzzListenStream(f *testing.F) {
	for _, seed := range []string{
		"id: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n",
		"data: {\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\"}\n\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n",
		"data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n", "data: {\"jsonrpc\":\"2.0\",\"id\": 7 ,\"error\":{\"code\":-1,\"message\":\"x\"}}\n\n",
		"data: {}\n\ndata: [1]\n\n: c\r\nretry: 5\r\r", "data: {\"method\":\"\",\"id\":null}\n\n", ``,
	} {
		f.Add(false, []byte(seed))
		f.Add(true, []byte(seed))
	}
	f.Fuzz(func(t *testing.T, stateless bool, body []byte) {
		s := &ListenStream{body: io.NopCloser(bytes.NewReader(nil)), r: bridge.NewSSEReader(bytes.NewReader(body), 4096), stop: func() bool { return true }}
		if stateless {
			s.id = "7"
		} else {
			s.answer = func(m *wire.RPCMessage) {
				if m.Method == "" || len(m.ID) == 0 {
					t.Fatalf("answered a message that is not a request: %+v", m)
				}
			}
		}
		for i := 0; ; i++ {
			if i > len(body) {
				t.Fatalf("more than %d notifications from %d bytes", i, len(body))
			}
			method, _, err := s.Next()
			if err != nil {
				return
			}
			if method == "" {
				t.Fatal("a notification without a method")
			}
		}
	})
}
