//go:build wasip1

// Command wasip1 is the module's entry point for WebAssembly System Interface
// hosts (wazero, wasmtime, …). It is a reactor, built with
// -buildmode=c-shared: the host calls _initialize once, then the exports
// below. The ABI — exports, imports, memory ownership, error codes — is
// written down in wasm/README.md.
package main

//lint:file-ignore U1000 staticcheck does not count //go:wasmexport functions as used, and everything here is reached from them

import (
	"context"
	"errors"
	"io"
	"syscall"
	"unsafe"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/internal/wire"
	"github.com/agentwasm/agentwasm/wasm/internal/command"
)

var (
	rt = command.New(testHooks())

	// pinned keeps every buffer handed to the host reachable until the host
	// frees it. Go's collector does not move objects, so a reachable slice's
	// address stays valid.
	pinned = map[uint32][]byte{}
)

// testHooks reports whether the environment enables the test hooks
// (AGENTWASM_TEST_HOOKS=1); syscall's environment, as os would link its
// files into the module.
func testHooks() bool {
	v, _ := syscall.Getenv("AGENTWASM_TEST_HOOKS")
	return v == "1"
}

//go:wasmimport agentwasm event
func hostEvent(session int32, ptr unsafe.Pointer, n uint32)

// pin keeps b alive and returns its address in linear memory.
func pin(b []byte) uint32 {
	if len(b) == 0 {
		b = make([]byte, 1)
	}
	p := uint32(uintptr(unsafe.Pointer(&b[0])))
	pinned[p] = b
	return p
}

// agentwasmAlloc returns a buffer of size bytes that the host may write into.
// The host passes it to agentwasm_call, which takes ownership, or frees it.
//
//go:wasmexport agentwasm_alloc
func agentwasmAlloc(size uint32) uint32 {
	return pin(make([]byte, size))
}

// agentwasmFree releases a buffer from agentwasm_alloc or a reply from
// agentwasm_call. Freeing an unknown pointer does nothing.
//
//go:wasmexport agentwasm_free
func agentwasmFree(ptr uint32) {
	delete(pinned, ptr)
}

// agentwasmCall runs the JSON command in [ptr, ptr+n) (a buffer from
// agentwasm_alloc, which it frees) and returns the reply as
// (replyPtr << 32 | replyLen). The host frees the reply with agentwasm_free.
//
//go:wasmexport agentwasm_call
func agentwasmCall(ptr, n uint32) uint64 {
	buf, ok := pinned[ptr]
	var cmd []byte
	if ok && int(n) <= len(buf) {
		cmd = append([]byte(nil), buf[:n]...)
		delete(pinned, ptr)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	bridge.SetHostAbort(cancel)
	defer bridge.SetHostAbort(nil)
	reply := rt.Call(ctx, cmd, command.Hooks{
		Fetcher: bridge.DefaultFetcher(),
		OnEvent: sendEvent,
		Call:    callHook,
	})
	return uint64(pin(reply))<<32 | uint64(len(reply))
}

// sendEvent streams one event to the host.
func sendEvent(session int, event []byte) {
	hostEvent(int32(session), unsafe.Pointer(&event[0]), uint32(len(event)))
}

// callHook runs one of the host's callbacks through the hook_* imports.
func callHook(ctx context.Context, session int, hook string, payload []byte) (io.ReadCloser, error) {
	req, err := wire.Marshal(&wire.HookRequest{Hook: hook, Session: session, Payload: payload})
	if err != nil {
		return nil, err
	}
	rc, err := bridge.HostCall(ctx, req)
	if err != nil {
		return nil, errs.Wrap(err, "the ", hook, " callback failed")
	}
	return &hookAnswer{rc: rc, hook: hook}, nil
}

// hookAnswer names the callback in read errors.
type hookAnswer struct {
	rc   io.ReadCloser
	hook string
}

func (a *hookAnswer) Read(p []byte) (int, error) {
	n, err := a.rc.Read(p)
	if err != nil && err != io.EOF && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		err = errs.Wrap(err, "the ", a.hook, " callback failed")
	}
	return n, err
}

func (a *hookAnswer) Close() error { return a.rc.Close() }

func main() {}
