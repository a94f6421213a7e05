package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDevOpenAIPassthroughRefusals: with --upstream, /openai/v1 spends the
// server's key, so the origin policy must refuse a rebinding host name,
// another page's origin, a cross-site request without Origin and a form's
// text/plain post before anything reaches the upstream; the page's own
// Authorization and cookies never reach it either.
func TestDevOpenAIPassthroughRefusals(t *testing.T) {
	const key = "sk-up-0000000000"
	var calls atomic.Int32
	var leaked atomic.Bool
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.Header.Get("Authorization") != "Bearer "+key || r.Header.Get("Cookie") != "" {
			leaked.Store(true)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte("data: [DONE]\n\n"))
	}))
	t.Cleanup(up.Close)
	srv := devServer(t, devOptions{WebDir: t.TempDir(), DistDir: t.TempDir(), Upstream: up.URL, Model: "m", APIKey: key})
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	const body = `{"stream":true,"messages":[{"role":"user","content":"hi"}]}`
	for _, c := range []struct {
		name    string
		host    string
		headers []string
		status  int
		code    string
	}{
		{"a rebinding host", "evil.example:" + port, []string{"Origin", "http://evil.example:" + port, "Content-Type", "application/json"}, 403, "forbidden_host"},
		{"a rebinding host without Origin", "evil.example:" + port, []string{"Content-Type", "application/json"}, 403, "forbidden_host"},
		{"another origin", "", []string{"Origin", "http://evil.example", "Content-Type", "application/json"}, 403, "forbidden_origin"},
		{"Origin null", "", []string{"Origin", "null", "Content-Type", "application/json"}, 403, "forbidden_origin"},
		{"cross-site without Origin", "", []string{"Sec-Fetch-Site", "cross-site", "Content-Type", "application/json"}, 403, "forbidden_origin"},
		{"a form's text/plain post", "", []string{"Origin", "http://127.0.0.1:" + port, "Content-Type", "text/plain"}, 415, "unsupported_media_type"},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, got := apiRequest(t, srv, "POST", openAIChatPath, c.host, body, c.headers...)
			require.Equal(t, c.status, resp.StatusCode, string(got))
			assert.Equal(t, c.code, errorCode(got))
			assert.NotContains(t, string(got), key)
		})
	}
	assert.Zero(t, calls.Load(), "no refused request reached the upstream")

	// The page's own page passes, with its Authorization and cookie dropped.
	resp, got := apiRequest(t, srv, "POST", openAIChatPath, "", body, "Origin", "http://127.0.0.1:"+port,
		"Content-Type", "application/json", "Authorization", "Bearer page-key", "Cookie", "session=page")
	require.Equal(t, 200, resp.StatusCode, string(got))
	assert.EqualValues(t, 1, calls.Load())
	assert.False(t, leaked.Load(), "the upstream got the server's key only, and no cookie")
}
