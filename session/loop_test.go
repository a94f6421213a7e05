//go:build !js && !wasip1

// The tool loop: runtime tools over HTTP and scripted, call order, unknown
// tools and missing executors, kits, MaxToolRounds, the system prompt,
// per-call tool choice, and failures and cancellation in a tool turn
// (an unreachable proxy, an in-band error, an abort, failing transports).

package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/session"
	"github.com/agentwasm/agentwasm/testing/fakeproxy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestScriptedTextOnlyTurn(t *testing.T) {
	tr := session.NewScriptedTransport(session.TextRound("Hel", "lo"))
	var observed []session.Event
	s := newScripted(t, tr, func(o *session.Options) {
		o.Model = "m1"
		o.OnEvent = func(ev session.Event) { observed = append(observed, ev) }
	})
	turn := chat(t, context.Background(), s, "hi")
	require.NotEmpty(t, observed)
	assert.Equal(t, session.EventTypeToolDiscovery, observed[0].Type, "discovery is off: one empty report comes first")
	assert.Equal(t, session.ToolDiscoveryReport{}, *observed[0].Discovery)
	observed = observed[1:]

	assert.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	assert.Equal(t, "Hello", turn.Text)
	assert.Equal(t, "endTurn", turn.StopReason)
	assert.Equal(t, 1, turn.Rounds)
	assert.Empty(t, turn.ToolCalls)
	assert.Empty(t, turn.ErrorMessage)
	// The record holds one textDelta per run of deltas; the observer saw
	// every delta as it streamed.
	assert.Equal(t, []string{"messageStart", "textDelta", "messageStop"}, eventTypes(turn.Events))
	assert.Equal(t, "Hello", turn.Events[1].Text)
	require.Len(t, observed, 5)
	assert.Equal(t, session.Event{Type: session.EventTypeStepFinish, Step: &session.Step{Round: 1, Text: "Hello", StopReason: "endTurn"}},
		observed[4], "the round's step comes after its events")
	observed = observed[:4]
	for i, ev := range observed {
		assert.Equal(t, session.EventTypeChat, ev.Type)
		assert.Equal(t, session.TextRound("Hel", "lo")[i], *ev.Chat)
		assert.Nil(t, ev.Result)
	}
	assert.Equal(t, []session.Message{{Role: "user", Content: "hi"}, {Role: "assistant", Content: "Hello"}}, s.Messages())

	reqs := tr.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, session.ChatRequest{Model: "m1", Messages: []session.Message{{Role: "user", Content: "hi"}}}, reqs[0])
}

// The exact body of the second request of a runtime tool turn: the
// assistant message carries its round's calls, and the tool message answers
// one of them by id and name.
const twoRoundSecondBody = `{"model":"m1","messages":[` +
	`{"role":"user","content":"filter by population"},` +
	`{"role":"assistant","content":"Filtering.","toolCalls":[{"id":"c1","name":"setFilter","arguments":{"field":"pop"}}]},` +
	`{"role":"tool","content":"{\"status\":\"ok\",\"data\":{\"applied\":true}}","toolCallId":"c1","toolName":"setFilter"}],` +
	`"tools":[{"name":"setFilter","description":"Filter the map.","inputSchema":{"type":"object","properties":{"field":{"type":"string"}}}}]}`

const twoRoundFirstBody = `{"model":"m1","messages":[{"role":"user","content":"filter by population"}],` +
	`"tools":[{"name":"setFilter","description":"Filter the map.","inputSchema":{"type":"object","properties":{"field":{"type":"string"}}}}]}`

func setFilterTool() session.ToolDefinition {
	return session.ToolDefinition{
		Name:        "setFilter",
		Description: "Filter the map.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"field":{"type":"string"}}}`),
	}
}

func setFilterExec() *recordingExec {
	return &recordingExec{fn: func(ctx context.Context, call session.ToolCall) (session.ToolResult, error) {
		return session.ToolResult{Status: session.ToolOK, Data: json.RawMessage(`{"applied":true}`)}, nil
	}}
}

func TestRuntimeToolTwoRoundsOverHTTP(t *testing.T) {
	proxy, base := startProxy(t,
		fakeproxy.Reply{Body: sseToolRound("Filtering.", sseToolCall("c1", "setFilter", `{"field":`, `"pop"}`))},
		fakeproxy.Reply{Body: fakeproxy.TextStream(" Done.")})
	exec := setFilterExec()
	var results []session.DispatchRecord
	s := newSession(t, base, func(o *session.Options) {
		o.Model = "m1"
		o.Tools = []session.ToolDefinition{setFilterTool()}
		o.Execute = exec
		o.OnEvent = func(ev session.Event) {
			if ev.Type == session.EventTypeToolResult {
				results = append(results, *ev.Result)
			}
		}
	})
	turn := chat(t, context.Background(), s, "filter by population")

	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	assert.Equal(t, 2, turn.Rounds)
	assert.Equal(t, "Filtering. Done.", turn.Text, "the text of every round, joined")
	assert.Equal(t, "endTurn", turn.StopReason, "the last stop reason seen")
	assert.Equal(t, []session.ToolCall{call("c1", "setFilter", `{"field":"pop"}`)}, exec.Calls())
	want := session.DispatchRecord{ToolCallID: "c1", ToolName: "setFilter", Plane: session.PlaneRuntime, OK: true,
		Content: `{"status":"ok","data":{"applied":true}}`}
	assert.Equal(t, []session.DispatchRecord{want}, turn.ToolCalls)
	assert.Equal(t, []session.DispatchRecord{want}, results, "one toolResult event per dispatch")

	reqs := chatRequests(proxy)
	require.Len(t, reqs, 2, "one request per round")
	assert.Equal(t, twoRoundFirstBody, string(reqs[0].Body))
	assert.Equal(t, twoRoundSecondBody, string(reqs[1].Body))

	// The session read the capabilities first (the fake proxy has none: 404
	// is not a refusal).
	all := fakeproxy.WithoutMCP(proxy.Requests())
	require.Len(t, all, 3)
	assert.Equal(t, "GET", all[0].Method)
	assert.Equal(t, fakeproxy.CapabilitiesPath, all[0].Path)

	assert.Equal(t, []session.Message{
		{Role: "user", Content: "filter by population"},
		{Role: "assistant", Content: "Filtering.", ToolCalls: []session.ToolCall{call("c1", "setFilter", `{"field":"pop"}`)}},
		{Role: "tool", Content: want.Content, ToolCallID: "c1", ToolName: "setFilter"},
		{Role: "assistant", Content: " Done."},
	}, s.Messages())
}

func TestRuntimeToolTwoRoundsScripted(t *testing.T) {
	first := append([]session.StreamEvent{{Type: session.EventTextDelta, Text: "Filtering."}},
		session.ToolCallRound(call("c1", "setFilter", `{"field":"pop"}`))...)
	tr := session.NewScriptedTransport(first, session.TextRound(" Done."))
	exec := setFilterExec()
	s := newScripted(t, tr, func(o *session.Options) {
		o.Model = "m1"
		o.Tools = []session.ToolDefinition{setFilterTool()}
		o.Execute = exec
	})
	turn := chat(t, context.Background(), s, "filter by population")
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	assert.Equal(t, 2, turn.Rounds)
	assert.Equal(t, "Filtering. Done.", turn.Text)

	reqs := tr.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, []session.Message{
		{Role: "user", Content: "filter by population"},
		{Role: "assistant", Content: "Filtering.", ToolCalls: []session.ToolCall{call("c1", "setFilter", `{"field":"pop"}`)}},
		{Role: "tool", Content: `{"status":"ok","data":{"applied":true}}`, ToolCallID: "c1", ToolName: "setFilter"},
	}, reqs[1].Messages)
	assert.Equal(t, []session.ToolDefinition{setFilterTool()}, reqs[1].Tools)
	// The scripted transport sees exactly what the SSE transport sends.
	for i, want := range []string{twoRoundFirstBody, twoRoundSecondBody} {
		body, err := session.EncodeChatRequest(&reqs[i])
		require.NoError(t, err)
		assert.Equal(t, want, string(body))
	}
}

// TestCallsRunInStreamOrderOneAtATime: the calls of one round run one after
// the other, in the order the stream sent them.
func TestCallsRunInStreamOrderOneAtATime(t *testing.T) {
	var (
		inFlight, maxInFlight atomic.Int32
		mu                    sync.Mutex
		log                   []string
	)
	exec := &recordingExec{fn: func(ctx context.Context, call session.ToolCall) (session.ToolResult, error) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			m := maxInFlight.Load()
			if n <= m || maxInFlight.CompareAndSwap(m, n) {
				break
			}
		}
		mu.Lock()
		log = append(log, "start "+call.ID)
		mu.Unlock()
		for range 100 {
			runtime.Gosched() // give an overlapping call every chance to start
		}
		mu.Lock()
		log = append(log, "end "+call.ID)
		mu.Unlock()
		return session.ToolResult{Status: session.ToolOK}, nil
	}}
	// Stream order is c, a, b: neither alphabetical nor the start order of
	// the ids' names.
	tr := session.NewScriptedTransport(
		session.ToolCallRound(call("c", "third", `{}`), call("a", "first", `{}`), call("b", "second", `{}`)),
		session.TextRound("ok"))
	s := newScripted(t, tr, func(o *session.Options) {
		o.Tools = []session.ToolDefinition{tool("first"), tool("second"), tool("third")}
		o.Execute = exec
	})
	turn := chat(t, context.Background(), s, "go")
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	assert.Equal(t, int32(1), maxInFlight.Load(), "never two calls at once")
	assert.Equal(t, []string{"start c", "end c", "start a", "end a", "start b", "end b"}, log)
	ids := []string{}
	for _, r := range turn.ToolCalls {
		ids = append(ids, r.ToolCallID)
	}
	assert.Equal(t, []string{"c", "a", "b"}, ids)
	var toolIDs []string
	for _, m := range s.Messages() {
		if m.Role == "tool" {
			toolIDs = append(toolIDs, m.ToolCallID)
		}
	}
	assert.Equal(t, []string{"c", "a", "b"}, toolIDs, "tool messages follow stream order")
}

func TestRuntimeResults(t *testing.T) {
	cases := []struct {
		name    string
		result  session.ToolResult
		ok      bool
		code    string
		message string // exact, when set
		content string
	}{
		{name: "ok with data", result: session.ToolResult{Status: session.ToolOK, Data: json.RawMessage(`[1,"two"]`)},
			ok: true, content: `{"status":"ok","data":[1,"two"]}`},
		{name: "ok without data", result: session.ToolResult{Status: session.ToolOK},
			ok: true, content: `{"status":"ok"}`},
		{name: "dry-run is a success", result: session.ToolResult{Status: session.ToolDryRun, Data: json.RawMessage(`{"would":"filter"}`)},
			ok: true, content: `{"status":"dry-run","data":{"would":"filter"}}`},
		{name: "denied with a reason", result: session.ToolResult{Status: session.ToolDenied, DeniedReason: "The layer is locked."},
			code: "denied", message: "The layer is locked.", content: `{"status":"denied","deniedReason":"The layer is locked."}`},
		{name: "error without a reason", result: session.ToolResult{Status: session.ToolError},
			code: "error", message: "setFilter returned error.", content: `{"status":"error"}`},
		{name: "error with a reason", result: session.ToolResult{Status: session.ToolError, DeniedReason: "No such field."},
			code: "error", message: "No such field.", content: `{"status":"error","deniedReason":"No such field."}`},
		{name: "denied without a reason", result: session.ToolResult{Status: session.ToolDenied},
			code: "denied", message: "setFilter returned denied.", content: `{"status":"denied"}`},
		{name: "no status", result: session.ToolResult{},
			code: "invalid_result", message: "setFilter returned a result without a status.", content: `{"status":""}`},
		{name: "a tool status named cancelled does not cancel the turn", result: session.ToolResult{Status: "cancelled"},
			code: "cancelled", message: "setFilter returned cancelled.", content: `{"status":"cancelled"}`},
		{name: "data that is not JSON is sent as a string", result: session.ToolResult{Status: session.ToolOK, Data: json.RawMessage(`not json`)},
			ok: true, content: `{"status":"ok","data":"not json"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := session.NewScriptedTransport(
				session.ToolCallRound(call("c1", "setFilter", `{"field":"pop"}`)),
				session.TextRound("after"))
			s := newScripted(t, tr, func(o *session.Options) {
				o.Tools = []session.ToolDefinition{tool("setFilter")}
				o.Execute = session.ExecutorFunc(func(context.Context, session.ToolCall) (session.ToolResult, error) {
					return tc.result, nil
				})
			})
			turn := chat(t, context.Background(), s, "go")
			assert.Equal(t, session.StatusCompleted, turn.Status, "a failed tool does not end the turn: %s", turn.ErrorMessage)
			assert.Equal(t, 2, turn.Rounds)
			assert.Equal(t, "after", turn.Text)
			require.Len(t, turn.ToolCalls, 1)
			rec := turn.ToolCalls[0]
			assert.Equal(t, session.PlaneRuntime, rec.Plane)
			assert.Equal(t, tc.ok, rec.OK)
			assert.Equal(t, tc.code, rec.ErrorCode)
			assert.Equal(t, tc.message, rec.ErrorMessage)
			assert.Equal(t, tc.content, rec.Content)
			assert.True(t, json.Valid([]byte(rec.Content)), "the content is JSON: %s", rec.Content)
			reqs := tr.Requests()
			require.Len(t, reqs, 2)
			msgs := reqs[1].Messages
			require.Len(t, msgs, 3)
			assert.Equal(t, session.Message{Role: "tool", Content: tc.content, ToolCallID: "c1", ToolName: "setFilter"}, msgs[2])
		})
	}
}

func TestUnknownTool(t *testing.T) {
	exec := &recordingExec{}
	tr := session.NewScriptedTransport(
		session.ToolCallRound(call("c1", "dropTable", `{"name":"users"}`)),
		session.TextRound("sorry"))
	s := newScripted(t, tr, func(o *session.Options) {
		o.Tools = []session.ToolDefinition{tool("setFilter")}
		o.Execute = exec
	})
	turn := chat(t, context.Background(), s, "go")
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	assert.Empty(t, exec.Calls(), "nothing is executed")
	msg := "No tool named dropTable is available to this session."
	require.Len(t, turn.ToolCalls, 1)
	assert.Equal(t, session.DispatchRecord{
		ToolCallID: "c1", ToolName: "dropTable", Plane: session.PlaneUnknown, OK: false,
		ErrorCode: session.CodeUnknownTool, ErrorMessage: msg,
		Content: `{"status":"error","code":"unknown_tool","message":"` + msg + `"}`,
	}, turn.ToolCalls[0])
	msgs := s.Messages()
	require.Len(t, msgs, 4)
	assert.Equal(t, session.Message{Role: "tool", Content: turn.ToolCalls[0].Content, ToolCallID: "c1", ToolName: "dropTable"}, msgs[2])
}

func TestUnknownToolWithNoToolsAdvertised(t *testing.T) {
	tr := session.NewScriptedTransport(session.ToolCallRound(call("c1", "anything", `{}`)), session.TextRound("ok"))
	s := newScripted(t, tr, nil)
	turn := chat(t, context.Background(), s, "go")
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	require.Len(t, turn.ToolCalls, 1)
	assert.Equal(t, session.PlaneUnknown, turn.ToolCalls[0].Plane)
	assert.Equal(t, session.CodeUnknownTool, turn.ToolCalls[0].ErrorCode)
	assert.Nil(t, tr.Requests()[0].Tools, "no tools are advertised")
}

func TestRuntimeToolWithoutExecutor(t *testing.T) {
	tr := session.NewScriptedTransport(session.ToolCallRound(call("c1", "setFilter", `{}`)), session.TextRound("ok"))
	s := newScripted(t, tr, func(o *session.Options) { o.Tools = []session.ToolDefinition{tool("setFilter")} })
	turn := chat(t, context.Background(), s, "go")
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	require.Len(t, turn.ToolCalls, 1)
	rec := turn.ToolCalls[0]
	assert.Equal(t, session.PlaneRuntime, rec.Plane)
	assert.False(t, rec.OK)
	assert.Equal(t, session.CodeNoExecutor, rec.ErrorCode)
	assert.Contains(t, rec.ErrorMessage, "setFilter")
	assert.Contains(t, rec.ErrorMessage, "kit")
	assert.Contains(t, rec.ErrorMessage, "execute")
	var content map[string]any
	require.NoError(t, json.Unmarshal([]byte(rec.Content), &content))
	assert.Equal(t, map[string]any{"status": "error", "code": "no_executor", "message": rec.ErrorMessage}, content)
}

func TestExecuteReplacesTheKitsExecutor(t *testing.T) {
	kitExec := &recordingExec{}
	explicit := &recordingExec{fn: func(context.Context, session.ToolCall) (session.ToolResult, error) {
		return session.ToolResult{Status: session.ToolDryRun}, nil
	}}
	tr := session.NewScriptedTransport(
		session.ToolCallRound(call("c1", "kitTool", `{}`), call("c2", "extra", `{}`)),
		session.TextRound("ok"))
	s := newScripted(t, tr, func(o *session.Options) {
		o.Kit = &testKit{tools: []session.ToolDefinition{tool("kitTool")}, exec: kitExec}
		o.Tools = []session.ToolDefinition{tool("extra")}
		o.Execute = explicit
	})
	turn := chat(t, context.Background(), s, "go")
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	assert.Empty(t, kitExec.Calls(), "the kit's executor is replaced for every runtime tool")
	assert.Equal(t, []string{"kitTool", "extra"}, explicit.names())
	for _, rec := range turn.ToolCalls {
		assert.True(t, rec.OK)
		assert.Equal(t, `{"status":"dry-run"}`, rec.Content)
	}
}

func TestKitExecutesKitAndExplicitTools(t *testing.T) {
	kitExec := &recordingExec{}
	tr := session.NewScriptedTransport(
		session.ToolCallRound(call("c1", "kitTool", `{}`), call("c2", "extra", `{}`)),
		session.TextRound("ok"))
	s := newScripted(t, tr, func(o *session.Options) {
		o.Kit = &testKit{tools: []session.ToolDefinition{tool("kitTool")}, exec: kitExec}
		o.Tools = []session.ToolDefinition{tool("extra")}
	})
	turn := chat(t, context.Background(), s, "go")
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	assert.Equal(t, []string{"kitTool", "extra"}, kitExec.names(), "without Execute the kit runs every runtime tool")
}

func TestKitToolsFirstThenToolsFirstNameWins(t *testing.T) {
	kitB := session.ToolDefinition{Name: "b", Description: "kit b"}
	s := newScripted(t, session.NewScriptedTransport(session.TextRound("ok")), func(o *session.Options) {
		o.Kit = &testKit{tools: []session.ToolDefinition{tool("a"), kitB, {Name: ""}, tool("a")}, exec: &recordingExec{}}
		o.Tools = []session.ToolDefinition{{Name: "b", Description: "explicit b"}, tool("c"), {Name: "c", Description: "second c"}}
	})
	want := []session.ToolDefinition{tool("a"), kitB, tool("c")}
	assert.Equal(t, want, s.Tools())

	tr := session.NewScriptedTransport(session.TextRound("ok"))
	s = newScripted(t, tr, func(o *session.Options) {
		o.Kit = &testKit{tools: []session.ToolDefinition{tool("a"), kitB}, exec: &recordingExec{}}
		o.Tools = []session.ToolDefinition{{Name: "b", Description: "explicit b"}, tool("c")}
	})
	require.Equal(t, session.StatusCompleted, chat(t, context.Background(), s, "go").Status)
	reqs := tr.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, want, reqs[0].Tools, "the request advertises the merged list")
}

// TestKitToolsAreReadEveryTurn: a kit may change its tools between turns.
func TestKitToolsAreReadEveryTurn(t *testing.T) {
	kit := &testKit{tools: []session.ToolDefinition{tool("a")}, exec: &recordingExec{}}
	tr := session.NewScriptedTransport(session.TextRound("ok"))
	s := newScripted(t, tr, func(o *session.Options) { o.Kit = kit })
	require.Equal(t, session.StatusCompleted, chat(t, context.Background(), s, "one").Status)
	kit.tools = []session.ToolDefinition{tool("a"), tool("b")}
	require.Equal(t, session.StatusCompleted, chat(t, context.Background(), s, "two").Status)
	reqs := tr.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, []string{"a"}, toolNames(reqs[0].Tools))
	assert.Equal(t, []string{"a", "b"}, toolNames(reqs[1].Tools))
}

func TestMaxToolRounds(t *testing.T) {
	exec := &recordingExec{}
	tr := session.NewScriptedTransport(session.ToolCallRound(call("", "again", `{}`)))
	s := newScripted(t, tr, func(o *session.Options) {
		o.MaxToolRounds = 2
		o.Tools = []session.ToolDefinition{tool("again")}
		o.Execute = exec
	})
	turn := chat(t, context.Background(), s, "loop")
	assert.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	assert.Empty(t, turn.ErrorMessage)
	assert.Equal(t, 2, turn.Rounds)
	assert.Len(t, turn.ToolCalls, 2)
	assert.Len(t, exec.Calls(), 2)
	assert.Equal(t, "toolCall", turn.StopReason)
	assert.Len(t, tr.Requests(), 2, "no third request")
	msgs := s.Messages()
	require.Len(t, msgs, 5, "user, then assistant + tool twice")
	last := msgs[len(msgs)-1]
	assert.Equal(t, "tool", last.Role, "the last results are in history")
	assert.Equal(t, turn.ToolCalls[1].ToolCallID, last.ToolCallID)
	assert.Equal(t, `{"status":"ok"}`, last.Content)
	assert.NotEqual(t, turn.ToolCalls[0].ToolCallID, turn.ToolCalls[1].ToolCallID, "generated ids are unique across rounds")
}

func TestMaxToolRoundsDefault(t *testing.T) {
	tr := session.NewScriptedTransport(session.ToolCallRound(call("c", "again", `{}`)))
	s := newScripted(t, tr, func(o *session.Options) {
		o.Tools = []session.ToolDefinition{tool("again")}
		o.Execute = &recordingExec{}
	})
	turn := chat(t, context.Background(), s, "loop")
	assert.Equal(t, session.StatusCompleted, turn.Status)
	assert.Equal(t, session.DefaultMaxToolRounds, turn.Rounds)
	assert.Len(t, tr.Requests(), 8)
}

func TestSystemFuncOncePerTurn(t *testing.T) {
	var calls atomic.Int32
	tr := session.NewScriptedTransport(
		session.ToolCallRound(call("c1", "t", `{}`)),
		session.ToolCallRound(call("c2", "t", `{}`)),
		session.TextRound("done"))
	s := newScripted(t, tr, func(o *session.Options) {
		o.Tools = []session.ToolDefinition{tool("t")}
		o.Execute = &recordingExec{}
		o.SystemFunc = func(context.Context) (string, error) {
			n := calls.Add(1)
			return "prompt " + string(rune('0'+n)), nil
		}
	})
	turn := chat(t, context.Background(), s, "one")
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	require.Equal(t, 3, turn.Rounds)
	assert.Equal(t, int32(1), calls.Load(), "once per turn, not per round")
	for _, r := range tr.Requests() {
		assert.Equal(t, "prompt 1", r.System)
	}
	require.Equal(t, session.StatusCompleted, chat(t, context.Background(), s, "two").Status)
	assert.Equal(t, int32(2), calls.Load())
	reqs := tr.Requests()
	assert.Equal(t, "prompt 2", reqs[len(reqs)-1].System, "called afresh for the next turn")
}

func TestSystemFuncFailure(t *testing.T) {
	for _, tc := range []struct {
		name string
		fn   func(context.Context) (string, error)
		want string
	}{
		{"error", func(context.Context) (string, error) { return "", errors.New("map not ready") },
			"Could not build the system prompt: map not ready"},
		{"panic", func(context.Context) (string, error) { panic("boom") },
			"Could not build the system prompt: the system prompt function panicked: boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := session.NewScriptedTransport(session.TextRound("never"))
			s := newScripted(t, tr, func(o *session.Options) { o.SystemFunc = tc.fn })
			turn := chat(t, context.Background(), s, "hi")
			assert.Equal(t, session.StatusError, turn.Status)
			assert.True(t, strings.HasPrefix(turn.ErrorMessage, "Could not build the system prompt:"), turn.ErrorMessage)
			assert.Equal(t, tc.want, turn.ErrorMessage)
			assert.Equal(t, 0, turn.Rounds)
			assert.Empty(t, tr.Requests(), "no chat request")
			assert.Equal(t, []string{"user: hi"}, roles(s.Messages()))
		})
	}
}

func TestSystemPrompterKit(t *testing.T) {
	kit := &promptKit{testKit: testKit{tools: []session.ToolDefinition{tool("t")}, exec: &recordingExec{}}, prompt: "The map shows Oslo."}
	tr := session.NewScriptedTransport(session.ToolCallRound(call("c", "t", `{}`)), session.TextRound("ok"))
	s := newScripted(t, tr, func(o *session.Options) { o.Kit = kit })
	require.Equal(t, session.StatusCompleted, chat(t, context.Background(), s, "hi").Status)
	reqs := tr.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "The map shows Oslo.", reqs[0].System)
	assert.Equal(t, "The map shows Oslo.", reqs[1].System)
	assert.Equal(t, 1, kit.calls, "once per turn")

	// System or SystemFunc, when set, win over the kit.
	for _, set := range []func(*session.Options){
		func(o *session.Options) { o.System = "fixed" },
		func(o *session.Options) {
			o.SystemFunc = func(context.Context) (string, error) { return "fixed", nil }
		},
	} {
		kit := &promptKit{testKit: testKit{exec: &recordingExec{}}, prompt: "kit"}
		tr := session.NewScriptedTransport(session.TextRound("ok"))
		s := newScripted(t, tr, func(o *session.Options) { o.Kit = kit; set(o) })
		require.Equal(t, session.StatusCompleted, chat(t, context.Background(), s, "hi").Status)
		assert.Equal(t, "fixed", tr.Requests()[0].System)
		assert.Equal(t, 0, kit.calls)
	}
}

func TestPerCallToolChoice(t *testing.T) {
	tr := session.NewScriptedTransport(session.TextRound("ok"))
	s := newScripted(t, tr, func(o *session.Options) {
		o.Tools = []session.ToolDefinition{tool("setFilter")}
		o.Execute = &recordingExec{}
		o.ToolChoice = &session.ToolChoice{Mode: "auto"}
	})
	specific := &session.ToolChoice{Mode: "specific", ToolName: "setFilter"}
	require.Equal(t, session.StatusCompleted, chatWith(t, context.Background(), s, "one", session.ChatOptions{ToolChoice: specific}).Status)
	require.Equal(t, session.StatusCompleted, chat(t, context.Background(), s, "two").Status)
	reqs := tr.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, specific, reqs[0].ToolChoice, "the per-call choice wins")
	assert.Equal(t, &session.ToolChoice{Mode: "auto"}, reqs[1].ToolChoice, "only for that turn")
	body, err := session.EncodeChatRequest(&reqs[0])
	require.NoError(t, err)
	assert.Contains(t, string(body), `"toolChoice":{"mode":"specific","toolName":"setFilter"}`)

	turn := chatWith(t, context.Background(), s, "three", session.ChatOptions{ToolChoice: &session.ToolChoice{Mode: "specific"}})
	assert.Equal(t, session.StatusError, turn.Status)
	assert.Contains(t, turn.ErrorMessage, "ChatOptions.ToolChoice")
	assert.Len(t, tr.Requests(), 2, "a bad per-call choice sends nothing")
	assert.Equal(t, []string{"user: one", "assistant: ok", "user: two", "assistant: ok"}, roles(s.Messages()))
}

func TestPerCallToolChoiceOverHTTP(t *testing.T) {
	proxy, base := startProxy(t, fakeproxy.Reply{Body: fakeproxy.TextStream("ok")})
	s := newSession(t, base, func(o *session.Options) { o.ToolChoice = &session.ToolChoice{Mode: "required"} })
	turn := chatWith(t, context.Background(), s, "hi", session.ChatOptions{ToolChoice: &session.ToolChoice{Mode: "none"}})
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	reqs := chatRequests(proxy)
	require.Len(t, reqs, 1)
	assert.Equal(t, map[string]any{"mode": "none"}, reqs[0].JSON()["toolChoice"])
}

func TestUnreachableProxyWithTools(t *testing.T) {
	var (
		mu   sync.Mutex // the discovery pass fetches on its own goroutine
		urls []string
	)
	s := newSession(t, "http://studio.invalid/api", func(o *session.Options) {
		o.Tools = []session.ToolDefinition{tool("t")}
		o.Execute = &recordingExec{}
		o.Fetcher = bridge.FetcherFunc(func(ctx context.Context, req *bridge.Request) (*bridge.Response, error) {
			mu.Lock()
			defer mu.Unlock()
			urls = append(urls, req.URL)
			return nil, &bridge.FetchError{URL: req.URL, Err: errors.New("connection refused")}
		})
	})
	turn := chat(t, context.Background(), s, "hi")
	assert.Equal(t, session.StatusError, turn.Status)
	assert.Equal(t, "Could not reach the Studio AI proxy at http://studio.invalid/api/v1/studio/ai/chat: connection refused", turn.ErrorMessage)
	mu.Lock()
	defer mu.Unlock()
	var proxyURLs []string
	for _, u := range urls {
		if !strings.HasSuffix(u, "/mcp") {
			proxyURLs = append(proxyURLs, u)
		}
	}
	assert.Equal(t, []string{"http://studio.invalid/api/v1/studio/ai/capabilities", "http://studio.invalid/api/v1/studio/ai/chat"}, proxyURLs,
		"an unreachable capabilities endpoint is not a refusal; the chat request is still tried, once")
	assert.Contains(t, urls, "http://studio.invalid/api/mcp", "the default MCP client tried discovery")
	assert.NotEmpty(t, s.ToolDiscovery().ErrorMessage, "the unreachable MCP endpoint is a failed pass")
	assert.Equal(t, 1, turn.Rounds)
}

func TestInBandErrorAfterAToolRound(t *testing.T) {
	tr := session.NewScriptedTransport(
		session.ToolCallRound(call("c1", "t", `{}`)),
		[]session.StreamEvent{{Type: session.EventTextDelta, Text: "partial"}, {Type: session.EventError, ErrorMessage: "Upstream overloaded.", ErrorCode: "overloaded"}})
	s := newScripted(t, tr, func(o *session.Options) {
		o.Tools = []session.ToolDefinition{tool("t")}
		o.Execute = &recordingExec{}
	})
	turn := chat(t, context.Background(), s, "hi")
	assert.Equal(t, session.StatusError, turn.Status)
	assert.Equal(t, "Upstream overloaded.", turn.ErrorMessage)
	assert.Equal(t, "overloaded", turn.ErrorCode)
	assert.Equal(t, 2, turn.Rounds)
	assert.Len(t, turn.ToolCalls, 1)
	assert.Equal(t, "partial", turn.Text)
	msgs := s.Messages()
	require.Len(t, msgs, 3, "the failed round adds no assistant message")
	assert.Equal(t, "tool", msgs[2].Role)
}

func TestAbortMidToolCallOneByteAtATime(t *testing.T) {
	partial := fakeproxy.Frame("message_start", `{"model":"m"}`) +
		fakeproxy.Frame("text_delta", `{"text":"Let me"}`) +
		fakeproxy.Frame("tool_call_start", `{"toolCallId":"c1","toolName":"t"}`) +
		fakeproxy.Frame("tool_call_delta", `{"toolCallId":"c1","toolArgumentsDelta":"{\"a\":"}`)
	proxy, base := startProxy(t, fakeproxy.Reply{Body: partial, Chunk: 1, HangAfterBody: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	exec := &recordingExec{}
	s := newSession(t, base, func(o *session.Options) {
		o.Tools = []session.ToolDefinition{tool("t")}
		o.Execute = exec
		o.OnEvent = func(ev session.Event) {
			if ev.Type == session.EventTypeChat && ev.Chat.Type == session.EventToolCallDelta {
				cancel()
			}
		}
	})
	turn := chat(t, ctx, s, "hi")
	assert.Equal(t, session.StatusCancelled, turn.Status, turn.ErrorMessage)
	assert.Equal(t, "Let me", turn.Text)
	assert.Equal(t, []string{"messageStart", "textDelta", "toolCallStart", "toolCallDelta"}, eventTypes(turn.Events))
	assert.Empty(t, exec.Calls(), "a call that never stopped never runs")
	assert.Empty(t, turn.ToolCalls)
	assert.Len(t, chatRequests(proxy), 1)
	assert.Equal(t, []string{"user: hi"}, roles(s.Messages()))
}

func TestAlreadyCancelledContextWithTools(t *testing.T) {
	var fetches, tokens, systems atomic.Int32
	s := newSession(t, "", func(o *session.Options) {
		o.Tools = []session.ToolDefinition{tool("t")}
		o.Execute = &recordingExec{}
		o.Auth = session.TokenFunc(func(context.Context, bool) (string, error) { tokens.Add(1); return "tok-1234", nil })
		o.SystemFunc = func(context.Context) (string, error) { systems.Add(1); return "", nil }
		o.Fetcher = bridge.FetcherFunc(func(ctx context.Context, req *bridge.Request) (*bridge.Response, error) {
			fetches.Add(1)
			return nil, errors.New("no")
		})
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	turn := chat(t, ctx, s, "hi")
	assert.Equal(t, session.StatusCancelled, turn.Status)
	assert.Equal(t, 0, turn.Rounds)
	assert.Zero(t, fetches.Load(), "no capabilities or chat request")
	assert.Zero(t, tokens.Load(), "no token is asked for")
	assert.Zero(t, systems.Load())
	assert.Empty(t, s.Messages())
}

// blockingTransport's streams block in Next until closed, ignoring ctx.
type blockingTransport struct {
	opened chan struct{}
}

type blockingStream struct {
	once   sync.Once
	closed chan struct{}
}

func (b *blockingTransport) Stream(ctx context.Context, req *session.ChatRequest) (session.EventStream, error) {
	close(b.opened)
	return &blockingStream{closed: make(chan struct{})}, nil
}

func (s *blockingStream) Next() (session.StreamEvent, error) {
	<-s.closed
	return session.StreamEvent{}, io.EOF
}

func (s *blockingStream) Close() error {
	s.once.Do(func() { close(s.closed) })
	return nil
}

// TestCancelATransportThatIgnoresTheContext: the stream is closed when the
// context ends, and a stream that then reports a clean end is still a
// cancelled turn, not a completed one.
func TestCancelATransportThatIgnoresTheContext(t *testing.T) {
	tr := &blockingTransport{opened: make(chan struct{})}
	s := newScripted(t, tr, nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-tr.opened
		cancel()
	}()
	turn := chat(t, ctx, s, "hi")
	assert.Equal(t, session.StatusCancelled, turn.Status, turn.ErrorMessage)
	assert.Equal(t, []string{"user: hi"}, roles(s.Messages()), "no assistant message for a cut-short round")
}

// TestTransportFailures: what a custom transport does wrong ends the turn in
// error, never in a panic.
func TestTransportFailures(t *testing.T) {
	cases := []struct {
		name string
		tr   session.Transport
		want string
	}{
		{"error", session.TransportFunc(func(context.Context, *session.ChatRequest) (session.EventStream, error) {
			return nil, errors.New("offline")
		}), "The chat transport failed: offline"},
		{"nil stream", session.TransportFunc(func(context.Context, *session.ChatRequest) (session.EventStream, error) {
			return nil, nil
		}), "The chat transport returned no stream and no error."},
		{"panic", session.TransportFunc(func(context.Context, *session.ChatRequest) (session.EventStream, error) {
			panic("bad transport")
		}), "The chat transport panicked: bad transport"},
		{"no scripted rounds", session.NewScriptedTransport(), "The chat transport failed: the scripted transport has no rounds"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			turn := chat(t, context.Background(), newScripted(t, tc.tr, nil), "hi")
			assert.Equal(t, session.StatusError, turn.Status)
			assert.Equal(t, tc.want, turn.ErrorMessage)
		})
	}
}
