// The host side of the fetch imports: every request the module sends is
// served by an in-process http.Handler, with no sockets.

package wazerotest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// ABI results below zero (wasm/README.md).
const (
	codeWouldBlock = -1
	codeFailed     = -2
	codeBadHandle  = -3
	codeAborted    = -4
)

// BaseURL is what a relative request URL is resolved against before it
// reaches the handler.
const BaseURL = "http://agentwasm.test"

// virtualSlice is how long, in real time, a wait on a VirtualClock watches
// for the handler before it counts the whole wait bound as passed.
const virtualSlice = time.Millisecond

// exchange is one request in flight: the handler writes into it, the module
// reads from it.
type exchange struct {
	cancel context.CancelFunc

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced on every change
	status   int
	header   http.Header
	headSent bool
	body     bytes.Buffer
	done     bool
	failure  string
}

func newExchange() *exchange { return &exchange{changed: make(chan struct{})} }

// notify wakes every waiter; x.mu must be held.
func (x *exchange) notify() {
	close(x.changed)
	x.changed = make(chan struct{})
}

func (x *exchange) fail(msg string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.failure == "" && !x.done {
		x.failure = msg
		x.notify()
	}
}

func (x *exchange) finish() {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.headSent {
		x.status, x.header, x.headSent = http.StatusOK, http.Header{}, true
	}
	x.done = true
	x.notify()
}

// responseWriter streams a handler's response into its exchange.
type responseWriter struct {
	x      *exchange
	header http.Header
	wrote  bool
}

func (w *responseWriter) Header() http.Header { return w.header }

func (w *responseWriter) WriteHeader(code int) {
	if w.wrote {
		return
	}
	w.wrote = true
	w.x.mu.Lock()
	w.x.status, w.x.header, w.x.headSent = code, w.header.Clone(), true
	w.x.notify()
	w.x.mu.Unlock()
}

func (w *responseWriter) Write(p []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	w.x.mu.Lock()
	defer w.x.mu.Unlock()
	if w.x.done || w.x.failure != "" {
		return 0, http.ErrHandlerTimeout
	}
	w.x.body.Write(p)
	w.x.notify()
	return len(p), nil
}

// Flush does nothing: every write is visible to the module at once.
func (w *responseWriter) Flush() {}

// fetchHead is the JSON the module sends to fetch_start.
type fetchHead struct {
	Method  string            `json:"method"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

// start begins serving one request and returns its exchange.
func (i *Instance) start(head, body []byte) *exchange {
	x := newExchange()
	var h fetchHead
	if err := json.Unmarshal(head, &h); err != nil {
		x.failure = "wazerotest: malformed request head: " + err.Error()
		return x
	}
	target := h.URL
	if !strings.Contains(target, "://") {
		target = BaseURL + target
	}
	if _, err := url.Parse(target); err != nil {
		x.failure = "wazerotest: bad URL: " + err.Error()
		return x
	}
	if i.opts.Handler == nil {
		x.failure = "wazerotest: no Handler configured; nothing serves " + target
		return x
	}
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, h.Method, target, bytes.NewReader(body))
	if err != nil {
		cancel()
		x.failure = "wazerotest: " + err.Error()
		return x
	}
	x.cancel = cancel
	for k, v := range h.Headers {
		req.Header.Set(k, v)
	}
	req.RequestURI = req.URL.RequestURI()
	rw := &responseWriter{x: x, header: http.Header{}}
	go func() {
		defer func() {
			if p := recover(); p != nil {
				x.fail(fmt.Sprintf("wazerotest: the handler panicked: %v", p))
				return
			}
			x.finish()
		}()
		i.opts.Handler.ServeHTTP(rw, req)
	}()
	return x
}

// wait blocks until x changes, the wait bound passes, or ctx ends. It
// reports codeWouldBlock for a passed bound and codeAborted for ctx.
func (i *Instance) wait(ctx context.Context, changed <-chan struct{}, waitMs uint32) int32 {
	bound := time.Duration(waitMs) * time.Millisecond
	if i.clock.virtual() && bound > virtualSlice {
		t := time.NewTimer(virtualSlice)
		defer t.Stop()
		select {
		case <-changed:
			return 0
		case <-ctx.Done():
			return codeAborted
		case <-t.C:
			i.clock.Sleep(bound)
			return codeWouldBlock
		}
	}
	t := time.NewTimer(bound)
	defer t.Stop()
	select {
	case <-changed:
		return 0
	case <-ctx.Done():
		return codeAborted
	case <-t.C:
		return codeWouldBlock
	}
}

// head answers fetch_head: the response head as JSON, once it arrived.
func (i *Instance) head(ctx context.Context, x *exchange, waitMs uint32) ([]byte, int32) {
	for waited := false; ; waited = true {
		x.mu.Lock()
		switch {
		case x.headSent:
			hdr := make(map[string]string, len(x.header))
			for k, vs := range x.header {
				hdr[strings.ToLower(k)] = strings.Join(vs, ", ")
			}
			b, _ := json.Marshal(map[string]any{"status": x.status, "headers": hdr})
			x.mu.Unlock()
			return b, 0
		case x.failure != "":
			x.mu.Unlock()
			return nil, codeFailed
		}
		changed := x.changed
		x.mu.Unlock()
		if ctx.Err() != nil {
			return nil, codeAborted
		}
		if waited {
			return nil, codeWouldBlock
		}
		if code := i.wait(ctx, changed, waitMs); code != 0 {
			return nil, code
		}
	}
}

// read answers fetch_read: up to max body bytes, 0 at the end.
func (i *Instance) read(ctx context.Context, x *exchange, max int, waitMs uint32) ([]byte, int32) {
	for waited := false; ; waited = true {
		x.mu.Lock()
		switch {
		case x.body.Len() > 0:
			b := make([]byte, min(max, x.body.Len()))
			x.body.Read(b)
			x.mu.Unlock()
			return b, int32(len(b))
		case x.failure != "":
			x.mu.Unlock()
			return nil, codeFailed
		case x.done:
			x.mu.Unlock()
			return nil, 0
		}
		changed := x.changed
		x.mu.Unlock()
		if ctx.Err() != nil {
			return nil, codeAborted
		}
		if waited {
			return nil, codeWouldBlock
		}
		if code := i.wait(ctx, changed, waitMs); code != 0 {
			return nil, code
		}
	}
}

// close ends an exchange; the handler's request context is cancelled.
func (x *exchange) close() {
	if x.cancel != nil {
		x.cancel()
	}
	x.fail("wazerotest: the module closed the request")
}
