//go:build js

// The system clock of the js build: timers are the host's setTimeout,
// cleared when stopped. A stopped Go timer leaves the host timeout the Go
// runtime scheduled for it pending (runtime.beforeIdle clears it only when
// it schedules another), and a pending timeout keeps a Node process alive:
// every finished turn would hold the process for its stream bound, two
// minutes.

package session

import (
	"sync/atomic"
	"syscall/js"
	"time"

	"github.com/agentwasm/agentwasm/internal/gopool"
)

// maxHostDelay is the longest delay setTimeout takes (2^31-1 ms); longer
// ones fire at once, so they are left to Go's timers.
const maxHostDelay = (1<<31 - 1) * time.Millisecond

// defaultClock is the clock of a session whose Options.Clock is nil.
func defaultClock() Clock { return hostClock{} }

// hostClock reads time.Now and waits on the host's timers.
type hostClock struct{}

func (hostClock) Now() time.Time { return time.Now() }

func (hostClock) AfterFunc(d time.Duration, f func()) func() bool {
	return hostTimer(d, f, false)
}

// afterFuncDetached sets a host timer that does not keep the host alive:
// Node's timeout is unref'd, Deno's unrefTimer is called; a browser page
// lives on regardless.
func (hostClock) afterFuncDetached(d time.Duration, f func()) func() bool {
	return hostTimer(d, f, true)
}

// hostTimer calls f on its own goroutine once d has passed on the host's
// setTimeout, detached from the host's liveness when detached is set.
func hostTimer(d time.Duration, f func(), detached bool) func() bool {
	if d > maxHostDelay {
		return time.AfterFunc(d, f).Stop
	}
	var done atomic.Bool
	var fn js.Func
	fn = js.FuncOf(func(js.Value, []js.Value) any {
		if done.CompareAndSwap(false, true) {
			fn.Release()
			gopool.Go(f) // never block the host's event loop
		}
		return nil
	})
	id := js.Global().Call("setTimeout", fn, float64(d)/float64(time.Millisecond))
	if detached {
		detach(id)
	}
	return func() bool {
		if !done.CompareAndSwap(false, true) {
			return false
		}
		js.Global().Call("clearTimeout", id)
		fn.Release()
		return true
	}
}

// detach lets host timeout id not keep the host alive, where the host can.
func detach(id js.Value) {
	if id.Type() == js.TypeObject {
		if unref := id.Get("unref"); unref.Type() == js.TypeFunction {
			id.Call("unref") // Node
			return
		}
	}
	if deno := js.Global().Get("Deno"); deno.Type() == js.TypeObject {
		if unref := deno.Get("unrefTimer"); unref.Type() == js.TypeFunction {
			deno.Call("unrefTimer", id)
		}
	}
}
