//go:build js || wasip1

// The Go runtime's generator mixed into the host's randomness in the wasm
// builds, whose randomBytes read the host's source directly.

package serve

import mrand "math/rand/v2"

// mixRuntimeRandom XORs b with the Go runtime's generator (ChaCha8, seeded
// from the host's randomness at start). XOR with an independent stream is
// at least as unpredictable as either, so an id never comes out zero,
// constant or repeating because the host's source failed, was stubbed
// (a getRandomValues that fills nothing), or answered an error.
func mixRuntimeRandom(b []byte) {
	for i := 0; i < len(b); i += 8 {
		v := mrand.Uint64()
		for j := i; j < len(b) && j < i+8; j++ {
			b[j] ^= byte(v)
			v >>= 8
		}
	}
}
