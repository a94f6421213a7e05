// The three kinds of MCP client errors: transport, protocol and tool.

package mcpclient

import (
	"strconv"

	"github.com/agentwasm/agentwasm/internal/mcp"
	"github.com/agentwasm/agentwasm/internal/rawjson"
)

// JSON-RPC and MCP error codes the MCP client reads or reports; each is
// the code internal/mcp defines.
const (
	// MethodNotFound is JSON-RPC's "method not found" (-32601).
	MethodNotFound = mcp.MethodNotFound
	// InternalError is JSON-RPC's "internal error" (-32603);
	// the client reports a broken tools/list walk and an unusable answer
	// with it.
	InternalError = mcp.InternalError
	// HeaderMismatch is the 2026-07-28 HeaderMismatch error
	// (-32020).
	HeaderMismatch = mcp.HeaderMismatch
	// MissingRequiredClientCapability is the 2026-07-28
	// MissingRequiredClientCapability error
	// (-32021).
	MissingRequiredClientCapability = mcp.MissingRequiredClientCapability
	// UnsupportedProtocolVersion is the 2026-07-28
	// UnsupportedProtocolVersion error (-32022).
	UnsupportedProtocolVersion = mcp.UnsupportedProtocolVersion
)

// TransportError reports an MCP request that got no usable answer: the
// network failed, the server answered with a non-2xx status and no JSON-RPC
// error, or the body was malformed or too large.
type TransportError struct {
	Method string // the JSON-RPC method, or "DELETE" for Close
	Status int    // the HTTP status, 0 when no response arrived
	Msg    string // what went wrong
	Err    error  // the cause, if any
}

// Error says which request failed and why.
func (e *TransportError) Error() string {
	s := "mcp: " + e.Method + ": " + e.Msg
	if e.Status != 0 {
		s += " (HTTP " + strconv.Itoa(e.Status) + ")"
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the cause.
func (e *TransportError) Unwrap() error { return e.Err }

// ProtocolError is a JSON-RPC error answer, or a breach of the protocol
// the client reports with a JSON-RPC code (a broken tools/list walk is
// InternalError).
type ProtocolError struct {
	Method  string          // the JSON-RPC method
	Code    int             // the JSON-RPC error code
	Message string          // the error message
	Data    rawjson.Message // the error's data member, if any
	Status  int             // the HTTP status it came with, 0 when the client made it up
}

// Error says which request failed, with the code and message.
func (e *ProtocolError) Error() string {
	return "mcp: " + e.Method + ": error " + strconv.Itoa(e.Code) + ": " + e.Message
}

// ToolError is a tools/call result with isError set. Code and Message
// come from structuredContent {code, message}, else from the first text
// block parsed as {code, message}, else Message is that block's raw text and
// Code is "unknown".
type ToolError struct {
	Tool    string     // the tool's name
	Code    string     // the error's code, "unknown" when it gave none
	Message string     // the error's message
	Result  ToolResult // the whole result
}

// Error says which tool failed, with the code and message.
func (e *ToolError) Error() string {
	return "mcp: tool " + e.Tool + " failed: " + e.Code + ": " + e.Message
}
