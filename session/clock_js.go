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
	if d > maxHostDelay {
		return time.AfterFunc(d, f).Stop
	}
	var done atomic.Bool
	var fn js.Func
	fn = js.FuncOf(func(js.Value, []js.Value) any {
		if done.CompareAndSwap(false, true) {
			fn.Release()
			go f() // never block the host's event loop
		}
		return nil
	})
	id := js.Global().Call("setTimeout", fn, float64(d)/float64(time.Millisecond))
	return func() bool {
		if !done.CompareAndSwap(false, true) {
			return false
		}
		js.Global().Call("clearTimeout", id)
		fn.Release()
		return true
	}
}
