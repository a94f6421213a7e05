// Tools: the runtime tool plane a page supplies (a Kit, explicit Tools and an
// Executor), the calls the model makes, and the records of their dispatch.

package session

import (
	"context"
)

// ToolDefinition is a tool advertised to the model.
type ToolDefinition struct {
	Name         string
	Description  string
	InputSchema  RawJSON // a JSON Schema object; nil omits it
	Annotations  RawJSON // MCP-style annotations; nil omits them
	OutputSchema RawJSON // nil omits it
}

// ToolCall is one call the model made.
type ToolCall struct {
	ID   string
	Name string
	Args RawJSON // always a JSON object when handed to an Executor
}

// ToolStatus is what a runtime tool reports.
type ToolStatus string

// The statuses of a ToolResult. ToolOK and ToolDryRun count as success.
const (
	ToolOK     ToolStatus = "ok"
	ToolDryRun ToolStatus = "dry-run"
	ToolDenied ToolStatus = "denied"
	ToolError  ToolStatus = "error"
)

// ToolResult is what an Executor returns for one call.
type ToolResult struct {
	Status       ToolStatus
	Data         RawJSON // any JSON value; nil omits it
	DeniedReason string
	// Approval, when set, says the call waits for a person to answer an
	// ask: the turn stops after this round (see ApprovalRequest).
	Approval *ApprovalRequest
}

// An Executor runs runtime tools. Execute should return when ctx ends; the
// session stops waiting for it then either way. An error is reported to the
// model as a rejection of that call, and the turn goes on.
type Executor interface {
	Execute(ctx context.Context, call ToolCall) (ToolResult, error)
}

// ExecutorFunc adapts a function to the Executor interface.
type ExecutorFunc func(ctx context.Context, call ToolCall) (ToolResult, error)

// Execute calls f(ctx, call).
func (f ExecutorFunc) Execute(ctx context.Context, call ToolCall) (ToolResult, error) {
	return f(ctx, call)
}

// A Kit is a page's local tool plane: the tools it offers and the executor
// that runs them. Tools is read at the start of every turn, so a kit may
// change its tools between turns. A Kit that also implements SystemPrompter
// supplies the system prompt when Options sets none.
type Kit interface {
	Executor
	Tools() []ToolDefinition
}

// SystemPrompter is implemented by kits that describe the live page to the
// model. SystemPrompt is called once per turn.
type SystemPrompter interface {
	SystemPrompt(ctx context.Context) (string, error)
}

// Plane says which tool plane routed a call.
type Plane string

// The tool planes.
const (
	PlaneRuntime     Plane = "runtime"     // a kit or Options.Tools tool
	PlaneComposition Plane = "composition" // a tool discovered on the MCP server
	PlaneUnknown     Plane = "unknown"     // no tool of that name
)

// Rejection codes of a DispatchRecord whose call did not run.
const (
	CodeUnknownTool     = "unknown_tool"     // no tool of that name
	CodeNoExecutor      = "no_executor"      // runtime tools without kit or Execute
	CodeExecutionFailed = "execution_failed" // the executor returned an error or panicked
	CodeCancelled       = "cancelled"        // the turn was cancelled before or while it ran
)

// DispatchRecord is the record of one tool call the session dispatched.
//
//easyjson:json
//agentwasm:encode-only
type DispatchRecord struct {
	ToolCallID string `json:"toolCallId"`
	ToolName   string `json:"toolName"`
	Plane      Plane  `json:"plane"`
	OK         bool   `json:"ok"`
	ErrorCode  string `json:"errorCode,omitempty"` // a rejection code, or the failed result's status
	// ErrorMessage says why the call failed.
	ErrorMessage string `json:"errorMessage,omitempty"`
	// Content is the tool message sent back to the model: for runtime
	// tools {"status":…,"data"?,"deniedReason"?}, for rejections
	// {"status":"error","code"?,"message"}.
	Content              string        `json:"content"`
	Draft                *DraftBinding `json:"draft,omitempty"` // the draft a composition call left bound
	RetriedAfterConflict bool          `json:"retriedAfterConflict,omitempty"`
}
