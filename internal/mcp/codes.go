// JSON-RPC and MCP error codes.

package mcp

// JSON-RPC's standard error codes.
const (
	// ParseError: the body is not JSON (-32700).
	ParseError = -32700
	// InvalidRequest: the JSON is not a valid JSON-RPC request (-32600).
	InvalidRequest = -32600
	// MethodNotFound: no such method, or none in this era (-32601).
	MethodNotFound = -32601
	// InvalidParams: params malformed or missing, or an unknown tool
	// (-32602).
	InvalidParams = -32602
	// InternalError: the server failed (-32603); a client reports a
	// broken tools/list walk and an unusable answer with it too.
	InternalError = -32603
)

// Server error codes of JSON-RPC's implementation-defined range.
const (
	// ServerError is the first implementation-defined server error
	// (-32000). The TypeScript SDK answers a session-era request without a
	// session id with it; agentwasm's server, a full session table
	// (ServerBusy).
	ServerError = -32000
	// ServerBusy: the session table is full of sessions in use; retry
	// later (HTTP 503 with Retry-After). It is ServerError.
	ServerBusy = ServerError
	// SessionNotFound: the Mcp-Session-Id is unknown or ended (-32001,
	// HTTP 404).
	SessionNotFound = -32001
)

// The errors of the stateless era (2026-07-28).
const (
	// HeaderMismatch: a required header is missing or differs from the
	// body (-32020).
	HeaderMismatch = -32020
	// MissingRequiredClientCapability: the client did not declare a
	// capability the call needs (-32021).
	MissingRequiredClientCapability = -32021
	// UnsupportedProtocolVersion: the requested revision is not served;
	// the error's data lists the supported ones (-32022).
	UnsupportedProtocolVersion = -32022
)

// IsStatelessErrorCode reports whether code is an error only a
// stateless-era server sends.
func IsStatelessErrorCode(code int) bool {
	return code == HeaderMismatch || code == MissingRequiredClientCapability || code == UnsupportedProtocolVersion
}
