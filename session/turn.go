// Turn: the record of one Chat call.

package session

// Status says how a turn ended.
type Status string

// The statuses of a Turn.
const (
	// StatusCompleted: the model finished (or the round budget ran out).
	StatusCompleted Status = "completed"
	// StatusCancelled: the caller's context ended the turn.
	StatusCancelled Status = "cancelled"
	// StatusError: the proxy could not be reached, answered non-2xx, sent a
	// malformed stream or an in-band error, or the session was busy.
	StatusError Status = "error"
	// StatusRefused: the proxy said it will not serve this turn; nothing was sent.
	StatusRefused Status = "refused"
)

// ErrorCodeBusy is the Turn.ErrorCode of a Chat rejected because another
// Chat was running on the same session.
const ErrorCodeBusy = "busy"

// Turn is the record of one Chat call.
type Turn struct {
	Status       Status
	Text         string           // the text of every round, joined
	ToolCalls    []DispatchRecord // every dispatch, in order
	Events       []StreamEvent    // every streamed event, synthetic ones too, in order
	StopReason   string           // the last stop reason seen
	ErrorMessage string           // why the turn did not complete; never holds a credential
	ErrorCode    string           // a stable code for some errors (ErrorCodeBusy, or the proxy's own)
	Rounds       int              // model requests made
}

// Message is one entry of the conversation history.
type Message struct {
	Role       string     // "user", "assistant" or "tool"
	Content    string     // text, or for a tool message the dispatch record's Content
	ToolCalls  []ToolCall // assistant: the calls of its round
	ToolCallID string     // tool: the call answered
	ToolName   string     // tool: the tool that ran
}
