//go:build js

// Waking Go from JavaScript without a callback into the Go scheduler: the
// loader's wakers. A js.Func that JavaScript calls goes through the
// runtime's event path: under Go a pass of its scheduler, under TinyGo a new
// goroutine with a whole stack for every call (64 KiB: its allocation and
// the collections it brings were most of a TinyGo turn's time and memory).
// The loader can instead hand the module two plain JavaScript functions
// (SetWakers): waker(id) makes a function that, when called, calls the
// module's exported wake function with id and then runs the Go scheduler
// once from a microtask; watch(promise, id) settles a box with the
// promise's outcome and wakes id. Go keeps a table of ids to what each
// wake does (a non-blocking channel send). Without the loader's wakers — a
// host that drives the module itself — everything goes through js.Func as
// before.

package bridge

import "syscall/js"

var (
	// wakerFn and watchFn are the loader's functions (SetWakers), or
	// undefined.
	wakerFn = js.Undefined()
	watchFn = js.Undefined()
	// wakes maps a wake id to the channel it signals. The module runs on
	// one thread and no goroutine is ever parked while it changes the
	// table, so the exported Wake (which runs between goroutines, or inside
	// a call out of one) needs no lock.
	wakes    = map[uint32]chan struct{}{}
	lastWake uint32
)

// SetWakers takes the loader's waker and watch functions (the package
// comment says what they do). Either that is not a function leaves the
// bridge on js.Func callbacks. Call it once, before any fetch.
func SetWakers(waker, watch js.Value) {
	if waker.Type() == js.TypeFunction && watch.Type() == js.TypeFunction {
		wakerFn, watchFn = waker, watch
	}
}

// hasWakers reports whether the loader handed its wakers.
func hasWakers() bool { return wakerFn.Type() == js.TypeFunction }

// Wake signals the channel registered under id, if any, without blocking:
// a wake for an id already dropped (its wait was cancelled) does nothing.
// The module's exported wake function calls it.
func Wake(id uint32) {
	if ch, ok := wakes[id]; ok {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// registerWake registers ch (buffered, so a wake before the wait is kept)
// under a fresh id for Wake to signal.
func registerWake(ch chan struct{}) uint32 {
	lastWake++
	for lastWake == 0 || wakes[lastWake] != nil {
		lastWake++
	}
	wakes[lastWake] = ch
	return lastWake
}

// dropWake forgets id: later wakes of it do nothing.
func dropWake(id uint32) { delete(wakes, id) }

// wakeFunc is a JavaScript function that wakes a Go channel: the loader's
// waker when there is one, else a js.Func.
type wakeFunc struct {
	value js.Value
	id    uint32  // the wake id, with the loader's waker
	fn    js.Func // the callback, without it
	hasFn bool
}

// newWakeFunc makes a JavaScript function that signals woken (without
// blocking) each time it is called. Release it with release; a call after
// the release does nothing with the loader's waker, and crashes the module
// with a js.Func, so a js.Func is released only once nothing can call it.
func newWakeFunc(woken chan struct{}) (wakeFunc, error) {
	if hasWakers() {
		id := registerWake(woken)
		var f wakeFunc
		if err := CatchJS(func() { f = wakeFunc{value: wakerFn.Invoke(id), id: id} }); err != nil {
			dropWake(id)
			return wakeFunc{}, err
		}
		return f, nil
	}
	fn := js.FuncOf(func(js.Value, []js.Value) any {
		select {
		case woken <- struct{}{}:
		default:
		}
		return nil
	})
	return wakeFunc{value: fn.Value, fn: fn, hasFn: true}, nil
}

// release frees the function: the loader's waker is forgotten at once (a
// later call does nothing); a js.Func is released.
func (f wakeFunc) release() {
	if f.hasFn {
		f.fn.Release()
		return
	}
	if f.id != 0 {
		dropWake(f.id)
	}
}

// safeToRelease reports whether the function may be released while
// JavaScript may still call it: true for the loader's waker.
func (f wakeFunc) safeToRelease() bool { return !f.hasFn }

// awaitWatched waits for v through the loader's watch function: watch(v,
// id) answers a box {failed, value} that holds the outcome once id is woken.
func awaitWatched(v js.Value, wait func(ch chan struct{}) error) (js.Value, error) {
	ch := make(chan struct{}, 1)
	id := registerWake(ch)
	defer dropWake(id)
	var box js.Value
	if err := CatchJS(func() { box = watchFn.Invoke(v, id) }); err != nil {
		return js.Undefined(), err
	}
	if err := wait(ch); err != nil {
		return js.Undefined(), err
	}
	var value js.Value
	var failed bool
	if err := CatchJS(func() {
		failed = box.Get("failed").Truthy()
		value = box.Get("value")
	}); err != nil {
		return js.Undefined(), err
	}
	if failed {
		return js.Undefined(), &rejection{JSErrorText(value)}
	}
	return value, nil
}

// rejection is a Promise's rejection, described.
type rejection struct{ text string }

func (r *rejection) Error() string { return r.text }
