package wasmpack

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

var (
	lineprogOnce sync.Once
	lineprog     []byte
	lineprogErr  error
)

// buildLineprog builds testdata/lineprog for wasip1 as the Makefile builds the js modules
// (-trimpath, -s -w), once per test binary.
func buildLineprog(t *testing.T) []byte {
	t.Helper()
	lineprogOnce.Do(func() {
		dir, err := os.MkdirTemp("", "wasmpack-lineprog-")
		if err != nil {
			lineprogErr = err
			return
		}
		defer os.RemoveAll(dir)
		out := filepath.Join(dir, "lineprog.wasm")
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, "./testdata/lineprog")
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
		if msg, err := cmd.CombinedOutput(); err != nil {
			lineprogErr = &buildError{err: err, out: string(msg)}
			return
		}
		lineprog, lineprogErr = os.ReadFile(out)
	})
	require.NoError(t, lineprogErr)
	return lineprog
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string {
	return "building testdata/lineprog: " + e.err.Error() + "\n" + e.out
}

// runWasip1 runs wasip1 command modules under wazero's interpreter, all at once, and returns
// what each wrote to standard error (lineprog prints with println). The interpreter compiles a
// module in a fraction of the time the compiler takes (under -race, a second against twenty),
// and lineprog runs for about a second in it.
func runWasip1(t *testing.T, modules ...[]byte) []string {
	t.Helper()
	outs := make([]string, len(modules))
	errs := make([]error, len(modules))
	var wg sync.WaitGroup
	for i, module := range modules {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], errs[i] = runOne(module)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		require.NoError(t, err, "module %d; its output: %s", i, outs[i])
	}
	return outs
}

// runOne runs one wasip1 command module in a runtime of its own.
func runOne(module []byte) (string, error) {
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer rt.Close(ctx)
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	var stderr bytes.Buffer
	_, err := rt.InstantiateWithConfig(ctx, module, wazero.NewModuleConfig().WithStderr(&stderr).WithName(""))
	return stderr.String(), err
}

func TestDropLineTablesOnARealGoModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go program for wasip1 and runs it in wazero")
	}
	linked := buildLineprog(t)
	packed, stats, err := Pack(linked, Options{DropLineTables: true})
	require.NoError(t, err)
	kept, keptStats, err := Pack(linked, Options{})
	require.NoError(t, err)
	require.Greater(t, stats.Functions, 1000, "a Go program has thousands of functions")
	require.Greater(t, stats.LineTableBytes, 10000)
	require.Less(t, stats.SegmentsAfter, stats.SegmentsBefore)
	require.Zero(t, keptStats.Functions)

	outs := runWasip1(t, linked, kept, packed)
	want := outs[0]
	sum := regexp.MustCompile(`(?m)^sum: \d+$`).FindString(want)
	require.NotEmpty(t, sum, "the program's own output: %s", want)
	require.Contains(t, want, "recovered: assignment to entry in nil map")
	require.Regexp(t, `caller: main\.go:\d+ true`, want)
	require.Regexp(t, `main\.main\(\)\n\t.*main\.go:\d+`, want, "the linker's build prints file:line in a stack trace")

	t.Run("line tables kept", func(t *testing.T) {
		require.Equal(t, want, outs[1], "merging data segments alone changes no output")
	})
	t.Run("line tables dropped", func(t *testing.T) {
		got := outs[2]
		require.Contains(t, got, sum+"\n", "stack growth and the collector work as before")
		require.Contains(t, got, "recovered: assignment to entry in nil map")
		require.Contains(t, got, "caller: ?:0 true")
		require.Regexp(t, `main\.main\(\)\n\t\?:0`, got, "a stack trace still names the function")
		require.NotContains(t, got, "main.go:")
	})
	t.Run("packing a packed module changes nothing more", func(t *testing.T) {
		again, _, err := Pack(packed, Options{DropLineTables: true})
		require.NoError(t, err)
		require.Equal(t, packed, again)
	})
}

func TestDropLineTablesRefusesAnUnknownLayout(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go program for wasip1")
	}
	linked := buildLineprog(t)
	img, _, err := readData(dataBody(t, linked))
	require.NoError(t, err)
	tab, err := findPclntab(img.bytes)
	require.NoError(t, err)
	f, err := tab.funcAt(img.bytes, 7)
	require.NoError(t, err)

	tests := []struct {
		name  string
		spoil func(img []byte)
		want  string
	}{
		{"no magic", func(img []byte) { img[tab.at] = 0xf0 }, "no function table of Go 1.20"},
		{"two tables", func(img []byte) {
			// A second, consistent copy of the header: the same offsets, read from a second place.
			copy(img[tab.at-hdrSize*4:], img[tab.at:tab.at+hdrSize])
			for _, off := range []int{hdrFuncname, hdrCutab, hdrFiletab, hdrPctab, hdrFunctab} {
				v := binary.LittleEndian.Uint64(img[tab.at+off:])
				binary.LittleEndian.PutUint64(img[tab.at-hdrSize*4+off:], v+hdrSize*4)
			}
		}, "2 candidate function tables"},
		{"a function's pcdata count", func(img []byte) { binary.LittleEndian.PutUint32(img[f+funcNpcdata:], 1000) }, "pcdata tables"},
		{"a table past the end", func(img []byte) {
			binary.LittleEndian.PutUint32(img[f+funcPcln:], uint32(tab.pctabEnd-tab.pctab+5))
		}, "outside the pc tables"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spoilt := append([]byte(nil), img.bytes...)
			tt.spoil(spoilt)
			before := append([]byte(nil), spoilt...)
			_, _, err := dropLineTables(spoilt)
			require.ErrorContains(t, err, tt.want)
			require.Equal(t, before, spoilt, "a refused image is left as it was")
		})
	}
}

// dataBody returns the body of a module's data section.
func dataBody(t *testing.T, module []byte) []byte {
	t.Helper()
	sections, err := splitSections(module)
	require.NoError(t, err)
	for _, s := range sections {
		if s.id == sectionData {
			return s.body
		}
	}
	t.Fatal("no data section")
	return nil
}
