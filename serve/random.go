//go:build !js && !wasip1

// Randomness for ask ids in native builds: crypto/rand.

package serve

import "crypto/rand"

// randomBytes fills b from the system's cryptographic randomness.
func randomBytes(b []byte) {
	_, _ = rand.Read(b) // it never fails: the Go runtime crashes instead
}
