// Tool discovery: one shared pass over the MCP server's tools/list, cached
// on success and when the MCP endpoint is absent, never on any other
// failure, bounded by one wall-clock timeout, and guarded by a generation
// counter so that a pass overtaken by RefreshTools or Reconnect changes
// nothing.

package session

import (
	"context"
	"errors"
	"strconv"
	"sync/atomic"

	"github.com/agentwasm/agentwasm/internal/errs"
)

// MCPPageLister is implemented by MCP clients that can say how many
// tools/list pages a catalog took; the discovery report shows it.
type MCPPageLister interface {
	ListToolPages(ctx context.Context) (tools []MCPTool, pages int, err error)
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
// waiting for it. A pass already in flight is overtaken: it returns its
// report to its own waiters but changes nothing. After a pass that found the
// MCP endpoint absent, this is how to look again (Reconnect is the other);
// the error then matches ErrEndpointAbsent if it is still absent.
func (s *Session) RefreshTools(ctx context.Context) (ToolDiscoveryReport, error) {
	s.mu.Lock()
	s.disc.gen++
	s.disc.cached = false
	s.disc.pass = nil
	s.mu.Unlock()
	p := s.startPass()
	if p == nil {
		return s.ToolDiscovery(), nil
	}
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

// Reconnect ends the MCP session: the client is closed, the generation
// bumped, the cached pass (or the remembered absence of the endpoint) and
// the catalog dropped, and only runtime tools are advertised until the next
// pass, which the next Chat or RefreshTools starts.
func (s *Session) Reconnect() {
	s.stopWatch()
	s.mu.Lock()
	s.disc.gen++
	s.disc.cached = false
	s.disc.pass = nil
	s.disc.catalog = nil
	s.mu.Unlock()
	if c := s.opts.MCPClient; c != nil {
		func() {
			defer func() { _ = recover() }()
			_ = c.Close()
		}()
	}
}

// ensureDiscovery waits for the shared pass, starting one when none is
// cached or running (an absent endpoint counts as cached). The caller's ctx
// ends the wait, not the pass.
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
	p := s.startPass()
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

// startPass returns the pass to wait for, starting one if needed, or nil
// when nothing is to be waited for (cached, or discovery disabled or
// impossible).
func (s *Session) startPass() *discoveryPass {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.opts.DisableToolDiscovery || s.opts.MCPClient == nil {
		return nil
	}
	switch {
	case s.disc.cached:
		return nil
	case s.disc.pass != nil:
		return s.disc.pass
	}
	p := &discoveryPass{gen: s.disc.gen, done: make(chan struct{})}
	s.disc.pass = p
	go s.runPass(p)
	return p
}

// runPass lists the tools, applies the policy and publishes the result if
// its generation is still current.
func (s *Session) runPass(p *discoveryPass) {
	defer close(p.done)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var timedOut atomic.Bool
	if d := s.opts.ToolDiscoveryTimeout; d > 0 {
		stop := s.opts.Clock.AfterFunc(d, func() { timedOut.Store(true); cancel() })
		defer stop()
	}
	list, pages, err := s.listTools(ctx)
	var c *catalog
	absent := false
	switch {
	case err != nil && timedOut.Load():
		err = errs.New("tools/list did not respond within ", strconv.FormatInt(s.opts.ToolDiscoveryTimeout.Milliseconds(), 10), "ms.")
		p.err = err
		p.report = ToolDiscoveryReport{ErrorMessage: s.scrubbed(err.Error())}
	case err != nil && errors.Is(err, ErrEndpointAbsent):
		// No MCP endpoint: an empty catalog, remembered until RefreshTools
		// or Reconnect, so that later turns do not ask again.
		absent = true
		p.err = err
		p.report = ToolDiscoveryReport{ErrorMessage: s.scrubbed(absentMCPMessage(err))}
	case err != nil:
		p.err = err
		p.report = ToolDiscoveryReport{ErrorMessage: s.scrubbed(err.Error())}
	default:
		c, p.report = applyPolicy(list, pages, s.opts.StudioTools)
	}
	s.mu.Lock()
	current := p.gen == s.disc.gen
	if current {
		s.disc.pass = nil
		s.disc.published = true
		s.disc.report = p.report
		if err == nil || absent {
			s.disc.cached = true
			s.disc.catalog = c // nil when absent: there is nothing to route to
		} // any other failure keeps the previous catalog, and is not cached
	}
	s.mu.Unlock()
	if current {
		rep := p.report
		s.emit(Event{Type: EventTypeToolDiscovery, Discovery: &rep})
		if err == nil {
			s.maybeStartWatch()
		}
	}
}

// listTools asks the MCP client, guarding against a panic in it.
func (s *Session) listTools(ctx context.Context) (list []MCPTool, pages int, err error) {
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
