// Requests the server sends to the client (pings, or methods the client
// does not handle), and the client's answers to them: JSON-RPC responses
// POSTed to the MCP endpoint, as the session era (2025-03-26 … 2025-11-25)
// has them. The stateless era (2026-07-28) has neither: its servers must
// not send requests on a stream, its clients must not POST responses.

package fakemcp

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/agentwasm/agentwasm/internal/mcp"
)

// ServerRequest is a request the server sent to the client.
type ServerRequest struct {
	// ID is the request id as JSON text: the method, a dash and a
	// number counting the server's requests, e.g. "ping-1" (quotes
	// included).
	ID json.RawMessage
	// Method is the request's method, e.g. "ping".
	Method string
	// SessionID is the session the request went to ("" for none).
	SessionID string
	// OnStream reports whether the request went on a notification stream;
	// otherwise it went inside an event-stream answer to tools/call.
	OnStream bool
	// SentAt is when the server sent it.
	SentAt time.Time
	// Answer is the client's first answer to it; nil until one arrived.
	Answer *Answer
}

// Answer is a JSON-RPC response the client POSTed: its answer to a server
// request.
type Answer struct {
	// Header holds the POST's headers.
	Header http.Header
	// ID, Result and Error are the response's members (Result or Error is
	// nil).
	ID     json.RawMessage
	Result json.RawMessage
	Error  *RPCError
	// Status is the HTTP status the server answered the POST with; 0 when
	// it dropped the connection (DropAnswers).
	Status int
	// At is when the answer arrived.
	At time.Time
}

// pending is a sent server request; rec.Answer is guarded by Server.mu.
type pending struct {
	rec  ServerRequest
	done chan struct{} // closed, under Server.mu, when the first answer arrived
}

// frame returns the request as a JSON-RPC message.
func (p *pending) frame() []byte { return mcp.RequestBody(p.rec.ID, p.rec.Method, nil) }

// SendRequest sends a request with method from the server on every open
// notification stream (a session-era GET stream; a stateless-era
// subscriptions/listen stream too, although a 2026-07-28 server must not
// send requests there, so that a test can check the client ignores them),
// each with an id of its own, and returns the ids.
func (s *Server) SendRequest(method string) []json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []json.RawMessage
	for st := range s.streams {
		p := s.newRequestLocked(method, st.sid, true)
		st.send <- outgoing{req: p}
		ids = append(ids, p.rec.ID)
	}
	return ids
}

// newRequest records a server request about to be sent.
func (s *Server) newRequest(method, sid string, onStream bool) *pending {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.newRequestLocked(method, sid, onStream)
}

// newRequestLocked is newRequest with s.mu held. A ping to a session starts
// the PingTimeout.
func (s *Server) newRequestLocked(method, sid string, onStream bool) *pending {
	id, _ := json.Marshal(method + "-" + strconv.Itoa(len(s.sentReqs)+1))
	p := &pending{
		rec:  ServerRequest{ID: id, Method: method, SessionID: sid, OnStream: onStream, SentAt: time.Now()},
		done: make(chan struct{}),
	}
	if s.serverReq == nil {
		s.serverReq = map[string]*pending{}
	}
	s.serverReq[string(id)] = p
	s.sentReqs = append(s.sentReqs, p)
	if method == "ping" && sid != "" && s.PingTimeout > 0 {
		time.AfterFunc(s.PingTimeout, func() { s.expireUnanswered(p) })
	}
	return p
}

// expireUnanswered ends the session of ping p unless the client answered
// it: the session is forgotten and its GET streams end.
func (s *Server) expireUnanswered(p *pending) {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-p.done:
		return
	default:
	}
	delete(s.sessions, p.rec.SessionID)
	for st := range s.streams {
		if st.sid == p.rec.SessionID {
			close(st.end)
			delete(s.streams, st)
		}
	}
}

// ServerRequests returns the requests the server sent so far, in order,
// with the client's answers that arrived.
func (s *Server) ServerRequests() []ServerRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]ServerRequest, len(s.sentReqs))
	for i, p := range s.sentReqs {
		out[i] = p.rec
		if a := p.rec.Answer; a != nil {
			c := *a
			out[i].Answer = &c
		}
	}
	return out
}

// Answered returns a channel that is closed once the client's answer to
// server request id (JSON text, as SendRequest returns it) arrived,
// whatever the server then answered the POST with. For an id the server
// never sent, the channel is never closed.
func (s *Server) Answered(id json.RawMessage) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.serverReq[string(bytes.TrimSpace(id))]; p != nil {
		return p.done
	}
	return make(chan struct{})
}

// Answers returns every JSON-RPC response the client POSTed so far, also
// those to no request in ServerRequests (such as the ping that SSE sends
// with the id of the client's own request).
func (s *Server) Answers() []Answer {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Answer, len(s.answers))
	copy(out, s.answers)
	return out
}

// serveAnswer records the client's answer to a server request and accepts
// it with 202, or refuses it (AnswerStatus, DropAnswers, an unknown
// session, the stateless era).
func (s *Server) serveAnswer(w http.ResponseWriter, r *http.Request, msg RPCMessage) {
	sid := r.Header.Get(mcp.HeaderSessionID)
	status := http.StatusAccepted
	s.mu.Lock()
	switch {
	case s.DropAnswers:
		status = 0
	case s.AnswerStatus != 0:
		status = s.AnswerStatus
	case s.Era == Stateless:
		status = http.StatusBadRequest
	case !s.NoSessionID && !s.sessions[sid]:
		status = http.StatusNotFound
	}
	a := Answer{Header: r.Header.Clone(), ID: json.RawMessage(msg.ID), Result: json.RawMessage(msg.Result), Error: msg.Error, Status: status, At: time.Now()}
	s.answers = append(s.answers, a)
	if p := s.serverReq[string(bytes.TrimSpace(msg.ID))]; p != nil && p.rec.Answer == nil {
		p.rec.Answer = &a
		close(p.done)
	}
	s.mu.Unlock()
	switch {
	case status == 0:
		panic(http.ErrAbortHandler) // closes the connection without a response
	case status == http.StatusAccepted:
		w.WriteHeader(status)
	case status == http.StatusNotFound && s.AnswerStatus == 0:
		writeError(w, status, nil, mcp.SessionNotFound, "Session not found")
	case status == http.StatusBadRequest && s.AnswerStatus == 0:
		writeError(w, status, nil, mcp.InvalidRequest, "Bad Request: protocol version "+StatelessVersion+" has no client responses")
	default:
		writeError(w, status, nil, mcp.InternalError, "Internal error: the fake refuses the answer (AnswerStatus "+strconv.Itoa(status)+")")
	}
}
