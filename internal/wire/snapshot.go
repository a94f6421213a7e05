// The session snapshot's wire form: the JSON document Session.Snapshot
// writes and Options.Restore reads (session/snapshot.go says what each
// member means and the versioning rule).

package wire

import "github.com/agentwasm/agentwasm/internal/rawjson"

// SessionSnapshot is a session's state as a document.
//
//easyjson:json
type SessionSnapshot struct {
	Format      string               `json:"format"`
	Version     int                  `json:"version"`
	History     []SnapshotMessage    `json:"history"`
	Pending     []SnapshotAsk        `json:"pending,omitempty"`
	Usage       *SnapshotUsage       `json:"usage,omitempty"`
	Draft       *Draft               `json:"draft,omitempty"`
	CallSeq     int                  `json:"callSeq,omitempty"`
	Interrupted *SnapshotInterrupted `json:"interrupted,omitempty"`
	Options     *SnapshotOptions     `json:"options,omitempty"`
}

// SnapshotOptions are the session's data options a snapshot carries: never
// a function, never a credential.
//
//easyjson:json
type SnapshotOptions struct {
	BaseURL       string      `json:"baseUrl,omitempty"`
	MCPURL        string      `json:"mcpUrl,omitempty"`
	Model         string      `json:"model,omitempty"`
	Provider      string      `json:"provider,omitempty"`
	System        string      `json:"system,omitempty"`
	MaxTokens     int         `json:"maxTokens,omitempty"`
	Temperature   *float64    `json:"temperature,omitempty"`
	ToolChoice    *ToolChoice `json:"toolChoice,omitempty"`
	MaxToolRounds int         `json:"maxToolRounds,omitempty"`
	OpenAIBaseURL string      `json:"openaiBaseUrl,omitempty"`
}

// SnapshotMessage is one message of the history.
//
//easyjson:json
type SnapshotMessage struct {
	Role       string             `json:"role"`
	Content    string             `json:"content"`
	ToolCalls  []SnapshotToolCall `json:"toolCalls,omitempty"`
	ToolCallID string             `json:"toolCallId,omitempty"`
	ToolName   string             `json:"toolName,omitempty"`
}

// SnapshotToolCall is a call of an assistant message.
//
//easyjson:json
type SnapshotToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments rawjson.Message `json:"arguments"`
}

// SnapshotAsk is an ask the last turn stopped on.
//
//easyjson:json
type SnapshotAsk struct {
	AskID      string          `json:"askId"`
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Action     string          `json:"action"`
	Detail     rawjson.Message `json:"detail,omitempty"`
}

// SnapshotUsage is the tokens of every turn so far.
//
//easyjson:json
type SnapshotUsage struct {
	InputTokens  int64 `json:"inputTokens"`
	OutputTokens int64 `json:"outputTokens"`
}

// SnapshotInterrupted records a turn that was running when the snapshot was
// taken: its user message, which the history leaves out.
//
//easyjson:json
type SnapshotInterrupted struct {
	Text string `json:"text"`
}
