//go:build !js && !wasip1

// Helpers shared by the session's tests: servers, scripted sessions, chat
// requests and tool rounds.

package session_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/agentwasm/agentwasm/session"
	"github.com/agentwasm/agentwasm/testing/fakeproxy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startHandler serves h and returns the base URL sessions should use.
func startHandler(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv.URL + "/api"
}

// newScripted returns a session driven by tr; opts may adjust the options.
// Unless opts gives an MCP client, discovery is off: a scripted session
// touches no network.
func newScripted(t *testing.T, tr session.Transport, opts func(*session.Options)) *session.Session {
	t.Helper()
	o := session.Options{Transport: tr}
	if opts != nil {
		opts(&o)
	}
	if o.MCPClient == nil {
		o.DisableToolDiscovery = true
	}
	s, err := session.New(o)
	require.NoError(t, err)
	return s
}

// chatWith is chat with per-turn options.
func chatWith(t *testing.T, ctx context.Context, s *session.Session, text string, co session.ChatOptions) session.Turn {
	t.Helper()
	done := make(chan session.Turn, 1)
	go func() { done <- s.Chat(ctx, text, co) }()
	bound, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	select {
	case turn := <-done:
		return turn
	case <-bound.Done():
		t.Fatalf("Chat(%q) did not return", text)
		return session.Turn{}
	}
}

// waitFor fails the test if ch is not closed or sent on within waitBound.
func waitFor(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	bound, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	select {
	case <-ch:
	case <-bound.Done():
		t.Fatalf("%s did not happen", what)
	}
}

// chatRequests returns the chat requests among the proxy's requests.
func chatRequests(p *fakeproxy.Proxy) []fakeproxy.Request {
	var out []fakeproxy.Request
	for _, r := range p.Requests() {
		if r.Path == fakeproxy.ChatPath {
			out = append(out, r)
		}
	}
	return out
}

// recordingExec is an Executor that records every call it gets and answers
// with fn (ok with no data when fn is nil).
type recordingExec struct {
	fn func(ctx context.Context, call session.ToolCall) (session.ToolResult, error)

	mu    sync.Mutex
	calls []session.ToolCall
}

func (e *recordingExec) Execute(ctx context.Context, call session.ToolCall) (session.ToolResult, error) {
	e.mu.Lock()
	e.calls = append(e.calls, call)
	e.mu.Unlock()
	if e.fn == nil {
		return session.ToolResult{Status: session.ToolOK}, nil
	}
	return e.fn(ctx, call)
}

func (e *recordingExec) Calls() []session.ToolCall {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]session.ToolCall(nil), e.calls...)
}

// names returns the names of calls, in order.
func (e *recordingExec) names() []string {
	out := []string{}
	for _, c := range e.Calls() {
		out = append(out, c.Name)
	}
	return out
}

// testKit is a Kit with fixed tools.
type testKit struct {
	tools []session.ToolDefinition
	exec  *recordingExec
}

func (k *testKit) Tools() []session.ToolDefinition { return k.tools }
func (k *testKit) Execute(ctx context.Context, call session.ToolCall) (session.ToolResult, error) {
	return k.exec.Execute(ctx, call)
}

// promptKit is a Kit that also supplies the system prompt.
type promptKit struct {
	testKit
	mu     sync.Mutex
	prompt string
	calls  int
}

func (k *promptKit) SystemPrompt(context.Context) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.calls++
	return k.prompt, nil
}

// tool returns a tool definition with an object input schema.
func tool(name string) session.ToolDefinition {
	return session.ToolDefinition{Name: name, Description: "The " + name + " tool.", InputSchema: json.RawMessage(`{"type":"object"}`)}
}

// call returns a tool call with the given JSON arguments.
func call(id, name, args string) session.ToolCall {
	return session.ToolCall{ID: id, Name: name, Args: json.RawMessage(args)}
}

// toolNames returns the names of tools, in order.
func toolNames(tools []session.ToolDefinition) []string {
	out := []string{}
	for _, t := range tools {
		out = append(out, t.Name)
	}
	return out
}

// sseToolCall is the SSE frames of one tool call whose arguments arrive as
// deltas (no toolArguments on the stop).
func sseToolCall(id, name string, deltas ...string) string {
	s := fakeproxy.Frame("tool_call_start", `{"toolCallId":"`+id+`","toolName":"`+name+`"}`)
	for _, d := range deltas {
		b, _ := json.Marshal(d)
		s += fakeproxy.Frame("tool_call_delta", `{"toolCallId":"`+id+`","toolArgumentsDelta":`+string(b)+`}`)
	}
	return s + fakeproxy.Frame("tool_call_stop", `{"toolCallId":"`+id+`"}`)
}

// sseToolRound is a complete answer that says text, then makes calls.
func sseToolRound(text string, calls ...string) string {
	s := fakeproxy.Frame("message_start", `{"model":"fake-model"}`)
	if text != "" {
		b, _ := json.Marshal(text)
		s += fakeproxy.Frame("text_delta", `{"text":`+string(b)+`}`)
	}
	for _, c := range calls {
		s += c
	}
	return s + fakeproxy.Frame("message_stop", `{"stopReason":"toolCall"}`)
}

// withoutDiscovery drops the toolDiscovery events: a session with the default
// MCP client publishes one, once, over a fake proxy that has no /mcp (the
// endpoint is absent).
func withoutDiscovery(events []session.Event) []session.Event {
	var out []session.Event
	for _, ev := range events {
		if ev.Type != session.EventTypeToolDiscovery {
			out = append(out, ev)
		}
	}
	return out
}

// checkNew runs session.New with opts: with wantErr empty it must succeed;
// else it must fail, returning no session and an error containing wantErr,
// which it returns for further checks (nil when it did not fail).
func checkNew(t *testing.T, opts session.Options, wantErr string) error {
	t.Helper()
	s, err := session.New(opts)
	if wantErr == "" {
		assert.NoError(t, err)
		assert.NotNil(t, s)
		return nil
	}
	assert.Nil(t, s)
	if assert.Error(t, err) {
		assert.Contains(t, err.Error(), wantErr)
	}
	return err
}
