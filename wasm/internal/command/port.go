//go:build !agentwasm_sessiononly

// The serving port's commands (port.*): build a port from a graph with the
// host's action handlers behind the "handler" hook, call its tools, and
// serve the human-side approval doors and host reports.

package command

import (
	"context"
	"errors"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/internal/rawjson"
	"github.com/agentwasm/agentwasm/internal/wire"
	"github.com/agentwasm/agentwasm/serve"
	"github.com/agentwasm/agentwasm/serve/mcpserver"
)

// HasServe is true: this build has the serving port (the version op
// reports it as serve); the session-only build (port_absent.go) has not.
const HasServe = true

// portEntry is one open port.
type portEntry struct {
	port   *serve.Port
	opts   wire.PortOptions
	mcp    *mcpserver.Dispatcher // built on first port.mcp
	closed atomic.Bool           // port.close: no more events to the host
}

// The handlers of the port.* ops (the command table is in ops.go).

// closePort ends a port. Later calls, from the host or from a session whose
// kit it is, answer PORT_CLOSED; fires already running settle when their
// handlers answer; the host hears no more events.
func (r *Runtime) closePort(_ context.Context, c *wire.Command, _ Hooks) *wire.Reply {
	r.mu.Lock()
	e := r.ports[c.Port]
	delete(r.ports, c.Port)
	r.mu.Unlock()
	if e == nil {
		return unknownPort(c.Port)
	}
	e.closed.Store(true)
	e.port.Close()
	return &wire.Reply{OK: true}
}

// portSnapshot answers the port's ask journal as a snapshot document
// (serve.Port.Snapshot): {"ok":true,"snapshot":{…}}. port.create's restore
// option takes it back, in a new runtime too.
func (r *Runtime) portSnapshot(_ context.Context, c *wire.Command, _ Hooks) *wire.Reply {
	return r.withPort(c, func(e *portEntry) *wire.Reply {
		b, err := e.port.Snapshot()
		if err != nil {
			return failure(CodeInternal, err.Error())
		}
		return &wire.Reply{OK: true, Snapshot: b}
	})
}

func (r *Runtime) portTools(_ context.Context, c *wire.Command, _ Hooks) *wire.Reply {
	return r.withPort(c, func(e *portEntry) *wire.Reply { return value(e.port.ToolsJSON()) })
}

func (r *Runtime) portCall(ctx context.Context, c *wire.Command, _ Hooks) *wire.Reply {
	return r.withPort(c, func(e *portEntry) *wire.Reply {
		if c.SettleWithinMs > 0 {
			return value(serve.CallSettled(ctx, e.port, c.Name, c.Args, time.Duration(c.SettleWithinMs)*time.Millisecond).JSON())
		}
		return value(e.port.Call(ctx, c.Name, c.Args).JSON())
	})
}

func (r *Runtime) portMCPCommand(ctx context.Context, c *wire.Command, _ Hooks) *wire.Reply {
	return r.withPort(c, func(e *portEntry) *wire.Reply { return r.portMCP(ctx, c, e) })
}

func (r *Runtime) portState(_ context.Context, c *wire.Command, _ Hooks) *wire.Reply {
	return r.withPort(c, func(e *portEntry) *wire.Reply { return value(stateJSON(e.port.App())) })
}

func (r *Runtime) portNavigate(_ context.Context, c *wire.Command, _ Hooks) *wire.Reply {
	return r.withPort(c, func(e *portEntry) *wire.Reply {
		return done(e.port.App().Navigate(c.Page, principal(c.By)))
	})
}

func (r *Runtime) portPatch(_ context.Context, c *wire.Command, _ Hooks) *wire.Reply {
	return r.withPort(c, func(e *portEntry) *wire.Reply {
		st, err := stateArg(c.State, "port.patch's state")
		if err != nil {
			return failure(CodeBadCommand, err.Error())
		}
		return done(e.port.App().Patch(st, principal(c.By)))
	})
}

func (r *Runtime) portReport(_ context.Context, c *wire.Command, _ Hooks) *wire.Reply {
	return r.withPort(c, func(e *portEntry) *wire.Reply {
		input, err := optionalValue(c.Input, "port.report's input")
		if err != nil {
			return failure(CodeBadCommand, err.Error())
		}
		data, err := optionalValue(c.Data, "port.report's data")
		if err != nil {
			return failure(CodeBadCommand, err.Error())
		}
		id, err := e.port.App().ReportInstance(c.Action, c.Instance, input, data)
		if err != nil {
			return failure(CodeRefused, err.Error())
		}
		return value(append(strconv.AppendQuote([]byte(`{"transitionId":`), id), '}'))
	})
}

func (r *Runtime) portApproveAsk(_ context.Context, c *wire.Command, _ Hooks) *wire.Reply {
	return r.withPort(c, func(e *portEntry) *wire.Reply { return done(e.port.App().ApproveAsk(c.AskID, c.By)) })
}

func (r *Runtime) portDeclineAsk(_ context.Context, c *wire.Command, _ Hooks) *wire.Reply {
	return r.withPort(c, func(e *portEntry) *wire.Reply { return done(e.port.App().DeclineAsk(c.AskID, c.By)) })
}

func (r *Runtime) portRevokeAsk(_ context.Context, c *wire.Command, _ Hooks) *wire.Reply {
	return r.withPort(c, func(e *portEntry) *wire.Reply { return done(e.port.App().RevokeAsk(c.AskID, c.By)) })
}

func (r *Runtime) portAlwaysApprove(_ context.Context, c *wire.Command, _ Hooks) *wire.Reply {
	return r.withPort(c, func(e *portEntry) *wire.Reply {
		if c.ExpiresInMs < 0 {
			return failure(CodeBadCommand, "agentwasm: alwaysApprove's expiresInMs must be 0 (no expiry) or more")
		}
		return done(e.port.App().AlwaysApprove(c.Action, c.By, time.Duration(c.ExpiresInMs)*time.Millisecond))
	})
}

func (r *Runtime) portSetInstances(_ context.Context, c *wire.Command, _ Hooks) *wire.Reply {
	return r.withPort(c, func(e *portEntry) *wire.Reply { return done(e.port.App().SetInstances(c.Area, c.Keys)) })
}

func (r *Runtime) portSetBusy(_ context.Context, c *wire.Command, _ Hooks) *wire.Reply {
	return r.withPort(c, func(e *portEntry) *wire.Reply { return done(e.port.App().SetBusy(c.ID, c.Label)) })
}

func (r *Runtime) portAsks(_ context.Context, c *wire.Command, _ Hooks) *wire.Reply {
	return r.withPort(c, func(e *portEntry) *wire.Reply { return value(asksJSON(e.port.App().Asks())) })
}

func (r *Runtime) portTransition(_ context.Context, c *wire.Command, _ Hooks) *wire.Reply {
	return r.withPort(c, func(e *portEntry) *wire.Reply {
		t, found := e.port.App().Transition(c.ID)
		if !found {
			return failure(CodeRefused, "agentwasm: no transition "+strconv.Quote(c.ID)+" in this port's app session; transition ids come from the port's results (transitionId)")
		}
		return value(transitionJSON(t))
	})
}

// CodeRefused answers a port command the app session refused (an unknown
// ask, a page that is not declared): the message says which and why.
const CodeRefused = "refused"

func unknownPort(id int) *wire.Reply {
	return failure(CodeUnknownPort, "agentwasm: no open port has id "+strconv.Itoa(id)+"; create one with port.create")
}

// withPort runs fn on the command's port.
func (r *Runtime) withPort(c *wire.Command, fn func(*portEntry) *wire.Reply) *wire.Reply {
	r.mu.Lock()
	e := r.ports[c.Port]
	r.mu.Unlock()
	if e == nil {
		return unknownPort(c.Port)
	}
	return fn(e)
}

// value is a successful reply carrying v.
func value(v []byte) *wire.Reply { return &wire.Reply{OK: true, Value: v} }

// done answers a door or report: ok, or the app session's refusal.
func done(err error) *wire.Reply {
	if err != nil {
		return failure(CodeRefused, err.Error())
	}
	return &wire.Reply{OK: true}
}

// principal reads a "by" argument of a host report; the host speaks for the
// person unless it says otherwise (a name that is no principal reads
// "unknown").
func principal(by string) serve.Principal {
	if by == "" {
		return serve.PrincipalUser
	}
	return serve.Principal(by)
}

func (r *Runtime) createPort(_ context.Context, c *wire.Command, hooks Hooks) *wire.Reply {
	if len(c.Graph) == 0 {
		return failure(CodeBadOptions, "agentwasm: port.create needs a graph")
	}
	var o wire.PortOptions
	if len(c.Options) > 0 {
		if err := wire.Unmarshal(c.Options, &o); err != nil {
			return failure(CodeBadOptions, "agentwasm: port options are malformed: "+err.Error())
		}
	}
	g, err := serve.ParseGraph(c.Graph)
	if err != nil {
		return failure(CodeBadOptions, err.Error())
	}
	st, err := stateArg(o.State, "the port's state option")
	if err != nil {
		return failure(CodeBadOptions, err.Error())
	}
	r.mu.Lock()
	r.nextID++
	id := r.nextID
	r.mu.Unlock()
	entry := &portEntry{opts: o}
	emit := func(ev *wire.PortEvent) {
		if hooks.OnEvent == nil || entry.closed.Load() {
			return
		}
		b, err := wire.Marshal(ev)
		if err == nil {
			hooks.OnEvent(id, b)
		}
	}
	handlers := make(map[string]serve.Handler, len(o.Handlers))
	for _, action := range o.Handlers {
		if g.Action(action) == nil {
			return failure(CodeBadOptions, "agentwasm: a handler is given for "+strconv.Quote(action)+", which the graph does not declare")
		}
		if hooks.Call == nil {
			return failure(CodeBadOptions, "agentwasm: the port has handlers but the host supplied no way to call them")
		}
		handlers[action] = hookHandler(hostHooks{call: hooks.Call, session: id})
	}
	app, err := serve.NewApp(g, serve.AppOptions{
		Restore:              o.Restore,
		Page:                 o.Page,
		State:                st,
		RequireHumanApproval: o.RequireHumanApproval,
		Handlers:             handlers,
		OnWarn: func(w serve.Warning) {
			emit(&wire.PortEvent{Type: "warning", Warning: &wire.PortWarning{Code: w.Code, Message: w.Message, Action: w.Action}})
		},
	})
	if errors.Is(err, serve.ErrBadSnapshot) {
		return failure(CodeBadSnapshot, err.Error())
	}
	if err != nil {
		return failure(CodeBadOptions, err.Error())
	}
	app.OnChange(func() {
		v := app.Version()
		emit(&wire.PortEvent{Type: "change", Version: &v})
	})
	p, err := serve.NewPort(app, serve.PortOptions{
		ConfirmHighEffect: o.ConfirmHighEffect,
		JourneyTools:      o.JourneyTools,
		Source:            serve.Principal(o.Source),
		Separator:         o.Separator,
		OfferLedger:       o.OfferLedgerSize,
		Restore:           o.Restore,
	})
	if errors.Is(err, serve.ErrBadSnapshot) {
		return failure(CodeBadSnapshot, err.Error())
	}
	if err != nil {
		return failure(CodeBadOptions, err.Error())
	}
	entry.port = p
	r.mu.Lock()
	r.ports[id] = entry
	r.mu.Unlock()
	return &wire.Reply{OK: true, Port: id, Value: p.ToolsJSON()}
}

// hookHandler runs an action's handler through the host's "handler" hook:
// the answer is the handler's result as JSON; a failed hook refuses the fire.
func hookHandler(h hostHooks) serve.Handler {
	return func(ctx context.Context, call serve.HandlerCall) (any, error) {
		var input rawjson.Message
		if call.Input != nil {
			input = serve.AppendValue(nil, call.Input)
		}
		p, err := wire.Marshal(&wire.HookHandler{Action: call.Action, Input: input, Source: string(call.Source), TransitionID: call.TransitionID, Instance: call.Instance})
		if err != nil {
			return nil, err
		}
		b, err := h.answer(ctx, "handler", p)
		if err != nil {
			return nil, err
		}
		if len(b) == 0 {
			return nil, nil
		}
		v, err := serve.ParseValue(b)
		if err != nil {
			return nil, errs.New("the handler of ", call.Action, " answered malformed JSON: ", err.Error())
		}
		return v, nil
	}
}

// stateArg decodes a state object argument; absent is an empty state.
func stateArg(raw rawjson.Message, what string) (serve.State, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	v, err := serve.ParseValue(raw)
	if err != nil {
		return nil, errs.New("agentwasm: ", what, " is malformed JSON: ", err.Error())
	}
	switch m := v.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		return serve.State(m), nil
	}
	return nil, errs.New("agentwasm: ", what, " must be an object of state keys")
}

// optionalValue decodes an optional JSON value argument.
func optionalValue(raw rawjson.Message, what string) (any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	v, err := serve.ParseValue(raw)
	if err != nil {
		return nil, errs.New("agentwasm: ", what, " is malformed JSON: ", err.Error())
	}
	return v, nil
}

// portMCP answers one MCP JSON-RPC message with the port's transport-free
// MCP server, built on first use from the port's MCP options.
func (r *Runtime) portMCP(ctx context.Context, c *wire.Command, e *portEntry) *wire.Reply {
	body := []byte(c.Message)
	if len(body) == 0 {
		// The message as text: malformed JSON reaches the dispatcher, which
		// answers it as JSON-RPC does (-32700).
		body = []byte(c.Text)
	}
	if len(body) == 0 {
		return failure(CodeBadCommand, "agentwasm: port.mcp needs a message (one JSON-RPC message, or its text)")
	}
	r.mu.Lock()
	if e.mcp == nil {
		settle := settleWithin(e.opts)
		name := e.opts.Name
		if name == "" {
			name = e.port.App().Graph().ID
		}
		e.mcp = mcpserver.New(serve.NewPortToolServer(e.port, settle),
			mcpserver.Options{Name: name, Version: e.opts.Version})
	}
	d := e.mcp
	r.mu.Unlock()
	resp := d.Handle(ctx, mcpserver.Request{Body: body})
	return &wire.Reply{OK: true, Value: resp.Body}
}

// settleWithin is the port's settleWithinMs option [250 ms]; 0 answers at
// once.
func settleWithin(o wire.PortOptions) time.Duration {
	if ms := o.SettleWithinMs; ms != nil {
		if *ms <= 0 {
			return -1
		}
		return time.Duration(*ms) * time.Millisecond
	}
	return serve.DefaultSettleWithin
}
