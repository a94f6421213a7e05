// Tests of the port's progress notifications: a tools/call whose _meta
// carries a progressToken hears that the call started, waits for its fire
// to settle, and hears how it ended before the answer; without a token it
// hears nothing.

package serve

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/agentwasm/agentwasm/serve/mcpserver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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

func TestMCPPortReportsProgressWhileSettling(t *testing.T) {
	d, _, release := mcpShop(t, 5*time.Second, nil)
	notes := make(chan string, 8)
	done := make(chan mcpserver.Response, 1)
	go func() {
		done <- d.Handle(context.Background(), mcpserver.Request{
			Body:   []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shop.do_action","arguments":{"action":"cart.slow"},"_meta":{"progressToken":"p"}}}`),
			Notify: func(m []byte) { notes <- string(m) },
		})
	}()
	var first string
	select {
	case first = <-notes:
	case <-time.After(5 * time.Second):
		t.Fatal("no progress before the fire settled")
	}
	assert.Contains(t, first, `"progressToken":"p","progress":0`)
	select {
	case resp := <-done:
		t.Fatalf("answered before the fire settled: %s", resp.Body)
	default:
	}
	close(release)
	resp := <-done
	require.Equal(t, 200, resp.Status)
	assert.Contains(t, string(resp.Body), `\"effectStatus\":\"performed\"`)
	require.Len(t, notes, 1)
	last := <-notes
	assert.Contains(t, last, `"progress":1,"total":1`)
	assert.Contains(t, last, `settled`)

	t.Run("without a token, no progress", func(t *testing.T) {
		d, _, _ := mcpShop(t, time.Second, nil)
		c := &collect{}
		resp := d.Handle(context.Background(), mcpserver.Request{
			Body:   []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shop.do_action","arguments":{"action":"cart.add","input":{"sku":"a"}}}}`),
			Notify: c.notify,
		})
		require.Equal(t, 200, resp.Status)
		assert.Empty(t, c.all())
	})
}
