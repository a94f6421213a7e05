// OpenAI chat completions wire types: the request a session (or the dev
// proxy) posts to an OpenAI-compatible …/v1/chat/completions endpoint, and
// the chunks of its streamed answer. internal/openai builds and reads them.

package wire

import "github.com/agentwasm/agentwasm/internal/rawjson"

// OpenAIRequest is the body of POST …/v1/chat/completions.
//
//easyjson:json
//agentwasm:encode-only
type OpenAIRequest struct {
	Model         string               `json:"model,omitempty"`
	Messages      []OpenAIMessage      `json:"messages"`
	Tools         []OpenAITool         `json:"tools,omitempty"`
	ToolChoice    rawjson.Message      `json:"tool_choice,omitempty"`
	MaxTokens     int                  `json:"max_tokens,omitempty"`
	Temperature   *float64             `json:"temperature,omitempty"`
	Stream        bool                 `json:"stream"`
	StreamOptions *OpenAIStreamOptions `json:"stream_options,omitempty"`
}

// OpenAIStreamOptions asks for the usage chunk at the end of the stream.
//
//easyjson:json
//agentwasm:encode-only
type OpenAIStreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// OpenAIMessage is one message of the conversation. Content is its text as
// a JSON string, or null for an assistant message that only calls tools.
//
//easyjson:json
//agentwasm:encode-only
type OpenAIMessage struct {
	Role       string           `json:"role"`
	Content    rawjson.Message  `json:"content"`
	ToolCalls  []OpenAIToolCall `json:"tool_calls,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
}

// OpenAIToolCall is a tool call of an assistant message in the history.
//
//easyjson:json
//agentwasm:encode-only
type OpenAIToolCall struct {
	ID       string             `json:"id"`
	Type     string             `json:"type"`
	Function OpenAIFunctionCall `json:"function"`
}

// OpenAIFunctionCall names the function a history tool call called;
// Arguments is JSON text, as a string.
//
//easyjson:json
//agentwasm:encode-only
type OpenAIFunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// OpenAITool is an advertised tool.
//
//easyjson:json
//agentwasm:encode-only
type OpenAITool struct {
	Type     string         `json:"type"`
	Function OpenAIFunction `json:"function"`
}

// OpenAIFunction describes an advertised function; Parameters is its JSON
// schema.
//
//easyjson:json
//agentwasm:encode-only
type OpenAIFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  rawjson.Message `json:"parameters"`
}

// OpenAIChunk is one chunk of a streamed chat completion, or a whole
// non-streamed completion (whose choices carry message, not delta), or an
// error body ({"error": …}).
//
//easyjson:json
//agentwasm:decode-only
type OpenAIChunk struct {
	Model   string          `json:"model"`
	Choices []OpenAIChoice  `json:"choices"`
	Usage   *OpenAIUsage    `json:"usage"`
	Error   rawjson.Message `json:"error"`
}

// OpenAIChoice is one choice of a chunk.
//
//easyjson:json
//agentwasm:decode-only
type OpenAIChoice struct {
	Index        int          `json:"index"`
	Delta        *OpenAIDelta `json:"delta"`
	Message      *OpenAIDelta `json:"message"`
	FinishReason string       `json:"finish_reason"`
}

// OpenAIDelta is what a chunk adds to the answer. FunctionCall is the
// legacy single function call.
//
//easyjson:json
//agentwasm:decode-only
type OpenAIDelta struct {
	Content      string                `json:"content"`
	Refusal      string                `json:"refusal"`
	ToolCalls    []OpenAIToolCallDelta `json:"tool_calls"`
	FunctionCall *OpenAIFunctionDelta  `json:"function_call"`
}

// OpenAIToolCallDelta is a part of one tool call. Index keys the call; an
// upstream may leave it out.
//
//easyjson:json
//agentwasm:decode-only
type OpenAIToolCallDelta struct {
	Index    *int                 `json:"index"`
	ID       string               `json:"id"`
	Function *OpenAIFunctionDelta `json:"function"`
}

// OpenAIFunctionDelta is a part of a called function: its name, usually
// whole in the first part, and a fragment of its arguments' JSON text (a
// JSON string; some upstreams send an object instead).
//
//easyjson:json
//agentwasm:decode-only
type OpenAIFunctionDelta struct {
	Name      string          `json:"name"`
	Arguments rawjson.Message `json:"arguments"`
}

// OpenAIUsage is the token count of the answer.
//
//easyjson:json
//agentwasm:decode-only
type OpenAIUsage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
}

// OpenAIErrorBody is the body of a failed response: {"error": …} as
// OpenAI sends it, or {"message": …} / {"detail": …} as some servers do.
//
//easyjson:json
//agentwasm:decode-only
type OpenAIErrorBody struct {
	Error   rawjson.Message `json:"error"`
	Message rawjson.Message `json:"message"`
	Detail  rawjson.Message `json:"detail"`
}

// OpenAIErrorObject is the object form of an error value.
//
//easyjson:json
//agentwasm:decode-only
type OpenAIErrorObject struct {
	Message rawjson.Message `json:"message"`
}
