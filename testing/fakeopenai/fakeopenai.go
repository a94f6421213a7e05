// Package fakeopenai is an in-process OpenAI-compatible chat completions
// server for tests and for agentwasm dev: an http.Handler for
// POST …/v1/chat/completions that decodes the OpenAI request into the
// proxy's wire.ChatRequest, hands it to a model written in the proxy's
// grammar (the events of docs/PROTOCOL.md), and streams what the model says
// back as OpenAI chat.completion.chunk events, in the shape of one of the
// real servers. It can require a key, answer CORS, inject failures, and
// records every request it received.
package fakeopenai

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/agentwasm/agentwasm/internal/wire"
)

// ChatPath is the path the server answers; any path ending in it is
// answered too (/openai/v1/chat/completions, /api/v1/chat/completions, …).
const ChatPath = "/v1/chat/completions"

// Shape is a variant of real OpenAI-compatible servers' streams.
type Shape string

// The shapes.
const (
	// ShapeOpenAI streams as OpenAI does: tool calls in parts (the id, type
	// and name first, then argument fragments), a usage-only chunk
	// (choices: []) when the request asked stream_options.include_usage,
	// then data: [DONE]. It is the default.
	ShapeOpenAI Shape = "openai"
	// ShapeWholeCalls sends each tool call whole in one chunk, as Ollama
	// and some local servers do, and usage on the finishing chunk instead
	// of a usage-only chunk.
	ShapeWholeCalls Shape = "whole-calls"
	// ShapeNoDone is ShapeOpenAI without data: [DONE]: the stream just
	// ends after the finishing (or usage) chunk.
	ShapeNoDone Shape = "no-done"
)

// Event names of the proxy grammar an Answer emits (studioproxy's
// frames.go); the camelCase type names (messageStart, …) are accepted too.
const (
	EventMessageStart  = "message_start"
	EventTextDelta     = "text_delta"
	EventToolCallStart = "tool_call_start"
	EventToolCallDelta = "tool_call_delta"
	EventToolCallStop  = "tool_call_stop"
	EventMessageStop   = "message_stop"
	EventError         = "error"
)

// Answer answers one chat request by calling emit with proxy-grammar events,
// in order, ending with one message_stop or error; it has the shape of
// studioproxy's Model.Stream with a Sink, so a scripted Studio model drives
// the server. When it returns an error before a terminal event, the stream
// ends with an error chunk carrying the error's text. emit fails once the
// client has gone; Answer must return soon after ctx is done.
type Answer func(ctx context.Context, req *wire.ChatRequest, emit func(name string, ev wire.StreamEvent) error) error

// Options configure a Server.
type Options struct {
	// Answer writes the answers; nil answers every request with the text
	// "ok" and stop reason endTurn.
	Answer Answer
	// Shape is the stream's variant; "" means ShapeOpenAI.
	Shape Shape
	// APIKey, when set, is required as Authorization: Bearer <key>; a
	// request without it is answered 401 invalid_api_key.
	APIKey string
	// AllowOrigin, when set (an origin or "*"), answers CORS: preflights get
	// Access-Control-Allow-Origin, -Headers (authorization, content-type) and
	// -Methods, and every answer gets Access-Control-Allow-Origin. Empty
	// sends no CORS headers, so browsers refuse pages of other origins.
	AllowOrigin string
	// Fail, when set, is asked for every chat request with its number n
	// (from 1, counting the POSTs to the chat path that passed the key
	// check); a non-nil Failure is answered instead of the model.
	Fail func(n int) *Failure
	// Created is the chunks' "created" field (Unix seconds); 0 sends 0.
	Created int64
	// MaxBodyBytes, when positive, bounds a request's body: a larger one is
	// answered 413 request_too_large (and recorded without its body).
	MaxBodyBytes int64
	// NoRecord keeps no requests (Requests returns none): for a server that
	// runs long, such as agentwasm dev's.
	NoRecord bool
}

// Failure is an injected failure: an error status with its body and
// headers, an HTML page, a redirect, or a stream cut after some chunks.
type Failure struct {
	// Status is the answer's status (0 means 500), written with Header and
	// Body, unless CutAfter is set.
	Status int
	Header http.Header
	Body   string
	// CutAfter, when positive, answers a streaming request 200 and streams
	// normally, but stops after this many data lines, without
	// finish_reason or [DONE] (a request that did not ask to stream is
	// answered whole).
	CutAfter int
	// Abort, with CutAfter, closes the connection instead of ending the
	// body cleanly (the client sees an unexpected EOF).
	Abort bool
}

// ErrorStatus is a failure answering status with an OpenAI-style error body
// {"error":{"message","type","code"}} and headers as pairs (e.g.
// "Retry-After", "20").
func ErrorStatus(status int, typ, code, message string, kv ...string) *Failure {
	h := http.Header{"Content-Type": {"application/json"}}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return &Failure{Status: status, Header: h, Body: errorBody(message, typ, code)}
}

// HTMLPage is a failure answering status with an HTML page, as a gateway or
// a wrong URL does.
func HTMLPage(status int) *Failure {
	return &Failure{Status: status, Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}},
		Body: "<!doctype html><html><head><title>Not an API</title></head><body><h1>Welcome</h1><p>This is a web page, not an OpenAI-compatible API.</p></body></html>\n"}
}

// Redirect is a failure answering status (301, 302, 307, 308) with a
// Location.
func Redirect(status int, location string) *Failure {
	return &Failure{Status: status, Header: http.Header{"Location": {location}}}
}

// Cut is a failure that streams n data lines of the answer, then stops.
func Cut(n int) *Failure { return &Failure{CutAfter: n} }

// Request is one request the server received.
type Request struct {
	Method string
	Path   string
	Header http.Header // a copy
	Body   []byte
	// Chat is the decoded chat request; nil when the request was not a
	// chat POST or its body did not decode.
	Chat *wire.ChatRequest
	// Stream and IncludeUsage are the request's stream and
	// stream_options.include_usage.
	Stream       bool
	IncludeUsage bool
}

// Server is the fake server, an http.Handler. It needs no Close.
type Server struct {
	opts Options

	mu       sync.Mutex
	requests []Request
	chats    int
}

// New returns a server with opts.
func New(opts Options) *Server {
	if opts.Shape == "" {
		opts.Shape = ShapeOpenAI
	}
	return &Server{opts: opts}
}

// Start serves a new Server on an httptest.Server closed when t ends; its
// chat endpoint is the httptest server's URL + ChatPath.
func Start(t testing.TB, opts Options) (*Server, *httptest.Server) {
	t.Helper()
	s := New(opts)
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	return s, hs
}

// Requests returns the requests received so far, in order: copies, with
// their own headers and bodies (Chat is the request the Answer was given;
// do not change it).
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	for i, r := range s.requests {
		r.Header = r.Header.Clone()
		r.Body = append([]byte(nil), r.Body...)
		out[i] = r
	}
	return out
}

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rd := io.Reader(r.Body)
	if s.opts.MaxBodyBytes > 0 {
		rd = http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes)
	}
	body, readErr := io.ReadAll(rd)
	if readErr != nil {
		body = nil
	}
	rec := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	index := s.record(rec)
	h := w.Header()
	if s.opts.AllowOrigin != "" {
		h.Set("Access-Control-Allow-Origin", s.opts.AllowOrigin)
		if s.opts.AllowOrigin != "*" {
			h.Add("Vary", "Origin")
		}
	}
	if readErr != nil {
		var tooBig *http.MaxBytesError
		if errors.As(readErr, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, "invalid_request_error", "request_too_large", "the request body is larger than "+strconv.FormatInt(tooBig.Limit, 10)+" bytes")
			return
		}
		writeError(w, http.StatusBadRequest, "invalid_request_error", "invalid_request", "the request body could not be read")
		return
	}
	if !strings.HasSuffix(r.URL.Path, ChatPath) {
		writeError(w, http.StatusNotFound, "invalid_request_error", "not_found", "no such endpoint: "+r.URL.Path+"; chat completions are at "+ChatPath)
		return
	}
	if r.Method == http.MethodOptions && s.opts.AllowOrigin != "" {
		h.Set("Access-Control-Allow-Headers", "authorization, content-type")
		h.Set("Access-Control-Allow-Methods", "POST, OPTIONS")
		h.Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if r.Method != http.MethodPost {
		h.Set("Allow", "POST")
		writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "method_not_allowed", "use POST for "+ChatPath)
		return
	}
	if s.opts.APIKey != "" && r.Header.Get("Authorization") != "Bearer "+s.opts.APIKey {
		writeError(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key", "Incorrect API key provided. Send Authorization: Bearer <key> with the key this server was given.")
		return
	}
	s.mu.Lock()
	s.chats++
	n := s.chats
	s.mu.Unlock()
	var fail *Failure
	if s.opts.Fail != nil {
		fail = s.opts.Fail(n)
	}
	if fail != nil && fail.CutAfter <= 0 {
		for k, v := range fail.Header {
			h[k] = append([]string(nil), v...)
		}
		status := fail.Status
		if status == 0 {
			status = http.StatusInternalServerError
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, fail.Body)
		return
	}
	in, err := decodeRequest(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "invalid_request", err.Error())
		return
	}
	s.mu.Lock()
	if index >= 0 {
		s.requests[index].Chat = in.chat
		s.requests[index].Stream = in.stream
		s.requests[index].IncludeUsage = in.includeUsage
	}
	s.mu.Unlock()

	answer := s.opts.Answer
	if answer == nil {
		answer = okAnswer
	}
	if !in.stream {
		s.complete(w, r, in, n, answer)
		return
	}
	s.stream(w, r, in, n, answer, fail)
}

// record appends one request and returns its index (-1 under NoRecord).
func (s *Server) record(rec Request) int {
	if s.opts.NoRecord {
		return -1
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, rec)
	return len(s.requests) - 1
}

// okAnswer is the answer of a server without Options.Answer.
func okAnswer(_ context.Context, _ *wire.ChatRequest, emit func(string, wire.StreamEvent) error) error {
	if err := emit(EventMessageStart, wire.StreamEvent{}); err != nil {
		return err
	}
	if err := emit(EventTextDelta, wire.StreamEvent{Text: "ok"}); err != nil {
		return err
	}
	return emit(EventMessageStop, wire.StreamEvent{StopReason: "endTurn"})
}

// errorBody is an OpenAI-style error body.
func errorBody(message, typ, code string) string {
	b, _ := json.Marshal(map[string]apiError{"error": {Message: message, Type: typ, Code: code}})
	return string(b)
}

// writeError answers status with an OpenAI-style error body.
func writeError(w http.ResponseWriter, status int, typ, code, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, errorBody(message, typ, code))
}

// apiError is the error object of OpenAI's answers and error chunks.
type apiError struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    string `json:"code"`
}
