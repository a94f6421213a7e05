//go:build !js && !wasip1

// The committed codecs are current: codecgen, run on a copy of each
// package `make generate` covers, writes the *_easyjson.go files byte for
// byte.

package wire_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// generateBound is how long regenerating the codecs may take: go tool
// easyjson builds the generator and a bootstrap program, which takes a few
// seconds with a warm build cache and well under a minute with a cold one.
const generateBound = 90 * time.Second

// goCommand finds the go command that runs the tests (go test puts its
// GOROOT/bin first in PATH), or skips the test when there is none.
func goCommand(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command in PATH; this test runs go generate in internal/wire, which needs one")
	}
	return p
}

// copyFiles copies the named files of dir src into dir dst.
func copyFiles(t *testing.T, src, dst string, names []string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dst, 0o755))
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(src, n))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dst, n), b, 0o644))
	}
}

// sources lists a package directory's files that generating the codecs reads
// or runs: its Go files (no tests, no generated codecs).
func sources(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || strings.HasSuffix(n, "_test.go") || strings.HasSuffix(n, "_easyjson.go") {
			continue
		}
		if strings.HasSuffix(n, ".go") {
			out = append(out, n)
		}
	}
	return out
}

// codecs lists the generated *_easyjson.go files of dir.
func codecs(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*_easyjson.go"))
	require.NoError(t, err)
	for i := range m {
		m[i] = filepath.Base(m[i])
	}
	slices.Sort(m)
	return m
}

// generatedDirs are the package directories whose codecs `make generate`
// writes, from the module's root.
var generatedDirs = []string{"internal/wire", "session"}

// TestGeneratedCodecsAreCurrent runs `go generate` (internal/codecgen) on a
// copy of each package of generatedDirs in a temporary module with this
// module's path (the generated function names spell the package path), so
// the tree is never touched, and compares the result byte for byte with the
// committed *_easyjson.go files.
func TestGeneratedCodecsAreCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("regenerating the codecs builds the easyjson generator; skipped with -short")
	}
	goCmd := goCommand(t)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(context.Background(), generateBound*time.Duration(len(generatedDirs)))
	defer cancel()
	env := append(os.Environ(),
		"PATH="+filepath.Dir(goCmd)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GOWORK=off", "GOFLAGS=-mod=readonly", "GOTOOLCHAIN=local", "GOOS=", "GOARCH=")

	// The packages, the packages of this module they import (the bootstrap
	// program easyjson builds compiles them all) and the rewriting program.
	args := []string{"list", "-deps", "-f", "{{.ImportPath}}", "./internal/codecgen"}
	for _, d := range generatedDirs {
		args = append(args, filepath.Join(root, filepath.FromSlash(d)))
	}
	list := exec.CommandContext(ctx, goCmd, args...)
	list.Env = env
	deps, err := list.Output()
	require.NoError(t, err, "go list -deps failed")
	tmp := t.TempDir()
	copyFiles(t, root, tmp, []string{"go.mod", "go.sum"})
	const module = "github.com/agentwasm/agentwasm/"
	for _, pkg := range strings.Fields(string(deps)) {
		if rel, ok := strings.CutPrefix(pkg, module); ok {
			src := filepath.Join(root, filepath.FromSlash(rel))
			copyFiles(t, src, filepath.Join(tmp, filepath.FromSlash(rel)), sources(t, src))
		}
	}

	for _, d := range generatedDirs {
		cmd := exec.CommandContext(ctx, goCmd, "generate", ".")
		cmd.Dir = filepath.Join(tmp, filepath.FromSlash(d))
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		require.NoError(t, ctx.Err(), "go generate did not finish within %s", generateBound)
		require.NoError(t, err, "go generate failed on a copy of %s:\n%s", d, out)

		dir := filepath.Join(root, filepath.FromSlash(d))
		committed := codecs(t, dir)
		fresh := codecs(t, cmd.Dir)
		require.NotEmpty(t, committed, "%s has no generated codecs", d)
		require.Equal(t, committed, fresh, "go generate writes a different set of codec files in %s; run make generate and commit the result", d)
		for _, name := range committed {
			want, err := os.ReadFile(filepath.Join(dir, name))
			require.NoError(t, err)
			got, err := os.ReadFile(filepath.Join(cmd.Dir, name))
			require.NoError(t, err)
			assert.Equal(t, string(got), string(want),
				"%s/%s is not what go generate writes from the current types; run make generate and commit the result", d, name)
		}
	}
}
