// The proofs RELIABILITY.md names exist: every fault it lists points at
// tests, and every test it names is in the file it names, so the document
// cannot promise a test that was renamed or removed.

package agentwasm_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// proofRef matches what a proof cell holds: `file`, `TestName` (Go) or
// "a title fragment" (a Node test).
var proofRef = regexp.MustCompile("`([^`]+)`|\"([^\"]+)\"")

func TestReliabilityProofsExist(t *testing.T) {
	b, err := os.ReadFile("RELIABILITY.md")
	require.NoError(t, err)
	rows, proofs := 0, 0
	for n, line := range strings.Split(string(b), "\n") {
		cells := strings.Split(strings.TrimSpace(line), "|")
		if len(cells) < 5 || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") || strings.TrimSpace(cells[len(cells)-2]) == "Proof" {
			continue // not a table row of at least three cells, or its header
		}
		rows++
		proof := cells[len(cells)-2]
		file, src, named := "", "", 0
		for _, m := range proofRef.FindAllStringSubmatch(proof, -1) {
			switch ref := m[1]; {
			case strings.HasSuffix(ref, "_test.go") || strings.HasSuffix(ref, ".mjs") || strings.HasSuffix(ref, "Makefile"):
				data, err := os.ReadFile(ref)
				if !assert.NoError(t, err, "RELIABILITY.md line %d names %s", n+1, ref) {
					file, src = "", ""
					continue
				}
				file, src = ref, string(data)
			case ref != "":
				if file == "" || !regexp.MustCompile(`^(Test|Fuzz|Example|Benchmark)`).MatchString(ref) {
					continue // code in prose
				}
				named++
				assert.Contains(t, src, "func "+ref+"(", "RELIABILITY.md line %d: %s has no %s", n+1, file, ref)
			default:
				if file == "" || !strings.HasSuffix(file, ".mjs") {
					continue
				}
				named++
				assert.Contains(t, src, m[2], "RELIABILITY.md line %d: %s has no test titled %q", n+1, file, m[2])
			}
		}
		if strings.Contains(proof, "Makefile") {
			named++
		}
		assert.Positive(t, named, "RELIABILITY.md line %d names no test: %s", n+1, line)
		proofs += named
	}
	assert.GreaterOrEqual(t, rows, 8, "the eight faults of the hardening issue at least")
	t.Logf("%d rows, %d named tests", rows, proofs)
}
