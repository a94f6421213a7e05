// The trim pass: one-way types lose the method of the other direction, and
// generated functions nothing calls any more go.

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
	"strings"
)

// trim drops the codec methods of the direction a type is never moved in —
// types marked //agentwasm:decode-only lose WriteJSON, types marked
// //agentwasm:encode-only lose ReadJSON — and then every generated
// easyjson* function nothing refers to any more, until none is left: the
// linker would otherwise keep them all, since every wire type is handed to an
// interface. It runs before and after the tables pass (tables.go), whose
// rewrite leaves most generated functions unused.
func trim() {
	drop := map[string]bool{} // "Type.Method"
	sources, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	for _, f := range sources {
		if strings.HasSuffix(f, "_easyjson.go") || strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.ParseComments)
		check(err)
		for _, d := range file.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Doc == nil || g.Tok != token.TYPE {
				continue
			}
			for _, c := range g.Doc.List {
				name := g.Specs[0].(*ast.TypeSpec).Name.Name
				switch c.Text {
				case "//agentwasm:decode-only":
					drop[name+".WriteJSON"] = true
				case "//agentwasm:encode-only":
					drop[name+".ReadJSON"] = true
				}
			}
		}
	}
	generated, _ := filepath.Glob("*_easyjson.go")
	for _, f := range generated {
		file, err := parser.ParseFile(fset, f, nil, parser.ParseComments)
		check(err)
		var kept []ast.Decl
		for _, d := range file.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv != nil && drop[recvType(fn)+"."+fn.Name.Name] {
				continue
			}
			kept = append(kept, d)
		}
		for changed := true; changed; {
			changed = false
			used := map[string]bool{}
			for _, d := range kept {
				fn, isFn := d.(*ast.FuncDecl)
				ast.Inspect(d, func(n ast.Node) bool {
					if id, ok := n.(*ast.Ident); ok && (!isFn || id != fn.Name) {
						used[id.Name] = true
					}
					return true
				})
			}
			var next []ast.Decl
			for _, d := range kept {
				if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "easyjson") && !used[fn.Name.Name] {
					changed = true
					continue
				}
				next = append(next, d)
			}
			kept = next
		}
		file.Decls = kept
		file.Comments = keepComments(file, fset)
		var buf bytes.Buffer
		check(format.Node(&buf, fset, file))
		check(os.WriteFile(f, buf.Bytes(), 0o644))
	}
}

// keepComments keeps the comments that still sit inside or directly above a
// kept declaration, so dropped methods leave no orphan doc comments.
func keepComments(file *ast.File, fset *token.FileSet) []*ast.CommentGroup {
	var out []*ast.CommentGroup
	for _, c := range file.Comments {
		keep := c.Pos() < file.Package
		for _, d := range file.Decls {
			if c.Pos() >= d.Pos() && c.End() <= d.End() {
				keep = true
			}
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Doc == c {
				keep = true
			}
			if g, ok := d.(*ast.GenDecl); ok && (g.Doc == c || fset.Position(c.End()).Line+1 == fset.Position(g.Pos()).Line) {
				keep = true
			}
		}
		if keep {
			out = append(out, c)
		}
	}
	return out
}

// check stops the program on err.
func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "codecgen:", err)
		os.Exit(1)
	}
}
