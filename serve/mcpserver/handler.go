//go:build !js && !wasip1

// The native Streamable HTTP transport of the MCP server: an http.Handler
// over the dispatcher for both eras, with DNS-rebinding protection (Host and
// Origin checks), a request size cap, and Content-Type/Accept checks. The
// wasm builds leave this file out: net/http costs megabytes there.

package mcpserver

import (
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/internal/mcp"
)

// HandlerOptions configure the HTTP handler.
type HandlerOptions struct {
	// MaxBodyBytes caps a request body [4 MiB]; a larger one is answered 413.
	MaxBodyBytes int64
	// AllowedOrigins are browser origins ("https://app.example.com") allowed
	// besides the request's own host and, on a loopback listener, loopback
	// origins. "*" allows any origin. A configured origin also gets CORS
	// answers (the preflight OPTIONS, Access-Control-Allow-Origin, and
	// Mcp-Session-Id exposed), so a page there can call the server.
	AllowedOrigins []string
	// AllowedHosts are Host values ("mcp.example.com:8080" or a bare host
	// name) accepted besides localhost, 127.0.0.1 and [::1]. When it is
	// empty, a loopback listener accepts only those loopback names and a
	// listener on another address accepts any Host; when it is set, every
	// listener accepts only the hosts listed (and loopback names), which
	// is the DNS-rebinding protection for a server on a LAN or public
	// address.
	AllowedHosts []string
}

// defaultMaxBodyBytes is the request cap when none is set.
const defaultMaxBodyBytes = 4 << 20

// NewHandler returns the Streamable HTTP handler of d: POST carries
// JSON-RPC and is answered with application/json — or, when the request
// sends notifications before its answer (progress of a tools/call that
// carried a progressToken) and the client's Accept admits
// text/event-stream, with an event stream: the notifications, then the
// answer as the last event. A stateless-era subscriptions/listen, when d
// offers ListChanged, is answered with an event stream of notifications.
// GET opens the session era's notification stream when d offers
// ListChanged, and is 405 otherwise; DELETE ends a session when d issues
// session ids. A full session table answers initialize 503 with
// Retry-After.
func NewHandler(d *Dispatcher, opts HandlerOptions) http.Handler {
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = defaultMaxBodyBytes
	}
	return &handler{d: d, opts: opts}
}

type handler struct {
	d    *Dispatcher
	opts HandlerOptions
}

// ServeHTTP answers one request; a panic becomes a 500 for that request.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if recover() != nil {
			writeRPCError(w, http.StatusInternalServerError, InternalError, "internal error")
		}
	}()
	if msg := h.forbidden(r); msg != "" {
		writeRPCError(w, http.StatusForbidden, InvalidRequest, msg)
		return
	}
	allow := "POST"
	if h.d.streamsSessionEra() {
		allow = "GET, POST"
	}
	if h.d.SessionsEnabled() {
		allow += ", DELETE"
	}
	if h.cors(w, r, allow) {
		return
	}
	switch {
	case r.Method == http.MethodPost:
		h.post(w, r)
	case r.Method == http.MethodDelete:
		h.delete(w, r)
	case r.Method == http.MethodGet && h.d.streamsSessionEra():
		h.get(w, r)
	default:
		w.Header().Set("Allow", allow)
		msg := "method not allowed: this server offers no event stream; POST JSON-RPC messages"
		if h.d.streamsSessionEra() {
			msg = "method not allowed: GET the event stream, POST JSON-RPC messages"
		}
		writeRPCError(w, http.StatusMethodNotAllowed, InvalidRequest, msg)
	}
}

// post answers a JSON-RPC POST.
func (h *handler) post(w http.ResponseWriter, r *http.Request) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != mcp.ContentTypeJSON {
		writeRPCError(w, http.StatusUnsupportedMediaType, InvalidRequest, "unsupported media type: POST a JSON-RPC message as application/json")
		return
	}
	if vs := r.Header.Values("Accept"); len(vs) > 0 && !accepts(vs, mcp.ContentTypeJSON, "application/*") {
		writeRPCError(w, http.StatusNotAcceptable, InvalidRequest, "not acceptable: this server answers application/json")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errs.As(err, &tooBig) {
			writeRPCError(w, http.StatusRequestEntityTooLarge, InvalidRequest, "request too large: the body exceeds the server's limit")
			return
		}
		writeRPCError(w, http.StatusBadRequest, ParseError, "parse error: the body could not be read")
		return
	}
	req := Request{
		Body:      body,
		Header:    func(name string) (string, bool) { v := r.Header.Values(name); return strings.Join(v, ","), len(v) > 0 },
		SessionID: r.Header.Get(mcp.HeaderSessionID),
	}
	var sse *sseAnswer
	if accepts(r.Header.Values("Accept"), mcp.ContentTypeEventStream, "text/*") {
		sse = &sseAnswer{w: w}
		req.Notify = sse.notify
	}
	resp := h.d.Handle(r.Context(), req)
	if sse != nil && sse.finish() {
		// The answer went to an event stream: it is its last event.
		if resp.Body != nil {
			_, _ = w.Write(mcp.DataEvent(resp.Body))
			sse.flush()
		}
		return
	}
	if resp.SessionID != "" {
		w.Header().Set(mcp.HeaderSessionID, resp.SessionID)
	}
	if resp.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(resp.RetryAfter))
	}
	if resp.Listen != nil {
		writeStream(w, r, resp.Listen)
		return
	}
	if resp.Body == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header().Set("Content-Type", mcp.ContentTypeJSON)
	status := resp.Status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	_, _ = w.Write(resp.Body)
}

// sseAnswer turns a POST's answer into an event stream when the dispatcher
// sends a notification before the answer.
type sseAnswer struct {
	w       http.ResponseWriter
	mu      sync.Mutex
	started bool // the stream's header went out
	done    bool // Handle returned: no more notifications
}

// notify writes one notification as an event, opening the stream first.
func (s *sseAnswer) notify(msg []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return
	}
	if !s.started {
		s.started = true
		h := s.w.Header()
		h.Set("Content-Type", mcp.ContentTypeEventStream)
		// no-cache, not no-store: Chromium reports a no-store answer read
		// through a stream reader as aborted even when read to its end.
		h.Set("Cache-Control", "no-cache")
		s.w.WriteHeader(http.StatusOK)
	}
	_, _ = s.w.Write(mcp.DataEvent(msg))
	s.flush()
}

// finish ends the notifications and reports whether the stream opened.
func (s *sseAnswer) finish() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done = true
	return s.started
}

// flush sends what was written.
func (s *sseAnswer) flush() {
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

// get opens the session era's notification stream.
func (h *handler) get(w http.ResponseWriter, r *http.Request) {
	if !accepts(r.Header.Values("Accept"), mcp.ContentTypeEventStream, "text/*") {
		writeRPCError(w, http.StatusNotAcceptable, InvalidRequest, "not acceptable: the stream is text/event-stream; send Accept: text/event-stream")
		return
	}
	l, e := h.d.ListenSession(r.Header.Get(mcp.HeaderSessionID))
	if e != nil {
		status := http.StatusBadRequest
		if e.Code == SessionNotFound {
			status = http.StatusNotFound
		}
		writeRPCError(w, status, e.Code, e.Message)
		return
	}
	writeStream(w, r, l)
}

// writeStream answers with an event stream of l's messages until the client
// goes or l is closed (its session ended). The events carry no ids: a
// reconnecting client cannot resume, and needs not (a list change is a
// state, and the client lists the tools again after reconnecting).
func writeStream(w http.ResponseWriter, r *http.Request, l *Listen) {
	defer l.Close()
	w.Header().Set("Content-Type", mcp.ContentTypeEventStream)
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	if first := l.First(); first != nil {
		_, _ = w.Write(mcp.DataEvent(first))
	} else {
		_, _ = io.WriteString(w, ": open\n\n")
	}
	flush()
	for {
		msg, err := l.Next(r.Context())
		if err != nil {
			return
		}
		if _, err := w.Write(mcp.DataEvent(msg)); err != nil {
			return
		}
		flush()
	}
}

// delete ends a session.
func (h *handler) delete(w http.ResponseWriter, r *http.Request) {
	if !h.d.SessionsEnabled() {
		w.Header().Set("Allow", "POST")
		writeRPCError(w, http.StatusMethodNotAllowed, InvalidRequest, "method not allowed: this server keeps no sessions")
		return
	}
	sid := r.Header.Get(mcp.HeaderSessionID)
	if sid == "" {
		writeRPCError(w, http.StatusBadRequest, InvalidRequest, "bad request: DELETE needs an "+mcp.HeaderSessionID+" header")
		return
	}
	if !h.d.EndSession(sid) {
		writeRPCError(w, http.StatusNotFound, SessionNotFound, "session not found: it ended or never existed")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// forbidden returns why a request is refused by the DNS-rebinding checks
// ("" when it passes): on a loopback listener the Host must be a loopback
// name (or allowed); a browser Origin must be the request's own host, a
// loopback origin on a loopback request, or allowed.
func (h *handler) forbidden(r *http.Request) string {
	hostName := hostOnly(r.Host)
	loopbackReq := isLoopbackName(hostName)
	if isLoopbackListener(r) && !loopbackReq && !h.hostAllowed(r.Host) {
		return "forbidden: Host " + quote(r.Host) + " is not served by this local server"
	}
	if len(h.opts.AllowedHosts) > 0 && !loopbackReq && !h.hostAllowed(r.Host) {
		// Hosts were named: on any listener, only those (and loopback
		// names) are served, so a rebound name is refused everywhere.
		return "forbidden: Host " + quote(r.Host) + " is not one of this server's AllowedHosts"
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return ""
	}
	if h.originConfigured(origin) {
		return ""
	}
	u, err := url.Parse(origin)
	if err == nil && u.Host != "" && (u.Scheme == "http" || u.Scheme == "https") {
		if strings.EqualFold(u.Host, r.Host) {
			return ""
		}
		if loopbackReq && isLoopbackName(u.Hostname()) {
			return ""
		}
	}
	return "forbidden: Origin " + quote(origin) + " may not call this server"
}

// cors adds the CORS headers a browser page of a configured origin
// (AllowedOrigins) needs to read the answers, and answers its preflight
// OPTIONS (it reports whether it did). A JSON POST from another origin is
// always preflighted, so without this a configured origin could not call at
// all. Same-origin pages need no CORS; other loopback origins get none.
func (h *handler) cors(w http.ResponseWriter, r *http.Request, allow string) bool {
	origin := r.Header.Get("Origin")
	if origin == "" || !h.originConfigured(origin) {
		return false
	}
	hd := w.Header()
	hd.Set("Access-Control-Allow-Origin", origin)
	hd.Add("Vary", "Origin")
	hd.Set("Access-Control-Expose-Headers", mcp.HeaderSessionID)
	if r.Method != http.MethodOptions || r.Header.Get("Access-Control-Request-Method") == "" {
		return false
	}
	hd.Set("Access-Control-Allow-Methods", allow)
	if req := r.Header.Values("Access-Control-Request-Headers"); len(req) > 0 {
		// Mcp-Param-* names depend on the tool: allow what the page asks
		// (traceparent and tracestate among them, for a traced page).
		hd.Set("Access-Control-Allow-Headers", strings.Join(req, ", "))
	}
	hd.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
	return true
}

// originConfigured reports whether origin is in AllowedOrigins (or "*" is).
func (h *handler) originConfigured(origin string) bool {
	for _, a := range h.opts.AllowedOrigins {
		if a == "*" || strings.EqualFold(strings.TrimRight(a, "/"), origin) {
			return true
		}
	}
	return false
}

// hostAllowed reports whether host (with or without port) is configured.
func (h *handler) hostAllowed(host string) bool {
	for _, a := range h.opts.AllowedHosts {
		if strings.EqualFold(a, host) || strings.EqualFold(a, hostOnly(host)) {
			return true
		}
	}
	return false
}

// isLoopbackListener reports whether the request came in on a loopback
// address.
func isLoopbackListener(r *http.Request) bool {
	a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || a == nil {
		return false
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		host = a.String()
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// hostOnly strips the port of a Host value.
func hostOnly(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		return h
	}
	return strings.Trim(host, "[]")
}

// isLoopbackName reports whether a host name is loopback.
func isLoopbackName(h string) bool {
	h = strings.ToLower(strings.Trim(h, "[]"))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// accepts reports whether the Accept values allow one of types (or */*).
func accepts(values []string, types ...string) bool {
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err == nil && (mt == "*/*" || slices.Contains(types, mt)) {
				return true
			}
		}
	}
	return false
}

// writeRPCError answers with a JSON-RPC error body (id null).
func writeRPCError(w http.ResponseWriter, status, code int, message string) {
	w.Header().Set("Content-Type", mcp.ContentTypeJSON)
	w.WriteHeader(status)
	_, _ = w.Write(mcp.ErrorBody(nil, code, message, nil))
}
