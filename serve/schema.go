// Schemas: a compiled subset of JSON Schema for action inputs (type,
// properties, required, additionalProperties, items, enum, const,
// minimum/maximum, minLength/maxLength, minItems/maxItems,
// anyOf/oneOf/allOf, local $ref) and its validator. A general validator
// costs megabytes in the wasm module; this one covers what apps use for
// tool inputs.

package serve

import (
	"errors"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentwasm/agentwasm/internal/errs"
)

// Schema is a compiled JSON Schema. It is immutable and safe for
// concurrent use. A nil *Schema accepts everything.
type Schema struct {
	src  any
	root *schemaNode
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

// Type bits.
const (
	tNull uint8 = 1 << iota
	tBoolean
	tNumber
	tInteger
	tString
	tArray
	tObject
)

var typeNames = []struct {
	name string
	bit  uint8
}{
	{"null", tNull}, {"boolean", tBoolean}, {"object", tObject}, {"array", tArray},
	{"number", tNumber}, {"string", tString}, {"integer", tInteger},
}

type schemaNode struct {
	never    bool // the false schema
	types    uint8
	typeText string // "integer", "string or null"

	props      map[string]*schemaNode
	required   []string
	additional *schemaNode // nil: anything allowed
	items      *schemaNode

	enum     []any
	hasEnum  bool
	constV   any
	hasConst bool

	minimum, maximum         *float64
	exclMinimum, exclMaximum *float64

	minLength, maxLength int // -1: unset
	minItems, maxItems   int // -1: unset

	anyOf, oneOf, allOf []*schemaNode
	ref                 *schemaNode
}

// Limits that keep compiling and validating bounded.
const (
	maxSchemaDepth    = 128     // nesting of subschemas at compile time
	maxValidateDepth  = 256     // recursion while validating ($ref cycles)
	maxValidateBudget = 200_000 // subschema visits per Validate call
)

type schemaCompiler struct {
	rootSrc map[string]any
	root    *schemaNode
	refs    map[string]*schemaNode
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

// compileSchema is CompileSchema without the error prefix.
func compileSchema(v any) (s *Schema, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, errs.New("internal error: ", errs.Text(r))
		}
	}()
	c := &schemaCompiler{refs: map[string]*schemaNode{}}
	if m, ok := objectOf(v); ok {
		c.rootSrc = m
	}
	c.root = &schemaNode{}
	c.refs["#"] = c.root
	if err := c.fill(c.root, v, "", 0); err != nil {
		return nil, err
	}
	return &Schema{src: v, root: c.root}, nil
}

func (c *schemaCompiler) compile(v any, at string, depth int) (*schemaNode, error) {
	n := &schemaNode{}
	if err := c.fill(n, v, at, depth); err != nil {
		return nil, err
	}
	return n, nil
}

func (c *schemaCompiler) fill(n *schemaNode, v any, at string, depth int) error {
	n.minLength, n.maxLength, n.minItems, n.maxItems = -1, -1, -1, -1
	if depth > maxSchemaDepth {
		return errs.New(where(at), "nested deeper than ", strconv.Itoa(maxSchemaDepth))
	}
	if b, ok := v.(bool); ok {
		n.never = !b
		return nil
	}
	m, ok := objectOf(v)
	if !ok {
		return errs.New(where(at), "a schema must be an object or a boolean, got ", jsonKind(v))
	}
	// Keywords in a fixed order so the first error is deterministic.
	if raw, ok := m["type"]; ok {
		var names []string
		if s, ok := raw.(string); ok {
			names = []string{s}
		} else if list, ok := arrayOf(raw); ok && len(list) > 0 {
			for _, e := range list {
				s, ok := e.(string)
				if !ok {
					return errs.New(where(at), "\"type\" must be a string or an array of strings")
				}
				names = append(names, s)
			}
		} else {
			return errs.New(where(at), "\"type\" must be a string or an array of strings")
		}
		for _, name := range names {
			bit := uint8(0)
			for _, t := range typeNames {
				if t.name == name {
					bit = t.bit
				}
			}
			if bit == 0 {
				return errs.New(where(at), "unknown type ", strconv.Quote(name))
			}
			n.types |= bit
		}
		n.typeText = strings.Join(names, " or ")
	}
	if raw, ok := m["properties"]; ok {
		pm, ok := objectOf(raw)
		if !ok {
			return errs.New(where(at), "\"properties\" must be an object")
		}
		n.props = make(map[string]*schemaNode, len(pm))
		for _, k := range sortedKeys(pm) {
			sub, err := c.compile(pm[k], at+"/properties/"+escapePointer(k), depth+1)
			if err != nil {
				return err
			}
			n.props[k] = sub
		}
	}
	if raw, ok := m["required"]; ok {
		list, ok := arrayOf(raw)
		if !ok {
			return errs.New(where(at), "\"required\" must be an array of strings")
		}
		for _, e := range list {
			s, ok := e.(string)
			if !ok {
				return errs.New(where(at), "\"required\" must be an array of strings")
			}
			n.required = append(n.required, s)
		}
	}
	for _, kw := range [...]string{"additionalProperties", "items"} {
		raw, ok := m[kw]
		if !ok {
			continue
		}
		if _, isArr := arrayOf(raw); isArr && kw == "items" {
			return errs.New(where(at), "\"items\" must be a schema (tuple form is not supported)")
		}
		sub, err := c.compile(raw, at+"/"+kw, depth+1)
		if err != nil {
			return err
		}
		if kw == "items" {
			n.items = sub
		} else {
			n.additional = sub
		}
	}
	if raw, ok := m["enum"]; ok {
		list, ok := arrayOf(raw)
		if !ok {
			return errs.New(where(at), "\"enum\" must be an array")
		}
		n.enum, n.hasEnum = CloneValue(list).([]any), true
	}
	if raw, ok := m["const"]; ok {
		n.constV, n.hasConst = CloneValue(raw), true
	}
	for _, kw := range [...]struct {
		name string
		dst  **float64
	}{
		{"minimum", &n.minimum}, {"maximum", &n.maximum},
		{"exclusiveMinimum", &n.exclMinimum}, {"exclusiveMaximum", &n.exclMaximum},
	} {
		raw, ok := m[kw.name]
		if !ok {
			continue
		}
		f, ok := numberOf(raw)
		if !ok {
			if _, isBool := raw.(bool); isBool && kw.name[0] == 'e' {
				continue // draft-4 boolean form: ignored
			}
			return errs.New(where(at), strconv.Quote(kw.name), " must be a number")
		}
		*kw.dst = &f
	}
	for _, kw := range [...]struct {
		name string
		dst  *int
	}{
		{"minLength", &n.minLength}, {"maxLength", &n.maxLength},
		{"minItems", &n.minItems}, {"maxItems", &n.maxItems},
	} {
		raw, ok := m[kw.name]
		if !ok {
			continue
		}
		f, ok := numberOf(raw)
		if !ok || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
			return errs.New(where(at), strconv.Quote(kw.name), " must be a non-negative integer")
		}
		*kw.dst = int(f)
	}
	for _, kw := range [...]struct {
		name string
		dst  *[]*schemaNode
	}{
		{"allOf", &n.allOf}, {"anyOf", &n.anyOf}, {"oneOf", &n.oneOf},
	} {
		raw, ok := m[kw.name]
		if !ok {
			continue
		}
		list, ok := arrayOf(raw)
		if !ok || len(list) == 0 {
			return errs.New(where(at), strconv.Quote(kw.name), " must be a non-empty array of schemas")
		}
		for i, e := range list {
			sub, err := c.compile(e, at+"/"+kw.name+"/"+strconv.Itoa(i), depth+1)
			if err != nil {
				return err
			}
			*kw.dst = append(*kw.dst, sub)
		}
	}
	if raw, ok := m["$ref"]; ok {
		ref, ok := raw.(string)
		if !ok {
			return errs.New(where(at), "\"$ref\" must be a string")
		}
		target, err := c.resolve(ref, at, depth)
		if err != nil {
			return err
		}
		n.ref = target
	}
	return nil
}

// resolve returns the node for a local $ref, compiling its target the
// first time (the node is registered before it is filled, so cycles end).
func (c *schemaCompiler) resolve(ref, at string, depth int) (*schemaNode, error) {
	if n, ok := c.refs[ref]; ok {
		return n, nil
	}
	var section, name string
	switch {
	case strings.HasPrefix(ref, "#/$defs/"):
		section, name = "$defs", ref[len("#/$defs/"):]
	case strings.HasPrefix(ref, "#/definitions/"):
		section, name = "definitions", ref[len("#/definitions/"):]
	default:
		return nil, errs.New(where(at), "unsupported $ref ", strconv.Quote(ref), " (only \"#\", \"#/$defs/<name>\" and \"#/definitions/<name>\")")
	}
	if strings.Contains(name, "/") || name == "" {
		return nil, errs.New(where(at), "unsupported $ref ", strconv.Quote(ref), " (only \"#\", \"#/$defs/<name>\" and \"#/definitions/<name>\")")
	}
	name = unescapePointer(name)
	defs, _ := objectOf(c.rootSrc[section])
	target, ok := defs[name]
	if !ok {
		return nil, errs.New(where(at), "$ref ", strconv.Quote(ref), " does not resolve")
	}
	n := &schemaNode{}
	c.refs[ref] = n
	if err := c.fill(n, target, "/"+section+"/"+escapePointer(name), depth+1); err != nil {
		return nil, err
	}
	return n, nil
}

func where(at string) string {
	if at == "" {
		return ""
	}
	return "at " + at + ": "
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func unescapePointer(s string) string {
	if !strings.Contains(s, "~") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
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
func (s *Schema) Validate(v any) (found []SchemaError) {
	if s == nil || s.root == nil {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			found = []SchemaError{{Message: "internal error: " + errs.Text(r)}}
		}
	}()
	vs := &validator{budget: maxValidateBudget}
	vs.check(s.root, v, "", 0)
	if vs.overrun {
		return []SchemaError{{Message: "schema too complex to check"}}
	}
	return vs.errs
}

type validator struct {
	errs    []SchemaError
	budget  int
	overrun bool
}

func (vs *validator) add(path, msg string) {
	vs.errs = append(vs.errs, SchemaError{Path: path, Message: msg})
}

// matches reports whether v matches n, without recording errors.
func (vs *validator) matches(n *schemaNode, v any, path string, depth int) bool {
	sub := &validator{budget: vs.budget}
	sub.check(n, v, path, depth)
	vs.budget = sub.budget
	if sub.overrun {
		vs.overrun = true
	}
	return len(sub.errs) == 0 && !sub.overrun
}

func (vs *validator) check(n *schemaNode, v any, path string, depth int) {
	if vs.overrun {
		return
	}
	vs.budget--
	if vs.budget < 0 || depth > maxValidateDepth {
		vs.overrun = true
		return
	}
	if n.never {
		vs.add(path, "not allowed")
		return
	}
	if n.ref != nil {
		vs.check(n.ref, v, path, depth+1)
	}
	if n.types != 0 && n.types&typeBits(v) == 0 {
		vs.add(path, "must be "+n.typeText)
		return // the other keywords would only repeat the point
	}
	if n.hasConst && !EqualValues(v, n.constV) {
		vs.add(path, "must be "+string(AppendValue(nil, n.constV)))
	}
	if n.hasEnum {
		found := false
		for _, e := range n.enum {
			if EqualValues(v, e) {
				found = true
				break
			}
		}
		if !found {
			vs.add(path, "must be one of "+string(AppendValue(nil, n.enum)))
		}
	}
	if f, ok := numberOf(v); ok {
		if n.minimum != nil && f < *n.minimum {
			vs.add(path, "must be >= "+string(AppendValue(nil, *n.minimum)))
		}
		if n.maximum != nil && f > *n.maximum {
			vs.add(path, "must be <= "+string(AppendValue(nil, *n.maximum)))
		}
		if n.exclMinimum != nil && f <= *n.exclMinimum {
			vs.add(path, "must be > "+string(AppendValue(nil, *n.exclMinimum)))
		}
		if n.exclMaximum != nil && f >= *n.exclMaximum {
			vs.add(path, "must be < "+string(AppendValue(nil, *n.exclMaximum)))
		}
	}
	if s, ok := v.(string); ok && (n.minLength >= 0 || n.maxLength >= 0) {
		l := utf8.RuneCountInString(s)
		if n.minLength >= 0 && l < n.minLength {
			vs.add(path, "must be at least "+strconv.Itoa(n.minLength)+" characters")
		}
		if n.maxLength >= 0 && l > n.maxLength {
			vs.add(path, "must be at most "+strconv.Itoa(n.maxLength)+" characters")
		}
	}
	if a, ok := arrayOf(v); ok {
		if n.minItems >= 0 && len(a) < n.minItems {
			vs.add(path, "must have at least "+strconv.Itoa(n.minItems)+" items")
		}
		if n.maxItems >= 0 && len(a) > n.maxItems {
			vs.add(path, "must have at most "+strconv.Itoa(n.maxItems)+" items")
		}
		if n.items != nil {
			for i, e := range a {
				vs.check(n.items, e, path+"/"+strconv.Itoa(i), depth+1)
			}
		}
	}
	if m, ok := objectOf(v); ok {
		for _, k := range n.required {
			if _, ok := m[k]; !ok {
				vs.add(path, "missing required property "+strconv.Quote(k))
			}
		}
		if n.props != nil || n.additional != nil {
			for _, k := range sortedKeys(m) {
				sub := n.props[k]
				if sub == nil {
					sub = n.additional
				}
				if sub == nil {
					continue
				}
				if sub.never && n.props[k] == nil {
					vs.add(path, "unexpected property "+strconv.Quote(k))
					continue
				}
				vs.check(sub, m[k], path+"/"+escapePointer(k), depth+1)
			}
		}
	}
	for _, sub := range n.allOf {
		vs.check(sub, v, path, depth+1)
	}
	if len(n.anyOf) > 0 {
		ok := false
		for _, sub := range n.anyOf {
			if vs.matches(sub, v, path, depth+1) {
				ok = true
				break
			}
		}
		if !ok && !vs.overrun {
			vs.add(path, "must match at least one of the allowed schemas")
		}
	}
	if len(n.oneOf) > 0 {
		count := 0
		for _, sub := range n.oneOf {
			if vs.matches(sub, v, path, depth+1) {
				count++
			}
		}
		if count != 1 && !vs.overrun {
			vs.add(path, "must match exactly one of the allowed schemas (matched "+strconv.Itoa(count)+")")
		}
	}
}

// typeBits returns the type bits v satisfies ("integer" values are
// numbers too).
func typeBits(v any) uint8 {
	if f, ok := numberOf(v); ok {
		if f == math.Trunc(f) && !math.IsInf(f, 0) {
			return tNumber | tInteger
		}
		return tNumber
	}
	switch v.(type) {
	case nil:
		return tNull
	case bool:
		return tBoolean
	case string:
		return tString
	}
	if _, ok := arrayOf(v); ok {
		return tArray
	}
	if _, ok := objectOf(v); ok {
		return tObject
	}
	return 0
}
