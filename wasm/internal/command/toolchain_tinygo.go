//go:build tinygo

package command

import "runtime"

// Toolchain is the compiler that built the module: under TinyGo,
// runtime.Version() is TinyGo's own release ("0.41.0"), so the prefix says
// which compiler it is. See toolchain.go.
var Toolchain = "tinygo" + runtime.Version()

// TinyGo is true in a module TinyGo built. See toolchain.go.
const TinyGo = true

// gcPercent is 100: TinyGo's collector has no GOGC setting. See toolchain.go.
func gcPercent() int { return 100 }
