// Notification streams: the session era's GET stream and the stateless
// era's subscriptions/listen stream.

package fakemcp

import (
	"io"
	"net/http"
	"strconv"

	"github.com/agentwasm/agentwasm/internal/mcp"
)

// stream is one open notification stream.
type stream struct {
	send chan outgoing // messages to write
	end  chan struct{}
	sid  string // the session of a GET stream
}

// outgoing is a message the server sends on a stream: a request when req
// is set, else notifications/tools/list_changed.
type outgoing struct {
	req *pending
}

// NotifyToolsChanged sends notifications/tools/list_changed on every open
// stream and returns how many there were.
func (s *Server) NotifyToolsChanged() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	for st := range s.streams {
		st.send <- outgoing{}
	}
	return len(s.streams)
}

// OpenStreams returns how many notification streams are open.
func (s *Server) OpenStreams() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.streams)
}

// EndStreams ends every open stream: a stateless-era stream first answers
// subscriptions/listen (a graceful closure).
func (s *Server) EndStreams() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for st := range s.streams {
		close(st.end)
		delete(s.streams, st)
	}
}

// serveGet answers the session era's GET stream.
func (s *Server) serveGet(w http.ResponseWriter, r *http.Request) {
	if s.Era == Stateless || s.NoStream {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	sid := r.Header.Get(mcp.HeaderSessionID)
	if !s.NoSessionID {
		s.mu.Lock()
		known := s.sessions[sid]
		s.mu.Unlock()
		if !known {
			w.WriteHeader(http.StatusNotFound)
			return
		}
	}
	s.serveStream(w, r, nil, sid)
}

// serveStream holds a notification stream open until the client leaves or
// EndStreams. listenID is the subscriptions/listen request id (nil for a
// GET stream); sid is the session of a GET stream.
func (s *Server) serveStream(w http.ResponseWriter, r *http.Request, listenID []byte, sid string) {
	st := &stream{send: make(chan outgoing, 16), end: make(chan struct{}), sid: sid}
	s.mu.Lock()
	if s.streams == nil {
		s.streams = map[*stream]bool{}
	}
	s.streams[st] = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.streams, st)
		s.mu.Unlock()
	}()
	w.Header().Set("Content-Type", mcp.ContentTypeEventStream)
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	if listenID != nil {
		_, _ = w.Write(mcp.DataEvent(mcp.AcknowledgedNotification(listenID)))
	} else {
		_, _ = io.WriteString(w, ": open\n\n")
	}
	if fl != nil {
		fl.Flush()
	}
	write := func(out outgoing) {
		s.mu.Lock()
		s.eventID++
		id := "ev-" + strconv.Itoa(s.eventID)
		s.mu.Unlock()
		if listenID != nil {
			id = "" // a subscriptions/listen stream cannot be resumed
		}
		msg := mcp.ListChangedNotification(listenID)
		if out.req != nil {
			msg = out.req.frame()
		}
		_, _ = w.Write(mcp.AppendEvent(nil, "", id, string(msg)))
		if fl != nil {
			fl.Flush()
		}
	}
	for {
		select {
		case out := <-st.send:
			write(out)
		case <-st.end:
			// What was sent before the end goes out first.
			for len(st.send) > 0 {
				write(<-st.send)
			}
			if listenID != nil {
				// The answer to subscriptions/listen: a graceful closure.
				res := `{"` + mcp.KeyResultType + `":"` + mcp.ResultComplete + `","` + mcp.KeyMeta + `":` + string(mcp.SubscriptionMeta(listenID)) + `}`
				_, _ = w.Write(mcp.DataEvent(mcp.ResultBody(listenID, []byte(res))))
			}
			return
		case <-r.Context().Done():
			return
		}
	}
}

// DropSessions forgets every session, as a restarted server would: later
// requests with their ids get 404.
func (s *Server) DropSessions() {
	s.mu.Lock()
	clear(s.sessions)
	s.mu.Unlock()
}
