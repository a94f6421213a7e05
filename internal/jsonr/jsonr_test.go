// Table-driven tests of every jsonr.Lexer method on valid and invalid input.

package jsonr_test

import (
	"strings"
	"testing"

	"github.com/agentwasm/agentwasm/internal/jsonr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lex returns a lexer over s.
func lex(s string) *jsonr.Lexer { return &jsonr.Lexer{Data: []byte(s)} }

// errText is l's error text, or "".
func errText(l *jsonr.Lexer) string {
	if err := l.Error(); err != nil {
		return err.Error()
	}
	return ""
}

// check asserts that l ended without error (wantErr == "") or with an
// error containing wantErr.
func check(t *testing.T, l *jsonr.Lexer, wantErr string) {
	t.Helper()
	if wantErr == "" {
		require.NoError(t, l.Error())
		assert.True(t, l.Ok())
		return
	}
	require.Error(t, l.Error())
	assert.False(t, l.Ok())
	assert.Contains(t, errText(l), wantErr)
}

func TestString(t *testing.T) {
	cases := []struct{ in, want, err string }{
		{`"abc"`, "abc", ""},
		{` "" `, "", ""},
		{`"a\"b\\c\/d"`, `a"b\c/d`, ""},
		{`"\b\f\n\r\t"`, "\b\f\n\r\t", ""},
		{`"\u00e9\u00C9"`, "éÉ", ""},
		{`"\u0000"`, "\x00", ""},
		{`"\ud83d\ude00"`, "😀", ""},
		{`"\ud83d"`, "\uFFFD", ""},
		{`"\ude00"`, "\uFFFD", ""},
		{`"\ud83d\u0041"`, "\uFFFDA", ""},
		{`"\ud83dx"`, "\uFFFDx", ""},
		{"\"caf\xc3\xa9\"", "café", ""},
		{"\"a\xffb\"", "a\uFFFDb", ""},
		{"\"\xf0\x9f\x98\"", "\uFFFD\uFFFD\uFFFD", ""},
		{"\"\xed\xa0\x80\"", "\uFFFD\uFFFD\uFFFD", ""},
		{"\"\xff\\n\"", "\uFFFD\n", ""},
		{"\u2028", "", "syntax error"},
		{`"abc`, "", "unexpected end of input in a string near offset 4"},
		{`"abc\"`, "", "unexpected end of input in a string near offset 6"},
		{`"abc\`, "", "unexpected end of input in a string escape near offset 5"},
		{`"\x"`, "", "invalid escape 'x' in a string near offset 2"},
		{`"\ü"`, "", "invalid escape byte 0xc3 in a string near offset 2"},
		{`"\u12"`, "", "invalid \\u escape in a string near offset 1"},
		{`"\u12g4"`, "", "invalid \\u escape"},
		{"\"a\nb\"", "", "control character 0x0a in a string must be escaped near offset 2"},
		{"\"a\x00\"", "", "control character 0x00 in a string must be escaped"},
		{`42`, "", "expected string"},
		{`null`, "", "expected string"},
		{`{}`, "", "expected string"},
		{``, "", "unexpected end of input"},
		{`   `, "", "unexpected end of input"},
		{`'a'`, "", "syntax error"},
	}
	for _, c := range cases {
		l := lex(c.in)
		got := l.String()
		check(t, l, c.err)
		assert.Equal(t, c.want, got, c.in)
	}
}

func TestUnsafeFieldName(t *testing.T) {
	l := lex(`"a\nb"`)
	assert.Equal(t, "a\nb", l.UnsafeFieldName(false))
	check(t, l, "")
	l = lex(`"a\nb"`)
	assert.Equal(t, `a\nb`, l.UnsafeFieldName(true))
	check(t, l, "")
	l = lex(`"plain"`)
	assert.Equal(t, "plain", l.UnsafeFieldName(false))
	l = lex(`1`)
	assert.Equal(t, "", l.UnsafeFieldName(false))
	check(t, l, "expected string")
	l = lex(`"\q"`)
	assert.Equal(t, "", l.UnsafeFieldName(true))
	check(t, l, "invalid escape")
}

func TestNumbers(t *testing.T) {
	cases := []struct {
		in             string
		i64            int64
		f64            float64
		i64err, f64err string
	}{
		{"0", 0, 0, "", ""},
		{"-0", 0, 0, "", ""},
		{"42", 42, 42, "", ""},
		{" -17 ", -17, -17, "", ""},
		{"9223372036854775807", 9223372036854775807, 9223372036854775807, "", ""},
		{"9223372036854775808", 0, 9223372036854775808, "cannot read 9223372036854775808 as int64: value out of range", ""},
		{"-9223372036854775809", 0, -9223372036854775809, "value out of range", ""},
		{"1.5", 0, 1.5, "cannot read 1.5 as int64: invalid syntax", ""},
		{"1e2", 0, 100, "invalid syntax", ""},
		{"1E+2", 0, 100, "invalid syntax", ""},
		{"2.5e-1", 0, 0.25, "invalid syntax", ""},
		{"1e400", 0, 0, "invalid syntax", "cannot read 1e400 as float64: value out of range"},
		{"01", 0, 0, "unexpected '1' after the value near offset 1", "unexpected '1' after the value"},
		{"-01", 0, 0, "unexpected '1' after the value near offset 2", "unexpected '1' after the value"},
		{"1.", 0, 0, "unexpected end of input in a number, want a digit after '.' near offset 2", "want a digit after '.'"},
		{"1.e5", 0, 0, "unexpected 'e' in a number, want a digit after '.' near offset 2", "want a digit after '.'"},
		{".5", 0, 0, "syntax error", "syntax error"},
		{"-", 0, 0, "unexpected end of input in a number, want a digit near offset 1", "want a digit"},
		{"-a", 0, 0, "unexpected 'a' in a number, want a digit near offset 1", "want a digit"},
		{"1e", 0, 0, "unexpected end of input in a number, want a digit in the exponent near offset 2", "want a digit in the exponent"},
		{"1e+", 0, 0, "want a digit in the exponent near offset 3", "want a digit in the exponent"},
		{"+1", 0, 0, "syntax error", "syntax error"},
		{"1x", 0, 0, "unexpected 'x' after the value near offset 1", "unexpected 'x' after the value"},
		{`1"`, 0, 0, `unexpected '"' after the value`, `unexpected '"' after the value`},
		{"0x10", 0, 0, "unexpected 'x' after the value near offset 1", "unexpected 'x' after the value"},
		{"1.2.3", 0, 0, "unexpected '.' after the value near offset 3", "unexpected '.' after the value"},
		{`"1"`, 0, 0, "expected number", "expected number"},
		{`true`, 0, 0, "expected number", "expected number"},
		{``, 0, 0, "unexpected end of input", "unexpected end of input"},
	}
	for _, c := range cases {
		l := lex(c.in)
		n := l.Int64()
		check(t, l, c.i64err)
		if c.i64err == "" {
			assert.Equal(t, c.i64, n, c.in)
		}
		l = lex(c.in)
		i := l.Int()
		check(t, l, strings.ReplaceAll(c.i64err, "int64", "int"))
		if c.i64err == "" {
			assert.Equal(t, int(c.i64), i, c.in)
		}
		l = lex(c.in)
		f := l.Float64()
		check(t, l, c.f64err)
		if c.f64err == "" {
			assert.Equal(t, c.f64, f, c.in)
		}
	}
}

func TestBoolAndNull(t *testing.T) {
	cases := []struct {
		in         string
		want, null bool
		err        string
	}{
		{"true", true, false, ""},
		{" false ", false, false, ""},
		{"null", false, true, "expected bool"},
		{"tru", false, false, "unexpected end of input in literal true near offset 3"},
		{"truex", false, false, "unexpected 'x' after the value near offset 4"},
		{"True", false, false, "syntax error"},
		{"nul", false, false, "unexpected end of input in literal null"},
		{"nulL", false, false, "unexpected 'L' in literal null near offset 3"},
		{"nullx", false, false, "unexpected 'x' after the value"},
		{"1", false, false, "expected bool"},
		{`"true"`, false, false, "expected bool"},
	}
	for _, c := range cases {
		l := lex(c.in)
		assert.Equal(t, c.null, l.IsNull(), c.in)
		got := l.Bool()
		check(t, l, c.err)
		assert.Equal(t, c.want, got, c.in)
	}
	// IsNull does not consume; Skip does.
	l := lex("null ")
	assert.True(t, l.IsNull())
	assert.True(t, l.IsNull())
	l.Skip()
	l.Consumed()
	check(t, l, "")
	// After an error IsNull is false and IsDelim true.
	l = lex("?")
	assert.False(t, l.IsNull())
	assert.True(t, l.IsDelim('}'))
	check(t, l, "syntax error")
}

func TestDelim(t *testing.T) {
	l := lex(` { } `)
	assert.True(t, l.IsStart())
	assert.False(t, l.IsDelim('['))
	assert.True(t, l.IsDelim('{'))
	l.Delim('{')
	assert.False(t, l.IsStart())
	assert.True(t, l.IsDelim('}'))
	l.Delim('}')
	l.Consumed()
	check(t, l, "")

	cases := []struct {
		in  string
		c   byte
		err string
	}{
		{`[`, '[', ""},
		{`]`, ']', "syntax error"}, // a closer with nothing open
		{`{`, '[', "expected ["},
		{`"x"`, '{', `expected { near offset 0 of '"x"'`},
		{`1`, '}', "expected }"},
		{``, '{', "unexpected end of input"},
		{`,`, '{', "syntax error"},
		{`:`, '{', "syntax error"},
	}
	for _, c := range cases {
		l := lex(c.in)
		l.Delim(c.c)
		check(t, l, c.err)
	}
}

// walkObject reads an object of string keys and int values, as the
// generated decoders do, and returns them as "k=v" pairs.
func walkObject(l *jsonr.Lexer) []string {
	var out []string
	l.Delim('{')
	for !l.IsDelim('}') {
		k := l.UnsafeFieldName(false)
		l.WantColon()
		v := l.Int()
		out = append(out, k+"="+string(rune('0'+v)))
		l.WantComma()
	}
	l.Delim('}')
	l.Consumed()
	return out
}

// walkArray reads an array of strings.
func walkArray(l *jsonr.Lexer) []string {
	out := []string{}
	l.Delim('[')
	for !l.IsDelim(']') {
		out = append(out, l.String())
		l.WantComma()
	}
	l.Delim(']')
	l.Consumed()
	return out
}

func TestSeparators(t *testing.T) {
	objects := []struct {
		in   string
		want []string
		err  string
	}{
		{`{}`, nil, ""},
		{` { "a" : 1 , "b":2 } `, []string{"a=1", "b=2"}, ""},
		{`{"a":1,}`, nil, "syntax error"},
		{`{,"a":1}`, nil, "syntax error"},
		{`{"a":1 "b":2}`, nil, "syntax error"},
		{`{"a" 1}`, nil, "syntax error"},
		{`{"a"::1}`, nil, "syntax error"},
		{`{"a":,1}`, nil, "syntax error"},
		{`{"a":1,,"b":2}`, nil, "syntax error"},
		{`{"a":1:"b":2}`, nil, "syntax error"},
		{`{"a":}`, nil, "syntax error"},
		{`{"a":1]`, nil, "expected string near offset 6 of ']'"},
		{`{"a":1`, nil, "unexpected end of input"},
		{`{1:1}`, nil, "expected string"},
		{`{"a":1}x`, nil, "invalid character 'x' after top-level value"},
		{`{"a":1}{}`, nil, "invalid character '{' after top-level value"},
	}
	for _, c := range objects {
		l := lex(c.in)
		got := walkObject(l)
		check(t, l, c.err)
		if c.err == "" {
			assert.Equal(t, c.want, got, c.in)
		}
	}
	arrays := []struct {
		in   string
		want []string
		err  string
	}{
		{`[]`, []string{}, ""},
		{`["a","b"]`, []string{"a", "b"}, ""},
		{`["a",]`, nil, "syntax error"},
		{`[,"a"]`, nil, "syntax error"},
		{`["a" "b"]`, nil, "syntax error"},
		{`["a":"b"]`, nil, "syntax error"},
		{`["a"}`, nil, "expected string near offset 4 of '}'"},
		{`[`, nil, "unexpected end of input"},
	}
	for _, c := range arrays {
		l := lex(c.in)
		got := walkArray(l)
		check(t, l, c.err)
		if c.err == "" {
			assert.Equal(t, c.want, got, c.in)
		}
	}
}

func TestSkipAndRaw(t *testing.T) {
	deep := strings.Repeat("[", 10000) + strings.Repeat("]", 10000)
	tooDeep := "[" + deep + "]"
	cases := []struct{ in, raw, err string }{
		{`1`, `1`, ""},
		{` -1.5e3 `, `-1.5e3`, ""},
		{`"a\"b"`, `"a\"b"`, ""},
		{`true`, `true`, ""},
		{`null`, `null`, ""},
		{`{}`, `{}`, ""},
		{` [ ] `, `[ ]`, ""},
		{`{"a":[1,{"b":null}],"c":"}]"}`, `{"a":[1,{"b":null}],"c":"}]"}`, ""},
		{`[[],[[]],{"x":{}}]`, `[[],[[]],{"x":{}}]`, ""},
		{"[\"\xff\"]", "[\"\xff\"]", ""},
		{deep, deep, ""},
		{tooDeep, "", "nesting deeper than 10000 near offset 10000"},
		{`{"a":1,}`, "", "unexpected '}', want an object key near offset 7"},
		{`[1,]`, "", "unexpected ']', want a value near offset 3"},
		{`[1 2]`, "", "unexpected '2', want ',' or ']' in an array near offset 3"},
		{`{"a"}`, "", "unexpected '}', want ':' after an object key near offset 4"},
		{`{"a":1 "b":2}`, "", `unexpected '"', want ',' or '}' in an object near offset 7`},
		{`{1:2}`, "", "unexpected '1', want an object key near offset 1"},
		{`{"a":1]`, "", "unexpected ']', want ',' or '}' in an object"},
		{`[}`, "", "unexpected '}', want a value near offset 1"},
		{`[1}`, "", "unexpected '}', want ',' or ']' in an array"},
		{`{"a":[}]}`, "", "unexpected '}', want a value near offset 6"},
		{`[01]`, "", "unexpected '1', want ',' or ']' in an array near offset 2"},
		{`[tru]`, "", "unexpected ']' in literal true near offset 4"},
		{`["\x"]`, "", "invalid escape 'x' in a string"},
		{"[\"\t\"]", "", "control character 0x09 in a string must be escaped"},
		{`{"a":`, "", "unexpected end of input, want a value near offset 5"},
		{`[`, "", "unexpected end of input, want a value near offset 1"},
		{`[1`, "", "unexpected end of input in an array near offset 2"},
		{`{"a":1`, "", "unexpected end of input in an object near offset 6"},
		{`{`, "", "unexpected end of input, want an object key"},
		{`{"a"`, "", "unexpected end of input, want ':' after an object key"},
		{"[\x01]", "", "unexpected byte 0x01, want a value"},
		{`[1e400]`, "[1e400]", ""},
		{`["a`, "", "unexpected end of input in a string"},
		{`"\x"`, "", "invalid escape"},
		{`]`, "", "syntax error"},
		{``, "", "unexpected end of input"},
	}
	for _, c := range cases {
		l := lex(c.in)
		raw := l.Raw()
		check(t, l, c.err)
		if c.err == "" {
			assert.Equal(t, c.raw, string(raw))
			l.Consumed()
			check(t, l, "")
		} else {
			assert.Nil(t, raw)
		}
		l = lex(c.in)
		l.SkipRecursive()
		check(t, l, c.err)
	}
	// Raw after IsNull/IsDelim peeked the token.
	l := lex(`{"a": [1, 2] , "b": "x"}`)
	l.Delim('{')
	assert.Equal(t, "a", l.String())
	l.WantColon()
	assert.False(t, l.IsNull())
	assert.Equal(t, "[1, 2]", string(l.Raw()))
	l.WantComma()
	assert.Equal(t, "b", l.String())
	l.WantColon()
	l.SkipRecursive()
	l.WantComma()
	l.Delim('}')
	l.Consumed()
	check(t, l, "")
	// Skip drops only one token: an opening delimiter stays open.
	l = lex(`[1]`)
	l.Skip()
	assert.Equal(t, 1, l.Int())
	l.WantComma()
	l.Delim(']')
	check(t, l, "")
}

func TestConsumed(t *testing.T) {
	for in, want := range map[string]string{
		`1`:        "",
		"1 \t\r\n": "",
		`1 2`:      "invalid character '2' after top-level value near offset 2 of '2'",
		`"a""b"`:   `invalid character '"' after top-level value`,
		`1,`:       "invalid character ',' after top-level value",
	} {
		l := lex(in)
		l.Raw()
		l.Consumed()
		check(t, l, want)
	}
	// Consumed after an error keeps the first error.
	l := lex(`x 1`)
	l.Int()
	l.Consumed()
	check(t, l, "syntax error")
}

func TestErrors(t *testing.T) {
	l := lex(`{"key": "value", "n": tru}`)
	l.Delim('{')
	_ = l.String()
	l.WantColon()
	_ = l.String()
	l.WantComma()
	_ = l.String()
	l.WantColon()
	assert.False(t, l.Bool())
	require.Error(t, l.Error())
	assert.Equal(t, "parse error: unexpected '}' in literal true near offset 25 of '}'", l.Error().Error())
	var e *jsonr.Error
	require.ErrorAs(t, l.Error(), &e)
	assert.Equal(t, 25, e.Offset)

	// Long context is cut.
	l = lex(`"` + strings.Repeat("x", 40))
	_ = l.String()
	assert.Equal(t, "parse error: unexpected end of input in a string near offset 41 of ''", errText(l))
	l = lex(`["\q` + strings.Repeat("1", 40) + `"]`)
	l.Raw()
	assert.Equal(t, "parse error: invalid escape 'q' in a string near offset 3 of 'q111111111...'", errText(l))
	l = lex(`"` + strings.Repeat("y", 40) + `"`)
	l.Int()
	assert.Equal(t, `parse error: expected number near offset 0 of '"yyyyyyyyy...'`, errText(l))

	// After the first error every read gives the zero value.
	l = lex(`? "a" 1 true [1]`)
	assert.Equal(t, "", l.String())
	assert.Equal(t, 0, l.Int())
	assert.Equal(t, int64(0), l.Int64())
	assert.Equal(t, float64(0), l.Float64())
	assert.False(t, l.Bool())
	assert.Nil(t, l.Raw())
	assert.True(t, l.IsDelim('['))
	l.Delim('[')
	check(t, l, "syntax error near offset 0")

	// AddError keeps the first error.
	l = lex(`1`)
	first := &jsonr.Error{Offset: 3, Reason: "first"}
	l.AddError(first)
	l.AddError(&jsonr.Error{Reason: "second"})
	assert.Equal(t, first, l.Error())
	assert.False(t, l.Ok())
	assert.Equal(t, 0, l.Int())
}

func TestAllocations(t *testing.T) {
	data := []byte(`{"name":"x","count":12,"ratio":0.5,"ok":true,"skip":{"a":[1,2,3]},"raw":[1]}`)
	allocs := testing.AllocsPerRun(100, func() {
		l := jsonr.Lexer{Data: data}
		l.Delim('{')
		for !l.IsDelim('}') {
			switch l.UnsafeFieldName(false) {
			case "count":
				l.WantColon()
				l.Int()
			case "ratio":
				l.WantColon()
				l.Float64()
			case "ok":
				l.WantColon()
				l.Bool()
			case "raw":
				l.WantColon()
				l.Raw()
			default:
				l.WantColon()
				l.SkipRecursive()
			}
			l.WantComma()
		}
		l.Delim('}')
		l.Consumed()
		if l.Error() != nil {
			t.Fatal(l.Error())
		}
	})
	assert.Zero(t, allocs)
}
