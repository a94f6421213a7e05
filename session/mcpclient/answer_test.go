//go:build !js && !wasip1

// Tests of the answers the client sends to a server's requests.

package mcpclient_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/session/mcpclient"
	"github.com/agentwasm/agentwasm/testing/fakemcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A server that pings keeps it from ending sessions: in the session era
// the client answers every request the server sends, on the GET stream and
// inside the event stream answering a POST.

// answerFault is how the fake treats the POST carrying an answer.
type answerFault struct {
	name   string
	status int  // fakemcp.Server.AnswerStatus
	drop   bool // fakemcp.Server.DropAnswers
}

var answerFaults = []answerFault{
	{name: "accepted"},
	{name: "refused with 500", status: http.StatusInternalServerError},
	{name: "connection dropped", drop: true},
}

// serverRequestCases are the requests a server sends and the answers the
// client owes them.
var serverRequestCases = []struct {
	method string
	result string // the answer's result, as JSON; "" for an error answer
}{
	{method: "ping", result: `{}`},
	{method: "sampling/createMessage"},
}

// requireAnswer checks the client's answer to server request r: the same
// id, the request's headers, and an empty result for ping or a -32601
// error naming any other method.
func requireAnswer(t *testing.T, r fakemcp.ServerRequest, sessionID, result string) {
	t.Helper()
	require.NotNil(t, r.Answer, "the client answered the server's %s", r.Method)
	a := r.Answer
	assert.JSONEq(t, string(r.ID), string(a.ID), "the answer carries the request's id")
	h := a.Header
	assert.Equal(t, sessionID, h.Get("Mcp-Session-Id"))
	assert.Equal(t, "2025-11-25", h.Get("Mcp-Protocol-Version"))
	assert.Equal(t, "Bearer token-abcdef", h.Get("Authorization"))
	assert.Equal(t, "application/json", h.Get("Content-Type"))
	assert.Contains(t, h.Get("Accept"), "application/json")
	assert.Contains(t, h.Get("Accept"), "text/event-stream")
	if result != "" {
		assert.Nil(t, a.Error)
		assert.JSONEq(t, result, string(a.Result))
		return
	}
	require.NotNil(t, a.Error, "a request the client does not handle gets an error")
	assert.Nil(t, a.Result)
	assert.Equal(t, -32601, a.Error.Code)
	assert.Equal(t, "method not found: "+r.Method+" (this client does not handle it)", a.Error.Message)
}

func TestMCPAnswersServerRequestsOnTheGETStream(t *testing.T) {
	for _, fault := range answerFaults {
		for _, rc := range serverRequestCases {
			t.Run(fault.name+"/"+rc.method, func(t *testing.T) {
				srv := &fakemcp.Server{Era: fakemcp.Session, Tools: mcpTools("a"),
					// A keep-alive server would end an unanswered session
					// after a bound; the test decides on the answer itself, so
					// the bound is far beyond any wait here.
					PingTimeout:  time.Minute,
					AnswerStatus: fault.status, DropAnswers: fault.drop}
				c := startMCP(t, srv, func(cfg *mcpclient.Config) { cfg.Era = mcpclient.EraSession })
				_, err := c.ListTools(mcpCtx(t))
				require.NoError(t, err)
				st, err := c.ListenToolListChanged(mcpCtx(t), "")
				require.NoError(t, err)
				defer st.Close()
				waitUntil(t, "the stream is open", func() bool { return srv.OpenStreams() == 1 })

				// Two requests, each followed by a notification: the client
				// answers what it reads, so Next reads past the request (which
				// never comes out of it) to the notification. Each request is
				// answered, and the stream stays open.
				for i := range 2 {
					ids := srv.SendRequest(rc.method)
					require.Len(t, ids, 1)
					assert.Equal(t, 1, srv.NotifyToolsChanged())
					method, _, err := st.Next()
					require.NoError(t, err)
					assert.Equal(t, "notifications/tools/list_changed", method)
					waitFor(t, srv.Answered(ids[0]), "the answer to the server's "+rc.method)
					sent := srv.ServerRequests()
					require.Len(t, sent, i+1)
					assert.True(t, sent[i].OnStream)
					assert.Equal(t, "session-1", sent[i].SessionID)
					requireAnswer(t, sent[i], "session-1", rc.result)
				}
				assert.Equal(t, 1, srv.OpenStreams())

				// The session is the same one: no 404, no new initialize.
				_, err = c.CallTool(mcpCtx(t), "a", nil)
				require.NoError(t, err)
				assert.Equal(t, []string{"initialize", "notifications/initialized", "tools/list", "GET", "tools/call"}, srv.RPCMethods())
				reqs := srv.Requests()
				assert.Equal(t, "session-1", reqs[len(reqs)-1].Header.Get("Mcp-Session-Id"))
				assert.Equal(t, 1, srv.LiveSessions())
			})
		}
	}
}

func TestMCPAnswersServerRequestsInsideAnAnswer(t *testing.T) {
	for _, fault := range answerFaults {
		t.Run(fault.name, func(t *testing.T) {
			srv := &fakemcp.Server{Era: fakemcp.Session, SSE: true, PingTimeout: time.Minute,
				AnswerRequests: []string{"ping", "sampling/createMessage"},
				AnswerStatus:   fault.status, DropAnswers: fault.drop,
				Call: func(_ context.Context, name string, _ json.RawMessage) (json.RawMessage, *fakemcp.RPCError) {
					return json.RawMessage(`{"content":[{"type":"text","text":"called ` + name + `"}]}`), nil
				}}
			var mu sync.Mutex
			var notes []string
			c := startMCP(t, srv, func(cfg *mcpclient.Config) {
				cfg.Era = mcpclient.EraSession
				cfg.OnNotification = func(method string, _ json.RawMessage) {
					mu.Lock()
					notes = append(notes, method)
					mu.Unlock()
				}
			})

			// The fake holds the response back until the client answered
			// both requests (its AnswerWait is only a guard), so the
			// answers are recorded once the call returns.
			res, err := c.CallTool(mcpCtx(t), "first", nil)
			require.NoError(t, err)
			assert.JSONEq(t, `[{"type":"text","text":"called first"}]`, string(res.Content))
			sent := srv.ServerRequests()
			require.Len(t, sent, 2)
			for i, rc := range serverRequestCases {
				assert.Equal(t, rc.method, sent[i].Method)
				assert.False(t, sent[i].OnStream)
				requireAnswer(t, sent[i], "session-1", rc.result)
			}
			mu.Lock()
			assert.Contains(t, notes, "notifications/progress", "notifications still reach OnNotification")
			mu.Unlock()
			// SSE also pings inside the answer to initialize, with the id of
			// initialize itself: that ping is answered in the new session.
			waitUntil(t, "the ping inside initialize's answer is answered", func() bool {
				for _, a := range srv.Answers() {
					if string(a.ID) == "1" {
						assert.Equal(t, "session-1", a.Header.Get("Mcp-Session-Id"))
						assert.JSONEq(t, `{}`, string(a.Result))
						return true
					}
				}
				return false
			})

			// The next call is in the same session.
			res, err = c.CallTool(mcpCtx(t), "second", nil)
			require.NoError(t, err)
			assert.JSONEq(t, `[{"type":"text","text":"called second"}]`, string(res.Content))
			assert.Equal(t, []string{"initialize", "notifications/initialized", "tools/call", "tools/call"}, srv.RPCMethods())
			for _, r := range srv.Requests()[2:] {
				assert.Equal(t, "session-1", r.Header.Get("Mcp-Session-Id"))
			}
			assert.Len(t, srv.ServerRequests(), 4)
			assert.Equal(t, 1, srv.LiveSessions())
		})
	}
}

// The stateless era (2026-07-28) has no server requests: a server must not
// send them and a client must not POST responses. The client reads past
// them, on a request's event stream and on the subscriptions/listen stream.
func TestMCPStatelessEraDoesNotAnswerServerRequests(t *testing.T) {
	srv := &fakemcp.Server{Era: fakemcp.Stateless, SSE: true, AnswerRequests: []string{"ping", "sampling/createMessage"}}
	c := startMCP(t, srv, nil)
	_, err := c.CallTool(mcpCtx(t), "a", nil)
	require.NoError(t, err)

	st, err := c.ListenToolListChanged(mcpCtx(t), "")
	require.NoError(t, err)
	defer st.Close()
	method, _, err := st.Next()
	require.NoError(t, err)
	assert.Equal(t, "notifications/subscriptions/acknowledged", method)
	require.Len(t, srv.SendRequest("ping"), 1)
	srv.NotifyToolsChanged()
	method, _, err = st.Next()
	require.NoError(t, err)
	assert.Equal(t, "notifications/tools/list_changed", method, "the request was skipped")

	// One more call after everything the client read: an answer would have
	// been sent by now.
	_, err = c.CallTool(mcpCtx(t), "a", nil)
	require.NoError(t, err)
	assert.Len(t, srv.ServerRequests(), 5)
	for _, r := range srv.ServerRequests() {
		assert.Nil(t, r.Answer, "the server's %s is not answered", r.Method)
	}
	assert.Empty(t, srv.Answers(), "the client POSTed no response")
	assert.Equal(t, []string{"server/discover", "tools/call", "subscriptions/listen", "tools/call"}, srv.RPCMethods())
}

// stuckAnswers is a fetcher that passes requests through to the server but
// holds every POST carrying a JSON-RPC response until its context ends,
// then reports the end.
type stuckAnswers struct {
	next  bridge.Fetcher
	ended chan error
}

func (f *stuckAnswers) Fetch(ctx context.Context, req *bridge.Request) (*bridge.Response, error) {
	body := string(req.Body)
	if req.Method == "POST" && !strings.Contains(body, `"method"`) && (strings.Contains(body, `"result"`) || strings.Contains(body, `"error"`)) {
		<-ctx.Done()
		f.ended <- ctx.Err()
		return nil, ctx.Err()
	}
	return f.next.Fetch(ctx, req)
}

// An answer whose delivery hangs never holds up the reader: the stream and
// the call go on, and the answer ends with its bound or its stream.
func TestMCPAnswerNeverBlocksTheReader(t *testing.T) {
	start := func(t *testing.T, srv *fakemcp.Server, timeout time.Duration) (*mcpclient.Client, *stuckAnswers) {
		t.Helper()
		hs := httptest.NewServer(srv)
		t.Cleanup(func() {
			hs.CloseClientConnections()
			hs.Close()
		})
		f := &stuckAnswers{next: &bridge.HTTPFetcher{Client: hs.Client()}, ended: make(chan error, 16)}
		c, err := mcpclient.New(mcpclient.Config{URL: hs.URL + "/mcp", Fetcher: f, Era: mcpclient.EraSession, AnswerTimeout: timeout})
		require.NoError(t, err)
		return c, f
	}
	ended := func(t *testing.T, f *stuckAnswers, want error) {
		t.Helper()
		select {
		case err := <-f.ended:
			assert.ErrorIs(t, err, want)
		case <-time.After(mcpBound):
			t.Fatal("the stuck answer never ended")
		}
	}

	t.Run("on the GET stream, ended by AnswerTimeout", func(t *testing.T) {
		srv := &fakemcp.Server{Era: fakemcp.Session}
		c, f := start(t, srv, 10*time.Millisecond)
		st, err := c.ListenToolListChanged(mcpCtx(t), "")
		require.NoError(t, err)
		defer st.Close()
		waitUntil(t, "the stream is open", func() bool { return srv.OpenStreams() == 1 })
		srv.SendRequest("ping")
		srv.NotifyToolsChanged()
		method, _, err := st.Next()
		require.NoError(t, err)
		assert.Equal(t, "notifications/tools/list_changed", method, "the reader went on past the ping")
		ended(t, f, context.DeadlineExceeded)
	})
	t.Run("on the GET stream, ended with the stream's context", func(t *testing.T) {
		srv := &fakemcp.Server{Era: fakemcp.Session}
		c, f := start(t, srv, time.Hour)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		st, err := c.ListenToolListChanged(ctx, "")
		require.NoError(t, err)
		defer st.Close()
		waitUntil(t, "the stream is open", func() bool { return srv.OpenStreams() == 1 })
		srv.SendRequest("ping")
		srv.NotifyToolsChanged()
		method, _, err := st.Next()
		require.NoError(t, err)
		assert.Equal(t, "notifications/tools/list_changed", method)
		cancel()
		ended(t, f, context.Canceled)
	})
	t.Run("inside a POST's event stream", func(t *testing.T) {
		// The fake waits for the answer that never comes only AnswerWait,
		// then sends the response.
		srv := &fakemcp.Server{Era: fakemcp.Session, SSE: true, AnswerRequests: []string{"ping"}, AnswerWait: 10 * time.Millisecond}
		c, f := start(t, srv, 10*time.Millisecond)
		_, err := c.CallTool(mcpCtx(t), "a", nil)
		require.NoError(t, err)
		ended(t, f, context.DeadlineExceeded)
		assert.Equal(t, []string{"initialize", "notifications/initialized", "tools/call"}, srv.RPCMethods())
	})
}
