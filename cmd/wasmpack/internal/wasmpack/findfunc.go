// findfunc.go: the runtime's pc-to-function lookup table (findfunctab): finding it through the
// runtime's module data, computing it from the function table as the linker does, and taking
// it out of the data so the module's start function can build it instead.

package wasmpack

import (
	"encoding/binary"
	"errors"
	"strconv"
)

// The lookup table's shape (runtime.findfuncbucket, internal/abi.FuncTabBucketSize): one bucket
// per 4096 units of pc, each a uint32 function index and 16 one-byte steps from it, one per
// 256-unit subbucket.
const (
	bucketSize     = 1 << log2BucketSize // 4096
	subbuckets     = 1 << log2Subbuckets // 16
	subbucketSize  = bucketSize / subbuckets
	bucketBytes    = 4 + subbuckets
	wasmPCShift    = 16 // on wasm a pc is a function index << 16 plus a block index
	maxFindFuncTab = 64 << 20
)

// The fields of runtime.moduledata that lead to the table, as byte offsets (the layout of Go
// 1.20 and later, with 8-byte pointers and 24-byte slices).
const (
	mdPcHeader    = 0
	mdFuncnametab = 8
	mdFtab        = 128
	mdFindfunctab = 152
	mdMinpc       = 160
	mdMaxpc       = 168
	mdText        = 176
	mdSize        = 184
)

// findFuncTab is the located lookup table: where it is and what it must hold.
type findFuncTab struct {
	at    int    // its offset in the image
	addr  uint32 // its address in memory
	ftab  uint32 // the address of the function table's entries (runtime.functab)
	nfunc int    // the functions; ftab has one entry more, for the end
	// A function's place in the table's pc space is its ftab entryoff << shift, plus off: on
	// wasm the entryoff is a function index and shift 16, and off is text - minpc. end is
	// maxpc - minpc, the end of that space.
	shift    int64
	off, end int64
	want     []byte // the table, as the linker writes it
}

// locateFindFuncTab finds the runtime's module data through the pclntab (the one record whose
// pcHeader, funcnametab and ftab point into it), reads where the lookup table is, and computes
// what it must hold from the function table. img starts at address base.
func locateFindFuncTab(img []byte, base uint32) (findFuncTab, error) {
	t, err := findPclntab(img)
	if err != nil {
		return findFuncTab{}, err
	}
	hdr := uint64(base) + uint64(t.at)
	funcnames := hdr + binary.LittleEndian.Uint64(img[t.at+hdrFuncname:])
	ftab := uint64(base) + uint64(t.functab)
	u64 := func(at, off int) uint64 { return binary.LittleEndian.Uint64(img[at+off:]) }
	var found []int
	for at := int((8 - base%8) % 8); at+mdSize <= len(img); at += 8 {
		if u64(at, mdPcHeader) == hdr && u64(at, mdFuncnametab) == funcnames && u64(at, mdFtab) == ftab &&
			u64(at, mdFtab+8) == uint64(t.nfunc+1) {
			found = append(found, at)
		}
	}
	if len(found) != 1 {
		return findFuncTab{}, errors.New("wasmpack: " + strconv.Itoa(len(found)) + " records in the module's data look like the runtime's " +
			"module data (pointing at its function table); expected exactly one, as the Go 1.20+ linker writes it")
	}
	md := found[0]
	table, minpc, maxpc, text := u64(md, mdFindfunctab), u64(md, mdMinpc), u64(md, mdMaxpc), u64(md, mdText)
	if maxpc <= minpc || maxpc-minpc >= 1<<31 || text >= 1<<31 || minpc >= 1<<31 {
		return findFuncTab{}, errors.New("wasmpack: the module data's pc range [" + strconv.FormatUint(minpc, 16) + ", " +
			strconv.FormatUint(maxpc, 16) + ") is not one a wasm module's functions have")
	}
	span := maxpc - minpc
	// The linker's symbol stops after the last subbucket that holds code: the last bucket may be
	// cut short, and what follows it is another symbol's.
	size := (span+bucketSize-1)/bucketSize*4 + (span+subbucketSize-1)/subbucketSize
	if table < uint64(base) || table%4 != 0 || size > maxFindFuncTab || table-uint64(base)+size > uint64(len(img)) {
		return findFuncTab{}, errors.New("wasmpack: the pc lookup table at address " + strconv.FormatUint(table, 10) +
			" (" + strconv.FormatUint(size, 10) + " bytes) does not lie in the module's data")
	}
	f := findFuncTab{
		at: int(table - uint64(base)), addr: uint32(table), ftab: uint32(ftab), nfunc: t.nfunc,
		shift: wasmPCShift, off: int64(text) - int64(minpc), end: int64(span),
	}
	want, err := f.compute(img[t.functab:])
	if err != nil {
		return findFuncTab{}, err
	}
	f.want = want
	return f, nil
}

// entry returns the place in the table's pc space where function k starts (0 ≤ k < nfunc), or
// for k = nfunc, where the function table's end entry puts the end.
func (f findFuncTab) entry(functab []byte, k int) int64 {
	return int64(binary.LittleEndian.Uint32(functab[k*functabEntry:]))<<f.shift + f.off
}

// compute builds the lookup table as the linker does (cmd/link's findfunctab): each subbucket
// names the lowest-numbered function that has code in it, each bucket holds its first
// subbucket's function and each subbucket its distance from that one. The table ends with the
// last subbucket of the pc range, inside the last bucket. functab holds the function table's
// nfunc+1 entries.
func (f findFuncTab) compute(functab []byte) ([]byte, error) {
	n := (f.end + subbucketSize - 1) / subbucketSize
	nbuckets := (f.end + bucketSize - 1) / bucketSize
	const none = -1
	indexes := make([]int32, n)
	for i := range indexes {
		indexes[i] = none
	}
	mark := func(p int64, k int) {
		if i := p / subbucketSize; p >= 0 && i < n && (indexes[i] == none || indexes[i] > int32(k)) {
			indexes[i] = int32(k)
		}
	}
	for k := 0; k < f.nfunc; k++ {
		p, q := f.entry(functab, k), f.end
		if k+1 < f.nfunc {
			q = f.entry(functab, k+1)
		}
		if p < 0 || q > f.end || q < p {
			return nil, errors.New("wasmpack: function " + strconv.Itoa(k) + " lies outside the module data's pc range, or before the function ahead of it")
		}
		for ; p < q; p += subbucketSize {
			mark(p, k)
		}
		mark(q-1, k)
	}
	// The start function reads the end entry too, as where the last function's successor
	// would start, in 32-bit arithmetic.
	if x := f.entry(functab, f.nfunc); x < f.entry(functab, f.nfunc-1) || x >= 1<<31 {
		return nil, errors.New("wasmpack: the function table's end entry lies before its last function, or past 2^31")
	}
	table := make([]byte, nbuckets*bucketBytes)
	for b := int64(0); b < nbuckets; b++ {
		first := indexes[b*subbuckets]
		if first == none {
			return nil, errors.New("wasmpack: no function covers pc " + strconv.FormatInt(b*bucketSize, 10) + " of the module's pc range")
		}
		binary.LittleEndian.PutUint32(table[b*bucketBytes:], uint32(first))
		for j := int64(0); j < subbuckets && b*subbuckets+j < n; j++ {
			k := indexes[b*subbuckets+j]
			if k == none || k-first >= 256 {
				return nil, errors.New("wasmpack: the pc lookup table's bucket " + strconv.FormatInt(b, 10) + " cannot be written (a hole, or 256 functions or more)")
			}
			table[b*bucketBytes+bucketBytes-subbuckets+j] = byte(k - first)
		}
	}
	return table[:nbuckets*4+n], nil
}

// take checks that img holds the table the linker would write, or all zeros where a packed
// module's start function builds it, and zeroes it. It reports whether the table was there.
func (f findFuncTab) take(img []byte) (bool, error) {
	got := img[f.at : f.at+len(f.want)]
	if string(got) == string(f.want) {
		clear(got)
		return true, nil
	}
	for _, c := range got {
		if c != 0 {
			i := 0
			for got[i] == f.want[i] {
				i++
			}
			return false, errors.New("wasmpack: the pc lookup table at address " + strconv.FormatUint(uint64(f.addr), 10) +
				" differs from the one computed from the function table at byte " + strconv.Itoa(i) + " (bucket " +
				strconv.Itoa(i/bucketBytes) + "); refusing to replace it with a start function that would build another")
		}
	}
	return false, nil
}
