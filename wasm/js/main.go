//go:build js

// Command js is the module's entry point for JavaScript hosts: browsers,
// Electron-style hosts and Node. web/agentwasm.mjs loads it with the
// wasm_exec.js of the Go release that built it.
//
// At start it hands the loader an object with two functions:
//
//	call(command: string, hooks?: {fetch?, event?, call?}, signal?: AbortSignal): Promise<string>
//	callSync(command: string, hooks?: {fetch?, event?, call?}): string
//
// The event hook receives a session's or port's events in batches, as
// event(id, eventsJSON) with a JSON array of them (events.go says when and
// in what form).
//
// Both take a JSON command and answer a JSON reply (wasm/README.md).
//
// The loader's boot settings (readBoot) may carry readBody, the body pump
// response bodies are read through (bridge.SetReadBody): without it the
// bridge reads them from Go.
// callSync serves only the commands that never wait: the ops marked Sync in
// wasm/internal/command's table (command.Ops). Nothing here blocks inside a
// JavaScript callback: call runs the command on a goroutine and settles its
// Promise.
package main

import (
	"context"
	"syscall"
	"syscall/js"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/internal/gopool"
	"github.com/agentwasm/agentwasm/internal/wire"
	"github.com/agentwasm/agentwasm/wasm/internal/command"
)

var (
	boot = readBoot()
	rt   = command.New(boot.testHooks)
)

// bootSettings are the loader's settings for this start (wasm/README.md, js).
type bootSettings struct {
	register  string // the global function to hand the API to
	testHooks bool   // whether the debug.* commands answer
	// readBody is the loader's body pump function (bridge.SetReadBody), or
	// undefined: response bodies are then read from Go.
	readBody js.Value
	// textDeltas: the loader's event hook takes a plain text delta as the
	// JSON string of its text (events.go, enqueueText).
	textDeltas bool
	// waker and watch are the loader's wakers (bridge.SetWakers), and take
	// answers the slot of a command started through agentwasm_call
	// (exports.go); each undefined when the loader has none.
	waker, watch, take js.Value
}

// The collector's GOGC is not a boot setting: the runtime reads it from the
// environment before main runs, and the loader starts the module with
// GOGC=400 (or its gcPercent option; web/agentwasm.mjs says why 400).
// Setting it from here would take runtime/debug, which links fmt and os.

// bootGlobal is the global the loader sets right before go.run.
const bootGlobal = "__agentwasmBoot"

// readBoot reads globalThis.__agentwasmBoot = {register, testHooks, readBody},
// which the loader sets right before go.run, and deletes it, synchronously at start:
// two loads at once each hand their own settings to their own module. When
// it is absent (a loader older than it), the environment carries the same
// settings, AGENTWASM_REGISTER and AGENTWASM_TEST_HOOKS=1; only Go's
// wasm_exec.js has an environment, TinyGo's js target has none. Without
// readBody (a host driving the module without the loader), bodies are read
// from Go.
func readBoot() bootSettings {
	g := js.Global()
	b := g.Get(bootGlobal)
	if b.Type() != js.TypeObject {
		return bootSettings{register: getenv("AGENTWASM_REGISTER"), testHooks: getenv("AGENTWASM_TEST_HOOKS") == "1",
			readBody: js.Undefined(), waker: js.Undefined(), watch: js.Undefined(), take: js.Undefined()}
	}
	g.Delete(bootGlobal)
	s := bootSettings{readBody: js.Undefined(), waker: js.Undefined(), watch: js.Undefined(), take: js.Undefined()}
	if f := b.Get("readBody"); f.Type() == js.TypeFunction {
		s.readBody = f
	}
	for _, f := range []struct {
		name string
		to   *js.Value
	}{{"waker", &s.waker}, {"watch", &s.watch}, {"take", &s.take}} {
		if v := b.Get(f.name); v.Type() == js.TypeFunction {
			*f.to = v
		}
	}
	if r := b.Get("register"); r.Type() == js.TypeString {
		s.register = r.String()
	}
	if h := b.Get("testHooks"); h.Type() == js.TypeBoolean {
		s.testHooks = h.Bool()
	}
	if d := b.Get("textDeltas"); d.Type() == js.TypeBoolean {
		s.textDeltas = d.Bool()
	}
	return s
}

// getenv reads the environment (syscall's: os would link its files).
func getenv(key string) string {
	v, _ := syscall.Getenv(key)
	return v
}

func main() {
	bridge.SetReadBody(boot.readBody)
	bridge.SetWakers(boot.waker, boot.watch)
	api := js.Global().Get("Object").New()
	api.Set("call", js.FuncOf(call))
	api.Set("callSync", js.FuncOf(callSync))
	if boot.register != "" && js.Global().Get(boot.register).Type() == js.TypeFunction {
		js.Global().Call(boot.register, api)
	} else {
		js.Global().Set("agentwasm", api)
	}
	select {}
}

// arg returns args[i], or undefined.
func arg(args []js.Value, i int) js.Value {
	if i < len(args) {
		return args[i]
	}
	return js.Undefined()
}

// commandText reads the command argument; a non-string gives nil, which
// the command layer answers as malformed.
func commandText(v js.Value) []byte {
	if v.Type() != js.TypeString {
		return nil
	}
	return []byte(v.String())
}

// hooksFrom builds the host hooks from {fetch, event, call}.
func hooksFrom(v js.Value) command.Hooks {
	var fetchFn, eventFn, callFn js.Value = js.Undefined(), js.Undefined(), js.Undefined()
	if v.Type() == js.TypeObject {
		fetchFn, eventFn, callFn = v.Get("fetch"), v.Get("event"), v.Get("call")
	}
	h := command.Hooks{Fetcher: bridge.NewJSFetcher(fetchFn)}
	if callFn.Type() == js.TypeFunction {
		h.Call = jsCallbacks{callFn}.call
	}
	if eventFn.Type() == js.TypeFunction {
		// Buffered, and delivered in batches (events.go).
		sink := &eventSink{fn: eventFn}
		h.OnEvent = sink.enqueue
		if boot.textDeltas {
			h.OnTextDelta = sink.enqueueText
		}
	}
	return h
}

// internalError is the reply for a panic outside the command layer.
func internalError(p any) string {
	b, _ := wire.Marshal(&wire.Reply{Error: &wire.ErrorBody{Code: command.CodeInternal,
		Message: "agentwasm: internal error (recovered panic: " + errs.Text(p) + "); the module is still serving"}})
	return string(b)
}

func call(_ js.Value, args []js.Value) (result any) {
	defer func() {
		if p := recover(); p != nil {
			result = js.Global().Get("Promise").Call("resolve", internalError(p))
		}
	}()
	cmd, hooks, signal := commandText(arg(args, 0)), hooksFrom(arg(args, 1)), arg(args, 2)
	executor := js.FuncOf(func(_ js.Value, pargs []js.Value) any {
		resolve := pargs[0]
		gopool.Go(func() { run(cmd, hooks, signal, resolve) })
		return nil
	})
	defer executor.Release()
	return js.Global().Get("Promise").New(executor)
}

// run executes one command on its own goroutine and resolves its Promise.
func run(cmd []byte, hooks command.Hooks, signal, resolve js.Value) {
	reply := ""
	defer func() {
		if p := recover(); p != nil {
			reply = internalError(p)
		}
		flushEvents() // the command's events come before its reply
		resolve.Invoke(reply)
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if signal.Type() == js.TypeObject && signal.Get("aborted").Type() == js.TypeBoolean {
		if signal.Get("aborted").Bool() {
			cancel()
		} else {
			onAbort := js.FuncOf(func(js.Value, []js.Value) any { cancel(); return nil })
			opts := js.Global().Get("Object").New()
			opts.Set("once", true)
			signal.Call("addEventListener", "abort", onAbort, opts)
			defer func() {
				signal.Call("removeEventListener", "abort", onAbort)
				onAbort.Release()
			}()
		}
	}
	reply = string(rt.Call(ctx, cmd, hooks))
}

func callSync(_ js.Value, args []js.Value) (result any) {
	defer func() {
		if p := recover(); p != nil {
			result = internalError(p)
		}
	}()
	reply, _ := syncReply(commandText(arg(args, 0)), hooksFrom(arg(args, 1)))
	return string(reply)
}
