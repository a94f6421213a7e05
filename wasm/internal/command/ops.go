// The command table: every op the module answers, with its handler, whether
// it never waits, and a one-line summary. The dispatcher (Runtime.Call), the
// js build's callSync and the unknown-op message all come from it, and
// ops_test.go checks wasm/README.md's command table against it.

package command

import (
	"context"
	"strconv"
	"strings"

	"github.com/agentwasm/agentwasm/internal/wire"
)

// Op describes one command of the module (wasm/README.md, Commands).
type Op struct {
	// Name is the command's op field, e.g. "session.chat".
	Name string
	// Sync is true for a command that never waits: the js build serves it
	// through callSync as well as call.
	Sync bool
	// Reads is true for a sync command that only reads: it ends no wait
	// of another goroutine (it cancels nothing, closes nothing, settles no
	// ask), so the js build need not run the Go scheduler after it.
	Reads bool
	// syncIf, for an op that is not Sync, says whether one command of it
	// never waits all the same (port.call without settleWithinMs: a fire's
	// handler runs on its own goroutine after the call has answered).
	syncIf func(c *wire.Command) bool
	// TestOnly is true for the debug.* commands, which only a Runtime made
	// with test hooks answers; the others answer them as unknown ops.
	TestOnly bool
	// Summary says in one line what the command does.
	Summary string

	run handler
}

// handler runs one decoded command.
type handler func(r *Runtime, ctx context.Context, c *wire.Command, hooks Hooks) *wire.Reply

// ops is the command table, in the order of wasm/README.md's table.
var ops = []Op{
	{Name: "version", Sync: true, Reads: true, Summary: "the module's release, ABI and Go versions", run: (*Runtime).opVersion},
	{Name: "session.create", Sync: true, Summary: "creates a session from JSON options and the host's hooks", run: (*Runtime).createSession},
	{Name: "session.chat", Summary: "runs one turn and answers its record", run: (*Runtime).chat},
	{Name: "session.resume", Summary: "answers pending asks through the kit's human doors, runs the turn on and answers its record", run: (*Runtime).resume},
	{Name: "session.reset", Sync: true, Summary: "clears the history; the capabilities cache is kept", run: (*Runtime).sessionReset},
	{Name: "session.messages", Sync: true, Reads: true, Summary: "the conversation history", run: (*Runtime).sessionMessages},
	{Name: "session.tools", Sync: true, Reads: true, Summary: "the tools the next turn will advertise", run: (*Runtime).sessionTools},
	{Name: "session.toolDiscovery", Sync: true, Reads: true, Summary: "the last published discovery report", run: (*Runtime).sessionToolDiscovery},
	{Name: "session.refreshTools", Summary: "runs a new discovery pass and waits for it", run: (*Runtime).sessionRefreshTools},
	{Name: "session.reconnect", Summary: "ends the MCP session (the MCP client's close may do I/O)", run: (*Runtime).sessionReconnect},
	{Name: "session.draft", Sync: true, Reads: true, Summary: "the bound composition draft", run: (*Runtime).sessionDraft},
	{Name: "session.attachDraft", Sync: true, Summary: "binds the composition draft, or unbinds it", run: (*Runtime).sessionAttachDraft},
	{Name: "session.snapshot", Sync: true, Reads: true, Summary: "the session's state as a snapshot object, for session.create's restore", run: (*Runtime).sessionSnapshot},
	{Name: "session.close", Sync: true, Summary: "ends a session and its list-changed watch", run: (*Runtime).closeSession},
	{Name: "poll", Summary: "lets background work run for timeoutMs", run: (*Runtime).poll},
	{Name: "debug.panic", TestOnly: true, Summary: "panics on purpose, to test the recovery", run: (*Runtime).debugPanic},
	{Name: "debug.gcPercent", TestOnly: true, Summary: "the Go collector's GOGC setting in this instance", run: (*Runtime).debugGCPercent},
	{Name: "debug.crash", TestOnly: true, Summary: "kills the module with a panic no recover catches, to test the host's handling of a dead module", run: (*Runtime).debugCrash},
	{Name: "port.create", Sync: true, Summary: "builds a serving port from a graph and JSON options", run: (*Runtime).createPort},
	{Name: "port.tools", Sync: true, Reads: true, Summary: "the port's tool array", run: (*Runtime).portTools},
	{Name: "port.call", syncIf: func(c *wire.Command) bool { return c.SettleWithinMs <= 0 }, Summary: "calls one of the port's tools (a fire may start a handler)", run: (*Runtime).portCall},
	{Name: "port.mcp", Summary: "answers one MCP JSON-RPC message (may wait for a fire to settle)", run: (*Runtime).portMCPCommand},
	{Name: "port.state", Sync: true, Reads: true, Summary: "where the app session stands", run: (*Runtime).portState},
	{Name: "port.navigate", Sync: true, Summary: "the person moved to a page", run: (*Runtime).portNavigate},
	{Name: "port.patch", Sync: true, Summary: "patches state keys", run: (*Runtime).portPatch},
	{Name: "port.report", Sync: true, Summary: "the person did an action", run: (*Runtime).portReport},
	{Name: "port.asks", Sync: true, Reads: true, Summary: "the asks, for the page's approval cards", run: (*Runtime).portAsks},
	{Name: "port.approveAsk", Sync: true, Summary: "approves an ask (a human-side door)", run: (*Runtime).portApproveAsk},
	{Name: "port.declineAsk", Sync: true, Summary: "declines an ask (a human-side door)", run: (*Runtime).portDeclineAsk},
	{Name: "port.revokeAsk", Sync: true, Summary: "withdraws an approval not yet used", run: (*Runtime).portRevokeAsk},
	{Name: "port.alwaysApprove", Sync: true, Summary: "a standing grant for one action", run: (*Runtime).portAlwaysApprove},
	{Name: "port.setInstances", Sync: true, Summary: "which cards of a repeating area are mounted", run: (*Runtime).portSetInstances},
	{Name: "port.setBusy", Sync: true, Summary: "marks an action, area or page busy with a label (empty clears)", run: (*Runtime).portSetBusy},
	{Name: "port.transition", Sync: true, Reads: true, Summary: "one transition's record", run: (*Runtime).portTransition},
	{Name: "port.snapshot", Sync: true, Reads: true, Summary: "the port's ask journal as a snapshot document, for port.create's restore", run: (*Runtime).portSnapshot},
	{Name: "port.close", Sync: true, Summary: "ends a port", run: (*Runtime).closePort},
}

// opIndex finds a table entry by name.
var opIndex = func() map[string]*Op {
	m := make(map[string]*Op, len(ops))
	for i := range ops {
		m[ops[i].Name] = &ops[i]
	}
	return m
}()

// opList is the unknown-op message's list: every op but the test-only ones.
var opList = func() string {
	var names []string
	for _, o := range ops {
		if !o.TestOnly {
			names = append(names, o.Name)
		}
	}
	return strings.Join(names, ", ")
}()

// Ops returns the command table: every op the module answers, in the order
// wasm/README.md lists them.
func Ops() []Op {
	return append([]Op(nil), ops...)
}

// SyncFor reports whether command c of this op never waits: the op is
// Sync, or this command of it answers without waiting (syncIf). The js
// build serves such a command through callSync.
func (o Op) SyncFor(c *wire.Command) bool {
	return o.Sync || (o.syncIf != nil && c != nil && o.syncIf(c))
}

// LookupOp returns the table entry of the op name, and false if no such
// op exists.
func LookupOp(name string) (Op, bool) {
	if o := opIndex[name]; o != nil {
		return *o, true
	}
	return Op{}, false
}

// run dispatches one decoded command through the table.
func (r *Runtime) run(ctx context.Context, c *wire.Command, hooks Hooks) *wire.Reply {
	if o := opIndex[c.Op]; o != nil && (!o.TestOnly || r.testHooks) {
		return o.run(r, ctx, c, hooks)
	}
	return failure(CodeBadCommand, "agentwasm: unknown op "+strconv.Quote(c.Op)+"; the ops are "+opList)
}
