//go:build js

// Randomness for ask ids in the js build: the host's
// crypto.getRandomValues, called directly (crypto/rand would add its FIPS
// machinery to the module), mixed with the Go runtime's generator.

package serve

import "syscall/js"

// randomBytes fills b from the host's cryptographic randomness XORed with
// the Go runtime's generator (mixRuntimeRandom: ChaCha8, seeded from the
// host's randomness at start). A host whose crypto.getRandomValues throws,
// is missing, or fills nothing (a stub) gets the runtime's generator
// alone, never a zero or repeated id.
func randomBytes(b []byte) {
	clear(b)
	func() {
		defer func() { _ = recover() }() // getRandomValues threw or is missing: b stays zero
		arr := js.Global().Get("Uint8Array").New(len(b))
		js.Global().Get("crypto").Call("getRandomValues", arr)
		js.CopyBytesToGo(b, arr)
	}()
	mixRuntimeRandom(b)
}
