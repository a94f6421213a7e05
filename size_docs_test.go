// The size budgets README.md states are the ones the Makefile enforces.

package agentwasm_test

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadmeSizeBudgetsAreTheMakefiles reads every `--budget FILE:RAW:BROTLI`
// of the Makefile and checks README.md's Size section states it: the raw
// bytes in MB and the brotli bytes in full.
func TestReadmeSizeBudgetsAreTheMakefiles(t *testing.T) {
	mk, err := os.ReadFile("Makefile")
	require.NoError(t, err)
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	size := string(readme)
	i := strings.Index(size, "\n## Size\n")
	require.GreaterOrEqual(t, i, 0, "README.md has a Size section")
	size = size[i:]
	if j := strings.Index(size[1:], "\n## "); j >= 0 {
		size = size[:j+1]
	}

	budgets := regexp.MustCompile(`--budget (dist/[\w.-]+):(\d+):(\d+)`).FindAllStringSubmatch(string(mk), -1)
	require.Len(t, budgets, 3, "the Makefile has budgets for the full, session-only and TinyGo js modules")
	lines := map[string]string{
		"dist/agentwasm.wasm":         "the full js module:",
		"dist/agentwasm-session.wasm": "the session-only module:",
		"dist/agentwasm.tiny.wasm":    "TinyGo's js module:",
	}
	for _, b := range budgets {
		file, raw, brotli := b[1], b[2], b[3]
		label, ok := lines[file]
		require.True(t, ok, "a budget for %s, which README.md's Size section does not list", file)
		k := strings.Index(size, label)
		require.GreaterOrEqual(t, k, 0, "README.md's Size section states the budget of %s (%q)", file, label)
		line := size[k:]
		line = line[:strings.Index(line, "\n")]
		rawN, _ := strconv.Atoi(raw)
		brotliN, _ := strconv.Atoi(brotli)
		assert.Contains(t, line, strconv.FormatFloat(float64(rawN)/1e6, 'f', -1, 64)+" MB raw", "%s's raw budget", file)
		assert.Contains(t, line, commas(brotliN)+" B brotli", "%s's brotli budget", file)
	}
}

// commas writes n with thousands separators, as the README does.
func commas(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
