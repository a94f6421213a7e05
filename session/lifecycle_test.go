//go:build !js && !wasip1

// A session's life across turns: Close and Reset while a turn runs, refused
// requests that leave the history as it was, and the request and result
// size bounds.

package session_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/agentwasm/agentwasm/session"
	"github.com/agentwasm/agentwasm/testing/fakeproxy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stepTransport answers the n-th request with steps[n] (the last one
// again past the end) and records every request.
type stepTransport struct {
	steps []func(ctx context.Context, req *session.ChatRequest) (session.EventStream, error)

	mu   sync.Mutex
	reqs []session.ChatRequest
}

func (st *stepTransport) Stream(ctx context.Context, req *session.ChatRequest) (session.EventStream, error) {
	st.mu.Lock()
	st.reqs = append(st.reqs, *req)
	step := st.steps[min(len(st.reqs), len(st.steps))-1]
	st.mu.Unlock()
	return step(ctx, req)
}

func (st *stepTransport) requests() []session.ChatRequest {
	st.mu.Lock()
	defer st.mu.Unlock()
	return append([]session.ChatRequest(nil), st.reqs...)
}

// round is a step that streams events.
func round(events []session.StreamEvent) func(context.Context, *session.ChatRequest) (session.EventStream, error) {
	return func(ctx context.Context, req *session.ChatRequest) (session.EventStream, error) {
		return session.NewScriptedTransport(events).Stream(ctx, req)
	}
}

// refuse is a step whose request fails before any answer, as a 413 does.
func refuse(ctx context.Context, req *session.ChatRequest) (session.EventStream, error) {
	return nil, errors.New("Studio AI proxy responded 413 for the chat request.")
}

// wellFormed checks that every tool message of msgs answers a call of the
// assistant message before it (with only tool messages between).
func wellFormed(t *testing.T, msgs []session.Message) {
	t.Helper()
	var calls map[string]bool
	for i, m := range msgs {
		switch m.Role {
		case "assistant":
			calls = map[string]bool{}
			for _, c := range m.ToolCalls {
				calls[c.ID] = true
			}
		case "tool":
			assert.True(t, calls[m.ToolCallID], "message %d is a tool message without its assistant call %q", i, m.ToolCallID)
		default:
			calls = nil
		}
	}
}

// blockingTool is an executor that reports its call, then waits for release
// or its context; it sends the context's error on ended.
type blockingTool struct {
	started, release chan struct{}
	ended            chan error
}

func newBlockingTool() *blockingTool {
	return &blockingTool{started: make(chan struct{}, 1), release: make(chan struct{}), ended: make(chan error, 1)}
}

func (b *blockingTool) Execute(ctx context.Context, call session.ToolCall) (session.ToolResult, error) {
	b.started <- struct{}{}
	select {
	case <-b.release:
		b.ended <- nil
		return session.ToolResult{Status: session.ToolOK, Data: session.RawJSON(`"done"`)}, nil
	case <-ctx.Done():
		b.ended <- ctx.Err()
		return session.ToolResult{}, ctx.Err()
	}
}

// TestCloseCancelsTheRunningTurn: Close ends the turn in progress with
// StatusCancelled, whether it waits on the model's answer or on a tool (whose
// context ends), and every call in the history has its answer.
func TestCloseCancelsTheRunningTurn(t *testing.T) {
	t.Run("while the answer streams", func(t *testing.T) {
		tr := &blockingTransport{opened: make(chan struct{})}
		s := newScripted(t, tr, nil)
		done := make(chan session.Turn, 1)
		go func() { done <- s.Chat(context.Background(), "hi") }()
		waitFor(t, tr.opened, "the request")
		require.NoError(t, s.Close())
		turn := <-done
		assert.Equal(t, session.StatusCancelled, turn.Status, turn.ErrorMessage)
		assert.Equal(t, []string{"user: hi"}, roles(s.Messages()))
	})
	t.Run("while a tool runs", func(t *testing.T) {
		slow := newBlockingTool()
		tr := session.NewScriptedTransport(session.ToolCallRound(call("c1", "slow", `{}`), call("c2", "slow", `{}`)), session.TextRound("never"))
		s := newScripted(t, tr, func(o *session.Options) {
			o.Tools = []session.ToolDefinition{tool("slow")}
			o.Execute = slow
		})
		done := make(chan session.Turn, 1)
		go func() { done <- s.Chat(context.Background(), "hi") }()
		<-slow.started
		require.NoError(t, s.Close())
		assert.ErrorIs(t, <-slow.ended, context.Canceled, "the tool's context ends")
		turn := <-done
		assert.Equal(t, session.StatusCancelled, turn.Status, turn.ErrorMessage)
		assert.Len(t, tr.Requests(), 1, "no request after the close")
		msgs := s.Messages()
		wellFormed(t, msgs)
		require.Len(t, msgs, 4, "the user's message, the calls, and an answer for each")
		for _, m := range msgs[2:] {
			assert.Contains(t, m.Content, `"code":"cancelled"`)
		}
	})
	t.Run("a closed session can still chat", func(t *testing.T) {
		s := newScripted(t, session.NewScriptedTransport(session.TextRound("ok")), nil)
		require.NoError(t, s.Close())
		turn := chat(t, context.Background(), s, "hi")
		assert.Equal(t, session.StatusCompleted, turn.Status, "Close cancels the turn in progress, not later ones")
	})
}

// TestResetDuringATurnIsRefused: Reset while a turn runs changes nothing
// and says ErrBusy; the turn ends normally, and no later request carries a
// tool message without its call.
func TestResetDuringATurnIsRefused(t *testing.T) {
	slow := newBlockingTool()
	tr := session.NewScriptedTransport(session.ToolCallRound(call("c1", "slow", `{}`)), session.TextRound("done"), session.TextRound("again"))
	s := newScripted(t, tr, func(o *session.Options) {
		o.Tools = []session.ToolDefinition{tool("slow")}
		o.Execute = slow
	})
	done := make(chan session.Turn, 1)
	go func() { done <- s.Chat(context.Background(), "hi") }()
	<-slow.started
	before := s.Messages()
	require.ErrorIs(t, s.Reset(), session.ErrBusy)
	assert.Equal(t, before, s.Messages(), "a refused Reset changes nothing")
	close(slow.release)
	turn := <-done
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	require.Equal(t, session.StatusCompleted, chat(t, context.Background(), s, "more").Status)
	for _, req := range tr.Requests() {
		wellFormed(t, req.Messages)
	}
	require.NoError(t, s.Reset(), "between turns Reset clears")
	assert.Empty(t, s.Messages())
}

// TestARefusedRequestLeavesTheHistoryAsBefore: a request that fails before
// its answer starts ends the turn in error with the history and pending
// asks as they were before the turn — however many rounds of the turn
// came before it — and the next turn sends nothing of it.
func TestARefusedRequestLeavesTheHistoryAsBefore(t *testing.T) {
	pendingRound := session.ToolCallRound(call("p1", "ask", `{}`))
	cases := []struct {
		name      string
		steps     []func(context.Context, *session.ChatRequest) (session.EventStream, error)
		calls     int    // tool calls the refused turn ran
		code      string // the refused turn's error code
		keepsTurn bool   // the failure came after the answer started: the turn's messages stay
	}{
		{name: "the first request is refused", steps: fns(refuse)},
		{name: "a request after a round of tool calls is refused", steps: fns(round(session.ToolCallRound(call("c1", "echo", `{}`))), refuse), calls: 1},
		{name: "the answer opens with an error event", code: "rate_limited",
			steps: fns(round([]session.StreamEvent{{Type: session.EventMessageStart}, {Type: session.EventError, ErrorMessage: "Upstream quota exceeded.", ErrorCode: "rate_limited"}}))},
		{name: "an error after the text started keeps the turn", code: "rate_limited", keepsTurn: true,
			steps: fns(round([]session.StreamEvent{{Type: session.EventMessageStart}, {Type: session.EventTextDelta, Text: "Hel"}, {Type: session.EventError, ErrorMessage: "cut", ErrorCode: "rate_limited"}}))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The turn before: an ask left pending.
			steps := fns(round(pendingRound))
			steps = append(steps, tc.steps...)
			steps = append(steps, round(session.TextRound("after")))
			tr := &stepTransport{steps: steps}
			exec := &recordingExec{fn: func(_ context.Context, c session.ToolCall) (session.ToolResult, error) {
				if c.Name == "ask" {
					return session.ToolResult{Status: session.ToolDenied, Approval: &session.ApprovalRequest{AskID: "ask-1"}}, nil
				}
				return session.ToolResult{Status: session.ToolOK}, nil
			}}
			s := newScripted(t, tr, func(o *session.Options) {
				o.Tools = []session.ToolDefinition{tool("ask"), tool("echo")}
				o.Execute = exec
			})
			first := chat(t, context.Background(), s, "one")
			require.Equal(t, session.StatusCompleted, first.Status, first.ErrorMessage)
			require.Len(t, first.PendingApprovals, 1)
			before, pending := s.Messages(), s.PendingApprovals()

			turn := chat(t, context.Background(), s, "two")
			require.Equal(t, session.StatusError, turn.Status)
			assert.Equal(t, tc.code, turn.ErrorCode)
			assert.Len(t, turn.ToolCalls, tc.calls, "the turn's record lists the calls its rounds ran")
			if tc.keepsTurn {
				assert.Equal(t, append(roles(before), "user: two"), roles(s.Messages()))
				return
			}
			assert.Equal(t, before, s.Messages(), "the history is as it was before the turn")
			assert.Equal(t, pending, s.PendingApprovals(), "and so are the pending asks")

			next := chat(t, context.Background(), s, "three")
			require.Equal(t, session.StatusCompleted, next.Status, next.ErrorMessage)
			reqs := tr.requests()
			last := reqs[len(reqs)-1].Messages
			assert.Equal(t, append(roles(before), "user: three"), roles(last), "the next request carries nothing of the refused turn")
			wellFormed(t, last)
		})
	}
}

func fns(f ...func(context.Context, *session.ChatRequest) (session.EventStream, error)) []func(context.Context, *session.ChatRequest) (session.EventStream, error) {
	return f
}

// TestA413LeavesTheSessionUsable: over HTTP, a proxy that refuses one
// request with 413 fails that turn only.
func TestA413LeavesTheSessionUsable(t *testing.T) {
	proxy, base := startProxy(t,
		fakeproxy.Reply{Body: fakeproxy.TextStream("one")},
		fakeproxy.Reply{Status: 413, Body: "request entity too large"},
		fakeproxy.Reply{Body: fakeproxy.TextStream("three")})
	s := newSession(t, base, nil)
	require.Equal(t, session.StatusCompleted, chat(t, context.Background(), s, "a").Status)
	refused := chat(t, context.Background(), s, "b")
	require.Equal(t, session.StatusError, refused.Status)
	assert.Contains(t, refused.ErrorMessage, "413")
	assert.Equal(t, []string{"user: a", "assistant: one"}, roles(s.Messages()))
	require.Equal(t, session.StatusCompleted, chat(t, context.Background(), s, "c").Status)
	reqs := chatRequests(proxy)
	require.Len(t, reqs, 3)
	assert.Contains(t, string(reqs[2].Body), `"content":"c"`)
	assert.NotContains(t, string(reqs[2].Body), `"content":"b"`)
}

// TestToolResultTooLarge: a result past MaxToolResultBytes, or one that
// would take the next request past MaxRequestBytes, fails its call with
// CodeResultTooLarge — the model reads that small rejection — and neither
// this turn's next request nor a later turn's passes the request bound.
func TestToolResultTooLarge(t *testing.T) {
	big := func(n int) session.RawJSON { return session.RawJSON(`"` + strings.Repeat("x", n) + `"`) }
	cases := []struct {
		name        string
		maxRequest  int
		maxResult   int
		sizes       []int    // the data of each call's result
		wantCodes   []string // "" for a kept result
		wantMessage string
	}{
		{name: "a 12 MB result with the default bounds", sizes: []int{12 << 20},
			wantCodes: []string{session.CodeResultTooLarge}, wantMessage: "maxToolResultBytes"},
		{name: "a result past maxToolResultBytes", maxRequest: 64 << 10, maxResult: 8 << 10, sizes: []int{9 << 10},
			wantCodes: []string{session.CodeResultTooLarge}, wantMessage: "maxToolResultBytes"},
		{name: "results that fit one by one but not together", maxRequest: 64 << 10, maxResult: 48 << 10, sizes: []int{40 << 10, 40 << 10},
			wantCodes: []string{"", session.CodeResultTooLarge}, wantMessage: "maxRequestBytes"},
		{name: "a result that fits", sizes: []int{1 << 10}, wantCodes: []string{""}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var calls []session.ToolCall
			for i := range tc.sizes {
				calls = append(calls, call("c"+string(rune('1'+i)), "page", `{"i":`+string(rune('0'+i))+`}`))
			}
			tr := session.NewScriptedTransport(session.ToolCallRound(calls...), session.TextRound("read it"), session.TextRound("next"))
			exec := &recordingExec{fn: func(_ context.Context, c session.ToolCall) (session.ToolResult, error) {
				i := int(c.Args[len(c.Args)-2] - '0')
				return session.ToolResult{Status: session.ToolOK, Data: big(tc.sizes[i])}, nil
			}}
			s := newScripted(t, tr, func(o *session.Options) {
				o.Tools = []session.ToolDefinition{tool("page")}
				o.Execute = exec
				o.MaxRequestBytes, o.MaxToolResultBytes = tc.maxRequest, tc.maxResult
			})
			turn := chat(t, context.Background(), s, "read the page")
			require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
			require.Len(t, turn.ToolCalls, len(tc.sizes))
			for i, rec := range turn.ToolCalls {
				assert.Equal(t, tc.wantCodes[i], rec.ErrorCode, "call %d", i)
				assert.Equal(t, tc.wantCodes[i] == "", rec.OK)
				if tc.wantCodes[i] != "" {
					assert.Contains(t, rec.ErrorMessage, tc.wantMessage)
					assert.Contains(t, rec.Content, `"code":"result_too_large"`, "the model reads the rejection")
					assert.Less(t, len(rec.Content), 1024)
				}
			}
			require.Equal(t, session.StatusCompleted, chat(t, context.Background(), s, "and now?").Status, "the session is not poisoned")
			bound := tc.maxRequest
			if bound == 0 {
				bound = session.DefaultMaxRequestBytes
			}
			for i, req := range tr.Requests() {
				body, err := session.EncodeChatRequest(&req)
				require.NoError(t, err)
				assert.LessOrEqual(t, len(body), bound, "request %d", i)
			}
		})
	}
}

// TestRequestTooLarge: a turn whose first request would pass
// MaxRequestBytes sends nothing and leaves the history as it was.
func TestRequestTooLarge(t *testing.T) {
	tr := session.NewScriptedTransport(session.TextRound("ok"))
	s := newScripted(t, tr, func(o *session.Options) { o.MaxRequestBytes = 4096 })
	turn := chat(t, context.Background(), s, strings.Repeat("x", 5000))
	assert.Equal(t, session.StatusError, turn.Status)
	assert.Equal(t, session.ErrorCodeRequestTooLarge, turn.ErrorCode)
	assert.Contains(t, turn.ErrorMessage, "maxRequestBytes")
	assert.Zero(t, turn.Rounds)
	assert.Empty(t, tr.Requests(), "nothing was sent")
	assert.Empty(t, s.Messages())
	assert.Equal(t, session.StatusCompleted, chat(t, context.Background(), s, "short").Status)
}

// TestRequestBoundOptions: the request bounds are checked.
func TestRequestBoundOptions(t *testing.T) {
	tr := session.NewScriptedTransport()
	cases := []struct {
		name    string
		opts    session.Options
		wantErr string
	}{
		{"defaults", session.Options{Transport: tr}, ""},
		{"negative MaxRequestBytes", session.Options{Transport: tr, MaxRequestBytes: -1}, "MaxRequestBytes is -1"},
		{"negative MaxToolResultBytes", session.Options{Transport: tr, MaxToolResultBytes: -1}, "MaxToolResultBytes is -1"},
		{"a result bound over the request bound", session.Options{Transport: tr, MaxRequestBytes: 1000, MaxToolResultBytes: 2000}, "over MaxRequestBytes"},
		{"a small request bound caps the default result bound", session.Options{Transport: tr, MaxRequestBytes: 1000}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.DisableToolDiscovery = true
			checkNew(t, tc.opts, tc.wantErr)
		})
	}
}

// TestRequestBoundCountsTheRedactedRequest: the bound is checked against
// the request as it is sent, with every known token redacted — a short
// token in the system prompt grows to "[redacted]" — so no body past
// MaxRequestBytes ever leaves.
func TestRequestBoundCountsTheRedactedRequest(t *testing.T) {
	const bound = 16 << 10
	proxy, base := startProxy(t, fakeproxy.Reply{Body: fakeproxy.TextStream("one")}, fakeproxy.Reply{Body: fakeproxy.TextStream("two")})
	s := newSession(t, base, func(o *session.Options) {
		o.DisableToolDiscovery = true
		o.MaxRequestBytes = bound
		o.Auth = session.TokenFunc(func(context.Context, bool) (string, error) { return "abcd", nil })
		// 10,000 bytes as written; 22,000 once the token is redacted.
		o.System = strings.Repeat("abcd ", 2000)
	})
	// The first request teaches the session the token.
	require.Equal(t, session.StatusCompleted, chat(t, context.Background(), s, "a").Status)
	turn := chat(t, context.Background(), s, "b")
	for i, req := range chatRequests(proxy) {
		assert.LessOrEqual(t, len(req.Body), bound, "request %d passed MaxRequestBytes", i)
	}
	assert.Equal(t, session.ErrorCodeRequestTooLarge, turn.ErrorCode, "the redacted request is over the bound: %s", turn.ErrorMessage)
}
