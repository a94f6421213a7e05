// Transport: how a chat request reaches a model and its events come back.
// The default speaks SSE to the Studio AI proxy; a Transport option replaces
// it (ScriptedTransport drives a session with no model and no network).

package session

import (
	"bytes"
	"context"

	"github.com/agentwasm/agentwasm/internal/wire"
)

// ChatRequest is one model request: the whole history and what the model
// may use.
type ChatRequest struct {
	Provider    string
	Model       string
	System      string
	Messages    []Message
	Tools       []ToolDefinition
	ToolChoice  *ToolChoice
	MaxTokens   int
	Temperature *float64
}

// A Transport sends one chat request and streams the answer.
//
// Stream returns an error when no answer stream could be opened; the turn
// then ends with StatusError and the error's text. When ctx ends, Stream
// and the stream's Next return an error wrapping ctx.Err().
type Transport interface {
	Stream(ctx context.Context, req *ChatRequest) (EventStream, error)
}

// TransportFunc adapts a function to the Transport interface.
type TransportFunc func(ctx context.Context, req *ChatRequest) (EventStream, error)

// Stream calls f(ctx, req).
func (f TransportFunc) Stream(ctx context.Context, req *ChatRequest) (EventStream, error) {
	return f(ctx, req)
}

// An EventStream yields the events of one answer. Next returns io.EOF after
// the last one. A complete answer has an EventMessageStop (or an
// EventError, which ends the turn): one whose stream ends before is
// truncated, and ends the turn with ErrorCodeStreamTruncated. A payload that
// could not be understood is reported as an event of type EventError, not
// as an error. Close releases the stream and may be called while Next is
// blocked.
type EventStream interface {
	Next() (StreamEvent, error)
	Close() error
}

// A CapabilitiesSource answers the capabilities read before a turn that
// advertises tools. A Transport that implements it is asked instead of the
// proxy's capabilities endpoint.
type CapabilitiesSource interface {
	Capabilities(ctx context.Context) (Capabilities, error)
}

// cloneRequest deep-copies what a transport might keep.
func cloneRequest(r *ChatRequest) ChatRequest {
	c := *r
	c.Messages = make([]Message, len(r.Messages))
	for i, m := range r.Messages {
		m.ToolCalls = append([]ToolCall(nil), m.ToolCalls...)
		c.Messages[i] = m
	}
	c.Tools = append([]ToolDefinition(nil), r.Tools...)
	return c
}

// objectOrEmpty returns raw if it is one JSON object, else {}.
func objectOrEmpty(raw RawJSON) RawJSON {
	t := bytes.TrimSpace(raw)
	if len(t) > 0 && t[0] == '{' && wire.Valid(t) {
		return t
	}
	return RawJSON(`{}`)
}
