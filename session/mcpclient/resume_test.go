//go:build !js && !wasip1

// Tests of ResumingFetcher: a dropped request stream is resumed with GET
// and Last-Event-ID, and only then.

package mcpclient_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/session/mcpclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// resumeServer is a session-era MCP server whose tools/call stream sends
// one event (with the id primingID unless it is empty) and ends before the
// answer; a GET answers getStatus, and with 200 the response on a stream it
// keeps open.
type resumeServer struct {
	primingID string
	getStatus int

	mu       sync.Mutex
	callID   json.RawMessage // the id of the last tools/call
	gets     []http.Header
	closedAt time.Time
	getAt    time.Time
}

func (s *resumeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		s.mu.Lock()
		s.gets = append(s.gets, r.Header.Clone())
		s.getAt = time.Now()
		id := s.callID
		s.mu.Unlock()
		if s.getStatus != http.StatusOK {
			w.WriteHeader(s.getStatus)
			return
		}
		w.Header().Set("content-type", "text/event-stream")
		fmt.Fprint(w, "id: g1\ndata: \n\n")
		fmt.Fprintf(w, "event: message\nid: g2\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"resumed\"}]}}\n\n", id)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		return
	}
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &m)
	w.Header().Set("mcp-session-id", "s1")
	switch m.Method {
	case "initialize":
		w.Header().Set("content-type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"t","version":"1"}}}`, m.ID)
	case "tools/call":
		w.Header().Set("content-type", "text/event-stream")
		if s.primingID != "" {
			fmt.Fprintf(w, "id: %s\n", s.primingID)
		}
		fmt.Fprint(w, "retry: 30\ndata: \n\n")
		s.mu.Lock()
		s.callID = m.ID
		s.closedAt = time.Now()
		s.mu.Unlock()
	default:
		w.WriteHeader(http.StatusAccepted)
	}
}

func callResumed(t *testing.T, s *resumeServer) (mcpclient.ToolResult, error) {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	c, err := mcpclient.New(mcpclient.Config{
		URL:     srv.URL + "/mcp",
		Fetcher: &mcpclient.ResumingFetcher{Fetcher: &bridge.HTTPFetcher{}},
		Era:     mcpclient.EraSession,
	})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return c.CallTool(ctx, "slow", nil)
}

// A stream that ends before the answer is resumed with GET and
// Last-Event-ID after the retry delay, and the answer read from it.
func TestResumingFetcherResumes(t *testing.T) {
	s := &resumeServer{primingID: "p1", getStatus: http.StatusOK}
	res, err := callResumed(t, s)
	require.NoError(t, err)
	assert.JSONEq(t, `[{"type":"text","text":"resumed"}]`, string(res.Content))
	s.mu.Lock()
	defer s.mu.Unlock()
	require.Len(t, s.gets, 1)
	assert.Equal(t, "p1", s.gets[0].Get("Last-Event-ID"))
	assert.Equal(t, "s1", s.gets[0].Get("Mcp-Session-Id"))
	assert.Equal(t, "2025-11-25", s.gets[0].Get("Mcp-Protocol-Version"))
	assert.Contains(t, s.gets[0].Get("Accept"), "text/event-stream")
	assert.GreaterOrEqual(t, s.getAt.Sub(s.closedAt), 25*time.Millisecond, "the retry delay is waited")
}

// Without an event id there is nothing to resume from: the stream's early
// end is a transport error and no GET is sent.
func TestResumingFetcherNeedsAnEventID(t *testing.T) {
	s := &resumeServer{getStatus: http.StatusOK}
	_, err := callResumed(t, s)
	var te *mcpclient.TransportError
	require.ErrorAs(t, err, &te)
	assert.Contains(t, err.Error(), "ended before the answer")
	assert.Empty(t, s.gets)
}

// A server that refuses the GET fails the call with the status it sent.
func TestResumingFetcherGetRefused(t *testing.T) {
	s := &resumeServer{primingID: "p1", getStatus: http.StatusMethodNotAllowed}
	_, err := callResumed(t, s)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "HTTP 405")
}
