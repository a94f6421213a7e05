//go:build !js && !wasip1

// The trace context in params._meta: merged into the _meta a message has,
// its other keys kept; params created when absent; bodies it cannot read
// left as they are. And how a request's error is classified for its span.

package mcpclient

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWithTraceMeta(t *testing.T) {
	const tp = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	kv := []string{"traceparent", tp, "tracestate", "vendor=1"}
	meta := `{"traceparent":"` + tp + `","tracestate":"vendor=1"}`
	cases := []struct{ name, body, want string }{
		{"no params",
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized","params":{"_meta":` + meta + `}}`},
		{"params without _meta",
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"a","arguments":{"x":1}}}`,
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"a","arguments":{"x":1},"_meta":` + meta + `}}`},
		{"_meta with other keys",
			`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"a","_meta":{"progressToken":7,"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
			`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"a","_meta":{"progressToken":7,"io.modelcontextprotocol/protocolVersion":"2026-07-28","traceparent":"` + tp + `","tracestate":"vendor=1"}}}`},
		{"an older traceparent replaced",
			`{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":{"traceparent":"old"}}}`,
			`{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":` + meta + `}}`},
		{"null params and _meta",
			`{"jsonrpc":"2.0","id":6,"method":"tools/list","params":null}`,
			`{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"_meta":` + meta + `}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.JSONEq(t, c.want, string(withTraceMeta([]byte(c.body), kv...)))
		})
	}
	for _, body := range []string{`[1,2]`, `{"params":[1]}`, `{"params":{"_meta":"x"}}`, `not json`} {
		assert.Equal(t, body, string(withTraceMeta([]byte(body), kv...)), "left as it is")
	}
	assert.Equal(t, `{"a":1}`, string(withTraceMeta([]byte(`{"a":1}`))), "nothing to write")
}

func TestRequestErrorType(t *testing.T) {
	cases := []struct {
		err  error
		want string
		rpc  bool
	}{
		{&ProtocolError{Method: "tools/call", Code: -32602, Message: "bad"}, "-32602", true},
		{&TransportError{Method: "tools/list", Status: 503, Msg: "down"}, "503", false},
		{&TransportError{Method: "tools/list", Msg: "could not reach"}, "transport_error", false},
		{ctxError(canceled(), "tools/call"), "cancelled", false},
		{errors.New("other"), "transport_error", false},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, errorType(c.err), c.err.Error())
		assert.Equal(t, c.rpc, isRPCError(c.err), c.err.Error())
	}
}

// canceled returns a cancelled context.
func canceled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}
