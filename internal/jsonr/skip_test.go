// SkipRecursive and Raw under Lexer.MaxDepth, and against Value's walker.

package jsonr_test

import (
	"strings"
	"testing"

	"github.com/agentwasm/agentwasm/internal/jsonr"
	"github.com/stretchr/testify/assert"
)

// nest returns depth arrays, one inside the other, around inner.
func nest(depth int, inner string) string {
	return strings.Repeat("[", depth) + inner + strings.Repeat("]", depth)
}

func TestMaxDepth(t *testing.T) {
	deepObject := strings.Repeat(`{"a":`, 12000) + "1" + strings.Repeat("}", 12000)
	cases := []struct {
		name string
		in   string
		max  int
		err  string
	}{
		{"the default bound", nest(jsonr.DefaultMaxDepth, ""), 0, ""},
		{"one past the default bound", nest(jsonr.DefaultMaxDepth+1, ""), 0, "nesting deeper than 10000 near offset 10000"},
		{"a bound of its own", nest(3, "1"), 3, ""},
		{"one past a bound of its own", nest(4, "1"), 3, "nesting deeper than 3 near offset 3"},
		{"past it inside an object", `{"a":[[{"b":1}]]}`, 3, "nesting deeper than 3 near offset 7"},
		{"empty values at the bound", `[[],{},[{}]]`, 3, ""},
		{"an empty value past the bound", `[[],{},[{}]]`, 2, "nesting deeper than 2 near offset 8"},
		{"an object 12000 deep under a high bound", deepObject, len(deepObject), ""},
		{"an object 12000 deep under the default", deepObject, 0, "nesting deeper than 10000"},
		{"a million arrays deep, no stack to speak of", nest(1_000_000, `{"x":[1,"]"]}`), 2_000_010, ""},
		{"a million deep and cut short", strings.Repeat("[", 1_000_000), 2_000_000, "unexpected end of input, want a value near offset 1000000"},
		{"an error deep inside", nest(20000, `{"a" 1}`), 40000, `unexpected '1', want ':' after an object key near offset 20005`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := &jsonr.Lexer{Data: []byte(c.in), MaxDepth: c.max}
			raw := l.Raw()
			check(t, l, c.err)
			if c.err == "" {
				assert.Equal(t, len(c.in), len(raw))
			}
			l = &jsonr.Lexer{Data: []byte(c.in), MaxDepth: c.max}
			l.SkipRecursive()
			check(t, l, c.err)
		})
	}
}

// FuzzSkipMatchesValue: SkipRecursive refuses what Value refuses, with the
// same error, for any array or object no deeper than MaxValueDepth (but for
// numbers out of a float64's range, which only Value, building values,
// refuses).
func FuzzSkipMatchesValue(f *testing.F) {
	for _, s := range []string{
		`[]`, `{}`, ` [1, "a", {"b": [null, true, false]}] `, `{"a":1,}`, `[1,]`, `[1 2]`, `{"a"}`, `{1:2}`,
		`{"a":1]`, `[}`, `[1}`, `{"a":[}]}`, `[01]`, `[tru]`, `["\x"]`, "[\"\t\"]", `{"a":`, `[`, `[1`,
		`{"a":1`, `{`, `{"a"`, "[\x01]", `[1e400]`, `["a`, `[-]`, `[1.]`, `[{"a":{"b":[[[]]]}}, 3]`, `[1E1000`,
		nest(jsonr.MaxValueDepth, ""), nest(jsonr.MaxValueDepth+1, ""),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		i := 0
		for i < len(data) && strings.IndexByte(" \t\r\n", data[i]) >= 0 {
			i++
		}
		if i == len(data) || (data[i] != '[' && data[i] != '{') {
			return
		}
		l := jsonr.Lexer{Data: data, MaxDepth: jsonr.MaxValueDepth}
		l.SkipRecursive()
		_, err := jsonr.Value(data)
		if err != nil && strings.Contains(err.Error(), "out of range") {
			return
		}
		switch {
		case l.Error() != nil && err == nil:
			t.Fatalf("SkipRecursive refused %q (%v), Value accepted it", data, l.Error())
		case l.Error() != nil && l.Error().Error() != err.Error():
			t.Fatalf("%q: SkipRecursive says %v, Value says %v", data, l.Error(), err)
		case l.Error() == nil && err != nil && !strings.Contains(err.Error(), "after the value"):
			t.Fatalf("SkipRecursive accepted %q, Value refused it: %v", data, err)
		}
	})
}
