// Tests of agentwasm chat --trace: its printer (spans made with the
// OpenTelemetry SDK at fixed moments, recorded by tracetest's SpanRecorder,
// and the exact tree writeTraceTree writes of them), its refusal with
// --wasm, and a traced turn against the dev server.

package main

import (
	"context"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// traceBuilder makes spans at moments given in milliseconds from t0.
type traceBuilder struct {
	tr trace.Tracer
	t0 time.Time
}

// at is the moment ms milliseconds after t0.
func (b *traceBuilder) at(ms float64) time.Time {
	return b.t0.Add(time.Duration(ms * float64(time.Millisecond)))
}

// span starts a span under ctx's at from with attrs, applies also, ends it
// at to (a negative to leaves it unfinished), and returns the context of
// its children.
func (b *traceBuilder) span(ctx context.Context, name string, from, to float64, attrs []attribute.KeyValue, also ...func(trace.Span)) context.Context {
	ctx, s := b.tr.Start(ctx, name, trace.WithTimestamp(b.at(from)), trace.WithAttributes(attrs...))
	for _, f := range also {
		f(s)
	}
	if to >= 0 {
		s.End(trace.WithTimestamp(b.at(to)))
	}
	return ctx
}

// event adds an event at ms.
func (b *traceBuilder) event(name string, ms float64, attrs ...attribute.KeyValue) func(trace.Span) {
	return func(s trace.Span) { s.AddEvent(name, trace.WithTimestamp(b.at(ms)), trace.WithAttributes(attrs...)) }
}

// failed sets the span's status to ERROR with msg.
func failed(msg string) func(trace.Span) {
	return func(s trace.Span) { s.SetStatus(codes.Error, msg) }
}

// Attribute shorthands.
var (
	str   = attribute.String
	num   = attribute.Int
	flt   = attribute.Float64
	truth = attribute.Bool
	strs  = attribute.StringSlice
)

// attrs is a list of attributes.
func attrs(kv ...attribute.KeyValue) []attribute.KeyValue { return kv }

// mcpCall is the attributes of an MCP client span.
func mcpCall(method string, kv ...attribute.KeyValue) []attribute.KeyValue {
	return append(attrs(str("mcp.method.name", method), str("network.protocol.name", "http"), str("server.address", "127.0.0.1"), num("server.port", 8080)), kv...)
}

// toolCall is the attributes of an execute_tool span.
func toolCall(name, id, plane, outcome string, kv ...attribute.KeyValue) []attribute.KeyValue {
	return append(attrs(str("gen_ai.operation.name", "execute_tool"), str("gen_ai.tool.name", name), str("gen_ai.tool.call.id", id),
		str("agentwasm.tool.plane", plane), str("agentwasm.tool.outcome", outcome)), kv...)
}

// chatRound is the attributes of a chat span.
func chatRound(round int, kv ...attribute.KeyValue) []attribute.KeyValue {
	return append(attrs(str("gen_ai.operation.name", "chat"), str("gen_ai.provider.name", "openai"), str("gen_ai.request.model", "gpt-test"),
		truth("gen_ai.request.stream", true), num("agentwasm.round", round)), kv...)
}

// turnAttrs is the attributes of an invoke_agent span.
func turnAttrs(kind, status string, rounds int, kv ...attribute.KeyValue) []attribute.KeyValue {
	return append(attrs(str("gen_ai.operation.name", "invoke_agent"), str("gen_ai.provider.name", "openai"), str("gen_ai.request.model", "gpt-test"),
		str("agentwasm.turn.kind", kind), str("agentwasm.turn.status", status), num("agentwasm.turn.rounds", rounds)), kv...)
}

func TestWriteTraceTree(t *testing.T) {
	cases := []struct {
		name  string
		build func(b *traceBuilder)
		want  string
	}{
		{
			name:  "no spans",
			build: func(*traceBuilder) {},
			want:  "",
		},
		{
			name: "a turn with a page tool, an MCP tool, a conflict retry and an approval",
			build: func(b *traceBuilder) {
				turn := b.span(context.Background(), "invoke_agent", 0, 950,
					turnAttrs("send", "completed", 3, num("gen_ai.usage.input_tokens", 830), num("gen_ai.usage.output_tokens", 69)),
					b.event(eventApprovalRequested, 944.5, str("agentwasm.approval.ask_id", "ask-1"), str("agentwasm.approval.action", "publish"),
						str("gen_ai.tool.call.id", "call_4"), str("gen_ai.tool.name", "honua_studio_publish_map")))
				disc := b.span(turn, "discover_tools", 0.25, 30, attrs(num("agentwasm.discovery.discovered", 4), num("agentwasm.discovery.routed", 4), num("agentwasm.discovery.pages", 1)))
				b.span(disc, "initialize", 2, 10, mcpCall("initialize", str("jsonrpc.request.id", "1"), str("mcp.session.id", "s-1")))
				b.span(disc, "notifications/initialized", 11, 13, mcpCall("notifications/initialized", str("mcp.session.id", "s-1")))
				b.span(disc, "tools/list", 14, 28.04, mcpCall("tools/list", str("jsonrpc.request.id", "2"), str("mcp.session.id", "s-1")))
				b.span(turn, "chat gpt-test", 30, 230, chatRound(1, str("gen_ai.response.model", "gpt-test-2026-01"), strs("gen_ai.response.finish_reasons", []string{"tool_calls"}),
					num("gen_ai.usage.input_tokens", 120), num("gen_ai.usage.output_tokens", 14), flt("gen_ai.response.time_to_first_chunk", 0.0352)))
				b.span(turn, "execute_tool set_basemap", 231, 236.5, toolCall("set_basemap", "call_1", "runtime", "ok", str("gen_ai.tool.type", "function")))
				add := b.span(turn, "execute_tool honua_studio_add_layer", 237, 420,
					toolCall("honua_studio_add_layer", "call_2", "composition", "ok", str("gen_ai.tool.type", "extension"), truth("agentwasm.tool.retried_after_conflict", true)),
					b.event("agentwasm.tool.conflict_retry", 300))
				b.span(add, "tools/call honua_studio_add_layer", 238, 299, mcpCall("tools/call", str("gen_ai.tool.name", "honua_studio_add_layer"), str("error.type", "-32009"),
					str("rpc.response.status_code", "-32009")), failed("conflict: the draft changed"))
				b.span(add, "tools/call honua_studio_get_draft", 301, 340, mcpCall("tools/call", str("gen_ai.tool.name", "honua_studio_get_draft")))
				b.span(add, "tools/call honua_studio_add_layer", 341, 418, mcpCall("tools/call", str("gen_ai.tool.name", "honua_studio_add_layer")))
				b.span(turn, "chat gpt-test", 421, 700, chatRound(2, str("gen_ai.response.model", "gpt-test-2026-01"), strs("gen_ai.response.finish_reasons", []string{"tool_calls"}),
					num("gen_ai.usage.input_tokens", 300), num("gen_ai.usage.output_tokens", 20), flt("gen_ai.response.time_to_first_chunk", 0.041)))
				b.span(turn, "execute_tool drop_table", 701, 701.2, toolCall("drop_table", "call_3", "unknown", "error", str("error.type", "unknown_tool")), failed("no tool drop_table"))
				b.span(turn, "execute_tool honua_studio_publish_map", 702, 760, toolCall("honua_studio_publish_map", "call_4", "composition", "ok", str("agentwasm.approval.ask_id", "ask-1")))
				b.span(turn, "chat gpt-test", 761, 940, chatRound(3, str("gen_ai.response.model", "gpt-test-2026-01"), strs("gen_ai.response.finish_reasons", []string{"stop"}),
					num("gen_ai.usage.input_tokens", 410), num("gen_ai.usage.output_tokens", 35), flt("gen_ai.response.time_to_first_chunk", 0.2)))
				b.span(turn, "await_approval publish", 944.5, 1990, attrs(str("agentwasm.approval.ask_id", "ask-1"), str("agentwasm.approval.action", "publish"),
					str("gen_ai.tool.name", "honua_studio_publish_map"), str("gen_ai.tool.call.id", "call_4"), str("agentwasm.approval.outcome", "abandoned")))
			},
			want: `invoke_agent 950.0 ms: completed, 3 rounds
├─ discover_tools 29.8 ms: 4 discovered, 4 routed
│  ├─ initialize 8.0 ms
│  ├─ notifications/initialized 2.0 ms
│  └─ tools/list 14.0 ms
├─ chat gpt-test 200.0 ms: model gpt-test-2026-01, finish tool_calls, tokens 120 in / 14 out, first chunk 35.2 ms
├─ execute_tool set_basemap 5.5 ms: page, ok
├─ execute_tool honua_studio_add_layer 183.0 ms: MCP, ok, retried after conflict
│  ├─ tools/call honua_studio_add_layer 61.0 ms: error [-32009]
│  ├─ tools/call honua_studio_get_draft 39.0 ms
│  └─ tools/call honua_studio_add_layer 77.0 ms
├─ chat gpt-test 279.0 ms: model gpt-test-2026-01, finish tool_calls, tokens 300 in / 20 out, first chunk 41.0 ms
├─ execute_tool drop_table 0.2 ms: unknown, error [unknown_tool]
├─ execute_tool honua_studio_publish_map 58.0 ms: MCP, ok
├─ chat gpt-test 179.0 ms: model gpt-test-2026-01, finish stop, tokens 410 in / 35 out, first chunk 200.0 ms
├─ await_approval publish 1045.5 ms: abandoned
└─ approval requested at 944.5 ms: publish, ask ask-1, tool honua_studio_publish_map
`,
		},
		{
			name: "a resume under the ask it answers",
			build: func(b *traceBuilder) {
				send := b.span(context.Background(), "invoke_agent", 0, 100, turnAttrs("send", "completed", 1),
					b.event(eventApprovalRequested, 99, str("agentwasm.approval.ask_id", "ask-1"), str("agentwasm.approval.action", "publish"), str("gen_ai.tool.name", "publish_map")))
				b.span(send, "chat gpt-test", 1, 98, chatRound(1, strs("gen_ai.response.finish_reasons", []string{"tool_calls"})))
				wait := b.span(send, "await_approval publish", 99, 5000, attrs(str("agentwasm.approval.action", "publish"), str("agentwasm.approval.outcome", "approved")))
				resume := b.span(wait, "invoke_agent", 5000, 5200, turnAttrs("resume", "completed", 1),
					b.event(eventApprovalAnswered, 5000, str("agentwasm.approval.ask_id", "ask-1"), truth("agentwasm.approval.approved", true)),
					b.event(eventApprovalAnswered, 5000, str("agentwasm.approval.ask_id", "ask-2"), truth("agentwasm.approval.approved", false)))
				b.span(resume, "execute_tool publish_map", 5001, 5050, toolCall("publish_map", "call_1", "composition", "ok"))
				b.span(resume, "chat gpt-test", 5051, 5199, chatRound(1, strs("gen_ai.response.finish_reasons", []string{"stop"})))
			},
			want: `invoke_agent 100.0 ms: completed, 1 round
├─ chat gpt-test 97.0 ms: finish tool_calls
├─ await_approval publish 4901.0 ms: approved
│  └─ invoke_agent 200.0 ms: completed, 1 round
│     ├─ approval answered at 0.0 ms: ask ask-1, approved
│     ├─ approval answered at 0.0 ms: ask ask-2, declined
│     ├─ execute_tool publish_map 49.0 ms: MCP, ok
│     └─ chat gpt-test 148.0 ms: finish stop
└─ approval requested at 99.0 ms: publish, ask ask-1, tool publish_map
`,
		},
		{
			name: "a model's tool name with a line break stays on its line, quoted",
			build: func(b *traceBuilder) {
				turn := b.span(context.Background(), "invoke_agent", 0, 10, turnAttrs("send", "completed", 1))
				b.span(turn, "execute_tool x\ninvoke_agent 1.0 ms: forged", 1, 2, toolCall("x\ninvoke_agent 1.0 ms: forged", "call_1", "unknown", "error", str("error.type", "unknown_tool")))
			},
			want: `invoke_agent 10.0 ms: completed, 1 round
└─ "execute_tool x\ninvoke_agent 1.0 ms: forged 1.0 ms: unknown, error [unknown_tool]"
`,
		},
		{
			name: "failed turns",
			build: func(b *traceBuilder) {
				turn := b.span(context.Background(), "invoke_agent", 0, 40, turnAttrs("send", "error", 1, str("error.type", "upstream_unavailable")), failed("the upstream answered 503"))
				b.span(turn, "chat gpt-test", 1, 39, chatRound(1, str("error.type", "upstream_unavailable")), failed("the upstream answered 503"))
				turn = b.span(context.Background(), "invoke_agent", 50, 60, turnAttrs("send", "cancelled", 1, str("error.type", "cancelled")), failed("cancelled"))
				b.span(turn, "chat gpt-test", 51, 59, chatRound(1, str("error.type", "transport_error")), failed("the connection was closed"))
				b.span(context.Background(), "discover_tools", 70, 80, attrs(num("agentwasm.discovery.discovered", 0), num("agentwasm.discovery.routed", 0),
					truth("agentwasm.discovery.degraded", true), str("error.type", "discovery_failed")), failed("the MCP server is unreachable"))
			},
			want: `invoke_agent 40.0 ms: error [upstream_unavailable], 1 round
└─ chat gpt-test 38.0 ms: error [upstream_unavailable]
invoke_agent 10.0 ms: cancelled, 1 round
└─ chat gpt-test 8.0 ms: error [transport_error]
discover_tools 10.0 ms: 0 discovered, 0 routed, degraded, error [discovery_failed]
`,
		},
		{
			name: "roots: spans whose parent is not among them, in the order they started",
			build: func(b *traceBuilder) {
				remote := trace.ContextWithRemoteSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{
					TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4, 5, 6}, TraceFlags: trace.FlagsSampled, Remote: true}))
				b.span(remote, "tools/call honua_studio_get_draft", 20, 25, mcpCall("tools/call", str("gen_ai.tool.name", "honua_studio_get_draft")))
				b.span(context.Background(), "ping", 10, 10.05, mcpCall("tools/list", str("error.type", "transport_error")), failed("refused"))
				b.span(context.Background(), "await_approval", 30, 31, attrs(str("agentwasm.approval.action", "delete"), str("agentwasm.approval.outcome", "declined")))
				b.span(context.Background(), "something else", 5, 6, nil, failed("broke"))
			},
			want: `something else 1.0 ms: error
ping 0.1 ms: tools/list, error [transport_error]
tools/call honua_studio_get_draft 5.0 ms
await_approval 1.0 ms: delete, declined
`,
		},
		{
			name: "unfinished spans",
			build: func(b *traceBuilder) {
				turn := b.span(context.Background(), "invoke_agent", 0, -1, attrs(str("gen_ai.operation.name", "invoke_agent"), str("agentwasm.turn.kind", "send")))
				b.span(turn, "chat gpt-test", 1, -1, chatRound(1))
			},
			want: `invoke_agent unfinished
└─ chat gpt-test unfinished
`,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
			defer func() { _ = tp.Shutdown(context.Background()) }()
			c.build(&traceBuilder{tr: tp.Tracer("test"), t0: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)})
			spans := rec.Ended()
			for _, s := range rec.Started() {
				if s.EndTime().IsZero() {
					spans = append(spans, s)
				}
			}

			var b strings.Builder
			writeTraceTree(&b, spans)
			assert.Equal(t, c.want, b.String())

			// The tree is the same whatever the order the spans come in.
			slices.Reverse(spans)
			b.Reset()
			writeTraceTree(&b, spans)
			assert.Equal(t, c.want, b.String(), "spans given in reverse order")
		})
	}
}

// TestWriteTraceTreeParentLoop: spans whose parents form a loop (which no
// tracer makes, but a list of spans can hold) are still each written once,
// from the earliest of the loop.
func TestWriteTraceTreeParentLoop(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	sc := func(id byte) trace.SpanContext {
		return trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{9}, SpanID: trace.SpanID{id}})
	}
	stubs := tracetest.SpanStubs{
		{Name: "b", SpanContext: sc(2), Parent: sc(1), StartTime: t0.Add(2 * time.Millisecond), EndTime: t0.Add(3 * time.Millisecond)},
		{Name: "a", SpanContext: sc(1), Parent: sc(2), StartTime: t0.Add(time.Millisecond), EndTime: t0.Add(4 * time.Millisecond)},
		{Name: "self", SpanContext: sc(3), Parent: sc(3), StartTime: t0, EndTime: t0.Add(time.Millisecond)},
	}
	var b strings.Builder
	writeTraceTree(&b, stubs.Snapshots())
	assert.Equal(t, "self 1.0 ms\na 3.0 ms\n└─ b 1.0 ms\n", b.String())
}

func TestChatModeConflict(t *testing.T) {
	cases := []struct {
		name string
		o    chatOptions
		want []string // in the message; none: no conflict
	}{
		{"native", chatOptions{}, nil},
		{"--trace natively", chatOptions{Trace: true}, nil},
		{"--wasm", chatOptions{Wasm: true}, nil},
		{"--trace --json", chatOptions{Trace: true, JSON: true}, nil},
		{"--trace --wasm", chatOptions{Trace: true, Wasm: true}, []string{"--trace cannot be used with --wasm", "the wasip1 module does no tracing", "run the turn natively, without --wasm"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			msg := chatModeConflict(c.o)
			if c.want == nil {
				assert.Empty(t, msg)
			}
			for _, w := range c.want {
				assert.Contains(t, msg, w)
			}
		})
	}
}

// TestChatTrace runs a turn with --trace against the dev server's scripted
// model and demo MCP server: the tree is on stderr, stdout is as without
// it, and --wasm is refused.
func TestChatTrace(t *testing.T) {
	help := runArgs("chat", "--help")
	assert.Contains(t, help.stdout, "-trace")
	assert.Contains(t, help.stdout, strings.SplitN(chatTraceUsage, "\n", 2)[0])

	refused := runArgs("chat", "--trace", "--wasm", "hi")
	assert.Equal(t, 2, refused.code)
	assert.Contains(t, refused.stderr, "the wasip1 module does no tracing")

	base := startDev(t, 0)
	chatLines := regexp.MustCompile(`(?m)^[├└]─ chat\b.* ms: `)
	assertTree := func(t *testing.T, stderr string) {
		t.Helper()
		assert.Regexp(t, `(?m)^invoke_agent [0-9]+\.[0-9] ms: completed, 3 rounds$`, stderr)
		assert.Len(t, chatLines.FindAllString(stderr, -1), 3, "one chat span per round:\n%s", stderr)
		assert.Regexp(t, `(?m)^[├└]─ execute_tool honua_studio_create_draft [0-9.]+ ms: MCP, ok$`, stderr)
		assert.Regexp(t, `(?m)^[├└]─ execute_tool honua_studio_add_layer [0-9.]+ ms: MCP, ok, retried after conflict$`, stderr)
		assert.Regexp(t, `(?m)^[│ ]  [├└]─ tools/call honua_studio_get_draft [0-9.]+ ms`, stderr)
	}

	t.Run("text", func(t *testing.T) {
		r := runArgs("chat", "--base-url", base, "--trace", "add a schools layer")
		require.Equal(t, 0, r.code, r.stderr)
		assertTree(t, r.stderr)
		assert.True(t, strings.HasSuffix(r.stderr, "agentwasm chat: completed (3 rounds, 2 tool calls)\n"), r.stderr)
		assert.NotContains(t, r.stdout, "invoke_agent", "the tree is not on stdout")
		assert.Contains(t, r.stdout, "[tool] honua_studio_add_layer")

		// docs/TRACING.md's example is this turn on a fresh dev server: every
		// line the same but the times.
		doc, err := os.ReadFile("../../docs/TRACING.md")
		require.NoError(t, err)
		example := regexp.MustCompile("(?s)```text\n(invoke_agent .*?)```").FindSubmatch(doc)
		require.NotNil(t, example, "docs/TRACING.md has the example tree in a text block")
		times := regexp.MustCompile(`[0-9]+\.[0-9] ms`)
		tree := r.stderr[strings.Index(r.stderr, "invoke_agent "):strings.LastIndex(r.stderr, "agentwasm chat: ")]
		assert.Equal(t, times.ReplaceAllString(string(example[1]), "T ms"), times.ReplaceAllString(tree, "T ms"),
			"docs/TRACING.md's example tree (times aside) is what chat --trace prints on a fresh dev server")
	})
	t.Run("json", func(t *testing.T) {
		r := runArgs("chat", "--base-url", base, "--json", "--trace", "add a schools layer")
		require.Equal(t, 0, r.code, r.stderr)
		assertSchoolsTurn(t, decodeTurn(t, r))
		assertTree(t, r.stderr)
	})
}
