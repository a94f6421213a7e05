// Differential fuzz tests of jsonr: the Lexer against easyjson's jlexer and
// encoding/json.Valid, Value against encoding/json.

package jsonr_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/agentwasm/agentwasm/internal/jsonr"
	"github.com/agentwasm/agentwasm/internal/jsonw"
	"github.com/mailru/easyjson/jlexer"
)

// lexer is the method set the generated decoders use; both jsonr.Lexer and
// easyjson's jlexer.Lexer have it, so one decoder runs on both.
type lexer interface {
	Delim(c byte)
	IsDelim(c byte) bool
	IsNull() bool
	Skip()
	SkipRecursive()
	String() string
	UnsafeFieldName(skipUnescape bool) string
	WantComma()
	WantColon()
	Consumed()
	IsStart() bool
	Int() int
	Int64() int64
	Float64() float64
	Bool() bool
	Raw() []byte
	Error() error
	Ok() bool
	AddError(err error)
}

var (
	_ lexer = (*jsonr.Lexer)(nil)
	_ lexer = (*jlexer.Lexer)(nil)
)

// doc is decoded the way the easyjson generator decodes a struct.
type doc struct {
	S string
	K string // the raw (still escaped) text of a string
	N int64
	I int
	F float64
	B bool
	R []byte
	L []string
	M *doc
}

func decodeDoc(l lexer, out *doc) {
	top := l.IsStart()
	if l.IsNull() {
		if top {
			l.Consumed()
		}
		l.Skip()
		return
	}
	l.Delim('{')
	for !l.IsDelim('}') {
		key := l.UnsafeFieldName(false)
		l.WantColon()
		if l.IsNull() {
			l.Skip()
			l.WantComma()
			continue
		}
		switch key {
		case "s":
			out.S = l.String()
		case "k":
			out.K = string([]byte(l.UnsafeFieldName(true)))
		case "n":
			out.N = l.Int64()
		case "i":
			out.I = l.Int()
		case "f":
			out.F = l.Float64()
		case "b":
			out.B = l.Bool()
		case "r":
			if data := l.Raw(); l.Ok() {
				out.R = append([]byte(nil), data...)
			}
		case "l":
			l.Delim('[')
			out.L = []string{}
			for !l.IsDelim(']') {
				var s string
				if l.IsNull() {
					l.Skip()
				} else {
					s = l.String()
				}
				out.L = append(out.L, s)
				l.WantComma()
			}
			l.Delim(']')
		case "m":
			out.M = new(doc)
			decodeDoc(l, out.M)
		default:
			l.SkipRecursive()
		}
		l.WantComma()
	}
	l.Delim('}')
	if top {
		l.Consumed()
	}
}

// decodeRaws reads an array of raw values, as wire.RawList does.
func decodeRaws(l lexer) [][]byte {
	var out [][]byte
	if l.IsNull() {
		l.Skip()
	} else {
		l.Delim('[')
		out = [][]byte{}
		for !l.IsDelim(']') {
			var v []byte
			if l.IsNull() {
				l.Skip()
			} else {
				v = append([]byte(nil), l.Raw()...)
			}
			out = append(out, v)
			l.WantComma()
		}
		l.Delim(']')
	}
	l.Consumed()
	return out
}

// decodeString reads one string or null, as wire.DecodeString does.
func decodeString(l lexer) string {
	var s string
	if l.IsNull() {
		l.Skip()
	} else {
		s = l.String()
	}
	l.Consumed()
	return s
}

// valid replaces each byte of invalid UTF-8 in s with U+FFFD, as jsonr
// (and encoding/json) do when decoding; jlexer keeps such bytes.
func valid(s string) string { return string([]rune(s)) }

func normalize(d *doc) {
	if d == nil {
		return
	}
	d.S = valid(d.S)
	for i := range d.L {
		d.L[i] = valid(d.L[i])
	}
	normalize(d.M)
}

// FuzzDifferential runs the same decoders over jsonr and easyjson's
// jlexer. jsonr must accept only valid JSON; where it accepts, jlexer must
// accept too and decode the same values (up to invalid UTF-8, which jsonr
// replaces); where jlexer accepts valid JSON, jsonr must accept it too.
// The only inputs jlexer accepts and jsonr rejects are invalid JSON: loose
// numbers (01, 1., -.5), control characters or bad escapes in strings it
// skips.
func FuzzDifferential(f *testing.F) {
	for _, s := range []string{
		`{"s":"a\nb","n":-12,"i":7,"f":1.5e3,"b":true,"r":{"x":[1,"]"]},"l":["a",null,"\u00e9"],"m":{"s":"in","m":null}}`,
		`{"k":"a\"b\u0041","unknown":[{"a":{}},[]],"s":"\ud83d\ude00\ud83d"}`,
		`null`, ` null `, `{}`, `{"s":null,"n":null}`, `{"n":01}`, `{"f":1.}`, `{"f":-.5}`, `{"i":1e2}`,
		`{"r":"\x"}`, "{\"s\":\"a\tb\"}", "{\"s\":\"\xff\xfe\"}", `{"x":[1,]}`, `{"x":{"a" 1}}`,
		`[1,{"a":2},"x",null,true]`, `[]`, `[1 2]`, `"str"`, `"\u12"`, `{"a":1}x`, `{"n":9223372036854775808}`,
		`{"f":1e400}`, `{"b":tru}`, `{"l":["a",]}`, `{"m":{"m":{"m":{}}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		isValid := json.Valid(data)

		var ours, theirs doc
		l1 := &jsonr.Lexer{Data: data}
		decodeDoc(l1, &ours)
		l2 := &jlexer.Lexer{Data: data}
		decodeDoc(l2, &theirs)
		compare(t, "doc", data, isValid, l1.Error(), l2.Error(), func() bool {
			normalize(&theirs)
			return reflect.DeepEqual(ours, theirs)
		})

		l1 = &jsonr.Lexer{Data: data}
		r1 := decodeRaws(l1)
		l2 = &jlexer.Lexer{Data: data}
		r2 := decodeRaws(l2)
		compare(t, "raws", data, isValid, l1.Error(), l2.Error(), func() bool { return reflect.DeepEqual(r1, r2) })

		l1 = &jsonr.Lexer{Data: data}
		s1 := decodeString(l1)
		l2 = &jlexer.Lexer{Data: data}
		s2 := decodeString(l2)
		compare(t, "string", data, isValid, l1.Error(), l2.Error(), func() bool { return s1 == valid(s2) })
	})
}

func compare(t *testing.T, what string, data []byte, isValid bool, ours, theirs error, same func() bool) {
	t.Helper()
	switch {
	case ours == nil && !isValid:
		t.Fatalf("%s: jsonr accepted invalid JSON %q", what, data)
	case ours == nil && theirs != nil:
		t.Fatalf("%s: jsonr accepted %q, jlexer rejected it: %v", what, data, theirs)
	case ours != nil && theirs == nil && isValid:
		t.Fatalf("%s: jsonr rejected valid %q (%v), jlexer accepted it", what, data, ours)
	case ours == nil && !same():
		t.Fatalf("%s: jsonr and jlexer decoded %q differently", what, data)
	}
}

// FuzzValue runs Value and encoding/json's Unmarshal into an any over the
// same input: they must accept the same documents (but for those nested
// deeper than MaxValueDepth, which only Value refuses) and decode them to
// the same values. Both keep the last of duplicate keys and turn invalid
// UTF-8 into U+FFFD. What Value decodes, jsonw.AppendValue writes back as
// a document Value reads to the same value.
func FuzzValue(f *testing.F) {
	for _, s := range []string{
		`null`, ` true `, `-0`, `1e21`, `1e-7`, `1e-400`, `1e400`, `123456789012345678901234567890`, `0.1`,
		`"a\"\\\/\b\f\n\r\t\u0000\u2028\ud83d\ude00\ud800\ud83d\u0041"`, "\"\xff\xed\xa0\x80\"", `[]`, `{}`,
		`{"a":[1,{"b":null}],"a":"dup"}`, `[1,]`, `{"a" 1}`, `01`, `-`, `1.`, `.5`, "\"\x01\"", `"\x"`, `"\u12"`,
		`[[[[[[[[[[]]]]]]]]]]`, `{"k":{"k":{"k":[true,false,null]}}}`, `tru`, `nul1`, `1 2`, "\xef\xbb\xbf1",
		strings.Repeat("[", jsonr.MaxValueDepth+1) + strings.Repeat("]", jsonr.MaxValueDepth+1),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := jsonr.Value(data)
		var std any
		stdErr := json.Unmarshal(data, &std)
		if err != nil {
			if v != nil {
				t.Fatalf("Value(%q) returned %#v with its error", data, v)
			}
			var e *jsonr.Error
			if !errors.As(err, &e) {
				t.Fatalf("Value(%q): %T is not an *Error", data, err)
			}
			if stdErr == nil && !strings.HasPrefix(e.Reason, "nesting deeper than ") {
				t.Fatalf("Value refused %q (%v), encoding/json accepted it", data, err)
			}
			return
		}
		if stdErr != nil {
			t.Fatalf("Value accepted %q, encoding/json refused it: %v", data, stdErr)
		}
		if !reflect.DeepEqual(v, std) {
			t.Fatalf("%q: Value %#v, encoding/json %#v", data, v, std)
		}
		out := jsonw.AppendValue(nil, v, nil)
		back, err := jsonr.Value(out)
		if err != nil || !reflect.DeepEqual(v, back) {
			t.Fatalf("%q written as %q reads back as %#v (%v)", data, out, back, err)
		}
	})
}
