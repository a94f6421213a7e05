// Fuzz test of Compile and Validate: bounded, deterministic, mismatch
// paths that point into the value, and the same answers for values seen
// through a View.

package jsonschema

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/agentwasm/agentwasm/internal/jsonr"
)

// wrap returns v with every object turned into a record, which only
// viewRecord shows as an object.
func wrap(v any) any {
	switch x := v.(type) {
	case map[string]any:
		r := make(record, len(x))
		for k, e := range x {
			r[k] = wrap(e)
		}
		return r
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = wrap(e)
		}
		return a
	}
	return v
}

// resolves reports whether the JSON Pointer path names a part of v.
func resolves(v any, path string) bool {
	if path == "" {
		return true
	}
	if path[0] != '/' {
		return false
	}
	for _, tok := range strings.Split(path[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			e, ok := x[tok]
			if !ok {
				return false
			}
			v = e
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return false
			}
			v = x[i]
		default:
			return false
		}
	}
	return true
}

func FuzzCompile(f *testing.F) {
	f.Add([]byte(`{"type":"object","required":["a"],"properties":{"a~/b":{"type":["integer","null"],"minimum":1}},"additionalProperties":false}`), []byte(`{"a~/b":1.5,"c":[2]}`))
	f.Add([]byte(`{"$defs":{"t":{"anyOf":[{"$ref":"#/$defs/t"},{"type":"array","items":{"$ref":"#/$defs/t"}}]}},"$ref":"#/$defs/t"}`), []byte(`[[[]],{}]`))
	f.Add([]byte(`{"oneOf":[{"enum":[1,"a",{"x":[1]}]},{"const":{"x":[1]}}],"allOf":[{"maxLength":2,"minItems":1,"maxItems":0}]}`), []byte(`{"x":[1.0]}`))
	f.Add([]byte(`{"items":{"properties":{"k":false}},"exclusiveMinimum":true,"maximum":-1}`), []byte(`[{"k":1},{"j":null}]`))
	f.Add([]byte(`{"definitions":{"a/b":{}},"$ref":"#/definitions/a~1b"}`), []byte(`null`))
	f.Fuzz(func(t *testing.T, schemaDoc, valueDoc []byte) {
		src, err := jsonr.Value(schemaDoc)
		if err != nil {
			return
		}
		v, err := jsonr.Value(valueDoc)
		if err != nil {
			return
		}
		s, err := Compile(src, Model{})
		ws, werr := Compile(wrap(src), Model{View: viewRecord})
		if (err == nil) != (werr == nil) || (err != nil && err.Error() != werr.Error()) {
			t.Fatalf("compile %q: %v, through the view %v", schemaDoc, err, werr)
		}
		if err != nil {
			if s != nil || err.Error() == "" || strings.HasPrefix(err.Error(), "internal error") {
				t.Fatalf("compile %q: %v", schemaDoc, err)
			}
			return
		}
		found := s.Validate(v)
		for _, m := range found {
			if m.Message == "" || strings.HasPrefix(m.Message, "internal error") {
				t.Fatalf("%q against %q: %+v", valueDoc, schemaDoc, m)
			}
			if !resolves(v, m.Path) {
				t.Fatalf("%q against %q: path %q is not in the value", valueDoc, schemaDoc, m.Path)
			}
		}
		if again := s.Validate(v); !reflect.DeepEqual(found, again) {
			t.Fatalf("%q against %q: %v, then %v", valueDoc, schemaDoc, found, again)
		}
		if viewed := ws.Validate(wrap(v)); !reflect.DeepEqual(found, viewed) {
			t.Fatalf("%q against %q: %v, through the view %v", valueDoc, schemaDoc, found, viewed)
		}
	})
}
