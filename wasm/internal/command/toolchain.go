//go:build !tinygo

package command

import (
	"runtime"
	"strconv"
	"syscall"
)

// Toolchain is the compiler that built the module, as the version op's
// goVersion reports it: the Go release ("go1.26.8") for the Go toolchain's
// builds, "tinygo" and TinyGo's release ("tinygo0.41.0") for TinyGo's
// (toolchain_tinygo.go).
var Toolchain = runtime.Version()

// TinyGo is true in a module TinyGo built: there a panic cannot be
// recovered on wasm, so it traps the instance (docs/SIZE.md, The TinyGo build).
const TinyGo = false

// gcPercent is the collector's GOGC: the runtime read it from the
// environment's GOGC before main ran ("off" is -1, absent or unreadable
// Go's default 100), and nothing in the module changes it afterwards
// (runtime/debug, which could, would link fmt and os into the module;
// runtime/metrics, which could report it, adds tens of KB of code).
func gcPercent() int {
	v, _ := syscall.Getenv("GOGC")
	if v == "off" {
		return -1
	}
	if n, err := strconv.Atoi(v); err == nil {
		return n
	}
	return 100
}
