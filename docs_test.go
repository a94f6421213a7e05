// The documents hold: every fault RELIABILITY.md lists points at tests, and
// every test it names is in the file it names, so the document cannot
// promise a test that was renamed or removed; and every relative link of the
// repository's documents reaches a file and heading that exist.

package agentwasm_test

import (
	"os"
	"path/filepath"
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

// docLink matches a markdown link's target: [text](target).
var docLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// headingSlug turns a markdown heading into the anchor GitHub gives it:
// lower case, punctuation other than hyphens dropped, spaces as hyphens.
func headingSlug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors lists the heading anchors of a markdown file.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	inCode := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
		}
		if !inCode && strings.HasPrefix(line, "#") {
			out[headingSlug(strings.TrimLeft(line, "#"))] = true
		}
	}
	return out
}

// TestDocLinksResolve checks every relative link of the repository's
// documents: the file it names exists, and an #anchor names one of its
// headings. The documents stand alone: none points outside the repository.
func TestDocLinksResolve(t *testing.T) {
	docs := []string{"README.md", "RELIABILITY.md", "BENCHMARKS.md", "CHANGELOG.md", "wasm/README.md", "web/package/README.md"}
	more, err := filepath.Glob("docs/*.md")
	require.NoError(t, err)
	docs = append(docs, more...)
	links := 0
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		require.NoError(t, err)
		text := string(b)
		assert.NotContains(t, text, "../shared", "%s points outside the repository", doc)
		for _, m := range docLink.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			links++
			file, anchor, _ := strings.Cut(target, "#")
			path := doc
			if file != "" {
				path = filepath.Join(filepath.Dir(doc), file)
			}
			rel, err := filepath.Rel(".", path)
			if !assert.NoError(t, err) || !assert.False(t, strings.HasPrefix(rel, ".."), "%s links outside the repository: %s", doc, target) {
				continue
			}
			data, err := os.ReadFile(path)
			if !assert.NoError(t, err, "%s links to %s", doc, target) || anchor == "" {
				continue
			}
			assert.True(t, anchors(string(data))[anchor], "%s links to %s, which has no heading #%s", doc, path, anchor)
		}
	}
	assert.Positive(t, links)
}
