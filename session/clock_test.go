//go:build !js && !wasip1

// Tests on an injected Clock: the 15-second default discovery bound runs at
// once, and the watch waits exactly its backoff on the session's clock.

package session_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/agentwasm/agentwasm/session"
	"github.com/agentwasm/agentwasm/session/mcpclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// manualClock moves only when Advance is called.
type manualClock struct {
	mu      sync.Mutex
	now     time.Time
	pending []*manualTimer
	added   chan time.Duration // each AfterFunc's delay, as it is set
}

type manualTimer struct {
	at   time.Time
	f    func()
	done bool
}

func newManualClock() *manualClock {
	return &manualClock{now: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), added: make(chan time.Duration, 64)}
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	t := &manualTimer{at: c.now.Add(d), f: f}
	c.pending = append(c.pending, t)
	c.mu.Unlock()
	c.added <- d
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		was := !t.done
		t.done = true
		return was
	}
}

// Advance moves the clock by d and runs the timers that came due.
func (c *manualClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []func()
	for _, t := range c.pending {
		if !t.done && !t.at.After(c.now) {
			t.done = true
			due = append(due, t.f)
		}
	}
	c.mu.Unlock()
	for _, f := range due {
		go f()
	}
}

// silentMCP never answers tools/list until its context ends.
type silentMCP struct{}

func (silentMCP) ListTools(ctx context.Context) ([]mcpclient.Tool, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (silentMCP) CallTool(context.Context, string, json.RawMessage) (mcpclient.ToolResult, error) {
	return mcpclient.ToolResult{}, nil
}

func (silentMCP) Close() error { return nil }

// A silent MCP server with the default 15 s discovery bound: the bound is
// set on the session's clock, nothing happens until 15 s have passed on it,
// and then the turn completes on the runtime tools.
func TestDefaultDiscoveryBoundOnAnInjectedClock(t *testing.T) {
	clock := newManualClock()
	tr := session.NewScriptedTransport(session.TextRound("runtime tools only"))
	s := newScripted(t, tr, func(o *session.Options) {
		o.MCPClient = silentMCP{}
		o.Clock = clock
		o.Tools = []session.ToolDefinition{tool("local")}
		o.Execute = &recordingExec{}
	})
	turns := make(chan session.Turn, 1)
	go func() { turns <- s.Chat(context.Background(), "hi") }()

	require.Equal(t, 15*time.Second, <-clock.added, "the default bound, on the session's clock")
	clock.Advance(15*time.Second - time.Millisecond)
	select {
	case <-turns:
		t.Fatal("the turn ended before the bound passed on the session's clock")
	default:
	}
	clock.Advance(time.Millisecond)
	turn := <-turns
	assert.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	assert.Equal(t, "runtime tools only", turn.Text)
	assert.Equal(t, "tools/list did not respond within 15000ms.", s.ToolDiscovery().ErrorMessage)
	require.Len(t, tr.Requests(), 1)
	assert.Equal(t, []string{"local"}, toolNames(tr.Requests()[0].Tools))
}

// The watch waits its backoff on the session's clock: with the defaults
// and a connection that keeps dropping, the delays are 1 s, 2 s, 4 s, each
// waited in full before the next attempt.
func TestWatchBackoffOnAnInjectedClock(t *testing.T) {
	clock := newManualClock()
	mcp := &listeningMCP{fakeMCP: &fakeMCP{list: staticList(studio("honua_studio_set_view", composition, ""))}}
	mcp.conns = []func(context.Context) (mcpclient.NotificationStream, error){dropAt(assert.AnError)}
	three := 3
	statuses := newStatusLog()
	s := newScripted(t, session.NewScriptedTransport(session.TextRound("x")), func(o *session.Options) {
		o.MCPClient = mcp
		o.Clock = clock
		o.ToolDiscoveryTimeout = -1 // no discovery bound: only the watch sets timers
		o.WatchToolListChanged = true
		o.ToolListChangedWatch = &session.WatchOptions{MaxReconnectAttempts: &three, OnStatus: statuses.add}
	})
	t.Cleanup(func() { _ = s.Close() })
	require.Equal(t, session.StatusCompleted, s.Chat(context.Background(), "start").Status)
	for i, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
		got := <-clock.added
		require.Equal(t, want, got, "backoff %d", i+1)
		assert.Len(t, mcp.listenLog(), i+1, "no new attempt before the delay passed")
		clock.Advance(got)
	}
	statuses.waitStatus(t, session.WatchFailed)
	assert.Len(t, mcp.listenLog(), 4, "the first attempt and 3 reconnections")
}
