// Tests of Compile and Validate that serve's own schema tests do not
// reach: compiled internals, errors without serve's prefix, and values
// seen through a View.

package jsonschema

import (
	"strings"
	"testing"

	"github.com/agentwasm/agentwasm/internal/jsonr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mustCompile(t *testing.T, doc string, m Model) *Schema {
	t.Helper()
	v, err := jsonr.Value([]byte(doc))
	require.NoError(t, err)
	s, err := Compile(v, m)
	require.NoError(t, err)
	return s
}

func TestRefAliasesShareNode(t *testing.T) {
	s := mustCompile(t, `{"$defs":{"n":{"type":"number"}},"properties":{"a":{"$ref":"#/$defs/n"},"b":{"$ref":"#/$defs/n"}}}`, Model{})
	assert.Same(t, s.root.props["a"].ref, s.root.props["b"].ref)
}

func TestCompileErrorsHaveNoPrefix(t *testing.T) {
	cases := []struct{ schema, want string }{
		{`{"properties":{"a":{"type":"x"}}}`, `at /properties/a: unknown type "x"`},
		{`[]`, "a schema must be an object or a boolean, got an array"},
		{`{"$ref":"#/$defs/a~1b"}`, `$ref "#/$defs/a~1b" does not resolve`},
		{strings.Repeat(`{"not":{},"items":`, MaxDepth+1) + "{}" + strings.Repeat("}", MaxDepth+1), "at /items/items"},
	}
	for _, c := range cases {
		v, err := jsonr.Value([]byte(c.schema))
		require.NoError(t, err)
		s, err := Compile(v, Model{})
		assert.Nil(t, s)
		require.Error(t, err)
		assert.True(t, strings.HasPrefix(err.Error(), c.want), err.Error())
	}
}

// A schema and a value given in a type only the View knows are compiled
// and checked as the objects the View shows.
func TestCompileAndValidateThroughView(t *testing.T) {
	m := Model{View: viewRecord}
	s, err := Compile(record{
		"type":                 "object",
		"required":             []string{"a"},
		"properties":           record{"a": record{"enum": []any{record{"x": 1.0}}}},
		"$defs":                record{"n": record{"type": "number"}},
		"additionalProperties": record{"$ref": "#/$defs/n"},
	}, m)
	require.NoError(t, err)
	assert.Nil(t, s.Validate(record{"a": record{"x": 1}, "b": 2}))
	assert.Equal(t, []Mismatch{
		{"/a", `must be one of [{"x":1}]`},
		{"/b", "must be number"},
	}, s.Validate(record{"a": map[string]any{"x": 2.0}, "b": "two"}))
	assert.Equal(t, []Mismatch{{"", "must be object"}}, s.Validate(struct{}{}))
}
