// Tests for schema compilation and validation.

package serve

import (
	"strconv"
	"strings"
	"testing"

	"github.com/agentwasm/agentwasm/internal/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mustSchema(t *testing.T, doc string) *Schema {
	t.Helper()
	v, err := ParseValue([]byte(doc))
	require.NoError(t, err)
	s, err := CompileSchema(v)
	require.NoError(t, err)
	return s
}

func TestSchemaValidate(t *testing.T) {
	order := `{"type":"object","required":["items"],"additionalProperties":false,
		"properties":{"items":{"type":"array","minItems":1,"maxItems":3,"items":{"$ref":"#/$defs/line"}},
		"note":{"type":["string","null"],"maxLength":4},"mode":{"enum":["fast","slow"]},"v":{"const":2}},
		"$defs":{"line":{"type":"object","required":["sku","qty"],"properties":{"sku":{"type":"string","minLength":2},"qty":{"type":"integer","minimum":1,"maximum":9}}}}}`
	cases := []struct {
		name   string
		schema string
		value  string
		want   []SchemaError
	}{
		{"valid order", order, `{"items":[{"sku":"ab","qty":2}],"note":null,"mode":"fast","v":2.0}`, nil},
		{"missing required", order, `{}`, []SchemaError{{"", `missing required property "items"`}}},
		{"wrong root type", order, `[]`, []SchemaError{{"", "must be object"}}},
		{"nested errors with paths", order, `{"items":[{"sku":"a","qty":1.5},{"qty":10}],"extra":1}`, []SchemaError{
			{"", `unexpected property "extra"`},
			{"/items/0/qty", "must be integer"},
			{"/items/0/sku", "must be at least 2 characters"},
			{"/items/1", `missing required property "sku"`},
			{"/items/1/qty", "must be <= 9"},
		}},
		{"too many items", order, `{"items":[{"sku":"ab","qty":1},{"sku":"ab","qty":1},{"sku":"ab","qty":1},{"sku":"ab","qty":1}]}`, []SchemaError{{"/items", "must have at most 3 items"}}},
		{"too few items", order, `{"items":[]}`, []SchemaError{{"/items", "must have at least 1 items"}}},
		{"type list", order, `{"items":[{"sku":"ab","qty":1}],"note":5}`, []SchemaError{{"/note", "must be string or null"}}},
		{"max length in code points", order, `{"items":[{"sku":"ab","qty":1}],"note":"éééé"}`, nil},
		{"max length exceeded", order, `{"items":[{"sku":"ab","qty":1}],"note":"ééééé"}`, []SchemaError{{"/note", "must be at most 4 characters"}}},
		{"enum", order, `{"items":[{"sku":"ab","qty":1}],"mode":"medium"}`, []SchemaError{{"/mode", `must be one of ["fast","slow"]`}}},
		{"const", order, `{"items":[{"sku":"ab","qty":1}],"v":3}`, []SchemaError{{"/v", "must be 2"}}},
		{"minimum", `{"minimum":0.5}`, `0.25`, []SchemaError{{"", "must be >= 0.5"}}},
		{"exclusive", `{"exclusiveMinimum":0,"exclusiveMaximum":1}`, `[0]`, nil},
		{"exclusive fails", `{"exclusiveMinimum":0}`, `0`, []SchemaError{{"", "must be > 0"}}},
		{"number accepts integer", `{"type":"number"}`, `3`, nil},
		{"integer accepts 2.0", `{"type":"integer"}`, `2.0`, nil},
		{"boolean true schema", `true`, `{"any":"thing"}`, nil},
		{"boolean false schema", `false`, `1`, []SchemaError{{"", "not allowed"}}},
		{"false property", `{"properties":{"x":false}}`, `{"x":1}`, []SchemaError{{"/x", "not allowed"}}},
		{"additionalProperties schema", `{"properties":{"a":{}},"additionalProperties":{"type":"number"}}`, `{"a":"s","b":"t","c":1}`, []SchemaError{{"/b", "must be number"}}},
		{"unknown keywords ignored", `{"type":"string","format":"email","pattern":"^x","x-custom":{"deep":1}}`, `"hi"`, nil},
		{"anyOf ok", `{"anyOf":[{"type":"string"},{"type":"number"}]}`, `1`, nil},
		{"anyOf fails", `{"anyOf":[{"type":"string"},{"type":"number"}]}`, `true`, []SchemaError{{"", "must match at least one of the allowed schemas"}}},
		{"oneOf exactly one", `{"oneOf":[{"type":"integer"},{"type":"string"}]}`, `1`, nil},
		{"oneOf two match", `{"oneOf":[{"type":"integer"},{"type":"number"}]}`, `1`, []SchemaError{{"", "must match exactly one of the allowed schemas (matched 2)"}}},
		{"oneOf none match", `{"oneOf":[{"type":"integer"},{"type":"number"}]}`, `"x"`, []SchemaError{{"", "must match exactly one of the allowed schemas (matched 0)"}}},
		{"allOf", `{"allOf":[{"minimum":1},{"maximum":2}]}`, `3`, []SchemaError{{"", "must be <= 2"}}},
		{"definitions ref", `{"definitions":{"n":{"type":"number"}},"properties":{"a":{"$ref":"#/definitions/n"}}}`, `{"a":"x"}`, []SchemaError{{"/a", "must be number"}}},
		{"recursive ref consumes the value", `{"$defs":{"t":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/t"}},"n":{"type":"integer"}}}},"$ref":"#/$defs/t"}`,
			`{"kids":[{"kids":[{"n":1.5}]}]}`, []SchemaError{{"/kids/0/kids/0/n", "must be integer"}}},
		{"ref cycle terminates", `{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`, `1`, []SchemaError{{"", "schema too complex to check"}}},
		{"root ref cycle terminates", `{"$ref":"#"}`, `1`, []SchemaError{{"", "schema too complex to check"}}},
		{"pointer escapes in path", `{"properties":{"a/b":{"type":"string"},"c~d":{"type":"string"}}}`, `{"a/b":1,"c~d":2}`, []SchemaError{{"/a~1b", "must be string"}, {"/c~0d", "must be string"}}},
		{"go int values", `{"type":"integer","minimum":3}`, `2`, []SchemaError{{"", "must be >= 3"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := mustSchema(t, c.schema)
			v, err := ParseValue([]byte(c.value))
			require.NoError(t, err)
			assert.Equal(t, c.want, s.Validate(v))
		})
	}
}

func TestSchemaExponentialIsBounded(t *testing.T) {
	// Each level doubles the work of the one below it: without a budget,
	// 40 levels would never finish.
	doc := `{"$defs":{`
	for i := 0; i < 40; i++ {
		doc += `"d` + strconv.Itoa(i) + `":{"anyOf":[{"$ref":"#/$defs/d` + strconv.Itoa(i+1) + `"},{"$ref":"#/$defs/d` + strconv.Itoa(i+1) + `"}]},`
	}
	doc += `"d40":{"type":"string"}},"$ref":"#/$defs/d0"}`
	s := mustSchema(t, doc)
	errs := s.Validate(1.0)
	require.Len(t, errs, 1)
	assert.Equal(t, "schema too complex to check", errs[0].Message)
}

func TestSchemaValidateGoValues(t *testing.T) {
	s := mustSchema(t, `{"type":"object","properties":{"n":{"type":"integer"},"tags":{"type":"array","items":{"type":"string"}}}}`)
	assert.Nil(t, s.Validate(State{"n": 3, "tags": []string{"a"}}))
	assert.Equal(t, []SchemaError{{"/n", "must be integer"}}, s.Validate(map[string]any{"n": float32(1.5)}))
	assert.Equal(t, []SchemaError{{"", "must be object"}}, s.Validate(struct{}{}))
}

func TestSchemaNilAndSource(t *testing.T) {
	var s *Schema
	assert.Nil(t, s.Validate("anything"))
	assert.Nil(t, s.Source())
	src := map[string]any{"type": "string"}
	s, err := CompileSchema(src)
	require.NoError(t, err)
	assert.Equal(t, src, s.Source())
}

func TestCompileSchemaErrors(t *testing.T) {
	cases := []struct {
		name, schema, wantErr string
	}{
		{"not a schema", `"string"`, "a schema must be an object or a boolean, got a string"},
		{"unknown type", `{"type":"int"}`, `unknown type "int"`},
		{"type wrong kind", `{"type":5}`, `"type" must be a string or an array of strings`},
		{"empty type list", `{"type":[]}`, `"type" must be`},
		{"properties not object", `{"properties":[]}`, `"properties" must be an object`},
		{"required not strings", `{"required":[1]}`, `"required" must be an array of strings`},
		{"nested error has path", `{"properties":{"a":{"properties":{"b":{"type":"x"}}}}}`, `at /properties/a/properties/b: unknown type "x"`},
		{"minLength negative", `{"minLength":-1}`, `"minLength" must be a non-negative integer`},
		{"maxItems fraction", `{"maxItems":1.5}`, `"maxItems" must be a non-negative integer`},
		{"minimum string", `{"minimum":"1"}`, `"minimum" must be a number`},
		{"enum not array", `{"enum":"a"}`, `"enum" must be an array`},
		{"anyOf empty", `{"anyOf":[]}`, `"anyOf" must be a non-empty array of schemas`},
		{"oneOf bad member", `{"oneOf":[{"type":"string"},3]}`, `at /oneOf/1: a schema must be an object or a boolean`},
		{"items tuple", `{"items":[{}]}`, "tuple form is not supported"},
		{"ref not string", `{"$ref":1}`, `"$ref" must be a string`},
		{"remote ref", `{"$ref":"http://x/s.json"}`, `unsupported $ref "http://x/s.json"`},
		{"deep pointer ref", `{"$ref":"#/$defs/a/properties/b"}`, "unsupported $ref"},
		{"missing def", `{"$defs":{},"$ref":"#/$defs/nope"}`, `$ref "#/$defs/nope" does not resolve`},
		{"bad def", `{"$defs":{"a":{"type":"q"}},"properties":{"x":{"$ref":"#/$defs/a"}}}`, `at /$defs/a: unknown type "q"`},
		{"too deep", strings.Repeat(`{"items":`, jsonschema.MaxDepth+2) + "{}" + strings.Repeat("}", jsonschema.MaxDepth+2), "nested deeper than"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := ParseValue([]byte(c.schema))
			require.NoError(t, err)
			s, err := CompileSchema(v)
			require.Error(t, err)
			assert.Nil(t, s)
			assert.Contains(t, err.Error(), c.wantErr)
			assert.True(t, strings.HasPrefix(err.Error(), "serve: schema: "), err.Error())
		})
	}
}

func TestSchemaErrorError(t *testing.T) {
	assert.Equal(t, "value: must be object", SchemaError{Message: "must be object"}.Error())
	assert.Equal(t, "/a/0: must be string", SchemaError{Path: "/a/0", Message: "must be string"}.Error())
}
