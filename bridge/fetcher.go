// The Fetcher seam: the request and response types every host implements.

package bridge

import (
	"context"
	"errors"
	"io"
	"strings"
)

// Header holds HTTP header fields by lower-case name. A response field that
// appeared more than once holds its values joined with ", ".
type Header map[string]string

// Get returns the value of the named field, matching the name without regard
// to case.
func (h Header) Get(name string) string {
	if v, ok := h[name]; ok {
		return v
	}
	return h[strings.ToLower(name)]
}

// Set stores value under the lower-cased name.
func (h Header) Set(name, value string) { h[strings.ToLower(name)] = value }

// Request is one HTTP request to send.
type Request struct {
	Method string // "GET", "POST", "DELETE"…; "" means "GET"
	URL    string // absolute, or relative to the host page where the host allows it (js)
	Header Header // lower-case names
	Body   []byte // nil for no body
}

// Response is the head of an HTTP response and its streaming body.
//
// Body must be closed by the caller. Reading it blocks until bytes arrive,
// the stream ends (io.EOF) or the context given to Fetch is cancelled, in
// which case Read returns an error for which errors.Is(err, ctx.Err()) holds.
// Close may be called while a Read is blocked in another goroutine; it aborts
// the stream and the Read returns.
type Response struct {
	Status int
	Header Header
	Body   io.ReadCloser
}

// A Fetcher sends HTTP requests. It is the only way agentwasm reaches the
// network.
//
// Fetch returns once the response head has arrived. A non-2xx status is not
// an error: the caller reads Status. An error means no response head was
// received; it wraps ctx.Err() when the context ended first, and is a
// *FetchError otherwise. Cancelling ctx aborts the request and any later
// read of the body.
//
// Implementations must be safe for concurrent use by multiple goroutines.
type Fetcher interface {
	Fetch(ctx context.Context, req *Request) (*Response, error)
}

// FetcherFunc adapts a function to the Fetcher interface.
type FetcherFunc func(ctx context.Context, req *Request) (*Response, error)

// Fetch calls f(ctx, req).
func (f FetcherFunc) Fetch(ctx context.Context, req *Request) (*Response, error) { return f(ctx, req) }

// FetchError reports a request that failed before a response head arrived:
// the network was unreachable, the host's fetch threw, or it answered with
// something that is not a response.
type FetchError struct {
	URL string
	Err error
}

// Error says which URL could not be fetched and why.
func (e *FetchError) Error() string { return "bridge: fetch " + e.URL + ": " + e.Err.Error() }

// Unwrap returns the underlying cause.
func (e *FetchError) Unwrap() error { return e.Err }

// ErrBodyClosed is returned by a body Read after the body was closed.
var ErrBodyClosed = errors.New("bridge: read on a closed response body")

// method returns the request method, defaulting to GET.
func (r *Request) method() string {
	if r.Method == "" {
		return "GET"
	}
	return r.Method
}

// ctxErr returns a body-read error for a finished context, keeping
// errors.Is(err, ctx.Err()) true.
func ctxErr(ctx context.Context) error {
	if cause := context.Cause(ctx); cause != nil && cause != ctx.Err() {
		return errors.Join(ctx.Err(), cause)
	}
	return ctx.Err()
}
