// Custom headers from tool parameters (2026-07-28 Streamable HTTP,
// "x-mcp-header"): a tool's inputSchema may mark properties whose values a
// stateless-era tools/call mirrors into Mcp-Param-{name} headers. The
// client leaves a tool whose annotations break the rules out of its
// catalog; the server checks the headers of the others.

package mcp

import (
	"bytes"
	"errors"
	"strconv"
	"strings"

	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/internal/rawjson"
	"github.com/agentwasm/agentwasm/internal/wire"
)

// ParamHeader is one valid x-mcp-header annotation: the property path from
// the arguments root (a chain of properties keys) and the header name after
// HeaderParamPrefix.
type ParamHeader struct {
	Path []string
	Name string
}

// ParamHeaders reads the x-mcp-header annotations of an inputSchema, in
// schema order. It fails when any annotation breaks a rule: an empty or
// non-token name, a name repeated (case-insensitively), a property that is
// not a string, integer or boolean, or an annotation not reachable from the
// root through properties keys alone.
func ParamHeaders(schema []byte) ([]ParamHeader, error) {
	if len(bytes.TrimSpace(schema)) == 0 || !hasKey(schema, SchemaParamHeader) {
		return nil, nil // the common case: nothing to do
	}
	var out []ParamHeader
	if err := walkSchema(schema, nil, &out); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, h := range out {
		k := strings.ToLower(h.Name)
		if seen[k] {
			return nil, errs.New(SchemaParamHeader, " ", strconv.Quote(h.Name), " is used twice")
		}
		seen[k] = true
	}
	return out, nil
}

// walkSchema collects the annotations of the schema at path.
func walkSchema(schema []byte, path []string, out *[]ParamHeader) error {
	fields, err := wire.ObjectFields(bytes.TrimSpace(schema))
	if err != nil {
		return errs.New("the schema at ", pathText(path), " is not an object")
	}
	for _, f := range fields {
		switch f.Key {
		case SchemaParamHeader:
			if len(path) == 0 {
				return errors.New(SchemaParamHeader + " on the schema root")
			}
			name, err := wire.DecodeString(bytes.TrimSpace(f.Value))
			if err != nil || !isToken(name) {
				return errs.New(SchemaParamHeader, " at ", pathText(path), " is not an HTTP token")
			}
			if !primitiveType(wire.GetField(fields, "type")) {
				return errs.New(SchemaParamHeader, " at ", pathText(path), " is on a property that is not a string, integer or boolean")
			}
			*out = append(*out, ParamHeader{Path: path, Name: name})
		case "properties":
			props, err := wire.ObjectFields(bytes.TrimSpace(f.Value))
			if err != nil {
				if hasKey(f.Value, SchemaParamHeader) {
					return errs.New(SchemaParamHeader, " under a malformed properties at ", pathText(path))
				}
				continue
			}
			for _, p := range props {
				if err := walkSchema(p.Value, append(path[:len(path):len(path)], p.Key), out); err != nil {
					return err
				}
			}
		default:
			if hasKey(f.Value, SchemaParamHeader) {
				return errs.New(SchemaParamHeader, " under ", strconv.Quote(f.Key), " at ", pathText(path), " is not reachable through properties alone")
			}
		}
	}
	return nil
}

// pathText names a property path for error text.
func pathText(path []string) string {
	if len(path) == 0 {
		return "the root"
	}
	return strings.Join(path, ".")
}

// primitiveType reports whether a schema's type is string, integer or
// boolean (a type list may add "null").
func primitiveType(typ rawjson.Message) bool {
	t := bytes.TrimSpace(typ)
	if len(t) == 0 {
		return false
	}
	ok := func(s string) bool { return s == "string" || s == "integer" || s == "boolean" }
	if t[0] == '"' {
		s, err := wire.DecodeString(t)
		return err == nil && ok(s)
	}
	var list wire.StringList
	if wire.Unmarshal(t, &list) != nil {
		return false
	}
	n := 0
	for _, s := range list {
		switch {
		case ok(s):
			n++
		case s != "null":
			return false
		}
	}
	return n > 0
}

// hasKey reports whether key appears as an object key anywhere in data.
func hasKey(data []byte, key string) bool {
	d := bytes.TrimSpace(data)
	if len(d) == 0 || (d[0] != '{' && d[0] != '[') || !bytes.Contains(d, []byte(key)) {
		return false
	}
	if d[0] == '[' {
		var items wire.RawList
		if wire.Unmarshal(d, &items) != nil {
			return false
		}
		for _, it := range items {
			if hasKey(it, key) {
				return true
			}
		}
		return false
	}
	fields, err := wire.ObjectFields(d)
	if err != nil {
		return false
	}
	for _, f := range fields {
		if f.Key == key || hasKey(f.Value, key) {
			return true
		}
	}
	return false
}

// isToken reports whether s is an HTTP field-name token (1*tchar).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// ArgumentAt returns the JSON value at path in the arguments object args,
// white space trimmed, or nil when a step is not an object or the member is
// absent.
func ArgumentAt(args []byte, path []string) []byte {
	v := bytes.TrimSpace(args)
	for _, key := range path {
		if len(v) == 0 || v[0] != '{' {
			return nil
		}
		fields, err := wire.ObjectFields(v)
		if err != nil {
			return nil
		}
		v = bytes.TrimSpace(wire.GetField(fields, key))
	}
	return v
}
