// JSON: the chat request as the proxy receives it, and one event payload as
// the proxy sends it. The codecs live in internal/wire.

package session

import (
	"bytes"

	"github.com/agentwasm/agentwasm/internal/wire"
)

// EncodeChatRequest returns the JSON body of a chat request, exactly as the
// default transport sends it (camelCase, unset fields omitted).
func EncodeChatRequest(req *ChatRequest) ([]byte, error) {
	return wire.Marshal(chatRequestWire(req))
}

// DecodeStreamEvent parses one event payload: a JSON object with a `type`
// and the fields of that type. ok is false, and ev the synthetic
// malformed-payload error event, when data is not one JSON object.
func DecodeStreamEvent(data []byte) (ev StreamEvent, ok bool) {
	var w wire.StreamEvent
	b := bytes.TrimSpace(data)
	if len(b) == 0 || b[0] != '{' || wire.Unmarshal(b, &w) != nil {
		return StreamEvent{Type: EventError, ErrorMessage: malformedPayload, ErrorCode: "malformed_event"}, false
	}
	return StreamEvent{
		Type:               w.Type,
		Model:              w.Model,
		Text:               w.Text,
		ToolCallID:         w.ToolCallID,
		ToolName:           w.ToolName,
		ToolArgumentsDelta: w.ToolArgumentsDelta,
		ToolArguments:      w.ToolArguments,
		StopReason:         w.StopReason,
		PromptTokens:       w.PromptTokens,
		CompletionTokens:   w.CompletionTokens,
		LatencyMs:          w.LatencyMs,
		ErrorMessage:       w.ErrorMessage,
		ErrorCode:          w.ErrorCode,
	}, true
}

func chatRequestWire(r *ChatRequest) *wire.ChatRequest {
	out := &wire.ChatRequest{
		Provider:    r.Provider,
		Model:       r.Model,
		System:      r.System,
		Messages:    make([]wire.ChatMessage, len(r.Messages)),
		MaxTokens:   r.MaxTokens,
		Temperature: r.Temperature,
	}
	for i, m := range r.Messages {
		wm := wire.ChatMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID, ToolName: m.ToolName}
		for _, c := range m.ToolCalls {
			wm.ToolCalls = append(wm.ToolCalls, wire.ToolCall{ID: c.ID, Name: c.Name, Arguments: objectOrEmpty(c.Args)})
		}
		out.Messages[i] = wm
	}
	for _, t := range r.Tools {
		out.Tools = append(out.Tools, wire.ToolSpec{Name: t.Name, Description: t.Description,
			InputSchema: t.InputSchema, Annotations: t.Annotations, OutputSchema: t.OutputSchema})
	}
	if tc := r.ToolChoice; tc != nil {
		out.ToolChoice = &wire.ToolChoice{Mode: tc.Mode, ToolName: tc.ToolName}
	}
	return out
}
