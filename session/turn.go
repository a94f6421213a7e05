// Turn: the record of one Chat call.

package session

// Status says how a turn ended.
type Status string

// The statuses of a Turn.
const (
	// StatusCompleted: the model finished (or the round budget ran out).
	StatusCompleted Status = "completed"
	// StatusCancelled: the caller's context, or Session.Close, ended the turn.
	StatusCancelled Status = "cancelled"
	// StatusError: the proxy could not be reached, answered non-2xx, sent a
	// malformed, truncated, silent or too large stream or an in-band error,
	// or the session was busy.
	StatusError Status = "error"
	// StatusRefused: the proxy said it will not serve this turn; nothing was sent.
	StatusRefused Status = "refused"
)

// The stable Turn.ErrorCode values the session sets itself (an error event
// of the proxy brings its own code).
const (
	// ErrorCodeBusy: the Chat was rejected because another Chat was running
	// on the same session.
	ErrorCodeBusy = "busy"
	// ErrorCodeTurnTooLarge: the answer passed Options.MaxTurnEvents or
	// Options.MaxTurnTextBytes; the turn keeps the text received so far.
	ErrorCodeTurnTooLarge = "turn_too_large"
	// ErrorCodeStreamTruncated: the answer stream ended (or was cut
	// mid-frame) without message_stop or error; the turn keeps the text
	// received so far.
	ErrorCodeStreamTruncated = "stream_truncated"
	// ErrorCodeStreamTimeout: the chat stream sent nothing within
	// Options.StreamFirstByteTimeout of the request, or went silent for
	// Options.StreamIdleTimeout; the turn keeps the text received so far.
	ErrorCodeStreamTimeout = "stream_timeout"
)

// Turn is the record of one Chat (or Resume) call.
//
// Its JSON (the json tags; ToolCalls and Events always arrays) is what the
// wasm modules send for a turn.
//
//easyjson:json
//agentwasm:encode-only
type Turn struct {
	Status    Status           `json:"status"`
	Text      string           `json:"text"`                     // the text of every round, joined
	ToolCalls []DispatchRecord `json:"toolCalls" jsonw:"nonnil"` // every dispatch, in order
	// Events are the streamed events, synthetic ones too, in order. A run
	// of contiguous text deltas is recorded as one textDelta event holding
	// the run's text (Options.OnEvent still sees every delta as it streams).
	Events       []StreamEvent `json:"events" jsonw:"nonnil"`
	StopReason   string        `json:"stopReason,omitempty"`   // the last stop reason seen
	ErrorMessage string        `json:"errorMessage,omitempty"` // why the turn did not complete; never holds a credential
	ErrorCode    string        `json:"errorCode,omitempty"`    // a stable code for some errors (the ErrorCode… constants, or the proxy's own)
	Rounds       int           `json:"rounds"`                 // model requests made
	// Usage sums the token counts of the turn's messageStop events
	// (promptTokens into InputTokens, completionTokens into OutputTokens)
	// over its rounds; nil when no round reported any.
	Usage *Usage `json:"usage,omitempty"`
	// PendingApprovals are the asks that await a person's answer when the
	// turn ended, in the order they arose. A turn whose round raised one
	// stops after that round's calls are dispatched, with StatusCompleted;
	// answer them with Session.Resume. Empty when none awaits.
	PendingApprovals []PendingApproval `json:"pendingApprovals,omitempty"`
}

// Message is one entry of the conversation history.
type Message struct {
	Role       string     // "user", "assistant" or "tool"
	Content    string     // text, or for a tool message the dispatch record's Content
	ToolCalls  []ToolCall // assistant: the calls of its round
	ToolCallID string     // tool: the call answered
	ToolName   string     // tool: the tool that ran
}
