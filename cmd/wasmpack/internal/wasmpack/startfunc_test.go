package wasmpack

import (
	"bytes"
	"context"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero"
)

// layoutModule describes a small module: its function types (each type's encoding after its
// 0x60), imported functions "env" "f<i>" of type 0, its functions' types and bodies, its data
// segments and its memory's pages.
type layoutModule struct {
	types     [][]byte
	imports   int
	funcTypes []uint32
	bodies    [][]byte
	data      []seg
	pages     uint32
}

func (m layoutModule) sections() []section {
	vec := func(n int, b []byte) []byte { return append(appendU32(nil, uint32(n)), b...) }
	var types, imports, funcs, bodies, data []byte
	for _, t := range m.types {
		types = append(append(types, typeFunc), t...)
	}
	for i := 0; i < m.imports; i++ {
		imports = append(imports, 3, 'e', 'n', 'v', 2, 'f', byte('0'+i), 0, 0)
	}
	for i, ty := range m.funcTypes {
		funcs = appendU32(funcs, ty)
		bodies = append(appendU32(bodies, uint32(len(m.bodies[i]))), m.bodies[i]...)
	}
	for _, s := range m.data {
		data = append(appendU32(append(appendI32(append(data, 0, opI32Const), int32(s.at)), opEnd), uint32(len(s.data))), s.data...)
	}
	sections := []section{{sectionType, vec(len(m.types), types)}}
	if m.imports > 0 {
		sections = append(sections, section{sectionImport, vec(m.imports, imports)})
	}
	return append(sections,
		section{sectionFunction, vec(len(m.funcTypes), funcs)},
		section{5, append([]byte{1, 0}, appendU32(nil, m.pages)...)},
		section{7, []byte{1, 6, 'm', 'e', 'm', 'o', 'r', 'y', 2, 0}},
		section{sectionCode, vec(len(m.bodies), bodies)},
		section{sectionData, vec(len(m.data), data)},
	)
}

// randomLayout returns a function table and the lookup table's description for it. Entries
// grow by 0 to 3 (0: functions of no size, several starting at one pc) and are shifted by 0 to
// 16 bits, so that with small shifts many functions share a bucket and start inside buckets,
// and with 16 the layout is the wasm port's.
func randomLayout(r *rand.Rand, ftabAt, tableAt uint32) (findFuncTab, []byte) {
	f := findFuncTab{addr: tableAt, ftab: ftabAt, nfunc: 1 + r.IntN(60), shift: int64(r.IntN(17))}
	functab := make([]byte, (f.nfunc+1)*functabEntry)
	entry := uint32(0x1000 + r.IntN(8))
	first := int64(entry) << f.shift
	for k := 0; k <= f.nfunc; k++ {
		binary.LittleEndian.PutUint32(functab[k*functabEntry:], entry)
		binary.LittleEndian.PutUint32(functab[k*functabEntry+4:], r.Uint32()) // funcoff: not read
		entry += uint32(r.IntN(4))
		if k == f.nfunc-1 {
			entry++ // the end entry lies past the last function's start
		}
	}
	f.off = -first // the first function starts the pc range, as the linker lays it out
	last, next := f.entry(functab, f.nfunc-1), f.entry(functab, f.nfunc)
	f.end = last + 1 + r.Int64N(next-last) // the last function ends by where a next one would start
	return f, functab
}

func TestStartFunctionBuildsTheTableTheLinkerWrites(t *testing.T) {
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer rt.Close(ctx)
	_, err := rt.NewHostModuleBuilder("env").
		NewFunctionBuilder().WithFunc(func(v int32) int32 { return v }).Export("f0").
		NewFunctionBuilder().WithFunc(func(v int32) int32 { return v }).Export("f1").
		Instantiate(ctx)
	require.NoError(t, err)

	const ftabAt, tableAt = 1024, 8192
	guard := bytes.Repeat([]byte{0xa5}, 64)
	i32Type, voidType := []byte{1, typeI32, 1, typeI32}, []byte{0, 0}
	shapes := []layoutModule{
		{types: [][]byte{i32Type, voidType}, funcTypes: []uint32{1}, bodies: [][]byte{{0, opEnd}}},
		{types: [][]byte{i32Type}, imports: 2, funcTypes: []uint32{0, 0}, bodies: [][]byte{{0, opLocalGet, 0, opEnd}, {0, opI32Const, 7, opEnd}}},
	}
	r := rand.New(rand.NewPCG(1, 2))
	shifts := map[int64]bool{}
	for round := 0; round < 300; round++ {
		f, functab := randomLayout(r, ftabAt, tableAt)
		shifts[f.shift] = true
		want, err := f.compute(functab)
		require.NoError(t, err)
		m := shapes[round%len(shapes)]
		m.data = []seg{{ftabAt, string(functab)}, {tableAt - 64, string(guard)}, {tableAt + int32(len(want)), string(guard)}}
		m.pages = uint32((tableAt+len(want)+64)>>16) + 1
		before := m.sections()
		after, err := addStart(before, f.startBody())
		require.NoError(t, err)

		funcsBefore, err := readFunctions(before, sectionIndex(before))
		require.NoError(t, err)
		funcsAfter, err := readFunctions(after, sectionIndex(after))
		require.NoError(t, err)
		require.Len(t, funcsAfter.bodies, len(funcsBefore.bodies)+1, "one function more")
		require.Equal(t, funcsBefore.types+boolInt(funcsBefore.voidType < 0), funcsAfter.types, "a void type added only when there is none")
		require.Equal(t, appendU32(nil, funcsAfter.imported+uint32(len(funcsBefore.bodies))), after[sectionIndex(after)[sectionStart]].body,
			"the start section names the new function, after the imported ones")

		mod, err := rt.InstantiateWithConfig(ctx, joinSections(after), wazero.NewModuleConfig().WithName(""))
		require.NoError(t, err, "round %d", round)
		mem := mod.Memory()
		got, _ := mem.Read(tableAt, uint32(len(want)))
		require.Equal(t, want, got, "round %d: %d functions, shift %d, pc range %d", round, f.nfunc, f.shift, f.end)
		low, _ := mem.Read(tableAt-64, 64)
		high, _ := mem.Read(tableAt+uint32(len(want)), 64)
		require.Equal(t, guard, low, "round %d: the start function wrote before the table", round)
		require.Equal(t, guard, high, "round %d: the start function wrote past the table's last subbucket", round)
		require.NoError(t, mod.Close(ctx))
	}
	require.Len(t, shifts, 17, "every shift from 0 to 16 was tried")
}

func TestAddStartRefusesASecondStartFunction(t *testing.T) {
	f, functab := randomLayout(rand.New(rand.NewPCG(3, 4)), 1024, 8192)
	_, err := f.compute(functab)
	require.NoError(t, err)
	m := layoutModule{types: [][]byte{{0, 0}}, funcTypes: []uint32{0, 0}, bodies: [][]byte{{0, opEnd}, {0, opEnd}}, pages: 1}
	sections := m.sections()
	own := append([]section{}, sections[:4]...)
	own = append(own, section{sectionStart, []byte{0}})
	own = append(own, sections[4:]...)
	_, err = addStart(own, f.startBody())
	require.ErrorContains(t, err, "has a start function of its own")

	packed, err := addStart(sections, f.startBody())
	require.NoError(t, err)
	again, err := addStart(packed, f.startBody())
	require.NoError(t, err)
	require.Equal(t, joinSections(packed), joinSections(again), "a module whose start function is this one is left as it is")

	other := f
	other.addr += 4
	_, err = addStart(packed, other.startBody())
	require.ErrorContains(t, err, "has a start function of its own", "a start function that builds another table is not ours")
}

// sectionIndex maps each non-custom section id to its place in sections.
func sectionIndex(sections []section) map[byte]int {
	idx := map[byte]int{}
	for i, s := range sections {
		if s.id != 0 {
			idx[s.id] = i
		}
	}
	return idx
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
