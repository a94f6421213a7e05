// Custom headers from tool parameters (2026-07-28 Streamable HTTP,
// "x-mcp-header"): a tool's inputSchema may mark properties whose values a
// stateless-era tools/call mirrors into Mcp-Param-{name} headers. A tool
// whose annotations break the rules is left out of the tools/list result.

package session

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/internal/wire"
)

// xMCPHeader is the schema keyword of the annotation.
const xMCPHeader = "x-mcp-header"

// maxSafeInteger is 2^53-1, the largest integer a header may carry.
const maxSafeInteger = 1<<53 - 1

// paramHeader is one valid annotation: the property path from the schema
// root (a chain of properties keys) and the header name after Mcp-Param-.
type paramHeader struct {
	path []string
	name string
}

// paramHeaders reads the x-mcp-header annotations of an inputSchema. It
// fails when any annotation breaks a rule: an empty or non-token name, a
// name repeated (case-insensitively), a property that is not a string,
// integer or boolean, or an annotation not reachable from the root through
// properties keys alone.
func paramHeaders(schema []byte) ([]paramHeader, error) {
	if len(trimJSONSpace(schema)) == 0 || !hasKey(schema, xMCPHeader) {
		return nil, nil // the common case: nothing to do
	}
	var out []paramHeader
	if err := walkSchema(schema, nil, &out); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, h := range out {
		k := strings.ToLower(h.name)
		if seen[k] {
			return nil, errs.New(xMCPHeader, " ", strconv.Quote(h.name), " is used twice")
		}
		seen[k] = true
	}
	return out, nil
}

// walkSchema collects the annotations of the schema at path.
func walkSchema(schema []byte, path []string, out *[]paramHeader) error {
	fields, err := wire.ObjectFields(trimJSONSpace(schema))
	if err != nil {
		return errs.New("the schema at ", pathText(path), " is not an object")
	}
	for _, f := range fields {
		switch f.Key {
		case xMCPHeader:
			if len(path) == 0 {
				return errors.New(xMCPHeader + " on the schema root")
			}
			name, err := wire.DecodeString(trimJSONSpace(f.Value))
			if err != nil || !isToken(name) {
				return errs.New(xMCPHeader, " at ", pathText(path), " is not an HTTP token")
			}
			if !primitiveType(wire.GetField(fields, "type")) {
				return errs.New(xMCPHeader, " at ", pathText(path), " is on a property that is not a string, integer or boolean")
			}
			*out = append(*out, paramHeader{path: path, name: name})
		case "properties":
			props, err := wire.ObjectFields(trimJSONSpace(f.Value))
			if err != nil {
				if hasKey(f.Value, xMCPHeader) {
					return errs.New(xMCPHeader, " under a malformed properties at ", pathText(path))
				}
				continue
			}
			for _, p := range props {
				if err := walkSchema(p.Value, append(path[:len(path):len(path)], p.Key), out); err != nil {
					return err
				}
			}
		default:
			if hasKey(f.Value, xMCPHeader) {
				return errs.New(xMCPHeader, " under ", strconv.Quote(f.Key), " at ", pathText(path), " is not reachable through properties alone")
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
func primitiveType(typ wire.RawMessage) bool {
	t := trimJSONSpace(typ)
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
	d := trimJSONSpace(data)
	if len(d) == 0 || (d[0] != '{' && d[0] != '[') || !strings.Contains(string(d), key) {
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

// paramHeaderValues returns the Mcp-Param-{name} headers of a call with
// args: for each annotation whose path holds a string, an integer or a
// boolean in args, its value (Base64-encoded when not header-safe). Absent,
// null and other values send no header.
func paramHeaderValues(hs []paramHeader, args []byte) map[string]string {
	if len(hs) == 0 {
		return nil
	}
	out := map[string]string{}
	for _, h := range hs {
		v := valueAt(args, h.path)
		if len(v) == 0 {
			continue
		}
		var s string
		switch {
		case v[0] == '"':
			var err error
			if s, err = wire.DecodeString(v); err != nil {
				continue
			}
		case string(v) == "true" || string(v) == "false":
			s = string(v)
		case v[0] == '-' || (v[0] >= '0' && v[0] <= '9'):
			f, err := strconv.ParseFloat(string(v), 64)
			if err != nil || f != math.Trunc(f) || math.Abs(f) > maxSafeInteger {
				continue
			}
			s = strconv.FormatInt(int64(f), 10)
		default:
			continue // null, an object or an array
		}
		out["mcp-param-"+strings.ToLower(h.name)] = headerValue(s)
	}
	return out
}

// valueAt returns the JSON value at path in the object args, or nil.
func valueAt(args []byte, path []string) []byte {
	v := trimJSONSpace(args)
	for _, key := range path {
		if len(v) == 0 || v[0] != '{' {
			return nil
		}
		fields, err := wire.ObjectFields(v)
		if err != nil {
			return nil
		}
		v = trimJSONSpace(wire.GetField(fields, key))
	}
	return v
}
