//go:build js

// The js Fetcher: requests go out through a JavaScript fetch function,
// abort through an AbortController, and stream their ReadableStream body.
// Go never blocks inside a JavaScript callback: callbacks only hand values
// to a goroutine through buffered channels.

package bridge

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"syscall/js"
)

// JSFetcher is a Fetcher over a JavaScript fetch function.
type JSFetcher struct {
	// Func is called as Func(url, init). When it is undefined or null,
	// globalThis.fetch is called with globalThis as its receiver.
	//
	// Func may return a Response or a Promise of one, may throw or reject:
	// every failure becomes a *FetchError. A value that is not a Response
	// (an object with a numeric status) is a *FetchError too.
	Func js.Value
}

// DefaultFetcher returns the host's own fetcher: on js, globalThis.fetch.
func DefaultFetcher() Fetcher { return &JSFetcher{} }

// NewJSFetcher returns a JSFetcher calling fn, or globalThis.fetch when fn
// is undefined or null.
func NewJSFetcher(fn js.Value) *JSFetcher { return &JSFetcher{Func: fn} }

// Globals looked up once: every lookup makes a new js.Value, and each one
// costs a finalizer.
var (
	jsObject          = js.Global().Get("Object")
	jsUint8Array      = js.Global().Get("Uint8Array")
	jsAbortController = js.Global().Get("AbortController")
	jsString          = js.Global().Get("String")
	jsPromise         = js.Global().Get("Promise")
)

// noop is a JavaScript function that does nothing, used to mark promises
// whose rejection is expected (a cancelled reader) as handled.
var noop = js.FuncOf(func(js.Value, []js.Value) any { return nil })

// Fetch calls the fetch function and waits for the response head.
func (f *JSFetcher) Fetch(ctx context.Context, req *Request) (*Response, error) {
	if ctx.Err() != nil {
		return nil, ctxErr(ctx)
	}
	fail := func(text string) (*Response, error) {
		return nil, &FetchError{URL: req.URL, Err: errors.New(text)}
	}
	var controller, promise js.Value
	BeforeJS() // the fetch function is the page's code
	err := CatchJS(func() {
		controller = jsAbortController.New()
		init := jsObject.New()
		init.Set("method", req.method())
		headers := jsObject.New()
		for k, v := range req.Header {
			headers.Set(k, v)
		}
		init.Set("headers", headers)
		if req.Body != nil {
			body := jsUint8Array.New(len(req.Body))
			js.CopyBytesToJS(body, req.Body)
			init.Set("body", body)
		}
		init.Set("signal", controller.Get("signal"))
		if f.Func.Type() == js.TypeFunction {
			promise = f.Func.Invoke(req.URL, init)
		} else {
			promise = js.Global().Call("fetch", req.URL, init)
		}
	})
	if err != nil {
		return fail("the fetch function threw: " + err.Error())
	}
	abort := func() {
		BeforeJS() // aborting runs the page's abort listeners
		_ = CatchJS(func() { controller.Call("abort") })
	}
	v, err := AwaitJS(ctx, promise, abort)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctxErr(ctx)
		}
		return fail("the fetch function rejected: " + err.Error())
	}
	resp, err := toResponse(ctx, v, abort)
	if err != nil {
		abort()
		return fail(err.Error())
	}
	return resp, nil
}

// toResponse reads a JavaScript Response into a Response.
func toResponse(ctx context.Context, v js.Value, abort func()) (resp *Response, err error) {
	defer func() {
		if p := recover(); p != nil {
			resp, err = nil, errors.New("the fetch function returned something that is not a Response ("+panicText(p)+")")
		}
	}()
	if v.Type() != js.TypeObject || v.Get("status").Type() != js.TypeNumber {
		return nil, errors.New("the fetch function returned something that is not a Response (a " + describeType(v) + ")")
	}
	h := Header{}
	if hv := v.Get("headers"); hv.Type() == js.TypeObject {
		if err := CatchJS(func() { readHeaders(hv, h) }); err != nil {
			return nil, errors.New("reading the response headers: " + err.Error())
		}
	}
	b := &jsBody{ctx: ctx, abort: abort}
	switch body := v.Get("body"); {
	case body.Type() == js.TypeObject && body.Get("getReader").Type() == js.TypeFunction:
		// getReader throws on a locked stream (a body already read): said here,
		// since a TinyGo build cannot catch the exception.
		if body.Get("locked").Truthy() {
			return nil, errors.New("opening the response body: it is locked (already being read)")
		}
		if err := CatchJS(func() { b.reader = body.Call("getReader") }); err != nil {
			return nil, errors.New("opening the response body: " + err.Error())
		}
		// The loader's body pump when it handed one (SetReadBody), else
		// reads kept in flight from Go.
		if pump := newBodyPump(b.reader); pump != nil {
			b.reads = pump
		} else {
			reads, err := newStreamReads(b.reader)
			if err != nil {
				return nil, errors.New("opening the response body: " + err.Error())
			}
			b.reads = reads
		}
	case v.Get("arrayBuffer").Type() == js.TypeFunction:
		// A Response without a stream (some polyfills): read it whole.
		b.whole = v
	default:
		b.eof = true // no body at all, as for a 204
	}
	return &Response{Status: v.Get("status").Int(), Header: h, Body: b}, nil
}

func describeType(v js.Value) string {
	if v.Type() == js.TypeObject {
		return "object without a numeric status"
	}
	return v.Type().String()
}

// readHeaders copies a Headers object (or a plain object) into h.
func readHeaders(hv js.Value, h Header) {
	var it js.Value
	if hv.Get("entries").Type() == js.TypeFunction {
		it = hv.Call("entries")
	} else {
		it = jsObject.Call("entries", hv).Call("values")
	}
	for {
		r := it.Call("next")
		if r.Get("done").Truthy() {
			return
		}
		pair := r.Get("value")
		h.Set(pair.Index(0).String(), jsString.Invoke(pair.Index(1)).String())
	}
}

// jsBody streams a ReadableStream (or a whole-body Response) into Go.
type jsBody struct {
	ctx    context.Context
	abort  func()
	reader js.Value  // a ReadableStreamDefaultReader, or undefined
	whole  js.Value  // a Response read with arrayBuffer(), or undefined
	reads  bodyReads // reads reader ahead, when it is set (a bodyPump or a streamReads)

	// store backs buf: chunks are copied into it, and it is reused once
	// read, so that a stream allocates only for its largest backlog.
	store []byte

	closing atomic.Bool

	mu     sync.Mutex
	buf    []byte
	eof    bool
	closed bool
	err    error
}

func (b *jsBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for {
		switch {
		case b.closed:
			return 0, ErrBodyClosed
		case len(b.buf) > 0:
			n := copy(p, b.buf)
			b.buf = b.buf[n:]
			return n, nil
		case b.err != nil:
			return 0, b.err
		case b.eof:
			return 0, io.EOF
		}
		b.err = b.fill()
	}
}

// fill fetches the next chunk into b.buf, or sets b.eof; b.mu is held (the
// wait inside yields to other goroutines, but only Close contends, and
// Close does not take the lock before aborting).
func (b *jsBody) fill() error {
	onCancel := func() { b.cancel() }
	BeforeJS() // a body's stream may run the page's code as it is read
	if b.whole.Type() == js.TypeObject {
		var p js.Value
		if err := CatchJS(func() { p = b.whole.Call("arrayBuffer") }); err != nil {
			return errors.New("bridge: reading the response body: " + err.Error())
		}
		v, err := AwaitJS(b.ctx, p, onCancel)
		if err != nil {
			return b.readErr(err)
		}
		b.whole, b.eof = js.Undefined(), true
		return b.takeWhole(v)
	}
	if cap(b.store) > maxKeptBody {
		b.store = nil
	}
	buf, eof, err := b.reads.next(b.ctx, onCancel, b.store[:0])
	b.store, b.buf, b.eof = buf, buf, eof
	if err != nil || eof {
		b.reads.retire()
	}
	if err != nil {
		if b.ctx.Err() != nil || b.closing.Load() {
			return b.readErr(err)
		}
		return err
	}
	return nil
}

// maxKeptBody bounds the buffer a body keeps for reuse between reads: a
// body pump's backlog (up to its bound of 1 MiB, and the chunk that crossed
// it) fits.
const maxKeptBody = 2 << 20

// takeWhole copies the ArrayBuffer of a whole body (arrayBuffer()'s answer)
// into b.buf. Another value is an error, not a panic: a TinyGo build cannot
// recover one.
func (b *jsBody) takeWhole(v js.Value) error {
	if v.Type() != js.TypeObject {
		return errors.New("the response's arrayBuffer() gave a " + v.Type().String() + ", not an ArrayBuffer")
	}
	return CatchJS(func() { b.buf = appendBytes(nil, jsUint8Array.New(v)) })
}

func (b *jsBody) readErr(err error) error {
	if b.ctx.Err() != nil {
		return ctxErr(b.ctx)
	}
	if b.closing.Load() {
		return ErrBodyClosed
	}
	return wrap("bridge: reading the response body", err)
}

// cancel stops the stream: the reader is cancelled and the request aborted.
func (b *jsBody) cancel() {
	BeforeJS()
	if b.reader.Type() == js.TypeObject {
		_ = CatchJS(func() {
			if p := b.reader.Call("cancel"); p.Type() == js.TypeObject && p.Get("catch").Type() == js.TypeFunction {
				p.Call("catch", noop)
			}
		})
	}
	b.abort()
}

// Close cancels the stream. A Read blocked in another goroutine returns.
func (b *jsBody) Close() error {
	b.closing.Store(true)
	b.cancel()
	if b.reads != nil {
		b.reads.retire() // a Read blocked on the pump returns
	}
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	return nil
}
