//go:build !js && !wasip1

// Close and Reconnect: the MCP client's close error as they return it, and
// Reconnect bounded by its context.

package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/agentwasm/agentwasm/session"
	"github.com/agentwasm/agentwasm/session/mcpclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// closingMCP is an MCPClient with no tools whose Close is scripted.
type closingMCP struct {
	close func() error

	mu     sync.Mutex
	closes int
}

func (c *closingMCP) ListTools(context.Context) ([]mcpclient.Tool, error) { return nil, nil }
func (c *closingMCP) CallTool(context.Context, string, json.RawMessage) (mcpclient.ToolResult, error) {
	return mcpclient.ToolResult{}, errors.New("no tools")
}
func (c *closingMCP) Close() error {
	c.mu.Lock()
	c.closes++
	c.mu.Unlock()
	if c.close == nil {
		return nil
	}
	return c.close()
}

func (c *closingMCP) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closes
}

// ctxClosingMCP also closes with Reconnect's context.
type ctxClosingMCP struct {
	closingMCP
	closeCtx func(ctx context.Context) error
}

func (c *ctxClosingMCP) CloseContext(ctx context.Context) error {
	c.mu.Lock()
	c.closes++
	c.mu.Unlock()
	return c.closeCtx(ctx)
}

// Close ends the MCP session once: it returns the client's error (or its
// panic, as an error), and later calls return nil without closing again.
func TestCloseReturnsTheMCPClientsError(t *testing.T) {
	cases := []struct {
		name    string
		client  *closingMCP // nil: discovery is off, no client
		wantErr string      // "" for none
	}{
		{"no MCP client", nil, ""},
		{"a client that closes", &closingMCP{}, ""},
		{"a client whose close fails", &closingMCP{close: func() error { return errors.New("DELETE answered 500") }},
			"closing the MCP client: DELETE answered 500"},
		{"a client whose close panics", &closingMCP{close: func() error { panic("bad client") }},
			"the MCP client's Close panicked: bad client"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newScripted(t, session.NewScriptedTransport(session.TextRound("ok")), func(o *session.Options) {
				if tc.client != nil {
					o.MCPClient = tc.client
				}
			})
			err := s.Close()
			if tc.wantErr == "" {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
			}
			assert.NoError(t, s.Close(), "Close is idempotent")
			if tc.client != nil {
				assert.Equal(t, 1, tc.client.count(), "the client is closed once")
			}
			assert.Equal(t, session.WatchClosed, s.ToolWatchStatus())
			var _ interface{ Close() error } = s // an io.Closer
		})
	}
}

// Reconnect returns the client's close error, and honours its context: a
// client with CloseContext gets it, one without is no longer waited for
// when it ends.
func TestReconnectHonoursItsContext(t *testing.T) {
	t.Run("the close error", func(t *testing.T) {
		c := &closingMCP{close: func() error { return errors.New("refused") }}
		s := newScripted(t, session.NewScriptedTransport(session.TextRound("ok")), func(o *session.Options) { o.MCPClient = c })
		err := s.Reconnect(context.Background())
		require.Error(t, err)
		assert.Contains(t, err.Error(), "refused")
		require.Error(t, s.Reconnect(context.Background()), "every Reconnect closes the client")
		assert.Equal(t, 2, c.count())
	})
	t.Run("CloseContext gets the context", func(t *testing.T) {
		c := &ctxClosingMCP{closeCtx: func(ctx context.Context) error {
			<-ctx.Done()
			return ctx.Err()
		}}
		s := newScripted(t, session.NewScriptedTransport(session.TextRound("ok")), func(o *session.Options) { o.MCPClient = c })
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		err := s.Reconnect(ctx)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, 1, c.count())
	})
	t.Run("a Close that ignores the context", func(t *testing.T) {
		release := make(chan struct{})
		defer close(release)
		c := &closingMCP{close: func() error { <-release; return nil }}
		s := newScripted(t, session.NewScriptedTransport(session.TextRound("ok")), func(o *session.Options) { o.MCPClient = c })
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- s.Reconnect(ctx) }()
		cancel()
		select {
		case err := <-done:
			require.ErrorIs(t, err, context.Canceled)
			assert.Contains(t, err.Error(), "abandoned")
		case <-time.After(waitBound):
			t.Fatal("Reconnect waited for a Close that ignores its context")
		}
	})
}
