// Tests of the Writer's value methods and AppendString: string escaping,
// numbers and raw values, the non-finite error, and fuzzing against
// encoding/json.

package jsonw_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentwasm/agentwasm/internal/jsonw"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestString(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", `""`},
		{"plain ascii", `"plain ascii"`},
		{`quote " and \ backslash`, `"quote \" and \\ backslash"`},
		{"line\nfeed\r\ttab", `"line\nfeed\r\ttab"`},
		{"\x00\x01\x1f\x7f", `"\u0000\u0001\u001f` + "\x7f" + `"`},
		{"<a href='x'>&</a>", `"<a href='x'>&</a>"`},
		{"é ✓ 🎉", `"é ✓ 🎉"`},
		{"sep\u2028par\u2029", `"sep\u2028par\u2029"`},
		{"bad \xff utf8 \xe2\x28", `"bad \ufffd utf8 \ufffd("`},
	}
	for _, c := range cases {
		var w jsonw.Writer
		w.String(c.in)
		got, err := w.BuildBytes()
		require.NoError(t, err)
		assert.Equal(t, c.want, string(got), "%q", c.in)
		var back string
		require.NoError(t, json.Unmarshal(got, &back), "%q is valid JSON", got)
		if utf8.ValidString(c.in) {
			assert.Equal(t, c.in, back, "round trip")
		}
	}
}

func TestNumbersAndRaw(t *testing.T) {
	var w jsonw.Writer
	w.RawByte('[')
	w.Int(-42)
	w.RawByte(',')
	w.Int64(math.MaxInt64)
	w.RawByte(',')
	w.Float64(0.1)
	w.RawByte(',')
	w.Float64(1e21)
	w.RawByte(',')
	w.Bool(true)
	w.RawByte(',')
	w.Raw(nil, nil)
	w.RawByte(',')
	w.Raw([]byte(`{"a":1}`), nil)
	w.RawString("]")
	got, err := w.BuildBytes()
	require.NoError(t, err)
	assert.Equal(t, `[-42,9223372036854775807,0.1,1e+21,true,null,{"a":1}]`, string(got))
	assert.True(t, json.Valid(got))
	assert.Equal(t, len(got), w.Size())
}

func TestErrors(t *testing.T) {
	var w jsonw.Writer
	w.Float64(math.NaN())
	_, err := w.BuildBytes()
	assert.ErrorIs(t, err, jsonw.ErrNonFinite)

	boom := errors.New("boom")
	var w2 jsonw.Writer
	w2.Raw(nil, boom)
	w2.Raw(nil, errors.New("second"))
	_, err = w2.BuildBytes()
	assert.ErrorIs(t, err, boom, "the first error is kept")
}

// FuzzString checks that every string encodes to valid JSON that decodes
// to the same text (invalid UTF-8 aside).
func FuzzString(f *testing.F) {
	for _, s := range []string{"", "a\"b", "\u2028", "\xff", "\x00", "🎉"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var w jsonw.Writer
		w.String(s)
		got, err := w.BuildBytes()
		if err != nil || !json.Valid(got) {
			t.Fatalf("%q encoded to invalid JSON %q (%v)", s, got, err)
		}
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatal(err)
		}
		if utf8.ValidString(s) && back != s {
			t.Fatalf("round trip: %q → %q", s, back)
		}
	})
}

// AppendString writes what encoding/json writes, but for <, > and &, which
// it leaves as they are.
func FuzzAppendStringMatchesEncodingJSON(f *testing.F) {
	for _, s := range []string{"", "\b\f\n\r\t\x01\x1f", "<a&b>", "\u2028\u2029", "\xff\xfe", "é🎉"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		got := jsonw.AppendString([]byte("x"), s)
		if string(got) != "x"+strings.TrimSuffix(want.String(), "\n") {
			t.Fatalf("%q: got %s, encoding/json %s", s, got[1:], want.String())
		}
	})
}
