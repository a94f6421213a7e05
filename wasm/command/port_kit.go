// A port as a session's kit, with the page's own tools beside it: the
// port's tools always go through the port (its gates, its approvals), and
// the execute hook runs only the session's own tools.

package command

import (
	"context"

	"github.com/agentwasm/agentwasm/portkit"
	"github.com/agentwasm/agentwasm/session"
)

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
