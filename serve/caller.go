// Callers: who a port's tools are called for. An ask belongs to the caller
// whose fire raised it, and only that caller's fires can use its approval:
// a port is a caller of its own, a context can name a finer one
// (WithCaller: one chat session of several on one port), an MCP session is
// one, and a call with no identity (a stateless MCP request) can use an
// approval only by citing the ask's id, which is unguessable (newAskID).

package serve

import (
	"context"
)

// callerKey is the context key of a call's caller.
type callerKey struct{}

// callerID is a caller's identity as the ask journal records it; "" is a
// caller with no identity.
type callerID struct{ id string }

// WithCaller returns a context naming who a port's tools are called for:
// pass it to Port.Call (or CallSettled). A fire that needs a person's
// approval raises an ask that belongs to that caller; the approval backs
// one fire by the same caller only, and another caller that confirms the
// same action and input is refused (APPROVAL_NOT_YOURS) without using it.
// Name one conversation per name (a chat session of several sharing a
// port): calls under the same name are one caller. An empty name is a
// caller with no identity, which can use an approval only by citing the
// ask's askId. A call whose context names no caller is the port's own:
// each Port is a caller of its own.
func WithCaller(ctx context.Context, name string) context.Context {
	if ctx == nil {
		ctx = context.Background()
	}
	id := ""
	if name != "" {
		id = "caller:" + name
	}
	return context.WithValue(ctx, callerKey{}, callerID{id})
}

// withMCPSession is the context of a call made in MCP session sid ("":
// no session, a caller with no identity).
func withMCPSession(ctx context.Context, sid string) context.Context {
	id := ""
	if sid != "" {
		id = "mcp-session:" + sid
	}
	return context.WithValue(ctx, callerKey{}, callerID{id})
}

// newPortCaller returns the identity of a new port.
func newPortCaller() string { return NewCallerName("port") }

// NewCallerName returns kind, a colon and 80 random bits: a caller
// identity no other port, kit or runtime mints, so an ask restored from a
// snapshot (which keeps its caller) can be used only by the caller that
// raised it, or one its host gives the same identity on purpose
// (PortOptions.Restore; portkit's Options.Caller), never by a newcomer
// that happens to be numbered the same.
func NewCallerName(kind string) string {
	var b [10]byte
	randomBytes(b[:])
	return kind + ":" + base32Lower(b[:])
}

// callerOf returns the caller a call's context names, or the port itself.
func (p *Port) callerOf(ctx context.Context) string {
	if c, ok := ctx.Value(callerKey{}).(callerID); ok {
		return c.id
	}
	return p.caller
}

// askPrefix begins every ask id.
const askPrefix = "ask_"

// newAskID returns a fresh ask id: askPrefix and 128 random bits from the
// system's cryptographic randomness (randomBytes), in lower-case base32.
// An id cannot be guessed from others, so citing one shows the caller was
// given it.
func newAskID() string {
	var b [16]byte
	randomBytes(b[:])
	return askPrefix + base32Lower(b[:])
}

// base32Lower encodes b in the RFC 4648 base32 alphabet, lower case,
// without padding.
func base32Lower(b []byte) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz234567"
	out := make([]byte, 0, (len(b)*8+4)/5)
	var acc uint32
	bits := 0
	for _, c := range b {
		acc = acc<<8 | uint32(c)
		bits += 8
		for bits >= 5 {
			bits -= 5
			out = append(out, alphabet[(acc>>uint(bits))&31])
		}
	}
	if bits > 0 {
		out = append(out, alphabet[(acc<<uint(5-bits))&31])
	}
	return string(out)
}
