//go:build !js && !wasip1

// Content and credentials: the person's message, the turn's text and the
// tools' arguments and results are recorded only with WithContent, and
// then redacted; the session's token (or the model endpoint's key) is in
// no attribute, event or status, with or without content. A session
// talking straight to an OpenAI-compatible endpoint sends its chat span's
// trace context there too.

package tracing_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/agentwasm/agentwasm/internal/wire"
	"github.com/agentwasm/agentwasm/session"
	"github.com/agentwasm/agentwasm/testing/fakemcp"
	"github.com/agentwasm/agentwasm/testing/fakeopenai"
	"github.com/agentwasm/agentwasm/tracing"
)

// contentKeys are the attributes that hold content.
var contentKeys = []string{"gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.arguments", "gen_ai.tool.call.result"}

// studioTurn runs the test turn through the Studio AI proxy, with the
// token in the person's message, in setFilter's arguments and result, and
// in the MCP tool's conflict message.
func studioTurn(t *testing.T, opts ...tracing.Option) []sdktrace.ReadOnlySpan {
	tracer, rec := recorder(t)
	st := startStudio(t, turnScript(`{"region":"`+secret+`"}`),
		&fakemcp.Server{Era: fakemcp.Session, Tools: composition, Call: conflictOnce("stale generation; your token " + secret + " is fine")})
	runTurn(t, st, "Use "+secret+" and pay.", session.Options{Kit: &pageKit{data: `{"echo":"` + secret + `"}`}, Tracer: tracing.Session(tracer, opts...)})
	spans := rec.Ended()
	// The conflict's message reached its span, redacted.
	calls := spanNamed(spans, "tools/call honua_studio_set_view")
	require.Len(t, calls, 2)
	assert.Equal(t, "failed_precondition: stale generation; your token [redacted] is fine", calls[0].Status().Description)
	return spans
}

// directTurn runs a turn straight against an OpenAI-compatible endpoint
// that requires the key: round 1 calls setFilter with the key in its
// arguments, round 2 answers. It checks the chat requests carried their
// spans' trace context.
func directTurn(t *testing.T, opts ...tracing.Option) []sdktrace.ReadOnlySpan {
	tracer, rec := recorder(t)
	answer := func(_ context.Context, req *wire.ChatRequest, emit func(string, wire.StreamEvent) error) error {
		if last := req.Messages[len(req.Messages)-1]; last.Role == "tool" {
			_ = emit(fakeopenai.EventTextDelta, wire.StreamEvent{Text: "Filtered."})
			return emit(fakeopenai.EventMessageStop, wire.StreamEvent{StopReason: "endTurn"})
		}
		_ = emit(fakeopenai.EventToolCallStart, wire.StreamEvent{ToolCallID: "call-1", ToolName: "setFilter"})
		_ = emit(fakeopenai.EventToolCallStop, wire.StreamEvent{ToolCallID: "call-1", ToolArguments: []byte(`{"region":"` + secret + `"}`)})
		return emit(fakeopenai.EventMessageStop, wire.StreamEvent{StopReason: "toolCall"})
	}
	fake, srv := fakeopenai.Start(t, fakeopenai.Options{Answer: answer, APIKey: secret})
	s, err := session.New(session.Options{
		OpenAI: &session.OpenAIEndpoint{BaseURL: srv.URL + "/v1", APIKey: session.StaticToken(secret)},
		Model:  "local-model", DisableToolDiscovery: true,
		Kit: &pageKit{data: `{"echo":"` + secret + `"}`}, Tracer: tracing.Session(tracer, opts...),
	})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	turn := s.Chat(ctx, "Use "+secret+".")
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	spans := rec.Ended()
	chats := spanNamed(spans, "chat local-model")
	reqs := fake.Requests()
	require.Len(t, reqs, 2)
	require.Len(t, chats, 2)
	for i, r := range reqs {
		assert.Equal(t, traceparent(chats[i]), r.Header.Get("Traceparent"), "direct chat request %d", i+1)
		v, _ := attr(chats[i], "gen_ai.provider.name")
		assert.Equal(t, "openai", v.AsString())
		v, _ = attr(chats[i], "server.address")
		assert.Equal(t, "127.0.0.1", v.AsString())
	}
	return spans
}

func TestContentAndCredentials(t *testing.T) {
	cases := []struct {
		name string
		run  func(t *testing.T, opts ...tracing.Option) []sdktrace.ReadOnlySpan
		// content, with WithContent: "{span name}[#n]/{attribute}" (the
		// n-th span of that name, from 1) and the text it must hold.
		content map[string]string
	}{
		{"studio proxy", studioTurn, map[string]string{
			"invoke_agent/gen_ai.input.messages":                `[{"role":"user","parts":[{"type":"text","content":"Use [redacted] and pay."}]}]`,
			"invoke_agent#2/gen_ai.output.messages":             `[{"role":"assistant","parts":[{"type":"text","content":"Paid."}]}]`,
			"execute_tool setFilter/gen_ai.tool.call.arguments": `{"region":"[redacted]"}`,
			"execute_tool setFilter/gen_ai.tool.call.result":    `{"status":"ok","data":{"echo":"[redacted]"}}`,
			"execute_tool pay/gen_ai.tool.call.arguments":       `{}`,
		}},
		{"direct endpoint", directTurn, map[string]string{
			"invoke_agent/gen_ai.input.messages":                `[{"role":"user","parts":[{"type":"text","content":"Use [redacted]."}]}]`,
			"invoke_agent/gen_ai.output.messages":               `[{"role":"assistant","parts":[{"type":"text","content":"Filtered."}]}]`,
			"execute_tool setFilter/gen_ai.tool.call.arguments": `{"region":"[redacted]"}`,
			"execute_tool setFilter/gen_ai.tool.call.result":    `{"status":"ok","data":{"echo":"[redacted]"}}`,
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, withContent := range []bool{false, true} {
				var opts []tracing.Option
				if withContent {
					opts = append(opts, tracing.WithContent())
				}
				spans := c.run(t, opts...)
				require.NotEmpty(t, spans)
				noSecret(t, spans)
				if !withContent {
					for _, s := range spans {
						for _, k := range contentKeys {
							_, ok := attr(s, k)
							assert.False(t, ok, "%s has %s without WithContent", s.Name(), k)
						}
					}
					continue
				}
				for where, want := range c.content {
					name, key, _ := strings.Cut(where, "/")
					n := 1
					if i := strings.Index(name, "#"); i >= 0 {
						n, _ = strconv.Atoi(name[i+1:])
						name = name[:i]
					}
					found := spanNamed(spans, name)
					require.GreaterOrEqual(t, len(found), n, name)
					v, ok := attr(found[n-1], key)
					require.True(t, ok, "%s has no %s with WithContent", name, key)
					assert.JSONEq(t, want, v.AsString(), where)
				}
			}
		})
	}
}

// noSecret fails if the token appears in a span's name, attributes, events
// or status.
func noSecret(t *testing.T, spans []sdktrace.ReadOnlySpan) {
	t.Helper()
	check := func(where string, kvs []attribute.KeyValue) {
		for _, kv := range kvs {
			assert.NotContains(t, kv.Value.String(), secret, "%s: %s", where, kv.Key)
		}
	}
	for _, s := range spans {
		assert.NotContains(t, s.Name(), secret)
		check(s.Name(), s.Attributes())
		for _, ev := range s.Events() {
			check(s.Name()+" @"+ev.Name, ev.Attributes)
		}
		assert.NotContains(t, s.Status().Description, secret, "%s: status", s.Name())
	}
}
