// The port as an MCP tool server: every port result becomes a CallToolResult
// (text content and structuredContent, the same object), and a fire's result
// is held up to a ceiling for its transition to settle (the settlement fold),
// with progress notifications around the wait when the client asks for them.
// The server itself (the dispatcher, its two eras, the HTTP transport) is
// serve/mcpserver; this file only adapts a port to its ToolServer.

package serve

import (
	"context"
	"strconv"
	"time"

	"github.com/agentwasm/agentwasm/internal/mcp"
	"github.com/agentwasm/agentwasm/serve/mcpserver"
)

// MCPServerOptions configure the MCP server of a port: the port options,
// the serverInfo, and the settlement ceiling.
type MCPServerOptions struct {
	PortOptions
	Name    string // serverInfo name [the graph id]
	Version string // serverInfo version ["0.0.0"]
	// SettleWithin is how long a tools/call that fired waits for the fire to
	// settle before it answers pending [250 ms]; negative: never wait.
	SettleWithin time.Duration
	// Sessions makes initialize issue Mcp-Session-Id (session era).
	Sessions bool
	// Instructions, when set, is sent with initialize and server/discover.
	Instructions string
	// Tracer, when set, makes a server span of each MCP request, whose
	// parent is the trace the client sent (params._meta, else the
	// traceparent header): see mcpserver.Tracer, and tracing.MCPServer for
	// OpenTelemetry spans. Native builds only.
	Tracer mcpserver.Tracer
}

// NewMCPServer builds a port over app and the MCP dispatcher that serves it.
// Wrap the dispatcher with mcpserver.NewHandler for Streamable HTTP (native
// builds).
func NewMCPServer(app *App, opts MCPServerOptions) (*mcpserver.Dispatcher, *Port, error) {
	p, err := NewPort(app, opts.PortOptions)
	if err != nil {
		return nil, nil, err
	}
	name := opts.Name
	if name == "" && app != nil && app.Graph() != nil {
		name = app.Graph().ID
	}
	within := opts.SettleWithin
	switch {
	case within == 0:
		within = DefaultSettleWithin
	case within < 0:
		within = 0
	}
	d := mcpserver.New(NewPortToolServer(p, within), mcpserver.Options{
		Name: name, Version: opts.Version, Sessions: opts.Sessions, Instructions: opts.Instructions, Tracer: opts.Tracer,
	})
	return d, p, nil
}

// NewPortToolServer serves a port's tools over MCP. settleWithin is the
// settlement ceiling: a result that fired (it carries a transitionId and is
// pending) waits up to that long, or until the call's context ends, for the
// transition to settle; a settled one gets the settled facts folded in and
// loses its settleWith pointer, otherwise it is returned pending. 0 never
// waits. Pauses and refusals carry no transitionId and return at once. A
// call whose request carried a progressToken (over a transport that can
// stream) gets notifications/progress: 0 of 1 when it starts, 1 of 1 when
// it answers, saying whether the fire settled. The dispatcher answers a
// tool name the port does not list with -32602; Port.Call keeps its
// UNKNOWN_TOOL result for the in-page path. Each MCP session is a caller
// of its own (WithCaller): an approval backs one fire of the session that
// asked for it; a call without a session (the stateless era, or a
// dispatcher without Sessions) can use one only by citing its askId.
func NewPortToolServer(p *Port, settleWithin time.Duration) mcpserver.ToolServer {
	if settleWithin < 0 {
		settleWithin = 0
	}
	return &portToolServer{p: p, within: settleWithin}
}

type portToolServer struct {
	p      *Port
	within time.Duration
}

// ListTools returns the port's tool array (byte-identical for its life).
func (s *portToolServer) ListTools() []byte { return s.p.ToolsJSON() }

// CallTool calls the port and wraps its result for MCP. The call has no
// identity (no MCP session): an approval backs its fire only when it cites
// the ask's askId.
func (s *portToolServer) CallTool(ctx context.Context, name string, args []byte) []byte {
	return callToolResult(CallSettled(withMCPSession(ctx, ""), s.p, name, args, s.within))
}

// HandleToolCall is CallTool made by the call's MCP session (its caller;
// none in the stateless era), with progress: when the call has a Progress
// function and the server waits for fires to settle, it reports the start
// and the end of the call (the end says whether a fire settled).
func (s *portToolServer) HandleToolCall(ctx context.Context, call mcpserver.ToolCall) ([]byte, *mcpserver.Error) {
	ctx = withMCPSession(ctx, call.SessionID)
	if call.Progress == nil || s.within <= 0 {
		return callToolResult(CallSettled(ctx, s.p, call.Name, call.Arguments, s.within)), nil
	}
	call.Progress(0, 1, "calling "+call.Name+"; a fire waits up to "+strconv.FormatInt(s.within.Milliseconds(), 10)+" ms to settle")
	res := CallSettled(ctx, s.p, call.Name, call.Arguments, s.within)
	call.Progress(1, 1, s.settleMessage(res))
	return callToolResult(res), nil
}

// settleMessage says how a call ended, for its last progress notification.
func (s *portToolServer) settleMessage(res Result) string {
	if res.TransitionID() == "" {
		return "done: nothing fired"
	}
	st, _ := res.Get("effectStatus")
	status, _ := st.(string)
	if settled, _ := res.Get("settled"); settled == true {
		return "settled: " + status
	}
	return "not settled yet (" + status + "): " + s.p.DidItWorkTool() + " tells how it ends"
}

// callToolResult writes a port result as an MCP CallToolResult: one text
// block with the compact JSON, the same object as structuredContent, and
// isError only when the port says so (a failure inside the port; an unknown
// tool never gets here, the dispatcher answers it -32602).
func callToolResult(res Result) []byte {
	obj := res.JSON()
	return mcp.ToolResult(string(obj), obj, res.IsError())
}
