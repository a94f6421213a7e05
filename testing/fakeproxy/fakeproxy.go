// Package fakeproxy is a scripted Studio AI proxy for tests: an http.Handler
// that answers each chat request with the next scripted reply and records
// every request it received.
package fakeproxy

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// ChatPath is where the proxy answers chat requests.
const ChatPath = "/api/v1/studio/ai/chat"

// Reply is one scripted answer to a chat request.
type Reply struct {
	Status int    // 0 means 200
	Body   string // the SSE stream (or error body)
	// Chunk splits Body into writes of this many bytes, flushed one by one;
	// 0 writes it whole.
	Chunk int
	// Hang answers nothing until the request is cancelled.
	Hang bool
	// HangAfterBody writes Body, then holds the stream open until the
	// request is cancelled.
	HangAfterBody bool
}

// Request is one request the proxy received.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// JSON decodes the request body into a generic value.
func (r Request) JSON() map[string]any {
	var v map[string]any
	_ = json.Unmarshal(r.Body, &v)
	return v
}

// Proxy is the scripted proxy. Its zero value answers 404 to everything.
type Proxy struct {
	mu       sync.Mutex
	replies  []Reply
	requests []Request
}

// New returns a proxy answering chat requests with replies in order; the
// last reply repeats.
func New(replies ...Reply) *Proxy { return &Proxy{replies: replies} }

// Requests returns a copy of the requests received so far.
func (p *Proxy) Requests() []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Request(nil), p.requests...)
}

// ServeHTTP answers one request.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	p.mu.Lock()
	p.requests = append(p.requests, Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	var reply Reply
	n := 0
	for _, q := range p.requests {
		if q.Path == ChatPath {
			n++
		}
	}
	if n > 0 && len(p.replies) > 0 {
		reply = p.replies[min(n, len(p.replies))-1]
	}
	p.mu.Unlock()
	if r.URL.Path != ChatPath || len(p.replies) == 0 {
		http.NotFound(w, r)
		return
	}
	if reply.Hang {
		<-r.Context().Done()
		return
	}
	status := reply.Status
	if status == 0 {
		status = http.StatusOK
		w.Header().Set("content-type", "text/event-stream")
	}
	w.WriteHeader(status)
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	flush()
	chunk := reply.Chunk
	if chunk <= 0 {
		chunk = len(reply.Body) + 1
	}
	for b := reply.Body; len(b) > 0; {
		n := min(chunk, len(b))
		if _, err := io.WriteString(w, b[:n]); err != nil {
			return
		}
		flush()
		b = b[n:]
	}
	if reply.HangAfterBody {
		<-r.Context().Done()
	}
}

// Frame is one SSE frame: event name and JSON data.
func Frame(event, data string) string {
	return "event: " + event + "\ndata: " + data + "\n\n"
}

// TextStream is a complete text-only answer: message_start, one text_delta
// per part, message_stop with stopReason endTurn.
func TextStream(parts ...string) string {
	var b strings.Builder
	b.WriteString(Frame("message_start", `{"type":"messageStart","model":"fake-model"}`))
	for _, p := range parts {
		t, _ := json.Marshal(p)
		b.WriteString(Frame("text_delta", fmt.Sprintf(`{"type":"textDelta","text":%s}`, t)))
	}
	b.WriteString(Frame("message_stop", `{"type":"messageStop","stopReason":"endTurn","promptTokens":12,"completionTokens":7,"latencyMs":42}`))
	return b.String()
}
