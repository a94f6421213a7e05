// Notification streams: the session era's GET stream and the stateless
// era's subscriptions/listen stream.

package fakemcp

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// stream is one open notification stream.
type stream struct {
	send chan outgoing // messages to write
	end  chan struct{}
	sid  string // the session of a GET stream
}

// outgoing is a message the server sends on a stream: a notification, or
// a request when req is set.
type outgoing struct {
	method string
	req    *pending
}

// NotifyToolsChanged sends notifications/tools/list_changed on every open
// stream and returns how many there were.
func (s *Server) NotifyToolsChanged() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	for st := range s.streams {
		st.send <- outgoing{method: "notifications/tools/list_changed"}
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
	sid := r.Header.Get("Mcp-Session-Id")
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
func (s *Server) serveStream(w http.ResponseWriter, r *http.Request, listenID json.RawMessage, sid string) {
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
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	meta := ""
	if listenID != nil {
		meta = `"_meta":{"io.modelcontextprotocol/subscriptionId":` + string(listenID) + `}`
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\",\"params\":{%s,\"notifications\":{\"toolsListChanged\":true}}}\n\n", meta)
	} else {
		fmt.Fprint(w, ": open\n\n")
	}
	if fl != nil {
		fl.Flush()
	}
	write := func(out outgoing) {
		s.mu.Lock()
		s.eventID++
		id := "ev-" + strconv.Itoa(s.eventID)
		s.mu.Unlock()
		if listenID == nil {
			fmt.Fprintf(w, "id: %s\n", id)
		}
		if out.req != nil {
			fmt.Fprintf(w, "data: %s\n\n", out.req.frame())
		} else {
			params := ""
			if meta != "" {
				params = `,"params":{` + meta + `}`
			}
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"method\":%q%s}\n\n", out.method, params)
		}
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
				fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"resultType\":\"complete\",%s}}\n\n", listenID, meta)
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
