//go:build js || wasip1

// MCP session ids in the wasm builds: 128 bits from the Go runtime's
// generator (ChaCha8, seeded from the host's randomness: crypto.getRandomValues
// in js, random_get in wasip1). crypto/rand would add about 1 MB to the
// module (its FIPS machinery and math/big), and in the module the dispatcher
// serves one page's own agent, not a network, so the ids need to be unique,
// not secret from a remote attacker.

package mcpserver

import (
	"math/rand/v2"
	"strconv"
)

// newSessionID returns a fresh session id.
func newSessionID() string {
	hi, lo := rand.Uint64(), rand.Uint64()
	id := strconv.AppendUint(nil, hi, 16)
	id = append(id, '-')
	return string(strconv.AppendUint(id, lo, 16))
}
