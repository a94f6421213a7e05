//go:build js

// Randomness for ask ids in the js build: the host's
// crypto.getRandomValues, called directly (crypto/rand would add its FIPS
// machinery to the module).

package serve

import (
	mrand "math/rand/v2"
	"syscall/js"
)

// randomBytes fills b from the host's cryptographic randomness. A host
// without crypto.getRandomValues (none the module supports) gets the Go
// runtime's generator instead: ChaCha8, seeded from the host's randomness
// at start.
func randomBytes(b []byte) {
	defer func() {
		if recover() != nil {
			fallbackRandom(b)
		}
	}()
	arr := js.Global().Get("Uint8Array").New(len(b))
	js.Global().Get("crypto").Call("getRandomValues", arr)
	if js.CopyBytesToGo(b, arr) != len(b) {
		fallbackRandom(b)
	}
}

// fallbackRandom fills b from the Go runtime's generator.
func fallbackRandom(b []byte) {
	for i := range b {
		b[i] = byte(mrand.Uint32())
	}
}
