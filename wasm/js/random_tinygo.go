//go:build js && tinygo

// arc4random for TinyGo's runtime, which seeds its random numbers (map
// hashing) from libc's arc4random at start. wasi-libc's pulls in a
// ChaCha20 generator and, through its assertion, printf: about 20 KB of
// code for eight random bytes. This one asks the host once per call, through
// the random_get import TinyGo's wasm_exec.js provides (crypto.getRandomValues).

package main

import "unsafe"

//go:wasmimport wasi_snapshot_preview1 random_get
func randomGet(buf unsafe.Pointer, size uint32) uint32

//export arc4random
func arc4random() uint32 {
	var v uint32
	randomGet(unsafe.Pointer(&v), 4)
	return v
}
