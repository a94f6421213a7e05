// The figures docs/PROTOCOL.md states about discovery, pinned to the
// constants the code uses, so that the document cannot drift from them.

package session_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentwasm/agentwasm/session"
)

// thousands writes n with commas between groups of three digits (4,096).
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func TestProtocolDocumentStatesTheDiscoveryBounds(t *testing.T) {
	b, err := os.ReadFile("../docs/PROTOCOL.md")
	require.NoError(t, err)
	doc := string(b)
	for _, want := range []string{
		"1–" + strconv.Itoa(session.MaxToolNameLength) + " characters",
		"deeper than " + strconv.Itoa(session.MaxToolSchemaDepth) + " levels",
		"longer than " + thousands(session.MaxToolDescriptionBytes) + " bytes",
		"already holds " + thousands(session.MaxCatalogTools) + " tools",
		"bounded by " + strconv.Itoa(int(session.DefaultToolDiscoveryTimeout.Seconds())) + " seconds",
	} {
		assert.True(t, strings.Contains(doc, want), "docs/PROTOCOL.md should say %q", want)
	}
}
