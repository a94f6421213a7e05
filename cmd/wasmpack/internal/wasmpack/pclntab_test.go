package wasmpack

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"
)

// A hand-made pclntab of two functions, laid out as the Go linker lays it out for wasm.
const (
	tabFuncnames = hdrSize
	tabCutab     = tabFuncnames + 8
	tabFiletab   = tabCutab + 8
	tabPctab     = tabFiletab + 8
	// The pc tables: offset 0 is "no table"; each table is value/pc varint pairs ending in 0.
	tabSP      = 1  // frame sizes: 2 pairs
	tabShared  = 6  // a pcfile table whose bytes are also the second function's stack map table
	tabLine1   = 9  // the first function's lines
	tabLine2   = 14 // the second function's lines
	tabPCEnd   = 19
	tabFunctab = tabPctab + tabPCEnd + 1 // one pad byte
)

// pctabBytes are the pc tables at tabPctab.
var pctabBytes = []byte{
	0,                   // offset 0
	0x10, 2, 0x04, 3, 0, // tabSP
	0x02, 5, 0, // tabShared
	0x2a, 1, 0x02, 1, 0, // tabLine1
	0x30, 4, 0x06, 2, 0, // tabLine2
}

// testPclntab returns a memory image with padding around a pclntab of two functions.
func testPclntab() (img []byte, at int, funcs [2]int) {
	const pad = 32
	functabLen := 3 * functabEntry
	f0 := functabLen
	f1 := f0 + funcFixedSize + 4*1 // one pcdata
	end := f1 + funcFixedSize + 4*2 + 4*1
	img = make([]byte, pad+tabFunctab+end+pad)
	at = pad
	put64 := func(off int, v uint64) { binary.LittleEndian.PutUint64(img[at+off:], v) }
	copy(img[at:], pclnMagic)
	put64(hdrNfunc, 2)
	put64(hdrNfiles, 1)
	put64(hdrFuncname, tabFuncnames)
	put64(hdrCutab, tabCutab)
	put64(hdrFiletab, tabFiletab)
	put64(hdrPctab, tabPctab)
	put64(hdrFunctab, tabFunctab)
	copy(img[at+tabFuncnames:], "f0\x00f1\x00")
	copy(img[at+tabCutab:], []byte{0, 0, 0, 0})
	copy(img[at+tabFiletab:], "a.go\x00")
	copy(img[at+tabPctab:], pctabBytes)
	ft := at + tabFunctab
	put32 := func(off int, v uint32) { binary.LittleEndian.PutUint32(img[off:], v) }
	put32(ft+0, 0)
	put32(ft+4, uint32(f0))
	put32(ft+8, 10)
	put32(ft+12, uint32(f1))
	put32(ft+16, 20)
	write := func(f int, pcfile, pcln uint32, pcdata []uint32) {
		put32(f+funcPcsp, tabSP)
		put32(f+funcPcfile, pcfile)
		put32(f+funcPcln, pcln)
		put32(f+funcNpcdata, uint32(len(pcdata)))
		put32(f+funcCuOffset, 0)
		put32(f+funcStartLine, 12)
		img[f+funcNfuncdata] = 1
		for i, off := range pcdata {
			put32(f+funcFixedSize+4*i, off)
		}
	}
	funcs = [2]int{ft + f0, ft + f1}
	write(funcs[0], tabShared, tabLine1, []uint32{0})
	write(funcs[1], tabShared, tabLine2, []uint32{tabShared, tabSP})
	return img, at, funcs
}

func TestDropLineTables(t *testing.T) {
	img, at, funcs := testPclntab()
	n, zeroed, err := dropLineTables(img)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	pc := img[at+tabPctab : at+tabPctab+len(pctabBytes)]
	require.Equal(t, pctabBytes[:tabLine1], pc[:tabLine1], "frame sizes and the shared table stay byte for byte")
	require.Equal(t, make([]byte, tabPCEnd-tabLine1), pc[tabLine1:], "both line tables are zeroed")
	require.Equal(t, make([]byte, tabPctab-tabCutab), img[at+tabCutab:at+tabPctab], "the file tables are zeroed")
	require.Equal(t, "f0\x00f1\x00", string(img[at+tabFuncnames:at+tabFuncnames+6]), "function names stay")
	for _, f := range funcs {
		for _, field := range []int{funcPcfile, funcPcln, funcCuOffset, funcStartLine} {
			require.Zero(t, binary.LittleEndian.Uint32(img[f+field:]))
		}
		require.EqualValues(t, tabSP, binary.LittleEndian.Uint32(img[f+funcPcsp:]))
	}
	require.EqualValues(t, tabShared, binary.LittleEndian.Uint32(img[funcs[1]+funcFixedSize:]), "pcdata offsets stay")
	require.Equal(t, 2*4+len("a.go"), zeroed, "the non-zero bytes of two line tables (4 each) and of the file name")

	again := append([]byte(nil), img...)
	_, zeroed, err = dropLineTables(again)
	require.NoError(t, err)
	require.Zero(t, zeroed)
	require.Equal(t, img, again, "dropping twice is dropping once")
}

func TestDropLineTablesRefusals(t *testing.T) {
	tests := []struct {
		name  string
		spoil func(img []byte, at int, funcs [2]int)
		want  string
	}{
		{"functab past the image", func(img []byte, at int, _ [2]int) {
			binary.LittleEndian.PutUint64(img[at+hdrFunctab:], uint64(len(img)))
		}, "no function table"},
		{"offsets out of order", func(img []byte, at int, _ [2]int) {
			binary.LittleEndian.PutUint64(img[at+hdrCutab:], tabPctab+1)
		}, "no function table"},
		{"no functions", func(img []byte, at int, _ [2]int) { binary.LittleEndian.PutUint64(img[at+hdrNfunc:], 0) }, "no function table"},
		{"a function entry inside the functab", func(img []byte, at int, _ [2]int) {
			binary.LittleEndian.PutUint32(img[at+tabFunctab+4:], 4)
		}, "outside the function table"},
		{"a table running past the pc tables", func(img []byte, at int, _ [2]int) {
			// tabLine2's end marker and the pad byte after it become continuations.
			img[at+tabPctab+tabPCEnd-1], img[at+tabPctab+tabPCEnd] = 0x80, 0x80
		}, "runs past the pc tables"},
		{"a pcdata offset of the wrong kind", func(img []byte, _ int, funcs [2]int) {
			binary.LittleEndian.PutUint32(img[funcs[1]+funcFixedSize:], 400)
		}, "outside the pc tables"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			img, at, funcs := testPclntab()
			tt.spoil(img, at, funcs)
			before := append([]byte(nil), img...)
			_, _, err := dropLineTables(img)
			require.ErrorContains(t, err, tt.want)
			require.Equal(t, before, img, "a refused image is left as it was")
		})
	}
}

func TestPackDropsLineTablesInTheDataSection(t *testing.T) {
	img, _, _ := testPclntab()
	module := testModule([]seg{{at: 4096, data: string(img)}})
	packed, stats, err := Pack(module, Options{DropLineTables: true})
	require.NoError(t, err)
	require.Equal(t, 2, stats.Functions)
	dropped := append([]byte(nil), img...)
	_, _, err = dropLineTables(dropped)
	require.NoError(t, err)
	mem := memoryOf(t, packed)
	require.Equal(t, string(bytesTrimZeros(dropped)), string(bytesTrimZeros(mem[4096:])))
}

// bytesTrimZeros drops leading and trailing zero bytes.
func bytesTrimZeros(b []byte) []byte {
	for len(b) > 0 && b[0] == 0 {
		b = b[1:]
	}
	for len(b) > 0 && b[len(b)-1] == 0 {
		b = b[:len(b)-1]
	}
	return b
}
