// Chat wire types: the request sent to the Studio AI proxy's chat endpoint and
// the JSON payload of each server-sent event it streams back.

package wire

import "github.com/agentwasm/agentwasm/internal/rawjson"

// ChatRequest is the body of POST {baseUrl}/v1/studio/ai/chat.
//
//easyjson:json
//agentwasm:encode-only
type ChatRequest struct {
	Provider    string        `json:"provider,omitempty"`
	Model       string        `json:"model,omitempty"`
	System      string        `json:"system,omitempty"`
	Messages    []ChatMessage `json:"messages"`
	Tools       []ToolSpec    `json:"tools,omitempty"`
	ToolChoice  *ToolChoice   `json:"toolChoice,omitempty"`
	MaxTokens   int           `json:"maxTokens,omitempty"`
	Temperature *float64      `json:"temperature,omitempty"`
}

// ChatMessage is one entry of the conversation history.
//
//easyjson:json
//agentwasm:encode-only
type ChatMessage struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"toolCalls,omitempty"`
	ToolCallID string     `json:"toolCallId,omitempty"`
	ToolName   string     `json:"toolName,omitempty"`
}

// ToolCall is a tool call carried by an assistant message.
//
//easyjson:json
//agentwasm:encode-only
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments rawjson.Message `json:"arguments"`
}

// ToolSpec is a tool advertised to the model.
//
//easyjson:json
type ToolSpec struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  rawjson.Message `json:"inputSchema,omitempty"`
	Annotations  rawjson.Message `json:"annotations,omitempty"`
	OutputSchema rawjson.Message `json:"outputSchema,omitempty"`
}

// ToolChoice tells the model whether and which tools to call.
//
//easyjson:json
type ToolChoice struct {
	Mode     string `json:"mode"`
	ToolName string `json:"toolName,omitempty"`
}

// StreamEvent is the JSON object in one SSE frame of the chat stream (the
// proxy protocol, docs/PROTOCOL.md). Type is overwritten from the frame's
// event name, which is the authority. It stays apart from session.StreamEvent,
// the event hosts receive, because it is the protocol's frame: session decodes
// it, and the dev binary's proxy, which does not build on session, encodes it.
// The members are the same (session/codec_test.go holds them equal).
//
//easyjson:json
type StreamEvent struct {
	Type               string          `json:"type"`
	Model              string          `json:"model,omitempty"`
	Text               string          `json:"text,omitempty"`
	ToolCallID         string          `json:"toolCallId,omitempty"`
	ToolName           string          `json:"toolName,omitempty"`
	ToolArgumentsDelta string          `json:"toolArgumentsDelta,omitempty"`
	ToolArguments      rawjson.Message `json:"toolArguments,omitempty"`
	StopReason         string          `json:"stopReason,omitempty"`
	PromptTokens       int64           `json:"promptTokens,omitempty"`
	CompletionTokens   int64           `json:"completionTokens,omitempty"`
	LatencyMs          float64         `json:"latencyMs,omitempty"`
	ErrorMessage       string          `json:"errorMessage,omitempty"`
	ErrorCode          string          `json:"errorCode,omitempty"`
}
