// Tests for guard parsing, evaluation (held/failed evidence) and State.Lookup.

package serve

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mustGuard(t *testing.T, doc string) *Guard {
	t.Helper()
	v, err := ParseValue([]byte(doc))
	require.NoError(t, err)
	g, err := ParseGuard(v)
	require.NoError(t, err)
	return g
}

func TestStateLookup(t *testing.T) {
	s := State{
		"cart.items": []any{"exact"},
		"cart":       map[string]any{"items": []any{"nested"}, "total": 3.0, "deep": map[string]any{"x": "y"}},
		"a.b":        map[string]any{"c": 1.0},
		"user":       State{"role": "admin"},
		"nullish":    nil,
		"str":        "not a map",
	}
	cases := []struct {
		key   string
		want  any
		found bool
	}{
		{"cart.items", []any{"exact"}, true},
		{"cart.total", 3.0, true},
		{"cart.deep.x", "y", true},
		{"a.b.c", 1.0, true},
		{"user.role", "admin", true},
		{"nullish", nil, true},
		{"cart.missing", nil, false},
		{"str.len", nil, false},
		{"nope", nil, false},
		{"", nil, false},
		{"cart.", nil, false},
	}
	for _, c := range cases {
		t.Run(c.key, func(t *testing.T) {
			got, found := s.Lookup(c.key)
			assert.Equal(t, c.found, found)
			assert.Equal(t, c.want, got)
		})
	}
	var nilState State
	_, found := nilState.Lookup("x")
	assert.False(t, found)
}

func TestGuardLeafOps(t *testing.T) {
	state := State{
		"role":  "admin",
		"n":     5.0,
		"i":     5,
		"zero":  0.0,
		"empty": "",
		"list":  []any{},
		"full":  []any{1.0},
		"obj":   map[string]any{},
		"null":  nil,
		"f":     false,
		"cart":  map[string]any{"items": []any{"x"}},
	}
	cases := []struct {
		guard string
		want  bool
	}{
		{`{"key":"role","op":"eq","value":"admin"}`, true},
		{`{"key":"role","op":"eq","value":"user"}`, false},
		{`{"key":"missing","op":"eq","value":null}`, false},
		{`{"key":"null","op":"eq","value":null}`, true},
		{`{"key":"i","op":"eq","value":5}`, true},
		{`{"key":"role","op":"ne","value":"user"}`, true},
		{`{"key":"role","op":"ne","value":"admin"}`, false},
		{`{"key":"missing","op":"ne","value":"x"}`, true},
		{`{"key":"n","op":"truthy"}`, true},
		{`{"key":"zero","op":"truthy"}`, false},
		{`{"key":"empty","op":"truthy"}`, false},
		{`{"key":"list","op":"truthy"}`, true},
		{`{"key":"f","op":"truthy"}`, false},
		{`{"key":"null","op":"truthy"}`, false},
		{`{"key":"missing","op":"truthy"}`, false},
		{`{"key":"zero","op":"exists"}`, true},
		{`{"key":"null","op":"exists"}`, false},
		{`{"key":"missing","op":"exists"}`, false},
		{`{"key":"full","op":"nonEmpty"}`, true},
		{`{"key":"list","op":"nonEmpty"}`, false},
		{`{"key":"role","op":"nonEmpty"}`, true},
		{`{"key":"empty","op":"nonEmpty"}`, false},
		{`{"key":"obj","op":"nonEmpty"}`, false},
		{`{"key":"cart","op":"nonEmpty"}`, true},
		{`{"key":"n","op":"nonEmpty"}`, false},
		{`{"key":"cart.items","op":"nonEmpty"}`, true},
		{`{"key":"role","op":"in","value":["user","admin"]}`, true},
		{`{"key":"role","op":"in","value":["user"]}`, false},
		{`{"key":"missing","op":"in","value":[null]}`, false},
		{`{"key":"role","op":"in","value":[]}`, false},
		{`{"key":"n","op":"gt","value":4}`, true},
		{`{"key":"n","op":"gt","value":5}`, false},
		{`{"key":"n","op":"gte","value":5}`, true},
		{`{"key":"n","op":"lt","value":5}`, false},
		{`{"key":"i","op":"lt","value":5.5}`, true},
		{`{"key":"n","op":"lte","value":5}`, true},
		{`{"key":"role","op":"gt","value":0}`, false},
		{`{"key":"missing","op":"lt","value":100}`, false},
		{`{"all":[]}`, true},
		{`{"any":[]}`, false},
		{`{"not":{"any":[]}}`, true},
	}
	for _, c := range cases {
		t.Run(c.guard, func(t *testing.T) {
			ok, held, failed := mustGuard(t, c.guard).Eval(state)
			assert.Equal(t, c.want, ok)
			if ok {
				assert.Nil(t, failed)
			} else {
				assert.Nil(t, held)
			}
		})
	}
}

func TestGuardEvidence(t *testing.T) {
	state := State{"cart": map[string]any{"items": []any{}}, "role": "guest", "qty": 2.0}
	cases := []struct {
		name   string
		guard  string
		ok     bool
		held   []Condition
		failed []Condition
	}{
		{
			name:   "all lists every failed leaf",
			guard:  `{"all":[{"key":"cart.items","op":"nonEmpty"},{"key":"qty","op":"gt","value":1},{"key":"role","op":"eq","value":"admin"}]}`,
			failed: []Condition{{Key: "cart.items", Op: "nonEmpty", Actual: []any{}}, {Key: "role", Op: "eq", Value: "admin", Actual: "guest"}},
		},
		{
			name:  "all holds with every leaf",
			guard: `{"all":[{"key":"qty","op":"gte","value":2},{"key":"role","op":"exists"}]}`,
			ok:    true,
			held:  []Condition{{Key: "qty", Op: "gte", Value: 2.0, Actual: 2.0}, {Key: "role", Op: "exists", Actual: "guest"}},
		},
		{
			name:   "any failure lists all branches",
			guard:  `{"any":[{"key":"role","op":"eq","value":"admin"},{"all":[{"key":"missing","op":"truthy"}]}]}`,
			failed: []Condition{{Key: "role", Op: "eq", Value: "admin", Actual: "guest"}, {Key: "missing", Op: "truthy"}},
		},
		{
			name:  "any success lists the held branch",
			guard: `{"any":[{"key":"role","op":"eq","value":"admin"},{"key":"qty","op":"lt","value":3}]}`,
			ok:    true,
			held:  []Condition{{Key: "qty", Op: "lt", Value: 3.0, Actual: 2.0}},
		},
		{
			name:   "not fails with the inner held leaves negated",
			guard:  `{"not":{"key":"role","op":"eq","value":"guest"}}`,
			failed: []Condition{{Key: "role", Op: "eq", Value: "guest", Actual: "guest", Negated: true}},
		},
		{
			name:  "not holds with the inner failed leaves negated",
			guard: `{"not":{"all":[{"key":"role","op":"eq","value":"admin"},{"key":"qty","op":"gt","value":0}]}}`,
			ok:    true,
			held:  []Condition{{Key: "role", Op: "eq", Value: "admin", Actual: "guest", Negated: true}},
		},
		{
			name:  "double not is not negated",
			guard: `{"not":{"not":{"key":"qty","op":"eq","value":2}}}`,
			ok:    true,
			held:  []Condition{{Key: "qty", Op: "eq", Value: 2.0, Actual: 2.0}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ok, held, failed := mustGuard(t, c.guard).Eval(state)
			assert.Equal(t, c.ok, ok)
			assert.Equal(t, c.held, held)
			assert.Equal(t, c.failed, failed)
		})
	}
}

func TestGuardNilHolds(t *testing.T) {
	var g *Guard
	ok, held, failed := g.Eval(State{"x": 1.0})
	assert.True(t, ok)
	assert.Nil(t, held)
	assert.Nil(t, failed)
	g, err := ParseGuard(nil)
	require.NoError(t, err)
	assert.Nil(t, g)
}

func TestGuardActualIsACopy(t *testing.T) {
	items := []any{"a"}
	state := State{"items": items}
	_, held, _ := mustGuard(t, `{"key":"items","op":"nonEmpty"}`).Eval(state)
	require.Len(t, held, 1)
	held[0].Actual.([]any)[0] = "changed"
	assert.Equal(t, "a", items[0])
}

func TestGuardValueIsCopiedAtParse(t *testing.T) {
	list := []any{"admin"}
	g, err := ParseGuard(map[string]any{"key": "role", "op": "in", "value": list})
	require.NoError(t, err)
	list[0] = "guest"
	ok, _, _ := g.Eval(State{"role": "admin"})
	assert.True(t, ok)
}

func TestParseGuardErrors(t *testing.T) {
	cases := []struct {
		name, guard, wantErr string
	}{
		{"not an object", `"x"`, "must be an object, got a string"},
		{"unknown op", `{"key":"a","op":"matches"}`, `unknown op "matches"`},
		{"op names key", `{"key":"cart.total","op":"bigger"}`, `"cart.total"`},
		{"missing op", `{"key":"a"}`, `has no "op"`},
		{"op not string", `{"key":"a","op":1}`, `"op" must be a string`},
		{"empty key", `{"key":"","op":"exists"}`, `"key" must be a non-empty string`},
		{"key not string", `{"key":3,"op":"exists"}`, `"key" must be a non-empty string, got a number`},
		{"no form", `{"op":"exists"}`, `needs "key" and "op"`},
		{"two forms", `{"all":[],"any":[]}`, "exactly one of"},
		{"eq without value", `{"key":"a","op":"eq"}`, `op "eq" needs a "value"`},
		{"in not array", `{"key":"a","op":"in","value":"x"}`, `needs an array "value", got a string`},
		{"gt not number", `{"key":"a","op":"gt","value":"3"}`, `op "gt" needs a number "value"`},
		{"all not array", `{"all":{}}`, `"all" must be an array of conditions, got an object`},
		{"nested bad op has path", `{"all":[{"key":"a","op":"exists"},{"not":{"key":"b","op":"zz"}}]}`, `all[1]: not: condition on "b": unknown op "zz"`},
		{"too deep", strings.Repeat(`{"not":`, maxGuardDepth+2) + `{"key":"a","op":"exists"}` + strings.Repeat("}", maxGuardDepth+2), "nested deeper than"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := ParseValue([]byte(c.guard))
			require.NoError(t, err)
			g, err := ParseGuard(v)
			require.Error(t, err)
			assert.Nil(t, g)
			assert.Contains(t, err.Error(), c.wantErr)
			assert.True(t, strings.HasPrefix(err.Error(), "serve: guard: "), err.Error())
		})
	}
}

func TestConditionString(t *testing.T) {
	cases := []struct {
		c    Condition
		want string
	}{
		{Condition{Key: "cart.items", Op: "nonEmpty", Actual: []any{}}, "cart.items nonEmpty"},
		{Condition{Key: "role", Op: "eq", Value: "admin"}, `role eq "admin"`},
		{Condition{Key: "qty", Op: "gt", Value: 3.0, Negated: true}, "not qty gt 3"},
		{Condition{Key: "r", Op: "in", Value: []any{"a", 1.0}}, `r in ["a",1]`},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, c.c.String())
	}
}

func TestConditionAppendJSON(t *testing.T) {
	cases := []struct {
		c    Condition
		want string
	}{
		{Condition{Key: "cart.items", Op: "nonEmpty"}, `{"key":"cart.items","op":"nonEmpty"}`},
		{Condition{Key: "role", Op: "eq", Value: "admin", Actual: "guest", Negated: true}, `{"key":"role","op":"eq","value":"admin","actual":"guest","negated":true}`},
		{Condition{Key: "f", Op: "eq", Value: false, Actual: 0.0}, `{"key":"f","op":"eq","value":false,"actual":0}`},
	}
	for _, c := range cases {
		got := c.c.AppendJSON([]byte("x"))
		assert.Equal(t, "x"+c.want, string(got))
		_, err := ParseValue(got[1:])
		assert.NoError(t, err)
	}
}
