// Schemas: the input schemas of actions, compiled and checked by
// internal/jsonschema (a subset of JSON Schema: type, properties,
// required, additionalProperties, items, enum, const, minimum/maximum,
// minLength/maxLength, minItems/maxItems, anyOf/oneOf/allOf, local $ref)
// over serve's JSON values.

package serve

import (
	"errors"

	"github.com/agentwasm/agentwasm/internal/jsonschema"
)

// Schema is a compiled JSON Schema. It is immutable and safe for
// concurrent use. A nil *Schema accepts everything.
type Schema struct {
	src      any
	compiled *jsonschema.Schema
}

// SchemaError is one way a value does not match a schema. Path is a JSON
// Pointer to the offending part of the value ("/items/0/qty"; "" is the
// value itself); Message is short human text ("must be integer").
type SchemaError struct {
	Path    string
	Message string
}

// Error returns "<path>: <message>" ("value: ..." at the root).
func (e SchemaError) Error() string {
	p := e.Path
	if p == "" {
		p = "value"
	}
	return p + ": " + e.Message
}

// CompileSchema compiles a schema given as a JSON value (as ParseValue
// returns it): an object, or true/false. Keywords it knows: type (a name
// or an array of names; "integer" is a number with no fraction),
// properties, required, additionalProperties (a boolean or a schema),
// items (a schema), enum, const, minimum, maximum, exclusiveMinimum,
// exclusiveMaximum, minLength and maxLength (in Unicode code points),
// minItems, maxItems, anyOf, oneOf, allOf, and $ref to "#",
// "#/$defs/<name>" or "#/definitions/<name>". Other keywords are ignored.
// A keyword of the wrong type, an unknown type name or a $ref that does
// not resolve is an error starting with "serve: schema: ".
func CompileSchema(v any) (*Schema, error) {
	s, err := compileSchema(v)
	if err != nil {
		return nil, errors.New("serve: schema: " + err.Error())
	}
	return s, nil
}

// compileSchema is CompileSchema without the error prefix. It compiles a
// copy of v, so that changes to v do not reach the schema.
func compileSchema(v any) (*Schema, error) {
	c, err := jsonschema.Compile(CloneValue(v), values)
	if err != nil {
		return nil, err
	}
	return &Schema{src: v, compiled: c}, nil
}

// Source returns the schema as it was given to CompileSchema (for the
// `expects` of a refusal). Treat it as read-only. A nil *Schema returns
// nil.
func (s *Schema) Source() any {
	if s == nil {
		return nil
	}
	return s.src
}

// Validate checks v (a JSON value as ParseValue returns it) against the
// schema and returns every mismatch found, in a deterministic order; nil
// means v is valid. The work is bounded: $ref cycles that do not consume
// the value, and schemas too costly to check, end in an error rather than
// a hang. A nil *Schema accepts everything.
func (s *Schema) Validate(v any) []SchemaError {
	if s == nil || s.compiled == nil {
		return nil
	}
	found := s.compiled.Validate(v)
	if found == nil {
		return nil
	}
	out := make([]SchemaError, len(found))
	for i, m := range found {
		out[i] = SchemaError(m)
	}
	return out
}
