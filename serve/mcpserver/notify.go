// Tool-list change notifications: the dispatcher re-reads its tool list on
// ToolsChanged and tells every listener. Listeners are the session era's GET
// stream and the stateless era's subscriptions/listen stream; the
// dispatcher stays transport-free (a Listen hands the transport the
// messages to write as events). A session-era stream ends with its session.

package mcpserver

import (
	"context"
	"sync"

	"github.com/agentwasm/agentwasm/internal/mcp"
)

// Listen is an open notification stream the dispatcher handed to a
// transport: write First (when not nil), then each message Next returns,
// each as one event, until Next fails; then Close. Next may be called from
// one goroutine at a time; Close may be called from any goroutine, once or
// more. The dispatcher closes a session-era stream when its session ends.
type Listen struct {
	d       *Dispatcher
	session string        // the session-era stream's session ("" none)
	id      []byte        // the subscriptions/listen request id; nil for a GET stream
	first   []byte        // the acknowledgment (stateless era)
	changed chan struct{} // capacity 1: changes while one is pending merge
	once    sync.Once
	done    chan struct{}
}

// First returns the message to send when the stream opens (the stateless
// era's acknowledgment), or nil.
func (l *Listen) First() []byte { return l.first }

// Next waits for the tool list to change and returns the JSON-RPC
// notification to send. It returns ctx's error when ctx ends first, and
// context.Canceled once the stream is closed (a pending change included).
func (l *Listen) Next(ctx context.Context) ([]byte, error) {
	select {
	case <-l.done:
		return nil, context.Canceled
	default:
	}
	select {
	case <-l.changed:
		select {
		case <-l.done:
			return nil, context.Canceled
		default:
		}
		return mcp.ListChangedNotification(l.id), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-l.done:
		return nil, context.Canceled
	}
}

// Close ends the stream and forgets the listener.
func (l *Listen) Close() {
	l.d.mu.Lock()
	delete(l.d.subs, l)
	l.d.mu.Unlock()
	l.end()
}

// end closes done once.
func (l *Listen) end() { l.once.Do(func() { close(l.done) }) }

// Listeners returns how many notification streams are open.
func (d *Dispatcher) Listeners() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.subs)
}

// ToolsChanged re-reads the tool server's list, serves it from then on, and
// sends notifications/tools/list_changed on every open stream. Bursts
// coalesce: a listener that has not yet taken the last change gets one
// notification for both. It is safe to call from any goroutine; calls are
// serialized, so the list served is the one the last call read.
func (d *Dispatcher) ToolsChanged() {
	d.readMu.Lock()
	d.readTools()
	d.readMu.Unlock()
	d.mu.Lock()
	defer d.mu.Unlock()
	for l := range d.subs {
		select {
		case l.changed <- struct{}{}:
		default:
		}
	}
}

// listen opens a listener; id is the subscriptions/listen request id (nil
// for a session-era GET stream of session).
func (d *Dispatcher) listen(id []byte, session string) *Listen {
	l := &Listen{d: d, session: session, changed: make(chan struct{}, 1), done: make(chan struct{})}
	if id != nil {
		l.id = append([]byte(nil), id...)
		l.first = mcp.AcknowledgedNotification(l.id)
	}
	d.mu.Lock()
	if d.subs == nil {
		d.subs = map[*Listen]struct{}{}
	}
	d.subs[l] = struct{}{}
	d.mu.Unlock()
	return l
}

// endListenersLocked closes the streams of a session that ended; d.mu is
// held.
func (d *Dispatcher) endListenersLocked(session string) {
	for l := range d.subs {
		if l.session == session {
			delete(d.subs, l)
			l.end()
		}
	}
}

// ListenSession opens the session era's notification stream (an HTTP GET)
// for the session sessionID ("" when the dispatcher issues no ids). It
// fails with MethodNotFound when the dispatcher was built without
// ListChanged or does not speak the session era, with InvalidRequest
// when a session id is needed and missing, and with SessionNotFound when
// the session is unknown or ended.
func (d *Dispatcher) ListenSession(sessionID string) (*Listen, *Error) {
	if !d.streamsSessionEra() {
		return nil, &Error{Code: MethodNotFound, Message: "this server offers no event stream; POST JSON-RPC messages"}
	}
	if d.opts.Sessions {
		if sessionID == "" {
			return nil, &Error{Code: InvalidRequest, Message: "bad request: the stream needs the Mcp-Session-Id that initialize issued"}
		}
		if _, ok := d.sessionVersion(sessionID); !ok {
			return nil, &Error{Code: SessionNotFound, Message: sessionNotFound}
		}
	} else {
		sessionID = ""
	}
	return d.listen(nil, sessionID), nil
}

// streamsSessionEra reports whether a session-era GET opens a stream.
func (d *Dispatcher) streamsSessionEra() bool {
	return d.opts.ListChanged && d.opts.Era != "stateless"
}
