//go:build js

// Reading a response body's ReadableStream ahead, so that a backlog of
// chunks crosses into Go together: through the loader's body pump
// (SetReadBody) when it handed one, else by keeping reads in flight from Go
// (streamReads).

package bridge

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"syscall/js"
)

// readAhead is how many reads of a body's stream are kept in flight.
const readAhead = 32

var jsArray = js.Global().Get("Array")

// streamReads reads a ReadableStream's default reader ahead. It keeps up to
// readAhead read() Promises in flight, each settling into a JavaScript array
// through a bound built-in push — no call into Go — and wakes Go (one
// callback) only when Go has taken every settled read and must wait for the
// oldest one still in flight. Reads settle in the order they were made, and
// their reactions run in that order, so the arrays hold the results in the
// stream's order, all fulfilled ones before any rejected one.
//
// When the stream has chunks queued — a backlog, where throughput matters —
// one wake takes up to readAhead of them (their reads settled before the
// wake, which was registered after them), where awaiting each read apart
// cost a callback into Go, a goroutine switch and two new JavaScript
// functions per chunk; and the events they make are delivered together
// (BeforeJS). A live network stream, whose chunks come one at a time,
// still wakes Go once per chunk, as soon as it comes.
type streamReads struct {
	reader        js.Value
	fulfilled     js.Value   // the array the reads' results ({done, value}) are pushed into
	rejected      js.Value   // the array the reads' rejections are pushed into
	pushFulfilled js.Value   // fulfilled.push, bound
	pushRejected  js.Value   // rejected.push, bound
	pending       []js.Value // the read Promises in flight, oldest first
	done          bool       // a read gave done or failed: no more reads

	wake    js.Func
	woken   chan struct{}
	armed   atomic.Bool // the wake is registered on a read that has not settled
	retired atomic.Bool
	release sync.Once
}

// newStreamReads prepares to read reader ahead.
func newStreamReads(reader js.Value) (*streamReads, error) {
	s := &streamReads{reader: reader, woken: make(chan struct{}, 1)}
	if err := CatchJS(func() {
		s.fulfilled, s.rejected = jsArray.New(), jsArray.New()
		s.pushFulfilled = s.fulfilled.Get("push").Call("bind", s.fulfilled)
		s.pushRejected = s.rejected.Get("push").Call("bind", s.rejected)
	}); err != nil {
		return nil, err
	}
	s.wake = js.FuncOf(func(js.Value, []js.Value) any {
		s.armed.Store(false)
		select {
		case s.woken <- struct{}{}:
		default:
		}
		if s.retired.Load() {
			s.free()
		}
		return nil
	})
	return s, nil
}

func (s *streamReads) free() { s.release.Do(s.wake.Release) }

// retire ends the reads: the wake is released now, or when the read it
// waits for settles (releasing it before would crash the module when the
// read calls it). Cancelling the reader settles every read in flight.
func (s *streamReads) retire() {
	if s == nil {
		return
	}
	s.retired.Store(true)
	if !s.armed.Load() {
		s.free()
	}
}

// topUp makes reads until readAhead are in flight.
func (s *streamReads) topUp() error {
	if s.done || len(s.pending) >= readAhead {
		return nil
	}
	BeforeJS() // the stream's source may be the page's code
	return CatchJS(func() {
		for len(s.pending) < readAhead {
			p := s.reader.Call("read")
			if p.Type() != js.TypeObject || !p.InstanceOf(jsPromise) {
				p = jsPromise.Call("resolve", p) // a polyfill's thenable, or a plain result
			}
			p.Call("then", s.pushFulfilled, s.pushRejected)
			s.pending = append(s.pending, p)
		}
	})
}

// next appends to dst the bytes of every read settled so far, waiting for
// one when none has. eof is true once the stream is done (dst then holds
// the bytes before the end). When ctx ends first, onCancel runs and ctx's
// error is returned.
func (s *streamReads) next(ctx context.Context, onCancel func(), dst []byte) (_ []byte, eof bool, err error) {
	for {
		if err := s.topUp(); err != nil {
			return dst, false, errors.New("bridge: reading the response body: " + err.Error())
		}
		var n, failures int
		if cerr := CatchJS(func() {
			n = s.fulfilled.Length()
			for i := 0; i < n && !eof && err == nil; i++ {
				r := s.fulfilled.Index(i)
				switch {
				case r.Type() != js.TypeObject:
					err = errNonObject
				case r.Get("done").Truthy():
					eof = true
				default:
					dst, err = appendChunk(dst, r.Get("value"))
				}
			}
			if n > 0 {
				s.fulfilled.Set("length", 0)
			}
			if n == 0 {
				failures = s.rejected.Length()
			}
		}); cerr != nil {
			err = cerr
		}
		if n > 0 {
			k := copy(s.pending, s.pending[n:])
			clear(s.pending[k:]) // let the settled Promises go
			s.pending = s.pending[:k]
		}
		switch {
		case err != nil:
			s.done = true
			return dst, false, err
		case eof:
			s.done = true
			return dst, true, nil
		case n > 0:
			return dst, false, nil
		case failures > 0:
			s.done = true
			var text string
			_ = CatchJS(func() { text = JSErrorText(s.rejected.Index(0)) })
			return dst, false, wrap("bridge: reading the response body", errors.New(text))
		case len(s.pending) == 0:
			return dst, true, nil // no read in flight: the stream is done
		}
		// Wait for the oldest read in flight. The wake is registered after
		// the push of every read made so far, so it runs after each of them
		// that has settled by then. Not after retire, which may have run in
		// another goroutine while topUp ran the page's code (an abort in an
		// event observer closes the body): retire released the wake if it
		// was not armed, and a released function must never be registered.
		if s.retired.Load() {
			s.done = true
			return dst, false, errBodyRetired
		}
		if !s.armed.Load() {
			s.armed.Store(true)
			if cerr := CatchJS(func() { s.pending[0].Call("then", s.wake, s.wake) }); cerr != nil {
				s.armed.Store(false)
				s.done = true
				return dst, false, errors.New("bridge: reading the response body: " + cerr.Error())
			}
		}
		if err := awaitWake(ctx, s.woken, onCancel); err != nil {
			return dst, false, err
		}
	}
}

// awaitWake waits for a body's wake, after the page has seen the events made
// so far (BeforeJS). When ctx ends first, onCancel runs and ctx's error is
// returned.
func awaitWake(ctx context.Context, woken <-chan struct{}, onCancel func()) error {
	BeforeJS() // the page sees the events made so far before anything else runs
	select {
	case <-woken:
		return nil
	case <-ctx.Done():
		if onCancel != nil {
			onCancel()
		}
		return ctxErr(ctx)
	}
}

// appendChunk appends the bytes of a Uint8Array to dst. A chunk of another
// type is an error, not a panic: a TinyGo build cannot recover one.
func appendChunk(dst []byte, v js.Value) ([]byte, error) {
	if v.Type() != js.TypeObject || !v.InstanceOf(jsUint8Array) {
		return dst, errNotUint8Array
	}
	return appendBytes(dst, v), nil
}

// appendBytes appends the bytes of v, a Uint8Array, to dst.
func appendBytes(dst []byte, v js.Value) []byte {
	n := v.Get("length").Int()
	if cap(dst)-len(dst) < n {
		grown := make([]byte, len(dst), max(2*cap(dst), len(dst)+n, 512))
		copy(grown, dst)
		dst = grown
	}
	js.CopyBytesToGo(dst[len(dst):len(dst)+n], v)
	return dst[:len(dst)+n]
}

// The errors of a stream that gives what a ReadableStream may not: the same
// texts whether the pump or streamReads reads it.
var (
	errNotUint8Array = errors.New("the response body produced a chunk that is not a Uint8Array")
	errNonObject     = errors.New("bridge: the response body's reader returned a non-object")
	errBodyRetired   = errors.New("bridge: the response body was closed")
)

// bodyReads is how a jsBody reads its stream: a bodyPump or a streamReads.
type bodyReads interface {
	// next appends to dst the bytes read so far, waiting for some when none
	// are; eof is true once the stream is done (dst then holds the bytes
	// before the end). When ctx ends first, onCancel runs and ctx's error is
	// returned.
	next(ctx context.Context, onCancel func(), dst []byte) (_ []byte, eof bool, err error)
	// retire ends the reads (the body is done or closed); a next blocked in
	// another goroutine returns.
	retire()
}

// readBody is the loader's body pump function (SetReadBody), or undefined.
var readBody = js.Undefined()

// SetReadBody sets the body pump function the loader hands the module at
// start (the boot setting readBody, wasm/README.md, js): readBody(reader)
// returns a pump {take(), wait(fn), stop()} that reads a response body's
// ReadableStreamDefaultReader in JavaScript ahead of Go and hands Go its
// whole backlog in one call (web/agentwasm.mjs, readBody, says what each
// answers). A value that is not a function removes it: bodies are then
// read from Go (streamReads).
func SetReadBody(fn js.Value) {
	if fn.Type() == js.TypeFunction {
		readBody = fn
	} else {
		readBody = js.Undefined()
	}
}

// bodyPump reads a body through the loader's pump: a backlog costs Go one
// take() and the copy of one Uint8Array, where streamReads touches each
// chunk (each js.Value costing a finalizer).
type bodyPump struct {
	pump js.Value // the object readBody returned

	wake    wakeFunc // made on the first wait; the pump calls it once per wait(wake)
	hasWake bool
	woken   chan struct{}
	retired atomic.Bool
	once    sync.Once
}

// newBodyPump opens reader through the loader's pump, or returns nil
// when there is no pump (or it did not answer one).
func newBodyPump(reader js.Value) *bodyPump {
	if readBody.Type() != js.TypeFunction {
		return nil
	}
	var pump js.Value
	if err := CatchJS(func() { pump = readBody.Invoke(reader) }); err != nil || pump.Type() != js.TypeObject {
		return nil
	}
	return &bodyPump{pump: pump, woken: make(chan struct{}, 1)}
}

func (p *bodyPump) next(ctx context.Context, onCancel func(), dst []byte) (_ []byte, eof bool, err error) {
	for {
		if p.retired.Load() {
			return dst, false, errBodyRetired
		}
		BeforeJS() // take() may start a read, which may run the stream's source: the page's code
		var v js.Value
		var isBytes bool
		if cerr := CatchJS(func() {
			v = p.pump.Call("take")
			isBytes = v.Type() == js.TypeObject && v.InstanceOf(jsUint8Array)
			if isBytes {
				dst = appendBytes(dst, v)
			}
		}); cerr != nil {
			return dst, false, errors.New("bridge: reading the response body: " + cerr.Error())
		}
		switch {
		case isBytes:
			return dst, false, nil
		case v.Type() == js.TypeNull:
			return dst, true, nil
		case v.Type() == js.TypeObject:
			return dst, false, pumpFailure(v)
		case v.Type() != js.TypeUndefined:
			return dst, false, errors.New("bridge: reading the response body: the body pump gave a " + v.Type().String())
		}
		// Nothing yet: wait for the pump's wake. Checked again here, with no
		// call that can run the page's code (and so another goroutine, which
		// may retire p) before wait(wake): the wake is never handed to the
		// pump after retire released it.
		if p.retired.Load() {
			return dst, false, errBodyRetired
		}
		if !p.hasWake {
			w, werr := newWakeFunc(p.woken)
			if werr != nil {
				return dst, false, errors.New("bridge: reading the response body: " + werr.Error())
			}
			p.wake, p.hasWake = w, true
		}
		if cerr := CatchJS(func() { p.pump.Call("wait", p.wake.value) }); cerr != nil {
			return dst, false, errors.New("bridge: reading the response body: " + cerr.Error())
		}
		if err := awaitWake(ctx, p.woken, onCancel); err != nil {
			return dst, false, err
		}
	}
}

// pumpFailure turns the pump's failure record into the error streamReads
// gives for the same stream.
func pumpFailure(v js.Value) error {
	var kind string
	reason := js.Undefined()
	_ = CatchJS(func() {
		if k := v.Get("failed"); k.Type() == js.TypeString {
			kind = k.String()
		}
		reason = v.Get("reason")
	})
	switch kind {
	case "result":
		return errNonObject
	case "chunk":
		return errNotUint8Array
	}
	return wrap("bridge: reading the response body", errors.New(JSErrorText(reason)))
}

// retire stops the pump — after stop() it never calls the wake again, so
// the wake is released at once — and makes a next blocked in another
// goroutine return. The reader itself is cancelled by jsBody.cancel.
func (p *bodyPump) retire() {
	p.once.Do(func() {
		p.retired.Store(true)
		if err := CatchJS(func() { p.pump.Call("stop") }); (err == nil || p.wake.safeToRelease()) && p.hasWake {
			p.wake.release()
		}
		select {
		case p.woken <- struct{}{}:
		default:
		}
	})
}
