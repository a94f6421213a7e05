//go:build !js && !wasip1

// The list-changed watch: one refresh per burst, an unsupported server, the
// reconnect budget, resuming with the last event id, and Close aborting
// it.

package session_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/agentwasm/agentwasm/session"
	"github.com/agentwasm/agentwasm/session/mcpclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// listeningMCP is a fakeMCP that also streams notifications: each Listen
// takes the next scripted connection.
type listeningMCP struct {
	*fakeMCP
	mu      sync.Mutex
	conns   []func(ctx context.Context) (mcpclient.NotificationStream, error)
	listens []string // the lastEventID of each Listen
}

func (l *listeningMCP) Listen(ctx context.Context, lastEventID string) (mcpclient.NotificationStream, error) {
	l.mu.Lock()
	n := len(l.listens)
	l.listens = append(l.listens, lastEventID)
	conn := l.conns[min(n, len(l.conns)-1)]
	l.mu.Unlock()
	return conn(ctx)
}

func (l *listeningMCP) listenLog() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.listens...)
}

// chanStream yields what is sent on ch, io.EOF when ch closes, and an
// error once closed.
type chanStream struct {
	ctx  context.Context
	ch   chan mcpclient.Notification
	once sync.Once
	done chan struct{}
}

func newChanStream(ctx context.Context) *chanStream {
	return &chanStream{ctx: ctx, ch: make(chan mcpclient.Notification, 8), done: make(chan struct{})}
}

func (c *chanStream) Next() (mcpclient.Notification, error) {
	select {
	case n, ok := <-c.ch:
		if !ok {
			return mcpclient.Notification{}, io.EOF
		}
		return n, nil
	case <-c.done:
		return mcpclient.Notification{}, errors.New("closed")
	}
}

func (c *chanStream) Close() error { c.once.Do(func() { close(c.done) }); return nil }

func dropAt(err error) func(context.Context) (mcpclient.NotificationStream, error) {
	return func(context.Context) (mcpclient.NotificationStream, error) { return nil, err }
}

// watchedSession starts a session with a watch and runs one turn, so the
// first discovery pass starts the watch.
func watchedSession(t *testing.T, mcp *listeningMCP, w *session.WatchOptions, statuses *statusLog) *session.Session {
	t.Helper()
	if w == nil {
		w = &session.WatchOptions{}
	}
	w.OnStatus = statuses.add
	s := newScripted(t, session.NewScriptedTransport(session.TextRound("x")), func(o *session.Options) {
		o.MCPClient = mcp
		o.WatchToolListChanged = true
		o.ToolListChangedWatch = w
	})
	t.Cleanup(func() { _ = s.Close() })
	require.Equal(t, session.StatusCompleted, s.Chat(context.Background(), "start").Status)
	return s
}

type statusLog struct {
	mu  sync.Mutex
	all []string
	ch  chan string
}

func newStatusLog() *statusLog { return &statusLog{ch: make(chan string, 64)} }

func (l *statusLog) add(status, _ string) {
	l.mu.Lock()
	l.all = append(l.all, status)
	l.mu.Unlock()
	l.ch <- status
}

// waitStatus waits until the watch reports status.
func (l *statusLog) waitStatus(t *testing.T, status string) {
	t.Helper()
	bound := time.After(waitBound)
	for {
		select {
		case s := <-l.ch:
			if s == status {
				return
			}
		case <-bound:
			t.Fatalf("the watch never reported %s (saw %v)", status, l.list())
		}
	}
}

func (l *statusLog) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.all...)
}

func TestWatchListChangedRefreshesOnce(t *testing.T) {
	var stream *chanStream
	opened := make(chan struct{}, 1)
	version := 1
	var mu sync.Mutex
	mcp := &listeningMCP{fakeMCP: &fakeMCP{list: func(context.Context) ([]mcpclient.Tool, error) {
		mu.Lock()
		defer mu.Unlock()
		return []mcpclient.Tool{studio(fmt.Sprintf("honua_studio_v%d", version), composition, "")}, nil
	}}}
	mcp.conns = []func(context.Context) (mcpclient.NotificationStream, error){func(ctx context.Context) (mcpclient.NotificationStream, error) {
		stream = newChanStream(ctx)
		opened <- struct{}{}
		return stream, nil
	}}
	statuses := newStatusLog()
	s := watchedSession(t, mcp, nil, statuses)
	<-opened
	statuses.waitStatus(t, session.WatchOpen)
	mu.Lock()
	version = 2
	mu.Unlock()
	stream.ch <- mcpclient.Notification{Method: "notifications/message"}
	stream.ch <- mcpclient.Notification{Method: session.NotificationToolsListChanged, EventID: "e1"}
	require.Eventually(t, func() bool { return mcp.listCount() == 2 }, waitBound, time.Millisecond)
	require.Eventually(t, func() bool { return len(s.Tools()) == 1 && s.Tools()[0].Name == "honua_studio_v2" }, waitBound, time.Millisecond)
	assert.Len(t, mcp.listenLog(), 1, "still one stream")
	assert.Equal(t, session.WatchOpen, s.ToolWatchStatus())
}

func TestWatchUnsupported(t *testing.T) {
	mcp := &listeningMCP{fakeMCP: &fakeMCP{list: staticList(studio("honua_studio_set_view", composition, ""))}}
	mcp.conns = []func(context.Context) (mcpclient.NotificationStream, error){dropAt(fmt.Errorf("GET /mcp answered 405: %w", mcpclient.ErrListenUnsupported))}
	statuses := newStatusLog()
	s := watchedSession(t, mcp, &session.WatchOptions{InitialDelay: time.Millisecond}, statuses)
	statuses.waitStatus(t, session.WatchUnsupported)
	assert.Len(t, mcp.listenLog(), 1, "no retries")
	assert.Equal(t, []string{"honua_studio_set_view"}, toolNames(s.Tools()), "the catalog is kept")
}

func TestWatchBudget(t *testing.T) {
	mcp := &listeningMCP{fakeMCP: &fakeMCP{list: staticList(studio("honua_studio_set_view", composition, ""))}}
	mcp.conns = []func(context.Context) (mcpclient.NotificationStream, error){dropAt(errors.New("connection reset"))}
	two := 2
	statuses := newStatusLog()
	s := watchedSession(t, mcp, &session.WatchOptions{InitialDelay: time.Millisecond, MaxDelay: 4 * time.Millisecond, MaxReconnectAttempts: &two}, statuses)
	statuses.waitStatus(t, session.WatchFailed)
	assert.Len(t, mcp.listenLog(), 3, "exactly 3 attempts")
	assert.Equal(t, session.WatchFailed, s.ToolWatchStatus())
	assert.Equal(t, []string{"connecting", "reconnecting", "failed"}, dedupe(statuses.list()))
}

func TestWatchResumesWithLastEventID(t *testing.T) {
	mcp := &listeningMCP{fakeMCP: &fakeMCP{list: staticList(studio("honua_studio_set_view", composition, ""))}}
	first := true
	mcp.conns = []func(context.Context) (mcpclient.NotificationStream, error){func(ctx context.Context) (mcpclient.NotificationStream, error) {
		st := newChanStream(ctx)
		if first {
			first = false
			st.ch <- mcpclient.Notification{Method: "notifications/progress", EventID: "41"}
			close(st.ch) // then the server drops it
		}
		return st, nil
	}}
	statuses := newStatusLog()
	watchedSession(t, mcp, &session.WatchOptions{InitialDelay: time.Millisecond}, statuses)
	require.Eventually(t, func() bool { return len(mcp.listenLog()) == 2 }, waitBound, time.Millisecond)
	assert.Equal(t, []string{"", "41"}, mcp.listenLog())
}

func TestCloseAbortsTheWatch(t *testing.T) {
	mcp := &listeningMCP{fakeMCP: &fakeMCP{list: staticList(studio("honua_studio_set_view", composition, ""))}}
	var stream *chanStream
	mcp.conns = []func(context.Context) (mcpclient.NotificationStream, error){func(ctx context.Context) (mcpclient.NotificationStream, error) {
		stream = newChanStream(ctx)
		return stream, nil
	}}
	statuses := newStatusLog()
	s := watchedSession(t, mcp, nil, statuses)
	statuses.waitStatus(t, session.WatchOpen)
	s.Close()
	s.Close() // idempotent
	statuses.waitStatus(t, session.WatchClosed)
	select {
	case <-stream.done:
	case <-time.After(waitBound):
		t.Fatal("the stream was not aborted")
	}
	assert.Equal(t, session.WatchClosed, s.ToolWatchStatus())
	assert.Equal(t, session.StatusCompleted, s.Chat(context.Background(), "still chatting").Status)
	_, _ = s.RefreshTools(context.Background())
	time.Sleep(5 * time.Millisecond)
	assert.Len(t, mcp.listenLog(), 1, "a closed session starts no watch")
}

func dedupe(in []string) []string {
	var out []string
	for _, s := range in {
		if len(out) == 0 || out[len(out)-1] != s {
			out = append(out, s)
		}
	}
	return out
}
