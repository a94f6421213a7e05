// The answer's grammar: one SSE frame per event, `event: <name>` and one
// line of JSON data, flushed as it is written.

package studioproxy

import (
	"encoding/json"
	"io"
	"net/http"

	"github.com/agentwasm/agentwasm/internal/wire"
)

// Event names of the chat stream, in the grammar the session reads.
const (
	EventMessageStart  = "message_start"
	EventTextDelta     = "text_delta"
	EventToolCallStart = "tool_call_start"
	EventToolCallDelta = "tool_call_delta"
	EventToolCallStop  = "tool_call_stop"
	EventMessageStop   = "message_stop"
	EventError         = "error"
)

// Stop reasons of message_stop.
const (
	StopEndTurn       = "endTurn"
	StopToolCall      = "toolCall"
	StopMaxTokens     = "maxTokens"
	StopContentFilter = "contentFilter"
	StopCancelled     = "cancelled"
	StopError         = "error"
)

// Event is the data object of one frame: the session's own wire type.
// Type carries the camelCase type the grammar pairs with the frame's event
// name (the name is the authority; AppendFrame sets it).
type Event = wire.StreamEvent

// eventTypes pairs each event name with its data type.
var eventTypes = map[string]string{
	EventMessageStart:  "messageStart",
	EventTextDelta:     "textDelta",
	EventToolCallStart: "toolCallStart",
	EventToolCallDelta: "toolCallDelta",
	EventToolCallStop:  "toolCallStop",
	EventMessageStop:   "messageStop",
	EventError:         "error",
}

// Sink receives the events of one answer, in order. A Model writes through
// it; Send fails once the client has gone.
type Sink interface {
	Send(name string, ev Event) error
}

// SinkFunc adapts a function to Sink.
type SinkFunc func(name string, ev Event) error

// Send calls f.
func (f SinkFunc) Send(name string, ev Event) error { return f(name, ev) }

// frameWriter writes frames to an HTTP answer, flushing each.
type frameWriter struct {
	w     io.Writer
	flush func()
}

func newFrameWriter(w http.ResponseWriter) *frameWriter {
	fw := &frameWriter{w: w, flush: func() {}}
	if f, ok := w.(http.Flusher); ok {
		fw.flush = f.Flush
	}
	return fw
}

// Send writes one frame; the data's type is set from the name.
func (fw *frameWriter) Send(name string, ev Event) error {
	_, err := fw.w.Write(AppendFrame(nil, name, ev))
	fw.flush()
	return err
}

// AppendFrame appends one SSE frame for ev under the event name; the data's
// type is set from the name.
func AppendFrame(dst []byte, name string, ev Event) []byte {
	if t, ok := eventTypes[name]; ok {
		ev.Type = t
	}
	data, _ := json.Marshal(ev) // an Event always marshals
	dst = append(dst, "event: "...)
	dst = append(dst, name...)
	dst = append(dst, "\ndata: "...)
	dst = append(dst, data...)
	return append(dst, "\n\n"...)
}
