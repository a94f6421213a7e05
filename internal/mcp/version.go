// Protocol revisions, and the negotiation helpers both sides need.

package mcp

// The protocol revisions agentwasm speaks. The session era (initialize,
// Mcp-Session-Id) runs from 2025-03-26 to 2025-11-25; the stateless era
// (server/discover, per-request _meta) starts with 2026-07-28.
const (
	// Version20250326 is the first session-era revision of Streamable
	// HTTP, and the only one with JSON-RPC batches.
	Version20250326 = "2025-03-26"
	// Version20250618 is the second session-era revision.
	Version20250618 = "2025-06-18"
	// Version20251125 is the third, and last, session-era revision.
	Version20251125 = "2025-11-25"
	// Version20260728 is the stateless-era revision.
	Version20260728 = "2026-07-28"
)

// The latest revision of each era.
const (
	// LatestSessionVersion is the session-era revision a client asks for in
	// initialize, and the one a server answers when the client asked for a
	// revision it does not speak.
	LatestSessionVersion = Version20251125
	// LatestStatelessVersion is the stateless-era revision a client sends in
	// _meta and the MCP-Protocol-Version header.
	LatestStatelessVersion = Version20260728
)

// SessionVersions returns the session-era revisions, oldest first.
func SessionVersions() []string {
	return []string{Version20250326, Version20250618, Version20251125}
}

// StatelessVersions returns the stateless-era revisions, oldest first.
func StatelessVersions() []string { return []string{Version20260728} }

// Versions returns every revision of both eras, oldest first: what an
// endpoint serving both lists as supported.
func Versions() []string { return append(SessionVersions(), StatelessVersions()...) }

// IsSessionVersion reports whether v is a session-era revision.
func IsSessionVersion(v string) bool {
	switch v {
	case Version20250326, Version20250618, Version20251125:
		return true
	}
	return false
}

// IsStatelessVersion reports whether v is a stateless-era revision.
func IsStatelessVersion(v string) bool { return v == Version20260728 }

// IsSupported reports whether v is a revision of either era.
func IsSupported(v string) bool { return IsSessionVersion(v) || IsStatelessVersion(v) }

// NegotiateSession returns the revision an initialize answer names when
// the client asked for requested: requested when it is a session-era
// revision, else LatestSessionVersion.
func NegotiateSession(requested string) string {
	if IsSessionVersion(requested) {
		return requested
	}
	return LatestSessionVersion
}

// PrecedesStateless reports whether v is a dated revision (YYYY-MM-DD)
// older than the stateless era's first, such as 2024-11-05: a revision of
// the session era's generation, even when this package does not speak it.
func PrecedesStateless(v string) bool {
	if len(v) != 10 || v[4] != '-' || v[7] != '-' {
		return false
	}
	for i := 0; i < len(v); i++ {
		if i != 4 && i != 7 && (v[i] < '0' || v[i] > '9') {
			return false
		}
	}
	return v < Version20260728
}

// HasBatches reports whether revision v takes JSON-RPC batches (only
// 2025-03-26 does).
func HasBatches(v string) bool { return v == Version20250326 }
