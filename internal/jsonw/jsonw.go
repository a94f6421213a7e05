// Package jsonw is the JSON writer of agentwasm: the Writer behind the
// generated codecs, and AppendValue, which writes dynamic values
// (map[string]any, []any, …) for the serving port. Both escape strings
// with AppendString.
//
// The easyjson generator writes marshalers against a writer with a small
// method set (RawByte, RawString, String, Bool, Int, Int64, Float64, Raw,
// Flags); internal/wire/internal/codecgen points the generated code here instead
// of at easyjson's own jwriter, whose buffer package imports net and costs
// the wasm modules about 300 KB. Output is compact JSON; strings are escaped
// as RFC 8259 requires, plus U+2028 and U+2029 (for JavaScript), with
// invalid UTF-8 replaced by U+FFFD. HTML characters are not escaped.
package jsonw

import (
	"errors"
	"math"
	"strconv"
	"unicode/utf8"
)

// Flags change how some values are written.
type Flags int

// The flags.
const (
	NilSliceAsEmpty Flags = 1 << iota // write nil slices as [] instead of null
	NilMapAsEmpty                     // write nil maps as {} instead of null
)

// Writer accumulates JSON. The first error (from Raw, or a non-finite
// float) is kept in Error and returned by BuildBytes.
type Writer struct {
	Flags Flags
	Error error
	buf   []byte
}

// RawByte appends c as is.
func (w *Writer) RawByte(c byte) { w.buf = append(w.buf, c) }

// RawString appends s as is.
func (w *Writer) RawString(s string) { w.buf = append(w.buf, s...) }

// Raw appends data, a JSON value, as is; empty data writes null. A non-nil
// err is recorded instead.
func (w *Writer) Raw(data []byte, err error) {
	switch {
	case err != nil:
		if w.Error == nil {
			w.Error = err
		}
	case len(data) == 0:
		w.buf = append(w.buf, "null"...)
	default:
		w.buf = append(w.buf, data...)
	}
}

// Bool appends true or false.
func (w *Writer) Bool(v bool) { w.buf = strconv.AppendBool(w.buf, v) }

// Int appends n.
func (w *Writer) Int(n int) { w.buf = strconv.AppendInt(w.buf, int64(n), 10) }

// Int64 appends n.
func (w *Writer) Int64(n int64) { w.buf = strconv.AppendInt(w.buf, n, 10) }

// ErrNonFinite is recorded when a NaN or infinite float is written: JSON
// has no spelling for them.
var ErrNonFinite = errors.New("jsonw: NaN and infinite numbers have no JSON form")

// Float64 appends f in the shortest form that reads back exactly. NaN and
// infinities write 0 and record ErrNonFinite.
func (w *Writer) Float64(f float64) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		if w.Error == nil {
			w.Error = ErrNonFinite
		}
		w.buf = append(w.buf, '0')
		return
	}
	w.buf = strconv.AppendFloat(w.buf, f, 'g', -1, 64)
}

const hex = "0123456789abcdef"

// String appends s as a quoted JSON string.
func (w *Writer) String(s string) { w.buf = AppendString(w.buf, s) }

// AppendString appends s to dst as a quoted JSON string, escaped as
// encoding/json does (\b, \f, \n, \r, \t and \u00XX for the other control
// characters, \u2028 and \u2029, U+FFFD for invalid UTF-8) except that <,
// > and & are written as they are.
func AppendString(dst []byte, s string) []byte {
	b := append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// Size returns the bytes written so far.
func (w *Writer) Size() int { return len(w.buf) }

// BuildBytes returns what was written, or the first error.
func (w *Writer) BuildBytes() ([]byte, error) {
	if w.Error != nil {
		return nil, w.Error
	}
	return w.buf, nil
}
