// Ending things: Close (the session's background work and its MCP session)
// and Reconnect (the MCP session only), and the MCP client's close they
// share.

package session

import (
	"context"

	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/internal/gopool"
	"github.com/agentwasm/agentwasm/session/mcpclient"
)

// MCPContextCloser is implemented by MCP clients whose Close can honour a
// context (mcpclient.Client does). The session then calls CloseContext
// wherever it would call Close, under the same contract (see
// MCPClient.Close): Reconnect passes its ctx, Session.Close a context that
// never ends. For other clients Reconnect stops waiting for Close when ctx
// ends, and leaves it to finish in the background.
type MCPContextCloser interface {
	CloseContext(ctx context.Context) error
}

var _ MCPContextCloser = (*mcpclient.Client)(nil)

// Close cancels the turn in progress, if a Chat or Resume is running: its
// model request and tool call in flight are aborted, and it returns with
// StatusCancelled (Chat says what the history keeps). Close does not wait
// for it to return. It ends the session's background work for good — the
// list-changed watch (its stream and any pending backoff are aborted, and
// no watch starts again) and the background retries of degraded discovery —
// and then ends the MCP session by closing the MCP client (the default
// client sends DELETE in the session era, bounded by its CloseTimeout). It
// returns the client's close error, with every known token redacted: for
// the default client an *mcpclient.TransportError when the server refused
// the DELETE or the request failed; a panic in the client's Close is
// returned as an error. Without an MCP client (or with
// DisableToolDiscovery) it returns nil.
//
// Close is idempotent: only the first call closes the client, later calls
// return nil (and cancel a turn in progress, as the first did). A closed
// session can still chat: a Chat that starts after Close runs as on an
// open session, and its next discovery pass opens a new MCP session, which
// a later Close does not end (Reconnect does). A host that ends a session
// for good stops calling it (the module's session.close does both).
func (s *Session) Close() error {
	s.stopDiscoveryRetries()
	s.mu.Lock()
	if cancel := s.cancelTurn; cancel != nil {
		cancel() // a context's cancel may run under the lock: it calls nothing of the session's
	}
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.watch.closed = true
	cancel := s.watch.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	s.setWatchStatus(WatchClosed, "")
	if traced {
		abandonWaits(s, false)
	}
	return s.closeMCP(context.Background())
}

// Reconnect ends the MCP session: the generation is bumped, the cached pass
// (or the remembered absence of the endpoint), the catalog and a degraded
// state (with its background retry) are dropped, the live watch is stopped,
// and the MCP client is closed. Only runtime tools are advertised until the
// next pass, which the next Chat (waiting for it, as the first Chat does)
// or RefreshTools starts.
//
// It returns the client's close error (as Close does), or, when ctx ends
// first, ctx's error: a client that implements MCPContextCloser is closed
// with ctx; any other is left to finish its Close in the background. The
// session's state is reset either way.
func (s *Session) Reconnect(ctx context.Context) error {
	s.stopWatch()
	s.mu.Lock()
	s.disc.gen++
	s.disc.cached = false
	s.disc.pass = nil
	s.disc.catalog = nil
	s.disc.degraded = false
	s.disc.failures = 0
	s.stopRetryLocked()
	s.mu.Unlock()
	return s.closeMCP(ctx)
}

// closeMCP closes the MCP client within ctx, recovering from a panic in it,
// and returns its error with every known token redacted.
func (s *Session) closeMCP(ctx context.Context) error {
	c := s.opts.MCPClient
	if c == nil {
		return nil
	}
	done := make(chan error, 1)
	gopool.Go(func() {
		var err error
		defer func() {
			if p := recover(); p != nil {
				err = errs.New("session: the MCP client's Close panicked: ", errs.Text(p))
			}
			done <- err
		}()
		if cc, ok := c.(MCPContextCloser); ok {
			err = cc.CloseContext(ctx)
		} else {
			err = c.Close()
		}
	})
	select {
	case err := <-done:
		if err != nil {
			return s.scrubError(errs.Wrap(err, "session: closing the MCP client"))
		}
		return nil
	case <-ctx.Done():
		return errs.Wrap(ctx.Err(), "session: closing the MCP client was abandoned")
	}
}
