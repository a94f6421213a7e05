//go:build !js && !wasip1

// Options.MCPURL: which values New accepts, and that the default MCP client
// discovers there.

package session_test

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/session"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMCPURLValidation(t *testing.T) {
	cases := []struct {
		url     string
		wantErr string // a substring; "" means valid
	}{
		{"", ""},
		{"/mcp", ""},
		{"/api/v2/mcp", ""},
		{"https://mcp.example/mcp", ""},
		{"http://127.0.0.1:8080/mcp", ""},
		{"HTTPS://MCP.EXAMPLE", ""},
		{"mcp", "neither an absolute http(s) URL nor a path"},
		{"ws://mcp.example/mcp", "neither an absolute http(s) URL nor a path"},
		{"//mcp.example/mcp", "scheme-relative"},
		{"https://", "has no host"},
		{"https:///mcp", "has no host"},
		{"/my mcp", "space or control character"},
		{"/mcp\n", "space or control character"},
	}
	for _, tc := range cases {
		t.Run(tc.url, func(t *testing.T) {
			_, err := session.New(session.Options{MCPURL: tc.url})
			if tc.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
			assert.Contains(t, err.Error(), "MCPURL", "the error names the option")
		})
	}
}

// urlLog is a Fetcher that records the URLs it is asked for and answers 404
// (an absent endpoint: discovery asks once).
type urlLog struct {
	mu   sync.Mutex
	urls []string
}

func (l *urlLog) Fetch(_ context.Context, req *bridge.Request) (*bridge.Response, error) {
	l.mu.Lock()
	l.urls = append(l.urls, req.URL)
	l.mu.Unlock()
	return &bridge.Response{Status: 404, Header: bridge.Header{}, Body: io.NopCloser(strings.NewReader(""))}, nil
}

func (l *urlLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.urls...)
}

// The default MCP client discovers on MCPURL when it is set, on
// {BaseURL}/mcp when not.
func TestDefaultMCPClientUsesMCPURL(t *testing.T) {
	cases := []struct {
		name, mcpURL, want string
	}{
		{"default", "", "https://studio.example/api/mcp"},
		{"absolute", "https://mcp.example/v2/mcp", "https://mcp.example/v2/mcp"},
		{"a path", "/tools/mcp", "/tools/mcp"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fetch := &urlLog{}
			s, err := session.New(session.Options{
				BaseURL:   "https://studio.example/api/",
				MCPURL:    tc.mcpURL,
				Fetcher:   fetch,
				Transport: session.NewScriptedTransport(session.TextRound("ok")),
			})
			require.NoError(t, err)
			t.Cleanup(func() { _ = s.Close() })
			turn := chat(t, context.Background(), s, "hi")
			require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
			urls := fetch.all()
			require.NotEmpty(t, urls, "discovery asked the MCP endpoint")
			for _, u := range urls {
				assert.Equal(t, tc.want, u)
			}
		})
	}
}
