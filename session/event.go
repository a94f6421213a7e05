// Events: what the session streams to its observer, and the streamed model
// events themselves.

package session

// Stream event types, as named by the `type` field of a StreamEvent. The SSE
// event name is the authority: message_start → "messageStart", and so on.
const (
	EventMessageStart  = "messageStart"
	EventTextDelta     = "textDelta"
	EventToolCallStart = "toolCallStart"
	EventToolCallDelta = "toolCallDelta"
	EventToolCallStop  = "toolCallStop"
	EventMessageStop   = "messageStop"
	EventError         = "error"
)

// StreamEvent is one event streamed by the model proxy (or made by the
// session in its place, such as the error for a malformed payload). Only the
// fields of its Type are set.
//
//easyjson:json
//agentwasm:encode-only
type StreamEvent struct {
	Type               string  `json:"type"`
	Model              string  `json:"model,omitempty"`              // messageStart
	Text               string  `json:"text,omitempty"`               // textDelta
	ToolCallID         string  `json:"toolCallId,omitempty"`         // toolCall*
	ToolName           string  `json:"toolName,omitempty"`           // toolCallStart
	ToolArgumentsDelta string  `json:"toolArgumentsDelta,omitempty"` // toolCallDelta: a JSON fragment
	ToolArguments      RawJSON `json:"toolArguments,omitempty"`      // toolCallStop: the parsed arguments, when sent
	StopReason         string  `json:"stopReason,omitempty"`         // messageStop: endTurn, toolCall, maxTokens, contentFilter, cancelled, error
	PromptTokens       int64   `json:"promptTokens,omitempty"`       // messageStop
	CompletionTokens   int64   `json:"completionTokens,omitempty"`   // messageStop
	LatencyMs          float64 `json:"latencyMs,omitempty"`          // messageStop, error
	ErrorMessage       string  `json:"errorMessage,omitempty"`       // error
	ErrorCode          string  `json:"errorCode,omitempty"`          // error
}

// plainDelta says whether ev is a text delta with a text and nothing else:
// the event Options.OnTextDelta observes.
func (ev *StreamEvent) plainDelta() bool {
	return ev.Type == EventTextDelta && ev.Text != "" && ev.Model == "" && ev.ToolCallID == "" && ev.ToolName == "" &&
		ev.ToolArgumentsDelta == "" && len(ev.ToolArguments) == 0 && ev.StopReason == "" && ev.PromptTokens == 0 &&
		ev.CompletionTokens == 0 && ev.LatencyMs == 0 && ev.ErrorMessage == "" && ev.ErrorCode == ""
}

// emptyDelta says whether ev is a text delta without text. The session
// drops it as it reads the stream (a proxy may send one, say for an upstream
// chunk with empty content; the other fields belong to other events), so
// every textDelta a host sees, and every one a turn records, has a text.
func (ev *StreamEvent) emptyDelta() bool {
	return ev.Type == EventTextDelta && ev.Text == ""
}

// EventType names what an Event carries.
type EventType string

// The kinds of Event a session emits.
const (
	// EventTypeChat carries one StreamEvent, for every streamed event.
	EventTypeChat EventType = "chat"
	// EventTypeToolResult carries one DispatchRecord, per dispatch.
	EventTypeToolResult EventType = "toolResult"
	// EventTypeStepFinish carries one Step, after each model round that
	// finished (its answer streamed and its calls dispatched). It is not a
	// streamed event: Turn.Events does not record it and the turn's bounds
	// do not count it.
	EventTypeStepFinish EventType = "stepFinish"
)

// Event is what Options.OnEvent observes.
//
// Its JSON (the json tags) is what the wasm modules stream to the host.
//
//easyjson:json
//agentwasm:encode-only
type Event struct {
	Type      EventType            `json:"type"`
	Chat      *StreamEvent         `json:"event,omitempty"`  // with EventTypeChat
	Result    *DispatchRecord      `json:"result,omitempty"` // with EventTypeToolResult
	Step      *Step                `json:"step,omitempty"`   // with EventTypeStepFinish
	Discovery *ToolDiscoveryReport `json:"report,omitempty"` // with EventTypeToolDiscovery
	// WatchStatus and WatchDetail come with EventTypeToolWatch.
	WatchStatus string `json:"status,omitempty"`
	WatchDetail string `json:"detail,omitempty"`
}
