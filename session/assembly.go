// Round assembly: one streamed answer becomes text and ready tool calls.

package session

import (
	"strconv"
	"strings"
	"unsafe"

	"github.com/agentwasm/agentwasm/internal/wire"
)

// pendingCall is a tool call being streamed.
type pendingCall struct {
	id      string
	name    string
	deltas  strings.Builder
	args    RawJSON // settled at the stop
	stopped bool
}

// round assembles one answer.
type round struct {
	s *Session
	// text is the answer's text. It only grows (as a strings.Builder does):
	// the strings textString made of it stay as they are.
	text  []byte
	calls []*pendingCall // in the order they started
	byID  map[string]*pendingCall
	last  *pendingCall
	// stopReason and usage are those of the answer's messageStop.
	stopReason string
	usage      *Usage
}

// textString returns the answer's text so far, without copying it.
func (r *round) textString() string { return unsafe.String(unsafe.SliceData(r.text), len(r.text)) }

func newRound(s *Session) *round { return &round{s: s, byID: map[string]*pendingCall{}} }

// add applies one event.
func (r *round) add(ev *StreamEvent) {
	switch ev.Type {
	case EventTextDelta:
		r.text = append(r.text, ev.Text...)
	case EventToolCallStart:
		id := ev.ToolCallID
		if id == "" {
			r.s.mu.Lock()
			r.s.callSeq++
			id = "tool-" + strconv.Itoa(r.s.callSeq)
			r.s.mu.Unlock()
		}
		if c, ok := r.byID[id]; ok {
			// A repeated start resets the call but keeps its place.
			c.name, c.args, c.stopped = ev.ToolName, nil, false
			c.deltas.Reset()
			r.last = c
			return
		}
		c := &pendingCall{id: id, name: ev.ToolName}
		r.calls = append(r.calls, c)
		r.byID[id] = c
		r.last = c
	case EventToolCallDelta:
		if c := r.target(ev.ToolCallID); c != nil {
			c.deltas.WriteString(ev.ToolArgumentsDelta)
		}
	case EventToolCallStop:
		if c := r.target(ev.ToolCallID); c != nil {
			// The arguments are settled at the stop: toolArguments when
			// sent, else the joined deltas parsed as JSON, else {}.
			c.stopped = true
			switch d := strings.TrimSpace(c.deltas.String()); {
			case len(ev.ToolArguments) > 0:
				c.args = ev.ToolArguments
			case d != "" && wire.Valid([]byte(d)):
				c.args = RawJSON(d)
			default:
				c.args = RawJSON(`{}`)
			}
		}
	}
}

// target finds the call an event is about: by id, or the latest started.
func (r *round) target(id string) *pendingCall {
	if id == "" {
		return r.last
	}
	return r.byID[id]
}

// ready returns the calls that stopped, in stream order, with the
// arguments settled at their stop.
func (r *round) ready() []ToolCall {
	var out []ToolCall
	for _, c := range r.calls {
		if c.stopped {
			out = append(out, ToolCall{ID: c.id, Name: c.name, Args: c.args})
		}
	}
	return out
}
