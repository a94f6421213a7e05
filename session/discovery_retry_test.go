//go:build !js && !wasip1

// Degraded discovery on the manual clock: after a failed or timed-out
// pass, later turns do not wait, passes are retried in the background with
// backoff, and a timeout names the request that hung.

package session_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentwasm/agentwasm/internal/mcp"
	"github.com/agentwasm/agentwasm/session"
	"github.com/agentwasm/agentwasm/session/mcpclient"
	"github.com/agentwasm/agentwasm/testing/fakemcp"
	"github.com/agentwasm/agentwasm/testing/fakeproxy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nextTimer returns the delay of the next timer set on clock.
func nextTimer(t *testing.T, clock *manualClock) time.Duration {
	t.Helper()
	select {
	case d := <-clock.added:
		return d
	case <-time.After(waitBound):
		t.Fatal("no timer was set on the clock")
		return 0
	}
}

// noTimer fails when a timer is set on clock within a short real wait.
func noTimer(t *testing.T, clock *manualClock, why string) {
	t.Helper()
	select {
	case d := <-clock.added:
		t.Fatalf("a %v timer was set: %s", d, why)
	case <-time.After(20 * time.Millisecond):
	}
}

// asyncTurn runs s.Chat on its own goroutine.
func asyncTurn(s *session.Session, text string) <-chan session.Turn {
	turns := make(chan session.Turn, 1)
	go func() { turns <- s.Chat(context.Background(), text) }()
	return turns
}

// turnOf waits for the turn, failing the test past waitBound.
func turnOf(t *testing.T, turns <-chan session.Turn) session.Turn {
	t.Helper()
	select {
	case turn := <-turns:
		return turn
	case <-time.After(waitBound):
		t.Fatal("the turn did not end")
		return session.Turn{}
	}
}

// switchableMCP never answers tools/list (it waits for its context to
// end) until answering is set; then it lists one composition tool.
func switchableMCP(answering *atomic.Bool) *fakeMCP {
	return &fakeMCP{list: func(ctx context.Context) ([]mcpclient.Tool, error) {
		if answering.Load() {
			return []mcpclient.Tool{studio("honua_studio_set_view", composition, "")}, nil
		}
		<-ctx.Done()
		return nil, ctx.Err()
	}}
}

// An MCP server that never answers: turn 1 waits the discovery bound once;
// turn 2 does not wait at all; the retry comes on the clock's schedule (1 s
// after the failure, then 2 s after the next), each a bounded pass of its
// own; when the server answers again, the catalog appears, undegraded, and
// the next turn advertises it.
func TestTimedOutDiscoveryRetriesInTheBackground(t *testing.T) {
	clock := newManualClock()
	var answering atomic.Bool
	mcpc := switchableMCP(&answering)
	var log eventLog
	tr := session.NewScriptedTransport(session.TextRound("fine"))
	s := newScripted(t, tr, func(o *session.Options) {
		o.MCPClient = mcpc
		o.Clock = clock
		o.Tools = []session.ToolDefinition{tool("local")}
		o.Execute = &recordingExec{}
		o.OnEvent = log.add
	})
	t.Cleanup(func() { _ = s.Close() })

	turns := asyncTurn(s, "one")
	require.Equal(t, 15*time.Second, nextTimer(t, clock), "turn 1 waits the bound")
	clock.Advance(15 * time.Second)
	turn := turnOf(t, turns)
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	assert.Equal(t, []string{"local"}, toolNames(tr.Requests()[0].Tools))
	assert.Equal(t, session.ToolDiscoveryReport{ErrorMessage: "tools/list did not respond within 15000ms.", Degraded: true}, s.ToolDiscovery())
	require.Equal(t, time.Second, nextTimer(t, clock), "the first retry is due a second later")
	require.Eventually(t, func() bool { return mcpc.listCount() == 1 }, waitBound, time.Millisecond)

	// Turn 2 ends with the clock standing still: nothing to wait for.
	turn = turnOf(t, asyncTurn(s, "two"))
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	assert.Equal(t, []string{"local"}, toolNames(tr.Requests()[1].Tools))
	assert.Equal(t, 1, mcpc.listCount(), "turn 2 started no pass")
	noTimer(t, clock, "turn 2 sets no discovery bound")

	// The first retry: a bounded pass of its own, which times out too.
	clock.Advance(time.Second - time.Millisecond)
	noTimer(t, clock, "the retry is not due yet")
	clock.Advance(time.Millisecond)
	require.Equal(t, 15*time.Second, nextTimer(t, clock), "the retry's bound")
	require.Eventually(t, func() bool { return mcpc.listCount() == 2 }, waitBound, time.Millisecond)
	clock.Advance(15 * time.Second)
	require.Equal(t, 2*time.Second, nextTimer(t, clock), "the second retry waits twice as long")
	require.Eventually(t, func() bool { return len(log.discoveries()) == 2 }, waitBound, time.Millisecond, "each failed pass is published")

	// The server is back: the second retry brings the catalog in.
	answering.Store(true)
	clock.Advance(2 * time.Second)
	require.Equal(t, 15*time.Second, nextTimer(t, clock), "the second retry's bound")
	require.Eventually(t, func() bool { return len(log.discoveries()) == 3 }, waitBound, time.Millisecond)
	rep := s.ToolDiscovery()
	assert.Equal(t, []string{"honua_studio_set_view"}, rep.Routed)
	assert.Empty(t, rep.ErrorMessage)
	assert.False(t, rep.Degraded)
	noTimer(t, clock, "a successful pass schedules no retry")

	turn = turnOf(t, asyncTurn(s, "three"))
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	assert.Equal(t, []string{"local", "honua_studio_set_view"}, toolNames(tr.Requests()[2].Tools))
	assert.Equal(t, 3, mcpc.listCount(), "a successful pass is cached again")
}

// The retry's backoff on the clock: 1 s, 2 s, 4 s … at most 60 s.
func TestDiscoveryRetryBackoff(t *testing.T) {
	clock := newManualClock()
	mcpc := &fakeMCP{list: func(context.Context) ([]mcpclient.Tool, error) { return nil, errors.New("connection refused") }}
	var log eventLog
	s := newScripted(t, session.NewScriptedTransport(session.TextRound("x")), func(o *session.Options) {
		o.MCPClient = mcpc
		o.Clock = clock
		o.ToolDiscoveryTimeout = -1 // no bound: only the retries set timers
		o.OnEvent = log.add
	})
	t.Cleanup(func() { _ = s.Close() })
	turnOf(t, asyncTurn(s, "one"))
	want := []time.Duration{1, 2, 4, 8, 16, 32, 60, 60}
	for i, w := range want {
		require.Equal(t, w*time.Second, nextTimer(t, clock), "retry %d", i+1)
		clock.Advance(w * time.Second)
		require.Eventually(t, func() bool { return mcpc.listCount() == i+2 }, waitBound, time.Millisecond, "retry %d ran", i+1)
	}
	require.Equal(t, 60*time.Second, nextTimer(t, clock))
	for _, r := range log.discoveries() {
		assert.Equal(t, session.ToolDiscoveryReport{ErrorMessage: "connection refused", Degraded: true}, r)
	}
}

// RefreshTools waits for a pass even while discovery is degraded, and
// restarts the backoff; Close ends the retries (a later turn still looks
// again, unwaited); Reconnect ends the degraded state, so the next turn
// waits for its pass as the first one did.
func TestDegradedDiscoveryRefreshCloseReconnect(t *testing.T) {
	clock := newManualClock()
	var answering atomic.Bool
	mcpc := switchableMCP(&answering)
	s := newScripted(t, session.NewScriptedTransport(session.TextRound("x")), func(o *session.Options) {
		o.MCPClient = mcpc
		o.Clock = clock
	})
	t.Cleanup(func() { _ = s.Close() })
	turns := asyncTurn(s, "one")
	require.Equal(t, 15*time.Second, nextTimer(t, clock))
	clock.Advance(15 * time.Second)
	turnOf(t, turns)
	require.Equal(t, time.Second, nextTimer(t, clock))

	// RefreshTools waits for its own pass (bounded), which fails again.
	refreshed := make(chan error, 1)
	go func() { _, err := s.RefreshTools(context.Background()); refreshed <- err }()
	require.Equal(t, 15*time.Second, nextTimer(t, clock), "RefreshTools's pass is bounded")
	select {
	case err := <-refreshed:
		t.Fatalf("RefreshTools returned before its pass ended: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	clock.Advance(15 * time.Second)
	require.Error(t, <-refreshed)
	require.Equal(t, time.Second, nextTimer(t, clock), "the backoff starts again")
	require.Eventually(t, func() bool { return mcpc.listCount() == 2 }, waitBound, time.Millisecond)

	// Close: the pending retry never runs, and no other is set.
	s.Close()
	clock.Advance(time.Hour)
	noTimer(t, clock, "no retry after Close")
	assert.Equal(t, 2, mcpc.listCount())
	// A turn after Close still looks again, without waiting.
	answering.Store(true)
	turn := turnOf(t, asyncTurn(s, "two"))
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	require.Equal(t, 15*time.Second, nextTimer(t, clock), "the unwaited pass is bounded")
	require.Eventually(t, func() bool { return len(s.ToolDiscovery().Routed) == 1 }, waitBound, time.Millisecond)

	// Reconnect after another failure: the next turn waits for its pass.
	answering.Store(false)
	_, err := refreshWithin(t, s, clock, nil)
	require.Error(t, err)
	require.True(t, s.ToolDiscovery().Degraded)
	require.NoError(t, s.Reconnect(context.Background()))
	turns = asyncTurn(s, "three")
	require.Equal(t, 15*time.Second, nextTimer(t, clock), "the turn after Reconnect waits the bound again")
	select {
	case <-turns:
		t.Fatal("the turn after Reconnect did not wait for discovery")
	case <-time.After(20 * time.Millisecond):
	}
	clock.Advance(15 * time.Second)
	turnOf(t, turns)
}

// refreshWithin runs RefreshTools, letting its 15 s bound pass on clock
// once ready (if not nil) is sent on.
func refreshWithin(t *testing.T, s *session.Session, clock *manualClock, ready <-chan struct{}) (session.ToolDiscoveryReport, error) {
	t.Helper()
	type result struct {
		rep session.ToolDiscoveryReport
		err error
	}
	done := make(chan result, 1)
	go func() { rep, err := s.RefreshTools(context.Background()); done <- result{rep, err} }()
	require.Equal(t, 15*time.Second, nextTimer(t, clock))
	if ready != nil {
		waitFor(t, ready, "the request the server holds")
	}
	clock.Advance(15 * time.Second)
	r := <-done
	return r.rep, r.err
}

// An MCP client that ignores its context: the turn still ends at the
// bound, and a retry that comes due while the listing it gave up on has not
// returned waits for it, so that calls never pile up on a stuck client.
func TestDiscoveryBoundWithAClientThatIgnoresCancellation(t *testing.T) {
	clock := newManualClock()
	release := make(chan struct{})
	mcpc := &fakeMCP{list: func(context.Context) ([]mcpclient.Tool, error) {
		<-release
		return nil, errors.New("late and broken")
	}}
	s := newScripted(t, session.NewScriptedTransport(session.TextRound("x")), func(o *session.Options) {
		o.MCPClient = mcpc
		o.Clock = clock
	})
	t.Cleanup(func() { _ = s.Close() })
	turns := asyncTurn(s, "one")
	require.Equal(t, 15*time.Second, nextTimer(t, clock))
	clock.Advance(15 * time.Second)
	turn := turnOf(t, turns)
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	assert.Equal(t, "tools/list did not respond within 15000ms.", s.ToolDiscovery().ErrorMessage)
	require.Eventually(t, func() bool { return mcpc.listCount() == 1 }, waitBound, time.Millisecond)
	require.Equal(t, time.Second, nextTimer(t, clock))
	clock.Advance(time.Second)
	noTimer(t, clock, "the listing is still out: the retry waits for it")
	assert.Equal(t, 1, mcpc.listCount())

	close(release)
	require.Equal(t, 15*time.Second, nextTimer(t, clock), "once it returned, the retry runs, bounded")
	require.Eventually(t, func() bool { return mcpc.listCount() == 2 }, waitBound, time.Millisecond)
}

// A background pass that succeeds starts the list-changed watch when it is
// asked for.
func TestBackgroundPassStartsTheWatch(t *testing.T) {
	clock := newManualClock()
	var answering atomic.Bool
	lm := &listeningMCP{fakeMCP: switchableMCP(&answering)}
	lm.conns = []func(context.Context) (mcpclient.NotificationStream, error){dropAt(mcpclient.ErrListenUnsupported)}
	s := newScripted(t, session.NewScriptedTransport(session.TextRound("x")), func(o *session.Options) {
		o.MCPClient = lm
		o.Clock = clock
		o.WatchToolListChanged = true
	})
	t.Cleanup(func() { _ = s.Close() })
	turns := asyncTurn(s, "one")
	require.Equal(t, 15*time.Second, nextTimer(t, clock))
	clock.Advance(15 * time.Second)
	turnOf(t, turns)
	assert.Empty(t, lm.listenLog(), "no watch after a failed pass")
	require.Equal(t, time.Second, nextTimer(t, clock))
	answering.Store(true)
	clock.Advance(time.Second)
	require.Eventually(t, func() bool { return len(lm.listenLog()) == 1 }, waitBound, time.Millisecond, "the watch started")
	assert.Equal(t, session.WatchUnsupported, s.ToolWatchStatus())
}

// hangingMCP serves srv, except that a request of method hang is held
// until its client goes; hung is told when one arrives.
func hangingMCP(srv *fakemcp.Server, hang string, hung chan<- struct{}) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if m, ok := mcp.ReadMessage(body); ok && m.Method == hang {
			select {
			case hung <- struct{}{}:
			default:
			}
			<-r.Context().Done()
			return
		}
		srv.ServeHTTP(w, r)
	})
}

// The default MCP client against an endpoint that holds one request: the
// timeout names that request, not tools/list.
func TestDiscoveryTimeoutNamesTheHungRequest(t *testing.T) {
	tools := []json.RawMessage{json.RawMessage(`{"name":"honua_studio_set_view","_meta":{"honua.studio":{"family":"honua.studio.composition"}}}`)}
	for _, tc := range []struct {
		name string
		srv  *fakemcp.Server
		hang string
	}{
		{"the era probe", &fakemcp.Server{Era: fakemcp.Stateless, Tools: tools}, mcp.MethodServerDiscover},
		{"the session-era handshake", &fakemcp.Server{Era: fakemcp.Session, Discover: fakemcp.Discover404, Tools: tools}, mcp.MethodInitialize},
		{"the listing", &fakemcp.Server{Era: fakemcp.Stateless, Tools: tools}, mcp.MethodToolsList},
		{"the listing, session era", &fakemcp.Server{Era: fakemcp.Session, Tools: tools}, mcp.MethodToolsList},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hung := make(chan struct{}, 1)
			mux := http.NewServeMux()
			mux.Handle("/api/mcp", hangingMCP(tc.srv, tc.hang, hung))
			mux.Handle("/", fakeproxy.New(fakeproxy.Reply{Body: fakeproxy.TextStream("x")}))
			clock := newManualClock()
			s := newSession(t, startHandler(t, mux), func(o *session.Options) { o.Clock = clock })
			t.Cleanup(func() { _ = s.Close() })
			rep, err := refreshWithin(t, s, clock, hung)
			require.Error(t, err)
			assert.Equal(t, tc.hang+" did not respond within 15000ms.", rep.ErrorMessage)
			assert.True(t, rep.Degraded)
			assert.Equal(t, rep, s.ToolDiscovery())
		})
	}
}
