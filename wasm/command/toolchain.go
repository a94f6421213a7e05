//go:build !tinygo

package command

import "runtime"

// Toolchain is the compiler that built the module, as the version op's
// goVersion reports it: the Go release ("go1.26.8") for the Go toolchain's
// builds, "tinygo" and TinyGo's release ("tinygo0.41.0") for TinyGo's
// (toolchain_tinygo.go).
var Toolchain = runtime.Version()

// TinyGo is true in a module TinyGo built: there a panic cannot be
// recovered on wasm, so it traps the instance (README.md, TinyGo build).
const TinyGo = false
