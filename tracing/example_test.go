//go:build !js && !wasip1

// Session's example: a scripted turn that calls one page tool, traced into
// an in-memory recorder and printed as a tree.

package tracing_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/agentwasm/agentwasm/session"
	"github.com/agentwasm/agentwasm/tracing"
)

func ExampleSession() {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer func() { _ = tp.Shutdown(context.Background()) }()

	model := session.NewScriptedTransport(
		session.ToolCallRound(session.ToolCall{ID: "call-1", Name: "setFilter", Args: json.RawMessage(`{"region":"north"}`)}),
		session.TextRound("Done: the map shows the north."),
	)
	s, err := session.New(session.Options{
		Transport: model, Model: "demo-model", DisableToolDiscovery: true,
		Tools: []session.ToolDefinition{{Name: "setFilter", InputSchema: json.RawMessage(`{"type":"object"}`)}},
		Execute: session.ExecutorFunc(func(context.Context, session.ToolCall) (session.ToolResult, error) {
			return session.ToolResult{Status: session.ToolOK}, nil
		}),
		Tracer: tracing.Session(tp.Tracer(tracing.ScopeName)),
	})
	if err != nil {
		panic(err)
	}
	turn := s.Chat(context.Background(), "Show me the north.")
	fmt.Println(turn.Status, turn.Text)

	// Print the tree: each span under its parent, in the order they started.
	spans := rec.Ended()
	sort.Slice(spans, func(i, j int) bool { return spans[i].StartTime().Before(spans[j].StartTime()) })
	depth := map[string]int{}
	for _, sp := range spans {
		d := 0
		if p := sp.Parent(); p.IsValid() {
			d = depth[p.SpanID().String()] + 1
		}
		depth[sp.SpanContext().SpanID().String()] = d
		fmt.Printf("%s%s (%s)\n", strings.Repeat("  ", d), sp.Name(), sp.SpanKind())
	}
	// Output:
	// completed Done: the map shows the north.
	// invoke_agent (internal)
	//   chat demo-model (client)
	//   execute_tool setFilter (internal)
	//   chat demo-model (client)
}
