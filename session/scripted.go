// ScriptedTransport: a Transport that replays scripted answers, so a session
// runs with no model and no network (tests, demos, offline development).

package session

import (
	"context"
	"errors"
	"io"
	"sync"
)

// ScriptedTransport answers the n-th chat request with the n-th scripted
// round of events; once the rounds run out, the last one repeats. A round
// must end with EventMessageStop (TextRound and ToolCallRound do), or the
// turn ends as truncated (see EventStream). It records
// every request. It is also a CapabilitiesSource: Caps answers capabilities
// reads (nil: "not scripted", which a turn takes as unreachable and goes on).
type ScriptedTransport struct {
	// Caps, when set, is what Capabilities returns.
	Caps *Capabilities

	mu       sync.Mutex
	rounds   [][]StreamEvent
	requests []ChatRequest
}

// NewScriptedTransport returns a transport replaying rounds.
func NewScriptedTransport(rounds ...[]StreamEvent) *ScriptedTransport {
	return &ScriptedTransport{rounds: rounds}
}

// Stream records req and returns the next round.
func (t *ScriptedTransport) Stream(ctx context.Context, req *ChatRequest) (EventStream, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.requests = append(t.requests, cloneRequest(req))
	if len(t.rounds) == 0 {
		return nil, errors.New("the scripted transport has no rounds")
	}
	events := t.rounds[min(len(t.requests), len(t.rounds))-1]
	return &scriptedStream{ctx: ctx, events: events}, nil
}

// Capabilities returns Caps, or an error when none is scripted.
func (t *ScriptedTransport) Capabilities(context.Context) (Capabilities, error) {
	if t.Caps == nil {
		return Capabilities{}, errors.New("no capabilities are scripted")
	}
	return *t.Caps, nil
}

// Requests returns copies of the requests received so far.
func (t *ScriptedTransport) Requests() []ChatRequest {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]ChatRequest, len(t.requests))
	for i := range t.requests {
		out[i] = cloneRequest(&t.requests[i])
	}
	return out
}

type scriptedStream struct {
	ctx    context.Context
	events []StreamEvent
}

func (s *scriptedStream) Next() (StreamEvent, error) {
	if err := s.ctx.Err(); err != nil {
		return StreamEvent{}, err
	}
	if len(s.events) == 0 {
		return StreamEvent{}, io.EOF
	}
	ev := s.events[0]
	s.events = s.events[1:]
	return ev, nil
}

func (s *scriptedStream) Close() error { return nil }

// TextRound is a scripted answer of text only: messageStart, one textDelta
// per part, messageStop with stopReason endTurn.
func TextRound(parts ...string) []StreamEvent {
	evs := []StreamEvent{{Type: EventMessageStart, Model: "scripted"}}
	for _, p := range parts {
		evs = append(evs, StreamEvent{Type: EventTextDelta, Text: p})
	}
	return append(evs, StreamEvent{Type: EventMessageStop, StopReason: "endTurn"})
}

// ToolCallRound is a scripted answer that calls tools: for each call a
// toolCallStart and a toolCallStop carrying its arguments, then messageStop
// with stopReason toolCall.
func ToolCallRound(calls ...ToolCall) []StreamEvent {
	evs := []StreamEvent{{Type: EventMessageStart, Model: "scripted"}}
	for _, c := range calls {
		args := c.Args
		if len(args) == 0 {
			args = RawJSON(`{}`)
		}
		evs = append(evs,
			StreamEvent{Type: EventToolCallStart, ToolCallID: c.ID, ToolName: c.Name},
			StreamEvent{Type: EventToolCallStop, ToolCallID: c.ID, ToolArguments: args})
	}
	return append(evs, StreamEvent{Type: EventMessageStop, StopReason: "toolCall"})
}
