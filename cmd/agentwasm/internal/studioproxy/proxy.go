// The HTTP face: the capabilities and chat endpoints over a Model.

package studioproxy

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Paths of the two endpoints, relative to the base URL a session is given
// (mount the handler with http.StripPrefix("/api", …) for baseUrl "/api").
const (
	CapabilitiesPath = "/v1/studio/ai/capabilities"
	ChatPath         = "/v1/studio/ai/chat"
)

// Capabilities is the answer of GET CapabilitiesPath.
type Capabilities struct {
	Enabled         bool       `json:"enabled"`
	DefaultProvider string     `json:"defaultProvider,omitempty"`
	Providers       []Provider `json:"providers,omitempty"`
}

// Provider describes one model provider the proxy offers.
type Provider struct {
	Name         string   `json:"name"`
	Default      bool     `json:"default,omitempty"`
	ToolSupport  bool     `json:"toolSupport"`
	DefaultModel string   `json:"defaultModel,omitempty"`
	Models       []string `json:"models,omitempty"`
}

// Options configure a proxy.
type Options struct {
	// Model writes every answer. Required.
	Model Model
	// Capabilities is what the capabilities endpoint answers.
	Capabilities Capabilities
	// Log, when set, receives one line per chat request: its outcome and
	// duration (never a credential or message text).
	Log func(line string)
	// MaxConcurrent bounds the chat requests answered at once, each one a
	// call of Model (an upstream request with its key). 0 means
	// DefaultMaxConcurrent; a negative value means no bound. A chat request
	// past the bound is answered 429 with Retry-After and
	// {"error":{"code":"too_many_requests",...}} after its body is read and
	// before Model is called.
	MaxConcurrent int
}

// DefaultMaxConcurrent is the bound on chat requests answered at once when
// Options.MaxConcurrent is 0.
const DefaultMaxConcurrent = 8

// Proxy is the http.Handler of the two endpoints. It is safe for
// concurrent use.
type Proxy struct {
	opts  Options
	caps  []byte
	slots chan struct{} // one per chat being answered; nil: no bound
}

// New returns a proxy over opts.Model.
func New(opts Options) *Proxy {
	caps, _ := json.Marshal(opts.Capabilities) // plain data always marshals
	p := &Proxy{opts: opts, caps: caps}
	n := opts.MaxConcurrent
	if n == 0 {
		n = DefaultMaxConcurrent
	}
	if n > 0 {
		p.slots = make(chan struct{}, n)
	}
	return p
}

// slot takes one of the MaxConcurrent slots for a chat, or answers 429 with
// Retry-After and reports false when all are taken.
func (p *Proxy) slot(w http.ResponseWriter) (release func(), ok bool) {
	if p.slots == nil {
		return func() {}, true
	}
	select {
	case p.slots <- struct{}{}:
		return func() { <-p.slots }, true
	default:
		w.Header().Set("Retry-After", "1")
		writeJSONError(w, http.StatusTooManyRequests, "too_many_requests",
			"the proxy is answering "+strconv.Itoa(cap(p.slots))+" chat requests already, its bound; retry when one has ended (agentwasm dev --max-concurrent raises the bound)")
		if p.opts.Log != nil {
			p.opts.Log("chat: refused 429, " + strconv.Itoa(cap(p.slots)) + " already being answered")
		}
		return nil, false
	}
}

// Limit returns h bounded by the same MaxConcurrent slots as the proxy's
// chats (a pass-through to the same upstream spends the same key): a
// request past the bound is answered 429 with Retry-After, as a chat is.
func (p *Proxy) Limit(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		release, ok := p.slot(w)
		if !ok {
			return
		}
		defer release()
		h.ServeHTTP(w, r)
	})
}

// ServeHTTP answers GET CapabilitiesPath and POST ChatPath; anything else
// is 404 (another path) or 405 (another method); a chat past
// Options.MaxConcurrent is 429. A panic in the model ends that answer with
// an error event; the proxy goes on serving.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case CapabilitiesPath:
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET")
			writeJSONError(w, http.StatusMethodNotAllowed, "method_not_allowed", "GET the capabilities")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-cache") // not no-store: see chat
		_, _ = w.Write(p.caps)
	case ChatPath:
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			writeJSONError(w, http.StatusMethodNotAllowed, "method_not_allowed", "POST the chat request as JSON")
			return
		}
		p.chat(w, r)
	default:
		writeJSONError(w, http.StatusNotFound, "not_found", "no such endpoint: "+r.URL.Path)
	}
}

// chat answers one chat request as an event stream.
func (p *Proxy) chat(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeJSONError(w, http.StatusRequestEntityTooLarge, "too_large", "the chat request is larger than 8 MiB")
			return
		}
		writeJSONError(w, http.StatusBadRequest, "bad_request", "the chat request could not be read")
		return
	}
	req, err := ParseChatRequest(body)
	if err != nil {
		writeJSONError(w, http.StatusBadRequest, "bad_request", err.Error())
		return
	}
	release, ok := p.slot(w)
	if !ok {
		return
	}
	defer release()
	w.Header().Set("Content-Type", "text/event-stream")
	// no-cache, not no-store: Chromium reports a no-store answer that a page
	// reads through a stream reader as aborted (net::ERR_ABORTED) even when
	// it was read to its end (web/browser/no_abort.browser.test.mjs).
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	s := &guardSink{next: newFrameWriter(w)}
	err = runModel(r, p.opts.Model, req, s)
	outcome := "completed"
	switch {
	case s.terminal != "":
		outcome = s.terminal
	case r.Context().Err() != nil:
		outcome = "client went away"
	default:
		code, msg := "model_incomplete", "the model ended without finishing its answer"
		var e *Error
		if errors.As(err, &e) {
			code, msg = e.Code, e.Message
		} else if err != nil {
			code, msg = "model_error", err.Error()
		}
		_ = s.Send(EventError, Event{ErrorMessage: msg, ErrorCode: code, LatencyMs: ms(time.Since(start))})
		outcome = "error " + code
	}
	if p.opts.Log != nil {
		p.opts.Log("chat: " + strings.TrimSpace(outcome) + " in " + time.Since(start).Round(time.Millisecond).String())
	}
}

// runModel calls the model under recover, with the request's context
// carrying its well-formed trace context (traceparent, tracestate), which
// the OpenAI model passes on upstream.
func runModel(r *http.Request, m Model, req *ChatRequest, s Sink) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &Error{Code: "model_panic", Message: "the model failed while answering (a panic); the proxy goes on serving"}
		}
	}()
	return m.Stream(withTraceContext(r.Context(), traceContextOf(r.Header)), req, s)
}

// guardSink keeps the grammar: nothing after the terminal event, and it
// remembers which terminal event was sent.
type guardSink struct {
	mu       sync.Mutex
	next     Sink
	terminal string
}

// errAnswered is returned for an event sent after the terminal one.
var errAnswered = errors.New("studioproxy: the answer already ended")

// Send passes ev on unless the answer has ended.
func (g *guardSink) Send(name string, ev Event) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.terminal != "" {
		return errAnswered
	}
	if name == EventMessageStop {
		g.terminal = "completed (" + ev.StopReason + ")"
	} else if name == EventError {
		g.terminal = "error " + ev.ErrorCode
	}
	return g.next.Send(name, ev)
}

// writeJSONError answers a non-stream error as {"error":{code,message}}.
func writeJSONError(w http.ResponseWriter, status int, code, message string) {
	b, _ := json.Marshal(map[string]map[string]string{"error": {"code": code, "message": message}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// ms is a duration in milliseconds.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
