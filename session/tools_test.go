//go:build !js && !wasip1

// Runtime tool executors: failures, blocking until cancelled, observers in
// a tool turn, Chat while a tool runs, and the arguments an executor gets.

package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"testing"

	"github.com/agentwasm/agentwasm/session"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// threeCalls is a round calling a, b and c, then a text answer.
func threeCalls() *session.ScriptedTransport {
	return session.NewScriptedTransport(
		session.ToolCallRound(call("ca", "a", `{"n":1}`), call("cb", "b", `{"n":2}`), call("cc", "c", `{"n":3}`)),
		session.TextRound("done"))
}

func threeTools(o *session.Options) {
	o.Tools = []session.ToolDefinition{tool("a"), tool("b"), tool("c")}
}

func TestExecutorFailures(t *testing.T) {
	cases := []struct {
		name    string
		fn      func(context.Context, session.ToolCall) (session.ToolResult, error)
		message string
	}{
		{"returns an error", func(context.Context, session.ToolCall) (session.ToolResult, error) {
			return session.ToolResult{Status: session.ToolOK}, errors.New("layer missing")
		}, "b failed: layer missing"},
		{"panics", func(context.Context, session.ToolCall) (session.ToolResult, error) {
			panic("kit bug")
		}, "b failed: the executor panicked: kit bug"},
		{"panics with an error", func(context.Context, session.ToolCall) (session.ToolResult, error) {
			panic(errors.New("nil map"))
		}, "b failed: the executor panicked: nil map"},
		{"exits its goroutine", func(context.Context, session.ToolCall) (session.ToolResult, error) {
			runtime.Goexit()
			return session.ToolResult{}, nil
		}, "b failed: the executor exited without returning"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			exec := &recordingExec{fn: func(ctx context.Context, c session.ToolCall) (session.ToolResult, error) {
				if c.Name == "b" {
					return tc.fn(ctx, c)
				}
				return session.ToolResult{Status: session.ToolOK}, nil
			}}
			tr := threeCalls()
			s := newScripted(t, tr, func(o *session.Options) { threeTools(o); o.Execute = exec })
			turn := chat(t, context.Background(), s, "go")
			assert.Equal(t, session.StatusCompleted, turn.Status, "the turn goes on: %s", turn.ErrorMessage)
			assert.Equal(t, []string{"a", "b", "c"}, exec.names(), "the calls after the failed one still run")
			require.Len(t, turn.ToolCalls, 3)
			rec := turn.ToolCalls[1]
			assert.Equal(t, session.PlaneRuntime, rec.Plane)
			assert.False(t, rec.OK)
			assert.Equal(t, session.CodeExecutionFailed, rec.ErrorCode)
			assert.Equal(t, tc.message, rec.ErrorMessage)
			var content map[string]any
			require.NoError(t, json.Unmarshal([]byte(rec.Content), &content))
			assert.Equal(t, map[string]any{"status": "error", "code": "execution_failed", "message": tc.message}, content)
			assert.True(t, turn.ToolCalls[0].OK)
			assert.True(t, turn.ToolCalls[2].OK)
			assert.Len(t, tr.Requests(), 2)
		})
	}
}

// TestExecutorBlockedUntilCancelled: the turn ends promptly when its context
// does, the running call's record says cancelled, and every call of the
// round, including those that never ran, has a tool message in history.
func TestExecutorBlockedUntilCancelled(t *testing.T) {
	for _, tc := range []struct {
		name        string
		honoursCtx  bool
		blockedCall string
		ran         []string
	}{
		{"first call honours the context", true, "a", []string{"a"}},
		{"middle call honours the context", true, "b", []string{"a", "b"}},
		{"first call ignores the context", false, "a", []string{"a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			started := make(chan struct{})
			release := make(chan struct{})
			t.Cleanup(func() { close(release) })
			exec := &recordingExec{fn: func(ctx context.Context, c session.ToolCall) (session.ToolResult, error) {
				if c.Name != tc.blockedCall {
					return session.ToolResult{Status: session.ToolOK}, nil
				}
				close(started)
				if tc.honoursCtx {
					<-ctx.Done()
					return session.ToolResult{}, ctx.Err()
				}
				<-release
				return session.ToolResult{Status: session.ToolOK}, nil
			}}
			var results []session.DispatchRecord
			tr := threeCalls()
			s := newScripted(t, tr, func(o *session.Options) {
				threeTools(o)
				o.Execute = exec
				o.OnEvent = func(ev session.Event) {
					if ev.Type == session.EventTypeToolResult {
						results = append(results, *ev.Result)
					}
				}
			})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				<-started
				cancel()
			}()
			turn := chat(t, ctx, s, "go")

			assert.Equal(t, session.StatusCancelled, turn.Status, turn.ErrorMessage)
			assert.Equal(t, 1, turn.Rounds)
			assert.Len(t, tr.Requests(), 1, "no request after the cancel")
			assert.Equal(t, tc.ran, exec.names(), "the calls after the cancelled one never run")
			require.Len(t, turn.ToolCalls, len(tc.ran))
			last := turn.ToolCalls[len(turn.ToolCalls)-1]
			assert.Equal(t, tc.blockedCall, last.ToolName)
			assert.False(t, last.OK)
			assert.Equal(t, session.CodeCancelled, last.ErrorCode)
			assert.Equal(t, turn.ToolCalls, results)

			msgs := s.Messages()
			require.Len(t, msgs, 5, "user, assistant and one tool message per call")
			assert.Equal(t, "assistant", msgs[1].Role)
			require.Len(t, msgs[1].ToolCalls, 3)
			for i, id := range []string{"ca", "cb", "cc"} {
				m := msgs[2+i]
				assert.Equal(t, "tool", m.Role)
				assert.Equal(t, id, m.ToolCallID, "every call in history has its answer")
				assert.Equal(t, msgs[1].ToolCalls[i].Name, m.ToolName)
				var content map[string]any
				require.NoError(t, json.Unmarshal([]byte(m.Content), &content), m.Content)
				if i < len(tc.ran)-1 {
					assert.Equal(t, "ok", content["status"])
				} else {
					assert.Equal(t, "error", content["status"])
					assert.Equal(t, "cancelled", content["code"])
				}
			}
		})
	}
}

// TestPanickingObserverInAToolTurn: an observer that panics on every event,
// tool results included, changes nothing about the turn.
func TestPanickingObserverInAToolTurn(t *testing.T) {
	run := func(onEvent func(session.Event)) (session.Turn, []session.Message, []session.ChatRequest) {
		tr := threeCalls()
		s := newScripted(t, tr, func(o *session.Options) {
			threeTools(o)
			o.Execute = &recordingExec{}
			o.OnEvent = onEvent
		})
		turn := chat(t, context.Background(), s, "go")
		return turn, s.Messages(), tr.Requests()
	}
	calls := 0
	wantTurn, wantMsgs, wantReqs := run(nil)
	gotTurn, gotMsgs, gotReqs := run(func(ev session.Event) {
		if ev.Type != session.EventTypeToolDiscovery {
			calls++
		}
		panic("observer bug")
	})
	require.Equal(t, session.StatusCompleted, wantTurn.Status)
	assert.Equal(t, wantTurn, gotTurn)
	assert.Equal(t, wantMsgs, gotMsgs)
	assert.Equal(t, wantReqs, gotReqs)
	assert.Equal(t, len(gotTurn.Events)+len(gotTurn.ToolCalls)+gotTurn.Rounds, calls, "still called for every event, dispatch and step")
}

// TestObserverCannotRewriteHistory: the records and events an observer gets
// are its own copies.
func TestObserverCannotRewriteHistory(t *testing.T) {
	tr := threeCalls()
	s := newScripted(t, tr, func(o *session.Options) {
		threeTools(o)
		o.Execute = &recordingExec{}
		o.OnEvent = func(ev session.Event) {
			if ev.Result != nil {
				ev.Result.Content = "tampered"
				ev.Result.OK = false
			}
			if ev.Chat != nil {
				ev.Chat.Text = "tampered"
				ev.Chat.ToolCallID = "tampered"
			}
		}
	})
	turn := chat(t, context.Background(), s, "go")
	require.Equal(t, session.StatusCompleted, turn.Status)
	assert.Equal(t, "done", turn.Text)
	for _, rec := range turn.ToolCalls {
		assert.True(t, rec.OK)
		assert.Equal(t, `{"status":"ok"}`, rec.Content)
	}
	for _, m := range s.Messages() {
		assert.NotContains(t, m.Content, "tampered")
		assert.NotContains(t, m.ToolCallID, "tampered")
	}
}

// TestOverlappingChatWhileAToolRuns: a Chat while another is inside a tool
// call is busy and touches nothing.
func TestOverlappingChatWhileAToolRuns(t *testing.T) {
	started := make(chan struct{})
	release := make(chan struct{})
	exec := &recordingExec{fn: func(ctx context.Context, c session.ToolCall) (session.ToolResult, error) {
		if c.Name == "a" {
			close(started)
			<-release
		}
		return session.ToolResult{Status: session.ToolOK}, nil
	}}
	tr := threeCalls()
	s := newScripted(t, tr, func(o *session.Options) { threeTools(o); o.Execute = exec })
	first := make(chan session.Turn, 1)
	go func() { first <- s.Chat(context.Background(), "first") }()
	waitFor(t, started, "the first tool call")

	before := s.Messages()
	second := chat(t, context.Background(), s, "second")
	assert.Equal(t, session.StatusError, second.Status)
	assert.Equal(t, session.ErrorCodeBusy, second.ErrorCode)
	assert.Equal(t, 0, second.Rounds)
	assert.Empty(t, second.Events)
	assert.Equal(t, before, s.Messages(), "the busy chat touched no history")
	assert.Len(t, tr.Requests(), 1, "the busy chat sent nothing")

	close(release)
	bound, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	select {
	case turn := <-first:
		assert.Equal(t, session.StatusCompleted, turn.Status)
	case <-bound.Done():
		t.Fatal("the first chat did not finish")
	}
	assert.Equal(t, []string{"a", "b", "c"}, exec.names())
	third := chat(t, context.Background(), s, "third")
	assert.Equal(t, session.StatusCompleted, third.Status, "the session is free again")
}

// TestArgumentsHandedToTheExecutor: the executor always gets a JSON object.
func TestArgumentsHandedToTheExecutor(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{`{"a":1}`, `{"a":1}`},
		{` {"a":1} `, `{"a":1}`},
		{`[1,2]`, `{}`},
		{`"text"`, `{}`},
		{`null`, `{}`},
		{`42`, `{}`},
	} {
		t.Run(tc.args, func(t *testing.T) {
			exec := &recordingExec{}
			tr := session.NewScriptedTransport(session.ToolCallRound(call("c1", "t", tc.args)), session.TextRound("ok"))
			s := newScripted(t, tr, func(o *session.Options) { o.Tools = []session.ToolDefinition{tool("t")}; o.Execute = exec })
			require.Equal(t, session.StatusCompleted, chat(t, context.Background(), s, "go").Status)
			require.Len(t, exec.Calls(), 1)
			assert.JSONEq(t, tc.want, string(exec.Calls()[0].Args))
			assert.Equal(t, "c1", exec.Calls()[0].ID)
			body, err := session.EncodeChatRequest(&tr.Requests()[1])
			require.NoError(t, err)
			var decoded struct {
				Messages []struct {
					ToolCalls []struct {
						Arguments json.RawMessage `json:"arguments"`
					} `json:"toolCalls"`
				} `json:"messages"`
			}
			require.NoError(t, json.Unmarshal(body, &decoded), string(body))
			require.Len(t, decoded.Messages, 3)
			require.Len(t, decoded.Messages[1].ToolCalls, 1)
			assert.JSONEq(t, tc.want, string(decoded.Messages[1].ToolCalls[0].Arguments), "the request's arguments are an object too")
		})
	}
}
