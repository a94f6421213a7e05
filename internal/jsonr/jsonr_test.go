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
		{`"abc`, "", "unterminated string"},
		{`"abc\"`, "", "unterminated string"},
		{`"abc\`, "", "unterminated string"},
		{`"\x"`, "", "invalid escape in string"},
		{`"\u12"`, "", "invalid \\u escape"},
		{`"\u12g4"`, "", "invalid \\u escape"},
		{"\"a\nb\"", "", "control character in string"},
		{"\"a\x00\"", "", "control character in string"},
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
		{"01", 0, 0, "invalid number", "invalid number"},
		{"-01", 0, 0, "invalid number", "invalid number"},
		{"1.", 0, 0, "invalid number", "invalid number"},
		{"1.e5", 0, 0, "invalid number", "invalid number"},
		{".5", 0, 0, "syntax error", "syntax error"},
		{"-", 0, 0, "invalid number", "invalid number"},
		{"-a", 0, 0, "invalid number", "invalid number"},
		{"1e", 0, 0, "invalid number", "invalid number"},
		{"1e+", 0, 0, "invalid number", "invalid number"},
		{"+1", 0, 0, "syntax error", "syntax error"},
		{"1x", 0, 0, "invalid number", "invalid number"},
		{`1"`, 0, 0, "invalid number", "invalid number"},
		{"0x10", 0, 0, "invalid number", "invalid number"},
		{"1.2.3", 0, 0, "invalid number", "invalid number"},
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
		{"tru", false, false, "syntax error"},
		{"truex", false, false, "syntax error"},
		{"True", false, false, "syntax error"},
		{"nul", false, false, "syntax error"},
		{"nullx", false, false, "syntax error"},
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
		{tooDeep, "", "nesting too deep"},
		{`{"a":1,}`, "", "syntax error"},
		{`[1,]`, "", "syntax error"},
		{`[1 2]`, "", "syntax error"},
		{`{"a"}`, "", "syntax error"},
		{`{"a":1 "b":2}`, "", "syntax error"},
		{`{1:2}`, "", "syntax error"},
		{`{"a":1]`, "", "syntax error"},
		{`[}`, "", "syntax error"},
		{`[1}`, "", "syntax error"},
		{`{"a":[}]}`, "", "syntax error"},
		{`[01]`, "", "invalid number"},
		{`[tru]`, "", "syntax error"},
		{`["\x"]`, "", "invalid escape"},
		{"[\"\t\"]", "", "control character"},
		{`{"a":`, "", "unexpected end of input"},
		{`[`, "", "unexpected end of input"},
		{`["a`, "", "unterminated string"},
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
	assert.Equal(t, "parse error: syntax error near offset 22 of 'tru}'", l.Error().Error())
	var e *jsonr.Error
	require.ErrorAs(t, l.Error(), &e)
	assert.Equal(t, 22, e.Offset)

	// Long context is cut.
	l = lex(`"` + strings.Repeat("x", 40))
	_ = l.String()
	assert.Equal(t, "parse error: unterminated string near offset 41 of ''", errText(l))
	l = lex(`[` + strings.Repeat("1", 40) + `x]`)
	l.Raw()
	assert.Equal(t, "parse error: invalid number near offset 1 of '1111111111...'", errText(l))
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
