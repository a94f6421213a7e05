// The module's replies and events as tests read them (decoded with
// encoding/json from the shapes in wasm/README.md). The turn's types and
// its parts mirror session's (the module's JSON is theirs); types_test.go
// holds them to the same JSON names.

package wazerotest

import "encoding/json"

// Reply is the module's answer to one command.
type Reply struct {
	OK        bool      `json:"ok"`
	Version   string    `json:"version"`
	ABI       int       `json:"abi"`
	GoVersion string    `json:"goVersion"`
	Session   int       `json:"session"`
	Turn      *Turn     `json:"turn"`
	Messages  []Message `json:"messages"`
	Report    *Report   `json:"report"`
	Draft     *Draft    `json:"draft"`
	Tools     []Tool    `json:"tools"`
	// Port is a new port's id; Value a port command's answer.
	Port  int             `json:"port"`
	Value json.RawMessage `json:"value"`
	Error *ErrorBody      `json:"error"`
}

// ErrorBody says why a command failed.
type ErrorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Turn is the record of one chat.
type Turn struct {
	Status       string           `json:"status"`
	Text         string           `json:"text"`
	ToolCalls    []DispatchRecord `json:"toolCalls"`
	Events       []StreamEvent    `json:"events"`
	StopReason   string           `json:"stopReason"`
	ErrorMessage string           `json:"errorMessage"`
	ErrorCode    string           `json:"errorCode"`
	Rounds       int              `json:"rounds"`
	// Usage sums the rounds' token counts (nil when none reported any);
	// PendingApprovals are the asks awaiting a person (session.resume).
	Usage            *Usage            `json:"usage"`
	PendingApprovals []PendingApproval `json:"pendingApprovals"`
}

// Usage is a turn's or a step's token counts.
type Usage struct {
	InputTokens  int64 `json:"inputTokens"`
	OutputTokens int64 `json:"outputTokens"`
}

// PendingApproval is an ask a turn stopped on.
type PendingApproval struct {
	AskID      string          `json:"askId"`
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Action     string          `json:"action"`
	Detail     json.RawMessage `json:"detail"`
}

// Step is what one model round did (a stepFinish event).
type Step struct {
	Round      int              `json:"round"`
	Text       string           `json:"text"`
	ToolCalls  []DispatchRecord `json:"toolCalls"`
	StopReason string           `json:"stopReason"`
	Usage      *Usage           `json:"usage"`
}

// StreamEvent is one event of the chat stream.
type StreamEvent struct {
	Type               string          `json:"type"`
	Model              string          `json:"model,omitempty"`
	Text               string          `json:"text,omitempty"`
	ToolCallID         string          `json:"toolCallId,omitempty"`
	ToolName           string          `json:"toolName,omitempty"`
	ToolArgumentsDelta string          `json:"toolArgumentsDelta,omitempty"`
	ToolArguments      json.RawMessage `json:"toolArguments,omitempty"`
	StopReason         string          `json:"stopReason,omitempty"`
	PromptTokens       int64           `json:"promptTokens,omitempty"`
	CompletionTokens   int64           `json:"completionTokens,omitempty"`
	LatencyMs          float64         `json:"latencyMs,omitempty"`
	ErrorMessage       string          `json:"errorMessage,omitempty"`
	ErrorCode          string          `json:"errorCode,omitempty"`
}

// Event is one event a session streamed to the host: "chat" with Event,
// "toolResult" with Result, "stepFinish" with Step, "toolDiscovery" with
// Report.
type Event struct {
	Type   string          `json:"type"`
	Event  *StreamEvent    `json:"event,omitempty"`
	Result *DispatchRecord `json:"result,omitempty"`
	Step   *Step           `json:"step,omitempty"`
	Report *Report         `json:"report,omitempty"`
	Status string          `json:"status,omitempty"` // toolWatch
	Detail string          `json:"detail,omitempty"` // toolWatch
	// A port's events: "warning" with Warning, "change" with Version
	// (always present on a change, 0 included).
	Warning *PortWarning `json:"warning,omitempty"`
	Version *int64       `json:"version,omitempty"`
}

// PortWarning is one of a port's once-only warnings.
type PortWarning struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Action  string `json:"action,omitempty"`
}

// Report is a tool discovery report.
type Report struct {
	Discovered      int             `json:"discovered"`
	Pages           int             `json:"pages"`
	Routed          []string        `json:"routed"`
	Rejected        []RejectedTool  `json:"rejected"`
	MissingRequired []string        `json:"missingRequired"`
	Diagnostics     []string        `json:"diagnostics"`
	ErrorMessage    string          `json:"errorMessage"`
	Classification  json.RawMessage `json:"classification"`
	Degraded        bool            `json:"degraded"`
}

// RejectedTool is one discovered tool the policy did not route.
type RejectedTool struct {
	Name           string          `json:"name"`
	Reason         string          `json:"reason"`
	Classification *Classification `json:"classification"`
	Detail         string          `json:"detail"`
}

// Classification is a rejected tool's Studio classification.
type Classification struct {
	Family   string `json:"family"`
	View     string `json:"view"`
	Revision string `json:"revision"`
}

// DispatchRecord is the record of one tool call the session dispatched.
type DispatchRecord struct {
	ToolCallID           string `json:"toolCallId"`
	ToolName             string `json:"toolName"`
	Plane                string `json:"plane"`
	OK                   bool   `json:"ok"`
	ErrorCode            string `json:"errorCode,omitempty"`
	ErrorMessage         string `json:"errorMessage,omitempty"`
	Content              string `json:"content"`
	Draft                *Draft `json:"draft,omitempty"`
	RetriedAfterConflict bool   `json:"retriedAfterConflict,omitempty"`
}

// Draft is a composition draft binding.
type Draft struct {
	DraftID    string `json:"draftId"`
	Generation int64  `json:"generation"`
}

// Message is one entry of a session's history.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"toolCalls,omitempty"`
	ToolCallID string     `json:"toolCallId,omitempty"`
	ToolName   string     `json:"toolName,omitempty"`
}

// ToolCall is a tool call carried by an assistant message.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// Tool is an advertised tool.
type Tool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}
