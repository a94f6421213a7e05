// The OpenAI-compatible model: it forwards a chat request to an upstream's
// POST …/v1/chat/completions with stream: true and streams the answer back
// in the proxy's grammar. Everything about the OpenAI wire (the request
// body, the tool names, the chunks, what a failed status means) is
// internal/openai's; this file is the HTTP around it: the endpoint URL, the
// same-origin client, the header and stall bounds, the model policy and the
// key's redaction.

package studioproxy

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/internal/openai"
	"github.com/agentwasm/agentwasm/internal/sameorigin"
	"github.com/agentwasm/agentwasm/internal/wire"
)

// Default bounds of OpenAIOptions.
const (
	// DefaultOpenAIHeaderTimeout bounds the wait for the upstream's response
	// headers when OpenAIOptions.HeaderTimeout is zero.
	DefaultOpenAIHeaderTimeout = 30 * time.Second
	// DefaultOpenAIStallTimeout bounds the silence between two reads of the
	// upstream's body when OpenAIOptions.StallTimeout is zero.
	DefaultOpenAIStallTimeout = 60 * time.Second
)

// oaMaxEventBytes bounds one server-sent event of the upstream's stream, so
// a hostile upstream cannot exhaust memory (the translator bounds the tool
// calls' arguments: openai.MaxArgumentBytes).
const oaMaxEventBytes = 4 << 20

// oaMaxWholeBodyBytes bounds a whole (non-streamed) JSON answer, which an
// upstream that ignores stream: true sends instead of events.
const oaMaxWholeBodyBytes = 8 << 20

// oaAdvice names the dev server's settings in the messages of the
// translation's errors.
var oaAdvice = openai.Advice{Endpoint: "--upstream", Key: "AGENTWASM_API_KEY (or OPENAI_API_KEY)"}

// OpenAIOptions configures an OpenAI model.
type OpenAIOptions struct {
	// URL is the upstream's base URL, e.g. http://127.0.0.1:11434 or
	// https://host/prefix. "/v1/chat/completions" is appended to its path,
	// except that a path already ending in /chat/completions is used as it
	// is and one ending in /v1 only gets "/chat/completions". Its query, if
	// any, is kept.
	URL string
	// APIKey, when set, is sent as "Authorization: Bearer <APIKey>", to
	// URL's origin only (a redirect elsewhere is refused). It never appears
	// in anything forwarded to the page, even when the upstream echoes it
	// back: error messages, text, tool names, ids and arguments, the model
	// name. It is replaced with "[redacted]" as it is, JSON- or URL-escaped,
	// and with whitespace or line breaks between its characters; a piece of
	// streamed text that may be the start of the key is held back until the
	// next piece or the end decides.
	APIKey string
	// Model names the upstream model when the chat request names none.
	Model string
	// Models are the other models a chat request may name; the server, not
	// the page, decides what the key is spent on. A request's model "" means
	// Model, and Model itself is always allowed. A request naming a model
	// that is neither Model nor in Models ends with one error event, code
	// model_not_allowed, whose message lists the allowed models; nothing is
	// sent upstream. With Model "" and Models empty, only a request naming
	// no model is forwarded (the upstream then picks its default).
	Models []string
	// Client sends the requests. Nil means a client with no overall timeout
	// (the bounds below apply either way). The model sends through a copy of
	// it that follows a redirect only to URL's origin (scheme, host and
	// port), checked then by Client's own CheckRedirect if it has one; a
	// redirect to any other origin ends the answer with upstream_redirected
	// and nothing, key or body, is sent there. Client itself is not changed.
	Client *http.Client
	// HeaderTimeout bounds the wait for the upstream's response headers,
	// from the start of the request. Zero means
	// DefaultOpenAIHeaderTimeout; a negative value means no bound.
	HeaderTimeout time.Duration
	// StallTimeout bounds the silence between two reads of the upstream's
	// body. Zero means DefaultOpenAIStallTimeout; a negative value means no
	// bound.
	StallTimeout time.Duration
}

// OpenAI is a Model that forwards each chat request to an OpenAI-compatible
// chat completions endpoint and streams its answer back as events.
//
// Failures end the answer with one error event whose code says what went
// wrong: upstream_unauthorized (HTTP 401/403), upstream_not_found (404),
// upstream_rate_limited (429), upstream_unavailable (5xx), upstream_rejected
// (other statuses), upstream_not_openai (an HTML page, a stream of other
// events, or a first chunk that is not a chat completion chunk),
// upstream_unreachable (no connection),
// upstream_stalled (no headers within HeaderTimeout, or a body silent for
// StallTimeout), upstream_cut (the stream ended before the answer was
// complete), upstream_malformed (a later chunk that is not the expected
// JSON, or too large), upstream_error (an error object in the stream),
// upstream_redirected (a redirect to another origin, refused: the key is
// sent to the upstream's origin only), bad_request (a chat request that
// cannot be translated) and model_not_allowed (a chat request naming a
// model outside Model and Models; nothing is sent upstream). The codes are
// internal/openai's, the same a session's direct transport reports.
//
// Tool names outside ^[a-zA-Z0-9_-]{1,64}$, which many such upstreams
// reject, are renamed for the upstream and renamed back in the answer: each
// other character becomes '_' (studio.journey.publish_map is sent as
// studio_journey_publish_map), and a name that would then clash with
// another, or is empty, also gets '_' and eight hex digits of a hash of the
// original. The full scheme is at openai.ToolNames.
//
// An OpenAI is safe for concurrent use.
type OpenAI struct {
	upstream
	opts OpenAIOptions
}

// upstream is what the OpenAI model and the Passthrough know of the
// upstream: where to send, how it is shown, and its key's redactor.
type upstream struct {
	client   *http.Client // the caller's, copied to follow redirects within the upstream's origin only
	endpoint string       // the chat completions URL requests go to
	shown    string       // endpoint without user info or query, for messages
	urlErr   string       // why the URL cannot be used, "" when it can
	red      *redactor    // the key's, nil when there is none
}

// newUpstream resolves url's chat completions endpoint for the key.
func newUpstream(url, key string, client *http.Client) upstream {
	u := upstream{client: sameorigin.Client(client, nil), red: newRedactor(key)}
	u.endpoint, u.shown, u.urlErr = oaEndpoint(url)
	return u
}

// NewOpenAI returns an OpenAI model for opts. It does not contact the
// upstream; a URL that cannot be used is reported by every Stream.
func NewOpenAI(opts OpenAIOptions) *OpenAI {
	m := &OpenAI{upstream: newUpstream(opts.URL, opts.APIKey, opts.Client), opts: opts}
	if m.opts.HeaderTimeout == 0 {
		m.opts.HeaderTimeout = DefaultOpenAIHeaderTimeout
	}
	if m.opts.StallTimeout == 0 {
		m.opts.StallTimeout = DefaultOpenAIStallTimeout
	}
	return m
}

// Endpoint returns the chat completions URL the model posts to, without user
// information or query, for logging; "" when OpenAIOptions.URL cannot be
// used.
func (m *OpenAI) Endpoint() string { return m.shown }

// oaEndpoint resolves the chat completions URL from a base URL. It returns
// the URL to post to, the URL to show in messages, and why base cannot be
// used ("" when it can).
func oaEndpoint(base string) (endpoint, shown, problem string) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", "", "the upstream URL is not an http:// or https:// URL with a host; pass one like http://127.0.0.1:11434 to --upstream"
	}
	u.Path, u.RawPath, u.Fragment = openai.ChatPath(u.Path), "", ""
	endpoint = u.String()
	u.User, u.RawQuery, u.ForceQuery = nil, "", false
	return endpoint, u.String(), ""
}

// Stream implements Model: it posts req to the upstream and sends the
// translated answer to sink. Every failure but a cancelled ctx or a failing
// sink ends the answer with one error event (carrying latencyMs), after
// which Stream returns nil; when ctx is done it returns ctx.Err() without a
// terminal event, and when sink fails it returns the sink's error. The
// request carries the trace context of the chat request the Proxy
// received (traceparent and tracestate, when well formed: see
// Passthrough), and no other of its headers.
func (m *OpenAI) Stream(ctx context.Context, req *ChatRequest, sink Sink) error {
	start := time.Now()
	return m.finish(ctx, sink, start, m.stream(ctx, req, sink, start))
}

// stream does the work of Stream. It returns nil once a terminal event was
// sent, an *Error or *openai.Error for a failure still to be reported, a
// *oaSinkError when the sink failed, or ctx's error.
func (m *OpenAI) stream(ctx context.Context, req *ChatRequest, sink Sink, start time.Time) error {
	if m.urlErr != "" {
		return &Error{Code: openai.CodeUnreachable, Message: m.urlErr}
	}
	if req == nil {
		return &Error{Code: openai.CodeBadRequest, Message: "there is no chat request to forward"}
	}
	if err := m.checkModel(req.Model); err != nil {
		return err
	}
	body, names, err := openai.BuildRequest(req, m.opts.Model)
	if err != nil {
		return err
	}
	model := req.Model
	if model == "" {
		model = m.opts.Model
	}

	reqCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	hreq, err := http.NewRequestWithContext(reqCtx, http.MethodPost, m.endpoint, bytes.NewReader(body))
	if err != nil {
		return &Error{Code: openai.CodeUnreachable, Message: "could not build the request to " + m.shown + ": " + err.Error()}
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream")
	if m.opts.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+m.opts.APIKey)
	}
	traceContextFrom(ctx).set(hreq.Header)

	var headerTimer *time.Timer
	if m.opts.HeaderTimeout > 0 {
		headerTimer = time.AfterFunc(m.opts.HeaderTimeout, func() { cancel(errOAHeaderStall) })
	}
	resp, err := m.client.Do(hreq)
	if headerTimer != nil && !headerTimer.Stop() && err == nil {
		// The bound ran out just as the headers came: the request's context
		// is cancelled, so the body cannot be read. It is a stall.
		resp.Body.Close()
		return m.sendFailure(reqCtx, errOAHeaderStall)
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return m.sendFailure(reqCtx, err)
	}
	defer resp.Body.Close()

	wd := oaWatch(resp.Body, m.opts.StallTimeout, func() { cancel(errOABodyStall) })
	defer wd.stop()

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return m.statusError(ctx, resp, wd)
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt == "text/html" {
		return &Error{Code: openai.CodeNotOpenAI, Message: "the upstream at " + m.shown + " answered with an HTML page, not an event stream; check that --upstream names an OpenAI-compatible API (its base, such as http://127.0.0.1:11434/v1)"}
	}
	tr := m.translator(names, model, sink, start)
	return oaTranslate(ctx, wd, mt == "application/json", m.opts.StallTimeout, tr)
}

// translator returns the translator of one answer: its events go to sink
// under the grammar's frame names, messageStop with its latency since
// start, everything redacted with the key's redactor.
func (m *OpenAI) translator(names *openai.ToolNames, model string, sink Sink, start time.Time) *openai.Translator {
	return openai.NewTranslator(openai.TranslatorOptions{
		Names:  names,
		Model:  model,
		Redact: m.keyRedactor(),
		Advice: oaAdvice,
		Emit: func(ev wire.StreamEvent) error {
			name := oaEventNames[ev.Type]
			if name == "" {
				return &Error{Code: "model_error", Message: "the translation emitted an event of unknown type " + quote(ev.Type)}
			}
			if name == EventMessageStop {
				ev.LatencyMs = ms(time.Since(start))
			}
			ev.Type = "" // the frame's name is the authority (AppendFrame)
			if err := sink.Send(name, ev); err != nil {
				return &oaSinkError{err: err}
			}
			return nil
		},
	})
}

// oaEventNames maps the translator's event types to the grammar's frame
// names.
var oaEventNames = map[string]string{
	openai.EventMessageStart:  EventMessageStart,
	openai.EventTextDelta:     EventTextDelta,
	openai.EventToolCallStart: EventToolCallStart,
	openai.EventToolCallDelta: EventToolCallDelta,
	openai.EventToolCallStop:  EventToolCallStop,
	openai.EventMessageStop:   EventMessageStop,
}

// oaTranslate feeds the upstream's answer to tr: a whole JSON chat
// completion when whole, else an event stream. It returns nil once the
// terminal event was sent, a failure to report (after what redaction held
// back was sent), an *oaSinkError, or ctx's error. stall is the body's
// silence bound, for messages.
func oaTranslate(ctx context.Context, r io.Reader, whole bool, stall time.Duration, tr *openai.Translator) error {
	var err error
	if whole {
		err = oaReadWhole(ctx, r, stall, tr)
	} else {
		err = oaReadEvents(ctx, r, stall, tr)
	}
	var e *Error
	var oe *openai.Error
	if (errors.As(err, &e) || errors.As(err, &oe)) && ctx.Err() == nil {
		if ferr := tr.Flush(); ferr != nil {
			return ferr
		}
	}
	return err
}

// oaReadEvents reads an event stream into tr up to its end.
func oaReadEvents(ctx context.Context, r io.Reader, stall time.Duration, tr *openai.Translator) error {
	sr := bridge.NewSSEReader(r, oaMaxEventBytes)
	for {
		ev, err := sr.Next()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if errors.Is(err, bridge.ErrFrameTooLarge) {
				return &Error{Code: openai.CodeMalformed, Message: "the upstream sent an event larger than " + strconv.Itoa(oaMaxEventBytes>>20) + " MiB; is --upstream an OpenAI-compatible chat completions endpoint?"}
			}
			if tr.Finished() {
				// The answer was complete; only [DONE] (and perhaps the
				// usage) did not come.
				return tr.End()
			}
			if errors.Is(err, errOABodyStall) {
				return &Error{Code: openai.CodeStalled, Message: "the upstream's stream was silent for " + stall.String() + " in the middle of the answer; it may be overloaded, retry"}
			}
			msg := "the upstream's stream ended before the answer was complete"
			if err != io.EOF && !errors.Is(err, io.ErrUnexpectedEOF) {
				msg += " (" + err.Error() + ")"
			}
			return &Error{Code: openai.CodeCut, Message: msg + "; retry"}
		}
		done, err := tr.Event(ev.Event, ev.Data)
		if err != nil {
			return err
		}
		if done {
			return tr.End()
		}
	}
}

// oaReadWhole reads a whole JSON chat completion into tr, which an upstream
// that ignores stream: true sends instead of events.
func oaReadWhole(ctx context.Context, r io.Reader, stall time.Duration, tr *openai.Translator) error {
	body, err := io.ReadAll(io.LimitReader(r, oaMaxWholeBodyBytes+1))
	if ctx.Err() != nil {
		return ctx.Err()
	}
	switch {
	case errors.Is(err, errOABodyStall):
		return &Error{Code: openai.CodeStalled, Message: "the upstream's answer was silent for " + stall.String() + " before it was complete; it may be overloaded, retry"}
	case err != nil:
		return &Error{Code: openai.CodeCut, Message: "the upstream's answer ended before it was complete (" + err.Error() + "); retry"}
	case len(body) > oaMaxWholeBodyBytes:
		return &Error{Code: openai.CodeMalformed, Message: "the upstream's answer is larger than " + strconv.Itoa(oaMaxWholeBodyBytes>>20) + " MiB"}
	}
	if err := tr.Whole(body); err != nil {
		return err
	}
	return tr.End()
}

// checkModel refuses a request's model that the server does not allow.
func (m *OpenAI) checkModel(model string) error {
	if msg := modelRefusal(model, m.opts.Model, m.opts.Models); msg != "" {
		return &Error{Code: "model_not_allowed", Message: msg}
	}
	return nil
}

// modelRefusal says why a request may not name model, given the server's
// default model and the others it allows; "" when it may.
func modelRefusal(model, def string, others []string) string {
	if model == "" || model == def || slices.Contains(others, model) {
		return ""
	}
	var allowed []string
	if def != "" {
		allowed = append(allowed, quote(def))
	}
	for _, a := range others {
		if a != "" && a != def && !slices.Contains(allowed, quote(a)) {
			allowed = append(allowed, quote(a))
		}
	}
	msg := "the chat request names the model " + quote(oaTruncate(model, 100)) + ", which this server does not allow; "
	if len(allowed) == 0 {
		return msg + "it picks the model itself, so the page may name none"
	}
	return msg + "the page may pick only " + strings.Join(allowed, ", ") + " (or name none for the server's default)"
}

// finish reports err, the result of stream, as Stream's contract asks.
func (m *OpenAI) finish(ctx context.Context, sink Sink, start time.Time, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var se *oaSinkError
	if errors.As(err, &se) {
		return se.err
	}
	var (
		e  *Error
		oe *openai.Error
	)
	switch {
	case errors.As(err, &e):
	case errors.As(err, &oe):
		e = &Error{Code: oe.Code, Message: oe.Message}
	default:
		e = &Error{Code: openai.CodeError, Message: "forwarding to the upstream failed: " + err.Error()}
	}
	ev := Event{ErrorMessage: m.red.String(e.Message), ErrorCode: e.Code, LatencyMs: ms(time.Since(start))}
	return sink.Send(EventError, ev)
}

// Causes of a cancelled upstream request.
var (
	errOAHeaderStall = errors.New("no response headers in time")
	errOABodyStall   = errors.New("the body went silent")
)

// sendFailure classifies an error from sending the request.
func (m *OpenAI) sendFailure(reqCtx context.Context, err error) error {
	return sendFailure(reqCtx, err, m.shown, m.opts.HeaderTimeout)
}

// sendFailure classifies an error from sending a request to the upstream at
// shown, whose headers were awaited for at most headerTimeout.
func sendFailure(reqCtx context.Context, err error, shown string, headerTimeout time.Duration) *Error {
	if errors.Is(context.Cause(reqCtx), errOAHeaderStall) {
		return &Error{Code: openai.CodeStalled, Message: "the upstream at " + shown + " sent no response headers within " + headerTimeout.String() + "; check that it is running and not overloaded, then retry"}
	}
	var re *sameorigin.RedirectError
	if errors.As(err, &re) {
		return &Error{Code: openai.CodeRedirected, Message: "the upstream answered " + strconv.Itoa(re.Status) + " " + http.StatusText(re.Status) +
			" with a redirect to " + re.To + ", another origin than " + re.From + "; the API key is sent to " + re.From +
			" only, so the redirect was not followed; if the upstream now lives at " + re.To + ", pass its URL to --upstream"}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // its text repeats the URL, query included
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &Error{Code: openai.CodeStalled, Message: "the request to the upstream at " + shown + " timed out (" + err.Error() + "); check that it is running and not overloaded, then retry"}
	}
	return &Error{Code: openai.CodeUnreachable, Message: "could not reach the upstream at " + shown + " (" + err.Error() + "); check that it is running and that --upstream names it"}
}

// statusError reads a failed response's body and returns the *openai.Error
// for its status.
func (m *OpenAI) statusError(ctx context.Context, resp *http.Response, body io.Reader) error {
	raw, _ := io.ReadAll(io.LimitReader(body, openai.MaxErrorBodyBytes+1))
	if len(raw) > openai.MaxErrorBodyBytes {
		// Cut at the bound, the end that could begin the key (which the
		// bound may have cut, out of the redactor's sight) is left out too.
		raw = raw[:openai.MaxErrorBodyBytes]
		if m.red != nil {
			out, _ := m.red.cut(string(raw), false)
			raw = []byte(out)
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return openai.StatusError(openai.Failure{
		Status:     resp.StatusCode,
		Body:       raw,
		RetryAfter: resp.Header.Get("Retry-After"),
		Now:        time.Now(),
		Keyed:      m.opts.APIKey != "",
		Endpoint:   m.shown,
	}, oaAdvice, m.keyRedactor())
}

// keyRedactor returns the key's redactor for the translation: a nil
// interface, not a typed nil, when there is no key, so that text passes at
// no cost.
func (m *OpenAI) keyRedactor() openai.Redactor {
	if m.red == nil {
		return nil
	}
	return m.red
}

// oaTruncate cuts s to at most n runes, marking the cut with "…".
func oaTruncate(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "…"
		}
		i++
	}
	return s
}

// oaSinkError marks a failure of the sink, returned as it is.
type oaSinkError struct{ err error }

// Error says that sending to the client failed, and why.
func (e *oaSinkError) Error() string {
	return "sending the answer to the client failed: " + e.err.Error()
}

// oaWatchdog is a body reader that cancels the request when one Read waits
// longer than the stall bound; such a Read then fails with errOABodyStall.
// Only time spent inside Read counts, not time spent sending to the sink.
type oaWatchdog struct {
	r     io.Reader
	d     time.Duration
	t     *time.Timer // nil when there is no bound
	fired atomic.Bool
}

// oaWatch returns a watchdog over r that calls onStall when one Read waits
// longer than d (never when d <= 0).
func oaWatch(r io.Reader, d time.Duration, onStall func()) *oaWatchdog {
	w := &oaWatchdog{r: r, d: d}
	if d > 0 {
		w.t = time.AfterFunc(time.Hour, func() {
			w.fired.Store(true)
			onStall()
		})
		w.t.Stop()
	}
	return w
}

// Read reads from the body under the stall bound.
func (w *oaWatchdog) Read(p []byte) (int, error) {
	if w.t != nil {
		w.t.Reset(w.d)
	}
	n, err := w.r.Read(p)
	if w.t != nil {
		w.t.Stop()
	}
	if err != nil && w.fired.Load() {
		err = errOABodyStall
	}
	return n, err
}

// stop disarms the watchdog for good.
func (w *oaWatchdog) stop() {
	if w.t != nil {
		w.t.Stop()
	}
}
