// startfunc.go: the start function that builds the pc lookup table when the module is
// instantiated, and adding it to the module's type, function, start and code sections.

package wasmpack

import (
	"bytes"
	"errors"
	"strconv"
)

// More section ids (module.go has the data sections').
const (
	sectionType     = 1
	sectionImport   = 2
	sectionFunction = 3
	sectionStart    = 8
	sectionCode     = 10
)

// The instructions the start function uses.
const (
	opBlock     = 0x02
	opLoop      = 0x03
	opEnd       = 0x0b
	opBr        = 0x0c
	opBrIf      = 0x0d
	opLocalGet  = 0x20
	opLocalSet  = 0x21
	opI32Load   = 0x28
	opI32Store  = 0x36
	opI32Store8 = 0x3a
	opI32Const  = 0x41
	opI32GeU    = 0x4f
	opI32GtU    = 0x4b
	opI32Add    = 0x6a
	opI32Sub    = 0x6b
	opI32Mul    = 0x6c
	opI32Shl    = 0x74
	blockVoid   = 0x40
	typeI32     = 0x7f
	typeFunc    = 0x60
)

// The shifts the start function multiplies by, which the table's shape fixes.
const (
	log2FunctabEntry  = 3 // 1<<3 is functabEntry (a test checks)
	log2BucketSize    = 12
	log2Subbuckets    = 4
	log2SubbucketSize = log2BucketSize - log2Subbuckets
)

// The start function's locals, all i32.
const (
	localBucket = iota // the bucket being written
	localFunc          // the function index k whose code holds the current pc
	localNext          // where function k+1 starts
	localPC            // the bucket's first pc
	localSub           // the subbucket being written, 1 to 15
	localSubPC         // the subbucket's first pc
	localFirst         // the bucket's function index
	localCount
)

// startBody returns the code of a function that writes the lookup table f into zeroed memory.
// It walks the buckets in order with one function index that only grows: a bucket whose pc
// range lies within one function gets that function's index and nothing more (its subbuckets
// stay 0); a bucket where a function starts gets each subbucket's distance as well. The table is
// the one [findFuncTab.compute] gives, as the tests check on random layouts; it is written in
// time linear in the buckets and functions.
func (f findFuncTab) startBody() []byte {
	nbuckets := (f.end + bucketSize - 1) / bucketSize
	nsub := (f.end + subbucketSize - 1) / subbucketSize
	var c code
	next := func() { // localNext = where function localFunc+1 starts, from the ftab entry's entryoff
		c.get(localFunc).i32(log2FunctabEntry).op(opI32Shl).i32(int64(f.ftab)+functabEntry).op(opI32Add).op(opI32Load, 2, 0)
		c.i32(f.shift).op(opI32Shl).i32(f.off).op(opI32Add).set(localNext)
	}
	advance := func(pc byte) { // move localFunc to the function whose code holds pc
		c.op(opBlock, blockVoid).op(opLoop, blockVoid)
		c.get(localNext).get(pc).op(opI32GtU).op(opBrIf, 1)
		c.get(localFunc).i32(int64(f.nfunc-1)).op(opI32GeU).op(opBrIf, 1)
		c.get(localFunc).i32(1).op(opI32Add).set(localFunc)
		next()
		c.op(opBr, 0).op(opEnd, opEnd)
	}
	next()
	c.op(opBlock, blockVoid).op(opLoop, blockVoid)
	c.get(localBucket).i32(nbuckets).op(opI32GeU).op(opBrIf, 1)
	c.get(localBucket).i32(log2BucketSize).op(opI32Shl).set(localPC)
	advance(localPC)
	c.get(localBucket).i32(bucketBytes).op(opI32Mul).i32(int64(f.addr)).op(opI32Add).get(localFunc).op(opI32Store, 2, 0)
	c.get(localFunc).set(localFirst)
	c.op(opBlock, blockVoid)
	c.get(localNext).get(localPC).i32(bucketSize).op(opI32Add).op(opI32GeU).op(opBrIf, 0)
	c.i32(1).set(localSub)
	c.op(opLoop, blockVoid)
	c.get(localSub).i32(subbuckets).op(opI32GeU).op(opBrIf, 1)
	c.get(localBucket).i32(log2Subbuckets).op(opI32Shl).get(localSub).op(opI32Add).i32(nsub).op(opI32GeU).op(opBrIf, 1)
	c.get(localPC).get(localSub).i32(log2SubbucketSize).op(opI32Shl).op(opI32Add).set(localSubPC)
	advance(localSubPC)
	c.get(localBucket).i32(bucketBytes).op(opI32Mul).i32(int64(f.addr) + bucketBytes - subbuckets).op(opI32Add).get(localSub).op(opI32Add)
	c.get(localFunc).get(localFirst).op(opI32Sub).op(opI32Store8, 0, 0)
	c.get(localSub).i32(1).op(opI32Add).set(localSub)
	c.op(opBr, 0).op(opEnd, opEnd)
	c.get(localBucket).i32(1).op(opI32Add).set(localBucket)
	c.op(opBr, 0).op(opEnd, opEnd)
	c.op(opEnd)
	body := []byte{1, localCount, typeI32} // one run of localCount i32 locals
	return append(body, c.b...)
}

// code appends instructions.
type code struct{ b []byte }

func (c *code) op(b ...byte) *code { c.b = append(c.b, b...); return c }
func (c *code) get(l byte) *code   { return c.op(opLocalGet, l) }
func (c *code) set(l byte) *code   { return c.op(opLocalSet, l) }
func (c *code) i32(v int64) *code  { c.b = appendI32(append(c.b, opI32Const), int32(v)); return c }

// addStart makes body, a function of no parameters and no results, the module's start
// function. When the module has a start function already, it must be one with this body (the
// module was packed before): then the sections are returned as they are.
func addStart(sections []section, body []byte) ([]section, error) {
	idx := map[byte]int{}
	for i, s := range sections {
		if s.id != 0 {
			idx[s.id] = i
		}
	}
	for _, id := range []byte{sectionType, sectionFunction, sectionCode} {
		if _, ok := idx[id]; !ok {
			return nil, errors.New("wasmpack: the module has no section " + strconv.Itoa(int(id)) + " to add a start function to")
		}
	}
	funcs, err := readFunctions(sections, idx)
	if err != nil {
		return nil, err
	}
	if at, ok := idx[sectionStart]; ok {
		r := reader{b: sections[at].body}
		fn, err := r.u32("the start section's function")
		if err != nil {
			return nil, err
		}
		if fn < funcs.imported || int(fn-funcs.imported) >= len(funcs.bodies) || !bytes.Equal(funcs.bodies[fn-funcs.imported], body) {
			return nil, errors.New("wasmpack: the module has a start function of its own; wasmpack adds one to build the pc lookup table " +
				"and cannot add a second (the Go linker writes none)")
		}
		return sections, nil
	}
	typeIdx, typeBody := funcs.voidType, sections[idx[sectionType]].body
	if typeIdx < 0 {
		typeIdx = funcs.types
		typeBody = appendVec(typeBody, []byte{typeFunc, 0, 0})
	}
	out := append([]section(nil), sections...)
	out[idx[sectionType]] = section{id: sectionType, body: typeBody}
	out[idx[sectionFunction]] = section{id: sectionFunction, body: appendVec(sections[idx[sectionFunction]].body, appendU32(nil, uint32(typeIdx)))}
	out[idx[sectionCode]] = section{id: sectionCode, body: appendVec(sections[idx[sectionCode]].body, appendU32(nil, uint32(len(body))), body)}
	start := section{id: sectionStart, body: appendU32(nil, funcs.imported+uint32(len(funcs.bodies)))}
	// The start section goes after the sections numbered below it and before the others.
	at := len(out)
	for i, s := range out {
		if s.id > sectionStart && s.id != 0 {
			at = i
			break
		}
	}
	return append(out[:at], append([]section{start}, out[at:]...)...), nil
}

// moduleFunctions is what addStart reads of a module's functions.
type moduleFunctions struct {
	imported uint32   // imported functions, which come first in the function index space
	types    int      // entries in the type section
	voidType int      // the index of a type of no parameters and no results, or -1
	bodies   [][]byte // the code section's bodies, without their sizes
}

// readFunctions reads the type, import, function and code sections.
func readFunctions(sections []section, idx map[byte]int) (moduleFunctions, error) {
	m := moduleFunctions{voidType: -1}
	r := reader{b: sections[idx[sectionType]].body}
	n, err := r.u32("the type count")
	if err != nil {
		return m, err
	}
	m.types = int(n)
	for i := 0; i < m.types; i++ {
		form, err := r.byte1("a type's form")
		if err != nil {
			return m, err
		}
		if form != typeFunc {
			return m, errors.New("wasmpack: type " + strconv.Itoa(i) + " is not a function type")
		}
		params, err := r.skipVec("a type's parameters", 1)
		if err != nil {
			return m, err
		}
		results, err := r.skipVec("a type's results", 1)
		if err != nil {
			return m, err
		}
		if params == 0 && results == 0 && m.voidType < 0 {
			m.voidType = i
		}
	}
	if at, ok := idx[sectionImport]; ok {
		r := reader{b: sections[at].body}
		n, err := r.u32("the import count")
		if err != nil {
			return m, err
		}
		for i := uint32(0); i < n; i++ {
			for _, what := range []string{"an import's module name", "an import's name"} {
				if _, err := r.skipVec(what, 1); err != nil {
					return m, err
				}
			}
			kind, err := r.byte1("an import's kind")
			if err != nil {
				return m, err
			}
			switch kind {
			case 0: // function: a type index
				m.imported++
				_, err = r.u32("an imported function's type")
			case 1: // table: a reference type and limits
				if _, err = r.byte1("an imported table's type"); err == nil {
					err = r.skipLimits()
				}
			case 2: // memory: limits
				err = r.skipLimits()
			case 3: // global: a value type and mutability
				if _, err = r.byte1("an imported global's type"); err == nil {
					_, err = r.byte1("an imported global's mutability")
				}
			default:
				err = errors.New("wasmpack: import " + strconv.FormatUint(uint64(i), 10) + " has an unknown kind " + strconv.Itoa(int(kind)))
			}
			if err != nil {
				return m, err
			}
		}
	}
	r = reader{b: sections[idx[sectionFunction]].body}
	declared, err := r.u32("the function count")
	if err != nil {
		return m, err
	}
	r = reader{b: sections[idx[sectionCode]].body}
	n, err = r.u32("the code count")
	if err != nil {
		return m, err
	}
	if n != declared {
		return m, errors.New("wasmpack: the module declares " + strconv.FormatUint(uint64(declared), 10) + " functions but has code for " +
			strconv.FormatUint(uint64(n), 10))
	}
	m.bodies = make([][]byte, 0, min(int(n), len(r.b)))
	for i := uint32(0); i < n; i++ {
		size, err := r.u32("a function body's size")
		if err != nil {
			return m, err
		}
		if uint64(size) > uint64(len(r.b)-r.at) {
			return m, errors.New("wasmpack: function body " + strconv.FormatUint(uint64(i), 10) + " runs past the code section")
		}
		m.bodies = append(m.bodies, r.b[r.at:r.at+int(size)])
		r.at += int(size)
	}
	return m, nil
}

// skipVec skips a vector of n elements of size bytes each and returns n.
func (r *reader) skipVec(what string, size int) (int, error) {
	n, err := r.u32(what)
	if err != nil {
		return 0, err
	}
	if uint64(n)*uint64(size) > uint64(len(r.b)-r.at) {
		return 0, errors.New("wasmpack: " + what + " run past the section")
	}
	r.at += int(n) * size
	return int(n), nil
}

// skipLimits skips a table's or memory's limits: a flag, a minimum and, with flag bit 0, a maximum.
func (r *reader) skipLimits() error {
	flag, err := r.byte1("limits")
	if err != nil {
		return err
	}
	if _, err := r.u32("a limits minimum"); err != nil {
		return err
	}
	if flag&1 != 0 {
		_, err = r.u32("a limits maximum")
	}
	return err
}

// appendVec returns a vector section body with the elements added: its count raised by one and
// the elements' bytes appended. body must be a well-formed vector (count first).
func appendVec(body []byte, elem ...[]byte) []byte {
	r := reader{b: body}
	n, _ := r.u32("")
	out := appendU32(nil, n+1)
	out = append(out, body[r.at:]...)
	for _, e := range elem {
		out = append(out, e...)
	}
	return out
}
