//go:build !js && !wasip1

// MCP session ids in native builds: 128 bits from crypto/rand, hex encoded.

package mcpserver

import (
	"crypto/rand"
	"encoding/hex"
)

// newSessionID returns a fresh, unguessable session id, or "" when the
// system has no randomness to give.
func newSessionID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return ""
	}
	return hex.EncodeToString(b[:])
}
