//go:build !tinygo

// Package nesting holds the bounds on how deeply the module's recursive
// walks may go: over JSON values, JSON Schemas, their validation and the
// port's guards. Each package names its own bound after one of these
// (jsonr.MaxValueDepth, jsonschema.MaxDepth, serve's guard depth), so the
// two toolchains' figures sit side by side here.
//
// The Go toolchain's goroutine stacks grow, so its bounds only bound work.
// A TinyGo build's goroutines have fixed stacks (default-stack-size in
// tinygo/*.json: 64 KiB, TinyGo's own default), a walk that overflows one
// corrupts the heap silently or traps, and TinyGo cannot recover either
// (docs/SIZE.md, The TinyGo build). Its bounds (nesting_tinygo.go) are measured to
// fit with room to spare: with the goroutine stacks painted, the deepest
// input each command accepts, and one level past it (wazerotest's
// TestDeepValuesThroughTheModule, and the same commands through the js
// build), used at most 29.4 KiB of stack, in both builds. Bigger stacks
// would allow deeper values, but every goroutine (TinyGo starts one per
// wasm export call and per JavaScript callback) allocates its whole stack:
// at 128 KiB the js build needed twice the memory and time per turn.
package nesting

const (
	// Values is how deeply arrays and objects may nest in a JSON value the
	// module parses into a dynamic value.
	Values = 512
	// Schema is how deeply subschemas may nest in a JSON Schema.
	Schema = 128
	// Validate bounds the recursion of validating a value against a schema
	// ($ref cycles that do not consume the value included).
	Validate = 256
	// Guard is how deeply a guard's all/any/not may nest.
	Guard = 64
)
