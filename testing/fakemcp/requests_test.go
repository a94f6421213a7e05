package fakemcp

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bound guards every wait; it never decides an outcome by itself.
const bound = 10 * time.Second

// post sends one JSON-RPC message as a session-era client would.
func post(t *testing.T, url, sid, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", SessionVersion)
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	return resp
}

// start serves s and opens a session, returning the URL and the session id.
func start(t *testing.T, s *Server) (string, string) {
	t.Helper()
	hs := httptest.NewServer(s)
	t.Cleanup(func() {
		hs.CloseClientConnections()
		hs.Close()
	})
	resp := post(t, hs.URL, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, sid)
	return hs.URL, sid
}

// openStream opens the session's GET stream and returns its lines.
func openStream(t *testing.T, s *Server, url, sid string) (<-chan string, func()) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", SessionVersion)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	deadline := time.Now().Add(bound)
	for s.OpenStreams() == 0 {
		require.True(t, time.Now().Before(deadline), "the stream never opened")
		time.Sleep(time.Millisecond)
	}
	return lines, func() { resp.Body.Close() }
}

// nextData returns the next data line of a stream.
func nextData(t *testing.T, lines <-chan string) string {
	t.Helper()
	timeout := time.After(bound)
	for {
		select {
		case l, ok := <-lines:
			require.True(t, ok, "the stream ended")
			if d, ok := strings.CutPrefix(l, "data: "); ok {
				return d
			}
		case <-timeout:
			t.Fatal("no data on the stream")
		}
	}
}

// A ping nobody answers ends its session once PingTimeout passed: the GET
// stream ends and the session id gets 404.
func TestUnansweredPingEndsTheSession(t *testing.T) {
	s := &Server{Era: Session, PingTimeout: time.Millisecond}
	url, sid := start(t, s)
	lines, stop := openStream(t, s, url, sid)
	defer stop()
	ids := s.SendRequest("ping")
	require.Len(t, ids, 1)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":"ping-1","method":"ping"}`, nextData(t, lines))
	select {
	case _, open := <-lines:
		for open {
			_, open = <-lines
		}
	case <-time.After(bound):
		t.Fatal("the stream of the expired session did not end")
	}
	assert.Equal(t, 0, s.LiveSessions())
	resp := post(t, url, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Nil(t, s.ServerRequests()[0].Answer)
}

// An answered ping keeps its session when its PingTimeout comes; an
// unanswered one does not. (expireUnanswered is what the PingTimeout timer
// runs.)
func TestAnsweredPingKeepsTheSession(t *testing.T) {
	s := &Server{Era: Session}
	url, sid := start(t, s)
	answered := s.newRequest("ping", sid, true)
	unanswered := s.newRequest("ping", sid, true)
	assert.JSONEq(t, `"ping-1"`, string(answered.rec.ID))
	assert.JSONEq(t, `"ping-2"`, string(unanswered.rec.ID))

	resp := post(t, url, sid, `{"jsonrpc":"2.0","id":"ping-1","result":{}}`)
	resp.Body.Close()
	assert.Equal(t, http.StatusAccepted, resp.StatusCode)
	select {
	case <-s.Answered(answered.rec.ID):
	default:
		t.Fatal("the answer was not recorded")
	}
	s.expireUnanswered(answered)
	assert.Equal(t, 1, s.LiveSessions(), "the answered ping keeps the session")
	s.expireUnanswered(unanswered)
	assert.Equal(t, 0, s.LiveSessions(), "the unanswered ping ends it")

	sent := s.ServerRequests()
	require.Len(t, sent, 2)
	require.NotNil(t, sent[0].Answer)
	assert.JSONEq(t, `{}`, string(sent[0].Answer.Result))
	assert.Equal(t, http.StatusAccepted, sent[0].Answer.Status)
	assert.Nil(t, sent[1].Answer)
	assert.Equal(t, []string{"initialize"}, s.RPCMethods(), "answers are not requests")
}

// The POST carrying an answer: accepted, refused, or cut off, and recorded
// whatever the server did with it.
func TestAnswerStatuses(t *testing.T) {
	for _, tc := range []struct {
		name         string
		answerStatus int    // Server.AnswerStatus
		drop         bool   // Server.DropAnswers
		sid          string // "" uses the session's id
		status       int    // 0: the connection drops
	}{
		{"accepted", 0, false, "", http.StatusAccepted},
		{"unknown session", 0, false, "session-9", http.StatusNotFound},
		{"refused", http.StatusInternalServerError, false, "", http.StatusInternalServerError},
		{"dropped", 0, true, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Server{Era: Session, AnswerStatus: tc.answerStatus, DropAnswers: tc.drop}
			url, sid := start(t, s)
			if tc.sid != "" {
				sid = tc.sid
			}
			req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":"x-1","error":{"code":-32601,"message":"no"}}`))
			require.NoError(t, err)
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Session-Id", sid)
			resp, err := http.DefaultClient.Do(req)
			if tc.status == 0 {
				require.Error(t, err, "the connection dropped")
			} else {
				require.NoError(t, err)
				resp.Body.Close()
				assert.Equal(t, tc.status, resp.StatusCode)
			}
			answers := s.Answers()
			require.Len(t, answers, 1)
			assert.Equal(t, tc.status, answers[0].Status)
			require.NotNil(t, answers[0].Error)
			assert.Equal(t, -32601, answers[0].Error.Code)
			assert.Equal(t, sid, answers[0].Header.Get("Mcp-Session-Id"))
		})
	}
	t.Run("stateless era", func(t *testing.T) {
		s := &Server{Era: Stateless}
		hs := httptest.NewServer(s)
		defer hs.Close()
		resp := post(t, hs.URL, "", `{"jsonrpc":"2.0","id":"x-1","result":{}}`)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
		assert.Contains(t, string(body), "has no client responses")
		assert.Len(t, s.Answers(), 1)
		assert.Empty(t, s.Requests())
	})
}
