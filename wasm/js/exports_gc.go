//go:build js && !tinygo

// The direct entry points (exports.go) as Go's //go:wasmexport functions.

package main

//lint:file-ignore U1000 staticcheck does not count //go:wasmexport functions as used, and what is here is reached from them

//go:wasmexport agentwasm_buffer
func wasmBuffer(n uint32) uint32 { return exportBuffer(n) }

//go:wasmexport agentwasm_call_sync
func wasmCallSync(n uint32) int32 { return exportCallSync(n) }

//go:wasmexport agentwasm_reply
func wasmReply() uint32 { return exportReply() }

//go:wasmexport agentwasm_call
func wasmCall(n, slot uint32) { exportCall(n, slot) }

//go:wasmexport agentwasm_wake
func wasmWake(id uint32) { exportWake(id) }
