// The size budgets docs/SIZE.md states are the ones the Makefile enforces,
// and README.md stays a page for users: under 15,000 bytes.

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

// TestSizeDocBudgetsAreTheMakefiles reads every `--budget FILE:RAW:BROTLI`
// of the Makefile and checks docs/SIZE.md's Budgets section states it: the
// raw bytes in MB and the brotli bytes in full.
func TestSizeDocBudgetsAreTheMakefiles(t *testing.T) {
	mk, err := os.ReadFile("Makefile")
	require.NoError(t, err)
	doc, err := os.ReadFile("docs/SIZE.md")
	require.NoError(t, err)
	size := string(doc)
	i := strings.Index(size, "\n## Budgets\n")
	require.GreaterOrEqual(t, i, 0, "docs/SIZE.md has a Budgets section")
	size = size[i:]
	if j := strings.Index(size[1:], "\n## "); j >= 0 {
		size = size[:j+1]
	}

	budgets := regexp.MustCompile(`--budget (dist/[\w.-]+):(\d+):(\d+)`).FindAllStringSubmatch(string(mk), -1)
	require.Len(t, budgets, 4, "the Makefile has budgets for the full and session-only js modules of each toolchain")
	lines := map[string]string{
		"dist/agentwasm.wasm":              "the full js module:",
		"dist/agentwasm-session.wasm":      "the session-only module:",
		"dist/agentwasm.tiny.wasm":         "TinyGo's js module:",
		"dist/agentwasm-session.tiny.wasm": "TinyGo's session-only module:",
	}
	for _, b := range budgets {
		file, raw, brotli := b[1], b[2], b[3]
		label, ok := lines[file]
		require.True(t, ok, "a budget for %s, which docs/SIZE.md's Budgets section does not list", file)
		k := strings.Index(size, label)
		require.GreaterOrEqual(t, k, 0, "docs/SIZE.md's Budgets section states the budget of %s (%q)", file, label)
		line := size[k:]
		line = line[:strings.Index(line, "\n")]
		rawN, _ := strconv.Atoi(raw)
		brotliN, _ := strconv.Atoi(brotli)
		assert.Contains(t, line, strconv.FormatFloat(float64(rawN)/1e6, 'f', -1, 64)+" MB raw", "%s's raw budget", file)
		assert.Contains(t, line, commas(brotliN)+" B brotli", "%s's brotli budget", file)
	}
}

// TestReadmeIsShort keeps README.md the users' page: what agentwasm is, how
// to run it and use it. Size internals, the architecture and the protocol
// live in docs/.
func TestReadmeIsShort(t *testing.T) {
	info, err := os.Stat("README.md")
	require.NoError(t, err)
	assert.Less(t, info.Size(), int64(15000), "README.md is for users; move the detail to a doc under docs/")
}

// commas writes n with thousands separators, as docs/SIZE.md does.
func commas(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TestSizeCostsAgree: every cost `make size` writes (a `<!-- cost:NAME -->`
// span) says the same in README.md and docs/SIZE.md, so a stale copy shows.
func TestSizeCostsAgree(t *testing.T) {
	span := regexp.MustCompile(`<!-- cost:(\w+) -->(.*?)<!-- /cost -->`)
	seen := map[string]string{}
	for _, file := range []string{"README.md", "docs/SIZE.md"} {
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		found := span.FindAllStringSubmatch(string(b), -1)
		require.NotEmpty(t, found, "%s states what the direct transport costs", file)
		for _, m := range found {
			if prev, ok := seen[m[1]]; ok {
				assert.Equal(t, prev, m[2], "the cost %s in %s", m[1], file)
			}
			seen[m[1]] = m[2]
		}
	}
	assert.Contains(t, seen, "direct")
}
