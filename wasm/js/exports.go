//go:build js

// The module's direct entry points: functions the loader calls as exports
// of the wasm instance, with commands and replies passed as bytes in the
// module's memory. A js.Func call (call and callSync in main.go) goes
// through the runtime's event path — under Go a pass of its scheduler,
// under TinyGo a new goroutine with a whole stack for every call — and
// carries its strings as JavaScript values; these cost a function call and
// a copy. The loader uses them when the boot settings say the module has
// them (readBoot's wakers); exports_gc.go and exports_tinygo.go declare them
// under each toolchain's directive:
//
//	agentwasm_buffer(n) → ptr      a buffer of at least n bytes for the next command
//	agentwasm_call_sync(n) → len   runs the sync command in the buffer's first n bytes
//	                               (-(len+1): run the Go scheduler after it)
//	agentwasm_reply() → ptr        where the last reply's bytes are
//	agentwasm_call(n, slot)        starts the command in the buffer; its hooks, signal
//	                               and resolve function are the loader's slot
//	agentwasm_wake(id)             wakes what waits on id (bridge.Wake)
//
// The loader copies a reply out before it calls in again, and no export
// blocks: agentwasm_call starts its command on a goroutine, which runs when
// the loader next runs the Go scheduler.

package main

//lint:file-ignore U1000 staticcheck does not count //go:wasmexport functions as used, and what is here is reached from them

import (
	"context"
	"strconv"
	"syscall/js"
	"unsafe"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/internal/gopool"
	"github.com/agentwasm/agentwasm/internal/wire"
	"github.com/agentwasm/agentwasm/wasm/internal/command"
)

var (
	// commandBuf is where the loader writes the next command.
	commandBuf []byte
	// lastReply holds the last sync reply until the loader has copied it.
	lastReply []byte
	// noHooks are the hooks of a command sent without any (every direct
	// sync call), made once rather than per call.
	noHooks = hooksFrom(js.Undefined())
)

// address is the address of b's first byte in the module's memory (0 for
// an empty b).
func address(b []byte) uint32 {
	if len(b) == 0 {
		return 0
	}
	return uint32(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
}

// exportBuffer answers a buffer of at least n bytes for the next command.
func exportBuffer(n uint32) uint32 {
	if n == 0 {
		n = 1
	}
	if uint32(cap(commandBuf)) < n {
		commandBuf = make([]byte, n)
	}
	return address(commandBuf[:cap(commandBuf)])
}

// takeCommand copies the command out of the buffer: a call from inside
// this one (a page observer calling in) reuses the buffer.
func takeCommand(n uint32) []byte {
	if n > uint32(cap(commandBuf)) {
		return nil
	}
	return append([]byte(nil), commandBuf[:n]...)
}

// exportCallSync runs the sync command in the buffer's first n bytes and
// answers its reply's length (the reply is at exportReply's address), or
// -(length+1) when the command may have ended another goroutine's wait (a
// close cancels a turn's): the loader then runs the Go scheduler, which an
// op that only reads (command.Op.Reads) spares it.
func exportCallSync(n uint32) (size int32) {
	defer func() {
		if p := recover(); p != nil {
			lastReply = []byte(internalError(p))
			size = -int32(len(lastReply)) - 1
		}
	}()
	var reads bool
	lastReply, reads = syncReply(takeCommand(n), noHooks)
	if reads {
		return int32(len(lastReply))
	}
	return -int32(len(lastReply)) - 1
}

// exportReply answers the address of the last sync reply.
func exportReply() uint32 { return address(lastReply) }

// exportCall starts the command in the buffer's first n bytes on a
// goroutine; the loader's slot holds its hooks, signal and resolve
// function (boot.take).
func exportCall(n, slot uint32) {
	cmd := takeCommand(n)
	var hooks, signal, resolve js.Value
	err := bridge.CatchJS(func() {
		s := boot.take.Invoke(slot)
		hooks, signal, resolve = s.Get("hooks"), s.Get("signal"), s.Get("resolve")
	})
	if err != nil || resolve.Type() != js.TypeFunction {
		return // the loader's slot is gone: nothing to answer to
	}
	gopool.Go(func() {
		var h command.Hooks
		if herr := bridge.CatchJS(func() { h = hooksFrom(hooks) }); herr != nil {
			b, _ := wire.Marshal(&wire.Reply{Error: &wire.ErrorBody{Code: command.CodeBadCommand,
				Message: "agentwasm: the command's hooks could not be read: " + herr.Error()}})
			_ = bridge.CatchJS(func() { resolve.Invoke(string(b)) })
			return
		}
		run(cmd, h, signal, resolve)
	})
}

// exportWake wakes what waits on id.
func exportWake(id uint32) { bridge.Wake(id) }

// syncReply answers a command that never waits (callSync and
// agentwasm_call_sync; command.Op.SyncFor): one that may wait is refused,
// since nothing may block inside a call from JavaScript. reads reports an op that only reads
// (command.Op.Reads).
func syncReply(cmd []byte, hooks command.Hooks) (reply []byte, reads bool) {
	var c wire.Command
	// Only the table's sync ops: the others wait. Unknown ops and malformed
	// commands go through to the command layer, which answers them at once.
	if wire.Unmarshal(cmd, &c) != nil {
		reply = rt.Call(context.Background(), cmd, hooks)
		return reply, true
	}
	op, known := command.LookupOp(c.Op)
	if known && !op.SyncFor(&c) {
		b, _ := wire.Marshal(&wire.Reply{Error: &wire.ErrorBody{Code: command.CodeBadCommand,
			Message: "agentwasm: op " + strconv.Quote(c.Op) + " waits, so it must go through call(), not callSync()"}})
		return b, true
	}
	reply = rt.CallDecoded(context.Background(), &c, hooks)
	flushEvents() // the command's events come before its reply
	return reply, known && op.Reads
}
