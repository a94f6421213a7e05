//go:build js || wasip1

// The wasm twins of trace_native.go: the wasm builds make no spans (a page
// traces from the module's events in the loader), so these do nothing and
// the compiler drops their calls.

package mcpclient

import (
	"context"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/internal/rawjson"
)

// traced is false in the wasm builds. Every call into a tracer sits under
// `if traced`, so the compiler leaves it out, even with inlining off (the
// Go build's -l): the modules carry no tracing code.
const traced = false

// reqTrace stands in for a request's span.
type reqTrace struct{}

// traceRequest returns ctx and body as they are.
func (c *Client) traceRequest(ctx context.Context, _, _ string, _ int64, _ bridge.Header, body []byte) (context.Context, []byte, *reqTrace) {
	return ctx, body, nil
}

// end does nothing.
func (*reqTrace) end(string, rawjson.Message, string, error) {}

// Tracer is, in the wasm builds, an empty placeholder, so that
// Config.Tracer costs the modules nothing: they make no spans. The native
// builds' Tracer is the tracing seam.
type Tracer struct{}
