// Package jsonschema is the JSON Schema validator of the serving port: a
// compiled subset of JSON Schema for action inputs (type, properties,
// required, additionalProperties, items, enum, const, minimum/maximum,
// exclusiveMinimum/exclusiveMaximum, minLength/maxLength,
// minItems/maxItems, anyOf/oneOf/allOf, local $ref), over the model of
// dynamic JSON values in Model. A general validator costs megabytes in the
// wasm module; this one covers what apps use for tool inputs.
package jsonschema

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/internal/jsonw"
	"github.com/agentwasm/agentwasm/internal/nesting"
)

// Schema is a compiled JSON Schema. It is immutable and safe for
// concurrent use.
type Schema struct {
	model Model
	root  *node
}

// Mismatch is one way a value does not match a schema. Path is a JSON
// Pointer to the offending part of the value ("/items/0/qty"; "" is the
// value itself); Message is short human text ("must be integer").
type Mismatch struct {
	Path    string
	Message string
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

type node struct {
	never    bool // the false schema
	types    uint8
	typeText string // "integer", "string or null"

	props      map[string]*node
	required   []string
	additional *node // nil: anything allowed
	items      *node

	enum     []any
	hasEnum  bool
	constV   any
	hasConst bool

	minimum, maximum         *float64
	exclMinimum, exclMaximum *float64

	minLength, maxLength int // -1: unset
	minItems, maxItems   int // -1: unset

	anyOf, oneOf, allOf []*node
	ref                 *node
}

// MaxDepth is how deeply subschemas may nest in a schema Compile accepts:
// 128, or 24 in a TinyGo build (internal/nesting).
const MaxDepth = nesting.Schema

// Limits that keep validating bounded.
const (
	maxValidateDepth  = nesting.Validate // recursion while validating ($ref cycles): 256, or 48 under TinyGo
	maxValidateBudget = 200_000          // subschema visits per Validate call
)

type compiler struct {
	model   Model
	rootSrc map[string]any
	root    *node
	refs    map[string]*node
}

// Compile compiles a schema given as a JSON value of m: an object, or
// true/false. Keywords it knows: type (a name or an array of names;
// "integer" is a number with no fraction), properties, required,
// additionalProperties (a boolean or a schema), items (a schema), enum,
// const, minimum, maximum, exclusiveMinimum, exclusiveMaximum, minLength
// and maxLength (in Unicode code points), minItems, maxItems, anyOf,
// oneOf, allOf, and $ref to "#", "#/$defs/<name>" or
// "#/definitions/<name>". Other keywords are ignored. A keyword of the
// wrong type, an unknown type name or a $ref that does not resolve is an
// error; nested deeper than MaxDepth is one too.
//
// The schema keeps the values of enum and const: src must not change
// afterwards (serve compiles a copy).
func Compile(src any, m Model) (s *Schema, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, errs.New("internal error: ", errs.Text(r))
		}
	}()
	c := &compiler{model: m, refs: map[string]*node{}}
	c.rootSrc, _ = m.Object(src)
	c.root = &node{}
	c.refs["#"] = c.root
	if err := c.fill(c.root, src, "", 0); err != nil {
		return nil, err
	}
	return &Schema{model: m, root: c.root}, nil
}

func (c *compiler) compile(v any, at string, depth int) (*node, error) {
	n := &node{}
	if err := c.fill(n, v, at, depth); err != nil {
		return nil, err
	}
	return n, nil
}

func (c *compiler) fill(n *node, v any, at string, depth int) error {
	n.minLength, n.maxLength, n.minItems, n.maxItems = -1, -1, -1, -1
	if depth > MaxDepth {
		return errs.New(where(at), "nested deeper than ", strconv.Itoa(MaxDepth))
	}
	if b, ok := v.(bool); ok {
		n.never = !b
		return nil
	}
	m, ok := c.model.Object(v)
	if !ok {
		return errs.New(where(at), "a schema must be an object or a boolean, got ", c.model.Kind(v))
	}
	// Keywords in a fixed order so the first error is deterministic.
	if raw, ok := m["type"]; ok {
		var names []string
		if s, ok := raw.(string); ok {
			names = []string{s}
		} else if list, ok := c.model.Array(raw); ok && len(list) > 0 {
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
		pm, ok := c.model.Object(raw)
		if !ok {
			return errs.New(where(at), "\"properties\" must be an object")
		}
		n.props = make(map[string]*node, len(pm))
		for _, k := range jsonw.SortedKeys(pm) {
			sub, err := c.compile(pm[k], at+"/properties/"+escapePointer(k), depth+1)
			if err != nil {
				return err
			}
			n.props[k] = sub
		}
	}
	if raw, ok := m["required"]; ok {
		list, ok := c.model.Array(raw)
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
		if _, isArr := c.model.Array(raw); isArr && kw == "items" {
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
		list, ok := c.model.Array(raw)
		if !ok {
			return errs.New(where(at), "\"enum\" must be an array")
		}
		n.enum, n.hasEnum = list, true
	}
	if raw, ok := m["const"]; ok {
		n.constV, n.hasConst = raw, true
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
		f, ok := c.model.Number(raw)
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
		f, ok := c.model.Number(raw)
		if !ok || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
			return errs.New(where(at), strconv.Quote(kw.name), " must be a non-negative integer")
		}
		*kw.dst = int(f)
	}
	for _, kw := range [...]struct {
		name string
		dst  *[]*node
	}{
		{"allOf", &n.allOf}, {"anyOf", &n.anyOf}, {"oneOf", &n.oneOf},
	} {
		raw, ok := m[kw.name]
		if !ok {
			continue
		}
		list, ok := c.model.Array(raw)
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
func (c *compiler) resolve(ref, at string, depth int) (*node, error) {
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
	defs, _ := c.model.Object(c.rootSrc[section])
	target, ok := defs[name]
	if !ok {
		return nil, errs.New(where(at), "$ref ", strconv.Quote(ref), " does not resolve")
	}
	n := &node{}
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

// Validate checks v, a JSON value of the schema's Model, against the
// schema and returns every mismatch found, in a deterministic order; nil
// means v is valid. The work is bounded: $ref cycles that do not consume
// the value, and schemas too costly to check, end in a mismatch ("schema
// too complex to check") rather than a hang.
func (s *Schema) Validate(v any) (found []Mismatch) {
	defer func() {
		if r := recover(); r != nil {
			found = []Mismatch{{Message: "internal error: " + errs.Text(r)}}
		}
	}()
	vs := &validator{model: s.model, budget: maxValidateBudget}
	vs.check(s.root, v, "", 0)
	if vs.overrun {
		return []Mismatch{{Message: "schema too complex to check"}}
	}
	return vs.errs
}

type validator struct {
	model   Model
	errs    []Mismatch
	budget  int
	overrun bool
}

func (vs *validator) add(path, msg string) {
	vs.errs = append(vs.errs, Mismatch{Path: path, Message: msg})
}

// matches reports whether v matches n, without recording errors.
func (vs *validator) matches(n *node, v any, path string, depth int) bool {
	sub := &validator{model: vs.model, budget: vs.budget}
	sub.check(n, v, path, depth)
	vs.budget = sub.budget
	if sub.overrun {
		vs.overrun = true
	}
	return len(sub.errs) == 0 && !sub.overrun
}

func (vs *validator) check(n *node, v any, path string, depth int) {
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
	if n.types != 0 && n.types&vs.typeBits(v) == 0 {
		vs.add(path, "must be "+n.typeText)
		return // the other keywords would only repeat the point
	}
	m := vs.model
	if n.hasConst && !m.Equal(v, n.constV) {
		vs.add(path, "must be "+string(m.Append(nil, n.constV)))
	}
	if n.hasEnum {
		found := false
		for _, e := range n.enum {
			if m.Equal(v, e) {
				found = true
				break
			}
		}
		if !found {
			vs.add(path, "must be one of "+string(m.Append(nil, n.enum)))
		}
	}
	if f, ok := m.Number(v); ok {
		if n.minimum != nil && f < *n.minimum {
			vs.add(path, "must be >= "+string(m.Append(nil, *n.minimum)))
		}
		if n.maximum != nil && f > *n.maximum {
			vs.add(path, "must be <= "+string(m.Append(nil, *n.maximum)))
		}
		if n.exclMinimum != nil && f <= *n.exclMinimum {
			vs.add(path, "must be > "+string(m.Append(nil, *n.exclMinimum)))
		}
		if n.exclMaximum != nil && f >= *n.exclMaximum {
			vs.add(path, "must be < "+string(m.Append(nil, *n.exclMaximum)))
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
	if a, ok := m.Array(v); ok {
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
	if o, ok := m.Object(v); ok {
		for _, k := range n.required {
			if _, ok := o[k]; !ok {
				vs.add(path, "missing required property "+strconv.Quote(k))
			}
		}
		if n.props != nil || n.additional != nil {
			for _, k := range jsonw.SortedKeys(o) {
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
				vs.check(sub, o[k], path+"/"+escapePointer(k), depth+1)
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
func (vs *validator) typeBits(v any) uint8 {
	v, k := vs.model.seen(v)
	switch k {
	case kindNull:
		return tNull
	case kindBoolean:
		return tBoolean
	case kindString:
		return tString
	case kindArray:
		return tArray
	case kindObject:
		return tObject
	case kindNumber:
		if f, _ := number(v); f == math.Trunc(f) && !math.IsInf(f, 0) {
			return tNumber | tInteger
		}
		return tNumber
	}
	return 0
}
