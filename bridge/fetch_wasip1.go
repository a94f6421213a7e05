//go:build wasip1

// The wasip1 Fetcher: requests go out through the host imports documented in
// wasm/README.md. Every wait is bounded so that one silent stream never
// stalls the module's other goroutines.

package bridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"unsafe"

	"github.com/agentwasm/agentwasm/internal/wire"
)

// Results of the fetch imports below zero.
const (
	hostWouldBlock = -1 // nothing yet; call again
	hostFailed     = -2 // the request failed; fetch_error says why
	hostBadHandle  = -3 // no such handle
	hostAborted    = -4 // the host wants the current call stopped
)

// HostWaitMs is the wait bound, in milliseconds, passed to every fetch_head
// and fetch_read: the longest the host may block the module before answering
// "would block". Between waits the module's other goroutines run.
const HostWaitMs = 10

//go:wasmimport agentwasm fetch_start
func hostFetchStart(head unsafe.Pointer, headLen uint32, body unsafe.Pointer, bodyLen uint32) int32

//go:wasmimport agentwasm fetch_head
func hostFetchHead(handle int32, buf unsafe.Pointer, bufCap uint32, waitMs uint32) int32

//go:wasmimport agentwasm fetch_read
func hostFetchRead(handle int32, buf unsafe.Pointer, bufCap uint32, waitMs uint32) int32

//go:wasmimport agentwasm fetch_error
func hostFetchError(handle int32, buf unsafe.Pointer, bufCap uint32) int32

//go:wasmimport agentwasm fetch_close
func hostFetchClose(handle int32)

// ErrHostAborted is returned when the host asked the module to stop the
// current call. errors.Is(err, context.Canceled) holds for it.
var ErrHostAborted = fmt.Errorf("bridge: the host aborted the call: %w", context.Canceled)

// hostFetcher is the Fetcher over the wasip1 host imports.
type hostFetcher struct{}

// DefaultFetcher returns the host's own fetcher: on wasip1, the host imports.
func DefaultFetcher() Fetcher { return hostFetcher{} }

func bufPtr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(&b[0])
}

// Fetch starts the request through fetch_start and waits for its head.
func (hostFetcher) Fetch(ctx context.Context, req *Request) (*Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, ctxErr(ctx)
	}
	head, err := wire.Marshal(&wire.FetchRequest{Method: req.method(), URL: req.URL, Headers: req.Header})
	if err != nil {
		return nil, &FetchError{URL: req.URL, Err: err}
	}
	h := hostFetchStart(bufPtr(head), uint32(len(head)), bufPtr(req.Body), uint32(len(req.Body)))
	runtime.KeepAlive(head)
	runtime.KeepAlive(req.Body)
	if h < 0 {
		return nil, &FetchError{URL: req.URL, Err: fmt.Errorf("the host refused to start the request (code %d)", h)}
	}
	buf := make([]byte, 4096)
	for {
		n, err := wait(ctx, func() int32 { return hostFetchHead(h, bufPtr(buf), uint32(len(buf)), HostWaitMs) })
		if err != nil {
			// Read the host's reason before the handle is released.
			err = wrapHostErr(ctx, h, req.URL, n, err)
			hostFetchClose(h)
			return nil, err
		}
		if int(n) > len(buf) {
			buf = make([]byte, n)
			continue
		}
		var rh wire.FetchResponse
		if err := wire.Unmarshal(buf[:n], &rh); err != nil {
			hostFetchClose(h)
			return nil, &FetchError{URL: req.URL, Err: fmt.Errorf("the host answered a malformed response head: %v", err)}
		}
		hdr := Header(rh.Headers)
		if hdr == nil {
			hdr = Header{}
		}
		return &Response{Status: rh.Status, Header: hdr, Body: &hostBody{ctx: ctx, h: h, url: req.URL}}, nil
	}
}

// wait calls fn until it answers something other than "would block",
// yielding to other goroutines in between. It returns an error for the
// context ending, an abort, or a negative answer.
func wait(ctx context.Context, fn func() int32) (int32, error) {
	for {
		if ctx.Err() != nil {
			return 0, ctxErr(ctx)
		}
		n := fn()
		switch {
		case n == hostWouldBlock:
			runtime.Gosched()
		case n == hostAborted:
			return n, ErrHostAborted
		case n < 0:
			return n, errHostCode
		default:
			return n, nil
		}
	}
}

var errHostCode = errors.New("bridge: host error")

// wrapHostErr turns a failed wait into the error a caller sees.
func wrapHostErr(ctx context.Context, h int32, url string, code int32, err error) error {
	if err != errHostCode {
		return err
	}
	if code == hostFailed {
		return &FetchError{URL: url, Err: errors.New(hostErrorText(h))}
	}
	return &FetchError{URL: url, Err: fmt.Errorf("the host answered code %d", code)}
}

// hostErrorText reads the host's message for a failed request.
func hostErrorText(h int32) string {
	buf := make([]byte, 512)
	for {
		n := hostFetchError(h, bufPtr(buf), uint32(len(buf)))
		if n < 0 {
			return "the host gave no reason"
		}
		if int(n) > len(buf) {
			buf = make([]byte, n)
			continue
		}
		return string(buf[:n])
	}
}

// hostBody streams a response body through fetch_read.
type hostBody struct {
	ctx    context.Context
	h      int32
	url    string
	mu     sync.Mutex
	closed bool
	err    error
}

func (b *hostBody) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	b.mu.Lock()
	closed, sticky := b.closed, b.err
	b.mu.Unlock()
	if closed {
		return 0, ErrBodyClosed
	}
	if sticky != nil {
		return 0, sticky
	}
	n, err := wait(b.ctx, func() int32 {
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.closed {
			return hostBadHandle
		}
		return hostFetchRead(b.h, bufPtr(p), uint32(len(p)), HostWaitMs)
	})
	switch {
	case err != nil:
		err = wrapHostErr(b.ctx, b.h, b.url, n, err)
		if n == hostBadHandle {
			err = ErrBodyClosed
		}
		b.mu.Lock()
		b.err = err
		b.mu.Unlock()
		return 0, err
	case n == 0:
		return 0, io.EOF
	}
	return int(n), nil
}

// Close releases the host's handle; a blocked Read returns ErrBodyClosed.
func (b *hostBody) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		b.closed = true
		hostFetchClose(b.h)
	}
	return nil
}
