// W3C trace context passed on upstream: a page's (or a session's)
// traceparent and tracestate headers reach the OpenAI-compatible upstream
// unchanged, when they are well formed, so that the upstream's spans join
// the caller's trace. Nothing else of the caller's headers is passed on.

package studioproxy

import (
	"context"
	"net/http"
	"strings"
)

// Header names of W3C Trace Context.
const (
	headerTraceparent = "Traceparent"
	headerTracestate  = "Tracestate"
)

// maxTracestateBytes bounds the tracestate passed on; W3C Trace Context
// asks for at least 512 bytes to be propagated, and a longer one is
// dropped rather than cut (a cut list could end inside a member).
const maxTracestateBytes = 512

// traceContext is the trace context of one incoming request, as it is
// passed on: both fields "" when there is none (or it was malformed).
type traceContext struct {
	parent, state string
}

// traceContextOf returns the well-formed trace context of h: its one
// traceparent when it has the W3C version-00 shape, and with it the
// tracestate (its header fields joined by ",", as W3C Trace Context lets a
// list be split across fields) when that is printable ASCII of at most
// maxTracestateBytes. A tracestate without a valid traceparent is dropped
// too: W3C Trace Context has a receiver ignore it then.
func traceContextOf(h http.Header) traceContext {
	parents := h.Values(headerTraceparent)
	if len(parents) != 1 || !validTraceparent(parents[0]) {
		return traceContext{}
	}
	tc := traceContext{parent: parents[0]}
	if states := h.Values(headerTracestate); len(states) > 0 {
		if s := strings.Join(states, ","); validTracestate(s) {
			tc.state = s
		}
	}
	return tc
}

// set writes the trace context on an upstream request's headers; it writes
// nothing when there is none.
func (tc traceContext) set(h http.Header) {
	if tc.parent == "" {
		return
	}
	h.Set(headerTraceparent, tc.parent)
	if tc.state != "" {
		h.Set(headerTracestate, tc.state)
	}
}

// validTraceparent reports whether s is a version-00 traceparent:
// "00-" + 32 lower-case hex digits (not all zero) + "-" + 16 (not all
// zero) + "-" + 2, 55 characters in all.
func validTraceparent(s string) bool {
	if len(s) != 55 || s[:3] != "00-" || s[35] != '-' || s[52] != '-' {
		return false
	}
	traceID, spanID, flags := s[3:35], s[36:52], s[53:]
	return lowerHex(traceID) && lowerHex(spanID) && lowerHex(flags) &&
		strings.Trim(traceID, "0") != "" && strings.Trim(spanID, "0") != ""
}

// validTracestate reports whether s may be passed on: not empty, at most
// maxTracestateBytes, printable ASCII only (the alphabet of its grammar).
func validTracestate(s string) bool {
	if s == "" || len(s) > maxTracestateBytes {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// lowerHex reports whether s is made of lower-case hex digits only.
func lowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// traceContextKey is the context key of an incoming chat request's trace
// context, from the proxy to the model that sends it upstream.
type traceContextKey struct{}

// withTraceContext returns ctx carrying tc (ctx itself when tc is empty).
func withTraceContext(ctx context.Context, tc traceContext) context.Context {
	if tc.parent == "" {
		return ctx
	}
	return context.WithValue(ctx, traceContextKey{}, tc)
}

// traceContextFrom returns the trace context ctx carries, empty when none.
func traceContextFrom(ctx context.Context) traceContext {
	tc, _ := ctx.Value(traceContextKey{}).(traceContext)
	return tc
}
