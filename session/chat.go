// The chat loop: one Chat (or the rest of a turn Resume continues), step by
// step (docs/PROTOCOL.md writes down the wire side of each step).

package session

import (
	"context"
	"errors"
	"io"
	"sync"
	"unsafe"

	"github.com/agentwasm/agentwasm/internal/errs"
)

// Chat sends text as the person's next message and runs the loop: stream the
// model's answer, run the tool calls it made, feed the results back, and
// repeat up to MaxToolRounds model requests. It returns when the turn ends;
// the Turn's Status says how. Cancelling ctx, or closing the session
// (Close), ends the turn with StatusCancelled at whatever step it is in and
// aborts the request or tool call in flight; every call the model made has
// its answer in the history then (a call that never ran is answered
// cancelled). A round whose tool results wait for a person ends the turn
// after its calls are dispatched (see Turn.PendingApprovals and Resume).
// Chat forgets the asks earlier turns left pending. At most one ChatOptions
// is used.
//
// A turn whose model request fails before any of its answer (text or a
// tool call) arrived — the request would pass Options.MaxRequestBytes
// (ErrorCodeRequestTooLarge), the transport fails, the proxy answers a
// non-2xx status (a 413, say), sends nothing in time, ends the stream
// empty, or opens it with an error event — ends with StatusError and
// leaves the history and the pending asks exactly as they were before the
// turn: the person's message and the rounds of the
// turn that came before the refused request are dropped (Turn.ToolCalls
// still lists the calls those rounds ran), so the same message may simply
// be sent again. A failure after the answer started (a truncated or
// silent stream, a bound passed) keeps what the turn added.
func (s *Session) Chat(ctx context.Context, text string, opts ...ChatOptions) Turn {
	if !traced {
		return s.chat(ctx, text, nil, opts)
	}
	ctx, tt := startTurnTrace(s, ctx, text, nil)
	return tt.ended(s.chat(ctx, text, tt, opts))
}

// chat is Chat, traced by tt (nil: untraced).
func (s *Session) chat(ctx context.Context, text string, tt *turnTrace, opts []ChatOptions) Turn {
	if ctx.Err() != nil {
		return Turn{Status: StatusCancelled, ErrorMessage: "The chat was cancelled before it started."}
	}
	var co ChatOptions
	if len(opts) > 0 {
		co = opts[0]
	}
	if err := co.ToolChoice.validate("ChatOptions.ToolChoice"); err != nil {
		return Turn{Status: StatusError, ErrorCode: "bad_options", ErrorMessage: err.Error()}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if !s.begin(cancel) {
		return busyTurn
	}
	defer s.finish()
	before := s.snapshot()
	s.clearPending()
	return s.runTurn(ctx, co, &before, tt, func(context.Context) *outcome {
		s.appendHistory(Message{Role: "user", Content: text})
		return nil
	})
}

// busyTurn is the answer to a Chat or Resume that overlaps another.
var busyTurn = Turn{Status: StatusError, ErrorCode: ErrorCodeBusy,
	ErrorMessage: "Another chat (or resume) is still running on this session; wait for it to finish or cancel it."}

// runTurn runs one turn whose opening step (the person's message, or the
// answers to asks) is open, and returns its record. before is the state a
// refused request restores (open may set it). The caller holds busy
// (begin), with ctx the context Close cancels; tt traces the turn (its
// caller ends the turn's span).
func (s *Session) runTurn(ctx context.Context, co ChatOptions, before *snapshot, tt *turnTrace, open func(context.Context) *outcome) Turn {
	t := &turnState{s: s, before: before, trace: tt}
	t.run(ctx, open, co)
	t.turn.Text = t.textString()
	t.turn.PendingApprovals = s.PendingApprovals()
	if traced {
		tt.settleWaits(t.turn.PendingApprovals)
	}
	if u := t.turn.Usage; u != nil {
		s.mu.Lock()
		s.usage.InputTokens += u.InputTokens
		s.usage.OutputTokens += u.OutputTokens
		s.mu.Unlock()
	}
	s.secrets.turn(&t.turn)
	return t.turn
}

// turnState is a Turn being built.
type turnState struct {
	s     *Session
	turn  Turn
	trace *turnTrace // the turn's span (native builds with a Tracer)
	// before is the history and pending asks a refused request restores.
	before *snapshot
	// text is the text of every round. It only grows (as a strings.Builder
	// does): the strings textString made of it stay as they are.
	text []byte
	// bytes is what the turn took in so far, against MaxTurnTextBytes.
	bytes int
	// inRun: the last recorded event is a textDelta whose text is
	// text.String()[runStart:], and the next delta extends it.
	inRun    bool
	runStart int
}

// textString returns the turn's text so far, without copying it.
func (t *turnState) textString() string {
	return unsafe.String(unsafe.SliceData(t.text), len(t.text))
}

// outcome is how a step ended a turn; nil means go on.
type outcome struct {
	status Status
	msg    string
	code   string
	// refused: the model request failed before its answer started, and
	// the history goes back to how it was before the turn.
	refused bool
}

func (t *turnState) end(o *outcome) {
	t.turn.Status, t.turn.ErrorMessage, t.turn.ErrorCode = o.status, o.msg, o.code
	if o.refused && t.before != nil {
		t.s.restore(t.before)
	}
}

var cancelledOutcome = &outcome{status: StatusCancelled, msg: "The chat was cancelled."}

func (t *turnState) run(ctx context.Context, open func(context.Context) *outcome, co ChatOptions) {
	s := t.s
	// Wait for the shared discovery pass; the caller's abort ends the wait
	// (and the turn), not the pass.
	if err := s.ensureDiscovery(ctx); err != nil {
		t.end(cancelledOutcome)
		return
	}
	tools := s.runtimeTools()
	runtime := make(map[string]bool, len(tools))
	for _, td := range tools {
		runtime[td.Name] = true
	}
	cat := s.currentCatalog()
	if cat != nil {
		for _, td := range cat.tools {
			if !runtime[td.Name] { // runtime tools win every collision
				tools = append(tools, td)
			}
		}
	}
	// Refusal check, only when tools are advertised.
	if len(tools) > 0 {
		if msg := s.refusal(ctx); msg != "" {
			t.end(&outcome{status: StatusRefused, msg: msg})
			return
		}
	}
	if ctx.Err() != nil {
		t.end(cancelledOutcome)
		return
	}
	if o := open(ctx); o != nil {
		t.end(o)
		return
	}
	system, err := s.systemPrompt(ctx)
	if err != nil {
		if ctx.Err() != nil {
			t.end(cancelledOutcome)
		} else {
			t.end(&outcome{status: StatusError, msg: "Could not build the system prompt: " + err.Error()})
		}
		return
	}
	choice := s.opts.ToolChoice
	if co.ToolChoice != nil {
		choice = co.ToolChoice
	}
	for range s.opts.MaxToolRounds {
		if ctx.Err() != nil {
			t.end(cancelledOutcome)
			return
		}
		// The request as it is sent, every known token redacted, is what
		// the bound counts: a short token grows to "[redacted]".
		req := s.secrets.request(&ChatRequest{
			Provider: s.opts.Provider, Model: s.opts.Model, System: system, Messages: s.requestMessages(),
			Tools: tools, ToolChoice: choice, MaxTokens: s.opts.MaxTokens, Temperature: s.opts.Temperature,
		})
		used := requestBytes(req)
		if used > s.opts.MaxRequestBytes {
			t.end(s.requestTooLarge(used))
			return
		}
		t.turn.Rounds++
		cctx, ct := ctx, (*chatTrace)(nil)
		if traced {
			cctx, ct = t.trace.startChat(ctx, t.turn.Rounds)
		}
		r, o := t.streamRound(cctx, req, ct)
		if traced {
			ct.finish(o)
		}
		if o != nil {
			t.end(o)
			return
		}
		calls := r.ready()
		answer := Message{Role: "assistant", Content: r.textString(), ToolCalls: calls}
		used += messageBytes(&answer)
		s.appendHistory(answer)
		first, asked := len(t.turn.ToolCalls), false
		for i, call := range calls {
			if ctx.Err() != nil {
				t.answerUnrun(calls[i:])
				t.end(cancelledOutcome)
				return
			}
			tctx, tool := ctx, (*toolTrace)(nil)
			if traced {
				tctx, tool = t.trace.startTool(ctx, call)
			}
			rec, ask := t.dispatch(tctx, call, runtime, cat, tool)
			rec = s.secrets.record(rec)
			var size int
			rec, size = s.fitResult(rec, used)
			used += size
			if traced {
				tool.finish(rec, ask)
			}
			if ask != nil {
				s.addPending(*ask)
				asked = true
			}
			t.turn.ToolCalls = append(t.turn.ToolCalls, rec)
			observed := rec // the observer gets its own copy: what it does to it changes nothing
			s.emit(Event{Type: EventTypeToolResult, Result: &observed})
			s.appendHistory(Message{Role: "tool", Content: rec.Content, ToolCallID: rec.ToolCallID, ToolName: rec.ToolName})
			// The context, not the record, says whether the turn was
			// cancelled: a tool may itself report a status named "cancelled".
			if ctx.Err() != nil {
				t.answerUnrun(calls[i+1:])
				t.end(cancelledOutcome)
				return
			}
		}
		t.finishStep(r, t.turn.ToolCalls[first:])
		if len(calls) == 0 || asked {
			// The model is done, or a person must answer before it goes on.
			t.turn.Status = StatusCompleted
			return
		}
	}
	t.turn.Status = StatusCompleted // rounds exhausted; the last results are in history
}

// answerUnrun gives calls that never ran a tool message, so that every call
// in history has its answer (strict providers reject orphaned calls).
func (t *turnState) answerUnrun(calls []ToolCall) {
	for _, c := range calls {
		content := rejectionContent(CodeCancelled, "The turn was cancelled before this tool ran.")
		t.s.appendHistory(Message{Role: "tool", Content: content, ToolCallID: c.ID, ToolName: c.Name})
	}
}

// streamRound sends one request, its known tokens already redacted
// (secrets.request), and reads its answer to the end; ct traces it. The
// answer must end with message_stop (or an error event): a stream that
// ends before is truncated, and ends the turn.
func (t *turnState) streamRound(ctx context.Context, req *ChatRequest, ct *chatTrace) (*round, *outcome) {
	stream, err := t.s.openStream(ctx, req)
	if err != nil {
		return nil, refused(t.transportFailure(ctx, err))
	}
	// Close aborts a Next that is blocked when ctx ends, even on a
	// transport that does not watch ctx itself. The stream is closed once.
	var once sync.Once
	closeOnce := func() { once.Do(func() { closeStream(stream) }) }
	defer closeOnce()
	defer context.AfterFunc(ctx, closeOnce)()
	r := newRound(t.s)
	t.inRun = false
	stopped := false // the answer's message_stop arrived
	started := false // the answer's text or a tool call arrived
	// One event variable for the whole stream: the steps below take it by
	// pointer, and a compiler that cannot prove the pointer stays put (TinyGo)
	// then moves one variable to the heap, not one per event.
	var ev StreamEvent
	for {
		var err error
		ev, err = nextEvent(stream)
		if err != nil {
			var te *errTransport
			switch {
			case ctx.Err() != nil:
				// A stream that ends at the abort is cut short, not complete.
				return nil, cancelledOutcome
			case stopped && (errors.Is(err, io.EOF) || errs.As(err, &te) && te.code == ErrorCodeStreamTimeout):
				// The answer is complete; a proxy that keeps the stream
				// open after message_stop ends it by going silent.
				return r, nil
			}
			o := truncatedOutcome
			if !errors.Is(err, io.EOF) {
				o = t.transportFailure(ctx, err)
			}
			if !started {
				o = refused(o) // nothing of the answer came
			}
			return nil, o
		}
		if traced {
			ct.event(&ev)
		}
		if t.continueRun(r, &ev) {
			continue
		}
		if o := t.admit(&ev); o != nil {
			return nil, o
		}
		t.record(&ev)
		r.add(&ev)
		switch ev.Type {
		case EventTextDelta, EventToolCallStart, EventToolCallDelta, EventToolCallStop:
			started = true
		case EventMessageStop:
			if sc, ok := stream.(stopCounter); ok && !stopped {
				sc.stopped() // read on to the end, but boundedly: the request then completes, not aborted
			}
			stopped = true
			t.turn.StopReason, r.stopReason = ev.StopReason, ev.StopReason
			addStop(&r.usage, ev)
			addStop(&t.turn.Usage, ev)
		case EventError:
			msg := ev.ErrorMessage
			if msg == "" {
				msg = "The Studio AI proxy reported an error without a message."
			}
			o := &outcome{status: StatusError, msg: msg, code: ev.ErrorCode}
			if !started {
				o = refused(o) // the proxy refused the request in-band
			}
			return nil, o
		}
	}
}

// openStream asks the transport, recovering from a panic in it.
func (s *Session) openStream(ctx context.Context, req *ChatRequest) (st EventStream, err error) {
	defer func() {
		if p := recover(); p != nil {
			st, err = nil, &errTransport{msg: "The chat transport panicked: " + errs.Text(p)}
		}
	}()
	if s.opts.Transport != nil {
		st, err = s.opts.Transport.Stream(ctx, req)
		if err == nil && st == nil {
			err = &errTransport{msg: "The chat transport returned no stream and no error."}
		}
		return st, err
	}
	if s.opts.OpenAI != nil {
		return openaiTransport{s}.Stream(ctx, req)
	}
	return sseTransport{s}.Stream(ctx, req)
}

// nextEvent reads one event, recovering from a panic in the stream. A text
// delta without text (StreamEvent.emptyDelta) is skipped.
func nextEvent(st EventStream) (ev StreamEvent, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &errTransport{msg: "The chat stream panicked: " + errs.Text(p)}
		}
	}()
	for {
		if ev, err = st.Next(); err != nil || !ev.emptyDelta() {
			return ev, err
		}
	}
}

// closeStream closes st, recovering from a panic in it.
func closeStream(st EventStream) {
	defer func() { _ = recover() }()
	_ = st.Close()
}

// transportFailure classifies an error from the transport.
func (t *turnState) transportFailure(ctx context.Context, err error) *outcome {
	var te *errTransport
	switch {
	case ctx.Err() != nil:
		return cancelledOutcome
	case errs.As(err, &te): // a bound of the session is one, not a cancellation
		return &outcome{status: StatusError, msg: te.msg, code: te.code}
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return cancelledOutcome
	default:
		return &outcome{status: StatusError, msg: "The chat transport failed: " + err.Error()}
	}
}

// record adds ev to the turn and hands it to the observer. A text delta
// that follows a text delta extends that event's text instead of adding
// one: the record holds one textDelta per run, while the observer sees
// every delta as it streams.
func (t *turnState) record(ev *StreamEvent) {
	if ev.Type == EventTextDelta {
		n := len(t.text)
		// From here on ev's text is the turn's own: the delta the stream
		// gave may share its reader's buffer (sseStream).
		ev.Text = t.appendText(ev.Text)
		if !t.inRun {
			t.inRun, t.runStart = true, n
			t.turn.Events = append(t.turn.Events, *ev)
		}
		t.extendRun()
	} else {
		t.inRun = false
		t.turn.Events = append(t.turn.Events, *ev)
	}
	t.observe(ev, false)
}

// appendText adds text to the turn's text and returns the turn's own copy
// of it. textString does not copy: every event of a run shares the turn's
// text.
func (t *turnState) appendText(text string) string {
	n := len(t.text)
	t.text = append(t.text, text...)
	return t.textString()[n:]
}

// extendRun makes the run's event (the last recorded) hold the run's text so far.
func (t *turnState) extendRun() {
	t.turn.Events[len(t.turn.Events)-1].Text = t.textString()[t.runStart:]
}

// observe hands ev, which holds the turn's own strings, to the observers:
// a plain text delta to OnTextDelta when it is set, anything else to
// OnEvent as a copy of its own. plain says ev is known to be a plain delta.
func (t *turnState) observe(ev *StreamEvent, plain bool) {
	switch o := &t.s.opts; {
	case o.OnEvent == nil:
	case o.OnTextDelta != nil && (plain || ev.plainDelta()):
		t.s.emitText(ev.Text)
	default:
		observed := *ev // the observer gets its own copy
		t.s.emit(Event{Type: EventTypeChat, Chat: &observed})
	}
}

// continueRun takes ev when it is a text delta that continues the run of
// text deltas, carries a text and nothing else, and fits the turn's bound
// of text: it does for it what admit, record and round.add would, in one
// call and with no copy of the event — the path of nearly every delta. It
// says false, having done nothing, for any other event.
func (t *turnState) continueRun(r *round, ev *StreamEvent) bool {
	if !t.inRun || t.bytes+len(ev.Text) > t.s.opts.MaxTurnTextBytes || !ev.plainDelta() {
		return false
	}
	t.bytes += len(ev.Text)
	ev.Text = t.appendText(ev.Text) // the turn's own: ev's may share the stream's buffer
	t.extendRun()
	t.observe(ev, true)
	r.text = append(r.text, ev.Text...)
	return true
}

// systemPrompt resolves the system prompt once for a turn.
func (s *Session) systemPrompt(ctx context.Context) (sys string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = errs.New("the system prompt function panicked: ", errs.Text(p))
		}
	}()
	switch {
	case s.opts.SystemFunc != nil:
		return s.opts.SystemFunc(ctx)
	case s.opts.System != "":
		return s.opts.System, nil
	}
	if sp, ok := s.opts.Kit.(SystemPrompter); ok {
		return sp.SystemPrompt(ctx)
	}
	return "", nil
}

// appendHistory adds m to the history, with every known token redacted.
func (s *Session) appendHistory(m Message) {
	m = s.secrets.message(m)
	s.mu.Lock()
	s.history = append(s.history, m)
	s.mu.Unlock()
}
