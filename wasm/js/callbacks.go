//go:build js

// The session's callbacks on a JavaScript host: the loader hands the module
// one function, call(hook, payloadJSON, signal), which runs the page's own
// function for that hook (execute, auth, system, kit methods, transport, the
// MCP client's methods, studioTools.approve, a port's action handlers) and
// answers a JSON string, a Promise of one, or for "transport" an object whose
// next() resolves to the next chunk of lines, or null at the end.

package main

import (
	"context"
	"io"
	"strings"
	"syscall/js"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/internal/errs"
)

var jsAbortController = js.Global().Get("AbortController")

// jsCallbacks calls the loader's call function.
type jsCallbacks struct{ fn js.Value }

func (c jsCallbacks) call(ctx context.Context, session int, hook string, payload []byte) (io.ReadCloser, error) {
	var controller, v js.Value
	bridge.BeforeJS() // the page sees the events before the callback runs
	err := bridge.CatchJS(func() {
		controller = jsAbortController.New()
		v = c.fn.Invoke(hook, string(payload), controller.Get("signal"))
	})
	if err != nil {
		return nil, errs.New("the ", hook, " callback threw: ", err.Error())
	}
	abort := func() {
		bridge.BeforeJS()
		_ = bridge.CatchJS(func() { controller.Call("abort") })
	}
	if v.Type() == js.TypeObject && v.Get("next").Type() == js.TypeFunction {
		return &jsChunks{ctx: ctx, it: v, hook: hook, abort: abort}, nil
	}
	r, err := bridge.AwaitJS(ctx, v, abort)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, errs.New("the ", hook, " callback failed: ", err.Error())
	}
	if r.Type() != js.TypeString {
		return nil, errs.New("the ", hook, " callback answered a ", r.Type().String(), ", not a JSON string")
	}
	return io.NopCloser(strings.NewReader(r.String())), nil
}

// jsChunks reads a callback's answer chunk by chunk through next().
type jsChunks struct {
	ctx   context.Context
	it    js.Value
	hook  string
	abort func()
	buf   string
	eof   bool
}

func (j *jsChunks) Read(p []byte) (int, error) {
	for j.buf == "" {
		if j.eof {
			return 0, io.EOF
		}
		var v js.Value
		bridge.BeforeJS()
		if err := bridge.CatchJS(func() { v = j.it.Call("next") }); err != nil {
			return 0, errs.New("the ", j.hook, " callback's stream threw: ", err.Error())
		}
		r, err := bridge.AwaitJS(j.ctx, v, j.abort)
		if err != nil {
			if j.ctx.Err() != nil {
				return 0, err
			}
			return 0, errs.New("the ", j.hook, " callback's stream failed: ", err.Error())
		}
		switch r.Type() {
		case js.TypeNull, js.TypeUndefined:
			j.eof = true
		case js.TypeString:
			j.buf = r.String()
		default:
			return 0, errs.New("the ", j.hook, " callback's stream gave a ", r.Type().String(), ", not a string")
		}
	}
	n := copy(p, j.buf)
	j.buf = j.buf[n:]
	return n, nil
}

func (j *jsChunks) Close() error {
	j.abort()
	return nil
}
