//go:build !js

// The system clock of every build but js: the time package's timers.

package session

import "time"

// defaultClock is the clock of a session whose Options.Clock is nil: the
// time package's (clock_js.go says why the js build differs).
func defaultClock() Clock { return systemClock{} }

// systemClock is the Clock of the time package.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}
