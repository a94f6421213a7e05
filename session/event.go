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
type StreamEvent struct {
	Type               string
	Model              string  // messageStart
	Text               string  // textDelta
	ToolCallID         string  // toolCall*
	ToolName           string  // toolCallStart
	ToolArgumentsDelta string  // toolCallDelta: a JSON fragment
	ToolArguments      RawJSON // toolCallStop: the parsed arguments, when sent
	StopReason         string  // messageStop: endTurn, toolCall, maxTokens, contentFilter, cancelled, error
	PromptTokens       int64   // messageStop
	CompletionTokens   int64   // messageStop
	LatencyMs          float64 // messageStop, error
	ErrorMessage       string  // error
	ErrorCode          string  // error
}

// plainDelta says whether ev is a text delta with a text and nothing else:
// the event Options.OnTextDelta observes.
func (ev *StreamEvent) plainDelta() bool {
	return ev.Type == EventTextDelta && ev.Text != "" && ev.Model == "" && ev.ToolCallID == "" && ev.ToolName == "" &&
		ev.ToolArgumentsDelta == "" && len(ev.ToolArguments) == 0 && ev.StopReason == "" && ev.PromptTokens == 0 &&
		ev.CompletionTokens == 0 && ev.LatencyMs == 0 && ev.ErrorMessage == "" && ev.ErrorCode == ""
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
type Event struct {
	Type      EventType
	Chat      *StreamEvent         // with EventTypeChat
	Result    *DispatchRecord      // with EventTypeToolResult
	Discovery *ToolDiscoveryReport // with EventTypeToolDiscovery
	Step      *Step                // with EventTypeStepFinish
	// WatchStatus and WatchDetail come with EventTypeToolWatch.
	WatchStatus string
	WatchDetail string
}
