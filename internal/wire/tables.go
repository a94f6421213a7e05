//go:build ignore

// tables.go rewrites the generated decoders (run by generate.sh after trim.go: go run tables.go).
// easyjson writes one function per struct with a case per member; in WebAssembly each of those
// functions costs kilobytes. For every decoder of a struct type, tables.go writes the struct's
// fields once, as a []jsonr.Field table (key, unsafe.Offsetof, kind), drops the function, and
// has the type's UnmarshalEasyJSON call jsonr's Lexer.Object, which reads any table. Decoders
// of other types (named slices) stay as easyjson wrote them.
//
// It knows the field types the wire structs use; a struct with any other field type keeps its
// generated decoder, and tables.go says so on stderr.
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

// scalarKinds maps a field's Go type to the jsonr kind that reads it.
var scalarKinds = map[string]string{
	"string": "String", "bool": "Bool", "int": "Int", "int64": "Int64", "float64": "Float64",
	"*int": "PtrInt", "*int64": "PtrInt64", "*float64": "PtrFloat64", "*bool": "PtrBool",
	"RawMessage": "Raw", "[]string": "Strings", "map[string]string": "StringMap",
}

func main() {
	fset := token.NewFileSet()
	structs := map[string]*ast.StructType{}
	sources, _ := filepath.Glob("*.go")
	for _, f := range sources {
		if strings.HasSuffix(f, "_easyjson.go") || strings.HasSuffix(f, "_test.go") || f == "trim.go" || f == "tables.go" {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		check(err)
		ast.Inspect(file, func(n ast.Node) bool {
			if ts, ok := n.(*ast.TypeSpec); ok {
				if st, ok := ts.Type.(*ast.StructType); ok {
					structs[ts.Name.Name] = st
				}
			}
			return true
		})
	}
	generated, _ := filepath.Glob("*_easyjson.go")
	sort.Strings(generated)
	decoded := map[string]bool{} // types whose pointer has UnmarshalEasyJSON
	files := map[string]*ast.File{}
	for _, f := range generated {
		file, err := parser.ParseFile(fset, f, nil, parser.ParseComments)
		check(err)
		files[f] = file
		for _, d := range file.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv != nil && fn.Name.Name == "UnmarshalEasyJSON" {
				decoded[recvType(fn)] = true
			}
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
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "easyjson") || !strings.Contains(fn.Name.Name, "Decode") {
				continue
			}
			typ := decodedType(fn)
			st := structs[typ]
			if st == nil {
				continue
			}
			entries, err := fieldTable(typ, st, decoded)
			if err != nil {
				fmt.Fprintf(os.Stderr, "tables: %s keeps its generated decoder: %v\n", typ, err)
				continue
			}
			// The decoder goes; its one caller, the type's UnmarshalEasyJSON, reads the table.
			edits = append(edits, edit{from: fset.Position(fn.Pos()).Offset, to: fset.Position(fn.End()).Offset})
			method := unmarshalMethod(file, typ)
			if method == nil {
				check(fmt.Errorf("%s has a decoder but no UnmarshalEasyJSON", typ))
			}
			edits = append(edits, edit{
				from: fset.Position(method.Body.Pos()).Offset,
				to:   fset.Position(method.Body.End()).Offset,
				text: "{\n\tl.Object(unsafe.Pointer(v), decode" + typ + ")\n}",
			})
			fmt.Fprintf(&tables, "\n// decode%s is %s's fields, as UnmarshalEasyJSON reads them.\nvar decode%s = []jsonr.Field{\n%s}\n",
				typ, typ, typ, entries)
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
	for _, field := range st.Fields.List {
		if len(field.Names) == 0 {
			return "", fmt.Errorf("embedded field %s", typeString(field.Type))
		}
		tag := ""
		if field.Tag != nil {
			s, err := strconv.Unquote(field.Tag.Value)
			if err != nil {
				return "", err
			}
			tag = reflect.StructTag(s).Get("json")
		}
		key, opts, _ := strings.Cut(tag, ",")
		if key == "-" && opts == "" {
			continue
		}
		if strings.Contains(","+opts+",", ",string,") {
			return "", fmt.Errorf("the ,string option on %s", field.Names[0].Name)
		}
		t := typeString(field.Type)
		for _, name := range field.Names {
			if !name.IsExported() {
				continue
			}
			k := key
			if k == "" {
				k = name.Name
			}
			offset := "unsafe.Offsetof(" + typ + "{}." + name.Name + ")"
			if kind, ok := scalarKinds[t]; ok {
				fmt.Fprintf(&b, "\t{Key: %q, Offset: %s, Kind: jsonr.%s},\n", k, offset, kind)
				continue
			}
			var call string
			switch {
			case strings.HasPrefix(t, "*") && decoded[t[1:]]:
				call = "jsonr.Ptr(l, (**" + t[1:] + ")(p), (*" + t[1:] + ").UnmarshalEasyJSON)"
			case strings.HasPrefix(t, "[]") && decoded[t[2:]]:
				call = "jsonr.Slice(l, (*[]" + t[2:] + ")(p), (*" + t[2:] + ").UnmarshalEasyJSON)"
			default:
				return "", fmt.Errorf("field %s of type %s", name.Name, t)
			}
			fmt.Fprintf(&b, "\t{Key: %q, Offset: %s, Kind: jsonr.Func, Decode: func(l *jsonr.Lexer, p unsafe.Pointer) { %s }},\n", k, offset, call)
		}
	}
	return b.String(), nil
}

// unmarshalMethod returns the UnmarshalEasyJSON method of *typ in file, or nil.
func unmarshalMethod(file *ast.File, typ string) *ast.FuncDecl {
	for _, d := range file.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv != nil && fn.Name.Name == "UnmarshalEasyJSON" && recvType(fn) == typ {
			return fn
		}
	}
	return nil
}

// decodedType returns the type a generated decoder writes: its parameter out *T.
func decodedType(fn *ast.FuncDecl) string {
	params := fn.Type.Params.List
	if len(params) != 2 {
		return ""
	}
	if s, ok := params[1].Type.(*ast.StarExpr); ok {
		if id, ok := s.X.(*ast.Ident); ok {
			return id.Name
		}
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

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "tables:", err)
		os.Exit(1)
	}
}
