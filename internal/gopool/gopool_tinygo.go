//go:build tinygo

package gopool

// maxIdle is how many finished goroutines are kept for the next functions:
// a turn starts a handful at most, one after another.
const maxIdle = 8

var shared = &pool{max: maxIdle}

// Go runs f on a goroutine: a parked one when there is one (pool.run).
func Go(f func()) { shared.run(f) }
