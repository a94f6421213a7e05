// The OpenAI-compatible model: it forwards a chat request to an upstream's
// POST …/v1/chat/completions with stream: true and translates the streamed
// answer into the proxy's grammar. The request half is in
// openai_request.go, the answer half in openai_stream.go.

package studioproxy

import (
	"bytes"
	"context"
	"encoding/json"
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

	"github.com/agentwasm/agentwasm/internal/sameorigin"
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

// oaMaxEventBytes bounds one server-sent event of the upstream's stream, and
// the arguments of all the tool calls of one answer together, so a hostile
// upstream cannot exhaust memory.
const oaMaxEventBytes = 4 << 20

// oaMaxErrorBodyBytes bounds how much of a failed response's body is read
// for its error message.
const oaMaxErrorBodyBytes = 64 << 10

// oaMaxWholeBodyBytes bounds a whole (non-streamed) JSON answer, which an
// upstream that ignores stream: true sends instead of events.
const oaMaxWholeBodyBytes = 8 << 20

// oaMaxMessageChars is about how many characters of an upstream's own error
// message an error event quotes.
const oaMaxMessageChars = 300

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
// wrong: upstream_unauthorized (HTTP 401/403), upstream_rate_limited (429),
// upstream_unavailable (5xx), upstream_rejected (other statuses),
// upstream_unreachable (no connection), upstream_stalled (no headers within
// HeaderTimeout, or a body silent for StallTimeout), upstream_cut (the stream
// ended before the answer was complete), upstream_malformed (a chunk that is
// not the expected JSON, or too large), upstream_error (an error object in
// the stream), upstream_redirected (a redirect to another origin, refused:
// the key is sent to the upstream's origin only), bad_request (a chat
// request that cannot be translated) and model_not_allowed (a chat request
// naming a model outside Model and Models; nothing is sent upstream).
//
// Tool names outside ^[a-zA-Z0-9_-]{1,64}$, which many such upstreams
// reject, are renamed for the upstream and renamed back in the answer: each
// other character becomes '_' (studio.journey.publish_map is sent as
// studio_journey_publish_map), and a name that would then clash with
// another, or is empty, also gets '_' and eight hex digits of a hash of the
// original. The full scheme is at oaToolNames in openai_request.go.
//
// An OpenAI is safe for concurrent use.
type OpenAI struct {
	opts     OpenAIOptions
	client   *http.Client
	endpoint string    // the chat completions URL requests go to
	shown    string    // endpoint without user info or query, for messages
	urlErr   string    // why URL cannot be used, "" when it can
	red      *redactor // APIKey's, nil when there is none
}

// NewOpenAI returns an OpenAI model for opts. It does not contact the
// upstream; a URL that cannot be used is reported by every Stream.
func NewOpenAI(opts OpenAIOptions) *OpenAI {
	m := &OpenAI{opts: opts, client: sameorigin.Client(opts.Client, nil)}
	if m.opts.HeaderTimeout == 0 {
		m.opts.HeaderTimeout = DefaultOpenAIHeaderTimeout
	}
	if m.opts.StallTimeout == 0 {
		m.opts.StallTimeout = DefaultOpenAIStallTimeout
	}
	m.endpoint, m.shown, m.urlErr = oaEndpoint(opts.URL)
	m.red = newRedactor(opts.APIKey)
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
	p := strings.TrimRight(u.Path, "/")
	switch {
	case strings.HasSuffix(p, "/chat/completions"):
	case strings.HasSuffix(p, "/v1"):
		p += "/chat/completions"
	default:
		p += "/v1/chat/completions"
	}
	u.Path, u.RawPath, u.Fragment = p, "", ""
	endpoint = u.String()
	u.User, u.RawQuery, u.ForceQuery = nil, "", false
	return endpoint, u.String(), ""
}

// Stream implements Model: it posts req to the upstream and sends the
// translated answer to sink. Every failure but a cancelled ctx or a failing
// sink ends the answer with one error event (carrying latencyMs), after
// which Stream returns nil; when ctx is done it returns ctx.Err() without a
// terminal event, and when sink fails it returns the sink's error.
func (m *OpenAI) Stream(ctx context.Context, req *ChatRequest, sink Sink) error {
	start := time.Now()
	return m.finish(ctx, sink, start, m.stream(ctx, req, sink, start))
}

// stream does the work of Stream. It returns nil once a terminal event was
// sent, an *Error for a failure still to be reported, a *oaSinkError when
// the sink failed, or ctx's error.
func (m *OpenAI) stream(ctx context.Context, req *ChatRequest, sink Sink, start time.Time) error {
	if m.urlErr != "" {
		return &Error{Code: "upstream_unreachable", Message: m.urlErr}
	}
	if req == nil {
		return &Error{Code: "bad_request", Message: "there is no chat request to forward"}
	}
	if err := m.checkModel(req.Model); err != nil {
		return err
	}
	upReq, names, err := oaBuildRequest(req, m.opts.Model)
	if err != nil {
		return err
	}
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(upReq); err != nil {
		return &Error{Code: "bad_request", Message: "the chat request could not be encoded for the upstream: " + err.Error()}
	}

	reqCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	hreq, err := http.NewRequestWithContext(reqCtx, http.MethodPost, m.endpoint, &body)
	if err != nil {
		return &Error{Code: "upstream_unreachable", Message: "could not build the request to " + m.shown + ": " + err.Error()}
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream")
	if m.opts.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+m.opts.APIKey)
	}

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
	st := &oaStream{sink: sink, red: m.red, names: names, model: upReq.Model, start: start}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt == "text/html" {
		return &Error{Code: "upstream_rejected", Message: "the upstream at " + m.shown + " answered with an HTML page, not an event stream; check that --upstream names an OpenAI-compatible server"}
	}
	return st.translate(ctx, wd, mt == "application/json", m.opts.StallTimeout)
}

// checkModel refuses a request's model that the server does not allow.
func (m *OpenAI) checkModel(model string) error {
	if model == "" || model == m.opts.Model || slices.Contains(m.opts.Models, model) {
		return nil
	}
	var allowed []string
	if m.opts.Model != "" {
		allowed = append(allowed, quote(m.opts.Model))
	}
	for _, a := range m.opts.Models {
		if a != "" && a != m.opts.Model && !slices.Contains(allowed, quote(a)) {
			allowed = append(allowed, quote(a))
		}
	}
	msg := "the chat request names the model " + quote(oaTruncate(model, 100)) + ", which this server does not allow; "
	if len(allowed) == 0 {
		msg += "it picks the model itself, so the page may name none"
	} else {
		msg += "the page may pick only " + strings.Join(allowed, ", ") + " (or name none for the server's default)"
	}
	return &Error{Code: "model_not_allowed", Message: msg}
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
	var e *Error
	if !errors.As(err, &e) {
		e = &Error{Code: "upstream_error", Message: "forwarding to the upstream failed: " + err.Error()}
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
	if errors.Is(context.Cause(reqCtx), errOAHeaderStall) {
		return &Error{Code: "upstream_stalled", Message: "the upstream at " + m.shown + " sent no response headers within " + m.opts.HeaderTimeout.String() + "; check that it is running and not overloaded, then retry"}
	}
	var re *sameorigin.RedirectError
	if errors.As(err, &re) {
		return &Error{Code: "upstream_redirected", Message: "the upstream answered " + strconv.Itoa(re.Status) + " " + http.StatusText(re.Status) +
			" with a redirect to " + re.To + ", another origin than " + re.From + "; the API key is sent to " + re.From +
			" only, so the redirect was not followed; if the upstream now lives at " + re.To + ", pass its URL to --upstream"}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // its text repeats the URL, query included
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &Error{Code: "upstream_stalled", Message: "the request to the upstream at " + m.shown + " timed out (" + err.Error() + "); check that it is running and not overloaded, then retry"}
	}
	return &Error{Code: "upstream_unreachable", Message: "could not reach the upstream at " + m.shown + " (" + err.Error() + "); check that it is running and that --upstream names it"}
}

// statusError reads a failed response's body and returns the *Error for
// its status.
func (m *OpenAI) statusError(ctx context.Context, resp *http.Response, body io.Reader) error {
	raw, err := io.ReadAll(io.LimitReader(body, oaMaxErrorBodyBytes))
	if ctx.Err() != nil {
		return ctx.Err()
	}
	detail := ""
	if len(raw) > 0 || err == nil {
		detail = oaUpstreamMessage(raw, m.red)
	}
	if detail != "" {
		detail = ": " + detail
	}
	status := "HTTP " + strconv.Itoa(resp.StatusCode)
	switch code := resp.StatusCode; {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		what := "the upstream refused the API key (" + status + ")" + detail + "; check AGENTWASM_API_KEY (or OPENAI_API_KEY)"
		if m.opts.APIKey == "" {
			what = "the upstream wants an API key (" + status + ")" + detail + "; set AGENTWASM_API_KEY (or OPENAI_API_KEY)"
		}
		return &Error{Code: "upstream_unauthorized", Message: what}
	case code == http.StatusTooManyRequests:
		what := "the upstream is rate limiting requests (" + status + ")" + detail
		if s, ok := oaRetryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
			unit := " seconds"
			if s == 1 {
				unit = " second"
			}
			what += "; retry after " + strconv.FormatInt(s, 10) + unit
		} else {
			what += "; wait a little, then retry"
		}
		return &Error{Code: "upstream_rate_limited", Message: what}
	case code >= 500:
		return &Error{Code: "upstream_unavailable", Message: "the upstream failed (" + status + ")" + detail + "; retry later, or check the upstream server's logs"}
	default:
		return &Error{Code: "upstream_rejected", Message: "the upstream rejected the request (" + status + ")" + detail + "; check --upstream and the model name"}
	}
}

// oaRetryAfter parses a Retry-After header, delay-seconds or an HTTP date,
// into whole seconds from now.
func oaRetryAfter(h string, now time.Time) (int64, bool) {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0, false
	}
	if s, err := strconv.ParseInt(h, 10, 64); err == nil {
		return max(s, 0), true
	}
	t, err := http.ParseTime(h)
	if err != nil {
		return 0, false
	}
	d := t.Sub(now)
	return max(int64((d+time.Second-1)/time.Second), 0), true
}

// oaUpstreamMessage returns the message of an upstream's error body:
// error.message (or error as a string), message or detail of a JSON body,
// otherwise the body's text, with the key redacted (red) and then cut to
// about oaMaxMessageChars characters. It is "" for an empty body.
func oaUpstreamMessage(body []byte, red *redactor) string {
	msg := ""
	var v map[string]json.RawMessage
	if json.Unmarshal(body, &v) == nil {
		if e, ok := v["error"]; ok {
			msg = oaErrorText(e)
		}
		for _, k := range []string{"message", "detail"} {
			if msg == "" {
				msg = oaString(v[k])
			}
		}
	}
	if msg == "" {
		msg = string(bytes.ToValidUTF8(body, []byte("?")))
	}
	return oaTruncate(red.String(strings.Join(strings.Fields(msg), " ")), oaMaxMessageChars)
}

// oaErrorText returns the text of an error value: a string, or an object's
// message (its whole JSON text when it has none). It is "" for null.
func oaErrorText(e json.RawMessage) string {
	e = bytes.TrimSpace(e)
	if len(e) == 0 || string(e) == "null" {
		return ""
	}
	if s := oaString(e); s != "" {
		return s
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(e, &obj) == nil {
		if s := oaString(obj["message"]); s != "" {
			return s
		}
	}
	return string(e)
}

// oaString returns raw as a string when it is a JSON string, else "".
func oaString(raw json.RawMessage) string {
	var s string
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
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
