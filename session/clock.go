// The session's clock: the time it reads and waits on (the discovery bound,
// the watch's backoff and stable-stream check), injectable so that tests
// run a 15-second default timeout in microseconds.

package session

import "time"

// Clock is the time a session reads and waits on. Implementations must be
// safe for concurrent use. Options.Clock nil means the system clock.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// AfterFunc calls f on its own goroutine once d has passed, unless the
	// returned stop is called first; stop reports whether it prevented
	// the call.
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// after returns a channel closed once d has passed on c, and a stop
// function that releases the wait early.
func after(c Clock, d time.Duration) (<-chan struct{}, func() bool) {
	ch := make(chan struct{})
	stop := c.AfterFunc(d, func() { close(ch) })
	return ch, stop
}

// detachedClock is implemented by clocks whose hosts can run a timer that
// does not by itself keep the host alive (a Node timer that is unref'd).
// Background discovery retries use it: a finished program whose session is
// degraded must still be free to exit.
type detachedClock interface {
	// afterFuncDetached is AfterFunc with a detached timer.
	afterFuncDetached(d time.Duration, f func()) (stop func() bool)
}

// afterFuncDetached sets f on c, detached from the host's liveness when c
// can do that.
func afterFuncDetached(c Clock, d time.Duration, f func()) (stop func() bool) {
	if dc, ok := c.(detachedClock); ok {
		return dc.afterFuncDetached(d, f)
	}
	return c.AfterFunc(d, f)
}
