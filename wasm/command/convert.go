// Conversions from the session's API types to the wire types hosts receive.

package command

import (
	"github.com/agentwasm/agentwasm/internal/wire"
	"github.com/agentwasm/agentwasm/session"
)

func streamEventWire(e session.StreamEvent) wire.StreamEvent {
	return wire.StreamEvent{
		Type:               e.Type,
		Model:              e.Model,
		Text:               e.Text,
		ToolCallID:         e.ToolCallID,
		ToolName:           e.ToolName,
		ToolArgumentsDelta: e.ToolArgumentsDelta,
		ToolArguments:      []byte(e.ToolArguments),
		StopReason:         e.StopReason,
		PromptTokens:       e.PromptTokens,
		CompletionTokens:   e.CompletionTokens,
		LatencyMs:          e.LatencyMs,
		ErrorMessage:       e.ErrorMessage,
		ErrorCode:          e.ErrorCode,
	}
}

func eventWire(ev session.Event) *wire.SessionEvent {
	out := &wire.SessionEvent{Type: string(ev.Type)}
	if ev.Chat != nil {
		se := streamEventWire(*ev.Chat)
		out.Event = &se
	}
	return out
}

func turnWire(t session.Turn) *wire.Turn {
	out := &wire.Turn{
		Status:       string(t.Status),
		Text:         t.Text,
		ToolCalls:    []wire.DispatchRecord{},
		Events:       make([]wire.StreamEvent, len(t.Events)),
		StopReason:   t.StopReason,
		ErrorMessage: t.ErrorMessage,
		ErrorCode:    t.ErrorCode,
		Rounds:       t.Rounds,
	}
	for i, e := range t.Events {
		out.Events[i] = streamEventWire(e)
	}
	return out
}
