// Table-driven tests of Model: JSON types of Go values, with and without a
// View, and equality.

package jsonschema

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

// record is a map type the Model knows only through viewRecord.
type record map[string]any

func viewRecord(v any) any {
	if r, ok := v.(record); ok {
		return map[string]any(r)
	}
	return nil
}

func TestModelKinds(t *testing.T) {
	plain, viewing := Model{}, Model{View: viewRecord}
	cases := []struct {
		name    string
		m       Model
		v       any
		kind    string
		number  float64
		isNum   bool
		isArr   bool
		isObj   bool
		typeBit uint8
	}{
		{"null", plain, nil, "null", 0, false, false, false, tNull},
		{"bool", plain, true, "a boolean", 0, false, false, false, tBoolean},
		{"string", plain, "s", "a string", 0, false, false, false, tString},
		{"float", plain, 1.5, "a number", 1.5, true, false, false, tNumber},
		{"integer float", plain, 2.0, "a number", 2, true, false, false, tNumber | tInteger},
		{"Go int", plain, uint16(7), "a number", 7, true, false, false, tNumber | tInteger},
		{"float32", plain, float32(0.5), "a number", 0.5, true, false, false, tNumber},
		{"array", plain, []any{1.0}, "an array", 0, false, true, false, tArray},
		{"strings", plain, []string{"a"}, "an array", 0, false, true, false, tArray},
		{"object", plain, map[string]any{}, "an object", 0, false, false, true, tObject},
		{"unknown", plain, struct{}{}, "a value that is not JSON", 0, false, false, false, 0},
		{"string map", plain, map[string]string{}, "a value that is not JSON", 0, false, false, false, 0},
		{"raw message", plain, json.RawMessage(`{}`), "a value that is not JSON", 0, false, false, false, 0},
		{"not viewed", plain, record{}, "a value that is not JSON", 0, false, false, false, 0},
		{"viewed", viewing, record{"a": 1.0}, "an object", 0, false, false, true, tObject},
		{"view knows nothing", viewing, struct{}{}, "a value that is not JSON", 0, false, false, false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.kind, c.m.Kind(c.v))
			n, ok := c.m.Number(c.v)
			assert.Equal(t, c.isNum, ok)
			assert.Equal(t, c.number, n)
			_, ok = c.m.Array(c.v)
			assert.Equal(t, c.isArr, ok)
			_, ok = c.m.Object(c.v)
			assert.Equal(t, c.isObj, ok)
			vs := validator{model: c.m}
			assert.Equal(t, c.typeBit, vs.typeBits(c.v))
		})
	}
}

func TestModelArrayConvertsStrings(t *testing.T) {
	a, ok := Model{}.Array([]string{"a", "b"})
	assert.True(t, ok)
	assert.Equal(t, []any{"a", "b"}, a)
}

func TestModelEqual(t *testing.T) {
	m := Model{View: viewRecord}
	cycle := map[string]any{}
	cycle["self"] = cycle
	cases := []struct {
		why   string
		a, b  any
		equal bool
	}{
		{"null", nil, nil, true},
		{"null is not false", nil, false, false},
		{"numbers by value", uint8(3), 3.0, true},
		{"numbers differ", float32(0.5), 0.25, false},
		{"a number is not its text", 7.0, "7", false},
		{"booleans", true, true, true},
		{"arrays across Go types", []string{"a", "b"}, []any{"a", "b"}, true},
		{"arrays in order", []any{"a", "b"}, []string{"b", "a"}, false},
		{"objects whatever the order", map[string]any{"x": []any{1.0}, "y": nil}, map[string]any{"y": nil, "x": []any{int8(1)}}, true},
		{"an object through the view", record{"a": record{"b": true}}, map[string]any{"a": map[string]any{"b": true}}, true},
		{"missing key", map[string]any{"x": nil}, map[string]any{"y": nil}, false},
		{"raw JSON", json.RawMessage(` [1, {"a": "b"}] `), []any{1.0, map[string]any{"a": "b"}}, true},
		{"raw JSON that does not parse", json.RawMessage(`[`), json.RawMessage(`[`), false},
		{"string maps alike", map[string]string{"k": "v"}, map[string]string{"k": "v"}, true},
		{"string maps differ", map[string]string{"k": "v"}, map[string]string{"k": "w"}, false},
		{"no JSON value", struct{}{}, struct{}{}, false},
		{"cycles", cycle, cycle, false},
	}
	for _, c := range cases {
		assert.Equal(t, c.equal, m.Equal(c.a, c.b), c.why)
		assert.Equal(t, c.equal, m.Equal(c.b, c.a), "%s, the other way round", c.why)
	}
}
