// The proxy's bound on chat requests answered at once: past it a 429 with
// Retry-After and a JSON error, and the model is never called for it.

package studioproxy

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// blockingModel answers only when release is closed; entered receives one
// value per call as it starts.
type blockingModel struct {
	entered chan struct{}
	release chan struct{}
	calls   atomic.Int64
}

func (m *blockingModel) Stream(ctx context.Context, _ *ChatRequest, s Sink) error {
	m.calls.Add(1)
	m.entered <- struct{}{}
	select {
	case <-m.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	return s.Send(EventMessageStop, Event{StopReason: "end_turn"})
}

// chatStatus posts one chat request and returns its status, headers and body.
func chatStatus(t *testing.T, url string) (int, http.Header, string) {
	t.Helper()
	resp, err := http.Post(url+ChatPath, "application/json", strings.NewReader(`{"messages":[{"role":"user","content":"hi"}]}`))
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header, string(b)
}

func TestProxyMaxConcurrent(t *testing.T) {
	cases := []struct {
		name  string
		max   int
		bound int // requests answered at once before a 429; 0: none seen
	}{
		{"an explicit bound", 2, 2},
		{"the default bound", 0, DefaultMaxConcurrent},
		{"no bound", -1, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := &blockingModel{entered: make(chan struct{}, 64), release: make(chan struct{})}
			srv := httptest.NewServer(New(Options{Model: m, MaxConcurrent: c.max}))
			defer srv.Close()
			running := c.bound
			if running == 0 {
				running = DefaultMaxConcurrent + 4 // more than any default
			}
			var wg sync.WaitGroup
			statuses := make(chan int, running)
			for i := 0; i < running; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					st, _, _ := chatStatus(t, srv.URL)
					statuses <- st
				}()
			}
			for i := 0; i < running; i++ {
				select {
				case <-m.entered:
				case <-time.After(30 * time.Second): // a safety net only
					t.Fatalf("only %d of %d requests reached the model", i, running)
				}
			}
			if c.bound > 0 {
				st, h, body := chatStatus(t, srv.URL)
				assert.Equal(t, http.StatusTooManyRequests, st)
				assert.Equal(t, "1", h.Get("Retry-After"))
				assert.Equal(t, "application/json", h.Get("Content-Type"))
				var e struct {
					Error struct{ Code, Message string } `json:"error"`
				}
				require.NoError(t, json.Unmarshal([]byte(body), &e), body)
				assert.Equal(t, "too_many_requests", e.Error.Code)
				assert.Contains(t, e.Error.Message, "--max-concurrent")
				assert.Equal(t, int64(running), m.calls.Load(), "the refused request never reached the model")
			}
			close(m.release)
			wg.Wait()
			close(statuses)
			for st := range statuses {
				assert.Equal(t, http.StatusOK, st)
			}
			// The slots are given back: the next request is answered.
			st, _, body := chatStatus(t, srv.URL)
			assert.Equal(t, http.StatusOK, st, body)
			assert.Contains(t, body, "event: message_stop")
		})
	}
}
