// The value writer: dynamic values (map[string]any, []any, …) as compact,
// deterministic JSON.

package jsonw

import (
	"github.com/agentwasm/agentwasm/internal/rawjson"
	"math"
	"strconv"
)

// MaxDepth bounds how deeply AppendValue descends: values built in Go may
// be deeper than any parsed one, or cyclic. A value past it is written as
// null.
const MaxDepth = 10000

// Appender is a value that writes itself as JSON.
type Appender interface {
	AppendJSON(dst []byte) []byte
}

// Object is an object that lists its members: AppendValue writes them in
// its order (a map's keys are sorted).
type Object interface {
	Len() int
	Member(i int) (key string, value any)
}

// A View shows a value of a type AppendValue does not know as one it
// does (serve shows its State as a map[string]any, for one), or returns
// nil.
type View func(v any) any

// AppendValue appends the compact JSON encoding of v to dst and returns
// the extended slice.
//
// It writes nil, bool, string, float64, float32, the Go integer types,
// []any, []string, map[string]any, map[string]string, json.RawMessage
// (copied as is; empty means null) and Object. A value of another type is
// written as what view shows of it (view may be nil), else through its
// AppendJSON method when it is an Appender, else as null. NaN and the
// infinities are null too; a nil slice or map is [] or {}.
//
// Object keys of maps are sorted (SortedKeys), so the output is
// deterministic. A float with magnitude below 1e21 that is an integer or
// at least 1e-6 is written without exponent (3, 0.000001,
// 100000000000000000000); others as JavaScript writes them (1e+21, 1e-7).
// Strings are escaped as AppendString escapes them.
func AppendValue(dst []byte, v any, view View) []byte {
	return appendValue(dst, v, view, 0)
}

func appendValue(dst []byte, v any, view View, depth int) []byte {
	if depth > MaxDepth {
		return append(dst, "null"...)
	}
	if b, ok := appendKnown(dst, v, view, depth); ok {
		return b
	}
	if view != nil {
		if w := view(v); w != nil {
			if b, ok := appendKnown(dst, w, view, depth); ok {
				return b
			}
		}
	}
	if a, ok := v.(Appender); ok {
		return a.AppendJSON(dst)
	}
	return append(dst, "null"...)
}

// appendKnown writes v when its type is one AppendValue knows by itself.
// It recurses into arrays and objects; the scalars are appendScalar's, kept
// out of line so that each level of a deep value costs a small stack frame
// (a TinyGo build's goroutines have fixed stacks).
func appendKnown(dst []byte, v any, view View, depth int) ([]byte, bool) {
	switch x := v.(type) {
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendValue(dst, e, view, depth+1)
		}
		return append(dst, ']'), true
	case map[string]any:
		dst = append(dst, '{')
		for i, k := range SortedKeys(x) {
			dst = appendKey(dst, i, k)
			dst = appendValue(dst, x[k], view, depth+1)
		}
		return append(dst, '}'), true
	case Object:
		dst = append(dst, '{')
		for i := range x.Len() {
			k, e := x.Member(i)
			dst = appendKey(dst, i, k)
			dst = appendValue(dst, e, view, depth+1)
		}
		return append(dst, '}'), true
	}
	return appendScalar(dst, v)
}

// appendScalar writes v when it is a scalar, a json.RawMessage, a []string
// or a map[string]string: the types AppendValue knows that hold no value of
// its own to recurse into.
//
//go:noinline
func appendScalar(dst []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), true
	case bool:
		return strconv.AppendBool(dst, x), true
	case float64:
		return appendFloat(dst, x), true
	case string:
		return AppendString(dst, x), true
	case rawjson.Message:
		if len(x) == 0 {
			return append(dst, "null"...), true
		}
		return append(dst, x...), true
	case int:
		return strconv.AppendInt(dst, int64(x), 10), true
	case int8:
		return strconv.AppendInt(dst, int64(x), 10), true
	case int16:
		return strconv.AppendInt(dst, int64(x), 10), true
	case int32:
		return strconv.AppendInt(dst, int64(x), 10), true
	case int64:
		return strconv.AppendInt(dst, x, 10), true
	case uint:
		return strconv.AppendUint(dst, uint64(x), 10), true
	case uint8:
		return strconv.AppendUint(dst, uint64(x), 10), true
	case uint16:
		return strconv.AppendUint(dst, uint64(x), 10), true
	case uint32:
		return strconv.AppendUint(dst, uint64(x), 10), true
	case uint64:
		return strconv.AppendUint(dst, x, 10), true
	case float32:
		return appendFloat(dst, float64(x)), true
	case []string:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendString(dst, e)
		}
		return append(dst, ']'), true
	case map[string]string:
		dst = append(dst, '{')
		for i, k := range SortedKeys(x) {
			dst = appendKey(dst, i, k)
			dst = AppendString(dst, x[k])
		}
		return append(dst, '}'), true
	}
	return dst, false
}

// appendKey writes the key of the i-th member of an object, with the
// comma before it.
func appendKey(dst []byte, i int, k string) []byte {
	if i > 0 {
		dst = append(dst, ',')
	}
	return append(AppendString(dst, k), ':')
}

// SortedKeys returns the keys of m in the order AppendValue writes them.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	SortStrings(keys)
	return keys
}

// SortStrings sorts s in increasing byte order, in place: a heapsort, written out for strings
// so that the wasm modules link no generic sort (sort.Strings is slices.Sort, an instantiation
// of several kilobytes for one element type).
func SortStrings(s []string) {
	for i := len(s)/2 - 1; i >= 0; i-- {
		siftDown(s, i, len(s))
	}
	for end := len(s) - 1; end > 0; end-- {
		s[0], s[end] = s[end], s[0]
		siftDown(s, 0, end)
	}
}

// siftDown restores the max-heap order of s[:n] below the element at i.
func siftDown(s []string, i, n int) {
	for {
		child := 2*i + 1
		if child >= n {
			return
		}
		if child+1 < n && s[child] < s[child+1] {
			child++
		}
		if s[i] >= s[child] {
			return
		}
		s[i], s[child] = s[child], s[i]
		i = child
	}
}

// appendFloat writes f as JavaScript's Number#toString does, except that
// NaN and the infinities are null.
func appendFloat(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	abs := math.Abs(f)
	if abs < 1e21 && (abs >= 1e-6 || abs == 0 || f == math.Trunc(f)) {
		return strconv.AppendFloat(dst, f, 'f', -1, 64)
	}
	// Exponent form, with the exponent trimmed like JavaScript writes it
	// (1e+21, 1e-7).
	n := len(dst)
	dst = strconv.AppendFloat(dst, f, 'e', -1, 64)
	if m := len(dst); m-n >= 4 && dst[m-4] == 'e' && dst[m-3] == '-' && dst[m-2] == '0' {
		dst[m-2] = dst[m-1]
		dst = dst[:m-1]
	}
	return dst
}
