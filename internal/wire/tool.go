// Tool wire types: the content of tool messages, and the tool calls and
// results that cross the host hooks.

package wire

import "github.com/agentwasm/agentwasm/internal/rawjson"

// ToolContent is the tool message content of a runtime tool's result, and
// the result a host's execute hook answers.
//
//easyjson:json
type ToolContent struct {
	Status       string          `json:"status"`
	Data         rawjson.Message `json:"data,omitempty"`
	DeniedReason string          `json:"deniedReason,omitempty"`
}

// Rejection is the tool message content of a call that did not run.
//
//easyjson:json
//agentwasm:encode-only
type Rejection struct {
	Status  string `json:"status"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message"`
}

// HookToolCall is the payload of the execute hook.
//
//easyjson:json
//agentwasm:encode-only
type HookToolCall struct {
	ToolCallID string          `json:"toolCallId"`
	Name       string          `json:"name"`
	Args       rawjson.Message `json:"args"`
}

// HookAuth is the payload of the auth hook.
//
//easyjson:json
//agentwasm:encode-only
type HookAuth struct {
	ForceRefresh bool `json:"forceRefresh"`
}

// HookRequest is what the wasip1 host receives from hook_start.
//
//easyjson:json
//agentwasm:encode-only
type HookRequest struct {
	Hook    string          `json:"hook"`
	Session int             `json:"session"`
	Payload rawjson.Message `json:"payload"`
}
