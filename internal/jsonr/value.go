// The value reader: one walk over a whole JSON value, which Value uses to
// build dynamic values and SkipRecursive and Raw use to check what they
// skip.

package jsonr

import (
	"math"
	"strconv"
	"unsafe"

	"github.com/agentwasm/agentwasm/internal/nesting"
)

// MaxValueDepth is how deeply arrays and objects may nest in a document
// Value accepts: 512, or 64 in a TinyGo build (internal/nesting).
const MaxValueDepth = nesting.Values

// Value parses exactly one JSON value (RFC 8259) from data. White space
// around the value is allowed; anything else after it is an error. The
// result is one of nil, bool, float64, string, []any and map[string]any
// (empty arrays and objects are non-nil). Arrays and objects nest at most
// MaxValueDepth deep.
//
// Choices where the RFC leaves room: a duplicate object key keeps the last
// value; an escaped lone UTF-16 surrogate (such as "\ud800") and raw bytes
// that are not valid UTF-8 decode to U+FFFD; a number too large for a
// float64 is an error (one too small is 0). An error is an *Error whose
// Offset is the offending byte and whose Reason says what was wanted
// there.
func Value(data []byte) (any, error) {
	l := Lexer{Data: data}
	w := walker{l: &l, max: MaxValueDepth, build: true}
	end, v := w.value(0, 0)
	if end >= 0 {
		if end = skipSpace(data, end); end < len(data) {
			l.fail(end, "unexpected "+describe(data, end)+" after the value")
		}
	}
	if l.err != nil {
		return nil, l.err
	}
	return v, nil
}

// DuplicateKey reports the first member name that occurs twice in one
// object anywhere in data, which must be one JSON value (else the *Error
// says why it is not). RFC 8259 leaves duplicates to the reader, and readers
// differ (Value keeps the last copy, a field lookup the first), so a reader
// that must not be read two ways refuses what this finds.
func DuplicateKey(data []byte) (key string, found bool, err error) {
	l := Lexer{Data: data}
	w := walker{l: &l, max: MaxValueDepth, dups: true}
	w.value(0, 0)
	switch {
	case w.hasDup:
		return w.dup, true, nil
	case l.err != nil:
		return "", false, l.err
	}
	return "", false, nil
}

// walker reads one value with the lexer's scanners, recording the first
// error in l.
type walker struct {
	l      *Lexer
	max    int    // how deeply arrays and objects may nest
	build  bool   // build the value, or only check it
	dups   bool   // stop at the first duplicate member name, kept in dup
	hasDup bool   // a duplicate was found
	dup    string // the duplicate found
}

// value reads the value at i or after white space, and returns the offset
// after it and, when w builds, the value; the offset is -1 after an error.
// depth is how many arrays and objects enclose it.
func (w *walker) value(i, depth int) (int, any) {
	l, d := w.l, w.l.Data
	i = skipSpace(d, i)
	if i >= len(d) {
		l.fail(i, "unexpected end of input, want a value")
		return -1, nil
	}
	switch c := d[i]; c {
	case '{', '[':
		if depth >= w.max {
			l.fail(i, "nesting deeper than "+strconv.Itoa(w.max))
			return -1, nil
		}
		if c == '{' {
			return w.object(i, depth+1)
		}
		return w.array(i, depth+1)
	case '"':
		end := l.scanString(i)
		if end < 0 || !w.build {
			return end, nil
		}
		return end, l.text(d[i+1 : end-1])
	case 't':
		return l.scanWord(i, "true"), true
	case 'f':
		return l.scanWord(i, "false"), false
	case 'n':
		return l.scanWord(i, "null"), nil
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		end := l.scanNumber(i)
		if end < 0 || !w.build {
			return end, nil
		}
		b := d[i:end]
		f, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(b), len(b)), 64)
		if err != nil && (math.IsInf(f, 0) || math.IsNaN(f)) {
			l.fail(i, "number "+string(d[i:i+min(len(d)-i, 40)])+" is out of range")
			return -1, nil
		}
		return end, f
	}
	return l.unexpected(i, "a value"), nil
}

// object reads the object whose '{' is at i.
func (w *walker) object(i, depth int) (int, any) {
	l, d := w.l, w.l.Data
	var m map[string]any
	if w.build {
		m = map[string]any{}
	}
	var seen *keySet // only when looking for duplicates: Raw and SkipRecursive allocate nothing
	if w.dups {
		seen = &keySet{}
	}
	i = skipSpace(d, i+1)
	if i < len(d) && d[i] == '}' {
		return i + 1, m
	}
	for {
		if i >= len(d) || d[i] != '"' {
			return l.unexpected(i, "an object key"), nil
		}
		end := l.scanString(i)
		if end < 0 {
			return -1, nil
		}
		var key string
		if w.build || w.dups {
			key = l.text(d[i+1 : end-1])
		}
		if w.dups && seen.add(key) {
			w.hasDup, w.dup = true, key
			l.fail(i, "duplicate member name "+strconv.Quote(key))
			return -1, nil
		}
		i = skipSpace(d, end)
		if i >= len(d) || d[i] != ':' {
			return l.unexpected(i, "':' after an object key"), nil
		}
		var v any
		if i, v = w.value(i+1, depth); i < 0 {
			return -1, nil
		}
		if w.build {
			m[key] = v
		}
		if i = skipSpace(d, i); i >= len(d) {
			l.fail(i, "unexpected end of input in an object")
			return -1, nil
		}
		switch d[i] {
		case ',':
			i = skipSpace(d, i+1)
		case '}':
			return i + 1, m
		default:
			return l.unexpected(i, "',' or '}' in an object"), nil
		}
	}
}

// array reads the array whose '[' is at i.
func (w *walker) array(i, depth int) (int, any) {
	l, d := w.l, w.l.Data
	var a []any
	if w.build {
		a = []any{}
	}
	i = skipSpace(d, i+1)
	if i < len(d) && d[i] == ']' {
		return i + 1, a
	}
	for {
		var v any
		if i, v = w.value(i, depth); i < 0 {
			return -1, nil
		}
		if w.build {
			a = append(a, v)
		}
		if i = skipSpace(d, i); i >= len(d) {
			l.fail(i, "unexpected end of input in an array")
			return -1, nil
		}
		switch d[i] {
		case ',':
			i++
		case ']':
			return i + 1, a
		default:
			return l.unexpected(i, "',' or ']' in an array"), nil
		}
	}
}

// keySet holds an object's member names: a list while it is short, a map
// beyond that. add reports whether the name was there already.
type keySet struct {
	list []string
	set  map[string]struct{}
}

func (k *keySet) add(name string) bool {
	if k.set != nil {
		if _, ok := k.set[name]; ok {
			return true
		}
		k.set[name] = struct{}{}
		return false
	}
	for _, s := range k.list {
		if s == name {
			return true
		}
	}
	k.list = append(k.list, name)
	if len(k.list) > 16 {
		k.set = make(map[string]struct{}, 2*len(k.list))
		for _, s := range k.list {
			k.set[s] = struct{}{}
		}
		k.list = nil
	}
	return false
}
