//go:build !tinygo

// Package gopool starts a function on a goroutine: Go(f) in place of
// `go f()` for the goroutines the module starts on every turn (a command,
// a discovery pass, a timer's callback, a tool call, a close). Under the Go
// toolchain a goroutine is cheap (a small stack that grows), and Go is `go
// f()`. Under TinyGo every goroutine allocates its whole fixed stack
// (default-stack-size in tinygo/*.json) and the collector reclaims it later;
// those stacks were most of what a TinyGo turn allocated and why its heap
// grew, so gopool_tinygo.go keeps the goroutines that finish a function
// parked, a few of them, and hands them the next.
package gopool

// Go runs f on a goroutine of its own.
func Go(f func()) { go f() }
