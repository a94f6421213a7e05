// The seam between the proxy and whatever writes the answer.

package studioproxy

import "context"

// Model answers one chat request by sending events to a Sink.
//
// Stream sends zero or more events and ends the answer with exactly one
// terminal event, message_stop or error, then returns nil. When it returns
// an error instead, the proxy ends the answer with an error event carrying
// the error's text (and the code of an *Error), unless a terminal event was
// already sent. The text must never hold a credential. Stream must return
// soon after ctx is done (the client went away). It may be called
// concurrently for different requests.
type Model interface {
	Stream(ctx context.Context, req *ChatRequest, sink Sink) error
}

// Error is a failure with a stable code for the error event's errorCode
// ("upstream_unauthorized", "upstream_rate_limited", "upstream_unavailable",
// "upstream_stalled", "upstream_cut", "bad_request", …).
type Error struct {
	Code    string
	Message string
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }
