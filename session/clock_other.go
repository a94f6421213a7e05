//go:build !js

package session

// defaultClock is the clock of a session whose Options.Clock is nil: the
// time package's (clock_js.go says why the js build differs).
func defaultClock() Clock { return systemClock{} }
