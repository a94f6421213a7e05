// The tables pass rewrites the generated codecs of struct types as field tables.
//
// easyjson writes one function per struct and direction, with code per member; in WebAssembly
// each of those functions costs kilobytes. For every struct type, tables.go writes the struct's
// fields once per direction, as a table (key, unsafe.Offsetof, kind):
//
//   - decodeT, a []jsonr.Field that jsonr's Lexer.Object reads: T's ReadJSON calls it;
//   - encodeT, a []jsonw.Field that jsonw's Writer.Struct writes: T's WriteJSON calls it.
//
// The generated functions go. Codecs of other types (named slices) stay as easyjson wrote them.
// It knows the field types the wire structs use; a struct with any other field type keeps its
// generated codec, and tables.go says so on stderr — unless the struct has a jsonw tag, which
// only a table honours: then the program fails.

package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// decodeKinds maps a field's Go type to the jsonr kind that reads it.
var decodeKinds = map[string]string{
	"string": "String", "bool": "Bool", "int": "Int", "int64": "Int64", "float64": "Float64",
	"*int": "PtrInt", "*int64": "PtrInt64", "*float64": "PtrFloat64", "*bool": "PtrBool",
	"rawjson.Message": "Raw", "[]string": "Strings", "map[string]string": "StringMap",
}

// encodeKinds maps a field's Go type to the jsonw kind that writes it.
var encodeKinds = map[string]string{
	"string": "String", "bool": "Bool", "int": "Int", "int64": "Int64", "float64": "Float64",
	"*int64": "PtrInt64", "*float64": "PtrFloat64", "rawjson.Message": "Raw", "[]string": "Strings",
	"map[string]int": "IntMap", "map[string]string": "StringMap",
}

// pass is one direction of the codecs tables.go rewrites.
type pass struct {
	prefix string // of the table's name: decodeT, encodeT
	method string // the method that reads or writes the table
	verb   string // what the method does with it, for the table's doc comment
	field  string // the table's element type
	call   string // the method's new body, with %s for the table's name
}

var (
	decodePass = pass{"decode", "ReadJSON", "reads", "jsonr.Field", "l.Object(unsafe.Pointer(v), %s)"}
	encodePass = pass{"encode", "WriteJSON", "writes", "jsonw.Field", "w.Struct(unsafe.Pointer(&v), %s)"}
)

// named maps the package's types declared as another named type (type Status string, type
// RawJSON = rawjson.Message) to that type: a field of such a type is written as its
// underlying type is.
var named = map[string]string{}

// resolve follows named from t to a type tables.go may know.
func resolve(t string) string {
	for i := 0; i < 8; i++ {
		u, ok := named[t]
		if !ok {
			break
		}
		t = u
	}
	return t
}

// tables is the second pass: it rewrites the codecs of every struct type as tables.
func tables() {
	fset := token.NewFileSet()
	structs := map[string]*ast.StructType{}
	sources, _ := filepath.Glob("*.go")
	for _, f := range sources {
		if strings.HasSuffix(f, "_easyjson.go") || strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		check(err)
		ast.Inspect(file, func(n ast.Node) bool {
			if ts, ok := n.(*ast.TypeSpec); ok {
				switch tt := ts.Type.(type) {
				case *ast.StructType:
					structs[ts.Name.Name] = tt
				case *ast.Ident, *ast.SelectorExpr:
					named[ts.Name.Name] = typeString(tt)
				}
			}
			return true
		})
	}
	generated, _ := filepath.Glob("*_easyjson.go")
	sort.Strings(generated)
	decoded := map[string]bool{} // types whose pointer has ReadJSON
	encoded := map[string]bool{} // struct types whose value has WriteJSON
	files := map[string]*ast.File{}
	for _, f := range generated {
		file, err := parser.ParseFile(fset, f, nil, parser.ParseComments)
		check(err)
		files[f] = file
		for _, d := range file.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv != nil && fn.Name.Name == "ReadJSON" {
				decoded[recvType(fn)] = true
			}
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv != nil && fn.Name.Name == "WriteJSON" {
				if _, ptr := fn.Recv.List[0].Type.(*ast.StarExpr); !ptr && structs[recvType(fn)] != nil {
					encoded[recvType(fn)] = true
				}
			}
		}
	}
	encodable := encodableTypes(structs, encoded)
	for _, typ := range sortedKeys(encoded) {
		if _, ok := encodable[typ]; !ok && hasJsonwTag(structs[typ]) {
			// easyjson's encoder knows no jsonw tag: it would write the field's nil as null.
			check(fmt.Errorf("tables: %s keeps its generated encoder, which ignores its jsonw tags", typ))
		}
	}
	for _, f := range generated {
		src, err := os.ReadFile(f)
		check(err)
		file := files[f]
		type edit struct {
			from, to int
			text     string
		}
		var edits []edit
		var tables bytes.Buffer
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "easyjson") {
				continue
			}
			typ := paramType(fn)
			var p pass
			var entries string
			switch {
			case strings.Contains(fn.Name.Name, "Decode") && structs[typ] != nil:
				e, err := fieldTable(typ, structs[typ], decoded)
				if err != nil {
					fmt.Fprintf(os.Stderr, "tables: %s keeps its generated decoder: %v\n", typ, err)
					continue
				}
				p, entries = decodePass, e
			case strings.Contains(fn.Name.Name, "Encode"):
				e, ok := encodable[typ]
				if !ok {
					if structs[typ] != nil {
						fmt.Fprintf(os.Stderr, "tables: %s keeps its generated encoder\n", typ)
					}
					continue
				}
				p, entries = encodePass, e
			default:
				continue
			}
			// The codec function goes; its one caller, the type's method, reads the table.
			m := method(file, typ, p.method)
			if m == nil {
				continue // a copy easyjson wrote for another type's codec in this file
			}
			edits = append(edits, edit{from: fset.Position(fn.Pos()).Offset, to: fset.Position(fn.End()).Offset})
			edits = append(edits, edit{
				from: fset.Position(m.Body.Pos()).Offset,
				to:   fset.Position(m.Body.End()).Offset,
				text: "{\n\t" + fmt.Sprintf(p.call, p.prefix+typ) + "\n}",
			})
			fmt.Fprintf(&tables, "\n// %s%s is %s's fields, as %s %s them.\nvar %s%s = []%s{\n%s}\n",
				p.prefix, typ, typ, p.method, p.verb, p.prefix, typ, p.field, entries)
		}
		sort.Slice(edits, func(i, j int) bool { return edits[i].from < edits[j].from })
		if len(edits) == 0 {
			continue
		}
		out := append([]byte(nil), src...)
		for i := len(edits) - 1; i >= 0; i-- {
			e := edits[i]
			out = append(out[:e.from:e.from], append([]byte(e.text), out[e.to:]...)...)
		}
		out = append(out, tables.Bytes()...)
		out = bytes.Replace(out, []byte("import (\n"), []byte("import (\n\t\"unsafe\"\n"), 1)
		formatted, err := format.Source(out)
		check(err)
		check(os.WriteFile(f, formatted, 0o644))
	}
}

// fieldTable writes the []jsonr.Field entries of struct typ, in declaration order.
func fieldTable(typ string, st *ast.StructType, decoded map[string]bool) (string, error) {
	var b strings.Builder
	err := eachField(st, func(name, key, _, t string) error {
		offset := "unsafe.Offsetof(" + typ + "{}." + name + ")"
		if kind, ok := decodeKinds[t]; ok {
			fmt.Fprintf(&b, "\t{Key: %q, Offset: %s, Kind: jsonr.%s},\n", key, offset, kind)
			return nil
		}
		var call string
		switch {
		case strings.HasPrefix(t, "*") && decoded[t[1:]]:
			call = "jsonr.Ptr(l, (**" + t[1:] + ")(p), (*" + t[1:] + ").ReadJSON)"
		case strings.HasPrefix(t, "[]") && decoded[t[2:]]:
			call = "jsonr.Slice(l, (*[]" + t[2:] + ")(p), (*" + t[2:] + ").ReadJSON)"
		default:
			return fmt.Errorf("field %s of type %s", name, t)
		}
		fmt.Fprintf(&b, "\t{Key: %q, Offset: %s, Kind: jsonr.Func, Decode: func(l *jsonr.Lexer, p unsafe.Pointer) { %s }},\n", key, offset, call)
		return nil
	})
	return b.String(), err
}

// encodableTypes returns the []jsonw.Field entries of every struct type with a generated
// encoder whose fields tables.go can write: scalars, and structs (values, pointers, slices) that
// are themselves encodable. A type that reaches itself keeps its generated encoder: its table
// would refer to itself.
func encodableTypes(structs map[string]*ast.StructType, encoded map[string]bool) map[string]string {
	out := map[string]string{}
	state := map[string]int{} // 1: in progress, 2: done
	var visit func(typ string) bool
	visit = func(typ string) bool {
		switch state[typ] {
		case 1:
			return false
		case 2:
			_, ok := out[typ]
			return ok
		}
		state[typ] = 1
		entries, err := encodeTable(typ, structs[typ], func(elem string) bool { return encoded[elem] && visit(elem) })
		state[typ] = 2
		if err != nil {
			fmt.Fprintf(os.Stderr, "tables: %s keeps its generated encoder: %v\n", typ, err)
			return false
		}
		out[typ] = entries
		return true
	}
	names := make([]string, 0, len(encoded))
	for typ := range encoded {
		names = append(names, typ)
	}
	sort.Strings(names)
	for _, typ := range names {
		visit(typ)
	}
	return out
}

// encodeTable writes the []jsonw.Field entries of struct typ, in declaration order; nested
// says whether a struct type can be written from its own table.
func encodeTable(typ string, st *ast.StructType, nested func(string) bool) (string, error) {
	var b strings.Builder
	err := eachField(st, func(name, key, opts, t string) error {
		if strings.ContainsAny(key, "\"\\") || strings.ContainsFunc(key, func(r rune) bool { return r < 0x20 || r > 0x7e }) {
			return fmt.Errorf("the key %q needs escaping", key)
		}
		omit := strings.Contains(","+opts+",", ",omitempty,")
		prefix := strconv.Quote(`,"` + key + `":`)
		offset := "unsafe.Offsetof(" + typ + "{}." + name + ")"
		omitField := ""
		if omit {
			omitField = ", OmitEmpty: true"
		}
		if strings.Contains(","+opts+",", ",nonnil,") {
			switch encodeKinds[t] {
			case "Strings", "IntMap", "StringMap":
			default:
				if !strings.HasPrefix(t, "[]") {
					return fmt.Errorf("jsonw:\"nonnil\" on %s of type %s, which is no slice or map", name, t)
				}
			}
			omitField += ", NonNil: true"
		}
		if kind, ok := encodeKinds[t]; ok {
			fmt.Fprintf(&b, "\t{Prefix: %s, Offset: %s, Kind: jsonw.%s%s},\n", prefix, offset, kind, omitField)
			return nil
		}
		switch {
		case strings.HasPrefix(t, "*") && nested(t[1:]):
			fmt.Fprintf(&b, "\t{Prefix: %s, Offset: %s, Kind: jsonw.PtrStruct%s, Fields: encode%s},\n", prefix, offset, omitField, t[1:])
		case strings.HasPrefix(t, "[]") && nested(t[2:]):
			fmt.Fprintf(&b, "\t{Prefix: %s, Offset: %s, Kind: jsonw.StructSlice%s, Fields: encode%s, Size: unsafe.Sizeof(%s{})},\n",
				prefix, offset, omitField, t[2:], t[2:])
		case !omit && nested(t):
			fmt.Fprintf(&b, "\t{Prefix: %s, Offset: %s, Kind: jsonw.Struct, Fields: encode%s},\n", prefix, offset, t)
		default:
			return fmt.Errorf("field %s of type %s", name, t)
		}
		return nil
	})
	return b.String(), err
}

// sortedKeys returns the keys of m, sorted.
func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// hasJsonwTag reports whether a field of st has a jsonw tag, which only the tables honour.
func hasJsonwTag(st *ast.StructType) bool {
	for _, field := range st.Fields.List {
		if field.Tag == nil {
			continue
		}
		if s, err := strconv.Unquote(field.Tag.Value); err == nil {
			if _, ok := reflect.StructTag(s).Lookup("jsonw"); ok {
				return true
			}
		}
	}
	return false
}

// eachField calls fn for each exported field of st that its json tag does not leave out, in
// declaration order, with the field's name, its JSON key (the name when the tag gives none), its
// tag options and its type as the source spells it; it stops at the first error. Embedded
// fields are an error: the tables have no way to flatten them.
func eachField(st *ast.StructType, fn func(name, key, opts, typ string) error) error {
	for _, field := range st.Fields.List {
		if len(field.Names) == 0 {
			return fmt.Errorf("embedded field %s", typeString(field.Type))
		}
		key, opts, skip, err := jsonTag(field)
		if err != nil {
			return err
		}
		if skip {
			continue
		}
		t := resolve(typeString(field.Type))
		for _, name := range field.Names {
			if !name.IsExported() {
				continue
			}
			k := key
			if k == "" {
				k = name.Name
			}
			if err := fn(name.Name, k, opts, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// jsonTag reads a field's json tag: its key (empty: the field's name), its options, and
// whether the field is left out ("-"). A jsonw:"nonnil" tag adds the option nonnil: the
// encoder writes the field's nil slice as [] and nil map as {} (jsonw.Field.NonNil), where
// encoding/json writes null.
func jsonTag(field *ast.Field) (key, opts string, skip bool, err error) {
	tag := ""
	if field.Tag != nil {
		s, err := strconv.Unquote(field.Tag.Value)
		if err != nil {
			return "", "", false, err
		}
		tag = reflect.StructTag(s).Get("json")
		switch w := reflect.StructTag(s).Get("jsonw"); w {
		case "":
		case "nonnil":
			tag += ",nonnil" // an option of our own: jsonw writes nil as [] or {}
		default:
			return "", "", false, fmt.Errorf("the jsonw tag %q on %s", w, field.Names[0].Name)
		}
	}
	key, opts, _ = strings.Cut(tag, ",")
	if key == "-" && opts == "" {
		return "", "", true, nil
	}
	if strings.Contains(","+opts+",", ",string,") {
		return "", "", false, fmt.Errorf("the ,string option on %s", field.Names[0].Name)
	}
	return key, opts, false, nil
}

// method returns the method name of typ or *typ in file, or nil.
func method(file *ast.File, typ, name string) *ast.FuncDecl {
	for _, d := range file.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv != nil && fn.Name.Name == name && recvType(fn) == typ {
			return fn
		}
	}
	return nil
}

// paramType returns the type a generated codec function takes as its second parameter: T for an
// encoder (in T), T for a decoder (out *T).
func paramType(fn *ast.FuncDecl) string {
	params := fn.Type.Params.List
	if len(params) != 2 {
		return ""
	}
	t := params[1].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// recvType returns a method's receiver type name, without the pointer.
func recvType(fn *ast.FuncDecl) string {
	t := fn.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// typeString spells a field type as the source does, for the types tables.go knows.
func typeString(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.StarExpr:
		return "*" + typeString(t.X)
	case *ast.ArrayType:
		if t.Len == nil {
			return "[]" + typeString(t.Elt)
		}
	case *ast.MapType:
		return "map[" + typeString(t.Key) + "]" + typeString(t.Value)
	case *ast.SelectorExpr:
		return typeString(t.X) + "." + t.Sel.Name
	}
	return fmt.Sprintf("%T", e)
}
