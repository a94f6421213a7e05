package mcp

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestVersions(t *testing.T) {
	for _, tc := range []struct {
		v                            string
		session, stateless, precedes bool
		negotiated                   string
		batches                      bool
	}{
		{v: "2025-03-26", session: true, precedes: true, negotiated: "2025-03-26", batches: true},
		{v: "2025-06-18", session: true, precedes: true, negotiated: "2025-06-18"},
		{v: "2025-11-25", session: true, precedes: true, negotiated: "2025-11-25"},
		{v: "2026-07-28", stateless: true, negotiated: "2025-11-25"},
		{v: "2024-11-05", precedes: true, negotiated: "2025-11-25"},
		{v: "1999-01-01", precedes: true, negotiated: "2025-11-25"},
		{v: "2099-01-01", negotiated: "2025-11-25"},
		{v: "2025-1-125", negotiated: "2025-11-25"},
		{v: "v9", negotiated: "2025-11-25"},
		{v: "", negotiated: "2025-11-25"},
	} {
		t.Run(tc.v, func(t *testing.T) {
			assert.Equal(t, tc.session, IsSessionVersion(tc.v), "session era")
			assert.Equal(t, tc.stateless, IsStatelessVersion(tc.v), "stateless era")
			assert.Equal(t, tc.session || tc.stateless, IsSupported(tc.v), "supported")
			assert.Equal(t, tc.precedes, PrecedesStateless(tc.v), "precedes the stateless era")
			assert.Equal(t, tc.negotiated, NegotiateSession(tc.v), "initialize's answer")
			assert.Equal(t, tc.batches, HasBatches(tc.v), "batches")
		})
	}
}

func TestVersionLists(t *testing.T) {
	assert.Equal(t, []string{"2025-03-26", "2025-06-18", "2025-11-25"}, SessionVersions(), "oldest first")
	assert.Equal(t, []string{"2026-07-28"}, StatelessVersions())
	assert.Equal(t, []string{"2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}, Versions(), "both eras, oldest first")
	assert.Equal(t, "2025-11-25", LatestSessionVersion)
	assert.Equal(t, "2026-07-28", LatestStatelessVersion)
	for _, v := range SessionVersions() {
		assert.True(t, IsSessionVersion(v), v)
	}
	for _, v := range StatelessVersions() {
		assert.True(t, IsStatelessVersion(v), v)
	}
	SessionVersions()[0] = "changed"
	assert.Equal(t, "2025-03-26", SessionVersions()[0], "each call returns a list of its own")
}

func TestIsStatelessErrorCode(t *testing.T) {
	for _, tc := range []struct {
		code int
		want bool
	}{
		{HeaderMismatch, true},
		{MissingRequiredClientCapability, true},
		{UnsupportedProtocolVersion, true},
		{MethodNotFound, false},
		{ServerError, false},
		{SessionNotFound, false},
		{InvalidParams, false},
	} {
		assert.Equal(t, tc.want, IsStatelessErrorCode(tc.code), "code %d", tc.code)
	}
}
