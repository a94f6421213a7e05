// Package portkit hands a serving port to an agent session as its kit: the
// in-page agent drives the app it lives in through the app's own journeys.
//
// The port's tools are advertised as the session's runtime tools, each call
// goes to Port.Call and comes back as the tool result, and a fire that
// settles within SettleWithin comes back settled. The human-side doors
// (approveAsk, declineAsk, revokeAsk, alwaysApprove) are not tools: the
// approval cards stay with the page, and the model never approves.
//
// A result that waits for a person (needs-confirm with awaitingHuman, when
// the app requires human approval) carries a session.ApprovalRequest, so
// the turn stops there with the ask in Turn.PendingApprovals; the host
// answers it with session.Session.Resume, which comes back to the kit's
// AnswerAsk (the port's ApproveAsk or DeclineAsk, by "person").
//
// portkit is the library's join of session and serve (the module's command
// layer and cmd/agentwasm, which sit on top, import both too); neither of
// them knows the other.
package portkit

import (
	"context"
	"strings"
	"time"

	"github.com/agentwasm/agentwasm/serve"
	"github.com/agentwasm/agentwasm/session"
)

// DefaultSettleWithin is how long a call waits for a fire to settle before
// answering it pending, as the MCP server does.
const DefaultSettleWithin = 250 * time.Millisecond

// Options configure a Kit.
type Options struct {
	// SettleWithin bounds the wait for a fire to settle
	// [DefaultSettleWithin]; a negative value answers at once.
	SettleWithin time.Duration
	// SystemPrompt replaces the kit's system prompt; empty keeps the
	// default, which tells the model how to use the port's tools.
	SystemPrompt string
	// Adopt lists asks a restored session is still waiting on (its
	// snapshot's pending askIds) on a port restored from a snapshot
	// (serve.AppOptions.Restore): the kit takes the caller identity the
	// first of them that a kit raised records, so the person's approval of
	// it backs this kit's fire as it would have the old kit's. Holding an
	// ask's id (unguessable) is the proof, as for a caller citing it. Ids
	// the port does not know, or asks no kit raised, are skipped; with
	// none left the kit is a new caller.
	Adopt []string
}

// Kit is a serve.Port as a session.Kit (and session.SystemPrompter). It is
// safe for concurrent use.
//
// Each Kit is a caller of its own (serve.WithCaller): an ask raised through
// one kit is approved for that kit's fires only, so two sessions sharing a
// port through two kits cannot use each other's approvals.
type Kit struct {
	port   *serve.Port
	opts   Options
	tools  []session.ToolDefinition
	prompt string
	caller string
}

// kitCaller begins the journal identity of every kit's calls: a kit calls
// under serve.WithCaller(ctx, "kit:…"), which the journal records as
// "caller:kit:…".
const kitCaller = "caller:kit:"

// adoptedCaller returns the WithCaller name of the first of askIDs that a
// kit raised on p, or "".
func adoptedCaller(p *serve.Port, askIDs []string) string {
	for _, id := range askIDs {
		if info, ok := p.App().Ask(id); ok && strings.HasPrefix(info.Caller, kitCaller) {
			return strings.TrimPrefix(info.Caller, "caller:")
		}
	}
	return ""
}

var (
	_ session.Kit            = (*Kit)(nil)
	_ session.SystemPrompter = (*Kit)(nil)
	_ session.ApprovalDoors  = (*Kit)(nil)
)

// New returns the kit of p.
func New(p *serve.Port, opts Options) *Kit {
	if opts.SettleWithin == 0 {
		opts.SettleWithin = DefaultSettleWithin
	}
	k := &Kit{port: p, opts: opts, caller: adoptedCaller(p, opts.Adopt)}
	if k.caller == "" {
		k.caller = serve.NewCallerName("kit")
	}
	for _, t := range p.Tools() {
		def := session.ToolDefinition{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}
		def.Annotations = annotationsJSON(t.Annotations)
		k.tools = append(k.tools, def)
	}
	k.prompt = opts.SystemPrompt
	if k.prompt == "" {
		k.prompt = defaultPrompt(p)
	}
	return k
}

// Port returns the kit's port.
func (k *Kit) Port() *serve.Port { return k.port }

// Tools returns the port's tools, in the port's fixed order.
func (k *Kit) Tools() []session.ToolDefinition {
	return append([]session.ToolDefinition(nil), k.tools...)
}

// Execute calls the port. Every answer of the port, refusals and pauses
// included, is a tool result the model reads: status ok, with the port's
// result object as data; only an error the port itself reports (an unknown
// tool, a failure inside the port) has status error. A needs-confirm result
// awaiting a person (awaitingHuman) carries its askId and action as the
// result's Approval.
func (k *Kit) Execute(ctx context.Context, call session.ToolCall) (session.ToolResult, error) {
	r := serve.CallSettled(serve.WithCaller(ctx, k.caller), k.port, call.Name, call.Args, k.opts.SettleWithin)
	status := session.ToolOK
	if r.IsError() {
		status = session.ToolError
	}
	return session.ToolResult{Status: status, Data: r.JSON(), Approval: approvalOf(r)}, nil
}

// SystemPrompt tells the model how to act in the app; it is used when the
// session has no system option of its own.
func (k *Kit) SystemPrompt(context.Context) (string, error) {
	return k.prompt, nil
}

// defaultPrompt names the port's doors for the model.
func defaultPrompt(p *serve.Port) string {
	var whatsHere, didItWork string
	for _, t := range p.Tools() {
		switch {
		case strings.HasSuffix(t.Name, "whats_here"):
			whatsHere = t.Name
		case strings.HasSuffix(t.Name, "did_it_work"):
			didItWork = t.Name
		}
	}
	return "You act inside the app \"" + p.App().Graph().ID + "\" through its own tools. " +
		"Call " + whatsHere + " first to see where the person is and what can be done; its facts outrank the conversation. " +
		"High-effect steps answer needs-confirm: tell the person what will happen and call again with confirm:true only after they agree; " +
		"where the app asks for a person's approval, they give it in the page, never through you. " +
		"A fire that is still pending is not done: check it with " + didItWork + " before you say it happened."
}

// annotationsJSON renders a tool's MCP annotations.
func annotationsJSON(a serve.ToolAnnotations) []byte {
	b := []byte(`{`)
	sep := ""
	if a.Title != "" {
		b = serve.AppendValue(append(b, `"title":`...), a.Title)
		sep = ","
	}
	if a.ReadOnlyHint {
		b = append(b, sep+`"readOnlyHint":true`...)
		sep = ","
	}
	if a.DestructiveHint {
		b = append(b, sep+`"destructiveHint":true`...)
	}
	return append(b, '}')
}
