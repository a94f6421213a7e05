//go:build wasip1

// The wasip1 Fetcher: requests go out through the host imports documented in
// wasm/README.md. Every wait is bounded so that one silent stream never
// stalls the module's other goroutines.

package bridge

import (
	"context"
	"errors"
	"io"
	"runtime"
	"strconv"
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

//go:wasmimport agentwasm hook_start
func hostHookStart(req unsafe.Pointer, reqLen uint32) int32

//go:wasmimport agentwasm hook_read
func hostHookRead(handle int32, buf unsafe.Pointer, bufCap uint32, waitMs uint32) int32

//go:wasmimport agentwasm hook_error
func hostHookError(handle int32, buf unsafe.Pointer, bufCap uint32) int32

//go:wasmimport agentwasm hook_close
func hostHookClose(handle int32)

// fetchImports and hookImports are the two families of streaming imports.
// Each import is wrapped in a closure: TinyGo refuses an imported function
// used as a value ("cannot use an exported function as value").
var (
	fetchImports = &streamImports{
		read: func(h int32, buf unsafe.Pointer, bufCap, waitMs uint32) int32 {
			return hostFetchRead(h, buf, bufCap, waitMs)
		},
		errorText: func(h int32, buf unsafe.Pointer, bufCap uint32) int32 { return hostFetchError(h, buf, bufCap) },
		close:     func(h int32) { hostFetchClose(h) },
	}
	hookImports = &streamImports{
		read: func(h int32, buf unsafe.Pointer, bufCap, waitMs uint32) int32 {
			return hostHookRead(h, buf, bufCap, waitMs)
		},
		errorText: func(h int32, buf unsafe.Pointer, bufCap uint32) int32 { return hostHookError(h, buf, bufCap) },
		close:     func(h int32) { hostHookClose(h) },
	}
)

// streamImports are the read, error and close imports of one family.
type streamImports struct {
	read      func(handle int32, buf unsafe.Pointer, bufCap uint32, waitMs uint32) int32
	errorText func(handle int32, buf unsafe.Pointer, bufCap uint32) int32
	close     func(handle int32)
}

// HostCall asks the host to run one of its callbacks (the hook_* imports of
// wasm/README.md). request is the JSON {"hook","session","payload"}; the
// answer streams back through the returned reader, which the caller closes.
// A callback that fails gives an error carrying the host's reason.
func HostCall(ctx context.Context, request []byte) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, ctxErr(ctx)
	}
	h := hostHookStart(bufPtr(request), uint32(len(request)))
	runtime.KeepAlive(request)
	if h < 0 {
		return nil, errors.New("bridge: the host refused to start the callback (code " + strconv.Itoa(int(h)) + ")")
	}
	return &hostBody{ctx: ctx, h: h, imports: hookImports, what: "the host callback"}, nil
}

// ErrHostAborted is returned when the host asked the module to stop the
// current call. errors.Is(err, context.Canceled) holds for it.
var ErrHostAborted = wrap("bridge: the host aborted the call", context.Canceled)

// onHostAbort is called when any wait answers "aborted"; see SetHostAbort.
var onHostAbort func()

// SetHostAbort registers the function to call when the host answers
// "aborted" to any wait: the entry point passes the cancel function of the
// call in progress, so that every goroutine working for that call stops,
// not only the one whose wait saw the answer. Calls into the module do not
// overlap, so one registration at a time suffices; nil clears it.
func SetHostAbort(cancel func()) { onHostAbort = cancel }

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
		return nil, &FetchError{URL: req.URL, Err: errors.New("the host refused to start the request (code " + strconv.Itoa(int(h)) + ")")}
	}
	buf := make([]byte, 4096)
	for {
		n, err := wait(ctx, func() int32 { return hostFetchHead(h, bufPtr(buf), uint32(len(buf)), HostWaitMs) })
		if err != nil {
			// Read the host's reason before the handle is released.
			err = fetchImports.wrap(h, req.URL, n, err)
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
			return nil, &FetchError{URL: req.URL, Err: errors.New("the host answered a malformed response head: " + err.Error())}
		}
		hdr := Header(rh.Headers)
		if hdr == nil {
			hdr = Header{}
		}
		return &Response{Status: rh.Status, Header: hdr, Body: &hostBody{ctx: ctx, h: h, imports: fetchImports, what: req.URL}}, nil
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
			if onHostAbort != nil {
				onHostAbort()
			}
			return n, ErrHostAborted
		case n < 0:
			return n, errHostCode
		default:
			return n, nil
		}
	}
}

var errHostCode = errors.New("bridge: host error")

// wrap turns a failed wait into the error a caller sees; what names the
// request (a URL, or the host callback).
func (im *streamImports) wrap(h int32, what string, code int32, err error) error {
	if err != errHostCode {
		return err
	}
	cause := errors.New("the host answered code " + strconv.Itoa(int(code)))
	if code == hostFailed {
		cause = errors.New(im.reason(h))
	}
	if im == hookImports {
		return cause
	}
	return &FetchError{URL: what, Err: cause}
}

// reason reads the host's message for a failed request.
func (im *streamImports) reason(h int32) string {
	buf := make([]byte, 512)
	for {
		n := im.errorText(h, bufPtr(buf), uint32(len(buf)))
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

// hostBody streams a response body (or a callback's answer) through the
// read import of its family.
type hostBody struct {
	ctx     context.Context
	h       int32
	imports *streamImports
	what    string
	mu      sync.Mutex
	closed  bool
	err     error
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
		return b.imports.read(b.h, bufPtr(p), uint32(len(p)), HostWaitMs)
	})
	switch {
	case err != nil:
		err = b.imports.wrap(b.h, b.what, n, err)
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
		b.imports.close(b.h)
	}
	return nil
}
