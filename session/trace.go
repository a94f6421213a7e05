//go:build !js && !wasip1

// The tracing seam of a Session (Options.Tracer): what a tracer is told of
// a turn — its model requests, tool calls, discovery passes, MCP requests
// and waits for a person — as start functions that return a context for
// the children and a handle that ends the span. The calls into a Tracer
// are compiled into native builds only (trace_native.go); the wasm builds
// (trace_wasm.go) leave them out, so that the modules do no tracing work
// (a page traces from the module's events, in the loader). Package tracing
// implements Tracer with OpenTelemetry.

package session

import (
	"context"

	"github.com/agentwasm/agentwasm/session/mcpclient"
)

// Tracer is told what a session does, so that it can make spans of it
// (Options.Tracer), in the manner of net/http/httptrace: each Start
// function is called as something begins, with the context whose span is
// the parent, and returns the context of the new span (handed on to what
// runs inside it) and a handle that ends it. Package tracing implements it
// with the OpenTelemetry GenAI and MCP semantic conventions; the tree it
// makes of a turn:
//
//	StartTurn                 one per Chat or Resume call
//	├── StartDiscovery        a discovery pass the turn waits for
//	│   └── StartRequest      each MCP request of the pass (mcpclient.Tracer)
//	├── StartChat             one per model request (round)
//	├── StartTool             one per dispatched call, in order
//	│   └── StartRequest      the composition plane's MCP calls
//	└── TurnSpan.Await        one per ask the turn stopped on
//	    └── StartTurn         the Resume that answers it (TurnStart.Answers)
//
// A discovery pass outside a turn (RefreshTools, a background retry)
// starts from its caller's context, or from none: a root. The session hands
// the Tracer to its default MCP client (mcpclient.Config.Tracer), which
// makes the MCP request spans; an Options.MCPClient of the caller's is
// traced only if the caller gave it a Tracer.
//
// Trace context on the wire: each chat request (to the Studio AI proxy or
// an OpenAI-compatible endpoint) carries the headers Inject writes for the
// context StartChat returned; the MCP client writes them for each MCP
// request's span, as headers and in params._meta. A custom
// Options.Transport gets the chat span's context and may do the same.
//
// Concurrency: a Tracer is called from the goroutine running Chat or
// Resume and from the session's background goroutines (discovery passes,
// their retries, MCP requests), concurrently, so it must be safe for
// concurrent use. Each handle is used by one goroutine at a time, and its
// End is called once; nothing is called on a handle after its End. An
// ApprovalSpan is ended by whichever call settles its ask — a Resume, a
// Chat, Reset or Close — possibly on another goroutine than the one that
// made it. The calls are made in native builds only; they should return
// quickly, and a panic in one is recovered and ignored (the session goes
// on; what that call would have traced is lost).
//
// What a Tracer is given never holds a credential: every token of
// Options.Auth and the OpenAI key is redacted from every text (the person's
// message, tool arguments and results, error messages), as in the session's
// events. Texts that are content (TurnEnd.Text, Turn.Text,
// ToolStart.Arguments, DispatchRecord.Content) are the Tracer's to leave
// out; package tracing records them only when asked to (WithContent).
type Tracer interface {
	mcpclient.Tracer

	// StartTurn is called as a Chat or Resume call begins, before any
	// check (a call refused at once — busy, bad options, an unknown ask —
	// is a turn that ends at once), with the call's context.
	StartTurn(ctx context.Context, turn TurnStart) (context.Context, TurnSpan)

	// StartChat is called as a model request is about to be sent, with the
	// turn's context. The transport sends the request with the returned
	// context, and the session's transports send the trace context Inject
	// writes for it as headers.
	StartChat(ctx context.Context, chat ChatStart) (context.Context, ChatSpan)

	// StartTool is called as the session dispatches a tool call, with the
	// turn's context; the call runs with the returned context (the
	// composition plane's MCP requests are its children).
	StartTool(ctx context.Context, call ToolStart) (context.Context, ToolSpan)

	// StartDiscovery is called as a discovery pass begins: with the
	// context of the turn that started the pass and waits for it, or with
	// RefreshTools' context, or with a context that carries no span (a
	// background retry, or a pass a turn started but does not wait for).
	// The pass's MCP requests run with the returned context, which is never
	// cancelled by the turn's end.
	StartDiscovery(ctx context.Context) (context.Context, DiscoverySpan)
}

// The kinds of turn (TurnStart.Kind).
const (
	TurnKindSend   = "send"   // a Chat call
	TurnKindResume = "resume" // a Resume call
)

// TurnStart describes a turn to its Tracer.
type TurnStart struct {
	// Kind is TurnKindSend or TurnKindResume.
	Kind string
	// Model and Provider are the session's options (Options.Model,
	// Options.Provider); Direct says the session talks to an
	// OpenAI-compatible endpoint itself (Options.OpenAI), not to the
	// Studio AI proxy.
	Model, Provider string
	Direct          bool
	// Answers are the asks a Resume answers, in the order they arose
	// (asks the session does not know as pending are left out).
	Answers []AskAnswer
}

// AskAnswer is one ask a Resume answers.
type AskAnswer struct {
	AskID   string
	Approve bool
	// Wait is the ask's span, as the TurnSpan.Await of the turn that
	// stopped on it returned; nil when there is none (the ask was restored
	// from a snapshot, or its span was ended when the session closed). The
	// Resume's turn is the child of the first Wait, and may link the others.
	Wait ApprovalSpan
}

// TurnSpan is the end handle of a turn, used by the goroutine running it.
type TurnSpan interface {
	// Answered is called in a Resume as the doors take the answer to an
	// ask (an ask they refuse is not answered, and stays pending).
	Answered(askID string, approved bool)
	// Await is called as the turn ends, once for each ask raised during
	// it that still waits for a person (Turn.PendingApprovals), before End.
	// It returns the handle of the wait, which the session ends when the
	// ask is settled: answered by a Resume, dropped by a Chat, Reset or
	// Close. Nil: nothing to end.
	Await(ask PendingApproval) ApprovalSpan
	// End is called once, as Chat or Resume returns.
	End(end TurnEnd)
}

// TurnEnd is how a turn ended.
type TurnEnd struct {
	// Turn is the turn as Chat or Resume returns it.
	Turn Turn
	// Text is the person's message of a send ("" for a resume), every
	// token the session knows by the turn's end redacted (it learns them as
	// its requests fetch them): content.
	Text string
}

// The ways a wait for a person ends (ApprovalSpan.End).
const (
	ApprovalApproved  = "approved"  // a Resume approved the ask
	ApprovalDeclined  = "declined"  // a Resume declined it
	ApprovalAbandoned = "abandoned" // Close, Reset or a Chat dropped it unanswered
)

// ApprovalSpan is the end handle of one wait for a person.
type ApprovalSpan interface {
	// End is called once, with ApprovalApproved, ApprovalDeclined or
	// ApprovalAbandoned.
	End(outcome string)
}

// ChatStart describes one model request to its Tracer.
type ChatStart struct {
	// Round is the turn's round, from 1.
	Round int
	// Model and Provider are the request's (the session's options);
	// Direct says it goes to an OpenAI-compatible endpoint (Options.OpenAI).
	Model, Provider string
	Direct          bool
	// URL is where the request goes: the Studio AI proxy's chat URL, or
	// the OpenAI-compatible endpoint's base URL (the same host and port as
	// its chat URL); "" for a custom Options.Transport. It never holds a
	// credential (New refuses URLs with one).
	URL string
}

// ChatSpan is the end handle of one model request, used by the goroutine
// running the turn.
type ChatSpan interface {
	// FirstEvent is called once, as the first event of the answer's stream
	// arrives.
	FirstEvent()
	// End is called once, when the answer's stream ended or failed.
	End(chat ChatEnd)
}

// ChatEnd is how a model request ended.
type ChatEnd struct {
	// ResponseModel is the model messageStart named ("" when none).
	ResponseModel string
	// StopReason is messageStop's stopReason ("" when none arrived).
	StopReason string
	// InputTokens and OutputTokens are messageStop's promptTokens and
	// completionTokens.
	InputTokens, OutputTokens int64
	// ErrorType is "" when the answer arrived whole; otherwise the error
	// event's errorCode ("_OTHER" when it had none), the code of a bound
	// the session enforces (stream_timeout, turn_too_large …) or of the
	// direct transport's failure (upstream_…), "transport_error" for any
	// other failure to send or read, "truncated" for a stream that ended
	// without messageStop, or "cancelled" when the turn was cancelled.
	ErrorType string
	// ErrorMessage says what failed, every known token redacted.
	ErrorMessage string
}

// ToolStart describes one dispatched tool call to its Tracer.
type ToolStart struct {
	Name   string // the tool the model called
	CallID string // the call's id
	// Arguments are the call's arguments as the model sent them, every
	// known token redacted: content.
	Arguments RawJSON
}

// ToolSpan is the end handle of one tool call, used by the goroutine
// running the turn.
type ToolSpan interface {
	// ConflictRetry is called as a composition call that met a stale
	// draft (CodeFailedPrecondition) starts to reload the draft and retry.
	ConflictRetry()
	// End is called once, with the call's record as the turn keeps it
	// (every known token redacted) and, when its result asked for a person,
	// the ask's id.
	End(rec DispatchRecord, askID string)
}

// DiscoverySpan is the end handle of one discovery pass.
type DiscoverySpan interface {
	// End is called once, with the pass's report (what the session
	// publishes, every known token redacted).
	End(report ToolDiscoveryReport)
}
