// Tool discovery: one shared pass over the MCP server's tools/list, cached
// on success and when the MCP endpoint is absent, never on any other
// failure, bounded by one wall-clock timeout, and guarded by a generation
// counter so that a pass overtaken by RefreshTools or Reconnect changes
// nothing. After a failed pass discovery is degraded: turns no longer wait
// for it, and passes are retried in the background (discovery_retry.go).

package session

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/internal/gopool"
	"github.com/agentwasm/agentwasm/internal/mcp"
	"github.com/agentwasm/agentwasm/internal/reqtrace"
	"github.com/agentwasm/agentwasm/session/mcpclient"
)

// MCPPageLister is implemented by MCP clients that can say how many
// tools/list pages a catalog took; the discovery report shows it
// (ToolDiscoveryReport.Pages). Discovery then calls ListToolPages instead
// of ListTools, never both, under the same contract (see MCPClient).
type MCPPageLister interface {
	ListToolPages(ctx context.Context) (tools []mcpclient.Tool, pages int, err error)
}

// EventTypeToolDiscovery carries one ToolDiscoveryReport per published pass.
const EventTypeToolDiscovery EventType = "toolDiscovery"

// discovery is a session's discovery state; guarded by Session.mu.
type discovery struct {
	gen       int            // bumped by RefreshTools and Reconnect
	cached    bool           // the current generation has a successful pass, or found the endpoint absent
	published bool           // a report has been published (DisableToolDiscovery publishes one)
	pass      *discoveryPass // in flight
	catalog   *catalog       // last successful pass's routed tools (nil: none)
	report    ToolDiscoveryReport

	degraded      bool        // the current generation's last pass failed: turns do not wait, passes are retried
	failures      int         // failed passes in a row since the last success, RefreshTools or Reconnect
	retry         *retryTimer // the background retry waiting on the clock, or nil
	retryOnReturn bool        // a retry came due while a listing was abandoned: it runs once none is
	stopped       bool        // Close: no more background retries
	abandoned     int         // listings a pass stopped waiting for (its bound passed) that have not returned yet
}

// discoveryPass is one pass; done closes when report and err are set.
type discoveryPass struct {
	gen    int
	done   chan struct{}
	report ToolDiscoveryReport
	err    error
}

// ToolDiscovery returns the last published discovery report. A pass that
// failed has an ErrorMessage; a pass that found the MCP endpoint absent (see
// ErrEndpointAbsent) has an empty catalog and an ErrorMessage that says the
// proxy has no MCP endpoint at its URL and that the session goes on with
// its runtime tools.
func (s *Session) ToolDiscovery() ToolDiscoveryReport {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.disc.report
}

// RefreshTools drops the cached catalog and runs a new discovery pass,
// waiting for it (within Options.ToolDiscoveryTimeout), even while
// discovery is degraded; a background retry still waiting is dropped, and
// the backoff starts again at its first delay. A pass already in flight is
// overtaken: it returns its report to its own waiters but changes nothing.
// After a pass that found the MCP endpoint absent, this is how to look
// again (Reconnect is the other); the error then matches ErrEndpointAbsent
// if it is still absent.
func (s *Session) RefreshTools(ctx context.Context) (ToolDiscoveryReport, error) {
	if s.opts.DisableToolDiscovery || s.opts.MCPClient == nil {
		return s.ToolDiscovery(), nil
	}
	s.mu.Lock()
	s.disc.gen++
	s.disc.cached = false
	s.disc.failures = 0
	s.stopRetryLocked()
	p := s.startPassLocked(ctx)
	s.mu.Unlock()
	select {
	case <-p.done:
		if p.err != nil {
			return p.report, s.scrubError(p.err)
		}
		return p.report, nil
	case <-ctx.Done():
		return ToolDiscoveryReport{}, ctx.Err()
	}
}

// ensureDiscovery waits for the shared pass, starting one when none is
// cached or running (an absent endpoint counts as cached). While discovery
// is degraded it does not wait: the turn goes on with its runtime tools and
// the last catalog, and the background retry (or, when none is due, a pass
// started here) looks again. The caller's ctx ends the wait, not the pass.
func (s *Session) ensureDiscovery(ctx context.Context) error {
	if s.opts.DisableToolDiscovery {
		// Discovery is off: one empty report is published, once.
		s.mu.Lock()
		first := !s.disc.published
		s.disc.published = true
		s.mu.Unlock()
		if first {
			s.emit(Event{Type: EventTypeToolDiscovery, Discovery: &ToolDiscoveryReport{}})
		}
		return nil
	}
	if s.opts.MCPClient == nil {
		return nil // no MCP client: nothing to discover
	}
	p := s.turnPass(ctx)
	if p == nil {
		return nil
	}
	select {
	case <-p.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// turnPass returns the pass a turn waits for, starting one if needed, or
// nil when the turn waits for nothing: a cached pass, or degraded
// discovery. ctx is the turn's: a pass it starts and waits for is traced
// as the turn's child.
func (s *Session) turnPass(ctx context.Context) *discoveryPass {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.disc.cached:
		return nil
	case s.disc.degraded:
		if s.disc.pass == nil && s.disc.retry == nil && !s.disc.retryOnReturn && s.disc.abandoned == 0 {
			s.startPassLocked(context.Background()) // no retry is due (Close stopped them): look again, unwaited
		}
		return nil
	case s.disc.pass != nil:
		return s.disc.pass
	}
	return s.startPassLocked(ctx)
}

// startPassLocked starts a pass of the current generation, replacing any
// pass in flight as the one to wait for. s.mu is held. parent's span, if
// any, is the pass's parent (its cancellation is not the pass's).
func (s *Session) startPassLocked(parent context.Context) *discoveryPass {
	p := &discoveryPass{gen: s.disc.gen, done: make(chan struct{})}
	s.disc.pass = p
	gopool.Go(func() { s.runPass(p, parent) })
	return p
}

// runPass lists the tools, applies the policy and publishes the result if
// its generation is still current. A failure makes discovery degraded and
// schedules a retry.
func (s *Session) runPass(p *discoveryPass, parent context.Context) {
	defer close(p.done)
	ctx, dt := context.Background(), (*discoveryTrace)(nil)
	if traced {
		ctx, dt = startDiscoveryTrace(s, parent)
	}
	list, pages, hung, err := s.listBounded(ctx)
	var c *catalog
	absent := false
	switch {
	case hung != "":
		err = errs.New(hung, " did not respond within ", strconv.FormatInt(s.opts.ToolDiscoveryTimeout.Milliseconds(), 10), "ms.")
		p.err = err
		p.report = ToolDiscoveryReport{ErrorMessage: s.scrubbed(err.Error()), Degraded: true}
	case err != nil && errors.Is(err, ErrEndpointAbsent):
		// No MCP endpoint: an empty catalog, remembered until RefreshTools
		// or Reconnect, so that later turns do not ask again.
		absent = true
		p.err = err
		p.report = ToolDiscoveryReport{ErrorMessage: s.scrubbed(absentMCPMessage(err))}
	case err != nil:
		p.err = err
		p.report = ToolDiscoveryReport{ErrorMessage: s.scrubbed(err.Error()), Degraded: true}
	default:
		c, p.report = applyPolicy(list, pages, s.opts.StudioTools)
	}
	if traced {
		dt.finish(s, p.report)
	}
	var retry *retryTimer
	var retryIn time.Duration
	s.mu.Lock()
	current := p.gen == s.disc.gen
	if current {
		if s.disc.pass == p {
			s.disc.pass = nil
		}
		s.disc.published = true
		s.disc.report = p.report
		if err == nil || absent {
			s.disc.cached = true
			s.disc.catalog = c // nil when absent: there is nothing to route to
			s.disc.degraded, s.disc.failures = false, 0
			s.stopRetryLocked()
		} else {
			// Any other failure keeps the previous catalog, is not cached,
			// and is retried in the background; turns stop waiting.
			s.disc.degraded = true
			s.disc.failures++
			retry, retryIn = s.reserveRetryLocked()
		}
	}
	s.mu.Unlock()
	if current {
		s.armRetry(p.gen, retry, retryIn) // before the report goes out: whoever hears it finds the retry set
		rep := p.report
		s.emit(Event{Type: EventTypeToolDiscovery, Discovery: &rep})
		if err == nil {
			s.maybeStartWatch()
		}
	}
}

// listing is what one tools/list walk returned.
type listing struct {
	list  []mcpclient.Tool
	pages int
	err   error
}

// listBounded lists the tools within Options.ToolDiscoveryTimeout. When
// the bound passes first, the listing is cancelled and no longer waited
// for, and hung names the request that did not respond: the last one the
// client began (see reqtrace.Note), else tools/list. base is the context
// of the pass (it carries the pass's span, never a cancellation).
func (s *Session) listBounded(base context.Context) (list []mcpclient.Tool, pages int, hung string, err error) {
	ctx, cancel := context.WithCancel(base)
	defer cancel()
	trace := &reqtrace.Trace{Context: ctx}
	ctx = trace
	done := make(chan listing, 1)
	var finished, abandoned bool // guarded by s.mu
	gopool.Go(func() {
		l, n, err := s.listTools(ctx)
		s.mu.Lock()
		finished = true
		if abandoned {
			s.listingReturnedLocked()
		}
		s.mu.Unlock()
		done <- listing{l, n, err}
	})
	var elapsed <-chan struct{} // nil: no bound
	if d := s.opts.ToolDiscoveryTimeout; d > 0 {
		var stop func() bool
		elapsed, stop = after(s.opts.Clock, d)
		defer stop()
	}
	select {
	case r := <-done:
		return r.list, r.pages, "", r.err
	case <-elapsed:
	}
	cancel()
	// A client that honours ctx returns at once; one that does not is not
	// waited for, but no retry starts until it has returned.
	s.mu.Lock()
	if !finished {
		abandoned = true
		s.disc.abandoned++
	}
	s.mu.Unlock()
	hung = trace.Last()
	if hung == "" {
		hung = mcp.MethodToolsList
	}
	return nil, 0, hung, context.Canceled
}

// listTools asks the MCP client, guarding against a panic in it.
func (s *Session) listTools(ctx context.Context) (list []mcpclient.Tool, pages int, err error) {
	defer func() {
		if p := recover(); p != nil {
			list, pages, err = nil, 0, errs.New("the MCP client panicked: ", errs.Text(p))
		}
	}()
	if pl, ok := s.opts.MCPClient.(MCPPageLister); ok {
		return pl.ListToolPages(ctx)
	}
	list, err = s.opts.MCPClient.ListTools(ctx)
	if err == nil && list == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	return list, 0, err
}

// scrubbed removes known tokens from text.
func (s *Session) scrubbed(text string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.secrets.scrub(text)
}

// currentCatalog returns the routed catalog of the last successful pass.
func (s *Session) currentCatalog() *catalog {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.disc.catalog
}
