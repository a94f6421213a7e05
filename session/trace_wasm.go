//go:build js || wasip1

// The wasm twins of trace_native.go: the wasm builds make no spans (a page
// traces a turn from the module's events, in the loader), so these do
// nothing, and the compiler drops their calls: Options.Tracer is ignored.

package session

import (
	"context"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/session/mcpclient"
)

// traced is false in the wasm builds. Every call into a tracer sits under
// `if traced`, so the compiler leaves it out, even with inlining off (the
// Go build's -l): the modules carry no tracing code.
const traced = false

// traceState holds nothing in the wasm builds.
//
//lint:ignore U1000 Session.trace has this type in every build; only the native ones use it
type traceState struct{}

// turnTrace, chatTrace, toolTrace and discoveryTrace stand in for spans.
type (
	turnTrace      struct{}
	chatTrace      struct{}
	toolTrace      struct{}
	discoveryTrace struct{}
)

func startTurnTrace(_ *Session, ctx context.Context, _ string, _ *Resolution) (context.Context, *turnTrace) {
	return ctx, nil
}

func (*turnTrace) ended(turn Turn) Turn                           { return turn }
func (*turnTrace) answered(string, bool)                          {}
func (*turnTrace) settleWaits([]PendingApproval)                  {}
func abandonWaits(*Session, bool)                                 {}
func (*chatTrace) event(*StreamEvent)                             {}
func (*chatTrace) finish(*outcome)                                {}
func (*toolTrace) conflictRetry()                                 {}
func (*toolTrace) finish(DispatchRecord, *PendingApproval)        {}
func (*discoveryTrace) finish(*Session, ToolDiscoveryReport)      {}
func injectChat(*Session, context.Context, bridge.Header, []byte) {}

func (*turnTrace) startChat(ctx context.Context, _ int) (context.Context, *chatTrace) {
	return ctx, nil
}

func (*turnTrace) startTool(ctx context.Context, _ ToolCall) (context.Context, *toolTrace) {
	return ctx, nil
}

// startDiscoveryTrace returns the context a pass lists the tools with.
func startDiscoveryTrace(*Session, context.Context) (context.Context, *discoveryTrace) {
	return context.Background(), nil
}

// mcpTracer gives the default MCP client no tracer.
func mcpTracer(Tracer, *secrets) mcpclient.Tracer { return mcpclient.Tracer{} }

// Tracer is, in the wasm builds, an empty placeholder, so that
// Options.Tracer costs the modules nothing: they make no spans (a page
// traces a turn in the loader, from the module's events). The native
// builds' Tracer is the tracing seam.
type Tracer struct{}
