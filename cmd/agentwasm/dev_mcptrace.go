// agentwasm dev --trace: the demo MCP server's server spans (one per MCP
// request, continuing the trace the caller sent), each written as one line
// on the dev server's stdout as it ends.

package main

import (
	"context"
	"io"
	"strconv"
	"strings"
	"sync"
	"unicode"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/agentwasm/agentwasm/serve/mcpserver"
	"github.com/agentwasm/agentwasm/tracing"
)

// devTraceUsage is the --trace flag's description.
const devTraceUsage = "print a line on stdout for each MCP request /api/mcp answers (its server span: trace id, span id, the caller's span id as parent, name, duration, error.type)"

// devMCPTracer returns the demo MCP server's tracer when w is not nil: an
// OpenTelemetry tracer provider that samples every span and writes each
// ended one to w as a spanLineWriter line; nil when w is nil (no tracing).
func devMCPTracer(w io.Writer) mcpserver.Tracer {
	if w == nil {
		return nil
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithSpanProcessor(&spanLineWriter{w: w}),
	)
	return tracing.MCPServer(tp.Tracer(tracing.ScopeName))
}

// spanLineWriter is a span processor that writes each span as it ends, in
// the goroutine that ends it, as one line:
//
//	trace TRACEID span SPANID parent PARENTID|- NAME D.D ms[ error ERRORTYPE]
//
// parent is "-" for a root; "error" is there only when the span has an
// error.type attribute. Writes are serialized; a write that fails is
// dropped (the request it describes is answered all the same).
type spanLineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// OnStart does nothing: a span is written when it ends.
func (p *spanLineWriter) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

// OnEnd writes s's line.
func (p *spanLineWriter) OnEnd(s sdktrace.ReadOnlySpan) {
	line := spanTraceLine(s)
	p.mu.Lock()
	defer p.mu.Unlock()
	_, _ = io.WriteString(p.w, line)
}

// Shutdown does nothing: every line is written as its span ends.
func (p *spanLineWriter) Shutdown(context.Context) error { return nil }

// ForceFlush does nothing: nothing is buffered.
func (p *spanLineWriter) ForceFlush(context.Context) error { return nil }

// spanTraceLine is s's line, with its newline.
func spanTraceLine(s sdktrace.ReadOnlySpan) string {
	sc := s.SpanContext()
	parent := "-"
	if p := s.Parent(); p.IsValid() {
		parent = p.SpanID().String()
	}
	line := "trace " + sc.TraceID().String() + " span " + sc.SpanID().String() + " parent " + parent + " " + oneLine(s.Name()) + " " +
		strconv.FormatFloat(s.EndTime().Sub(s.StartTime()).Seconds()*1000, 'f', 1, 64) + " ms"
	if e := attrsOf(s.Attributes()).str("error.type"); e != "" {
		line += " error " + oneLine(e)
	}
	return line + "\n"
}

// oneLine returns s as it is, or quoted (Go syntax) when it holds a
// control character: a caller names the tool in a tools/call, and a name
// with a line break must not write a second, forged line.
func oneLine(s string) string {
	if strings.ContainsFunc(s, unicode.IsControl) {
		return strconv.Quote(s)
	}
	return s
}

// spanLineWriter is a span processor.
var _ sdktrace.SpanProcessor = (*spanLineWriter)(nil)
