//go:build wasip1

// Randomness for ask ids in the wasip1 build: WASI's random_get, called
// directly (crypto/rand would add its FIPS machinery to the module).

package serve

import (
	mrand "math/rand/v2"
	"unsafe"
)

//go:wasmimport wasi_snapshot_preview1 random_get
func wasiRandomGet(buf unsafe.Pointer, n uint32) uint32

// randomBytes fills b from the host's cryptographic randomness (WASI
// random_get); if the host fails it, from the Go runtime's generator
// (ChaCha8, seeded from the host's randomness at start).
func randomBytes(b []byte) {
	if len(b) == 0 {
		return
	}
	if wasiRandomGet(unsafe.Pointer(&b[0]), uint32(len(b))) != 0 {
		for i := range b {
			b[i] = byte(mrand.Uint32())
		}
	}
}
