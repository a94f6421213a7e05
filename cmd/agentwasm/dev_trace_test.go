// Tests of the trace context through the whole dev server: a page's
// traceparent and tracestate, sent to the Studio proxy or to the /openai
// pass-through from an allowed origin, reach the OpenAI-compatible upstream
// unchanged; a malformed traceparent does not, and nothing is added when
// the page sends none.

package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDevTraceContextUpstream(t *testing.T) {
	const (
		parent  = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
		state   = "agentwasm=page,rojo=00f067aa0ba902b7"
		allowed = "http://127.0.0.1:5173"
	)
	var (
		mu  sync.Mutex
		got []http.Header
	)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		got = append(got, r.Header.Clone())
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, `data: {"id":"x","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"Hello."},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(up.Close)
	srv := devServer(t, devOptions{WebDir: t.TempDir(), DistDir: t.TempDir(), Upstream: up.URL, Model: "m", APIKey: "sk-trace-0000000000",
		AllowOrigins: []string{allowed}})

	paths := []struct{ name, path, body string }{
		{"Studio proxy", "/api/v1/studio/ai/chat", chatBody},
		{"pass-through", openAIChatPath, `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`},
	}
	cases := []struct {
		name                  string
		parent, state         string // sent when not ""
		wantParent, wantState string
	}{
		{name: "forwarded exactly", parent: parent, state: state, wantParent: parent, wantState: state},
		{name: "malformed dropped", parent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1", state: state},
		{name: "absent stays absent"},
	}
	for _, p := range paths {
		for _, c := range cases {
			t.Run(p.name+", "+c.name, func(t *testing.T) {
				kv := []string{"Origin", allowed, "Content-Type", "application/json", "Baggage", "k=v"}
				if c.parent != "" {
					kv = append(kv, "traceparent", c.parent)
				}
				if c.state != "" {
					kv = append(kv, "tracestate", c.state)
				}
				mu.Lock()
				before := len(got)
				mu.Unlock()
				resp, body := apiRequest(t, srv, http.MethodPost, p.path, "", p.body, kv...)
				require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
				assert.Contains(t, string(body), "Hello.")

				mu.Lock()
				defer mu.Unlock()
				require.Len(t, got, before+1, "one upstream request")
				h := got[before]
				assert.Equal(t, c.wantParent, h.Get("Traceparent"))
				assert.Equal(t, c.wantState, h.Get("Tracestate"))
				assert.Empty(t, h.Get("Baggage"), "no other header of the page's")
				assert.Empty(t, h.Get("Origin"), "no other header of the page's")
			})
		}
	}
}
