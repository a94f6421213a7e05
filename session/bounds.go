// Bounds of a turn: how much one turn may take in (events and text), and
// how long the chat stream and the capabilities read may stay silent. Every
// wait is on the session's Clock.

package session

import (
	"context"
	"io"
	"strconv"
	"sync"
	"time"
)

// The defaults of the turn's bounds.
const (
	// DefaultMaxTurnEvents is Options.MaxTurnEvents when zero.
	DefaultMaxTurnEvents = 100_000
	// DefaultMaxTurnTextBytes is Options.MaxTurnTextBytes when zero: 8 MiB.
	DefaultMaxTurnTextBytes = 8 << 20
	// DefaultStreamFirstByteTimeout is Options.StreamFirstByteTimeout when zero.
	DefaultStreamFirstByteTimeout = 120 * time.Second
	// DefaultStreamIdleTimeout is Options.StreamIdleTimeout when zero.
	DefaultStreamIdleTimeout = 120 * time.Second
	// DefaultCapabilitiesTimeout is Options.CapabilitiesTimeout when zero.
	DefaultCapabilitiesTimeout = 30 * time.Second
)

// truncatedOutcome ends a turn whose answer stream ended without
// message_stop or error.
var truncatedOutcome = &outcome{status: StatusError, code: ErrorCodeStreamTruncated,
	msg: "The Studio AI proxy's answer ended without a message_stop or error event: the stream was cut short, " +
		"so the answer is incomplete. The text received so far is kept in the turn; check the proxy (or its upstream) " +
		"for a dropped connection."}

// eventBytes is what ev counts against the turn's text bound: the bytes of
// all its strings.
func eventBytes(ev *StreamEvent) int {
	return len(ev.Model) + len(ev.Text) + len(ev.ToolCallID) + len(ev.ToolName) +
		len(ev.ToolArgumentsDelta) + len(ev.ToolArguments) + len(ev.StopReason) + len(ev.ErrorMessage) + len(ev.ErrorCode)
}

// admit checks ev against the turn's bounds before it is recorded, and
// counts it. A text delta that continues a run of text deltas is folded
// into the run's event, so it adds no event.
func (t *turnState) admit(ev *StreamEvent) *outcome {
	o := &t.s.opts
	n := eventBytes(ev)
	what, bound := "", 0
	switch {
	case t.bytes+n > o.MaxTurnTextBytes:
		what, bound = " bytes of streamed text (maxTurnTextBytes)", o.MaxTurnTextBytes
	case !(ev.Type == EventTextDelta && t.inRun) && len(t.turn.Events) >= o.MaxTurnEvents:
		what, bound = " events, a run of text deltas counting as one (maxTurnEvents)", o.MaxTurnEvents
	default:
		t.bytes += n
		return nil
	}
	return &outcome{status: StatusError, code: ErrorCodeTurnTooLarge,
		msg: "The model's answer passed this turn's bound of " + strconv.Itoa(bound) + what +
			"; the turn was stopped and keeps the text received so far. Raise the bound if answers this large are expected."}
}

// streamGuard stops a request whose answer is too slow: no byte of the body
// within first of sending the request, or (once a byte came) no byte for
// idle. Firing cancels the request's context and closes the body, so that a
// Fetch or Read blocked on any host returns at once. A zero bound is not
// armed. A nil guard bounds nothing.
type streamGuard struct {
	clock       Clock
	first, idle time.Duration
	cancel      context.CancelFunc

	mu      sync.Mutex
	body    io.Closer
	stop    func() bool
	last    time.Time // when the last byte came
	gotByte bool
	fired   guardBound // the bound that fired, once fired
	done    bool
}

// newStreamGuard returns ctx bounded by a new guard. Nothing is armed until
// arm.
func newStreamGuard(ctx context.Context, clock Clock, first, idle time.Duration) (context.Context, *streamGuard) {
	if first <= 0 && idle <= 0 {
		return ctx, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	return ctx, &streamGuard{clock: clock, first: max(first, 0), idle: max(idle, 0), cancel: cancel}
}

// arm starts (or restarts) the wait for the first byte: called right before
// each fetch, so that the time the token source takes is not counted.
func (g *streamGuard) arm() {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.stopTimer()
	if !g.done && g.first > 0 {
		g.stop = g.clock.AfterFunc(g.first, g.check)
	}
}

// disarm stops the wait (a 401 is being retried with a fresh token).
func (g *streamGuard) disarm() {
	if g == nil {
		return
	}
	g.mu.Lock()
	g.stopTimer()
	g.mu.Unlock()
}

func (g *streamGuard) stopTimer() {
	if g.stop != nil {
		g.stop()
		g.stop = nil
	}
}

// watch makes body the one a firing guard closes, and returns it wrapped so
// that every byte read counts as activity (and, after guardedBody.stop, is
// bounded). With count false only the first bound applies, to the whole read
// (the capabilities request). A nil guard wraps body with no timer.
func (g *streamGuard) watch(body io.ReadCloser, count bool) *guardedBody {
	if g == nil {
		return &guardedBody{ReadCloser: body, left: -1}
	}
	g.mu.Lock()
	g.body = body
	fired := g.fired != notFired
	g.mu.Unlock()
	if fired {
		body.Close()
	}
	return &guardedBody{ReadCloser: body, g: g, count: count, left: -1}
}

// activity notes that bytes arrived: after the first, the wait becomes the
// idle bound, re-armed lazily from the time of the last byte.
func (g *streamGuard) activity() {
	now := g.clock.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	g.last = now
	if g.gotByte || g.done {
		return
	}
	g.gotByte = true
	g.stopTimer()
	if g.idle > 0 {
		g.stop = g.clock.AfterFunc(g.idle, g.check)
	}
}

// check runs when a bound's time has passed: it fires, unless bytes came
// since (then it waits for the rest of the idle bound).
func (g *streamGuard) check() {
	g.mu.Lock()
	if g.done || g.fired != notFired || (g.gotByte && g.idle <= 0) {
		g.mu.Unlock()
		return
	}
	if g.gotByte {
		if wait := g.idle - g.clock.Now().Sub(g.last); wait > 0 {
			g.stop = g.clock.AfterFunc(wait, g.check)
			g.mu.Unlock()
			return
		}
		g.fired = idleFired
	} else {
		g.fired = firstFired
	}
	body := g.body
	g.stop = nil
	g.mu.Unlock()
	g.cancel()
	if body != nil {
		body.Close()
	}
}

// guardBound says which bound of a guard fired.
type guardBound int

const (
	notFired   guardBound = iota
	firstFired            // no byte within the first bound
	idleFired             // no byte for the idle bound
)

// timedOut says which bound fired, if one did.
func (g *streamGuard) timedOut() guardBound {
	if g == nil {
		return notFired
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.fired
}

// release stops the guard for good and releases its context.
func (g *streamGuard) release() {
	if g == nil {
		return
	}
	g.mu.Lock()
	g.done = true
	g.stopTimer()
	g.mu.Unlock()
	g.cancel()
}

// guardedBody counts the bytes read as activity, releases the guard when
// closed, and, once told the answer stopped (stop), fails a read past
// maxBytesAfterStop more bytes with errPastStop.
type guardedBody struct {
	io.ReadCloser
	g     *streamGuard // nil: no guard
	count bool
	left  int // bytes still allowed after the answer's stop; -1 before it
}

func (b *guardedBody) Read(p []byte) (int, error) {
	if b.left == 0 {
		return 0, errPastStop
	}
	if b.left > 0 && len(p) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	if b.left > 0 {
		b.left -= n
	}
	if n > 0 && b.count {
		b.g.activity()
	}
	return n, err
}

// stop starts counting the bytes read after the answer's message_stop.
func (b *guardedBody) stop() {
	if b.left < 0 {
		b.left = maxBytesAfterStop
	}
}

func (b *guardedBody) Close() error {
	b.g.release()
	return b.ReadCloser.Close()
}
