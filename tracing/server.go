//go:build !js && !wasip1

// MCPServer: the server spans of serve/mcpserver's dispatcher (the port's
// MCP server), continuing the trace a client sent.

package tracing

import (
	"context"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentwasm/agentwasm/serve/mcpserver"
)

// MCPServer returns an mcpserver.Tracer that makes an OpenTelemetry
// SERVER span of each MCP request and notification, with tracer (nil: the
// global provider's tracer named ScopeName), for mcpserver.Options.Tracer
// or serve.MCPServerOptions.Tracer. The span's parent is the remote span
// of the W3C trace context in the message's params._meta when it is valid,
// else of the request's traceparent (and tracestate) header when that is,
// else the context's own span (none for a plain HTTP server: a new root).
// An invalid trace context is ignored, never an error.
func MCPServer(tracer trace.Tracer) mcpserver.Tracer {
	return &serverTracer{tracer: orGlobal(tracer)}
}

// serverTracer implements mcpserver.Tracer.
type serverTracer struct {
	tracer trace.Tracer
}

// StartRequest starts the server span.
func (t *serverTracer) StartRequest(ctx context.Context, req mcpserver.TracedRequest) (context.Context, mcpserver.RequestSpan) {
	for _, tc := range [2][2]string{{req.MetaTraceParent, req.MetaTraceState}, {req.HeaderTraceParent, req.HeaderTraceState}} {
		if tc[0] == "" {
			continue
		}
		carrier := propagation.MapCarrier{"traceparent": tc[0]}
		if tc[1] != "" {
			carrier["tracestate"] = tc[1]
		}
		if sc := trace.SpanContextFromContext(traceContext.Extract(context.Background(), carrier)); sc.IsValid() {
			ctx = trace.ContextWithRemoteSpanContext(ctx, sc)
			break
		}
	}
	ctx, span := t.tracer.Start(ctx, mcpSpanName(req.Method, req.ToolName), trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(mcpAttrs(req.Method, req.ToolName, req.ID, req.SessionID)...))
	return ctx, &serverSpan{openMCP{span: span, sessionID: req.SessionID}}
}

// serverSpan is an MCP server span.
type serverSpan struct{ openMCP }

// End sets the session initialize issued and the error, and ends the span.
func (s *serverSpan) End(e mcpserver.RequestEnd) {
	s.end(e.SessionID, e.ErrorType, e.RPCError, e.ErrorMessage)
}
