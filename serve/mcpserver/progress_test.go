// Tests of progress notifications: a tools/call whose _meta carries a
// progressToken gets notifications/progress through Request.Notify before
// its answer (in both eras), only increasing values, none after the answer,
// none without a token or a transport that can stream.

package mcpserver

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// progressTools reports progress when the call allows it, and keeps the
// last Progress function so a test can call it after the answer.
type progressTools struct {
	fakeTools
	mu   sync.Mutex
	last func(progress, total float64, message string)
	seen bool // the last call had a Progress function
}

func (p *progressTools) HandleToolCall(_ context.Context, call ToolCall) ([]byte, *Error) {
	p.mu.Lock()
	p.last, p.seen = call.Progress, call.Progress != nil
	p.mu.Unlock()
	if call.Progress != nil {
		call.Progress(0, 100, "start")
		call.Progress(50, 100, "")
		call.Progress(40, 100, "backwards") // not an increase: dropped
		call.Progress(100, 0, "done")       // total 0: unknown, omitted
	}
	return []byte(`{"content":[{"type":"text","text":"ok"}]}`), nil
}

// collect is a Notify that records messages.
type collect struct {
	mu   sync.Mutex
	msgs []string
}

func (c *collect) notify(m []byte) {
	c.mu.Lock()
	c.msgs = append(c.msgs, string(m))
	c.mu.Unlock()
}

func (c *collect) all() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.msgs...)
}

func TestMCPDispatcherProgressNotifications(t *testing.T) {
	want := func(token string) []string {
		return []string{
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + token + `,"progress":0,"total":100,"message":"start"}}`,
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + token + `,"progress":50,"total":100}}`,
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + token + `,"progress":100,"message":"done"}}`,
		}
	}
	tests := []struct {
		name   string
		body   string
		header func(string) (string, bool)
		token  string // "": no notifications expected
	}{
		{"session era, a string token", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"progressToken":"tok-1"}}}`, nil, `"tok-1"`},
		{"session era, an integer token", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"progressToken":7}}}`, nil, `7`},
		{"stateless era", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"progressToken":"s","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, statelessHeaders("tools/call", "echo"), `"s"`},
		{"no token", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}`, nil, ""},
		{"a token that is an object", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"progressToken":{}}}}`, nil, ""},
		{"a null token", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"progressToken":null}}}`, nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tools := &progressTools{}
			d := New(tools, Options{})
			c := &collect{}
			resp := d.Handle(context.Background(), Request{Body: []byte(tc.body), Header: tc.header, Notify: c.notify})
			require.Equal(t, 200, resp.Status, "answer: %s", resp.Body)
			assert.Nil(t, decodeRPC(t, resp.Body).Error)
			if tc.token == "" {
				assert.False(t, tools.seen, "no token: no Progress function")
				assert.Empty(t, c.all())
				return
			}
			require.True(t, tools.seen, "a token and a Notify: a Progress function")
			assert.Equal(t, want(tc.token), c.all())
			tools.last(200, 200, "too late")
			assert.Len(t, c.all(), 3, "nothing is sent after the answer")
		})
	}
	t.Run("a transport that cannot stream gets no Progress function", func(t *testing.T) {
		tools := &progressTools{}
		d := New(tools, Options{})
		resp := d.Handle(context.Background(), Request{Body: []byte(tests[0].body)})
		require.Equal(t, 200, resp.Status)
		assert.False(t, tools.seen)
	})
}
