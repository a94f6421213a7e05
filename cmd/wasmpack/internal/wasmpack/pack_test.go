package wasmpack

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// seg is a data segment of a test module.
type seg struct {
	at   int32
	data string
}

// testModule writes a module with a custom section, then a data section of segs (in the order
// given), then another custom section; extra sections go after it.
func testModule(segs []seg, extra ...section) []byte {
	body := appendU32(nil, uint32(len(segs)))
	for _, s := range segs {
		body = append(body, 0, 0x41)
		body = appendI32(body, s.at)
		body = append(body, 0x0b)
		body = appendU32(body, uint32(len(s.data)))
		body = append(body, s.data...)
	}
	sections := []section{{id: 0, body: []byte("\x04keep1")}, {id: sectionData, body: body}, {id: 0, body: []byte("\x04keep2")}}
	return joinSections(append(sections, extra...))
}

// segmentsOf reads back a module's data segments as (address, bytes) pairs.
func segmentsOf(t *testing.T, module []byte) []seg {
	t.Helper()
	sections, err := splitSections(module)
	require.NoError(t, err)
	var out []seg
	for _, s := range sections {
		if s.id != sectionData {
			continue
		}
		r := reader{b: s.body}
		n, err := r.u32("count")
		require.NoError(t, err)
		for i := uint32(0); i < n; i++ {
			r.at += 2 // flags 0, i32.const
			at, err := r.i32("offset")
			require.NoError(t, err)
			r.at++ // end
			size, err := r.u32("size")
			require.NoError(t, err)
			out = append(out, seg{at: at, data: string(r.b[r.at : r.at+int(size)])})
			r.at += int(size)
		}
	}
	return out
}

// memoryOf returns the memory a module's data segments initialize, as one image from address 0.
func memoryOf(t *testing.T, module []byte) []byte {
	t.Helper()
	var mem []byte
	for _, s := range segmentsOf(t, module) {
		if end := int(s.at) + len(s.data); end > len(mem) {
			mem = append(mem, make([]byte, end-len(mem))...)
		}
		copy(mem[s.at:], s.data)
	}
	return append([]byte{}, bytes.TrimRight(mem, "\x00")...)
}

func TestPackMergesSegments(t *testing.T) {
	z := func(n int) string { return strings.Repeat("\x00", n) }
	tests := []struct {
		name   string
		segs   []seg
		maxGap int
		want   []seg
	}{
		{"gap within the limit is filled", []seg{{100, "ab"}, {110, "cd"}}, 0,
			[]seg{{100, "ab" + z(8) + "cd"}}},
		{"gap at the limit is filled", []seg{{100, "ab"}, {106, "cd"}}, 4,
			[]seg{{100, "ab" + z(4) + "cd"}}},
		{"gap over the limit ends a segment", []seg{{100, "ab"}, {107, "cd"}}, 4,
			[]seg{{100, "ab"}, {107, "cd"}}},
		{"segments given out of order", []seg{{200, "yz"}, {100, "ab"}, {103, "c"}}, 0,
			[]seg{{100, "ab\x00c"}, {200, "yz"}}},
		{"adjacent segments join", []seg{{10, "ab"}, {12, "cd"}}, -1,
			[]seg{{10, "abcd"}}},
		{"negative max gap splits at every zero", []seg{{10, "a\x00b"}}, -1,
			[]seg{{10, "a"}, {12, "b"}}},
		{"zeros at the ends of segments are dropped", []seg{{10, z(3) + "ab" + z(5)}}, 0,
			[]seg{{13, "ab"}}},
		{"long zero runs inside one segment split it", []seg{{0, "a" + z(70) + "b"}}, 0,
			[]seg{{0, "a"}, {71, "b"}}},
		{"an all-zero segment leaves nothing", []seg{{10, z(9)}}, 0, nil},
		{"no segments", nil, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := testModule(tt.segs)
			out, stats, err := Pack(in, Options{MaxGap: tt.maxGap})
			require.NoError(t, err)
			require.Equal(t, tt.want, segmentsOf(t, out))
			require.Equal(t, len(tt.segs), stats.SegmentsBefore)
			require.Equal(t, len(tt.want), stats.SegmentsAfter)
			require.Equal(t, memoryOf(t, in), memoryOf(t, out), "the memory the module starts with changed")
			sections, err := splitSections(out)
			require.NoError(t, err)
			require.Equal(t, "\x04keep1", string(sections[0].body), "other sections keep their place and bytes")
			require.Equal(t, "\x04keep2", string(sections[2].body))
		})
	}
}

func TestPackLeavesAModuleWithoutDataAlone(t *testing.T) {
	in := joinSections([]section{{id: 1, body: []byte{0}}})
	out, stats, err := Pack(in, Options{})
	require.NoError(t, err)
	require.Equal(t, in, out)
	require.Equal(t, Stats{}, stats)

	_, _, err = Pack(in, Options{DropLineTables: true})
	require.ErrorContains(t, err, "no data section")
}

func TestPackRefusesWhatItCannotRewrite(t *testing.T) {
	valid := testModule([]seg{{8, "x"}})
	dataWith := func(body []byte) []byte { return joinSections([]section{{id: sectionData, body: body}}) }
	tests := []struct {
		name   string
		module []byte
		want   string
	}{
		{"not wasm", []byte("hello, world"), "not a WebAssembly module"},
		{"truncated section", valid[:len(valid)-3], "claims"},
		{"passive segment", dataWith([]byte{1, 1, 1, 'x'}), "flags 1"},
		{"offset from a global", dataWith([]byte{1, 0, 0x23, 0, 0x0b, 1, 'x'}), "not an i32.const"},
		{"two-instruction offset", dataWith([]byte{1, 0, 0x41, 1, 0x41, 0x0b, 1, 'x'}), "more than one i32.const"},
		{"negative address", dataWith([]byte{1, 0, 0x41, 0x7f, 0x0b, 1, 'x'}), "negative address"},
		{"segment past the section", dataWith([]byte{1, 0, 0x41, 1, 0x0b, 9, 'x'}), "more bytes than"},
		{"bytes after the last segment", dataWith([]byte{1, 0, 0x41, 1, 0x0b, 1, 'x', 'y'}), "bytes after its last segment"},
		{"overlapping segments", testModule([]seg{{8, "abc"}, {9, "x"}}), "overlap"},
		{"data count section", testModule([]seg{{8, "x"}}, section{id: sectionDataCount, body: []byte{1}}), "data count section"},
		{"two data sections", testModule([]seg{{8, "x"}}, section{id: sectionData, body: []byte{0}}), "two data sections"},
		{"huge span", testModule([]seg{{0, "x"}, {1 << 30, "y"}}), "256 MiB"},
		{"unterminated number", append(append([]byte(nil), header...), 11, 0x80, 0x80), "ends inside"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := Pack(tt.module, Options{})
			require.ErrorContains(t, err, tt.want)
			require.Nil(t, out)
		})
	}
}

func TestStatsString(t *testing.T) {
	require.Equal(t, "data segments 9 → 2", Stats{SegmentsBefore: 9, SegmentsAfter: 2}.String())
	require.Equal(t, "data segments 9 → 2; line tables of 3 functions dropped (40 bytes zeroed)",
		Stats{SegmentsBefore: 9, SegmentsAfter: 2, Functions: 3, LineTableBytes: 40}.String())
}

func TestLEB128RoundTrip(t *testing.T) {
	for _, v := range []int32{0, 1, -1, 63, 64, -64, -65, 127, 128, 1 << 20, -1 << 31, 1<<31 - 1} {
		r := reader{b: appendI32(nil, v)}
		got, err := r.i32("v")
		require.NoError(t, err)
		require.Equal(t, v, got)
		require.Equal(t, len(r.b), r.at)
	}
	for _, v := range []uint32{0, 1, 127, 128, 16383, 16384, 1<<32 - 1} {
		r := reader{b: appendU32(nil, v)}
		got, err := r.u32("v")
		require.NoError(t, err)
		require.Equal(t, v, got)
	}
	r := reader{b: []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x01}}
	_, err := r.u32("v")
	require.ErrorContains(t, err, "longer than 5 bytes")
	r = reader{b: []byte{0xff, 0xff, 0xff, 0xff, 0x7f}}
	_, err = r.u32("v")
	require.ErrorContains(t, err, "32 bits")
}

// TestSizeDocNamesTheDefaultMaxGap: docs/SIZE.md, which explains what wasmpack does, names the
// gap DefaultMaxGap is.
func TestSizeDocNamesTheDefaultMaxGap(t *testing.T) {
	doc, err := os.ReadFile("../../../../docs/SIZE.md")
	require.NoError(t, err)
	text := strings.Join(strings.Fields(string(doc)), " ") // line breaks as spaces
	require.Contains(t, text, "runs of up to "+strconv.Itoa(DefaultMaxGap)+" bytes (`wasmpack.DefaultMaxGap`)")
}
