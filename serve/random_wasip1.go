//go:build wasip1

// Randomness for ask ids in the wasip1 build: WASI's random_get, called
// directly (crypto/rand would add its FIPS machinery to the module), mixed
// with the Go runtime's generator.

package serve

import "unsafe"

//go:wasmimport wasi_snapshot_preview1 random_get
func wasiRandomGet(buf unsafe.Pointer, n uint32) uint32

// randomBytes fills b from the host's cryptographic randomness (WASI
// random_get) XORed with the Go runtime's generator (mixRuntimeRandom:
// ChaCha8, seeded from the host's randomness at start); a host that fails
// random_get gets the runtime's generator alone.
func randomBytes(b []byte) {
	if len(b) == 0 {
		return
	}
	if wasiRandomGet(unsafe.Pointer(&b[0]), uint32(len(b))) != 0 {
		clear(b)
	}
	mixRuntimeRandom(b)
}
