//go:build js || wasip1

// The wasm twins of trace_native.go: the wasm builds make no spans (a
// page's port traces in the loader), so these do nothing and the compiler
// drops their calls.

package mcpserver

import "context"

// traced is false in the wasm builds. Every call into a tracer sits under
// `if traced`, so the compiler leaves it out, even with inlining off (the
// Go build's -l): the modules carry no tracing code.
const traced = false

// Tracer is, in the wasm builds, an empty placeholder, so that
// Options.Tracer costs the modules nothing: they make no spans. The
// native builds' Tracer is the tracing seam.
type Tracer struct{}

// msgTrace stands in for a message's span.
type msgTrace struct{}

// traceMessage returns ctx as it is.
func traceMessage(_ *Dispatcher, ctx context.Context, _ Request, _ []byte) (context.Context, *msgTrace) {
	return ctx, nil
}

// end does nothing.
func (*msgTrace) end(Request, *answer) {}
