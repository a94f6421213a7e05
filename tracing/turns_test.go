//go:build !js && !wasip1

// The spans of turns other than the pinned one: how a wait for a person
// ends (approved, declined, abandoned by Close, Reset or a Chat), a Resume
// that answers two asks, the errors of a model request, and discovery
// passes outside a turn.

package tracing_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/agentwasm/agentwasm/session"
	"github.com/agentwasm/agentwasm/testing/fakemcp"
	"github.com/agentwasm/agentwasm/testing/fakeproxy"
	"github.com/agentwasm/agentwasm/tracing"
)

// scriptedSession is a traced session whose model asks to pay (the asks
// named, one call each), then answers "Done." on every later round.
func scriptedSession(t *testing.T, asks ...string) (*session.Session, *tracetest.SpanRecorder) {
	t.Helper()
	tracer, rec := recorder(t)
	var calls []session.ToolCall
	for _, a := range asks {
		calls = append(calls, session.ToolCall{ID: "call-" + a, Name: "pay", Args: json.RawMessage(`{"ask":"` + a + `"}`)})
	}
	model := session.NewScriptedTransport(session.ToolCallRound(calls...), session.TextRound("Done."))
	s, err := session.New(session.Options{Transport: model, DisableToolDiscovery: true, Kit: &pageKit{}, Tracer: tracing.Session(tracer)})
	require.NoError(t, err)
	return s, rec
}

// stopOn runs the Chat that stops on the asks.
func stopOn(t *testing.T, s *session.Session, n int) {
	t.Helper()
	turn := s.Chat(context.Background(), "Pay.")
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	require.Len(t, turn.PendingApprovals, n)
}

func TestApprovalWaitEnds(t *testing.T) {
	cases := []struct {
		name    string
		settle  func(t *testing.T, s *session.Session)
		outcome string
		resumed bool // a Resume answered: its turn is the wait's child
	}{
		{"approved", func(t *testing.T, s *session.Session) {
			assert.Equal(t, session.StatusCompleted, s.Resume(context.Background(), session.Resolution{Approve: []string{"ask-1"}}).Status)
		}, "approved", true},
		{"declined", func(t *testing.T, s *session.Session) {
			assert.Equal(t, session.StatusCompleted, s.Resume(context.Background(), session.Resolution{Decline: []string{"ask-1"}}).Status)
		}, "declined", true},
		{"closed", func(t *testing.T, s *session.Session) { require.NoError(t, s.Close()) }, "abandoned", false},
		{"reset", func(t *testing.T, s *session.Session) { require.NoError(t, s.Reset()) }, "abandoned", false},
		{"a new chat", func(t *testing.T, s *session.Session) {
			assert.Equal(t, session.StatusCompleted, s.Chat(context.Background(), "Never mind.").Status)
		}, "abandoned", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, rec := scriptedSession(t, "ask-1")
			stopOn(t, s, 1)
			assert.Empty(t, spanNamed(rec.Ended(), "await_approval cart.pay"), "the wait lasts until the ask is settled")
			c.settle(t, s)
			spans := rec.Ended()
			waits := spanNamed(spans, "await_approval cart.pay")
			require.Len(t, waits, 1)
			v, _ := attr(waits[0], "agentwasm.approval.outcome")
			assert.Equal(t, c.outcome, v.AsString())
			turns := spanNamed(spans, "invoke_agent")
			assert.Equal(t, turns[0].SpanContext().SpanID(), waits[0].Parent().SpanID(), "the wait is the child of the turn that stopped on it")
			if c.resumed {
				require.Len(t, turns, 2)
				assert.Equal(t, waits[0].SpanContext().SpanID(), turns[1].Parent().SpanID(), "the Resume is the wait's child")
				kind, _ := attr(turns[1], "agentwasm.turn.kind")
				assert.Equal(t, "resume", kind.AsString())
			}

			// Settled, the ask gets no second wait; a later Resume of an
			// ask still pending (Close keeps it) is a root.
			if c.name == "closed" {
				s.Resume(context.Background(), session.Resolution{Approve: []string{"ask-1"}})
				spans = rec.Ended()
				turns = spanNamed(spans, "invoke_agent")
				require.Len(t, turns, 2)
				assert.False(t, turns[1].Parent().IsValid(), "no wait to continue: a root")
				assert.Len(t, spanNamed(spans, "await_approval cart.pay"), 1)
			}
		})
	}
}

func TestResumeOfTwoAsks(t *testing.T) {
	s, rec := scriptedSession(t, "ask-1", "ask-2")
	stopOn(t, s, 2)
	// Answered in another order than they arose: the parent is the first
	// that arose.
	turn := s.Resume(context.Background(), session.Resolution{Decline: []string{"ask-2"}, Approve: []string{"ask-1"}})
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	spans := rec.Ended()
	got := tree(spans, func(kv attribute.KeyValue) (string, bool) { return "", kv.Key != "gen_ai.response.time_to_first_chunk" })
	assert.Equal(t, `invoke_agent [internal]
  agentwasm.turn.kind="send"
  agentwasm.turn.rounds=1
  agentwasm.turn.status="completed"
  gen_ai.operation.name="invoke_agent"
  gen_ai.provider.name="agentwasm.studio_proxy"
  @agentwasm.approval.requested
    agentwasm.approval.action="cart.pay"
    agentwasm.approval.ask_id="ask-1"
    gen_ai.tool.call.id="call-ask-1"
    gen_ai.tool.name="pay"
  @agentwasm.approval.requested
    agentwasm.approval.action="cart.pay"
    agentwasm.approval.ask_id="ask-2"
    gen_ai.tool.call.id="call-ask-2"
    gen_ai.tool.name="pay"
  chat [client]
    agentwasm.round=1
    gen_ai.operation.name="chat"
    gen_ai.provider.name="agentwasm.studio_proxy"
    gen_ai.request.stream=true
    gen_ai.response.finish_reasons=["tool_calls"]
    gen_ai.response.model="scripted"
  execute_tool pay [internal]
    agentwasm.approval.ask_id="ask-1"
    agentwasm.tool.outcome="ok"
    agentwasm.tool.plane="runtime"
    gen_ai.operation.name="execute_tool"
    gen_ai.tool.call.id="call-ask-1"
    gen_ai.tool.name="pay"
    gen_ai.tool.type="function"
  execute_tool pay [internal]
    agentwasm.approval.ask_id="ask-2"
    agentwasm.tool.outcome="ok"
    agentwasm.tool.plane="runtime"
    gen_ai.operation.name="execute_tool"
    gen_ai.tool.call.id="call-ask-2"
    gen_ai.tool.name="pay"
    gen_ai.tool.type="function"
  await_approval cart.pay [internal]
    agentwasm.approval.action="cart.pay"
    agentwasm.approval.ask_id="ask-1"
    agentwasm.approval.outcome="approved"
    gen_ai.tool.call.id="call-ask-1"
    gen_ai.tool.name="pay"
    invoke_agent [internal]
      agentwasm.turn.kind="resume"
      agentwasm.turn.rounds=1
      agentwasm.turn.status="completed"
      gen_ai.operation.name="invoke_agent"
      gen_ai.provider.name="agentwasm.studio_proxy"
      @agentwasm.approval.answered
        agentwasm.approval.approved=true
        agentwasm.approval.ask_id="ask-1"
      @agentwasm.approval.answered
        agentwasm.approval.approved=false
        agentwasm.approval.ask_id="ask-2"
      -> await_approval cart.pay
      chat [client]
        agentwasm.round=1
        gen_ai.operation.name="chat"
        gen_ai.provider.name="agentwasm.studio_proxy"
        gen_ai.request.stream=true
        gen_ai.response.finish_reasons=["stop"]
        gen_ai.response.model="scripted"
  await_approval cart.pay [internal]
    agentwasm.approval.action="cart.pay"
    agentwasm.approval.ask_id="ask-2"
    agentwasm.approval.outcome="declined"
    gen_ai.tool.call.id="call-ask-2"
    gen_ai.tool.name="pay"
`, got)
	turns := spanNamed(spans, "invoke_agent")
	waits := spanNamed(spans, "await_approval cart.pay")
	require.Len(t, turns[1].Links(), 1)
	assert.Equal(t, waits[1].SpanContext().SpanID(), turns[1].Links()[0].SpanContext.SpanID(), "the other wait is linked")
}

func TestChatErrors(t *testing.T) {
	start := fakeproxy.Frame("message_start", `{"model":"m"}`)
	cases := []struct {
		name      string
		reply     fakeproxy.Reply
		errorType string // the chat span's error.type
		turnError string // the turn's
	}{
		{"truncated", fakeproxy.Reply{Body: start + fakeproxy.Frame("text_delta", `{"text":"Hel"}`)}, "truncated", "stream_truncated"},
		{"an error event", fakeproxy.Reply{Body: start + fakeproxy.Frame("error", `{"errorMessage":"the upstream is down","errorCode":"upstream_unavailable"}`)},
			"upstream_unavailable", "upstream_unavailable"},
		{"an error event without a code", fakeproxy.Reply{Body: start + fakeproxy.Frame("error", `{"errorMessage":"no"}`)}, "_OTHER", "_OTHER"},
		{"an error status", fakeproxy.Reply{Status: 500, Body: "oops"}, "transport_error", "_OTHER"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tracer, rec := recorder(t)
			st := startStudio(t, fakeproxy.New(c.reply), &fakemcp.Server{})
			s, err := session.New(session.Options{BaseURL: st.base, DisableToolDiscovery: true, Tracer: tracing.Session(tracer)})
			require.NoError(t, err)
			turn := s.Chat(context.Background(), "Hello.")
			require.Equal(t, session.StatusError, turn.Status)
			spans := rec.Ended()
			chats := spanNamed(spans, "chat")
			require.Len(t, chats, 1)
			v, _ := attr(chats[0], "error.type")
			assert.Equal(t, c.errorType, v.AsString())
			assert.Equal(t, "Error", chats[0].Status().Code.String())
			assert.Equal(t, turn.ErrorMessage, chats[0].Status().Description)
			turns := spanNamed(spans, "invoke_agent")
			require.Len(t, turns, 1)
			v, _ = attr(turns[0], "error.type")
			assert.Equal(t, c.turnError, v.AsString())
			v, _ = attr(turns[0], "agentwasm.turn.status")
			assert.Equal(t, "error", v.AsString())
			assert.Equal(t, turn.ErrorMessage, turns[0].Status().Description)
		})
	}

	t.Run("cancelled", func(t *testing.T) {
		tracer, rec := recorder(t)
		st := startStudio(t, fakeproxy.New(fakeproxy.Reply{Body: start, HangAfterBody: true}), &fakemcp.Server{})
		s, err := session.New(session.Options{BaseURL: st.base, DisableToolDiscovery: true, Tracer: tracing.Session(tracer)})
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan session.Turn, 1)
		go func() { done <- s.Chat(ctx, "Hello.") }()
		waitStarted(t, st.proxy)
		cancel()
		turn := <-done
		require.Equal(t, session.StatusCancelled, turn.Status)
		for _, name := range []string{"chat", "invoke_agent"} {
			sp := spanNamed(rec.Ended(), name)
			require.Len(t, sp, 1, name)
			v, _ := attr(sp[0], "error.type")
			assert.Equal(t, "cancelled", v.AsString(), name)
		}
	})
}

func TestDiscoveryOutsideATurn(t *testing.T) {
	cases := []struct {
		name     string
		mcp      *fakemcp.Server
		degraded bool
		error    bool
	}{
		{"found", &fakemcp.Server{Era: fakemcp.Session, Tools: composition}, false, false},
		{"failed", &fakemcp.Server{Era: fakemcp.Session, Tools: composition, NextCursor: func(string) string { return "again" }}, true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tracer, rec := recorder(t)
			st := startStudio(t, fakeproxy.New(), c.mcp)
			// A clock that never fires: no background retry of a failed
			// pass adds a span of its own.
			s, err := session.New(session.Options{BaseURL: st.base, Clock: stillClock{}, Tracer: tracing.Session(tracer)})
			require.NoError(t, err)
			defer s.Close()
			report, _ := s.RefreshTools(context.Background())
			spans := rec.Ended()
			passes := spanNamed(spans, "discover_tools")
			require.Len(t, passes, 1)
			assert.False(t, passes[0].Parent().IsValid(), "outside a turn: a root")
			v, ok := attr(passes[0], "agentwasm.discovery.degraded")
			assert.Equal(t, c.degraded, ok && v.AsBool())
			v, ok = attr(passes[0], "error.type")
			if c.error {
				assert.Equal(t, "discovery_failed", v.AsString())
				assert.Equal(t, report.ErrorMessage, passes[0].Status().Description)
			} else {
				assert.False(t, ok)
				v, _ = attr(passes[0], "agentwasm.discovery.routed")
				assert.Equal(t, int64(1), v.AsInt64())
			}
			for _, sp := range spans {
				if sp.Name() != "discover_tools" {
					assert.Equal(t, passes[0].SpanContext().SpanID(), sp.Parent().SpanID(), "%s is the pass's child", sp.Name())
				}
			}
		})
	}
}

// stillClock is a clock whose timers never fire.
type stillClock struct{}

func (stillClock) Now() time.Time                              { return time.Now() }
func (stillClock) AfterFunc(time.Duration, func()) func() bool { return func() bool { return true } }

// waitStarted waits until the proxy received a chat request.
func waitStarted(t *testing.T, p *fakeproxy.Proxy) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	for len(p.ChatRequests()) == 0 {
		select {
		case <-ctx.Done():
			t.Fatal("no chat request arrived")
		default:
		}
		time.Sleep(time.Millisecond)
	}
}
