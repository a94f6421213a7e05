//go:build !js && !wasip1

// The tracing seam of Client (Config.Tracer): a span for each MCP request
// and notification the client sends, and the W3C trace context written
// into its headers and its params._meta. The calls into a Tracer are
// compiled into native builds only (trace_native.go); the wasm builds
// (trace_wasm.go) leave them out, so there a Tracer is never called and
// costs the module nothing but this file's types.

package mcpclient

import "context"

// Tracer makes a span of each MCP request and notification a Client sends
// (Config.Tracer), in the manner of net/http/httptrace: a start function
// that returns the context of the request's span and a handle that ends
// it. Package tracing implements it with OpenTelemetry (the MCP semantic
// conventions' client spans); session.Tracer includes it, and a session
// hands its Tracer to its default Client.
//
// Traced: initialize, notifications/initialized, server/discover,
// tools/list (each page), tools/call (each attempt: a conflict's retry is
// a call of its own). Not traced: the notification stream of the
// list-changed watch (GET, subscriptions/listen), the DELETE that ends a
// session, and the client's answers to server requests.
//
// Concurrency: a Client calls its Tracer from every goroutine that sends a
// request, concurrently, so a Tracer must be safe for concurrent use. Each
// RequestSpan is used by the goroutine that started it: End is called once,
// after the answer was read (or the request failed). The calls are made
// only in native builds, in the goroutine of the request, and should
// return quickly; a panic in one is recovered and ignored (the request goes
// on untraced). The values handed to a Tracer carry no credential: the
// bearer token is never among them.
type Tracer interface {
	// StartRequest is called as a request (or notification) begins, before
	// its body is encoded for the wire; ctx is the call's context, whose
	// span, if any, is the parent. It returns the context of the request's
	// span (the client sends the request with it, and asks Inject for its
	// trace context) and the span's end handle (nil: nothing to end).
	StartRequest(ctx context.Context, req TracedRequest) (context.Context, RequestSpan)
	// Inject writes the trace context of ctx through set: the W3C
	// "traceparent" and, when there is one, "tracestate", with those
	// lower-case keys. Nothing is written when ctx carries no valid span.
	// The client sends them as headers and in params._meta.
	Inject(ctx context.Context, set func(key, value string))
}

// TracedRequest describes one MCP request or notification to its Tracer.
type TracedRequest struct {
	// Method is the JSON-RPC method: "initialize", "tools/call" ….
	Method string
	// ToolName is the tool a tools/call calls ("" for other methods).
	ToolName string
	// ID is the JSON-RPC id as text; "" for a notification.
	ID string
	// SessionID is the Mcp-Session-Id the request carries ("" none).
	SessionID string
	// ProtocolVersion is the MCP-Protocol-Version header the request
	// carries ("" none).
	ProtocolVersion string
	// URL is the MCP endpoint (Config.URL).
	URL string
}

// RequestSpan is the end handle of one traced request.
type RequestSpan interface {
	// End is called once, when the answer was read or the request failed.
	End(end RequestEnd)
}

// RequestEnd is how a traced request ended.
type RequestEnd struct {
	// SessionID is the Mcp-Session-Id the answer set (initialize); ""
	// when it set none.
	SessionID string
	// ErrorType is "" when the request succeeded; otherwise the JSON-RPC
	// error code of an error answer ("-32602", with RPCError set),
	// "tool_error" for a tools/call result with isError, the HTTP status of
	// a failed answer ("503"), "cancelled" when the call's context ended,
	// or "transport_error" for any other failure (no answer, a malformed
	// one).
	ErrorType string
	// RPCError says ErrorType is a JSON-RPC error code.
	RPCError bool
	// ErrorMessage says what failed ("" on success).
	ErrorMessage string
}
