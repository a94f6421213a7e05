//go:build !agentwasm_sessiononly

// A port as a session's kit, with the page's own tools beside it: the
// port's tools always go through the port (its gates, its approvals), and
// the execute hook runs only the session's own tools.

package command

import (
	"context"
	"strconv"

	"github.com/agentwasm/agentwasm/internal/wire"
	"github.com/agentwasm/agentwasm/portkit"
	"github.com/agentwasm/agentwasm/session"
)

// portAsKit makes the open port with that id the session's kit (options
// {port}); a failure reply says why it cannot.
func (r *Runtime) portAsKit(port int, opts *session.Options) *wire.Reply {
	r.mu.Lock()
	e := r.ports[port]
	r.mu.Unlock()
	if e == nil {
		return failure(CodeBadOptions, "agentwasm: the session's port "+strconv.Itoa(port)+" is not open; create it with port.create first")
	}
	// Each session gets a kit of its own, and each kit is a caller of its
	// own (portkit.Kit): an ask the session's model raises is that
	// session's, and another session on the same port cannot use its
	// approval.
	//
	// A session restored from a snapshot (session.create's restore) over
	// a port restored from one (port.create's restore) adopts the caller
	// of the asks it is still waiting on: holding their unguessable ids is
	// the proof, and the person's approval after the reload backs its
	// confirm as it would have the old session's.
	kit := portkit.New(e.port, portkit.Options{SettleWithin: settleWithin(e.opts), Adopt: pendingAskIDs(opts.Restore)})
	opts.Kit = kit
	if opts.Execute != nil {
		// The execute hook runs the session's own tools only: a port
		// tool always goes through the port and its gates.
		opts.Kit, opts.Execute = newPageToolsBesidePort(kit, opts.Execute), nil
	}
	return nil
}

// pendingAskIDs returns the askIds a session snapshot's pending list
// holds; nothing for no snapshot or one that does not read (session.New
// refuses that one itself).
func pendingAskIDs(snapshot []byte) []string {
	if len(snapshot) == 0 {
		return nil
	}
	var s wire.SessionSnapshot
	if wire.Unmarshal(snapshot, &s) != nil {
		return nil
	}
	ids := make([]string, 0, len(s.Pending))
	for _, p := range s.Pending {
		ids = append(ids, p.AskID)
	}
	return ids
}

// pageToolsBesidePort is a port kit whose calls of other tools (the
// session's tools option) go to the page's execute hook.
type pageToolsBesidePort struct {
	*portkit.Kit
	page  session.Executor
	ports map[string]bool // the port's tool names
}

func newPageToolsBesidePort(k *portkit.Kit, page session.Executor) pageToolsBesidePort {
	ports := map[string]bool{}
	for _, t := range k.Tools() {
		ports[t.Name] = true
	}
	return pageToolsBesidePort{Kit: k, page: page, ports: ports}
}

// Execute sends a port tool's call to the port, any other to the page.
func (k pageToolsBesidePort) Execute(ctx context.Context, call session.ToolCall) (session.ToolResult, error) {
	if k.ports[call.Name] {
		return k.Kit.Execute(ctx, call)
	}
	return k.page.Execute(ctx, call)
}
