//go:build !js && !wasip1

// Tests of tool-list change notifications over the HTTP handler: the
// session era's GET stream and the stateless era's subscriptions/listen
// stream see notifications/tools/list_changed after ToolsChanged, tools/list
// serves the new list, bursts coalesce, and a dispatcher without
// ListChanged keeps answering GET 405 and listen -32601.

package mcpserver

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// growingTools serves one tool, or two after grow.
type growingTools struct{ grown atomic.Bool }

func (g *growingTools) ListTools() []byte {
	if g.grown.Load() {
		return []byte(`[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object"}}]`)
	}
	return []byte(`[{"name":"a","inputSchema":{"type":"object"}}]`)
}

func (g *growingTools) CallTool(context.Context, string, []byte) []byte {
	return []byte(`{"content":[]}`)
}

// openStream sends req and returns a reader of its event stream's data
// lines; the stream closes with the test.
func openStream(t *testing.T, req *http.Request) (*http.Response, func() string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				lines <- d
			}
		}
		close(lines)
	}()
	return resp, func() string {
		select {
		case l := <-lines:
			return l // "" once the stream has closed
		case <-time.After(10 * time.Second):
			t.Fatal("no event within 10 s")
			return ""
		}
	}
}

// waitListeners waits until d has n open streams.
func waitListeners(t *testing.T, d *Dispatcher, n int) {
	t.Helper()
	require.Eventually(t, func() bool { return d.Listeners() == n }, 10*time.Second, 5*time.Millisecond)
}

func TestMCPListChangedSessionEraStream(t *testing.T) {
	tools := &growingTools{}
	d := New(tools, Options{Sessions: true, ListChanged: true})
	url := newHTTPForDispatcher(t, d)
	resp, body := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	require.Equal(t, 200, resp.StatusCode)
	assert.Contains(t, body, `"capabilities":{"tools":{"listChanged":true}}`)
	sid := resp.Header.Get("Mcp-Session-Id")

	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	stream, next := openStream(t, req)
	require.Equal(t, 200, stream.StatusCode)
	assert.Equal(t, "text/event-stream", stream.Header.Get("Content-Type"))
	waitListeners(t, d, 1)

	tools.grown.Store(true)
	d.ToolsChanged()
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`, next())
	_, body = post(t, url, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, "Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-11-25")
	assert.Contains(t, body, `"name":"b"`)

	// The session's end ends its stream.
	req, _ = http.NewRequest(http.MethodDelete, url, nil)
	req.Header.Set("Mcp-Session-Id", sid)
	del, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	del.Body.Close()
	require.Equal(t, http.StatusNoContent, del.StatusCode)
	assert.Equal(t, "", next(), "the stream closed")
	waitListeners(t, d, 0)

	for _, c := range []struct {
		name, sid, accept string
		status            int
	}{
		{"unknown session", "nope", "text/event-stream", 404},
		{"no session id", "", "text/event-stream", 400},
		{"not an event stream", sid, "application/json", 406},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, url, nil)
			req.Header.Set("Accept", c.accept)
			if c.sid != "" {
				req.Header.Set("Mcp-Session-Id", c.sid)
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, c.status, resp.StatusCode)
		})
	}
}

func TestMCPListChangedStatelessListen(t *testing.T) {
	tools := &growingTools{}
	d := New(tools, Options{ListChanged: true})
	url := newHTTPForDispatcher(t, d)
	listen := `{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + statelessMeta + `}}`
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(listen))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	stream, next := openStream(t, req)
	require.Equal(t, 200, stream.StatusCode)
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7},"notifications":{"toolsListChanged":true}}}`, next())

	tools.grown.Store(true)
	d.ToolsChanged()
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7}}}`, next())
	_, body := post(t, url, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{`+statelessMeta+`}}`,
		"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/list")
	assert.Contains(t, body, `"name":"b"`)

	// The client going away forgets the listener.
	stream.Body.Close()
	waitListeners(t, d, 0)

	// A listen request without its headers is answered, not streamed.
	resp, body := post(t, url, listen)
	assert.Equal(t, 400, resp.StatusCode, body)
	assert.Contains(t, body, `"id":7`)
}

func TestMCPWithoutListChangedOffersNoStream(t *testing.T) {
	d := New(&growingTools{}, Options{Sessions: true})
	url := newHTTPForDispatcher(t, d)
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	assert.Equal(t, "POST, DELETE", resp.Header.Get("Allow"))

	resp, body := post(t, url, `{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},`+statelessMeta+`}}`,
		"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "subscriptions/listen")
	assert.Equal(t, 404, resp.StatusCode)
	assert.Contains(t, body, `"code":-32601`)
	_, err = d.ListenSession("")
	assert.NotNil(t, err)
}

func TestMCPListenCoalescesAndCloses(t *testing.T) {
	d := New(&growingTools{}, Options{ListChanged: true})
	l, e := d.ListenSession("")
	require.Nil(t, e)
	d.ToolsChanged()
	d.ToolsChanged() // a burst
	msg, err := l.Next(context.Background())
	require.NoError(t, err)
	assert.Contains(t, string(msg), "notifications/tools/list_changed")
	assert.Len(t, l.changed, 0, "the burst made one notification")

	d.ToolsChanged()
	l.Close()
	_, err = l.Next(context.Background())
	assert.ErrorIs(t, err, context.Canceled, "a closed stream sends nothing, a pending change included")
	assert.Equal(t, 0, d.Listeners())
	l.Close() // idempotent
}
