// Tests of the session table: last use is tracked per session; a full
// table evicts only sessions idle for SessionIdle or longer (and ends their
// notification streams), and refuses initialize with 503 and a retry delay
// when none can go.

package mcpserver

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeClock is an injectable clock.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func TestMCPSessionTableEvictsOnlyIdleSessions(t *testing.T) {
	ctx := context.Background()
	clock := &fakeClock{now: time.Unix(1_000_000, 0)}
	d := New(&fakeTools{}, Options{Sessions: true, ListChanged: true, MaxSessions: 3, SessionIdle: time.Minute, Now: clock.Now})
	initialize := func() Response {
		return d.Handle(ctx, Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`)})
	}
	ping := func(sid string) int {
		return d.Handle(ctx, Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), SessionID: sid}).Status
	}
	var sids []string
	for i := 0; i < 3; i++ {
		resp := initialize()
		require.Equal(t, 200, resp.Status)
		sids = append(sids, resp.SessionID)
	}
	a, b, c := sids[0], sids[1], sids[2]
	stream, e := d.ListenSession(c)
	require.Nil(t, e)

	clock.advance(30 * time.Second)
	require.Equal(t, 200, ping(a), "a is used 30 s in")

	// Full, and no session idle for a minute yet: refused, nobody evicted.
	resp := initialize()
	assert.Equal(t, 503, resp.Status, "answer: %s", resp.Body)
	assert.Empty(t, resp.SessionID)
	assert.Equal(t, 30, resp.RetryAfter, "b and c may go in 30 s")
	r := decodeRPC(t, resp.Body)
	require.NotNil(t, r.Error)
	assert.Equal(t, ServerBusy, r.Error.Code)
	assert.Contains(t, r.Error.Message, "retry")
	assert.JSONEq(t, "1", string(r.ID))
	for _, sid := range sids {
		assert.Equal(t, 200, ping(sid), "a refused initialize evicts nobody")
	}

	// Those pings were uses: a minute later than them, all may go …
	clock.advance(59 * time.Second)
	resp = initialize()
	assert.Equal(t, 503, resp.Status)
	assert.Equal(t, 1, resp.RetryAfter)
	require.Equal(t, 200, ping(a), "a is used again")

	// … but a was just used: only b and c go, and c's stream ends with it.
	clock.advance(time.Second)
	resp = initialize()
	require.Equal(t, 200, resp.Status, "answer: %s", resp.Body)
	assert.Equal(t, 200, ping(a), "a session used recently is never evicted")
	assert.Equal(t, 404, ping(b))
	assert.Equal(t, 404, ping(c))
	ended, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err := stream.Next(ended)
	assert.ErrorIs(t, err, context.Canceled, "the evicted session's stream ended")
	assert.Zero(t, d.Listeners())
	resp = initialize()
	assert.Equal(t, 200, resp.Status, "room for one more")
	assert.Equal(t, 503, initialize().Status, "and then full again")
}

func TestMCPSessionTableDefaults(t *testing.T) {
	d := New(&fakeTools{}, Options{Sessions: true})
	assert.Equal(t, 4096, d.opts.MaxSessions)
	assert.Equal(t, 10*time.Minute, d.opts.SessionIdle)
	require.NotNil(t, d.opts.Now)
}
