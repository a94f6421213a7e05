// Package fakemcp is a fake MCP server for tests: an http.Handler speaking
// MCP's Streamable HTTP in the session era (initialize, Mcp-Session-Id,
// 2025-11-25), the stateless era (per-request _meta, server/discover,
// 2026-07-28) or both. It serves a tool list over pages, answers tools/call
// through a function, answers in JSON or as an event stream (with a
// notification before the answer), can expire sessions, and records every
// request. It can also send requests of its own to the client (pings, or a
// method the client does not handle) on its notification streams and inside
// an event-stream answer, record the client's answers to them, and end a
// session whose ping went unanswered, as a keep-alive server does.
package fakemcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentwasm/agentwasm/internal/jsonr"
	"github.com/agentwasm/agentwasm/internal/mcp"
	"github.com/agentwasm/agentwasm/internal/wire"
)

// Era selects which generation of the protocol the server speaks.
type Era int

const (
	// Session speaks only the session era: a request without a session id
	// other than initialize is refused with 400.
	Session Era = iota
	// Stateless speaks only the stateless era.
	Stateless
	// Dual speaks both: initialize selects the session era, a request with
	// per-request _meta the stateless era.
	Dual
)

// Protocol versions the fake speaks by default: the latest of each era.
const (
	StatelessVersion = mcp.LatestStatelessVersion
	SessionVersion   = mcp.LatestSessionVersion
)

// Messages of the fake's errors: the TypeScript SDK's words.
const (
	legacyNoSessionMessage  = "Bad Request: No valid session ID provided" // with mcp.ServerError
	headerMismatchTemplate  = "Header mismatch: %s"
	unsupportedVersionError = "Unsupported protocol version"
)

// DiscoverAnswer is how a session-era-only server answers server/discover.
type DiscoverAnswer int

const (
	// Discover400 answers 400 with a non-stateless JSON-RPC error (-32000),
	// as the TypeScript SDK does for a request without a session id.
	Discover400 DiscoverAnswer = iota
	// Discover404 answers 404 with no body.
	Discover404
	// Discover405 answers 405 with no body.
	Discover405
	// DiscoverMethodNotFound answers 200 with a "method not found" error.
	DiscoverMethodNotFound
)

// RPCError is a JSON-RPC error a CallFunc may return: the client's wire
// type.
type RPCError = wire.RPCError

// CallFunc answers tools/call: a result object, or an error answer. ctx is
// the HTTP request's context.
type CallFunc func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, *RPCError)

// Request is one HTTP request the server received.
type Request struct {
	HTTPMethod string
	Header     http.Header
	Body       []byte
	// RPC is the decoded JSON-RPC body (zero for a request without one).
	RPC RPCMessage
}

// RPCMessage is a decoded JSON-RPC message: a request, a notification, or
// (Result or Error, no Method) a response. It is the client's wire type,
// read as the client reads it (mcp.ReadMessage).
type RPCMessage = wire.RPCMessage

// isResponse reports whether m is a JSON-RPC response: an id and a result
// or an error, no method.
func isResponse(m RPCMessage) bool {
	return m.Method == "" && m.ID != nil && (m.Result != nil || m.Error != nil)
}

// Meta returns the _meta object of a request's params, or nil.
func Meta(m RPCMessage) map[string]json.RawMessage {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(m.Params, &p)
	return p.Meta
}

// Server is the fake MCP server. Set its fields before serving; use the
// methods while serving.
type Server struct {
	// Era is the generation the server speaks.
	Era Era
	// Discover is how a Session server answers server/discover.
	Discover DiscoverAnswer
	// Tools is the tool catalog, one JSON object per tool.
	Tools []json.RawMessage
	// PageSize splits Tools into pages; 0 serves one page.
	PageSize int
	// NextCursor, when set, gives the nextCursor answered to a tools/list
	// request that sent cursor ("" ends the walk). Pages are served by
	// cursor "page-N" (N from 1; "" is page 1); other cursors get no tools.
	NextCursor func(cursor string) string
	// Call answers tools/call; nil answers every call with an empty text
	// result.
	Call CallFunc
	// SSE answers every request as an event stream with a notification
	// frame (and a ping request with the same id) before the answer.
	SSE bool
	// NoSessionID makes a session-era server assign no session id.
	NoSessionID bool
	// NoStream refuses notification streams: a session-era GET answers
	// 405, a stateless-era subscriptions/listen a "method not found" error
	// with 404.
	NoStream bool

	// AnswerRequests are the methods of requests the server sends to the
	// client inside every event-stream answer to tools/call (SSE), after
	// the notification and before the response, each with an id of its
	// own (see SendRequest). In the session era the response then waits
	// until the client answered each of them, or AnswerWait passed; a
	// stateless-era server (which must not send them) does not wait.
	AnswerRequests []string
	// AnswerWait bounds how long a response waits for the answers to
	// AnswerRequests [5s].
	AnswerWait time.Duration
	// PingTimeout, when positive, ends the session a ping went to (from
	// SendRequest or AnswerRequests) when no answer to it arrived within
	// it: the session is forgotten, so later requests with its id get 404,
	// and its GET streams end. Zero never ends a session for a ping.
	PingTimeout time.Duration
	// AnswerStatus is the HTTP status a POST carrying the client's answer
	// to a server request gets [202 Accepted; 404 for an unknown session,
	// 400 in the stateless era, which has no client answers].
	AnswerStatus int
	// DropAnswers makes the server close the connection of a POST carrying
	// the client's answer without responding (the answer is still
	// recorded).
	DropAnswers bool

	mu        sync.Mutex
	requests  []Request
	sessions  map[string]bool
	nextSID   int
	expire    int
	streams   map[*stream]bool
	eventID   int
	serverReq map[string]*pending // by the id's JSON text
	sentReqs  []*pending          // in the order sent
	answers   []Answer
}

// Requests returns the requests received so far, apart from the client's
// answers to server requests (see Answers).
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// RPCMethods returns the JSON-RPC method of each POST received so far, and
// "DELETE" or "GET" for those requests.
func (s *Server) RPCMethods() []string {
	var out []string
	for _, r := range s.Requests() {
		if r.HTTPMethod != http.MethodPost {
			out = append(out, r.HTTPMethod)
			continue
		}
		out = append(out, r.RPC.Method)
	}
	return out
}

// ExpireSessions makes the next n requests that carry a session id end
// their session and answer 404.
func (s *Server) ExpireSessions(n int) {
	s.mu.Lock()
	s.expire += n
	s.mu.Unlock()
}

// LiveSessions returns how many sessions are open.
func (s *Server) LiveSessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rec := Request{HTTPMethod: r.Method, Header: r.Header.Clone(), Body: body}
	rec.RPC, _ = mcp.ReadMessage(body)
	msg := rec.RPC
	if r.Method == http.MethodPost && isResponse(msg) {
		s.serveAnswer(w, r, msg)
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, rec)
	s.mu.Unlock()

	switch r.Method {
	case http.MethodPost:
	case http.MethodGet:
		s.serveGet(w, r)
		return
	case http.MethodDelete:
		if s.Era == Stateless {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		sid := r.Header.Get(mcp.HeaderSessionID)
		s.mu.Lock()
		known := s.sessions[sid]
		delete(s.sessions, sid)
		s.mu.Unlock()
		if !known {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		w.WriteHeader(http.StatusNoContent)
		return
	default:
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	if !strings.Contains(r.Header.Get("Accept"), mcp.ContentTypeJSON) || !strings.Contains(r.Header.Get("Accept"), mcp.ContentTypeEventStream) {
		writeError(w, http.StatusNotAcceptable, nil, mcp.InvalidRequest, "Not Acceptable: accept both application/json and text/event-stream")
		return
	}
	if msg.Method == "" {
		writeError(w, http.StatusBadRequest, nil, mcp.ParseError, "Parse error")
		return
	}
	meta := Meta(msg)
	_, modern := meta[mcp.MetaProtocolVersion]
	switch {
	case s.Era == Stateless || (s.Era == Dual && modern):
		s.serveStateless(w, r, msg, meta)
	default:
		s.serveSession(w, r, msg)
	}
}

// serveStateless answers a 2026-07-28 request.
func (s *Server) serveStateless(w http.ResponseWriter, r *http.Request, msg RPCMessage, meta map[string]json.RawMessage) {
	if msg.Method == mcp.MethodInitialize {
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(msg.Params, &p)
		writeError(w, http.StatusBadRequest, msg.ID, mcp.UnsupportedProtocolVersion, unsupportedVersionError,
			mcp.UnsupportedVersionData([]string{StatelessVersion}, p.ProtocolVersion))
		return
	}
	var version string
	if json.Unmarshal(meta[mcp.MetaProtocolVersion], &version) != nil || meta[mcp.MetaClientCapabilities] == nil {
		writeError(w, http.StatusBadRequest, msg.ID, mcp.InvalidParams, "Invalid params: _meta lacks the protocol version or client capabilities")
		return
	}
	if h := r.Header.Get(mcp.HeaderProtocolVersion); h != version {
		writeError(w, http.StatusBadRequest, msg.ID, mcp.HeaderMismatch, fmt.Sprintf(headerMismatchTemplate, mcp.HeaderProtocolVersion))
		return
	}
	if version != StatelessVersion {
		writeError(w, http.StatusBadRequest, msg.ID, mcp.UnsupportedProtocolVersion, unsupportedVersionError,
			mcp.UnsupportedVersionData([]string{StatelessVersion}, version))
		return
	}
	if r.Header.Get(mcp.HeaderMethod) != msg.Method {
		writeError(w, http.StatusBadRequest, msg.ID, mcp.HeaderMismatch, fmt.Sprintf(headerMismatchTemplate, mcp.HeaderMethod))
		return
	}
	if msg.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if msg.Method == mcp.MethodToolsCall {
		var p struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(msg.Params, &p)
		if name, err := mcp.DecodeHeaderValue(r.Header.Get(mcp.HeaderName)); err != nil || name != p.Name {
			writeError(w, http.StatusBadRequest, msg.ID, mcp.HeaderMismatch, fmt.Sprintf(headerMismatchTemplate, mcp.HeaderName))
			return
		}
	}
	if msg.Method == mcp.MethodSubscriptionsListen {
		if s.NoStream {
			writeError(w, http.StatusNotFound, msg.ID, mcp.MethodNotFound, "Method not found")
			return
		}
		s.serveStream(w, r, msg.ID, "")
		return
	}
	if msg.Method == mcp.MethodServerDiscover {
		s.answer(w, r, msg.ID, json.RawMessage(`{"resultType":"`+mcp.ResultComplete+`","supportedVersions":["`+StatelessVersion+`"],"capabilities":{"tools":{"listChanged":true}},"ttlMs":0,"cacheScope":"private"}`), nil)
		return
	}
	s.serveMethod(w, r, msg)
}

// serveSession answers a session-era request.
func (s *Server) serveSession(w http.ResponseWriter, r *http.Request, msg RPCMessage) {
	sid := r.Header.Get(mcp.HeaderSessionID)
	if msg.Method == mcp.MethodInitialize {
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(msg.Params, &p)
		version := mcp.NegotiateSession(p.ProtocolVersion)
		if !s.NoSessionID {
			s.mu.Lock()
			s.nextSID++
			sid = "session-" + strconv.Itoa(s.nextSID)
			if s.sessions == nil {
				s.sessions = map[string]bool{}
			}
			s.sessions[sid] = true
			s.mu.Unlock()
			w.Header().Set(mcp.HeaderSessionID, sid)
		}
		s.answer(w, r, msg.ID, json.RawMessage(`{"protocolVersion":"`+version+`","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"fakemcp","version":"1.0.0"}}`), nil)
		return
	}
	if !s.NoSessionID {
		if sid == "" {
			if msg.Method == mcp.MethodServerDiscover {
				s.answerDiscover(w, msg)
				return
			}
			writeError(w, http.StatusBadRequest, nil, mcp.ServerError, legacyNoSessionMessage)
			return
		}
		s.mu.Lock()
		known := s.sessions[sid]
		if known && s.expire > 0 {
			s.expire--
			delete(s.sessions, sid)
			known = false
		}
		s.mu.Unlock()
		if !known {
			writeError(w, http.StatusNotFound, nil, mcp.SessionNotFound, "Session not found")
			return
		}
		if v := r.Header.Get(mcp.HeaderProtocolVersion); v == "" {
			writeError(w, http.StatusBadRequest, nil, mcp.InvalidRequest, "Bad Request: "+mcp.HeaderProtocolVersion+" header missing")
			return
		}
	} else if msg.Method == mcp.MethodServerDiscover {
		s.answerDiscover(w, msg)
		return
	}
	if msg.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	s.serveMethod(w, r, msg)
}

// answerDiscover answers server/discover as a session-era-only server.
func (s *Server) answerDiscover(w http.ResponseWriter, msg RPCMessage) {
	switch s.Discover {
	case Discover404:
		w.WriteHeader(http.StatusNotFound)
	case Discover405:
		w.WriteHeader(http.StatusMethodNotAllowed)
	case DiscoverMethodNotFound:
		writeError(w, http.StatusOK, msg.ID, mcp.MethodNotFound, "Method not found")
	default:
		writeError(w, http.StatusBadRequest, nil, mcp.ServerError, legacyNoSessionMessage)
	}
}

// serveMethod answers tools/list and tools/call in either era.
func (s *Server) serveMethod(w http.ResponseWriter, r *http.Request, msg RPCMessage) {
	switch msg.Method {
	case mcp.MethodToolsList:
		var p struct {
			Cursor string `json:"cursor"`
		}
		_ = json.Unmarshal(msg.Params, &p)
		s.answer(w, r, msg.ID, s.page(p.Cursor), nil)
	case mcp.MethodToolsCall:
		var p struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		_ = json.Unmarshal(msg.Params, &p)
		res, rerr := json.RawMessage(mcp.ToolResult("", nil, false)), (*RPCError)(nil)
		if s.Call != nil {
			res, rerr = s.Call(r.Context(), p.Name, p.Arguments)
		}
		s.answerWith(w, r, msg.ID, res, rerr, s.AnswerRequests)
	default:
		s.answer(w, r, msg.ID, nil, &RPCError{Code: mcp.MethodNotFound, Message: "Method not found"})
	}
}

// page returns the tools/list result after cursor ("" is the first page;
// cursor "page-N" is page N).
func (s *Server) page(cursor string) json.RawMessage {
	n := 1
	if c, ok := strings.CutPrefix(cursor, "page-"); ok {
		n, _ = strconv.Atoi(c)
	} else if cursor != "" {
		n = 0 // a cursor made up by NextCursor: no tools
	}
	size := s.PageSize
	if size <= 0 {
		size = max(len(s.Tools), 1)
	}
	from, to := max(min((n-1)*size, len(s.Tools)), 0), max(min(n*size, len(s.Tools)), 0)
	next := ""
	if to < len(s.Tools) {
		next = "page-" + strconv.Itoa(n+1)
	}
	if s.NextCursor != nil {
		next = s.NextCursor(cursor)
	}
	// Written by hand, not with encoding/json, which refuses a tool nested
	// deeper than 10000 levels: the fake serves what a test gives it.
	b := []byte(`{"tools":[`)
	for i, t := range s.Tools[from:to] {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, t...)
	}
	b = append(b, `],"ttlMs":0,"cacheScope":"private"`...)
	if next != "" {
		b = append(b, `,"nextCursor":`...)
		b = strconv.AppendQuote(b, next)
	}
	return append(b, '}')
}

// answer writes the response to request id: a result or an error, as JSON
// or as an event stream with a notification and a server request first.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, id, result []byte, rerr *RPCError) {
	s.answerWith(w, r, id, result, rerr, nil)
}

// answerWith is answer that, in an event stream, also sends a request with
// each of methods before the response and, in the session era, waits for
// the client's answers to them (at most AnswerWait).
func (s *Server) answerWith(w http.ResponseWriter, r *http.Request, id, result []byte, rerr *RPCError, methods []string) {
	var b []byte
	if rerr != nil {
		data, err := compact(rerr.Data)
		if err != nil {
			writeError(w, http.StatusInternalServerError, id, mcp.InternalError, "the fake could not encode its answer: "+err.Error())
			return
		}
		b = mcp.ErrorBody(id, rerr.Code, rerr.Message, data)
	} else {
		res, err := compact(result)
		if err != nil {
			writeError(w, http.StatusInternalServerError, id, mcp.InternalError, "the fake could not encode its answer: "+err.Error())
			return
		}
		if res == nil {
			res = []byte("null") // a CallFunc that answered nothing
		}
		b = mcp.ResultBody(id, res)
	}
	if !s.SSE {
		w.Header().Set("Content-Type", mcp.ContentTypeJSON)
		_, _ = w.Write(b)
		return
	}
	w.Header().Set("Content-Type", mcp.ContentTypeEventStream)
	fl, _ := w.(http.Flusher)
	progress := mcp.NotificationBody(mcp.NotificationProgress, []byte(`{"`+mcp.MetaProgressToken+`":1,"progress":1,"result":"not the answer"}`))
	serverReq := mcp.RequestBody(id, mcp.MethodPing, nil)
	other := mcp.ResultBody([]byte(`"other"`), []byte(`{"tools":[]}`))
	out := mcp.AppendEvent(nil, "", "e0", "") // a priming event
	out = mcp.AppendEvent(out, "message", "", string(progress))
	out = mcp.AppendEvent(out, "message", "", string(serverReq))
	out = append(out, ": keep-alive\n\n"...)
	out = mcp.AppendEvent(out, "", "", string(other))
	var sent []*pending
	for _, m := range methods {
		p := s.newRequest(m, r.Header.Get(mcp.HeaderSessionID), false)
		sent = append(sent, p)
		out = mcp.AppendEvent(out, "message", "", string(p.frame()))
	}
	_, _ = w.Write(out)
	if fl != nil {
		fl.Flush()
	}
	if len(sent) > 0 && s.Era != Stateless && r.Header.Get(mcp.HeaderProtocolVersion) != StatelessVersion {
		wait := s.AnswerWait
		if wait <= 0 {
			wait = 5 * time.Second
		}
		bound := time.NewTimer(wait)
		defer bound.Stop()
	waiting:
		for _, p := range sent {
			select {
			case <-p.done:
			case <-bound.C:
				break waiting
			case <-r.Context().Done():
				return
			}
		}
	}
	_, _ = w.Write(mcp.AppendEvent(nil, "message", "", string(b)))
}

// compact returns a JSON value compacted onto one line (nil stays nil), as
// an event's data line needs it. It checks the value with no bound on its
// nesting (encoding/json's Compact refuses more than 10000 levels).
func compact(v []byte) ([]byte, error) {
	if len(v) == 0 {
		return nil, nil
	}
	l := jsonr.Lexer{Data: v, MaxDepth: len(v)}
	l.SkipRecursive()
	l.Consumed()
	if err := l.Error(); err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(v))
	inString, escaped := false, false
	for _, c := range v {
		switch {
		case inString:
			inString = escaped || c != '"'
			escaped = !escaped && c == '\\'
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		case c == '"':
			inString = true
		}
		out = append(out, c)
	}
	return out, nil
}

// writeError writes a JSON-RPC error response with the status; id nil is
// written as null, data (JSON) only when given.
func writeError(w http.ResponseWriter, status int, id []byte, code int, message string, data ...[]byte) {
	var d []byte
	if len(data) > 0 {
		d = data[0]
	}
	w.Header().Set("Content-Type", mcp.ContentTypeJSON)
	w.WriteHeader(status)
	_, _ = w.Write(mcp.ErrorBody(id, code, message, d))
}
