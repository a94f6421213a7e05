// Dynamic JSON values: ParseValue reads them (internal/jsonr), AppendValue
// writes them (internal/jsonw), EqualValues compares them and CloneValue
// copies them. They replace encoding/json, which costs hundreds of KB in
// the wasm module. view shows serve's own types (State, Obj, Condition,
// Principal) to that toolkit as the JSON values they stand for.

package serve

import (
	"strconv"

	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/internal/jsonr"
	"github.com/agentwasm/agentwasm/internal/jsonschema"
	"github.com/agentwasm/agentwasm/internal/jsonw"
)

// MaxValueDepth is how deeply arrays and objects may nest in a document
// ParseValue accepts.
const MaxValueDepth = jsonr.MaxValueDepth

// walkDepthCap bounds the recursion of AppendValue, EqualValues and
// CloneValue over host-built values, which may be deeper than parsed ones
// or even cyclic. Past it, AppendValue writes null, EqualValues reports
// false and CloneValue shares instead of copying.
const walkDepthCap = jsonw.MaxDepth

// ParseValue parses exactly one JSON value (RFC 8259) from data.
// Whitespace around the value is allowed; anything else after it is an
// error. The result is one of nil, bool, float64, string, []any and
// map[string]any. Objects nest at most MaxValueDepth deep.
//
// Choices where the RFC leaves room: a duplicate object key keeps the last
// value; an escaped lone UTF-16 surrogate (such as "\ud800") and raw bytes
// that are not valid UTF-8 decode to U+FFFD; a number too large for a
// float64 is an error. Errors say the byte offset and what was wrong.
func ParseValue(data []byte) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, errs.New("serve: json: internal error: ", errs.Text(r))
		}
	}()
	v, err = jsonr.Value(data)
	if e, ok := err.(*jsonr.Error); ok {
		return nil, errs.New("serve: json: at byte ", strconv.Itoa(e.Offset), ": ", e.Reason)
	}
	return v, err
}

// AppendValue appends the compact JSON encoding of v to dst and returns
// the extended slice.
//
// It encodes nil, bool, float64, string, []any and map[string]any (and
// State), plus the Go integer types, float32, []string, map[string]string,
// RawJSON (copied as is; empty means null), Obj and []Obj (fields
// in order), Condition and []Condition, Principal, and anything with an
// AppendJSON(dst []byte) []byte method. Any other type, NaN and the
// infinities encode as null; a nil slice or map encodes as [] or {}.
// Map keys are sorted, so the output is deterministic. A float that is an
// integer with magnitude below 1e21 is written without fraction or
// exponent.
//
// Strings are escaped like encoding/json, except that <, > and & are
// written raw: ", \ and control characters are escaped (\n, \r, \t, \b, \f
// short forms, \u00XX otherwise), U+2028 and U+2029 become \u2028 and
// \u2029, and bytes that are not valid UTF-8 become \ufffd.
func AppendValue(dst []byte, v any) []byte {
	return jsonw.AppendValue(dst, v, view)
}

// values is the model of JSON values that guards, schemas and EqualValues
// share: serve's own types are seen through view.
var values = jsonschema.Model{View: view}

// view shows serve's own types as JSON values: a State as the object it
// is, a Principal as a string, an Obj or a Condition as an object with
// its fields in order, []Obj and []Condition as arrays. It returns nil for
// other types.
func view(v any) any {
	switch x := v.(type) {
	case State:
		return map[string]any(x)
	case Principal:
		return string(x)
	case Obj:
		return fieldList(x)
	case Condition:
		return fieldList(x.fields())
	case []Obj:
		return anys(x)
	case []Condition:
		return anys(x)
	}
	return nil
}

// fieldList shows an Obj to the JSON writer as a jsonw.Object.
type fieldList Obj

func (o fieldList) Len() int                   { return len(o) }
func (o fieldList) Member(i int) (string, any) { return o[i].Key, o[i].Value }

// anys returns the elements of s as a []any.
func anys[T any](s []T) []any {
	a := make([]any, len(s))
	for i, e := range s {
		a[i] = e
	}
	return a
}

// numberOf reports v as a float64 when it is a JSON number (float64) or
// any Go integer or float type.
func numberOf(v any) (float64, bool) { return values.Number(v) }

// objectOf reports v as a map when it is a JSON object (map[string]any or
// State).
func objectOf(v any) (map[string]any, bool) { return values.Object(v) }

// arrayOf reports v as a slice when it is a JSON array ([]any, or
// []string, which is converted).
func arrayOf(v any) ([]any, bool) { return values.Array(v) }

// jsonKind names the JSON type of v for error messages ("a number", "an
// object", "null"; "a " and the Go type for other values).
func jsonKind(v any) string { return values.Kind(v) }

// EqualValues reports whether a and b are the same JSON value: numbers
// compare by value whatever their Go type, arrays element by element,
// objects key by key (order does not matter). A RawJSON is parsed
// first; one that does not parse equals nothing.
func EqualValues(a, b any) bool { return values.Equal(a, b) }

// CloneValue returns a deep copy of v: maps (map[string]any, State,
// map[string]string), slices ([]any, []string) and RawJSON are
// copied; everything else is returned as is.
func CloneValue(v any) any {
	return cloneValue(v, 0)
}

func cloneValue(v any, depth int) any {
	if depth > walkDepthCap {
		return v
	}
	switch x := v.(type) {
	case []any:
		if x == nil {
			return x
		}
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = cloneValue(e, depth+1)
		}
		return c
	case map[string]any:
		if x == nil {
			return x
		}
		c := make(map[string]any, len(x))
		for k, e := range x {
			c[k] = cloneValue(e, depth+1)
		}
		return c
	case State:
		if x == nil {
			return x
		}
		c := make(State, len(x))
		for k, e := range x {
			c[k] = cloneValue(e, depth+1)
		}
		return c
	case []string:
		if x == nil {
			return x
		}
		c := make([]string, len(x))
		copy(c, x)
		return c
	case map[string]string:
		if x == nil {
			return x
		}
		c := make(map[string]string, len(x))
		for k, e := range x {
			c[k] = e
		}
		return c
	case RawJSON:
		if x == nil {
			return x
		}
		c := make(RawJSON, len(x))
		copy(c, x)
		return c
	}
	return v
}
