//go:build !js && !wasip1

// The scrubber at the session's boundary: tokens the default MCP client
// obtained (and that an MCP server echoes in its errors and results) are
// redacted from everything the session emits or forwards.

package session_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentwasm/agentwasm/session"
	"github.com/agentwasm/agentwasm/testing/fakemcp"
	"github.com/agentwasm/agentwasm/testing/fakeproxy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rotatingTokens hands out a new token on every ask, as a source minting
// short-lived tokens does: the tokens of the MCP requests are then never
// the ones the chat requests carried.
type rotatingTokens struct {
	mu     sync.Mutex
	issued []string
}

func (r *rotatingTokens) AccessToken(context.Context, bool) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	tok := "mcp-secret-" + strconv.Itoa(len(r.issued)+1) + "-a1b2c3d4"
	r.issued = append(r.issued, tok)
	return tok, nil
}

func (r *rotatingTokens) Issued() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.issued...)
}

// echoingMCP is an MCP server (the fake, stateless era) whose first
// tools/list fails with the caller's authorization header in its error
// text, and whose tools put the header in their error texts and results.
func echoingMCP(t *testing.T) http.Handler { return echoingMCPFailing(t, 1) }

// echoingMCPFailing is echoingMCP whose first failing tools/list requests fail.
func echoingMCPFailing(t *testing.T, failing int32) http.Handler {
	t.Helper()
	var lastAuth atomic.Value // the authorization header of the request being served
	lastAuth.Store("")
	classified := func(name string) json.RawMessage {
		return json.RawMessage(`{"name":"` + name + `","inputSchema":{"type":"object"},"_meta":{"honua.studio":{"family":"honua.studio.composition"}}}`)
	}
	srv := &fakemcp.Server{Era: fakemcp.Stateless,
		Tools: []json.RawMessage{classified("honua_studio_fail_text"), classified("honua_studio_fail_rpc"), classified("honua_studio_echo")},
		Call: func(_ context.Context, name string, _ json.RawMessage) (json.RawMessage, *fakemcp.RPCError) {
			auth := lastAuth.Load().(string)
			switch name {
			case "honua_studio_fail_text":
				text, _ := json.Marshal("token " + auth + " lacks scope studio:write")
				return json.RawMessage(`{"content":[{"type":"text","text":` + string(text) + `}],"isError":true}`), nil
			case "honua_studio_fail_rpc":
				return nil, &fakemcp.RPCError{Code: -32001, Message: "token " + auth + " lacks scope studio:admin"}
			default:
				seen, _ := json.Marshal(auth)
				return json.RawMessage(`{"content":[],"structuredContent":{"seen":` + string(seen) + `}}`), nil
			}
		}}
	var lists atomic.Int32
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		lastAuth.Store(r.Header.Get("authorization"))
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &msg)
		if msg.Method == "tools/list" && lists.Add(1) <= failing {
			w.Header().Set("content-type", "application/json")
			reason, _ := json.Marshal("token " + r.Header.Get("authorization") + " lacks scope tools:list")
			_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32001,"message":%s}}`, msg.ID, reason)
			return
		}
		srv.ServeHTTP(w, r)
	})
}

// TestMCPTokensNeverLeak: the default MCP client's tokens are learned by the
// scrubber, so an MCP server that echoes them (in a tools/list error, a tool
// error, a JSON-RPC error of tools/call, a tool's result) leaks none into
// the discovery report, the toolDiscovery and toolResult events, the
// dispatch records, the history, or the next chat request to the model.
func TestMCPTokensNeverLeak(t *testing.T) {
	proxy := fakeproxy.New(
		fakeproxy.Reply{Body: fakeproxy.TextStream("First turn, without MCP tools.")},
		fakeproxy.Reply{Body: fakeproxy.ToolCallStream(
			fakeproxy.Call{ID: "c1", Name: "honua_studio_fail_text"},
			fakeproxy.Call{ID: "c2", Name: "honua_studio_fail_rpc"},
			fakeproxy.Call{ID: "c3", Name: "honua_studio_echo"})},
		fakeproxy.Reply{Body: fakeproxy.TextStream("Done.")})
	mux := http.NewServeMux()
	mux.Handle("/api/mcp", echoingMCP(t))
	mux.Handle("/", proxy)
	base := startHandler(t, mux)
	tokens := &rotatingTokens{}
	var log eventLog
	s := newSession(t, base, func(o *session.Options) {
		o.Auth = tokens
		o.OnEvent = log.add
	})
	t.Cleanup(func() { _ = s.Close() })

	first := chat(t, context.Background(), s, "hello")
	require.Equal(t, session.StatusCompleted, first.Status, first.ErrorMessage)
	failed := s.ToolDiscovery()
	require.NotEmpty(t, failed.ErrorMessage, "the first tools/list failed")
	assert.Contains(t, failed.ErrorMessage, "token Bearer [redacted] lacks scope", "the echo is there, redacted")

	// Look again (the MCP server now lists its tools), then use them.
	listed, err := s.RefreshTools(context.Background())
	require.NoError(t, err)
	require.Len(t, listed.Routed, 3)
	second := chat(t, context.Background(), s, "use the tools")
	require.Equal(t, session.StatusCompleted, second.Status, second.ErrorMessage)
	require.Len(t, second.ToolCalls, 3)
	assert.Equal(t, []string{"honua_studio_fail_text", "honua_studio_fail_rpc", "honua_studio_echo"},
		[]string{second.ToolCalls[0].ToolName, second.ToolCalls[1].ToolName, second.ToolCalls[2].ToolName})
	assert.Contains(t, second.ToolCalls[0].ErrorMessage, "[redacted]")
	assert.Contains(t, second.ToolCalls[1].ErrorMessage, "[redacted]")
	assert.Contains(t, second.ToolCalls[2].Content, "[redacted]")

	issued := tokens.Issued()
	require.NotEmpty(t, issued)
	chats := chatRequests(proxy)
	require.Len(t, chats, 3)
	places := map[string]string{
		"the discovery reports": fmt.Sprintf("%+v %+v %+v", failed, listed, s.ToolDiscovery()),
		"the turns":             fmt.Sprintf("%+v\n%+v", first, second),
		"the history":           fmt.Sprintf("%+v", s.Messages()),
	}
	log.mu.Lock()
	for i, ev := range log.events {
		places["event "+strconv.Itoa(i)] = fmt.Sprintf("%s %+v %+v %+v %s %s", ev.Type, ev.Chat, ev.Result, ev.Discovery, ev.WatchStatus, ev.WatchDetail)
	}
	log.mu.Unlock()
	for i, r := range chats {
		places["chat request body "+strconv.Itoa(i)] = string(r.Body)
	}
	for where, text := range places {
		for _, tok := range issued {
			assert.NotContains(t, text, tok, "%s holds a token the MCP client obtained", where)
		}
	}
	assert.Contains(t, string(chats[2].Body), "[redacted]", "the tool messages the model gets carry the echoes, redacted")
	assert.Contains(t, places["the history"], "[redacted]")
}

// TestScrubberRedactsEveryForm: a token with characters JSON escapes is
// redacted in the JSON of a tool message too, and a token containing
// another known token is replaced whole.
func TestScrubberRedactsEveryForm(t *testing.T) {
	cases := []struct {
		name   string
		tokens []string // handed out in this order: the capabilities read, then the chat request
		data   string   // what the tool answers (JSON)
		leaked []string // must appear nowhere
	}{
		{"a quote and a backslash", []string{`tok"en\secret`, `tok"en\secret`}, `{"echo":"tok\"en\\secret"}`,
			[]string{`tok"en\secret`, `tok\"en\\secret`, `en\\secret`}},
		{"a token inside a longer one", []string{"inner-token", "outer-inner-token-2"}, `{"echo":"outer-inner-token-2 inner-token"}`,
			[]string{"inner-token", "outer-", "-2 "}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			proxy, base := startProxy(t, fakeproxy.Reply{Body: fakeproxy.ToolCallStream(fakeproxy.Call{ID: "c1", Name: "echo"})},
				fakeproxy.Reply{Body: fakeproxy.TextStream("ok")})
			var asks atomic.Int32
			s := newSession(t, base, func(o *session.Options) {
				o.DisableToolDiscovery = true
				o.Tools = []session.ToolDefinition{tool("echo")}
				o.Execute = session.ExecutorFunc(func(context.Context, session.ToolCall) (session.ToolResult, error) {
					return session.ToolResult{Status: session.ToolOK, Data: json.RawMessage(tc.data)}, nil
				})
				o.Auth = session.TokenFunc(func(context.Context, bool) (string, error) {
					return tc.tokens[min(int(asks.Add(1))-1, len(tc.tokens)-1)], nil
				})
			})
			turn := chat(t, context.Background(), s, "go")
			require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
			require.Len(t, turn.ToolCalls, 1)
			assert.Contains(t, turn.ToolCalls[0].Content, "[redacted]")
			all := fmt.Sprintf("%+v %+v", turn, s.Messages())
			for _, r := range chatRequests(proxy) {
				all += string(r.Body)
			}
			for _, leak := range tc.leaked {
				assert.NotContains(t, all, leak)
			}
			assert.True(t, json.Valid([]byte(turn.ToolCalls[0].Content)), "the tool message is still one JSON object: %s", turn.ToolCalls[0].Content)
		})
	}
}

// TestRefreshToolsErrorIsScrubbed: the error RefreshTools returns carries the
// MCP server's text with the bearer token redacted.
func TestRefreshToolsErrorIsScrubbed(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("/api/mcp", echoingMCPFailing(t, 2))
	mux.Handle("/", fakeproxy.New())
	base := startHandler(t, mux)
	tokens := &rotatingTokens{}
	s := newSession(t, base, func(o *session.Options) { o.Auth = tokens })
	t.Cleanup(func() { _ = s.Close() })

	_, err := s.RefreshTools(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "token Bearer [redacted] lacks scope tools:list")
	for _, tok := range tokens.Issued() {
		assert.NotContains(t, err.Error(), tok)
	}
	report, err := s.RefreshTools(context.Background())
	require.Error(t, err, "the second list fails too")
	assert.NotContains(t, report.ErrorMessage+err.Error(), tokens.Issued()[0])
	_, err = s.RefreshTools(context.Background())
	require.NoError(t, err, "the third list answers")
}
