//go:build !agentwasm_nodirect

// The direct transport: each chat request posted straight to an
// OpenAI-compatible …/v1/chat/completions endpoint (Options.OpenAI), the
// answer's chunks translated into the proxy grammar's events by
// internal/openai, with the same bounds as the Studio AI proxy's stream.

package session

import (
	"context"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/internal/openai"
	"github.com/agentwasm/agentwasm/internal/wire"
)

// endpointAdvice names the endpoint's settings in the translation's error
// messages: the same words for Options.OpenAI and the js option model.
var endpointAdvice = openai.Advice{Endpoint: "the model's baseUrl", Key: "the model's apiKey"}

// corsRefused is what the js loader's fetch error says when the browser
// refused a cross-origin answer of a server that is up (web/agentwasm.mjs,
// crossOriginHint): the transport then ends the turn with openai.CodeCORS.
const corsRefused = "refused by CORS"

// maxWholeAnswerBytes bounds a whole (non-streamed) JSON answer, which an
// endpoint that ignores stream: true sends instead of events.
const maxWholeAnswerBytes = 8 << 20

// openaiTransport is the direct transport of one session.
type openaiTransport struct {
	s *Session
}

func (t openaiTransport) Stream(ctx context.Context, req *ChatRequest) (EventStream, error) {
	o := &t.s.opts
	body, names, err := openai.BuildRequest(chatRequestWire(req), "")
	if err != nil {
		return nil, endpointError(err)
	}
	url := openai.ChatPath(o.OpenAI.BaseURL)
	start := o.Clock.Now()
	gctx, g := newStreamGuard(ctx, o.Clock, o.StreamFirstByteTimeout, o.StreamIdleTimeout)
	var key TokenSource
	var sent *keySent
	if o.OpenAI.APIKey != nil {
		sent = &keySent{src: o.OpenAI.APIKey}
		key = sent
	}
	resp, err := t.s.send(gctx, "POST", url, body, "text/event-stream", g, key, endpointName)
	if err != nil {
		if ctx.Err() == nil && g.timedOut() != notFired {
			err = streamTimeout(o, g, endpointName)
		}
		g.release()
		var te *errTransport
		if errs.As(err, &te) && strings.Contains(te.msg, corsRefused) {
			te.code = openai.CodeCORS
		} else if te != nil && te.code == "" && strings.HasPrefix(te.msg, "Could not reach") {
			te.code = openai.CodeUnreachable
		}
		return nil, err
	}
	b := g.watch(resp.Body, true)
	if resp.Status < 200 || resp.Status > 299 {
		defer b.Close()
		detail, _ := io.ReadAll(io.LimitReader(b, openai.MaxErrorBodyBytes+1))
		if len(detail) > openai.MaxErrorBodyBytes {
			// Cut at the bound, the end that could begin a secret (which
			// the bound may have cut, out of the scrubber's sight) is left
			// out too.
			h := heldBack{s: t.s.secrets}
			detail = []byte(h.Write(string(detail[:openai.MaxErrorBodyBytes])))
		}
		if ctx.Err() != nil {
			return nil, errors.Join(context.Canceled, ctx.Err())
		}
		return nil, endpointError(openai.StatusError(openai.Failure{
			Status: resp.Status, Body: detail, RetryAfter: resp.Header["retry-after"], Now: o.Clock.Now(),
			Keyed: sent != nil && sent.key, Endpoint: url,
		}, endpointAdvice, scrubbing{t.s.secrets}))
	}
	st := &openaiStream{body: b, ctx: ctx, guard: g, opts: o, start: start}
	st.tr = openai.NewTranslator(openai.TranslatorOptions{Names: names, Model: req.Model, Emit: st.emit, Advice: endpointAdvice, Redact: scrubbing{t.s.secrets}})
	switch mediaType(resp.Header["content-type"]) {
	case "text/html":
		b.Close()
		return nil, endpointError(&openai.Error{Code: openai.CodeNotOpenAI, Message: "the endpoint at " + url +
			" answered with an HTML page, not an event stream; check that the model's baseUrl names an OpenAI-compatible API (its base, such as http://127.0.0.1:11434/v1)"})
	case "application/json":
		st.whole = true
	default:
		st.r = bridge.NewSSEReader(b, o.MaxFrameBytes)
	}
	return st, nil
}

// keySent passes on src's key and notes whether the last request carried
// one: a source that answers "" sends none, and a 401 then means a key is
// wanted, not that the one sent was refused.
type keySent struct {
	src TokenSource
	key bool
}

func (k *keySent) AccessToken(ctx context.Context, forceRefresh bool) (string, error) {
	tok, err := k.src.AccessToken(ctx, forceRefresh)
	k.key = err == nil && tok != ""
	return tok, err
}

// scrubbing hides the session's secrets, the key among them, in what the
// translation makes from what the endpoint sent: in whole strings (an error
// message above all) before they are cut to length, since a cut must not
// leave a part of a key that the scrubber, which sees only whole ones,
// would miss; and in streamed text and arguments across their pieces (see
// heldBack).
type scrubbing struct{ s *secrets }

func (r scrubbing) String(text string) string { return r.s.scrub(text) }

// NewStream returns a heldBack stream, or nil (the pieces as they come)
// while the session knows no secret.
func (r scrubbing) NewStream() openai.TextStream {
	if !r.s.known() {
		return nil
	}
	return &heldBack{s: r.s}
}

// heldBack scrubs a run of streamed text whose pieces may split a secret: a
// piece's end that could begin a secret is held back until the next piece
// (or Flush) decides, so an endpoint that echoes the key in two pieces
// still shows [redacted] in every event.
type heldBack struct {
	s    *secrets
	held string
}

func (h *heldBack) Write(piece string) string {
	t := h.s.scrub(h.held + piece)
	keep := 0
	if forms := h.s.forms.Load(); forms != nil {
		for _, f := range *forms {
			// The longest end of t that is a proper beginning of f.
			for i := max(0, len(t)-len(f)+1); i < len(t); i++ {
				if t[i] == f[0] && strings.HasPrefix(f, t[i:]) {
					keep = max(keep, len(t)-i)
					break
				}
			}
		}
	}
	h.held = t[len(t)-keep:]
	return t[:len(t)-keep]
}

func (h *heldBack) Flush() string {
	t := h.held
	h.held = ""
	return t
}

// mediaType returns a Content-Type's media type, lower case.
func mediaType(ct string) string {
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	return strings.ToLower(strings.TrimSpace(ct))
}

// endpointError returns the turn error for a failure of the translation: its
// code, and its message as a sentence.
func endpointError(err error) error {
	var e *openai.Error
	if !errs.As(err, &e) {
		return err
	}
	msg := e.Message
	if msg != "" && msg[0] >= 'a' && msg[0] <= 'z' {
		msg = string(msg[0]-'a'+'A') + msg[1:]
	}
	if !strings.HasSuffix(msg, ".") && !strings.HasSuffix(msg, "!") && !strings.HasSuffix(msg, "?") {
		msg += "."
	}
	return &errTransport{code: e.Code, msg: msg}
}

// openaiStream reads one answer: server-sent events (or one whole JSON
// completion) through the translator, whose events wait in queue.
type openaiStream struct {
	body    *guardedBody
	r       *bridge.SSEReader // nil for a whole answer
	whole   bool
	tr      *openai.Translator
	queue   []StreamEvent
	done    bool  // the translation ended: only the queue is left
	drained bool  // the body was read to its end after the translation ended (or must not be)
	err     error // the read's failure, returned once the queue is empty
	ctx     context.Context
	guard   *streamGuard
	opts    *Options
	start   time.Time // when the request was sent, for messageStop's latency
}

// emit queues one translated event.
func (st *openaiStream) emit(ev wire.StreamEvent) error {
	e := StreamEvent(ev) // the same members (codec_test.go)
	if e.Type == EventMessageStop {
		e.LatencyMs = float64(st.opts.Clock.Now().Sub(st.start).Microseconds()) / 1000
	}
	st.queue = append(st.queue, e)
	return nil
}

func (st *openaiStream) Next() (StreamEvent, error) {
	for len(st.queue) == 0 {
		if st.done {
			if st.err != nil {
				return StreamEvent{}, st.err
			}
			if !st.drained {
				// The answer ended well (its messageStop was read, so at
				// most maxBytesAfterStop more bytes are, see stopped): read
				// on to the body's end, so that the request completes
				// rather than being aborted.
				st.drained = true
				var buf [512]byte
				for {
					if _, err := st.body.Read(buf[:]); err != nil {
						break
					}
				}
			}
			return StreamEvent{}, io.EOF
		}
		if err := st.step(); err != nil {
			st.done, st.drained = true, true // a failed answer is not read on: Close aborts it
			if st.ctx.Err() == nil {
				_ = st.tr.Flush() // the text a split secret held back, before the end
			}
			var e *openai.Error
			if !errs.As(err, &e) {
				st.err = err
				continue
			}
			// The endpoint's own failure, in-band: as the proxy would
			// send it.
			te := endpointError(e).(*errTransport)
			st.queue = append(st.queue, StreamEvent{Type: EventError, ErrorCode: te.code, ErrorMessage: te.msg})
		}
	}
	ev := st.queue[0]
	st.queue = st.queue[1:]
	return ev, nil
}

// step reads one event (or the whole answer) into the translator.
func (st *openaiStream) step() error {
	if st.whole {
		st.done = true
		b, err := io.ReadAll(io.LimitReader(st.body, maxWholeAnswerBytes+1))
		if err != nil {
			return st.readFailure(err)
		}
		if len(b) > maxWholeAnswerBytes {
			return &openai.Error{Code: openai.CodeMalformed, Message: "the endpoint's answer is larger than 8 MiB"}
		}
		if err := st.tr.Whole(b); err != nil {
			return err
		}
		return st.tr.End()
	}
	frame, err := st.r.NextView()
	if err != nil {
		if st.tr.Finished() && st.ctx.Err() == nil && (errors.Is(err, io.EOF) || st.guard.timedOut() != notFired) {
			// The answer was complete; only [DONE] (or the usage) did not
			// come, or the endpoint kept the stream open after it.
			st.done = true
			return st.tr.End()
		}
		return st.readFailure(err)
	}
	done, err := st.tr.Event(frame.Event, frame.Data)
	if err != nil {
		return err
	}
	if done {
		st.done = true
		return st.tr.End()
	}
	return nil
}

// readFailure classifies a failed read of the answer, as the Studio
// stream's reader does.
func (st *openaiStream) readFailure(err error) error {
	switch {
	case st.ctx.Err() == nil && st.guard.timedOut() != notFired:
		return streamTimeout(st.opts, st.guard, endpointName)
	case errors.Is(err, bridge.ErrFrameTooLarge):
		return &errTransport{msg: "The model endpoint sent an event larger than the frame bound: " + err.Error()}
	case errors.Is(err, io.EOF), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err // a stream that ends before its end is truncated
	}
	return &errTransport{msg: "The model endpoint's stream failed: " + err.Error()}
}

func (st *openaiStream) Close() error { return st.body.Close() }

// stopped says the answer's messageStop was read: from now on at most
// maxBytesAfterStop more bytes are read.
func (st *openaiStream) stopped() { st.body.stop() }
