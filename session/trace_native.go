//go:build !js && !wasip1

// The calls into Options.Tracer, native builds only (trace_wasm.go holds
// their empty wasm twins, which the compiler drops): the turn's span and
// its children, the waits for a person, the trace context of chat
// requests, and the default MCP client's tracer. Every call into the
// Tracer is guarded: a panic in it is recovered and ignored.

package session

import (
	"context"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/session/mcpclient"
)

// traced is true in native builds: the calls into a tracer are compiled
// (trace_wasm.go has the wasm builds' false).
const traced = true

// traceState is what a session keeps for its Tracer, guarded by
// Session.mu: the waits for a person, by ask id. An entry with a nil span
// is an ask whose wait was ended (Close) while it stays pending: no wait
// is started for it again.
type traceState struct {
	waits map[string]ApprovalSpan
}

// turnTrace is a turn's span; nil when the session has no Tracer.
type turnTrace struct {
	s      *Session
	tr     Tracer
	span   TurnSpan
	text   string   // the person's message (send), redacted at the end
	raised []string // the asks the turn's calls raised, in order
}

// guard recovers from a panic in a Tracer; defer it.
func guard() { _ = recover() }

// startTurnTrace starts the span of a Chat (r nil, with the person's text)
// or a Resume (with its resolution).
func startTurnTrace(s *Session, ctx context.Context, text string, r *Resolution) (context.Context, *turnTrace) {
	tr := s.opts.Tracer
	if tr == nil {
		return ctx, nil
	}
	start := TurnStart{Kind: TurnKindSend, Model: s.opts.Model, Provider: s.opts.Provider, Direct: s.opts.OpenAI != nil}
	if r != nil {
		start.Kind, start.Answers = TurnKindResume, askAnswers(s, r)
	}
	t := &turnTrace{s: s, tr: tr, text: text}
	tctx := func() (c context.Context) {
		defer func() {
			if recover() != nil {
				c, t.span = ctx, nil
			}
		}()
		c, t.span = tr.StartTurn(ctx, start)
		return c
	}()
	if tctx == nil {
		tctx = ctx
	}
	return tctx, t
}

// askAnswers are the pending asks r answers, in the order they arose, with
// their waits.
func askAnswers(s *Session, r *Resolution) []AskAnswer {
	approve := map[string]bool{}
	for _, id := range r.Decline {
		approve[id] = false
	}
	for _, id := range r.Approve {
		approve[id] = true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []AskAnswer
	for _, p := range s.pending {
		if a, ok := approve[p.AskID]; ok {
			out = append(out, AskAnswer{AskID: p.AskID, Approve: a, Wait: s.trace.waits[p.AskID]})
		}
	}
	return out
}

// ended ends the turn's span with turn, a call's answer that never ran the
// turn (refused at once), and returns it.
func (t *turnTrace) ended(turn Turn) Turn {
	t.end(&turn)
	return turn
}

// end ends the turn's span with the turn as it is returned.
func (t *turnTrace) end(turn *Turn) {
	if t == nil || t.span == nil {
		return
	}
	end := TurnEnd{Turn: *turn, Text: t.s.secrets.scrub(t.text)}
	defer guard()
	t.span.End(end)
}

// answered tells the turn's span that the doors took the answer to an ask,
// and ends the ask's wait.
func (t *turnTrace) answered(askID string, approve bool) {
	if t == nil {
		return
	}
	s := t.s
	s.mu.Lock()
	wait := s.trace.waits[askID]
	delete(s.trace.waits, askID)
	s.mu.Unlock()
	outcome := ApprovalDeclined
	if approve {
		outcome = ApprovalApproved
	}
	endWait(wait, outcome)
	if t.span != nil {
		defer guard()
		t.span.Answered(askID, approve)
	}
}

// endWait ends a wait's span, if any.
func endWait(w ApprovalSpan, outcome string) {
	if w == nil {
		return
	}
	defer guard()
	w.End(outcome)
}

// settleWaits runs as a turn ends, pending being the asks that wait now:
// the waits of asks no longer pending (a Chat dropped them, a refused
// request restored others) end abandoned, and each ask the turn raised
// that waits, and has no wait yet, gets one from the turn's span.
func (t *turnTrace) settleWaits(pending []PendingApproval) {
	if t == nil {
		return
	}
	s := t.s
	waiting := make(map[string]bool, len(pending))
	for _, p := range pending {
		waiting[p.AskID] = true
	}
	raised := make(map[string]bool, len(t.raised))
	for _, id := range t.raised {
		raised[id] = true
	}
	var dropped []ApprovalSpan
	var start []PendingApproval
	s.mu.Lock()
	for id, w := range s.trace.waits {
		if !waiting[id] {
			dropped = append(dropped, w)
			delete(s.trace.waits, id)
		}
	}
	for _, p := range pending {
		if _, known := s.trace.waits[p.AskID]; raised[p.AskID] && !known {
			start = append(start, p)
		}
	}
	closed := s.closed
	s.mu.Unlock()
	for _, w := range dropped {
		endWait(w, ApprovalAbandoned)
	}
	if t.span == nil || closed {
		return // a closed session's asks are abandoned: no wait starts
	}
	for _, p := range start {
		w := t.await(p)
		s.mu.Lock()
		if s.trace.waits == nil {
			s.trace.waits = map[string]ApprovalSpan{}
		}
		s.trace.waits[p.AskID] = w
		s.mu.Unlock()
	}
}

// await asks the turn's span for the wait of ask p.
func (t *turnTrace) await(p PendingApproval) (w ApprovalSpan) {
	defer func() {
		if recover() != nil {
			w = nil
		}
	}()
	p.Detail = append(RawJSON(nil), p.Detail...)
	return t.span.Await(p)
}

// abandonWaits ends every wait as abandoned (Close, Reset). forget drops
// their entries (Reset: the asks are gone); otherwise they are kept with no
// span (Close: the asks stay pending, and get no wait again).
func abandonWaits(s *Session, forget bool) {
	if s.opts.Tracer == nil {
		return
	}
	var ended []ApprovalSpan
	s.mu.Lock()
	for id, w := range s.trace.waits {
		ended = append(ended, w)
		if forget {
			delete(s.trace.waits, id)
		} else {
			s.trace.waits[id] = nil
		}
	}
	s.mu.Unlock()
	for _, w := range ended {
		endWait(w, ApprovalAbandoned)
	}
}

// chatTrace is a model request's span; nil when the session has no Tracer.
type chatTrace struct {
	s        *Session
	span     ChatSpan
	end      ChatEnd
	first    bool // the first event arrived
	errEvent bool // an error event arrived (end.ErrorType holds its code)
}

// startChat starts the span of the turn's round.
func (t *turnTrace) startChat(ctx context.Context, round int) (context.Context, *chatTrace) {
	if t == nil {
		return ctx, nil
	}
	o := &t.s.opts
	start := ChatStart{Round: round, Model: o.Model, Provider: o.Provider}
	switch {
	case o.Transport != nil:
	case o.OpenAI != nil:
		start.Direct, start.URL = true, o.OpenAI.BaseURL
	default:
		start.URL = o.BaseURL + "/v1/studio/ai/chat"
	}
	c := &chatTrace{s: t.s}
	cctx := func() (cctx context.Context) {
		defer func() {
			if recover() != nil {
				cctx, c.span = ctx, nil
			}
		}()
		cctx, c.span = t.tr.StartChat(ctx, start)
		return cctx
	}()
	if cctx == nil {
		cctx = ctx
	}
	return cctx, c
}

// event notes what the span keeps of one event of the answer.
func (c *chatTrace) event(ev *StreamEvent) {
	if c == nil || c.span == nil {
		return
	}
	if !c.first {
		c.first = true
		func() {
			defer guard()
			c.span.FirstEvent()
		}()
	}
	switch ev.Type {
	case EventMessageStart:
		if ev.Model != "" {
			c.end.ResponseModel = ev.Model
		}
	case EventMessageStop:
		c.end.StopReason = ev.StopReason
		c.end.InputTokens += ev.PromptTokens
		c.end.OutputTokens += ev.CompletionTokens
	case EventError:
		c.errEvent = true
		c.end.ErrorType = ev.ErrorCode
	}
}

// finish ends the span: o is how the round ended (nil: its answer arrived
// whole).
func (c *chatTrace) finish(o *outcome) {
	if c == nil || c.span == nil {
		return
	}
	e := c.end
	if o != nil {
		switch {
		case o.status == StatusCancelled:
			e.ErrorType = "cancelled"
		case c.errEvent:
			if e.ErrorType == "" {
				e.ErrorType = "_OTHER"
			}
		case o.code == ErrorCodeStreamTruncated:
			e.ErrorType = "truncated"
		case o.code != "":
			e.ErrorType = o.code
		default:
			e.ErrorType = "transport_error"
		}
		e.ErrorMessage = c.s.secrets.scrub(o.msg)
	} else {
		e.ErrorType = ""
	}
	defer guard()
	c.span.End(e)
}

// toolTrace is a tool call's span; nil when the session has no Tracer.
type toolTrace struct {
	t    *turnTrace
	span ToolSpan
}

// startTool starts the span of a dispatched call.
func (t *turnTrace) startTool(ctx context.Context, call ToolCall) (context.Context, *toolTrace) {
	if t == nil {
		return ctx, nil
	}
	start := ToolStart{Name: call.Name, CallID: call.ID, Arguments: t.s.secrets.scrubRaw(objectOrEmpty(call.Args))}
	x := &toolTrace{t: t}
	tctx := func() (tctx context.Context) {
		defer func() {
			if recover() != nil {
				tctx, x.span = ctx, nil
			}
		}()
		tctx, x.span = t.tr.StartTool(ctx, start)
		return tctx
	}()
	if tctx == nil {
		tctx = ctx
	}
	return tctx, x
}

// conflictRetry tells the span that the reload-and-retry starts.
func (x *toolTrace) conflictRetry() {
	if x == nil || x.span == nil {
		return
	}
	defer guard()
	x.span.ConflictRetry()
}

// finish ends the span with the call's record and the ask its result
// raised (nil: none), which the turn remembers for its waits.
func (x *toolTrace) finish(rec DispatchRecord, ask *PendingApproval) {
	if x == nil {
		return
	}
	id := ""
	if ask != nil {
		id = ask.AskID
		x.t.raised = append(x.t.raised, id)
	}
	if x.span == nil {
		return
	}
	defer guard()
	x.span.End(rec, id)
}

// discoveryTrace is a discovery pass's span; nil without a Tracer.
type discoveryTrace struct {
	span DiscoverySpan
}

// startDiscoveryTrace starts the span of a pass whose parent is parent's
// span (a turn's, RefreshTools' caller's; none for a background pass). It
// returns the context the pass lists the tools with: never cancelled by
// parent's end (a pass outlives the turn that started it).
func startDiscoveryTrace(s *Session, parent context.Context) (context.Context, *discoveryTrace) {
	tr := s.opts.Tracer
	if tr == nil || parent == nil {
		return context.Background(), nil
	}
	base := context.WithoutCancel(parent)
	d := &discoveryTrace{}
	ctx := func() (ctx context.Context) {
		defer func() {
			if recover() != nil {
				ctx, d.span = base, nil
			}
		}()
		ctx, d.span = tr.StartDiscovery(base)
		return ctx
	}()
	if ctx == nil {
		ctx = base
	}
	return ctx, d
}

// finish ends the pass's span with its report.
func (d *discoveryTrace) finish(s *Session, report ToolDiscoveryReport) {
	if d == nil || d.span == nil {
		return
	}
	report = s.secrets.report(report)
	defer guard()
	d.span.End(report)
}

// injectChat writes the trace context of ctx, a chat request's, into the
// headers of the request: only a request with a body (the chat POST), not
// the capabilities GET that shares the same sender.
func injectChat(s *Session, ctx context.Context, hdr bridge.Header, body []byte) {
	tr := s.opts.Tracer
	if tr == nil || body == nil {
		return
	}
	defer guard()
	tr.Inject(ctx, func(key, value string) {
		if key != "" && value != "" {
			hdr.Set(key, value)
		}
	})
}

// mcpTracer is the tracer of the default MCP client: the session's, with
// every known token redacted from the error messages it is given.
func mcpTracer(tr Tracer, sec *secrets) mcpclient.Tracer {
	if tr == nil {
		return nil
	}
	return scrubbingMCPTracer{tr, sec}
}

// scrubbingMCPTracer hands the session's scrubber to the MCP request spans.
type scrubbingMCPTracer struct {
	mcpclient.Tracer
	sec *secrets
}

// StartRequest starts the request's span on the session's Tracer.
func (m scrubbingMCPTracer) StartRequest(ctx context.Context, req mcpclient.TracedRequest) (context.Context, mcpclient.RequestSpan) {
	ctx, span := m.Tracer.StartRequest(ctx, req)
	if span == nil {
		return ctx, nil
	}
	return ctx, scrubbingRequestSpan{span, m.sec}
}

// scrubbingRequestSpan redacts the error message of a request's end.
type scrubbingRequestSpan struct {
	span mcpclient.RequestSpan
	sec  *secrets
}

// End ends the span, every known token redacted from its message.
func (r scrubbingRequestSpan) End(e mcpclient.RequestEnd) {
	e.ErrorMessage = r.sec.scrub(e.ErrorMessage)
	r.span.End(e)
}
