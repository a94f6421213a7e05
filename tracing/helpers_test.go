//go:build !js && !wasip1

// Helpers of the tracing tests: an in-memory tracer, the fakes a session
// talks to (the Studio AI proxy, its MCP endpoint), a page kit with a tool
// that asks for a person, and the span tree rendered as text.

package tracing_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentwasm/agentwasm/session"
	"github.com/agentwasm/agentwasm/testing/fakemcp"
	"github.com/agentwasm/agentwasm/testing/fakeproxy"
)

// bound guards every wait of a test; it never decides an outcome.
const bound = 10 * time.Second

// recorder returns a tracer whose ended spans rec holds.
func recorder(t *testing.T) (trace.Tracer, *tracetest.SpanRecorder) {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return tp.Tracer("tracing-test"), rec
}

// secret is the session's bearer token in the tests: it must never reach a
// span.
const secret = "tok-0123456789abcdef-SECRET"

// pageKit is the page's tool plane: setFilter answers ok (with data),
// pay waits for a person (ask-1, or the ask its arguments name; action
// cart.pay). It answers the asks through its doors.
type pageKit struct {
	data string // setFilter's result data, JSON
}

func (k *pageKit) Tools() []session.ToolDefinition {
	return []session.ToolDefinition{
		{Name: "setFilter", Description: "Filter the map.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		{Name: "pay", Description: "Pay for the cart.", InputSchema: json.RawMessage(`{"type":"object"}`)},
	}
}

func (k *pageKit) Execute(_ context.Context, call session.ToolCall) (session.ToolResult, error) {
	switch call.Name {
	case "setFilter":
		data := k.data
		if data == "" {
			data = `{"filtered":true}`
		}
		return session.ToolResult{Status: session.ToolOK, Data: json.RawMessage(data)}, nil
	case "pay":
		var args struct {
			Ask string `json:"ask"`
		}
		_ = json.Unmarshal(call.Args, &args)
		if args.Ask == "" {
			args.Ask = "ask-1"
		}
		return session.ToolResult{Status: session.ToolOK, Data: json.RawMessage(`{"judgment":"needs-approval"}`),
			Approval: &session.ApprovalRequest{AskID: args.Ask, Action: "cart.pay"}}, nil
	}
	return session.ToolResult{}, fmt.Errorf("no tool %s", call.Name)
}

func (k *pageKit) AnswerAsk(_ context.Context, askID string, approve bool) (string, error) {
	if approve {
		return "The person approved " + askID + ".", nil
	}
	return "The person declined " + askID + ".", nil
}

// stop is a message_stop frame with usage.
func stop(reason string, in, out int) string {
	return fakeproxy.Frame("message_stop", fmt.Sprintf(`{"stopReason":%q,"promptTokens":%d,"completionTokens":%d}`, reason, in, out))
}

// callRound is an answer that calls tools.
func callRound(calls ...fakeproxy.Call) string {
	s := fakeproxy.Frame("message_start", `{"model":"fake-model-2025"}`)
	for _, c := range calls {
		s += fakeproxy.Frame("tool_call_start", fmt.Sprintf(`{"toolCallId":%q,"toolName":%q}`, c.ID, c.Name))
		s += fakeproxy.Frame("tool_call_stop", fmt.Sprintf(`{"toolCallId":%q,"toolArguments":%s}`, c.ID, c.Args))
	}
	return s + stop("toolCall", 100, 20)
}

// textRound is an answer that says text and ends the turn.
func textRound(text string) string {
	b, _ := json.Marshal(text)
	return fakeproxy.Frame("message_start", `{"model":"fake-model-2025"}`) +
		fakeproxy.Frame("text_delta", `{"text":`+string(b)+`}`) + stop("endTurn", 150, 5)
}

// composition is the MCP catalog: one composition tool.
var composition = []json.RawMessage{
	json.RawMessage(`{"name":"honua_studio_set_view","inputSchema":{"type":"object"},"_meta":{"honua.studio":{"family":"honua.studio.composition"}}}`),
}

// conflictOnce answers tools/call: the first honua_studio_set_view meets a
// stale draft (failed_precondition, with staleMsg), honua_studio_get_draft
// reloads it (generation 11), and the retry succeeds (generation 12).
func conflictOnce(staleMsg string) fakemcp.CallFunc {
	calls := 0
	return func(_ context.Context, name string, _ json.RawMessage) (json.RawMessage, *fakemcp.RPCError) {
		switch name {
		case "honua_studio_get_draft":
			return json.RawMessage(`{"content":[],"structuredContent":{"draftId":"d1","generation":11}}`), nil
		case "honua_studio_set_view":
			calls++
			if calls == 1 {
				body, _ := json.Marshal(map[string]string{"code": "failed_precondition", "message": staleMsg})
				text, _ := json.Marshal(string(body))
				return json.RawMessage(`{"isError":true,"content":[{"type":"text","text":` + string(text) + `}]}`), nil
			}
			return json.RawMessage(`{"content":[],"structuredContent":{"draft":{"draftId":"d1","generation":12}}}`), nil
		}
		return nil, &fakemcp.RPCError{Code: -32602, Message: "unknown tool " + name}
	}
}

// studio is the Studio API of a test: the proxy at /api (chat and
// capabilities) and its MCP endpoint at /api/mcp.
type studio struct {
	proxy *fakeproxy.Proxy
	mcp   *fakemcp.Server
	base  string // {server}/api
}

// startStudio serves proxy and mcp.
func startStudio(t *testing.T, proxy *fakeproxy.Proxy, mcp *fakemcp.Server) *studio {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/api/mcp", mcp)
	mux.Handle("/", proxy)
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return &studio{proxy: proxy, mcp: mcp, base: srv.URL + "/api"}
}

// turnScript is the turn of the tests: round 1 filters the map (page tool)
// and sets the view (MCP tool, which meets a conflict); round 2 pays (page
// tool, which asks for a person); after the Resume, round 3 answers.
func turnScript(args string) *fakeproxy.Proxy {
	return fakeproxy.New(
		fakeproxy.Reply{Body: callRound(
			fakeproxy.Call{ID: "call-1", Name: "setFilter", Args: args},
			fakeproxy.Call{ID: "call-2", Name: "honua_studio_set_view", Args: `{"zoom":3}`},
		)},
		fakeproxy.Reply{Body: callRound(fakeproxy.Call{ID: "call-3", Name: "pay", Args: `{}`})},
		fakeproxy.Reply{Body: textRound("Paid.")},
	)
}

// runTurn runs the test turn on a session made by opts over st: a Chat
// that stops on ask-1, then a Resume that approves it.
func runTurn(t *testing.T, st *studio, text string, opts session.Options) {
	t.Helper()
	opts.BaseURL = st.base
	opts.Model = "fake-model"
	opts.Draft = &session.DraftBinding{DraftID: "d1", Generation: 10}
	opts.Auth = session.StaticToken(secret)
	s, err := session.New(opts)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	turn := s.Chat(ctx, text)
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	require.Len(t, turn.PendingApprovals, 1)
	turn = s.Resume(ctx, session.Resolution{Approve: []string{"ask-1"}})
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	require.Equal(t, "Paid.", turn.Text)
	require.NoError(t, s.Close())
}

// tree renders spans as an indented tree, children in the order they
// started: a line per span (name, kind, status), then a line per attribute
// (sorted by key), per event (and its attributes) and per link. fix
// rewrites an attribute's value for the text (a port, a duration), or
// drops it (ok false).
func tree(spans []sdktrace.ReadOnlySpan, fix func(kv attribute.KeyValue) (string, bool)) string {
	byID := map[trace.SpanID]sdktrace.ReadOnlySpan{}
	for _, s := range spans {
		byID[s.SpanContext().SpanID()] = s
	}
	kids := map[trace.SpanID][]sdktrace.ReadOnlySpan{}
	var roots []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if _, ok := byID[s.Parent().SpanID()]; ok && s.Parent().IsValid() {
			kids[s.Parent().SpanID()] = append(kids[s.Parent().SpanID()], s)
		} else {
			roots = append(roots, s)
		}
	}
	byStart := func(list []sdktrace.ReadOnlySpan) {
		sort.SliceStable(list, func(i, j int) bool { return list[i].StartTime().Before(list[j].StartTime()) })
	}
	var b strings.Builder
	var walk func(s sdktrace.ReadOnlySpan, depth int)
	walk = func(s sdktrace.ReadOnlySpan, depth int) {
		pad := strings.Repeat("  ", depth)
		fmt.Fprintf(&b, "%s%s [%s]", pad, s.Name(), s.SpanKind())
		if st := s.Status(); st.Code == codes.Error {
			fmt.Fprintf(&b, " ERROR %q", st.Description)
		}
		b.WriteString("\n")
		for _, a := range attrs(s.Attributes(), fix) {
			fmt.Fprintf(&b, "%s  %s\n", pad, a)
		}
		for _, ev := range s.Events() {
			fmt.Fprintf(&b, "%s  @%s\n", pad, ev.Name)
			for _, a := range attrs(ev.Attributes, fix) {
				fmt.Fprintf(&b, "%s    %s\n", pad, a)
			}
		}
		for _, l := range s.Links() {
			fmt.Fprintf(&b, "%s  -> %s\n", pad, byID[l.SpanContext.SpanID()].Name())
		}
		list := kids[s.SpanContext().SpanID()]
		byStart(list)
		for _, k := range list {
			walk(k, depth+1)
		}
	}
	byStart(roots)
	for _, r := range roots {
		walk(r, 0)
	}
	return b.String()
}

// attrs renders attributes as key=value, sorted by key.
func attrs(kvs []attribute.KeyValue, fix func(kv attribute.KeyValue) (string, bool)) []string {
	var parts []string
	for _, kv := range kvs {
		v := kv.Value.String()
		if kv.Value.Type() == attribute.STRING {
			v = fmt.Sprintf("%q", v)
		}
		if fix != nil {
			if f, ok := fix(kv); !ok {
				continue
			} else if f != "" {
				v = f
			}
		}
		parts = append(parts, string(kv.Key)+"="+v)
	}
	slices.Sort(parts)
	return parts
}

// spanNamed returns the spans named name, in the order they started.
func spanNamed(spans []sdktrace.ReadOnlySpan, name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].StartTime().Before(out[j].StartTime()) })
	return out
}

// attr returns the value of key on s, and whether it is set.
func attr(s sdktrace.ReadOnlySpan, key string) (attribute.Value, bool) {
	for _, kv := range s.Attributes() {
		if string(kv.Key) == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

// traceparent is the W3C header of s: 00-{trace id}-{span id}-01.
func traceparent(s sdktrace.ReadOnlySpan) string {
	sc := s.SpanContext()
	return "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-01"
}
