// The connection limits of agentwasm dev: idle keep-alive connections are
// closed, headers must arrive in time and fit a cap, and a request body must
// arrive in time — without bounding how long an answer streams (a chat's
// event stream, an MCP GET stream).

package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// The defaults of the connection limits (devOptions fields of the same
// names).
const (
	defaultIdleTimeout       = 60 * time.Second
	defaultReadHeaderTimeout = 10 * time.Second
	defaultBodyTimeout       = 30 * time.Second
	defaultMaxHeaderBytes    = 64 << 10
)

// newDevServer returns the http.Server of h under o's connection limits
// (their defaults where o leaves them 0), its requests' contexts derived
// from ctx. It sets no ReadTimeout or WriteTimeout: those would also end
// long answer streams; a request body is bounded by boundBodyReads instead.
func newDevServer(ctx context.Context, o devOptions, h http.Handler) *http.Server {
	pick := func(d, def time.Duration) time.Duration {
		if d == 0 {
			return def
		}
		return d
	}
	maxHeader := o.MaxHeaderBytes
	if maxHeader == 0 {
		maxHeader = defaultMaxHeaderBytes
	}
	return &http.Server{
		Handler:           boundBodyReads(h, pick(o.BodyTimeout, defaultBodyTimeout)),
		IdleTimeout:       pick(o.IdleTimeout, defaultIdleTimeout),
		ReadHeaderTimeout: pick(o.ReadHeaderTimeout, defaultReadHeaderTimeout),
		MaxHeaderBytes:    maxHeader,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
}

// boundBodyReads gives every request with a body d to deliver it: the
// connection's read deadline is set before the handler runs and cleared as
// soon as the body has been read to its end, so a body slower
// than d fails the request while the answer, however long it streams, is
// not bounded. (http.Server.ReadTimeout bounds the whole request, and in Go
// releases before the server cleared the deadline for its read after the
// body, that read timing out ended long streams; clearing it here does not
// depend on the release.) d <= 0 means no bound.
func boundBodyReads(next http.Handler, d time.Duration) http.Handler {
	if d <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		if err := rc.SetReadDeadline(time.Now().Add(d)); err == nil {
			r.Body = &deadlineBody{ReadCloser: r.Body, clear: func() { _ = rc.SetReadDeadline(time.Time{}) }}
		}
		// A body the handler leaves unread keeps the deadline: the server
		// discards the rest under it, and the next request on the
		// connection sets its own deadlines.
		next.ServeHTTP(w, r)
	})
}

// deadlineBody clears the connection's read deadline once the body has
// ended.
type deadlineBody struct {
	io.ReadCloser
	once  sync.Once
	clear func()
}

// Read reads the body; at its end the deadline is cleared. After an error
// (the deadline passed) it stays, so the server's discarding of the rest
// ends too.
func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.once.Do(b.clear)
	}
	return n, err
}
