package fakeproxy

import (
	"io"
	"net/http"
	"sync"
)

// CapabilitiesPath is where the proxy answers capabilities requests.
const CapabilitiesPath = "/api/v1/studio/ai/capabilities"

// Capabilities answers GET CapabilitiesPath with scripted replies in order
// (the last repeats) and hands every other request to Next. It records the
// capabilities requests it received.
type Capabilities struct {
	Next http.Handler

	mu       sync.Mutex
	replies  []Reply
	requests []Request
}

// WithCapabilities returns a handler answering capabilities requests with
// replies (a Reply's Body is the JSON answer; Status 0 means 200) in front
// of next, usually a *Proxy.
func WithCapabilities(next http.Handler, replies ...Reply) *Capabilities {
	return &Capabilities{Next: next, replies: replies}
}

// Requests returns a copy of the capabilities requests received so far.
func (c *Capabilities) Requests() []Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Request(nil), c.requests...)
}

// ServeHTTP answers a capabilities request, or passes the request on.
func (c *Capabilities) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != CapabilitiesPath {
		if c.Next == nil {
			http.NotFound(w, r)
			return
		}
		c.Next.ServeHTTP(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	c.mu.Lock()
	c.requests = append(c.requests, Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	n := len(c.requests)
	var reply Reply
	if len(c.replies) > 0 {
		reply = c.replies[min(n, len(c.replies))-1]
	}
	c.mu.Unlock()
	if len(c.replies) == 0 {
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
		w.Header().Set("content-type", "application/json")
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, reply.Body)
}

// TokenGate answers 401 to every request whose authorization header is not
// "Bearer " + Token, and hands the others to Next. It records the requests
// it turned away.
type TokenGate struct {
	Next  http.Handler
	Token string

	mu       sync.Mutex
	rejected []Request
}

// RequireToken returns a TokenGate in front of next accepting only token.
func RequireToken(next http.Handler, token string) *TokenGate {
	return &TokenGate{Next: next, Token: token}
}

// Rejected returns a copy of the requests answered 401 so far.
func (g *TokenGate) Rejected() []Request {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]Request(nil), g.rejected...)
}

// ServeHTTP checks the token and answers 401 or passes the request on.
func (g *TokenGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("authorization") == "Bearer "+g.Token {
		g.Next.ServeHTTP(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	g.mu.Lock()
	g.rejected = append(g.rejected, Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	g.mu.Unlock()
	w.Header().Set("content-type", "application/json")
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = io.WriteString(w, `{"error":"unauthorized"}`)
}
