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

// runWasip1 runs a wasip1 command module under wazero's interpreter and returns its stdout.
func runWasip1(t *testing.T, module []byte) string {
	t.Helper()
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer rt.Close(ctx)
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	var stdout, stderr bytes.Buffer
	_, err := rt.InstantiateWithConfig(ctx, module, wazero.NewModuleConfig().WithStdout(&stdout).WithStderr(&stderr).WithName(""))
	require.NoError(t, err, "stderr: %s", stderr.String())
	return stdout.String()
}

func TestDropLineTablesOnARealGoModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go program for wasip1")
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

	want := runWasip1(t, linked)
	sum := regexp.MustCompile(`(?m)^sum: \d+$`).FindString(want)
	require.NotEmpty(t, sum, "the program's own output: %s", want)
	require.Contains(t, want, "recovered: assignment to entry in nil map")
	require.Regexp(t, `caller: main\.go:\d+ true`, want)
	require.Regexp(t, `main\.main\(\)\n\t.*main\.go:\d+`, want, "the linker's build prints file:line in a stack trace")

	t.Run("line tables kept", func(t *testing.T) {
		require.Equal(t, want, runWasip1(t, kept), "merging data segments alone changes no output")
	})
	t.Run("line tables dropped", func(t *testing.T) {
		got := runWasip1(t, packed)
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

func TestComputeFindFuncTableOnARealGoModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go program for wasip1")
	}
	linked := buildLineprog(t)
	opts := Options{DropLineTables: true, ComputeFindFuncTable: true}
	packed, stats, err := Pack(linked, opts)
	require.NoError(t, err)
	dropped, _, err := Pack(linked, Options{DropLineTables: true})
	require.NoError(t, err)
	require.Greater(t, stats.FindFuncTableBytes, stats.Functions*16*bucketBytes*9/10, "about 16 buckets of 20 bytes per function on wasm")
	require.Greater(t, len(dropped)-len(packed), stats.FindFuncTableBytes*9/10, "the table's bytes are out of the module")
	require.Contains(t, stats.String(), "pc lookup table")

	img, _, err := readData(dataBody(t, packed))
	require.NoError(t, err)
	img.bytes = append(img.bytes, make([]byte, tailZeros)...)
	f, err := locateFindFuncTab(img.bytes, img.base)
	require.NoError(t, err)
	require.Len(t, f.want, stats.FindFuncTableBytes)
	require.Equal(t, make([]byte, len(f.want)), img.bytes[f.at:f.at+len(f.want)], "the packed module's data holds zeros where the table was")
	require.Less(t, len(f.startBody()), 300, "the start function is under 300 bytes of code (the package documentation)")

	t.Run("the start function builds the linker's table", func(t *testing.T) {
		ctx := context.Background()
		rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
		defer rt.Close(ctx)
		wasi_snapshot_preview1.MustInstantiate(ctx, rt)
		mod, err := rt.InstantiateWithConfig(ctx, packed, wazero.NewModuleConfig().WithStartFunctions().WithName(""))
		require.NoError(t, err)
		got, ok := mod.Memory().Read(f.addr, uint32(len(f.want)))
		require.True(t, ok)
		linkedImg, _, err := readData(dataBody(t, linked))
		require.NoError(t, err)
		require.Equal(t, linkedImg.bytes[f.addr-linkedImg.base:][:len(f.want)], got, "byte for byte the linker's table, before any Go code ran")
	})
	t.Run("the program runs as before", func(t *testing.T) {
		want := runWasip1(t, dropped)
		require.Contains(t, want, "recovered: assignment to entry in nil map")
		require.Regexp(t, `main\.main\(\)\n\t\?:0`, want)
		require.Equal(t, want, runWasip1(t, packed))
	})
	t.Run("packing a packed module changes nothing more", func(t *testing.T) {
		again, againStats, err := Pack(packed, opts)
		require.NoError(t, err)
		require.Equal(t, packed, again)
		require.Zero(t, againStats.FindFuncTableBytes)
	})
}

func TestComputeFindFuncTableRefusesWhatItCannotRebuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go program for wasip1")
	}
	linked := buildLineprog(t)
	img, _, err := readData(dataBody(t, linked))
	require.NoError(t, err)
	f, err := locateFindFuncTab(img.bytes, img.base)
	require.NoError(t, err)
	pcln, err := findPclntab(img.bytes)
	require.NoError(t, err)
	hdr := uint64(img.base) + uint64(pcln.at)
	base := img.base // the image's address, for the 8-byte alignment of the module data

	tests := []struct {
		name  string
		spoil func(img []byte)
		want  string
	}{
		{"a table the linker did not write", func(img []byte) { img[f.at+40*bucketBytes+4+3]++ }, "differs from the one computed"},
		{"no module data", func(img []byte) {
			for at := int((8 - base%8) % 8); at+8 <= len(img); at += 8 {
				if binary.LittleEndian.Uint64(img[at:]) == hdr {
					img[at]++
				}
			}
		}, "0 records in the module's data look like the runtime's module data"},
		{"a function out of order", func(img []byte) {
			binary.LittleEndian.PutUint32(img[pcln.functab+5*functabEntry:], binary.LittleEndian.Uint32(img[pcln.functab+3*functabEntry:]))
		}, "before the function ahead of it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spoilt := image{base: img.base, bytes: append([]byte(nil), img.bytes...)}
			tt.spoil(spoilt.bytes)
			body, _ := writeData(spoilt, 0)
			sections, err := splitSections(linked)
			require.NoError(t, err)
			for i := range sections {
				if sections[i].id == sectionData {
					sections[i].body = body
				}
			}
			module := joinSections(sections)
			out, _, err := Pack(module, Options{ComputeFindFuncTable: true})
			require.ErrorContains(t, err, tt.want)
			require.Nil(t, out)
			_, _, err = Pack(module, Options{})
			require.NoError(t, err, "without the option the same module packs")
		})
	}
}
