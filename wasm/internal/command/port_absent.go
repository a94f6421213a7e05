//go:build agentwasm_sessiononly

// The session-only build (agentwasm-session.wasm, and TinyGo's
// agentwasm-session.tiny.wasm, built with the agentwasm_sessiononly tag) has
// no serving port: the serve and portkit packages are not linked, which is
// most of the bytes a page that only chats would otherwise download. Every
// port.* command, and a session asking for a port as its kit, answers
// CodePortUnavailable.

package command

import (
	"context"
	"runtime"

	"github.com/agentwasm/agentwasm/internal/wire"
	"github.com/agentwasm/agentwasm/session"
)

// HasServe is false: this build has no serving port (the version op
// reports it as serve).
const HasServe = false

// portEntry is never made in this build: no port can be created.
type portEntry struct{}

// portUnavailable is the answer of every port command in this build. It
// names the files of the toolchain that built it: Go's session-only module
// and full module (agentwasm-session.wasm, agentwasm.wasm) or TinyGo's
// (agentwasm-session.tiny.wasm, agentwasm.tiny.wasm).
func portUnavailable() *wire.Reply {
	this, full := "agentwasm-session.wasm", "agentwasm.wasm"
	if runtime.Compiler == "tinygo" {
		this, full = "agentwasm-session.tiny.wasm", "agentwasm.tiny.wasm"
	}
	return failure(CodePortUnavailable, "agentwasm: this is the session-only build of the module ("+this+"), "+
		"which has no serving port; load the full build ("+full+") to create ports")
}

func (r *Runtime) portAsKit(int, *session.Options) *wire.Reply { return portUnavailable() }

func noPort(context.Context, *wire.Command, Hooks) *wire.Reply { return portUnavailable() }

// The port.* ops' handlers (ops.go), all refusing.

func (r *Runtime) closePort(ctx context.Context, c *wire.Command, h Hooks) *wire.Reply {
	return noPort(ctx, c, h)
}
func (r *Runtime) portTools(ctx context.Context, c *wire.Command, h Hooks) *wire.Reply {
	return noPort(ctx, c, h)
}
func (r *Runtime) portCall(ctx context.Context, c *wire.Command, h Hooks) *wire.Reply {
	return noPort(ctx, c, h)
}
func (r *Runtime) portMCPCommand(ctx context.Context, c *wire.Command, h Hooks) *wire.Reply {
	return noPort(ctx, c, h)
}
func (r *Runtime) portState(ctx context.Context, c *wire.Command, h Hooks) *wire.Reply {
	return noPort(ctx, c, h)
}
func (r *Runtime) portNavigate(ctx context.Context, c *wire.Command, h Hooks) *wire.Reply {
	return noPort(ctx, c, h)
}
func (r *Runtime) portPatch(ctx context.Context, c *wire.Command, h Hooks) *wire.Reply {
	return noPort(ctx, c, h)
}
func (r *Runtime) portReport(ctx context.Context, c *wire.Command, h Hooks) *wire.Reply {
	return noPort(ctx, c, h)
}
func (r *Runtime) portSnapshot(ctx context.Context, c *wire.Command, h Hooks) *wire.Reply {
	return noPort(ctx, c, h)
}
func (r *Runtime) portApproveAsk(ctx context.Context, c *wire.Command, h Hooks) *wire.Reply {
	return noPort(ctx, c, h)
}
func (r *Runtime) portDeclineAsk(ctx context.Context, c *wire.Command, h Hooks) *wire.Reply {
	return noPort(ctx, c, h)
}
func (r *Runtime) portRevokeAsk(ctx context.Context, c *wire.Command, h Hooks) *wire.Reply {
	return noPort(ctx, c, h)
}
func (r *Runtime) portAlwaysApprove(ctx context.Context, c *wire.Command, h Hooks) *wire.Reply {
	return noPort(ctx, c, h)
}
func (r *Runtime) portSetInstances(ctx context.Context, c *wire.Command, h Hooks) *wire.Reply {
	return noPort(ctx, c, h)
}
func (r *Runtime) portSetBusy(ctx context.Context, c *wire.Command, h Hooks) *wire.Reply {
	return noPort(ctx, c, h)
}
func (r *Runtime) portAsks(ctx context.Context, c *wire.Command, h Hooks) *wire.Reply {
	return noPort(ctx, c, h)
}
func (r *Runtime) portTransition(ctx context.Context, c *wire.Command, h Hooks) *wire.Reply {
	return noPort(ctx, c, h)
}
func (r *Runtime) createPort(ctx context.Context, c *wire.Command, h Hooks) *wire.Reply {
	return noPort(ctx, c, h)
}
