// Building the wasip1 module once per source tree, and compiling it once per
// process.

package wazerotest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/tetratelabs/wazero"
)

// EnvModule names an environment variable that, when set, points at a
// prebuilt wasip1 module to use instead of building one.
const EnvModule = "AGENTWASM_WASIP1"

// EnvToolchain names an environment variable that says which compiler built
// the module of EnvModule: "go" (the default) or "tinygo" (`make test-tiny`
// sets it for dist/agentwasm-wasip1.tiny.wasm). The tests compare it with
// what the module reports (Instance.TinyGo), so a suite never runs against
// another build than it meant to.
const EnvToolchain = "AGENTWASM_WASIP1_TOOLCHAIN"

// ExpectTinyGo reports whether EnvToolchain says the module is TinyGo's build.
func ExpectTinyGo() bool { return os.Getenv(EnvToolchain) == "tinygo" }

var (
	buildOnce sync.Once
	buildPath string
	buildErr  error

	cacheOnce sync.Once
	cache     wazero.CompilationCache
)

// ModulePath returns the path of the wasip1 module for the current sources,
// building it if no cached build matches. The cache lives in the user's cache
// directory under agentwasm/wazerotest, keyed by a hash of every non-test Go
// file, go.mod, go.sum and the Go version.
func ModulePath() (string, error) {
	buildOnce.Do(func() { buildPath, buildErr = build() })
	return buildPath, buildErr
}

func build() (string, error) {
	if p := os.Getenv(EnvModule); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("wazerotest: %s=%s: %w", EnvModule, p, err)
		}
		return p, nil
	}
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	sum, err := sourceHash(root)
	if err != nil {
		return "", err
	}
	dir, err := cacheDir()
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, "agentwasm-wasip1-"+sum[:20]+".wasm")
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	tmp, err := os.CreateTemp(dir, "build-*.wasm")
	if err != nil {
		return "", fmt.Errorf("wazerotest: creating a build file: %w", err)
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	cmd := exec.Command("go", "build", "-buildmode=c-shared", "-trimpath", "-o", tmp.Name(), "./wasm/wasip1")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("wazerotest: building the wasip1 module failed: %v\n%s", err, msg)
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return "", fmt.Errorf("wazerotest: storing the build: %w", err)
	}
	return out, nil
}

// moduleRoot finds the agentwasm source tree this package was compiled from.
func moduleRoot() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", fmt.Errorf("wazerotest: cannot locate the agentwasm sources; set %s to a prebuilt module", EnvModule)
	}
	root := filepath.Dir(filepath.Dir(file))
	if _, err := os.Stat(filepath.Join(root, "wasm", "wasip1", "main.go")); err != nil {
		return "", fmt.Errorf("wazerotest: no agentwasm sources at %s; set %s to a prebuilt module", root, EnvModule)
	}
	return root, nil
}

// sourceHash hashes what the wasip1 build depends on.
func sourceHash(root string) (string, error) {
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "dist" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if (strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go")) || name == "go.mod" || name == "go.sum" {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("wazerotest: hashing the sources: %w", err)
	}
	sort.Strings(files)
	h := sha256.New()
	fmt.Fprintln(h, runtime.Version())
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", fmt.Errorf("wazerotest: hashing the sources: %w", err)
		}
		rel, _ := filepath.Rel(root, f)
		fmt.Fprintf(h, "%s %d\n", filepath.ToSlash(rel), len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func cacheDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "agentwasm", "wazerotest")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("wazerotest: creating the cache directory: %w", err)
	}
	return dir, nil
}

// compilationCache is shared by every runtime in the process, and backed by
// a directory so later test runs skip compilation.
func compilationCache() wazero.CompilationCache {
	cacheOnce.Do(func() {
		if dir, err := cacheDir(); err == nil {
			if c, err := wazero.NewCompilationCacheWithDir(filepath.Join(dir, "compiled")); err == nil {
				cache = c
				return
			}
		}
		cache = wazero.NewCompilationCache()
	})
	return cache
}

var (
	bytesOnce sync.Once
	wasmBytes []byte
	bytesErr  error
)

// moduleBytes returns the module's bytes, building it if needed.
func moduleBytes() ([]byte, error) {
	bytesOnce.Do(func() {
		p, err := ModulePath()
		if err != nil {
			bytesErr = err
			return
		}
		wasmBytes, bytesErr = os.ReadFile(p)
	})
	return wasmBytes, bytesErr
}
