// The packages tinygo/wasm-opt leaves out of TinyGo's asyncify pass must
// be unable to pause a goroutine: a function left out that did pause would
// corrupt the goroutine's stack when it resumed, silently. This test holds
// each package the script names to what makes that so.

package agentwasm_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pausingImports are the packages through which code can wait: locks,
// channels' friends, contexts, readers and writers, the host.
var pausingImports = map[string]bool{
	"sync": true, "sync/atomic": true, "context": true, "io": true, "os": true, "net": true,
	"net/http": true, "syscall": true, "syscall/js": true, "runtime": true, "bufio": true,
}

// pausingTime are the functions of package time that wait or start a
// timer's goroutine; its values (Time, Duration) and parsing are fine.
var pausingTime = map[string]bool{
	"Sleep": true, "After": true, "AfterFunc": true, "NewTimer": true, "NewTicker": true, "Tick": true,
}

// TestAsyncifyRemovelistIsPure reads the removelist of tinygo/wasm-opt and
// checks every package on it: no import that can wait, no channel, select
// or go statement, no waiting function of package time.
func TestAsyncifyRemovelistIsPure(t *testing.T) {
	script, err := os.ReadFile("tinygo/wasm-opt")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^pure='([^']*)'$`).FindSubmatch(script)
	require.NotNil(t, m, "tinygo/wasm-opt names its removelist in a line pure='…'")
	var dirs []string
	for _, pattern := range strings.Split(string(m[1]), ",") {
		p := regexp.MustCompile(`^\*/(internal/[a-z]+)\.\*$`).FindStringSubmatch(pattern)
		require.NotNil(t, p, "pattern %q: the list names whole packages of the module, as */internal/name.*", pattern)
		dirs = append(dirs, p[1])
	}
	require.NotEmpty(t, dirs)
	for _, dir := range dirs {
		t.Run(dir, func(t *testing.T) {
			files, err := filepath.Glob(filepath.Join(dir, "*.go"))
			require.NoError(t, err)
			checked := 0
			for _, file := range files {
				if strings.HasSuffix(file, "_test.go") {
					continue
				}
				checked++
				for _, problem := range pausePoints(t, file) {
					t.Errorf("%s: %s; a package that can pause must not be on tinygo/wasm-opt's removelist", file, problem)
				}
			}
			assert.NotZero(t, checked, "%s has no Go files: the removelist names a package that is gone", dir)
		})
	}
}

// pausePoints lists what in file could make a goroutine wait.
func pausePoints(t *testing.T, file string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	require.NoError(t, err)
	var problems []string
	add := func(n ast.Node, what string) {
		problems = append(problems, fset.Position(n.Pos()).String()+": "+what)
	}
	timeName := ""
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if pausingImports[path] {
			add(imp, "imports "+path)
		}
		if path == "time" {
			timeName = "time"
			if imp.Name != nil {
				timeName = imp.Name.Name
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.ChanType:
			add(x, "a channel type")
		case *ast.SendStmt:
			add(x, "a channel send")
		case *ast.UnaryExpr:
			if x.Op == token.ARROW {
				add(x, "a channel receive")
			}
		case *ast.SelectStmt:
			add(x, "a select")
		case *ast.GoStmt:
			add(x, "a go statement")
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok && timeName != "" && id.Name == timeName && pausingTime[x.Sel.Name] {
				add(x, "time."+x.Sel.Name)
			}
		}
		return true
	})
	return problems
}

// The check finds each kind of pause point in a file that has them.
func TestPausePointsFindsEachKind(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "p.go")
	require.NoError(t, os.WriteFile(file, []byte(`package p

import (
	"sync"
	tm "time"
)

var mu sync.Mutex

func f(c chan int) {
	c <- 1
	<-c
	select {}
	go f(c)
	tm.Sleep(1)
	_ = tm.Duration(1)
}
`), 0o600))
	got := strings.Join(pausePoints(t, file), "\n")
	for _, want := range []string{"imports sync", "a channel type", "a channel send", "a channel receive", "a select", "a go statement", "time.Sleep"} {
		assert.Contains(t, got, want)
	}
	assert.NotContains(t, got, "time.Duration")
}
