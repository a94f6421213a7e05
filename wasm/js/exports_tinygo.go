//go:build js && tinygo

// The direct entry points (exports.go) as TinyGo's //export functions,
// which run on the caller's stack, with no goroutine of their own (TinyGo's
// //go:wasmexport starts one for every call).

package main

//export agentwasm_buffer
func wasmBuffer(n uint32) uint32 { return exportBuffer(n) }

//export agentwasm_call_sync
func wasmCallSync(n uint32) int32 { return exportCallSync(n) }

//export agentwasm_reply
func wasmReply() uint32 { return exportReply() }

//export agentwasm_call
func wasmCall(n, slot uint32) { exportCall(n, slot) }

//export agentwasm_wake
func wasmWake(id uint32) { exportWake(id) }
