// Capabilities: what the Studio AI proxy serves, read before a turn that
// advertises tools, and the refusal check built on it.

package session

import (
	"context"
	"errors"
	"io"
	"strconv"

	"github.com/agentwasm/agentwasm/internal/absent"
	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/internal/wire"
)

// Capabilities says whether the proxy serves this account and which model
// providers it offers.
type Capabilities struct {
	Enabled         bool
	DefaultProvider string
	Providers       []ProviderInfo
}

// ProviderInfo describes one model provider.
type ProviderInfo struct {
	Name         string
	Default      bool
	ToolSupport  *bool // nil: not said, taken as supported
	DefaultModel string
	Models       []string
}

// maxCapabilitiesBytes bounds the capabilities answer.
const maxCapabilitiesBytes = 1 << 20

// Capabilities returns the proxy's capabilities: from the Transport when it
// is a CapabilitiesSource, else from GET {BaseURL}/v1/studio/ai/capabilities.
// A success is cached for the session's life (Reset keeps it). So is an
// absent endpoint: when the GET answers 404 or 405 (or the source returns an
// error matching ErrEndpointAbsent), Capabilities returns an
// *EndpointAbsentError now and on every later call, without asking again,
// and turns go on without a refusal check. Any other failure (no response,
// a timeout, another status, a malformed or oversized answer) is not
// cached: the next call asks again.
func (s *Session) Capabilities(ctx context.Context) (Capabilities, error) {
	s.mu.Lock()
	if s.caps != nil {
		c := *s.caps
		s.mu.Unlock()
		return c, nil
	}
	if err := s.capsAbsent; err != nil {
		s.mu.Unlock()
		return Capabilities{}, err
	}
	s.mu.Unlock()
	c, err := s.readCapabilities(ctx)
	if err != nil {
		absent := errors.Is(err, ErrEndpointAbsent)
		err = s.scrubError(err)
		if absent {
			s.mu.Lock()
			s.capsAbsent = err
			s.mu.Unlock()
		}
		return Capabilities{}, err
	}
	s.mu.Lock()
	s.caps = &c
	s.mu.Unlock()
	return c, nil
}

func (s *Session) readCapabilities(ctx context.Context) (c Capabilities, err error) {
	src, isSource := s.opts.Transport.(CapabilitiesSource)
	defer func() {
		if p := recover(); p != nil {
			if isSource {
				err = errs.New("the transport's Capabilities panicked: ", errs.Text(p))
			} else {
				err = errs.New("reading the capabilities panicked: ", errs.Text(p))
			}
		}
	}()
	if isSource {
		return src.Capabilities(ctx)
	}
	if s.opts.OpenAI != nil {
		return Capabilities{Enabled: true}, nil // an OpenAI-compatible endpoint has no capabilities to read
	}
	url := s.opts.BaseURL + "/v1/studio/ai/capabilities"
	// The bound runs from the request to the end of the body.
	gctx, g := newStreamGuard(ctx, s.opts.Clock, s.opts.CapabilitiesTimeout, 0)
	defer func() {
		if err != nil && ctx.Err() == nil && g.timedOut() != notFired {
			err = errs.New("the capabilities request did not complete within ",
				strconv.FormatInt(s.opts.CapabilitiesTimeout.Milliseconds(), 10), "ms; the turn goes on without the refusal check")
		}
		g.release()
	}()
	resp, err := s.send(gctx, "GET", url, nil, "application/json", g, s.opts.Auth, proxyName)
	if err != nil {
		return Capabilities{}, err
	}
	resp.Body = g.watch(resp.Body, false)
	defer resp.Body.Close()
	if absent.Status(resp.Status) {
		return Capabilities{}, &EndpointAbsentError{Endpoint: "capabilities", URL: url, Status: resp.Status}
	}
	if resp.Status < 200 || resp.Status > 299 {
		return Capabilities{}, errs.New("Studio AI proxy responded ", strconv.Itoa(resp.Status), " for the capabilities request.")
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxCapabilitiesBytes+1))
	if err != nil {
		return Capabilities{}, errs.Wrap(err, "reading the capabilities")
	}
	if len(body) > maxCapabilitiesBytes {
		return Capabilities{}, errs.New("the capabilities answer is larger than ", strconv.Itoa(maxCapabilitiesBytes), " bytes")
	}
	var w wire.Capabilities
	if err := wire.Unmarshal(body, &w); err != nil {
		return Capabilities{}, errors.New("the capabilities answer is not the expected JSON: " + err.Error())
	}
	c = Capabilities{Enabled: w.Enabled == nil || *w.Enabled, DefaultProvider: w.DefaultProvider}
	for _, p := range w.Providers {
		c.Providers = append(c.Providers, ProviderInfo{Name: p.Name, Default: p.Default || p.IsDefault,
			ToolSupport: p.ToolSupport, DefaultModel: p.DefaultModel, Models: p.Models})
	}
	return c, nil
}

// scrubError returns err with every known token replaced in its text. The
// original error, whose text holds the token, is not reachable from the
// result; only a context error it wrapped is (for errors.Is).
func (s *Session) scrubError(err error) error {
	s.mu.Lock()
	msg := s.secrets.scrub(err.Error())
	s.mu.Unlock()
	if msg == err.Error() {
		return err
	}
	e := &scrubbedError{msg: msg}
	switch {
	case errors.Is(err, context.Canceled):
		e.cause = context.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		e.cause = context.DeadlineExceeded
	}
	return e
}

type scrubbedError struct {
	msg   string
	cause error
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.cause }

// ResolveProvider names the provider a turn will use: the Provider option,
// else the capabilities' default provider, matched by name, else the entry
// marked default. ok is false when none matches.
func (s *Session) ResolveProvider(ctx context.Context) (p ProviderInfo, ok bool, err error) {
	c, err := s.Capabilities(ctx)
	if err != nil {
		return ProviderInfo{}, false, err
	}
	p, ok = resolveProvider(c, s.opts.Provider)
	return p, ok, nil
}

func resolveProvider(c Capabilities, want string) (ProviderInfo, bool) {
	if want == "" {
		want = c.DefaultProvider
	}
	if want != "" {
		for _, p := range c.Providers {
			if p.Name == want {
				return p, true
			}
		}
		return ProviderInfo{}, false
	}
	for _, p := range c.Providers {
		if p.Default {
			return p, true
		}
	}
	return ProviderInfo{}, false
}

// refusal checks whether the proxy refuses a turn that advertises tools. It
// returns the refusal message, or "" to go on (capabilities unreachable or
// absent, or the provider unknown, also go on).
func (s *Session) refusal(ctx context.Context) string {
	c, err := s.Capabilities(ctx)
	if err != nil {
		return ""
	}
	if !c.Enabled {
		return "The Studio AI proxy is not enabled for this account (capabilities say enabled:false); no chat request was sent."
	}
	p, ok := resolveProvider(c, s.opts.Provider)
	if !ok || p.ToolSupport == nil || *p.ToolSupport {
		return ""
	}
	model := s.opts.Model
	if model == "" {
		model = p.DefaultModel
	}
	if model == "" {
		model = "its default model"
	}
	return "Provider " + p.Name + " with model " + model + " does not support tool calls, and this session advertises tools; no chat request was sent."
}
