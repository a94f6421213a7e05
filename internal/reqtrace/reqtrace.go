// Package reqtrace records which request an MCP client began last, so that
// a discovery pass whose bound passed can say which request hung
// (server/discover, initialize, tools/list …). session makes the trace
// (&Trace{Context: ctx}) and reads it (Last); session/mcpclient notes each
// request it begins (Note). It lives below both so that neither imports the
// other for it.
package reqtrace

import (
	"context"
	"sync/atomic"
)

// Trace is the context of a discovery pass's listing, over the embedded
// Context: it records the request the client began last. It is a context
// of its own, not context.WithValue, which the wasm modules do not
// otherwise link.
type Trace struct {
	context.Context
	method atomic.Pointer[string]
}

// key is the key under which a Trace finds itself.
type key struct{}

// Value returns the trace itself for its key, else the parent's value.
func (t *Trace) Value(k any) any {
	if k == (key{}) {
		return t
	}
	return t.Context.Value(k)
}

// Last returns the method of the request begun last, or "".
func (t *Trace) Last() string {
	if m := t.method.Load(); m != nil {
		return *m
	}
	return ""
}

// Note tells the Trace that ctx belongs to, if any, that a request of
// method begins.
func Note(ctx context.Context, method string) {
	if t, ok := ctx.Value(key{}).(*Trace); ok {
		t.method.Store(&method)
	}
}
