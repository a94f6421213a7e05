//go:build tinygo

package nesting

// A TinyGo build's bounds: see nesting.go.
const (
	Values   = 32
	Schema   = 12
	Validate = 20
	Guard    = 20
)
