//go:build !js && !wasip1

// The options of Session, and the tracer used when none is given.

package tracing

import (
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope to name the tracer with:
// provider.Tracer(tracing.ScopeName). A nil tracer given to Session or
// MCPServer is the global provider's tracer of this name.
const ScopeName = "github.com/agentwasm/agentwasm/tracing"

// Option configures Session.
type Option func(*config)

// config is what the options set.
type config struct {
	content bool
}

// WithContent records content: the person's message
// (gen_ai.input.messages) and the turn's text (gen_ai.output.messages) on
// invoke_agent, and each call's arguments (gen_ai.tool.call.arguments) and
// result (gen_ai.tool.call.result) on execute_tool. They are the texts the
// session already redacted: no token of its Auth or OpenAI key is among
// them. Without it no content is recorded.
func WithContent() Option {
	return func(c *config) { c.content = true }
}

// orGlobal returns t, or the global provider's tracer when t is nil.
func orGlobal(t trace.Tracer) trace.Tracer {
	if t == nil {
		return otel.Tracer(ScopeName)
	}
	return t
}
