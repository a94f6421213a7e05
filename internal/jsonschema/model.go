// The model of dynamic JSON values the validator works on: which JSON type
// a Go value is, numbers by value, deep equality, and names for error
// messages.

package jsonschema

import (
	"github.com/agentwasm/agentwasm/internal/rawjson"

	"github.com/agentwasm/agentwasm/internal/jsonr"
	"github.com/agentwasm/agentwasm/internal/jsonw"
)

// Model says how Go values are seen as JSON values: nil is null; bool a
// boolean; string a string; float64, float32 and the Go integer types
// numbers; []any and []string arrays; map[string]any objects. A value of
// another type is what View shows of it (as for jsonw.AppendValue), or no
// JSON value at all. The zero Model has no View.
type Model struct {
	View jsonw.View
}

// kind is a JSON type, or none.
type kind uint8

const (
	kindNone kind = iota
	kindNull
	kindBoolean
	kindNumber
	kindString
	kindArray
	kindObject
)

// kindOf returns the JSON type of v by its Go type alone.
func kindOf(v any) kind {
	switch v.(type) {
	case nil:
		return kindNull
	case bool:
		return kindBoolean
	case string:
		return kindString
	case []any, []string:
		return kindArray
	case map[string]any:
		return kindObject
	}
	if _, ok := number(v); ok {
		return kindNumber
	}
	return kindNone
}

// seen returns v, or what View shows of it when v is no JSON value by
// itself, and its JSON type (kindNone, with v, when it is neither).
func (m Model) seen(v any) (any, kind) {
	if k := kindOf(v); k != kindNone || m.View == nil {
		return v, k
	}
	if w := m.View(v); w != nil {
		if k := kindOf(w); k != kindNone {
			return w, k
		}
	}
	return v, kindNone
}

// number reports v as a float64 when it is a float64, a float32 or a Go
// integer.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case int32:
		return float64(x), true
	case int16:
		return float64(x), true
	case int8:
		return float64(x), true
	case uint:
		return float64(x), true
	case uint64:
		return float64(x), true
	case uint32:
		return float64(x), true
	case uint16:
		return float64(x), true
	case uint8:
		return float64(x), true
	case float32:
		return float64(x), true
	}
	return 0, false
}

// Number reports v as a float64 when it is a JSON number.
func (m Model) Number(v any) (float64, bool) {
	v, _ = m.seen(v)
	return number(v)
}

// Object reports v as a map when it is a JSON object.
func (m Model) Object(v any) (map[string]any, bool) {
	v, _ = m.seen(v)
	o, ok := v.(map[string]any)
	return o, ok
}

// Array reports v as a slice when it is a JSON array (a []string is
// converted).
func (m Model) Array(v any) ([]any, bool) {
	v, _ = m.seen(v)
	switch x := v.(type) {
	case []any:
		return x, true
	case []string:
		a := make([]any, len(x))
		for i, s := range x {
			a[i] = s
		}
		return a, true
	}
	return nil, false
}

// Kind names the JSON type of v for error messages: "null", "a boolean",
// "a number", "a string", "an array", "an object", or "a " and the Go
// type (as fmt's %T writes it) for a value that is none.
func (m Model) Kind(v any) string {
	switch _, k := m.seen(v); k {
	case kindNull:
		return "null"
	case kindBoolean:
		return "a boolean"
	case kindNumber:
		return "a number"
	case kindString:
		return "a string"
	case kindArray:
		return "an array"
	case kindObject:
		return "an object"
	}
	return "a value that is not JSON"
}

// Append appends v as compact JSON (jsonw.AppendValue, with m's View).
func (m Model) Append(dst []byte, v any) []byte {
	return jsonw.AppendValue(dst, v, m.View)
}

// Equal reports whether a and b are the same JSON value: numbers compare
// by value whatever their Go type, arrays element by element, objects key
// by key (order does not matter), and two map[string]string alike. A
// json.RawMessage is parsed first (jsonr.Value); one that does not parse
// equals nothing, and so does a value that is no JSON value. Past
// jsonw.MaxDepth nothing is equal (values built in Go may be cyclic).
func (m Model) Equal(a, b any) bool {
	return m.equal(a, b, 0)
}

func (m Model) equal(a, b any, depth int) bool {
	if depth > jsonw.MaxDepth {
		return false
	}
	a, ka := m.seen(parsed(a))
	b, kb := m.seen(parsed(b))
	if ka != kb {
		return false
	}
	switch ka {
	case kindNull:
		return true
	case kindBoolean:
		return a.(bool) == b.(bool)
	case kindString:
		return a.(string) == b.(string)
	case kindNumber:
		x, _ := number(a)
		y, _ := number(b)
		return x == y
	case kindArray:
		x, _ := m.Array(a)
		y, _ := m.Array(b)
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if !m.equal(x[i], y[i], depth+1) {
				return false
			}
		}
		return true
	case kindObject:
		x, y := a.(map[string]any), b.(map[string]any)
		if len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !m.equal(xv, yv, depth+1) {
				return false
			}
		}
		return true
	}
	x, ok := a.(map[string]string)
	y, ok2 := b.(map[string]string)
	if !ok || !ok2 || len(x) != len(y) {
		return false
	}
	for k, xv := range x {
		if yv, ok := y[k]; !ok || xv != yv {
			return false
		}
	}
	return true
}

// unparsable stands for a json.RawMessage that does not parse: it is no
// JSON value, so it equals nothing.
type unparsable struct{}

// parsed returns the value of v when it is a json.RawMessage, and v
// itself otherwise.
func parsed(v any) any {
	r, ok := v.(rawjson.Message)
	if !ok {
		return v
	}
	p, err := jsonr.Value(r)
	if err != nil {
		return unparsable{}
	}
	return p
}
