// Package command is the host-neutral command layer of the wasm module.
//
// Both entry points — wasm/js for JavaScript hosts and wasm/wasip1 for
// WebAssembly System Interface hosts such as wazero — hand JSON commands to
// one Runtime and return its JSON replies, so the two builds cannot drift
// apart. Only the callbacks differ per host; they arrive as Hooks.
//
// The commands, replies and error codes are documented in wasm/README.md.
package command

import (
	"context"
	"errors"
	"io"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/internal/gopool"
	"github.com/agentwasm/agentwasm/internal/version"
	"github.com/agentwasm/agentwasm/internal/wire"
	"github.com/agentwasm/agentwasm/session"
)

// Version is the module's release version (internal/version's, which the
// dev binary and the npm package report too).
const Version = version.Version

// ABIVersion is the version of the command and host-import contract in
// wasm/README.md. It changes whenever a command, reply or import changes
// incompatibly.
const ABIVersion = 1

// Error codes of a failed reply (wasm/README.md lists them; CodeRefused is
// in port.go).
const (
	CodeBadCommand     = "bad_command"     // the command is not JSON, or names no known op
	CodeBadOptions     = "bad_options"     // session options are malformed or out of range
	CodeUnknownSession = "unknown_session" // no open session has that id
	CodeInternal       = "internal"        // a panic inside the module, recovered
	CodeCancelled      = "cancelled"       // the host cancelled a command that waits
	CodeUnknownPort    = "unknown_port"    // no open port has that id
	// CodeBusy answers session.reset while a turn (chat or resume) runs on
	// the session: the history is left as it is (session.ErrBusy).
	CodeBusy = "busy"
	// CodePortUnavailable answers every port command, and a session asking
	// for a port, in the session-only build (agentwasm-session.wasm).
	CodePortUnavailable = "port_unavailable"
	// CodeBadSnapshot answers a create whose restore option is refused
	// (session.create: another format, an unknown version, not a snapshot,
	// past the bounds; port.create: also another graph or an ask whose
	// action the graph lacks): nothing is made.
	CodeBadSnapshot = "bad_snapshot"
)

// Hooks are what a host supplies for a new session or port.
type Hooks struct {
	// Fetcher sends the session's requests.
	Fetcher bridge.Fetcher
	// OnEvent receives each event as the JSON of a session.Event (a
	// session's) or a wire.PortEvent (a port's). It may be nil.
	OnEvent func(session int, event []byte)
	// OnTextDelta, when set with OnEvent, receives a session's plain text
	// deltas (a text and nothing else) in OnEvent's place, as their text
	// alone, in order among its events: the event whose JSON would be
	// {"type":"chat","event":{"type":"textDelta","text":…}}, without
	// encoding it apart (session.Options.OnTextDelta).
	OnTextDelta func(session int, text string)
	// Call invokes one of the host's callbacks ("auth", "execute",
	// "kit.execute", "kit.systemPrompt", "system", "transport",
	// "mcp.listTools", "mcp.callTool", "mcp.close", "studioTools.approve",
	// and a port's "handler") with a JSON payload, and returns its answer as
	// a byte stream (JSON, or for "transport" one JSON event per line). It is
	// needed only when the options say the host supplies such a callback. It
	// must return when ctx ends.
	Call func(ctx context.Context, session int, hook string, payload []byte) (io.ReadCloser, error)
}

// Runtime holds the sessions of one module instance.
type Runtime struct {
	testHooks bool

	mu       sync.Mutex
	sessions map[int]*sessionEntry
	ports    map[int]*portEntry
	nextID   int // sessions and ports share one id space, so hook calls name one of them
}

// sessionEntry is an open session and the context its turns run within,
// which session.close ends: a turn sent before the close is cancelled
// however far it got, even one that had not begun yet.
type sessionEntry struct {
	s      *session.Session
	ctx    context.Context
	cancel context.CancelFunc
}

// New returns an empty Runtime. testHooks enables the debug.* commands that
// tests use to reach otherwise unreachable paths (such as a panic).
func New(testHooks bool) *Runtime {
	return &Runtime{testHooks: testHooks, sessions: map[int]*sessionEntry{}, ports: map[int]*portEntry{}}
}

// Call runs one JSON command and returns the JSON reply. It never panics:
// a panic inside the command is recovered and answered with CodeInternal,
// and the Runtime keeps serving. hooks is used by session.create and
// port.create only. The ops are those of Ops.
func (r *Runtime) Call(ctx context.Context, cmd []byte, hooks Hooks) (reply []byte) {
	defer func() {
		if p := recover(); p != nil {
			reply = encode(failure(CodeInternal, "agentwasm: internal error (recovered panic: "+errs.Text(p)+
				"); the module is still serving, but report this with the command that caused it"))
			if r.testHooks {
				buf := make([]byte, 64<<10)
				println(string(buf[:runtime.Stack(buf, false)])) // to stderr, without linking os
			}
		}
	}()
	var c wire.Command
	if err := wire.Unmarshal(cmd, &c); err != nil {
		return encode(failure(CodeBadCommand, "agentwasm: the command is malformed JSON or has a field of the wrong type: "+err.Error()))
	}
	return r.CallDecoded(ctx, &c, hooks)
}

// CallDecoded is Call for a command its caller has decoded already (the js
// build's callSync reads the op first), with the same recovery.
func (r *Runtime) CallDecoded(ctx context.Context, c *wire.Command, hooks Hooks) (reply []byte) {
	defer func() {
		if p := recover(); p != nil {
			reply = encode(failure(CodeInternal, "agentwasm: internal error (recovered panic: "+errs.Text(p)+
				"); the module is still serving, but report this with the command that caused it"))
		}
	}()
	return encode(r.run(ctx, c, hooks))
}

// The handlers of the version, session.* and poll ops; the command table in
// ops.go names them, port.go has the port.* ones.

func (r *Runtime) opVersion(context.Context, *wire.Command, Hooks) *wire.Reply {
	return &wire.Reply{OK: true, Version: Version, ABI: ABIVersion, GoVersion: Toolchain, Serve: HasServe}
}

// sessionReset clears the history, or refuses with CodeBusy while a turn
// runs (the session's Reset says why).
func (r *Runtime) sessionReset(_ context.Context, c *wire.Command, _ Hooks) *wire.Reply {
	return r.withSession(c, func(s *session.Session) *wire.Reply {
		if err := s.Reset(); err != nil {
			return failure(CodeBusy, "agentwasm: reset was refused, nothing changed: a chat (or resume) is running on this session; "+
				"wait for it to settle (or abort it with its signal), then reset")
		}
		return &wire.Reply{OK: true}
	})
}

func (r *Runtime) sessionMessages(_ context.Context, c *wire.Command, _ Hooks) *wire.Reply {
	return r.withSession(c, func(s *session.Session) *wire.Reply {
		return &wire.Reply{OK: true, Messages: messagesWire(s.Messages())}
	})
}

func (r *Runtime) sessionTools(_ context.Context, c *wire.Command, _ Hooks) *wire.Reply {
	return r.withSession(c, func(s *session.Session) *wire.Reply {
		return &wire.Reply{OK: true, Tools: toolsWire(s.Tools())}
	})
}

func (r *Runtime) sessionToolDiscovery(_ context.Context, c *wire.Command, _ Hooks) *wire.Reply {
	return r.withSession(c, func(s *session.Session) *wire.Reply {
		return reportReply(s.ToolDiscovery())
	})
}

func (r *Runtime) sessionRefreshTools(ctx context.Context, c *wire.Command, _ Hooks) *wire.Reply {
	return r.withSession(c, func(s *session.Session) *wire.Reply {
		rep, err := s.RefreshTools(ctx)
		if err != nil && ctx.Err() != nil {
			return failure(CodeCancelled, "agentwasm: refreshTools was cancelled")
		}
		return reportReply(rep)
	})
}

// sessionReconnect ends the MCP session. The session's state is reset
// whatever the MCP client's close answers, so a failed close (the old
// session is left to the server's expiry) is not a failed command; the
// host's abort ends the wait for it.
func (r *Runtime) sessionReconnect(ctx context.Context, c *wire.Command, _ Hooks) *wire.Reply {
	return r.withSession(c, func(s *session.Session) *wire.Reply { _ = s.Reconnect(ctx); return &wire.Reply{OK: true} })
}

// sessionSnapshot answers the session's snapshot (Session.Snapshot): a JSON
// object, which session.create's restore option takes back.
func (r *Runtime) sessionSnapshot(_ context.Context, c *wire.Command, _ Hooks) *wire.Reply {
	return r.withSession(c, func(s *session.Session) *wire.Reply {
		snap, err := s.Snapshot()
		if err != nil {
			return failure(CodeInternal, "agentwasm: could not write the session's snapshot: "+err.Error())
		}
		return &wire.Reply{OK: true, Snapshot: snap}
	})
}

func (r *Runtime) sessionDraft(_ context.Context, c *wire.Command, _ Hooks) *wire.Reply {
	return r.withSession(c, func(s *session.Session) *wire.Reply { return draftReply(s.Draft()) })
}

func (r *Runtime) sessionAttachDraft(_ context.Context, c *wire.Command, _ Hooks) *wire.Reply {
	return r.withSession(c, func(s *session.Session) *wire.Reply {
		if d := c.Draft; d != nil {
			if d.DraftID == "" {
				return failure(CodeBadCommand, "agentwasm: attachDraft needs a draftId")
			}
			s.AttachDraft(&session.DraftBinding{DraftID: d.DraftID, Generation: d.Generation})
		} else {
			s.AttachDraft(nil)
		}
		return &wire.Reply{OK: true}
	})
}

// poll lets background work (discovery passes, the list-changed watch) run
// for timeoutMs: on wasip1 goroutines run only during a call.
func (r *Runtime) poll(ctx context.Context, c *wire.Command, _ Hooks) *wire.Reply {
	if c.TimeoutMs < 0 {
		return failure(CodeBadCommand, "agentwasm: poll's timeoutMs must be 0 or more")
	}
	t := time.NewTimer(time.Duration(c.TimeoutMs) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
	return &wire.Reply{OK: true}
}

// debugPanic panics on purpose (test hooks only): Call must recover it.
// (In a TinyGo build nothing recovers it: the instance traps.)
func (r *Runtime) debugPanic(context.Context, *wire.Command, Hooks) *wire.Reply {
	var m map[string]int
	//lint:ignore SA5000 the nil-map panic is the point: Call must recover it
	m["boom"]++ // a genuine runtime panic: assignment to a nil map
	return &wire.Reply{OK: true}
}

// debugGCPercent answers the collector's GOGC setting as the runtime
// reports it (test hooks only), so a host can check the setting it booted
// the module with (the GOGC of its environment). (TinyGo has no such
// setting: it answers 100.)
func (r *Runtime) debugGCPercent(context.Context, *wire.Command, Hooks) *wire.Reply {
	return &wire.Reply{OK: true, Value: strconv.AppendInt(nil, int64(gcPercent()), 10)}
}

// debugCrash kills the module for real (test hooks only), so a host can test
// what it does when its module dies: a panic on a goroutine of its own,
// which no recover catches. The Go runtime prints it and ends the program
// (exit code 2 natively and on js; the wasip1 reactor's call traps); a
// TinyGo build traps. The command never answers.
func (r *Runtime) debugCrash(context.Context, *wire.Command, Hooks) *wire.Reply {
	go func() { panic("agentwasm: debug.crash: the module dies on purpose") }()
	<-make(chan struct{}) // the panic ends the module before anything answers
	return nil
}

func (r *Runtime) createSession(_ context.Context, c *wire.Command, hooks Hooks) *wire.Reply {
	var o wire.SessionOptions
	if len(c.Options) > 0 {
		if err := wire.Unmarshal(c.Options, &o); err != nil {
			return failure(CodeBadOptions, "agentwasm: session options are malformed: "+err.Error())
		}
	}
	r.mu.Lock()
	r.nextID++
	id := r.nextID
	r.mu.Unlock()
	opts, err := sessionOptions(&o, id, hooks)
	if err != nil {
		return failure(CodeBadOptions, err.Error())
	}
	if o.Port != 0 {
		if o.Kit != nil {
			return failure(CodeBadOptions, "agentwasm: a session takes a kit or a port as its kit, not both")
		}
		if fail := r.portAsKit(o.Port, &opts); fail != nil {
			return fail
		}
	}
	s, err := session.New(opts)
	if errors.Is(err, session.ErrBadSnapshot) {
		return failure(CodeBadSnapshot, "agentwasm: the restore option was refused, and no session was made: "+err.Error())
	}
	if err != nil {
		return failure(CodeBadOptions, err.Error())
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.mu.Lock()
	r.sessions[id] = &sessionEntry{s: s, ctx: ctx, cancel: cancel}
	r.mu.Unlock()
	return &wire.Reply{OK: true, Session: id}
}

// withSession runs fn on the command's session.
func (r *Runtime) withSession(c *wire.Command, fn func(*session.Session) *wire.Reply) *wire.Reply {
	s, fail := r.lookup(c.Session)
	if fail != nil {
		return fail
	}
	return fn(s)
}

func (r *Runtime) lookup(id int) (*session.Session, *wire.Reply) {
	e, fail := r.entry(id)
	if fail != nil {
		return nil, fail
	}
	return e.s, nil
}

// entry returns the open session with that id, with its context.
func (r *Runtime) entry(id int) (*sessionEntry, *wire.Reply) {
	r.mu.Lock()
	e := r.sessions[id]
	r.mu.Unlock()
	if e == nil {
		return nil, failure(CodeUnknownSession, "agentwasm: no open session "+strconv.Itoa(id)+"; create one with session.create")
	}
	return e, nil
}

func (r *Runtime) chat(ctx context.Context, c *wire.Command, _ Hooks) *wire.Reply {
	return r.turnCommand(ctx, c, func(ctx context.Context, s *session.Session) session.Turn {
		var co session.ChatOptions
		if tc := c.ToolChoice; tc != nil {
			co.ToolChoice = &session.ToolChoice{Mode: tc.Mode, ToolName: tc.ToolName}
		}
		return s.Chat(ctx, c.Text, co)
	})
}

// resume answers pending asks and runs the turn on; a resolution the
// session refuses is a turn with an error code, as for chat.
func (r *Runtime) resume(ctx context.Context, c *wire.Command, _ Hooks) *wire.Reply {
	return r.turnCommand(ctx, c, func(ctx context.Context, s *session.Session) session.Turn {
		return s.Resume(ctx, session.Resolution{Approve: c.Approve, Decline: c.Decline})
	})
}

// turnCommand runs a command that answers a turn (chat, resume) on the
// command's session, within its optional timeoutMs and the session's life:
// session.close cancels it, however far it got (it may not have begun).
func (r *Runtime) turnCommand(ctx context.Context, c *wire.Command, run func(context.Context, *session.Session) session.Turn) *wire.Reply {
	e, fail := r.entry(c.Session)
	if fail != nil {
		return fail
	}
	if c.TimeoutMs < 0 {
		return failure(CodeBadCommand, "agentwasm: timeoutMs must be positive, or 0 for none")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(e.ctx, cancel)()
	s := e.s
	if c.TimeoutMs > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(c.TimeoutMs)*time.Millisecond)
		defer cancel()
	}
	return turnReply(run(ctx, s))
}

// closeSession ends a session: its running turn (and one sent but not yet
// begun) is cancelled at once — its model request and tool calls are
// aborted, and it answers status cancelled — and the id answers
// unknown_session from then on.
func (r *Runtime) closeSession(_ context.Context, c *wire.Command, _ Hooks) *wire.Reply {
	e, fail := r.entry(c.Session)
	if fail != nil {
		return fail
	}
	r.mu.Lock()
	delete(r.sessions, c.Session)
	r.mu.Unlock()
	e.cancel()
	s := e.s
	// session.close never waits (js serves it through callSync), and the
	// MCP client's close may do I/O: the session closes in the background
	// (its watch ends, its MCP session is ended), and its error has no one
	// to go to.
	gopool.Go(func() {
		defer func() { _ = recover() }()
		_ = s.Close()
	})
	return &wire.Reply{OK: true}
}

func failure(code, msg string) *wire.Reply {
	return &wire.Reply{Error: &wire.ErrorBody{Code: code, Message: msg}}
}

// encode marshals a reply; one that cannot be encoded is answered as an
// internal failure.
func encode(v wire.Marshaler) []byte {
	b, err := wire.Marshal(v)
	if err != nil {
		b, _ = wire.Marshal(failure(CodeInternal, "agentwasm: could not encode the reply: "+err.Error()))
	}
	return b
}
