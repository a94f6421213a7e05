// Streamable HTTP framing: the content types, and one server-sent event
// carrying a JSON-RPC message.

package mcp

import "strings"

// Content types of Streamable HTTP.
const (
	// ContentTypeJSON is a POST's body, and an answer of one message.
	ContentTypeJSON = "application/json"
	// ContentTypeEventStream is an answer, or a notification stream, of
	// server-sent events.
	ContentTypeEventStream = "text/event-stream"
	// AcceptPost is the Accept header of a client's POST: both.
	AcceptPost = ContentTypeJSON + ", " + ContentTypeEventStream
)

// IsEventStream reports whether a Content-Type value is text/event-stream
// (parameters and case aside).
func IsEventStream(contentType string) bool {
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.EqualFold(strings.TrimSpace(mt), ContentTypeEventStream)
}

// AppendEvent appends one server-sent event to dst: the event type and the
// id when not empty, then data, one data line per line of it, then the
// blank line that ends the event. A JSON message written compactly is one
// line.
func AppendEvent(dst []byte, event, id, data string) []byte {
	if event != "" {
		dst = append(dst, "event: "+event+"\n"...)
	}
	if id != "" {
		dst = append(dst, "id: "+id+"\n"...)
	}
	return append(dst, "data: "+strings.ReplaceAll(data, "\n", "\ndata: ")+"\n\n"...)
}

// DataEvent is the event of one JSON message: "data: msg", a blank line.
func DataEvent(msg []byte) []byte {
	return AppendEvent(make([]byte, 0, len(msg)+8), "", "", string(msg))
}
