package wasmpack

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"
)

// findFuncModule returns a small module whose data holds testPclntab's function table, a
// runtime.moduledata that points at it, and the lookup table the linker would write for its two
// functions (entries 0 and 10, shifted 16 bits as on wasm), at address tableAt.
func findFuncModule() (module []byte, tableAt uint32, table []byte) {
	const base = 64 // the image's address: a multiple of 8, as the linker aligns module data
	img, at, _ := testPclntab()
	md := (len(img) + 7) &^ 7
	tableOff := md + mdSize
	const minpc = 0x1000_0000
	f := findFuncTab{addr: base + uint32(tableOff), ftab: base + uint32(at+tabFunctab), nfunc: 2, shift: wasmPCShift, end: 10<<wasmPCShift + 4}
	table, err := f.compute(img[at+tabFunctab:])
	if err != nil {
		panic(err)
	}
	img = append(img, make([]byte, tableOff+len(table)-len(img))...)
	put := func(off int, v uint64) { binary.LittleEndian.PutUint64(img[md+off:], v) }
	put(mdPcHeader, base+uint64(at))
	put(mdFuncnametab, base+uint64(at+tabFuncnames))
	put(mdFtab, uint64(f.ftab))
	put(mdFtab+8, 3)
	put(mdFindfunctab, uint64(f.addr))
	put(mdMinpc, minpc)
	put(mdMaxpc, minpc+uint64(f.end))
	put(mdText, minpc)
	copy(img[tableOff:], table)
	m := layoutModule{types: [][]byte{{0, 0}}, funcTypes: []uint32{0}, bodies: [][]byte{{0, opEnd}}, data: []seg{{base, string(img)}}, pages: 1}
	return joinSections(m.sections()), f.addr, table
}

func TestComputeFindFuncTable(t *testing.T) {
	module, tableAt, table := findFuncModule()
	require.Equal(t, functabEntry, 1<<log2FunctabEntry)
	require.Len(t, table, 161*4+2561, "161 buckets' indexes and 2,561 subbuckets: the last bucket is cut short")
	require.EqualValues(t, 0, binary.LittleEndian.Uint32(table[159*bucketBytes:]), "function 0 covers pcs below 10<<16")
	require.EqualValues(t, 1, binary.LittleEndian.Uint32(table[160*bucketBytes:]), "function 1 starts at 10<<16, bucket 160")

	packed, stats, err := Pack(module, Options{ComputeFindFuncTable: true})
	require.NoError(t, err)
	require.Equal(t, len(table), stats.FindFuncTableBytes)
	img := imageOf(t, packed)
	if end := int(tableAt) + len(table); len(img) > int(tableAt) {
		require.Equal(t, make([]byte, min(len(img), end)-int(tableAt)), img[tableAt:min(len(img), end)], "the table is out of the data")
	}
	require.Less(t, len(packed), len(module)-len(table)/2)
	funcs, err := readFunctions(mustSplit(t, packed), sectionIndex(mustSplit(t, packed)))
	require.NoError(t, err)
	require.Len(t, funcs.bodies, 2, "the module's function and the start function")

	again, stats, err := Pack(packed, Options{ComputeFindFuncTable: true})
	require.NoError(t, err)
	require.Equal(t, packed, again)
	require.Zero(t, stats.FindFuncTableBytes, "a packed module's table is built by its start function already")

	_, _, err = Pack(module, Options{DropLineTables: true, ComputeFindFuncTable: true})
	require.NoError(t, err, "both steps together")
}

func mustSplit(t *testing.T, module []byte) []section {
	t.Helper()
	s, err := splitSections(module)
	require.NoError(t, err)
	return s
}
