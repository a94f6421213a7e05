package mcp

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every message and result this package writes, byte for byte.
func TestWriters(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  []byte
		want string // byte for byte
	}{
		{"request", RequestBody([]byte("7"), "tools/list", []byte(`{"cursor":"c"}`)),
			`{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"c"}}`},
		{"request without params", RequestBody([]byte(`"ping-1"`), "ping", nil),
			`{"jsonrpc":"2.0","id":"ping-1","method":"ping"}`},
		{"a method that needs escaping", RequestBody([]byte("1"), "we\"ird\n", nil),
			`{"jsonrpc":"2.0","id":1,"method":"we\"ird\n"}`},
		{"notification", NotificationBody("notifications/initialized", nil),
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{"notification with params", NotificationBody("notifications/progress", []byte(`{"progress":1}`)),
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`},
		{"result", ResultBody([]byte(`"a"`), []byte(`{}`)),
			`{"jsonrpc":"2.0","id":"a","result":{}}`},
		{"error", ErrorBody([]byte("3"), MethodNotFound, "method not found: x", nil),
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"method not found: x"}}`},
		{"error with data", ErrorBody([]byte("3"), InvalidParams, `a "quoted" name`, []byte(`{"tool":"x"}`)),
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"a \"quoted\" name","data":{"tool":"x"}}}`},
		{"error of no known id", ErrorBody(nil, ParseError, "parse error", nil),
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`},
		{"list changed, session era", ListChangedNotification(nil),
			`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`},
		{"list changed, stateless era", ListChangedNotification([]byte(`"sub-1"`)),
			`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"sub-1"}}}`},
		{"acknowledged", AcknowledgedNotification([]byte(`4`)),
			`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":4},"notifications":{"toolsListChanged":true}}}`},
		{"meta", SubscriptionMeta([]byte(`4`)), `{"io.modelcontextprotocol/subscriptionId":4}`},
		{"text", ToolResult("hi", nil, false), `{"content":[{"type":"text","text":"hi"}]}`},
		{"empty text", ToolResult("", nil, false), `{"content":[{"type":"text","text":""}]}`},
		{"structured, an error", ToolResult(`{"a":"b"}`, []byte(`{"a":"b"}`), true),
			`{"content":[{"type":"text","text":"{\"a\":\"b\"}"}],"structuredContent":{"a":"b"},"isError":true}`},
		{"unsupported version", UnsupportedVersionData(SessionVersions(), "v9"),
			`{"supported":["2025-03-26","2025-06-18","2025-11-25"],"requested":"v9"}`},
		{"unsupported version, none requested", UnsupportedVersionData([]string{"2026-07-28"}, ""),
			`{"supported":["2026-07-28"],"requested":""}`},
		{"no strings", AppendStrings(nil, nil), `[]`},
		{"strings appended", AppendStrings([]byte("x"), []string{"a\"", "b"}), `x["a\"","b"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, string(tc.got))
			if tc.name != "strings appended" {
				assert.True(t, json.Valid(tc.got), "one JSON value")
			}
		})
	}
}
