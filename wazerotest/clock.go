// Clocks: the real one, and a virtual one that moves only when the module
// waits.

package wazerotest

import (
	"sync"
	"time"
)

// Clock is the time the module sees (through WASI clock_time_get and
// poll_oneoff) and the time the host's fetch waits take.
type Clock interface {
	// Now returns the wall-clock time.
	Now() time.Time
	// Nanotime returns monotonic nanoseconds from an arbitrary start.
	Nanotime() int64
	// Sleep blocks (or pretends to) for d.
	Sleep(d time.Duration)
	// virtual reports whether waits should advance the clock instead of
	// blocking.
	virtual() bool
}

// RealClock is the machine's clock.
type RealClock struct{}

var realStart = time.Now()

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// Nanotime returns nanoseconds since the package was loaded.
func (RealClock) Nanotime() int64 { return int64(time.Since(realStart)) }

// Sleep calls time.Sleep.
func (RealClock) Sleep(d time.Duration) { time.Sleep(d) }

func (RealClock) virtual() bool { return false }

// VirtualClock is a clock that moves only when the module sleeps or waits on
// a host read that has nothing to deliver, or when a test calls Advance. A
// timeout of 15 s therefore passes as soon as the module has waited 15 s of
// virtual time, which takes milliseconds of real time.
//
// A handler that answers within about a millisecond of real time is seen
// at once; one that takes longer is seen as late by the wait bounds that
// passed meanwhile. Use a VirtualClock for silent servers and timeouts,
// a RealClock for handlers that do real work.
type VirtualClock struct {
	mu  sync.Mutex
	now time.Time
}

// NewVirtualClock returns a virtual clock reading start.
func NewVirtualClock(start time.Time) *VirtualClock { return &VirtualClock{now: start} }

// Now returns the virtual time.
func (c *VirtualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Nanotime returns the virtual time as nanoseconds since the Unix epoch.
func (c *VirtualClock) Nanotime() int64 { return c.Now().UnixNano() }

// Sleep advances the clock by d without blocking.
func (c *VirtualClock) Sleep(d time.Duration) { c.Advance(d) }

// Advance moves the clock forward by d.
func (c *VirtualClock) Advance(d time.Duration) {
	if d <= 0 {
		return
	}
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func (c *VirtualClock) virtual() bool { return true }
