//go:build !js && !wasip1

// An absent MCP endpoint: when the client reports one (an error matching
// session.ErrEndpointAbsent) and when it does not.

package mcpclient_test

import (
	"errors"
	"net/http"
	"sync"
	"testing"

	"github.com/agentwasm/agentwasm/session"
	"github.com/agentwasm/agentwasm/session/mcpclient"
	"github.com/agentwasm/agentwasm/testing/fakemcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// answer is a handler answering every request with status and body.
func answer(status int, body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if body != "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	})
}

// The client: when an endpoint is absent and when it is not.
func TestClientAbsence(t *testing.T) {
	sessionEndedThenGone := func() (http.Handler, func()) {
		srv := &fakemcp.Server{Era: fakemcp.Session, Tools: mcpTools("a")}
		var mu sync.Mutex
		gone := false
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				g := gone
				mu.Unlock()
				if g {
					http.NotFound(w, r)
					return
				}
				srv.ServeHTTP(w, r)
			}), func() {
				mu.Lock()
				gone = true
				mu.Unlock()
			}
	}
	for _, tc := range []struct {
		name   string
		era    mcpclient.Era
		h      http.Handler
		before func(t *testing.T, c *mcpclient.Client, h http.Handler) // a successful contact first, if any
		absent bool
		status int
		era2   mcpclient.Era // Era() after the call
	}{
		{name: "404 everywhere, auto", era: mcpclient.EraAuto, h: answer(404, ""), absent: true, status: 404, era2: mcpclient.EraAuto},
		{name: "405 everywhere, auto", era: mcpclient.EraAuto, h: answer(405, ""), absent: true, status: 405, era2: mcpclient.EraAuto},
		{name: "404 everywhere, session era", era: mcpclient.EraSession, h: answer(404, ""), absent: true, status: 404, era2: mcpclient.EraSession},
		{name: "404 everywhere, stateless era", era: mcpclient.EraStateless, h: answer(404, ""), absent: true, status: 404, era2: mcpclient.EraStateless},
		{name: "500", era: mcpclient.EraAuto, h: answer(500, ""), era2: mcpclient.EraAuto},
		{name: "401 that a refresh does not cure", era: mcpclient.EraAuto, h: answer(401, ""), era2: mcpclient.EraAuto},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := startMCP(t, tc.h, func(cfg *mcpclient.Config) { cfg.Era = tc.era })
			_, err := c.ListTools(mcpCtx(t))
			require.Error(t, err)
			assert.Equal(t, tc.absent, errors.Is(err, session.ErrEndpointAbsent), "%v", err)
			assert.Equal(t, tc.era2, c.Era())
			if !tc.absent {
				return
			}
			var ae *session.EndpointAbsentError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, "MCP", ae.Endpoint)
			assert.Equal(t, tc.status, ae.Status)
			assert.Contains(t, ae.URL, "/api/mcp")
			var te *mcpclient.TransportError
			require.ErrorAs(t, err, &te, "the request's own error is kept")
			assert.Equal(t, tc.status, te.Status)
			// A second call finds it absent again (the client keeps no memory
			// of it; the session does).
			_, err = c.ListTools(mcpCtx(t))
			assert.ErrorIs(t, err, session.ErrEndpointAbsent)
		})
	}
	t.Run("a 404 after the endpoint answered is not absence", func(t *testing.T) {
		h, vanish := sessionEndedThenGone()
		c := startMCP(t, h, func(cfg *mcpclient.Config) { cfg.Era = mcpclient.EraSession })
		_, err := c.ListTools(mcpCtx(t))
		require.NoError(t, err)
		vanish()
		_, err = c.ListTools(mcpCtx(t))
		require.Error(t, err, "the session ended, the re-initialize failed")
		assert.NotErrorIs(t, err, session.ErrEndpointAbsent)
		c.Reset()
		_, err = c.ListTools(mcpCtx(t))
		assert.ErrorIs(t, err, session.ErrEndpointAbsent, "after Reset the first contact decides again")
	})
}
