// The span contract is written three times — the Go package tracing, the
// JavaScript trace module and docs/TRACING.md — and this test holds the
// three to the same attribute and event names, so that a turn traced in a
// page and one traced natively carry the same names, and the page that
// lists them lists them all.

package agentwasm_test

import (
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// traceKeyPattern matches an attribute or event name of the contract: the
// conventions' namespaces and agentwasm's own.
const traceKeyPattern = `(?:agentwasm|gen_ai|mcp|jsonrpc|rpc|server|network|error)\.[a-z_.]*[a-z_]`

// traceNames returns the sorted distinct names that re (whose first group
// is the name) finds in the file at path.
func traceNames(t *testing.T, path string, re *regexp.Regexp) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var names []string
	for _, m := range re.FindAllStringSubmatch(string(b), -1) {
		if !slices.Contains(names, m[1]) {
			names = append(names, m[1])
		}
	}
	slices.Sort(names)
	return names
}

func TestTraceNamesAgree(t *testing.T) {
	goNames := traceNames(t, "tracing/names.go", regexp.MustCompile(`"(`+traceKeyPattern+`)"`))
	jsNames := traceNames(t, "web/agentwasm-trace.mjs", regexp.MustCompile(`'(`+traceKeyPattern+`)'`))
	docNames := traceNames(t, "docs/TRACING.md", regexp.MustCompile("`("+traceKeyPattern+")`"))

	require.NotEmpty(t, goNames)
	assert.Contains(t, goNames, "gen_ai.operation.name", "the pattern finds the conventions' names")
	assert.Contains(t, goNames, "agentwasm.approval.requested", "and the event names")
	assert.Equal(t, goNames, jsNames, "tracing/names.go and web/agentwasm-trace.mjs write the same attribute and event names")
	assert.Subset(t, docNames, goNames, "docs/TRACING.md lists every name the spans carry")
	for _, n := range docNames {
		assert.Contains(t, goNames, n, "docs/TRACING.md names %s, which no span carries", n)
	}
}
