//go:build !js && !wasip1

// The MCP client spans (mcpclient.Tracer, which session.Tracer includes)
// and the W3C trace context the session's requests carry.

package tracing

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentwasm/agentwasm/session/mcpclient"
)

// traceContext is the W3C Trace Context propagator (traceparent,
// tracestate).
var traceContext = propagation.TraceContext{}

// MCPClient returns an mcpclient.Tracer that makes OpenTelemetry client
// spans with tracer (nil: the global provider's tracer named ScopeName),
// for an mcpclient.Client a program makes itself (Config.Tracer). A
// session's default client needs none: Session's tracer serves it.
func MCPClient(tracer trace.Tracer) mcpclient.Tracer {
	return &mcpTracer{tracer: orGlobal(tracer)}
}

// mcpTracer implements mcpclient.Tracer.
type mcpTracer struct {
	tracer trace.Tracer
}

// StartRequest starts the MCP client span: "{method}", or
// "tools/call {tool}".
func (t *mcpTracer) StartRequest(ctx context.Context, req mcpclient.TracedRequest) (context.Context, mcpclient.RequestSpan) {
	attrs := append(mcpAttrs(req.Method, req.ToolName, req.ID, req.SessionID), attribute.String(keyNetworkProtocol, "http"))
	if req.ProtocolVersion != "" {
		attrs = append(attrs, attribute.String(keyMCPProtocol, req.ProtocolVersion))
	}
	attrs = append(attrs, serverAttrs(req.URL)...)
	ctx, span := t.tracer.Start(ctx, mcpSpanName(req.Method, req.ToolName), trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	return ctx, &mcpSpan{openMCP{span: span, sessionID: req.SessionID}}
}

// Inject writes the W3C trace context of ctx's span.
func (t *mcpTracer) Inject(ctx context.Context, set func(key, value string)) {
	traceContext.Inject(ctx, setter(set))
}

// setter is a write-only propagation.TextMapCarrier over a function.
type setter func(key, value string)

// Get reads nothing.
func (setter) Get(string) string { return "" }

// Set writes key and value.
func (s setter) Set(key, value string) { s(key, value) }

// Keys lists nothing.
func (setter) Keys() []string { return nil }

// mcpSpan is an MCP client span.
type mcpSpan struct{ openMCP }

// End sets the session the answer set and the error, and ends the span.
func (m *mcpSpan) End(e mcpclient.RequestEnd) {
	m.end(e.SessionID, e.ErrorType, e.RPCError, e.ErrorMessage)
}

// openMCP is an MCP span, client or server, and the session its request
// named.
type openMCP struct {
	span      trace.Span
	sessionID string
}

// end sets sessionID when the request named none (initialize's answer
// issued it) and the error (rpc.response.status_code too for a JSON-RPC
// error), and ends the span.
func (o openMCP) end(sessionID, errorType string, rpcError bool, msg string) {
	if sessionID != "" && o.sessionID == "" {
		o.span.SetAttributes(attribute.String(keyMCPSessionID, sessionID))
	}
	if errorType != "" {
		if rpcError {
			o.span.SetAttributes(attribute.String(keyRPCStatusCode, errorType))
		}
		setError(o.span, errorType, msg)
	}
	o.span.End()
}

// mcpSpanName is "{method}", or "tools/call {tool}".
func mcpSpanName(method, tool string) string {
	if tool != "" {
		return method + " " + tool
	}
	return method
}

// mcpAttrs are the attributes the client and server spans share.
func mcpAttrs(method, tool, id, sessionID string) []attribute.KeyValue {
	attrs := []attribute.KeyValue{attribute.String(keyMCPMethod, method)}
	if tool != "" {
		attrs = append(attrs, attribute.String(keyToolName, tool), attribute.String(keyOperationName, spanExecuteTool))
	}
	if id != "" {
		attrs = append(attrs, attribute.String(keyRequestID, id))
	}
	if sessionID != "" {
		attrs = append(attrs, attribute.String(keyMCPSessionID, sessionID))
	}
	return attrs
}
