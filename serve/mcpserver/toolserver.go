// What the dispatcher serves: the ToolServer interface (a tool list and
// tool calls, as JSON bytes), the optional CallHandler that wants the whole
// call, and the extra JSON-RPC methods Options.Methods may answer.

package mcpserver

import (
	"context"
)

// ToolServer is what the dispatcher serves: serve's port adapter
// (serve.NewPortToolServer) implements it, and so do the conformance
// fixture (cmd/mcp-conformance-server) and the dev binary's demo server.
type ToolServer interface {
	// ListTools returns the JSON array of MCP tool objects. The dispatcher
	// reads it when it is built, and again on each ToolsChanged.
	ListTools() []byte
	// CallTool runs one tool and returns a complete CallToolResult JSON
	// object. args is the arguments object ("{}" when the call had none).
	// The dispatcher calls it only with a name its tool list holds: a call
	// of another name is answered with the JSON-RPC error -32602 (invalid
	// params) before it reaches the tool server.
	CallTool(ctx context.Context, name string, args []byte) []byte
}

// ToolCall is one tools/call as the dispatcher received it.
type ToolCall struct {
	Name      string // the tool name
	Arguments []byte // the arguments object ("{}" when absent)
	// ProtocolVersion is the request's protocol version: the stateless
	// era's _meta version, or the version the session negotiated ("" when
	// unknown).
	ProtocolVersion string
	// ClientCapabilities is the client's capabilities object as JSON (the
	// stateless era's _meta; nil in the session era).
	ClientCapabilities []byte
	Stateless          bool // the request came in the 2026-07-28 era
	// SessionID is the call's MCP session: the Mcp-Session-Id initialize
	// issued, in the session era with Options.Sessions ("" in the stateless
	// era, or without sessions, where a call has no identity). serve's port
	// adapter makes it the call's caller (serve.WithCaller): an approval
	// backs only a fire of the session that asked for it.
	SessionID string
	// Progress, when not nil, sends notifications/progress for this call:
	// the request's _meta carried a progressToken and its transport can
	// stream (Request.Notify). progress must increase from one call to
	// the next (a value that does not is dropped); total <= 0 means
	// unknown and is left out, as is an empty message. Calls after the tool
	// returned send nothing. It is safe for concurrent use.
	Progress func(progress, total float64, message string)
}

// CallHandler is an optional interface of a ToolServer that wants the
// whole call (its era, the client's capabilities, a Progress function), and
// may answer it with a JSON-RPC error instead of a result (a missing client
// capability, for instance). When a ToolServer implements it, the
// dispatcher calls it instead of CallTool, and, as CallTool, only with a
// name the tool list holds.
type CallHandler interface {
	HandleToolCall(ctx context.Context, call ToolCall) ([]byte, *Error)
}

// Method answers one extra JSON-RPC method: params is the params object
// ("{}" when absent), the result a JSON object.
type Method func(ctx context.Context, params []byte) ([]byte, *Error)
