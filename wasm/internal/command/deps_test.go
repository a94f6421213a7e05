//go:build !js && !wasip1

package command_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goBound bounds one go list or go build run of these tests.
const goBound = 3 * time.Minute

// wasmBuilds are the module's builds: a name, GOOS, the main package, the
// build tags, go build's other flags, and the packages the build must not
// link (the session-only build, -tags agentwasm_sessiononly, has no port).
var wasmBuilds = []struct {
	name, goos, pkg, tags string
	flags                 []string
	without               []string
}{
	{"js", "js", "./wasm/js", "", nil, nil},
	{"js-session", "js", "./wasm/js", "agentwasm_sessiononly", nil,
		[]string{"github.com/agentwasm/agentwasm/serve", "github.com/agentwasm/agentwasm/portkit", "github.com/agentwasm/agentwasm/internal/jsonschema"}},
	{"wasip1", "wasip1", "./wasm/wasip1", "", []string{"-buildmode=c-shared"}, nil},
}

// forbidden are packages no wasm build may depend on, each with its cost:
// a package's initialization is linked with its import, whatever is used.
var forbidden = map[string]string{
	"net/http":      "about 1 MB of module; the easyjson root package would bring it (internal/wire/internal/codecgen strips that import)",
	"encoding/json": "its initialization keeps parts of reflect, and with them fmt and os (internal/rawjson)",
	"fmt":           "errors and messages go through internal/errs and concatenation",
	"os":            "its files; the modules read their environment through syscall",
	"reflect":       "kept alive by encoding/json and fmt",
	"runtime/debug": "imports fmt and os; the loader sets GOGC in the environment instead",
}

// goCmd finds the go command (go test puts its GOROOT/bin first in PATH),
// or skips the test when there is none.
func goCmd(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command in PATH; this test asks go list and go build about the wasm builds")
	}
	return p
}

// runGo runs the go command in the module root for GOOS=goos GOARCH=wasm.
func runGo(t *testing.T, goos string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), goBound)
	defer cancel()
	cmd := exec.CommandContext(ctx, goCmd(t), args...)
	cmd.Dir = filepath.Join("..", "..", "..")
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH=wasm", "GOFLAGS=", "GOWORK=off", "CGO_ENABLED=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, ctx.Err(), "go %s did not finish within %s", strings.Join(args, " "), goBound)
	require.NoError(t, err, "GOOS=%s GOARCH=wasm go %s failed:\n%s", goos, strings.Join(args, " "), stderr.String())
	return out
}

// TestWasmBuildsImportNoForbiddenPackage asks go list which packages each
// wasm build depends on: none of forbidden may be among them.
func TestWasmBuildsImportNoForbiddenPackage(t *testing.T) {
	for _, b := range wasmBuilds {
		t.Run(b.name, func(t *testing.T) {
			out := runGo(t, b.goos, "list", "-tags="+b.tags, "-deps", "-f", `{{.ImportPath}}: {{join .Imports " "}}`, b.pkg)
			importers := map[string][]string{} // package → the build's packages that import it
			deps := map[string]bool{}
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				pkg, imports, _ := strings.Cut(line, ": ")
				deps[pkg] = true
				for _, imp := range strings.Fields(imports) {
					importers[imp] = append(importers[imp], pkg)
				}
			}
			require.True(t, deps["github.com/agentwasm/agentwasm/wasm/internal/command"], "go list -deps %s lists the command layer", b.pkg)
			for pkg, why := range forbidden {
				assert.False(t, deps[pkg], "the %s build imports %s, through %v (%s); find the importer with go list -deps -f '{{.ImportPath}}: {{join .Imports \" \"}}'",
					b.name, pkg, importers[pkg], why)
			}
			for _, pkg := range b.without {
				assert.False(t, deps[pkg], "the %s build imports %s, through %v", b.name, pkg, importers[pkg])
			}
		})
	}
}

// TestWasmBuildsLinkNoFmtCode builds the modules (with their symbol names)
// and checks that no function of a forbidden package is linked in, nor, in
// the session-only build, any function of the port's packages.
func TestWasmBuildsLinkNoFmtCode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds both wasm modules; skipped with -short")
	}
	for _, b := range wasmBuilds {
		t.Run(b.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "module.wasm")
			abs, err := filepath.Abs(out)
			require.NoError(t, err)
			// -trimpath as make build: the compiled packages come from its cache.
			runGo(t, b.goos, append(append([]string{"build", "-trimpath", "-tags=" + b.tags}, b.flags...), "-o", abs, b.pkg)...)
			bin, err := os.ReadFile(abs)
			require.NoError(t, err)
			names, err := wasmFunctionNames(bin)
			require.NoError(t, err)
			require.Contains(t, names, "runtime.main", "the name section of the %s module lists its functions", b.goos)
			var prefixes []string
			for pkg := range forbidden {
				// The runtime defines runtime/debug.SetTraceback itself
				// (linkname): the import check covers that package.
				if pkg != "runtime/debug" {
					prefixes = append(prefixes, strings.ReplaceAll(pkg, "/", "_")+".")
				}
			}
			for _, pkg := range b.without {
				// The name section spells a package path's slashes as underscores
				// after the host name: github.com_agentwasm_agentwasm_serve.
				host, rest, _ := strings.Cut(pkg, "/")
				prefixes = append(prefixes, host+"_"+strings.ReplaceAll(rest, "/", "_")+".")
			}
			for _, prefix := range prefixes {
				var linked []string
				for _, n := range names {
					if strings.HasPrefix(n, prefix) {
						linked = append(linked, n)
					}
				}
				if len(linked) > 5 {
					linked = append(linked[:5], "…")
				}
				assert.Empty(t, linked, "the %s module links functions of %s", b.name, strings.TrimSuffix(prefix, "."))
			}
		})
	}
}

// wasmFunctionNames reads the function names of a wasm binary's "name"
// custom section (subsection 1).
func wasmFunctionNames(bin []byte) ([]string, error) {
	if len(bin) < 8 || string(bin[:4]) != "\x00asm" {
		return nil, errors.New("not a wasm binary")
	}
	r := bytes.NewReader(bin[8:])
	readBytes := func(r *bytes.Reader) ([]byte, error) {
		n, err := binary.ReadUvarint(r)
		if err != nil {
			return nil, err
		}
		if n > uint64(r.Len()) {
			return nil, errors.New("a length runs past the end")
		}
		b := make([]byte, n)
		_, err = r.Read(b)
		return b, err
	}
	for r.Len() > 0 {
		id, err := r.ReadByte()
		if err != nil {
			return nil, err
		}
		payload, err := readBytes(r)
		if err != nil {
			return nil, err
		}
		if id != 0 {
			continue
		}
		p := bytes.NewReader(payload)
		name, err := readBytes(p)
		if err != nil || string(name) != "name" {
			continue
		}
		for p.Len() > 0 {
			sub, err := p.ReadByte()
			if err != nil {
				return nil, err
			}
			content, err := readBytes(p)
			if err != nil {
				return nil, err
			}
			if sub != 1 {
				continue
			}
			c := bytes.NewReader(content)
			count, err := binary.ReadUvarint(c)
			if err != nil {
				return nil, err
			}
			names := make([]string, 0, count)
			for range count {
				if _, err := binary.ReadUvarint(c); err != nil {
					return nil, err
				}
				n, err := readBytes(c)
				if err != nil {
					return nil, err
				}
				names = append(names, string(n))
			}
			return names, nil
		}
	}
	return nil, errors.New("the binary has no function names (was it built with -ldflags=-s?)")
}
