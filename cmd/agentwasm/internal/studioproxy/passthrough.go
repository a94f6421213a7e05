// The pass-through: a page's own OpenAI chat completions request, forwarded
// to the upstream with the server's key, and the upstream's answer streamed
// back as it came.

package studioproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agentwasm/agentwasm/internal/jsonr"
	"github.com/agentwasm/agentwasm/internal/openai"
)

// PassthroughOptions configures a Passthrough.
type PassthroughOptions struct {
	// URL is the upstream's base URL, under the rules of OpenAIOptions.URL:
	// requests go to its chat completions endpoint.
	URL string
	// APIKey, when set, is sent upstream as "Authorization: Bearer
	// <APIKey>", to URL's origin only, and is redacted from the error
	// bodies passed back.
	APIKey string
	// Client sends the requests, as OpenAIOptions.Client: it is copied so
	// that a redirect is followed only within URL's origin.
	Client *http.Client
	// Model is the model a request naming none is sent with, and Models the
	// others a request may name: the policy of OpenAIOptions.Models. With
	// Model "" and Models empty, only a request naming no model is
	// forwarded.
	Model  string
	Models []string
	// HeaderTimeout bounds the wait for the upstream's response headers.
	// Zero means DefaultOpenAIHeaderTimeout; a negative value means no
	// bound.
	HeaderTimeout time.Duration
}

// Passthrough is an http.Handler that forwards a page's OpenAI chat
// completions request (POST …/chat/completions, the body an OpenAI client
// such as a session's direct transport sends) to the upstream, adding the
// server's key, and streams the upstream's answer back: its status,
// Content-Type and Retry-After, and its body byte for byte, flushed as it
// comes. A page on the dev server can so use a session's direct transport
// against its own origin (no CORS) while the key stays on the server.
//
// Nothing of the page's request but its body, Accept and its W3C trace
// context goes upstream: not its Authorization, not its cookies. The trace
// context (traceparent and tracestate) is passed on unchanged when well
// formed: a traceparent of the version-00 shape, and with it a tracestate
// of at most 512 bytes; anything else of it is dropped. The body must be a
// JSON object of at most limits.MaxChatRequestBytes; its "model" member,
// the only one read, must be allowed by PassthroughOptions.Model and
// Models; a body naming no model gets "model" set to Model when Model is
// set (the body is then re-encoded, its members' order not kept). An
// answer outside 2xx is read whole (at most openai.MaxErrorBodyBytes), the
// key redacted from it (and, when the bound cut it, any end that could
// begin the key left out), then sent. An answer in 2xx is not searched for
// the key: it is passed as it came.
//
// Refusals and failures are answered in the OpenAI error shape,
// {"error":{"message","type","code"}}: 400 invalid_request_error with code
// model_not_allowed or bad_request, 405 for another method, 404 for a path
// not ending in /chat/completions, 413 request_too_large, and for the
// upstream 502 (upstream_unreachable, upstream_redirected) or 504
// (upstream_stalled). A Passthrough is safe for concurrent use.
type Passthrough struct {
	upstream
	opts PassthroughOptions
}

// NewPassthrough returns a Passthrough for opts. It does not contact the
// upstream; a URL that cannot be used is reported to every request (502).
func NewPassthrough(opts PassthroughOptions) *Passthrough {
	p := &Passthrough{upstream: newUpstream(opts.URL, opts.APIKey, opts.Client), opts: opts}
	if p.opts.HeaderTimeout == 0 {
		p.opts.HeaderTimeout = DefaultOpenAIHeaderTimeout
	}
	return p
}

// Endpoint returns the chat completions URL requests are forwarded to,
// without user information or query, for logging; "" when
// PassthroughOptions.URL cannot be used.
func (p *Passthrough) Endpoint() string { return p.shown }

// ServeHTTP forwards one chat completions request.
func (p *Passthrough) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(strings.TrimRight(r.URL.Path, "/"), "/chat/completions") {
		writeOpenAIError(w, http.StatusNotFound, "invalid_request_error", "not_found", "no such endpoint: "+r.URL.Path+"; POST the request to …/chat/completions")
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		writeOpenAIError(w, http.StatusMethodNotAllowed, "invalid_request_error", "method_not_allowed", "POST the chat completions request as JSON")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeOpenAIError(w, http.StatusRequestEntityTooLarge, "invalid_request_error", "request_too_large",
				"the request is larger than "+strconv.Itoa(maxRequestBytes>>20)+" MiB")
			return
		}
		writeOpenAIError(w, http.StatusBadRequest, "invalid_request_error", "bad_request", "the request could not be read")
		return
	}
	body, err = p.checkBody(body)
	if err != nil {
		var e *Error
		errors.As(err, &e)
		writeOpenAIError(w, http.StatusBadRequest, "invalid_request_error", e.Code, e.Message)
		return
	}
	if p.urlErr != "" {
		writeOpenAIError(w, http.StatusBadGateway, "api_error", openai.CodeUnreachable, p.urlErr)
		return
	}
	p.forward(w, r, body)
}

// checkBody applies the model policy to a request body, and sets the
// default model in a body that names none. It returns the body to forward,
// or an *Error (code bad_request or model_not_allowed).
func (p *Passthrough) checkBody(body []byte) ([]byte, error) {
	var head struct {
		Model json.RawMessage `json:"model"`
	}
	if err := json.Unmarshal(body, &head); err != nil || bytes.TrimSpace(body)[0] != '{' {
		return nil, &Error{Code: "bad_request", Message: "the request is not a JSON object"}
	}
	// A member given twice is refused: this reads the last "model", and an
	// upstream that reads the first would run a model the policy never saw.
	if key, dup, _ := jsonr.DuplicateKey(body); dup {
		return nil, &Error{Code: "bad_request", Message: "the request has the member " + strconv.Quote(key) + " more than once; send each member once"}
	}
	model := ""
	if m := bytes.TrimSpace(head.Model); len(m) > 0 && string(m) != "null" {
		if json.Unmarshal(m, &model) != nil {
			return nil, &Error{Code: "bad_request", Message: "the request's model is not a string"}
		}
	}
	if msg := modelRefusal(model, p.opts.Model, p.opts.Models); msg != "" {
		return nil, &Error{Code: "model_not_allowed", Message: msg}
	}
	if model != "" || p.opts.Model == "" {
		return body, nil
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil {
		return nil, &Error{Code: "bad_request", Message: "the request is not a JSON object"}
	}
	members["model"], _ = json.Marshal(p.opts.Model)
	out, err := json.Marshal(members)
	if err != nil {
		return nil, &Error{Code: "bad_request", Message: "the request could not be encoded with the default model: " + err.Error()}
	}
	return out, nil
}

// forward sends body upstream and passes the answer back.
func (p *Passthrough) forward(w http.ResponseWriter, r *http.Request, body []byte) {
	reqCtx, cancel := context.WithCancelCause(r.Context())
	defer cancel(nil)
	up, err := http.NewRequestWithContext(reqCtx, http.MethodPost, p.endpoint, bytes.NewReader(body))
	if err != nil {
		writeOpenAIError(w, http.StatusBadGateway, "api_error", openai.CodeUnreachable, "could not build the request to "+p.shown+": "+p.red.String(err.Error()))
		return
	}
	up.Header.Set("Content-Type", "application/json")
	if a := r.Header.Get("Accept"); a != "" {
		up.Header.Set("Accept", a)
	}
	if p.opts.APIKey != "" {
		up.Header.Set("Authorization", "Bearer "+p.opts.APIKey)
	}
	traceContextOf(r.Header).set(up.Header)

	var headerTimer *time.Timer
	if p.opts.HeaderTimeout > 0 {
		headerTimer = time.AfterFunc(p.opts.HeaderTimeout, func() { cancel(errOAHeaderStall) })
	}
	resp, err := p.client.Do(up)
	if headerTimer != nil && !headerTimer.Stop() && err == nil {
		resp.Body.Close()
		err = errOAHeaderStall
	}
	if err != nil {
		if r.Context().Err() != nil {
			return // the page went away
		}
		e := sendFailure(reqCtx, err, p.shown, p.opts.HeaderTimeout)
		status := http.StatusBadGateway
		if e.Code == openai.CodeStalled {
			status = http.StatusGatewayTimeout
		}
		writeOpenAIError(w, status, "api_error", e.Code, p.red.String(e.Message))
		return
	}
	defer resp.Body.Close()

	for _, h := range []string{"Content-Type", "Retry-After"} {
		if v := resp.Header.Get(h); v != "" {
			w.Header().Set(h, v)
		}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, openai.MaxErrorBodyBytes+1))
		out := string(raw)
		if len(raw) > openai.MaxErrorBodyBytes {
			// Cut at the bound, the end that could begin the key (which
			// the bound may have cut) is left out too.
			out = out[:openai.MaxErrorBodyBytes]
			if p.red != nil {
				out, _ = p.red.cut(out, false)
			}
		} else {
			out = p.red.String(out)
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.WriteString(w, out)
		return
	}
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(resp.StatusCode)
	flush := func() {}
	if f, ok := w.(http.Flusher); ok {
		flush = f.Flush
	}
	flush()
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return // the page went away
			}
			flush()
		}
		if err != nil {
			return
		}
	}
}

// writeOpenAIError answers with an error in the OpenAI shape:
// {"error":{"message","type","code"}}.
func writeOpenAIError(w http.ResponseWriter, status int, typ, code, message string) {
	b, _ := json.Marshal(map[string]map[string]string{"error": {"message": message, "type": typ, "code": code}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
