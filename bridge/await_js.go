//go:build js

// JavaScript helpers shared by the js Fetcher and the js entry point:
// turning exceptions into errors, and awaiting Promises from a goroutine
// without ever blocking inside a JavaScript callback.

package bridge

import (
	"context"
	"errors"
	"sync"
	"syscall/js"
)

// CatchJS runs fn and turns a JavaScript exception (a panic in syscall/js)
// into an error.
func CatchJS(fn func()) (err error) {
	defer func() {
		if p := recover(); p != nil {
			if je, ok := p.(js.Error); ok {
				err = errors.New(JSErrorText(je.Value))
				return
			}
			err = errors.New(panicText(p))
		}
	}()
	fn()
	return nil
}

// JSErrorText describes a thrown or rejected JavaScript value.
func JSErrorText(v js.Value) (s string) {
	defer func() {
		if recover() != nil {
			s = "a JavaScript value that cannot be described"
		}
	}()
	if v.Type() == js.TypeObject {
		if m := v.Get("message"); m.Type() == js.TypeString {
			if n := v.Get("name"); n.Type() == js.TypeString && n.String() != "Error" {
				return n.String() + ": " + m.String()
			}
			return m.String()
		}
		// A plain object thrown as an error says more as JSON than as
		// "[object Object]".
		if text := jsString.Invoke(v).String(); text != "[object Object]" {
			return text
		}
		if j := js.Global().Get("JSON").Call("stringify", v); j.Type() == js.TypeString {
			return j.String()
		}
	}
	return jsString.Invoke(v).String()
}

// beforeJS is the hook of SetBeforeJS.
var beforeJS func()

// SetBeforeJS makes f run whenever the bridge is about to hand control to
// JavaScript that is not its own: right before it calls the page's fetch
// function, reads or cancels a response body, aborts a request, or waits
// for a Promise. The js entry point delivers the events it has buffered
// there (wasm/js, events.go), so that the page sees every event before
// anything that follows it. f must not block; nil removes the hook.
func SetBeforeJS(f func()) { beforeJS = f }

// BeforeJS runs the hook of SetBeforeJS, if any. Callers outside the bridge
// that hand control to the page's code call it first.
func BeforeJS() {
	if f := beforeJS; f != nil {
		f()
	}
}

// settled is the outcome of awaiting a JavaScript value.
type settled struct {
	v   js.Value
	err error // the rejection
}

// AwaitJS waits for v if it is a thenable, or returns it at once. When ctx
// ends first, onCancel runs and ctx's error is returned. With the loader's
// wakers (SetWakers) the wait costs no callback into the Go scheduler;
// without them the promise's js.Func callbacks stay alive until it settles,
// since calling a released function would crash the module.
func AwaitJS(ctx context.Context, v js.Value, onCancel func()) (js.Value, error) {
	if v.Type() != js.TypeObject || v.Get("then").Type() != js.TypeFunction {
		return v, nil
	}
	BeforeJS()
	if hasWakers() {
		return awaitWatched(v, func(ch chan struct{}) error {
			select {
			case <-ch:
				return nil
			case <-ctx.Done():
				if onCancel != nil {
					onCancel()
				}
				return ctxErr(ctx)
			}
		})
	}
	ch := make(chan settled, 1)
	var ok, fail js.Func
	var once sync.Once
	done := func(s settled) {
		select {
		case ch <- s:
		default:
		}
		once.Do(func() { ok.Release(); fail.Release() })
	}
	ok = js.FuncOf(func(_ js.Value, args []js.Value) any {
		done(settled{v: arg0(args)})
		return nil
	})
	fail = js.FuncOf(func(_ js.Value, args []js.Value) any {
		done(settled{err: errors.New(JSErrorText(arg0(args)))})
		return nil
	})
	if err := CatchJS(func() { v.Call("then", ok, fail) }); err != nil {
		ok.Release()
		fail.Release()
		return js.Undefined(), err
	}
	select {
	case s := <-ch:
		return s.v, s.err
	case <-ctx.Done():
		if onCancel != nil {
			onCancel()
		}
		return js.Undefined(), ctxErr(ctx)
	}
}

func arg0(args []js.Value) js.Value {
	if len(args) == 0 {
		return js.Undefined()
	}
	return args[0]
}

// panicText renders a recovered panic value as fmt's %v would for the
// values panics carry: errors, strings and values with a String method.
func panicText(p any) string {
	switch x := p.(type) {
	case error:
		return x.Error()
	case string:
		return x
	}
	if t, ok := stringerText(p); ok {
		return t
	}
	return "a panic with a value of an unexpected type"
}
