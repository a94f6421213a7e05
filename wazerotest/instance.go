// Instance: one running module, the host functions it imports, and the
// helpers tests drive it with.

package wazerotest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// Options configures an Instance.
type Options struct {
	// Handler serves every fetch the module makes. Relative URLs are
	// resolved against BaseURL. A nil Handler fails every fetch.
	Handler http.Handler
	// Hook answers the module's callbacks (see HookCall), each on its own
	// goroutine; ctx ends when the module stops waiting for the answer.
	// Return the answer's bytes — JSON, or for "transport" one event object
	// per line — or an error, whose text the module reports. Nil fails
	// every callback.
	Hook func(ctx context.Context, call HookCall) ([]byte, error)
	// Clock is the time the module sees. Nil means RealClock.
	Clock Clock
	// OnEvent, when set, is called with every event the module streams, on
	// the goroutine that called into the module.
	OnEvent func(session int, ev Event)
	// Stderr receives the module's standard error. Nil means the test log.
	Stderr io.Writer
	// DisableTestHooks turns off the module's debug.* commands, which are
	// on by default in tests.
	DisableTestHooks bool
}

// Instance is one instantiated module. Calls into it are serialized: a wasm
// instance runs one call at a time. Separate instances are independent.
type Instance struct {
	t     testing.TB
	opts  Options
	clock Clock

	rt               wazero.Runtime
	mod              api.Module
	alloc, free, fnc api.Function

	callMu sync.Mutex
	died   error // why a call trapped or the module exited; every later call fails with it

	mu        sync.Mutex
	exchanges map[int32]*exchange
	nextFetch int32
	events    map[int][]Event
}

// New builds (or reuses) the wasip1 module, instantiates it with opts, and
// closes it when the test ends. It fails the test if any step fails.
func New(t testing.TB, opts Options) *Instance {
	t.Helper()
	i, err := Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	i.t = t
	t.Cleanup(i.Close)
	return i
}

// Start is New without a testing.TB, for benchmarks' setup and programs.
// The caller must Close the Instance.
func Start(ctx context.Context, opts Options) (*Instance, error) {
	wasm, err := moduleBytes()
	if err != nil {
		return nil, err
	}
	i := &Instance{opts: opts, clock: opts.Clock, exchanges: map[int32]*exchange{}, events: map[int][]Event{}}
	if i.clock == nil {
		i.clock = RealClock{}
	}
	i.rt = wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCompilationCache(compilationCache()))
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, i.rt); err != nil {
		i.rt.Close(ctx)
		return nil, fmt.Errorf("wazerotest: instantiating WASI: %w", err)
	}
	if err := i.hostModule(ctx); err != nil {
		i.rt.Close(ctx)
		return nil, fmt.Errorf("wazerotest: instantiating the host module: %w", err)
	}
	compiled, err := i.rt.CompileModule(ctx, wasm)
	if err != nil {
		i.rt.Close(ctx)
		return nil, fmt.Errorf("wazerotest: compiling the module: %w", err)
	}
	var stderr io.Writer = io.Discard
	if opts.Stderr != nil {
		stderr = opts.Stderr
	} else {
		stderr = logWriter{i}
	}
	clock := i.clock
	cfg := wazero.NewModuleConfig().
		WithStartFunctions("_initialize").
		WithStderr(stderr).
		WithStdout(stderr).
		WithWalltime(func() (int64, int32) {
			n := clock.Now()
			return n.Unix(), int32(n.Nanosecond())
		}, 1).
		WithNanotime(clock.Nanotime, 1).
		WithNanosleep(func(ns int64) { clock.Sleep(time.Duration(ns)) }).
		WithRandSource(randReader{})
	if !opts.DisableTestHooks {
		cfg = cfg.WithEnv("AGENTWASM_TEST_HOOKS", "1")
	}
	i.mod, err = i.rt.InstantiateModule(ctx, compiled, cfg)
	if err != nil {
		i.rt.Close(ctx)
		return nil, fmt.Errorf("wazerotest: instantiating the module: %w", err)
	}
	i.alloc = i.mod.ExportedFunction("agentwasm_alloc")
	i.free = i.mod.ExportedFunction("agentwasm_free")
	i.fnc = i.mod.ExportedFunction("agentwasm_call")
	if i.alloc == nil || i.free == nil || i.fnc == nil {
		i.rt.Close(ctx)
		return nil, fmt.Errorf("wazerotest: the module lacks agentwasm_alloc, agentwasm_free or agentwasm_call; is it an agentwasm wasip1 build?")
	}
	return i, nil
}

// Close ends every request in flight and releases the module.
func (i *Instance) Close() {
	i.mu.Lock()
	for h, x := range i.exchanges {
		x.close()
		delete(i.exchanges, h)
	}
	i.mu.Unlock()
	i.rt.Close(context.Background())
}

// Call sends one JSON command and returns the module's JSON reply. ctx is
// the call's abort signal: when it ends, the module's waits answer
// "aborted" and the command returns promptly (a chat as cancelled).
func (i *Instance) Call(ctx context.Context, cmd []byte) ([]byte, error) {
	i.callMu.Lock()
	defer i.callMu.Unlock()
	if i.died != nil {
		return nil, fmt.Errorf("wazerotest: the instance died in an earlier call: %w", i.died)
	}
	res, err := i.alloc.Call(ctx, uint64(len(cmd)))
	if err != nil {
		i.died = err
		return nil, fmt.Errorf("wazerotest: agentwasm_alloc: %w", err)
	}
	ptr := uint32(res[0])
	if !i.mod.Memory().Write(ptr, cmd) {
		return nil, fmt.Errorf("wazerotest: agentwasm_alloc returned %d, outside memory", ptr)
	}
	res, err = i.fnc.Call(ctx, uint64(ptr), uint64(len(cmd)))
	if err != nil {
		// A trap (a TinyGo build's panic) or the Go runtime's exit (sys.ExitError):
		// either way the instance is gone, and later calls say so.
		i.died = err
		return nil, fmt.Errorf("wazerotest: agentwasm_call trapped (the instance is unusable now): %w", err)
	}
	rp, rn := uint32(res[0]>>32), uint32(res[0])
	view, ok := i.mod.Memory().Read(rp, rn)
	if !ok {
		return nil, fmt.Errorf("wazerotest: reply [%d,+%d) is outside memory", rp, rn)
	}
	reply := bytes.Clone(view)
	if _, err := i.free.Call(ctx, uint64(rp)); err != nil {
		return nil, fmt.Errorf("wazerotest: agentwasm_free: %w", err)
	}
	return reply, nil
}

// Do marshals cmd as JSON, calls the module and decodes the reply.
func (i *Instance) Do(ctx context.Context, cmd any) (Reply, error) {
	b, err := json.Marshal(cmd)
	if err != nil {
		return Reply{}, err
	}
	out, err := i.Call(ctx, b)
	if err != nil {
		return Reply{}, err
	}
	var r Reply
	if err := json.Unmarshal(out, &r); err != nil {
		return Reply{}, fmt.Errorf("wazerotest: the reply is not JSON: %v: %s", err, out)
	}
	return r, nil
}

// Version returns the module's version reply.
func (i *Instance) Version(ctx context.Context) Reply {
	return i.must(i.Do(ctx, map[string]any{"op": "version"}))
}

// TinyGo reports whether TinyGo built the module (its version reply's
// goVersion starts with "tinygo"). Such a module cannot recover a panic: one
// traps the instance (docs/SIZE.md, The TinyGo build).
func (i *Instance) TinyGo(ctx context.Context) bool {
	return strings.HasPrefix(i.Version(ctx).GoVersion, "tinygo")
}

// CreateSession creates a session with the given JSON options and returns
// its id. It fails the test if the module refuses.
func (i *Instance) CreateSession(ctx context.Context, options map[string]any) int {
	return i.must(i.Do(ctx, map[string]any{"op": "session.create", "options": options})).Session
}

// Chat runs one turn and returns it. It fails the test if the command
// itself fails (a turn that ends in error is returned, not failed).
func (i *Instance) Chat(ctx context.Context, session int, text string) Turn {
	r := i.must(i.Do(ctx, map[string]any{"op": "session.chat", "session": session, "text": text}))
	if r.Turn == nil {
		i.fatalf("wazerotest: session.chat replied without a turn")
		return Turn{}
	}
	return *r.Turn
}

// Resume answers pending asks of a session (session.resume: approve and
// decline are ask ids from the last turn's PendingApprovals) and returns the
// turn it ran. It fails the test if the command itself fails (a refused
// resolution is a turn with an error code, returned).
func (i *Instance) Resume(ctx context.Context, session int, approve, decline []string) Turn {
	r := i.must(i.Do(ctx, map[string]any{"op": "session.resume", "session": session, "approve": approve, "decline": decline}))
	if r.Turn == nil {
		i.fatalf("wazerotest: session.resume replied without a turn")
		return Turn{}
	}
	return *r.Turn
}

// CloseSession closes a session.
func (i *Instance) CloseSession(ctx context.Context, session int) {
	i.must(i.Do(ctx, map[string]any{"op": "session.close", "session": session}))
}

// Events returns a copy of the events the module streamed for a session.
func (i *Instance) Events(session int) []Event {
	i.mu.Lock()
	defer i.mu.Unlock()
	return append([]Event(nil), i.events[session]...)
}

// MemoryBytes is the size of the module's linear memory: what the instance
// holds of its host's memory (wasm memory grows and never shrinks).
func (i *Instance) MemoryBytes() uint32 {
	return i.mod.Memory().Size()
}

// InFlight reports how many requests the module has started and not closed.
func (i *Instance) InFlight() int {
	i.mu.Lock()
	defer i.mu.Unlock()
	return len(i.exchanges)
}

func (i *Instance) must(r Reply, err error) Reply {
	if err != nil {
		i.fatalf("%v", err)
		return r
	}
	if !r.OK {
		i.fatalf("wazerotest: the module refused the command: %+v", r.Error)
	}
	return r
}

func (i *Instance) fatalf(format string, args ...any) {
	if i.t == nil {
		panic(fmt.Sprintf(format, args...))
	}
	i.t.Helper()
	i.t.Fatalf(format, args...)
}

// logWriter sends the module's output to the test log.
type logWriter struct{ i *Instance }

func (w logWriter) Write(p []byte) (int, error) {
	if w.i.t != nil {
		w.i.t.Logf("module: %s", bytes.TrimRight(p, "\n"))
	}
	return len(p), nil
}
