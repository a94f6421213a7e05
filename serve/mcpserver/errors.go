// JSON-RPC error answers: the Error type, the codes the dispatcher answers
// with, and the HTTP status each code's answer carries in either era.

package mcpserver

import (
	"strconv"

	"github.com/agentwasm/agentwasm/internal/mcp"
)

// Error is a JSON-RPC error answer.
type Error struct {
	Code    int    // the JSON-RPC error code
	Message string // a short description
	Data    []byte // the error's data member as JSON (nil: none)
}

// Error returns the code and message.
func (e *Error) Error() string { return "mcp error " + strconv.Itoa(e.Code) + ": " + e.Message }

// JSON-RPC and MCP error codes the dispatcher answers with; each is the
// code internal/mcp defines.
const (
	ParseError          = mcp.ParseError                      // -32700: the body is not JSON
	InvalidRequest      = mcp.InvalidRequest                  // -32600: not a valid JSON-RPC request
	MethodNotFound      = mcp.MethodNotFound                  // -32601: no such method (in this era)
	InvalidParams       = mcp.InvalidParams                   // -32602: params malformed or missing, or an unknown tool
	InternalError       = mcp.InternalError                   // -32603: the server failed
	SessionNotFound     = mcp.SessionNotFound                 // -32001: the session id is unknown or ended
	HeaderMismatch      = mcp.HeaderMismatch                  // -32020: a required header is missing or differs from the body
	MissingCapability   = mcp.MissingRequiredClientCapability // -32021: the client did not declare a capability the call needs
	UnsupportedProtocol = mcp.UnsupportedProtocolVersion      // -32022: the requested protocol version is not served
	ServerBusy          = mcp.ServerBusy                      // -32000: the session table is full of sessions in use: retry later (HTTP 503)
)

// statusFor maps an error code to the HTTP status of its answer.
func statusFor(code int, stateless bool) int {
	switch code {
	case MethodNotFound:
		if stateless {
			return 404
		}
		return 200
	case SessionNotFound:
		return 404
	case ServerBusy:
		return 503
	case InternalError:
		if stateless {
			return 500
		}
		return 200
	case ParseError, InvalidRequest, HeaderMismatch, MissingCapability, UnsupportedProtocol:
		return 400
	case InvalidParams:
		if stateless {
			return 400
		}
		return 200
	}
	if stateless {
		return 400
	}
	return 200
}
