// Round assembly: reading one streamed model answer into text and events.

package session

import (
	"bytes"
	"context"
	"errors"
	"io"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/internal/wire"
)

// malformedPayload is the message of the synthetic error event for a frame
// whose data is not one JSON object.
const malformedPayload = "Malformed event payload from the Studio AI proxy."

// turnState is a Turn being built.
type turnState struct {
	s    *Session
	turn Turn
}

// roundResult is how one round ended. An empty status means the stream ended
// normally.
type roundResult struct {
	status       Status
	errorMessage string
	errorCode    string
	text         string
}

// runRound sends one chat request and reads its stream to the end.
func (t *turnState) runRound(ctx context.Context) roundResult {
	resp, res := t.s.sendChat(ctx)
	if resp == nil {
		return res
	}
	defer resp.Body.Close()
	var text bytes.Buffer
	sse := bridge.NewSSEReader(resp.Body, t.s.opts.MaxFrameBytes)
	for {
		frame, err := sse.Next()
		if err != nil {
			res := roundResult{text: text.String()}
			switch {
			case errors.Is(err, io.EOF):
				return res
			case ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
				c := cancelled()
				c.text = res.text
				return c
			case errors.Is(err, bridge.ErrFrameTooLarge):
				res.status, res.errorMessage = StatusError, "The Studio AI proxy sent an event larger than the frame bound: "+err.Error()
			default:
				res.status, res.errorMessage = StatusError, "The Studio AI proxy's stream failed: "+err.Error()
			}
			return res
		}
		typ, known := sseEventTypes[frame.Event]
		if !known {
			continue
		}
		ev, ok := decodeEvent(typ, frame.Data)
		t.record(ev)
		switch {
		case !ok:
			return roundResult{status: StatusError, errorMessage: malformedPayload, text: text.String()}
		case ev.Type == EventTextDelta:
			text.WriteString(ev.Text)
			t.turn.Text += ev.Text
		case ev.Type == EventMessageStop:
			t.turn.StopReason = ev.StopReason
		case ev.Type == EventError:
			msg := ev.ErrorMessage
			if msg == "" {
				msg = "The Studio AI proxy reported an error without a message."
			}
			return roundResult{status: StatusError, errorMessage: msg, errorCode: ev.ErrorCode, text: text.String()}
		}
	}
}

// record adds ev to the turn and hands it to the observer.
func (t *turnState) record(ev StreamEvent) {
	t.turn.Events = append(t.turn.Events, ev)
	t.s.emit(Event{Type: EventTypeChat, Chat: &ev})
}

// decodeEvent parses one frame's data as the event typ. A payload that is
// not one JSON object yields the synthetic malformed-payload error event and
// ok false.
func decodeEvent(typ, data string) (ev StreamEvent, ok bool) {
	var w wire.StreamEvent
	b := bytes.TrimSpace([]byte(data))
	if len(b) == 0 || b[0] != '{' || wire.Unmarshal(b, &w) != nil {
		return StreamEvent{Type: EventError, ErrorMessage: malformedPayload, ErrorCode: "malformed_event"}, false
	}
	return StreamEvent{
		Type:               typ,
		Model:              w.Model,
		Text:               w.Text,
		ToolCallID:         w.ToolCallID,
		ToolName:           w.ToolName,
		ToolArgumentsDelta: w.ToolArgumentsDelta,
		ToolArguments:      []byte(w.ToolArguments),
		StopReason:         w.StopReason,
		PromptTokens:       w.PromptTokens,
		CompletionTokens:   w.CompletionTokens,
		LatencyMs:          w.LatencyMs,
		ErrorMessage:       w.ErrorMessage,
		ErrorCode:          w.ErrorCode,
	}, true
}
