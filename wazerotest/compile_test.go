package wazerotest_test

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"

	"github.com/agentwasm/agentwasm/wazerotest"
)

// moduleBytes reads the wasip1 module the harness runs.
func moduleBytes(tb testing.TB) []byte {
	tb.Helper()
	path, err := wazerotest.ModulePath()
	require.NoError(tb, err)
	wasm, err := os.ReadFile(path)
	require.NoError(tb, err)
	return wasm
}

// compile compiles the module once in a fresh runtime over cache (nil: none).
func compile(tb testing.TB, wasm []byte, cache wazero.CompilationCache) {
	tb.Helper()
	ctx := context.Background()
	cfg := wazero.NewRuntimeConfig()
	if cache != nil {
		cfg = cfg.WithCompilationCache(cache)
	}
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	defer rt.Close(ctx)
	compiled, err := rt.CompileModule(ctx, wasm)
	require.NoError(tb, err)
	require.NotEmpty(tb, compiled.ExportedFunctions(), "the compiled module exports agentwasm_call and the others")
}

// TestCompilationCacheOnDisk: a compilation leaves the compiled module in the
// cache directory, and a cache opened later over that directory (what a
// second process does) compiles from it: the directory does not change.
// Under the race detector wazero's compiler, which this test runs from nothing
// into an empty directory, is about five times slower (some 20 s) and checks
// nothing of this project's, so it skips there; make gotest runs it without
// -race.
func TestCompilationCacheOnDisk(t *testing.T) {
	if raceEnabled {
		t.Skip("compiles the module from nothing, slowly under -race; make gotest runs it without -race")
	}
	wasm := moduleBytes(t)
	dir := t.TempDir()
	ctx := context.Background()

	first, err := wazero.NewCompilationCacheWithDir(dir)
	require.NoError(t, err)
	compile(t, wasm, first)
	require.NoError(t, first.Close(ctx))
	before := dirListing(t, dir)
	require.NotEmpty(t, before, "the first compilation writes the compiled module into the cache directory")

	second, err := wazero.NewCompilationCacheWithDir(dir)
	require.NoError(t, err)
	compile(t, wasm, second)
	require.NoError(t, second.Close(ctx))
	require.Equal(t, before, dirListing(t, dir), "the second compilation finds its module in the directory and adds nothing")
}

// dirListing lists every file under dir with its size.
func dirListing(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	var walk func(string)
	walk = func(p string) {
		entries, err := os.ReadDir(dir + "/" + p)
		require.NoError(t, err)
		for _, e := range entries {
			name := p + "/" + e.Name()
			if e.IsDir() {
				walk(name)
				continue
			}
			info, err := e.Info()
			require.NoError(t, err)
			out[name] = info.Size()
		}
	}
	walk(".")
	return out
}

// BenchmarkCompile measures compiling the wasip1 module under wazero:
// without a cache (what every process paid before the harness had one on
// disk), from a cache directory a previous process filled (a fresh cache
// over a warm directory each time, as a second process opens it), and from
// the process's own in-memory cache.
func BenchmarkCompile(b *testing.B) {
	wasm := moduleBytes(b)
	ctx := context.Background()
	b.Run("no-cache", func(b *testing.B) {
		for b.Loop() {
			compile(b, wasm, nil)
		}
	})
	b.Run("disk-cache", func(b *testing.B) {
		dir := b.TempDir()
		warm, err := wazero.NewCompilationCacheWithDir(dir)
		require.NoError(b, err)
		compile(b, wasm, warm)
		require.NoError(b, warm.Close(ctx))
		for b.Loop() {
			cache, err := wazero.NewCompilationCacheWithDir(dir)
			require.NoError(b, err)
			compile(b, wasm, cache)
			require.NoError(b, cache.Close(ctx))
		}
	})
	b.Run("memory-cache", func(b *testing.B) {
		cache := wazero.NewCompilationCache()
		defer cache.Close(ctx)
		compile(b, wasm, cache)
		for b.Loop() {
			compile(b, wasm, cache)
		}
	})
}
