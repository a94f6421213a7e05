// Session: the state a session keeps and its small accessors. The chat loop
// is in chat.go.

package session

import (
	"sync"
	"sync/atomic"

	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/session/mcpclient"
)

// Session is one agent conversation. Its methods are safe for concurrent
// use, but only one Chat or Resume runs at a time: an overlapping one
// returns at once with StatusError and ErrorCodeBusy, touching nothing, and
// Reset is refused (ErrBusy) while one runs. Close cancels the one that
// runs.
type Session struct {
	opts Options
	busy atomic.Bool // a Chat or Resume runs; set and cleared under mu

	mu      sync.Mutex // guards everything below
	history []Message
	caps    *Capabilities // cached after the first success
	secrets *secrets      // the scrubber: every token obtained; it locks itself
	draft   *DraftBinding
	callSeq int // numbers tool calls the stream sent without an id
	disc    discovery
	watch   watchState
	pending []PendingApproval // the asks awaiting a person (approval.go)
	usage   Usage             // every turn's tokens so far (a snapshot holds them)
	// turnStart and turnPending are the history's length and the pending
	// asks when the running turn began: what a snapshot taken during it
	// holds (snapshot.go).
	turnStart   int
	turnPending []PendingApproval
	closed      bool // Close ran
	// cancelTurn ends the running turn's context (nil when none runs).
	cancelTurn func()

	// capsAbsent is the error of the capabilities read that found the
	// endpoint absent (ErrEndpointAbsent), returned without asking again.
	capsAbsent error

	// trace is what the session keeps for Options.Tracer (native builds).
	//lint:ignore U1000 the wasm builds keep nothing in it (trace_wasm.go); the native ones do
	trace traceState
}

// New returns a session configured by opts, or an error naming the option
// that is out of range.
func New(opts Options) (*Session, error) {
	var r *restored
	if opts.Restore != nil {
		maxRequest := opts.MaxRequestBytes
		if maxRequest <= 0 {
			maxRequest = DefaultMaxRequestBytes
		}
		var err error
		if r, err = readSnapshot(opts.Restore, maxRequest); err != nil {
			return nil, err // before anything is made: nothing is half-restored
		}
		r.fill(&opts) // the snapshot's data options, where opts leaves them unset
	}
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	sec := &secrets{}
	if o.Auth != nil {
		// Every token handed out, to the chat path and to the default MCP
		// client alike, is learned by the scrubber before it is sent.
		o.Auth = learningTokens{src: o.Auth, secrets: sec}
	}
	if o.OpenAI != nil && o.OpenAI.APIKey != nil {
		o.OpenAI.APIKey = learningTokens{src: o.OpenAI.APIKey, secrets: sec} // a key is scrubbed as a token is
	}
	if o.MCPClient == nil && !o.DisableToolDiscovery {
		// The default: discover on MCPURL, else {BaseURL}/mcp, with the
		// HTTP MCP client, whose request streams resume after a drop.
		url := o.MCPURL
		if url == "" {
			url = o.BaseURL + "/mcp"
		}
		c, err := mcpclient.New(mcpclient.Config{
			URL:     url,
			Fetcher: &mcpclient.ResumingFetcher{Fetcher: o.Fetcher, Clock: o.Clock},
			Auth:    o.Auth,
			Tracer:  mcpTracer(o.Tracer, sec),
		})
		if err != nil {
			return nil, errs.Wrap(err, "session: the default MCP client on ", url)
		}
		o.MCPClient = c
	}
	s := &Session{opts: o, secrets: sec}
	if o.Draft != nil {
		d := *o.Draft
		s.draft = &d
	}
	if r != nil {
		r.apply(s)
		s.opts.Restore = nil // read once; the session keeps no copy
	}
	return s, nil
}

// Messages returns a copy of the conversation history.
func (s *Session) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Message, len(s.history))
	for i, m := range s.history {
		out[i] = s.secrets.message(m) // its own copy of the calls
	}
	return out
}

// Reset clears the conversation history and forgets the pending asks. What
// the session learned about the proxy is kept: the capabilities (or their
// endpoint's absence) and the discovery pass (or the MCP endpoint's
// absence).
//
// While a Chat or Resume runs, Reset changes nothing and returns ErrBusy:
// clearing the history under a running turn would leave its later tool
// results without the assistant message that called them. Cancel the turn
// (its context) and reset once it has returned.
func (s *Session) Reset() error {
	s.mu.Lock()
	if s.busy.Load() {
		s.mu.Unlock()
		return ErrBusy
	}
	s.history = nil
	s.usage = Usage{}
	s.pending = nil
	s.mu.Unlock()
	if traced {
		abandonWaits(s, true)
	}
	return nil
}

// Tools returns the tools the next turn will advertise: the runtime tools
// (the Kit's, then Options.Tools; the first of a name wins), then the tools
// of the last successful discovery pass that no runtime tool shadows.
func (s *Session) Tools() []ToolDefinition {
	tools := s.runtimeTools()
	if cat := s.currentCatalog(); cat != nil {
		runtime := make(map[string]bool, len(tools))
		for _, t := range tools {
			runtime[t.Name] = true
		}
		for _, t := range cat.tools {
			if !runtime[t.Name] {
				tools = append(tools, t)
			}
		}
	}
	return tools
}

// Draft returns the bound composition draft, or nil.
func (s *Session) Draft() *DraftBinding {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.draft == nil {
		return nil
	}
	d := *s.draft
	return &d
}

// AttachDraft binds the composition draft that composition tools mutate;
// nil unbinds it.
func (s *Session) AttachDraft(d *DraftBinding) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d == nil {
		s.draft = nil
		return
	}
	c := *d
	s.draft = &c
}

// emit hands ev to the observer, with every known token redacted,
// recovering from any panic in it.
func (s *Session) emit(ev Event) {
	if s.opts.OnEvent == nil {
		return
	}
	defer func() { _ = recover() }()
	s.opts.OnEvent(s.secrets.event(ev))
}

// emitText hands the text of a plain text delta to Options.OnTextDelta,
// with every known token redacted, recovering from any panic in it.
func (s *Session) emitText(text string) {
	defer func() { _ = recover() }()
	s.opts.OnTextDelta(s.secrets.scrub(text))
}

// runtimeTools merges the Kit's tools and Options.Tools, first name wins.
func (s *Session) runtimeTools() (tools []ToolDefinition) {
	seen := map[string]bool{}
	add := func(list []ToolDefinition) {
		for _, t := range list {
			if t.Name != "" && !seen[t.Name] {
				seen[t.Name] = true
				tools = append(tools, t)
			}
		}
	}
	if s.opts.Kit != nil {
		func() {
			defer func() { _ = recover() }() // a Kit whose Tools panics offers none
			add(s.opts.Kit.Tools())
		}()
	}
	add(s.opts.Tools)
	return tools
}
