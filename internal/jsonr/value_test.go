// Table-driven tests of Value: what it accepts and builds, and what it
// refuses, where and why.

package jsonr_test

import (
	"strings"
	"testing"

	"github.com/agentwasm/agentwasm/internal/jsonr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestValueAccepts: serve's ParseValue tests cover the scalars and escapes;
// these cover the shapes around them.
func TestValueAccepts(t *testing.T) {
	deepest := strings.Repeat("[", jsonr.MaxValueDepth) + strings.Repeat("]", jsonr.MaxValueDepth)
	cases := []struct {
		in   string
		want any
	}{
		{" { \"a\" : [ 1 , -0.5E-1 ] , \"b\":{ } } ", map[string]any{"a": []any{1.0, -0.05}, "b": map[string]any{}}},
		{`[[],{},"",0]`, []any{[]any{}, map[string]any{}, "", 0.0}},
		{`{"\u0061\n":"\u0000\u001f"}`, map[string]any{"a\n": "\x00\x1f"}},
		{"{\"k\xff\":1}", map[string]any{"k\ufffd": 1.0}},
		{`{"x":{"y":1},"x":[true]}`, map[string]any{"x": []any{true}}},
		{`12345678901234567890`, 12345678901234567890.0},
		{`[null,false,true]`, []any{nil, false, true}},
		{deepest, nested(jsonr.MaxValueDepth)},
	}
	for _, c := range cases {
		got, err := jsonr.Value([]byte(c.in))
		require.NoError(t, err, c.in)
		assert.Equal(t, c.want, got, c.in)
	}
}

// nested returns n arrays, each the only element of the one around it.
func nested(n int) any {
	v := []any{}
	for i := 1; i < n; i++ {
		v = []any{v}
	}
	return v
}

func TestValueRejects(t *testing.T) {
	tooDeep := strings.Repeat("[", jsonr.MaxValueDepth+1) + strings.Repeat("]", jsonr.MaxValueDepth+1)
	cases := []struct {
		name, in string
		offset   int
		reason   string
	}{
		{"empty", "", 0, "unexpected end of input, want a value"},
		{"only space", "   ", 3, "unexpected end of input, want a value"},
		{"trailing data", "1 2", 2, "unexpected '2' after the value"},
		{"leading zero", "01", 1, "unexpected '1' after the value"},
		{"plus sign", "+1", 0, "unexpected '+', want a value"},
		{"bare dot", "1.", 2, "unexpected end of input in a number, want a digit after '.'"},
		{"bad exponent", "1e+x", 3, "unexpected 'x' in a number, want a digit in the exponent"},
		{"minus alone", "-", 1, "unexpected end of input in a number, want a digit"},
		{"out of range", "-1e400", 0, "number -1e400 is out of range"},
		{"single quotes", "'a'", 0, `unexpected '\'', want a value`},
		{"non-ASCII byte", "\xff", 0, "unexpected byte 0xff, want a value"},
		{"unterminated string", `"abc`, 4, "unexpected end of input in a string"},
		{"unterminated escape", `"abc\`, 5, "unexpected end of input in a string escape"},
		{"raw newline in string", "\"a\nb\"", 2, "control character 0x0a in a string must be escaped"},
		{"bad escape", `"\x"`, 2, "invalid escape 'x' in a string"},
		{"short unicode escape", `"\u12"`, 1, `invalid \u escape in a string`},
		{"trailing comma array", "[1,]", 3, "unexpected ']', want a value"},
		{"trailing comma object", `{"a":1,}`, 7, "unexpected '}', want an object key"},
		{"missing colon", `{"a" 1}`, 5, "unexpected '1', want ':' after an object key"},
		{"non-string key", `{1:2}`, 1, "unexpected '1', want an object key"},
		{"missing comma", `[1 2]`, 3, "unexpected '2', want ',' or ']' in an array"},
		{"wrong closer", `{"a":1]`, 6, "unexpected ']', want ',' or '}' in an object"},
		{"unclosed array", "[1", 2, "unexpected end of input in an array"},
		{"unclosed object", `{"a":1`, 6, "unexpected end of input in an object"},
		{"truncated literal", "tru", 3, "unexpected end of input in literal true"},
		{"wrong literal", "nul1", 3, "unexpected '1' in literal null"},
		{"literal run on", "truex", 4, "unexpected 'x' after the value"},
		{"too deep", tooDeep, jsonr.MaxValueDepth, "nesting deeper than 512"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := jsonr.Value([]byte(c.in))
			assert.Nil(t, v)
			var e *jsonr.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, c.offset, e.Offset)
			assert.Equal(t, c.reason, e.Reason)
		})
	}
}

// TestSkipAgreesWithValue: SkipRecursive and Raw walk a value as Value
// does, so they refuse the same documents with the same error.
func TestSkipAgreesWithValue(t *testing.T) {
	for _, in := range []string{`[1,{"a":[true,null,"x"]}]`, `{"a":[}]}`, `[01]`, `[tru]`, `{"a" 1}`, `["\x"]`, `[1 2]`} {
		_, want := jsonr.Value([]byte(in))
		l := lex(in)
		l.SkipRecursive()
		l.Consumed()
		if want == nil {
			assert.NoError(t, l.Error(), in)
			continue
		}
		assert.Equal(t, want, l.Error(), in)
	}
}

func TestDuplicateKey(t *testing.T) {
	for _, c := range []struct {
		name, in string
		key      string
		found    bool
		bad      bool
	}{
		{"none", `{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}`, "", false, false},
		{"top level", `{"a":1,"a":2}`, "a", true, false},
		{"nested", `{"x":{"k":1,"y":2,"k":3}}`, "k", true, false},
		{"in an array", `[{"q":1},{"q":2,"q":3}]`, "q", true, false},
		{"escaped the same", `{"\u0061":1,"a":2}`, "a", true, false},
		{"many members, then a repeat", `{"m0":0,"m1":0,"m2":0,"m3":0,"m4":0,"m5":0,"m6":0,"m7":0,"m8":0,"m9":0,"m10":0,"m11":0,"m12":0,"m13":0,"m14":0,"m15":0,"m16":0,"m17":0,"m3":1}`, "m3", true, false},
		{"a string is not a key", `{"a":"a","b":"a"}`, "", false, false},
		{"not JSON", `{"a":1,`, "", false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			key, found, err := jsonr.DuplicateKey([]byte(c.in))
			if c.bad {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.found, found)
			assert.Equal(t, c.key, key)
		})
	}
}
