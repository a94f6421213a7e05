//go:build !js && !wasip1

// The tracing seam of the dispatcher (Options.Tracer): a server span for
// each MCP request and notification it answers, continuing the trace the
// client sent. The calls into a Tracer are compiled into native builds
// only (trace_native.go); in the wasm builds Tracer is a placeholder that
// is never called (trace_wasm.go).

package mcpserver

import "context"

// Tracer makes a server span of each JSON-RPC request and notification a
// Dispatcher answers (Options.Tracer): StartRequest is called as the
// dispatcher begins to answer a well-formed message (each message of a
// batch apart), and End on its handle once the answer is made. The tool's
// call runs with the returned context, so that its own spans are the
// server span's children. Package tracing implements it with
// OpenTelemetry (tracing.MCPServer), following the MCP semantic
// conventions; the parent is the trace context the client sent in
// params._meta, else in the HTTP headers, else none (a new trace).
//
// Not traced: a body that is not JSON-RPC (nothing names a method) and the
// stateless era's subscriptions/listen stream.
//
// Concurrency: the dispatcher calls its Tracer from every goroutine that
// handles a request, concurrently, so a Tracer must be safe for concurrent
// use; each RequestSpan's End is called once, by the goroutine that
// started it. The calls are made in native builds only; a panic in one is
// recovered and ignored (the request is answered untraced).
type Tracer interface {
	StartRequest(ctx context.Context, req TracedRequest) (context.Context, RequestSpan)
}

// TracedRequest describes one message the dispatcher answers to its Tracer.
type TracedRequest struct {
	// Method is the JSON-RPC method: "initialize", "tools/call" ….
	Method string
	// ToolName is the tool a tools/call names ("" for other methods).
	ToolName string
	// ID is the JSON-RPC id as text (a string id without its quotes); ""
	// for a notification.
	ID string
	// SessionID is the Mcp-Session-Id the request carries ("" none).
	SessionID string
	// MetaTraceParent and MetaTraceState are the W3C trace context the
	// message carries in params._meta ("traceparent", "tracestate"), as
	// sent: not checked.
	MetaTraceParent, MetaTraceState string
	// HeaderTraceParent and HeaderTraceState are the same from the
	// transport's headers (Request.Header), as sent: not checked.
	HeaderTraceParent, HeaderTraceState string
}

// RequestSpan is the end handle of one traced message.
type RequestSpan interface {
	// End is called once, when the dispatcher has made the answer.
	End(end RequestEnd)
}

// RequestEnd is how the dispatcher answered a traced message.
type RequestEnd struct {
	// SessionID is the session the message belongs to: the one the request
	// named, or the one initialize just issued ("" none).
	SessionID string
	// ErrorType is "" when the answer is a result (or there is none, for a
	// notification); the JSON-RPC error code of an error answer ("-32602",
	// with RPCError set); "tool_error" for a tools/call result with
	// isError.
	ErrorType string
	// RPCError says ErrorType is a JSON-RPC error code.
	RPCError bool
	// ErrorMessage is the error answer's message, or the tool error's text.
	ErrorMessage string
}
