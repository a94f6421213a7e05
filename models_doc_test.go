// The error codes of a model reached directly are written in four places —
// internal/openai's constants, session's, docs/MODELS.md's table and the
// declarations' Turn.errorCode — and this test holds them to one list.

package agentwasm_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/agentwasm/agentwasm/internal/openai"
	"github.com/agentwasm/agentwasm/session"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestModelErrorCodesAgree(t *testing.T) {
	// What a session talking directly can end a turn with.
	direct := []string{
		session.ErrorCodeUpstreamUnauthorized, session.ErrorCodeUpstreamNotFound, session.ErrorCodeUpstreamRateLimited,
		session.ErrorCodeUpstreamUnavailable, session.ErrorCodeUpstreamRejected, session.ErrorCodeUpstreamNotOpenAI,
		session.ErrorCodeUpstreamMalformed, session.ErrorCodeUpstreamError, session.ErrorCodeUpstreamUnreachable,
		session.ErrorCodeUpstreamCORS, session.ErrorCodeDirectUnavailable,
	}
	// What only the dev server's proxy and pass-through send.
	devOnly := []string{openai.CodeCut, openai.CodeStalled, openai.CodeRedirected, openai.CodeBadRequest, "model_not_allowed"}
	all := append(append([]string{}, direct...), devOnly...)
	all = append(all, session.ErrorCodeStreamTruncated, session.ErrorCodeStreamTimeout)
	for _, c := range []string{openai.CodeUnauthorized, openai.CodeNotFound, openai.CodeRateLimited, openai.CodeUnavailable,
		openai.CodeRejected, openai.CodeNotOpenAI, openai.CodeMalformed, openai.CodeError, openai.CodeUnreachable, openai.CodeCORS} {
		assert.Contains(t, direct, c, "internal/openai's code %s has a session constant", c)
	}

	models, err := os.ReadFile("docs/MODELS.md")
	require.NoError(t, err)
	text := string(models)
	i := strings.Index(text, "\n## Errors\n")
	require.GreaterOrEqual(t, i, 0, "docs/MODELS.md has an Errors section")
	section := text[i:]
	if j := strings.Index(section[1:], "\n## "); j >= 0 {
		section = section[:j+1]
	}
	var table []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\|").FindAllStringSubmatch(section, -1) {
		table = append(table, m[1])
	}
	assert.ElementsMatch(t, all, table, "docs/MODELS.md's error table lists exactly the codes")

	dts, err := os.ReadFile("web/agentwasm.d.ts")
	require.NoError(t, err)
	doc := string(dts)
	k := strings.Index(doc, "With a {@link DirectModel}, a failure at the endpoint")
	require.GreaterOrEqual(t, k, 0, "Turn.errorCode's doc lists the direct codes")
	doc = doc[k : strings.Index(doc[k:], "errorCode?: string;")+k]
	for _, c := range direct {
		assert.Contains(t, doc, "`"+c+"`", "Turn.errorCode's doc names %s", c)
	}
}
