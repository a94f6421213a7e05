//go:build js

// Event delivery in batches. Each session's and port's events used to cross
// into JavaScript one call at a time (a new JavaScript string, a finalizer
// for it, the loader's dispatch), which cost more than everything the
// session does for a text delta. They are now buffered here and delivered
// together, one call of the page's event hook per run of consecutive events
// of one session or port, with a JSON array of them:
//
//	event(sessionId, "[{…},{…},…]")
//
// The buffer is flushed before the module next hands control to JavaScript
// code that is not its own, so the page sees every event before anything
// that follows it, in the order the module made them:
//
//   - before it calls the page's functions (a fetch, a hook such as execute
//     or auth, a transport's next()) and before it aborts a request, whose
//     listeners are the page's code (bridge.BeforeJS, and the calls in
//     callbacks.go);
//   - before it waits for a Promise (a chunk of a response body, a hook's
//     answer): bridge.AwaitJS;
//   - before a command's reply resolves, and before callSync returns;
//   - and whenever the Go program is about to go idle any other way (a
//     background goroutine's event followed by a sleep, say): a goroutine
//     woken by the first buffered event flushes once every other runnable
//     goroutine has blocked, which on js/wasm comes before control returns
//     to the host.
//
// So the events of one network read cross together, and the page's
// observers still get each event alone and in order (web/agentwasm.mjs
// unpacks the array). When the loader says it takes them (the boot setting
// textDeltas), a session's plain text delta — a text and nothing else, the
// event an answer streams most — is in the array as the JSON string of its
// text alone (enqueueText), which the loader makes the same event object:
// neither side builds or parses the rest of it.

package main

import (
	"sync"
	"syscall/js"
	"unsafe"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/internal/jsonw"
)

// eventSink is the event hook of one session or port.
type eventSink struct{ fn js.Value }

// eventRun is a run of consecutive buffered events of one sink and id: the
// bytes of queue.data from start up to the next run's start (or the end),
// a JSON array once flush closes the last one.
type eventRun struct {
	sink  *eventSink
	id    int
	start int
}

// maxKeptEventBuffer bounds the buffer kept for reuse between flushes.
const maxKeptEventBuffer = 1 << 20

// queue holds the events not yet delivered.
var queue struct {
	mu   sync.Mutex
	data []byte
	runs []eventRun
}

// idle wakes the goroutine that flushes when nothing else runs.
var idle = make(chan struct{}, 1)

func init() {
	bridge.SetBeforeJS(flushEvents)
	go func() {
		for range idle {
			flushEvents()
		}
	}()
}

// enqueue buffers one event (its JSON) for sink's hook under id.
func (s *eventSink) enqueue(id int, event []byte) {
	first := s.open(id)
	queue.data = append(queue.data, event...)
	s.close(first)
}

// enqueueText buffers one plain text delta for sink's hook under id, as
// the JSON string of its text: the loader makes it the event
// {type: 'chat', event: {type: 'textDelta', text}} (boot setting
// textDeltas, wasm/README.md).
func (s *eventSink) enqueueText(id int, text string) {
	first := s.open(id)
	queue.data = jsonw.AppendString(queue.data, text)
	s.close(first)
}

// open locks the queue and starts an event of sink under id: a comma in
// the last run when it is sink's and id's, else a new run. It says whether
// the queue was empty.
func (s *eventSink) open(id int) (first bool) {
	q := &queue
	q.mu.Lock()
	n := len(q.runs)
	if n > 0 && q.runs[n-1].sink == s && q.runs[n-1].id == id {
		q.data = append(q.data, ',')
		return false
	}
	if n > 0 {
		q.data = append(q.data, ']')
	}
	q.runs = append(q.runs, eventRun{sink: s, id: id, start: len(q.data)})
	q.data = append(q.data, '[')
	return n == 0
}

// close unlocks the queue after an event, and wakes the flushing goroutine
// when the event was the first one buffered.
func (s *eventSink) close(first bool) {
	queue.mu.Unlock()
	if first {
		select {
		case idle <- struct{}{}:
		default:
		}
	}
}

// flushEvents delivers every buffered event. The page's observers may call
// back into the module, which may buffer more events and flush them itself
// (they follow, in the module's order, the event being observed); the
// buffer is taken whole first, so a nested flush starts a fresh one.
func flushEvents() {
	q := &queue
	for {
		q.mu.Lock()
		if len(q.runs) == 0 {
			q.mu.Unlock()
			return
		}
		data, runs := append(q.data, ']'), q.runs
		q.data, q.runs = nil, nil
		q.mu.Unlock()
		for i, r := range runs {
			end := len(data)
			if i+1 < len(runs) {
				end = runs[i+1].start
			}
			r.sink.deliver(r.id, data[r.start:end])
		}
		q.mu.Lock()
		if q.runs == nil && cap(data) <= maxKeptEventBuffer {
			clear(runs) // drop the sinks' references
			q.data, q.runs = data[:0], runs[:0]
		}
		q.mu.Unlock()
	}
}

// deliver calls the hook with one JSON array of events.
func (s *eventSink) deliver(id int, batch []byte) {
	defer func() { _ = recover() }() // an observer that throws changes nothing
	// The string is copied into JavaScript before the hook runs, so it may
	// share batch's bytes, which are reused only after this call.
	s.fn.Invoke(id, unsafe.String(unsafe.SliceData(batch), len(batch)))
}
