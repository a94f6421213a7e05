// Tests of reading an event-stream answer on after the response: to the
// stream's end when it ends there, and boundedly when it does not.

package mcpclient

import (
	"context"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tailBody is an answer's bytes, then, by tail: the end ("end"), comments
// forever ("endless") or nothing until closed ("silent"). It counts the
// bytes read after the answer and notes whether its end was read before it
// was closed.
type tailBody struct {
	head      *strings.Reader
	tail      string
	after     atomic.Int64
	sawEOF    atomic.Bool
	closed    chan struct{}
	closeOnce sync.Once
}

func (b *tailBody) Read(p []byte) (int, error) {
	if b.head.Len() > 0 {
		return b.head.Read(p)
	}
	switch b.tail {
	case "end":
		b.sawEOF.Store(true)
		return 0, io.EOF
	case "endless":
		select {
		case <-b.closed:
			return 0, bridge.ErrBodyClosed
		default:
		}
		n := copy(p, strings.Repeat(": more\n\n", len(p)/8+1))
		b.after.Add(int64(n))
		return n, nil
	}
	<-b.closed
	return 0, bridge.ErrBodyClosed
}

func (b *tailBody) Close() error {
	b.closeOnce.Do(func() { close(b.closed) })
	return nil
}

func TestEventStreamAnswerIsReadToItsEnd(t *testing.T) {
	const answer = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"ok\":true}}\n\n"
	cases := []struct {
		name, contentType, tail string
		eof                     bool // the end was read before the close
	}{
		{"event stream that ends after the answer", "text/event-stream", "end", true},
		{"event stream that goes on", "text/event-stream", "endless", false},
		{"event stream held open, silent", "text/event-stream", "silent", false},
		{"JSON answer", "application/json", "end", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			head := answer
			if tc.contentType == "application/json" {
				head = `{"jsonrpc":"2.0","id":1,"result":{"ok":true}}`
			}
			body := &tailBody{head: strings.NewReader(head), tail: tc.tail, closed: make(chan struct{})}
			c, err := New(Config{URL: "http://example.invalid/mcp"})
			require.NoError(t, err)
			resp := &bridge.Response{Status: 200, Header: bridge.Header{"content-type": tc.contentType}, Body: body}
			done := make(chan error, 1)
			go func() {
				res, err := c.readAnswer(context.Background(), mcpState{}, "tools/call", 1, resp)
				if err == nil {
					assert.JSONEq(t, `{"ok":true}`, string(res))
				}
				done <- err
			}()
			select {
			case err := <-done:
				require.NoError(t, err)
			case <-time.After(30 * time.Second):
				t.Fatal("the answer was not returned")
			}
			assert.Equal(t, tc.eof, body.sawEOF.Load(), "the stream's end was read")
			select {
			case <-body.closed:
			default:
				t.Error("the body was not closed")
			}
			assert.LessOrEqual(t, body.after.Load(), int64(drainBytes), "read no more than the bound after the answer")
		})
	}
}
