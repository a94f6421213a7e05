// Package sameorigintest starts the servers a redirect test needs (the
// origin a request is meant for, and the other origins a redirect may name)
// and records what each one received, so a test can prove that no request,
// credential or body reached the wrong one. It is for tests only.
package sameorigintest

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Seen records the requests a server received: how many, and each one's
// Authorization header and body. It is safe for concurrent use.
type Seen struct {
	mu   sync.Mutex
	n    int
	auth []string
	body []string
}

// Add records r, reading its body.
func (s *Seen) Add(r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	s.auth = append(s.auth, r.Header.Get("Authorization"))
	s.body = append(s.body, string(b))
}

// Get returns how many requests were recorded, and copies of their
// Authorization headers and bodies in the order they came.
func (s *Seen) Get() (n int, auth, body []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n, append([]string(nil), s.auth...), append([]string(nil), s.body...)
}

// Server starts a server on ln (a new loopback listener when nil; TLS when
// tls) that records every request in the returned Seen and answers it with
// answer. The test's cleanup closes it.
func Server(t testing.TB, ln net.Listener, tls bool, answer func(http.ResponseWriter)) (*httptest.Server, *Seen) {
	t.Helper()
	seen := &Seen{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Add(r)
		answer(w)
	}))
	if ln != nil {
		srv.Listener.Close()
		srv.Listener = ln
	}
	if tls {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv, seen
}
