// The list-changed watch: after a successful discovery pass, the session
// listens for the MCP server's notifications/tools/list_changed and runs
// one more discovery pass for each burst of them, reconnecting with
// bounded backoff when the stream drops.

package session

import (
	"context"
	"errors"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/session/mcpclient"
)

// MCPListener is implemented by MCP clients that can stream the server's
// notifications: in the session era a GET on the MCP endpoint, in the
// stateless era a subscriptions/listen request for tool-list changes.
// lastEventID, when not empty, resumes after that event. A server that
// offers no such stream (405 or 501) makes Listen return an error wrapping
// mcpclient.ErrListenUnsupported. Requests the server sends on the stream
// are the listener's to answer (mcpclient.Client answers a session-era
// ping, and any other method with "method not found"); they never come
// out of the stream.
//
// With Options.WatchToolListChanged the session calls Listen from the
// watch's own goroutine after a successful discovery pass, concurrently
// with the client's other calls (see MCPClient), with a context that Close
// and Reconnect end. One goroutine reads the stream's Next; Close may come
// from another while Next blocks (when that context ends), and more than
// once. A notifications/tools/list_changed starts a discovery pass, and
// those that come while it runs queue one pass more; other notifications
// are ignored.
// An error wrapping mcpclient.ErrListenUnsupported ends the watch for good
// (status "unsupported"); any other error from Listen or Next, or io.EOF,
// is a drop: Listen is called again after a backoff, with the EventID of
// the last notification that carried one, until the reconnect budget
// (WatchOptions.MaxReconnectAttempts) is spent.
type MCPListener interface {
	Listen(ctx context.Context, lastEventID string) (mcpclient.NotificationStream, error)
}

// NotificationToolsListChanged is the one notification the watch acts on.
const NotificationToolsListChanged = "notifications/tools/list_changed"

// Watch statuses (ToolWatchStatus, and the toolWatch event).
const (
	WatchIdle         = "idle"
	WatchConnecting   = "connecting"
	WatchOpen         = "open"
	WatchReconnecting = "reconnecting"
	WatchUnsupported  = "unsupported" // final: the server offers no stream
	WatchFailed       = "failed"      // final: the reconnect budget ran out
	WatchClosed       = "closed"      // final: Close was called
)

// EventTypeToolWatch carries one watch status change (Event.WatchStatus,
// Event.WatchDetail).
const EventTypeToolWatch EventType = "toolWatch"

// watchState is guarded by Session.mu.
type watchState struct {
	status  string
	live    bool
	runs    int // numbers watch runs, so a stopped run does not clear a newer one
	closed  bool
	cancel  context.CancelFunc
	refresh refresher
}

// refresher coalesces list-changed bursts: at most one pass running and
// one queued.
type refresher struct {
	mu      sync.Mutex
	running bool
	queued  bool
}

// ToolWatchStatus returns the watch's status ("idle" before it started).
func (s *Session) ToolWatchStatus() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.watch.status == "" {
		return WatchIdle
	}
	return s.watch.status
}

// maybeStartWatch starts the watch after a successful published pass, when
// it is asked for, possible, and not already live.
func (s *Session) maybeStartWatch() {
	if !s.opts.WatchToolListChanged || s.opts.DisableToolDiscovery {
		return
	}
	l, ok := s.opts.MCPClient.(MCPListener)
	if !ok {
		return
	}
	s.mu.Lock()
	if s.watch.closed || s.watch.live {
		s.mu.Unlock()
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.watch.runs++
	s.watch.live, s.watch.cancel = true, cancel
	run := s.watch.runs
	s.mu.Unlock()
	go s.runWatch(ctx, l, run)
}

// stopWatch ends a live watch without closing the session (Reconnect).
func (s *Session) stopWatch() {
	s.mu.Lock()
	cancel := s.watch.cancel
	s.watch.cancel, s.watch.live = nil, false
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

func (s *Session) setWatchStatus(status, detail string) {
	s.mu.Lock()
	if s.watch.status == status || isFinalWatch(s.watch.status) {
		s.mu.Unlock()
		return
	}
	s.watch.status = status
	s.mu.Unlock()
	if w := s.opts.ToolListChangedWatch; w != nil && w.OnStatus != nil {
		func() {
			defer func() { _ = recover() }()
			w.OnStatus(status, detail)
		}()
	}
	s.emit(Event{Type: EventTypeToolWatch, WatchStatus: status, WatchDetail: detail})
}

func isFinalWatch(status string) bool {
	return status == WatchUnsupported || status == WatchFailed || status == WatchClosed
}

// watchParams are the backoff settings with defaults filled in.
type watchParams struct {
	initial, max, stable time.Duration
	factor               float64
	budget               int
}

func (s *Session) watchParams() watchParams {
	p := watchParams{initial: time.Second, factor: 2, max: 30 * time.Second, budget: 5}
	if w := s.opts.ToolListChangedWatch; w != nil {
		if w.InitialDelay > 0 {
			p.initial = w.InitialDelay
		}
		if w.Factor > 0 {
			p.factor = w.Factor
		}
		if w.MaxDelay > 0 {
			p.max = w.MaxDelay
		}
		if w.MaxReconnectAttempts != nil {
			p.budget = *w.MaxReconnectAttempts
		}
		p.stable = w.StableStream
	}
	if p.stable == 0 {
		p.stable = p.max
	}
	return p
}

// delay is min(initial·factor^attempt, max).
func (p watchParams) delay(attempt int) time.Duration {
	d := float64(p.initial)
	for range attempt {
		d *= p.factor
		if d >= float64(p.max) {
			return p.max
		}
	}
	return min(time.Duration(d), p.max)
}

// runWatch connects, reads, and reconnects until the budget runs out, the
// server says it has no stream, or ctx ends.
func (s *Session) runWatch(ctx context.Context, l MCPListener, run int) {
	defer func() {
		s.mu.Lock()
		if s.watch.runs == run {
			s.watch.live = false
		}
		s.mu.Unlock()
	}()
	p := s.watchParams()
	lastID := ""
	attempt := 0 // reconnects since the stream was last healthy
	for {
		if ctx.Err() != nil {
			return
		}
		if attempt == 0 {
			s.setWatchStatus(WatchConnecting, "")
		}
		healthy, err := s.listenOnce(ctx, l, &lastID, p.stable)
		if ctx.Err() != nil {
			return
		}
		if errors.Is(err, mcpclient.ErrListenUnsupported) {
			s.setWatchStatus(WatchUnsupported, err.Error())
			return
		}
		if healthy {
			attempt = 0
		}
		if attempt >= p.budget {
			detail := "the stream ended"
			if err != nil {
				detail = err.Error()
			}
			s.setWatchStatus(WatchFailed, detail+"; gave up after "+strconv.Itoa(attempt)+" reconnects")
			return
		}
		wait := p.delay(attempt)
		attempt++
		detail := "the stream ended"
		if err != nil {
			detail = err.Error()
		}
		s.setWatchStatus(WatchReconnecting, detail+"; reconnect "+strconv.Itoa(attempt)+" in "+wait.String())
		elapsed, stop := after(s.opts.Clock, wait)
		select {
		case <-ctx.Done():
			stop()
			return
		case <-elapsed:
		}
	}
}

// listenOnce runs one connection. healthy reports whether it delivered a
// notification or stayed open at least stable.
func (s *Session) listenOnce(ctx context.Context, l MCPListener, lastID *string, stable time.Duration) (healthy bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = errs.New("the MCP client's listen panicked: ", errs.Text(p))
		}
	}()
	stream, err := l.Listen(ctx, *lastID)
	if err != nil {
		return false, err
	}
	defer stream.Close()
	stop := context.AfterFunc(ctx, func() { _ = stream.Close() })
	defer stop()
	opened := s.opts.Clock.Now()
	s.setWatchStatus(WatchOpen, "")
	for {
		n, err := stream.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return healthy || s.opts.Clock.Now().Sub(opened) >= stable, err
		}
		healthy = true
		if n.EventID != "" {
			*lastID = n.EventID
		}
		if n.Method == NotificationToolsListChanged {
			s.queueRefresh()
		}
	}
}

// queueRefresh runs one more discovery pass for a burst of notifications:
// at most one running and one queued.
func (s *Session) queueRefresh() {
	r := &s.watch.refresh
	r.mu.Lock()
	if r.running {
		r.queued = true
		r.mu.Unlock()
		return
	}
	r.running = true
	r.mu.Unlock()
	go func() {
		for {
			_, _ = s.RefreshTools(context.Background())
			r.mu.Lock()
			if !r.queued {
				r.running = false
				r.mu.Unlock()
				return
			}
			r.queued = false
			r.mu.Unlock()
		}
	}()
}
