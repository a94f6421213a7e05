// pclntab.go: the Go runtime's function table (the pclntab) in the memory image, and dropping
// its line tables.

package wasmpack

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strconv"
)

// pclnMagic opens the pclntab header of Go 1.20 and later, as the wasm port writes it: the
// magic number 0xfffffff1, two zero pads, a minimum instruction size of 1 and 8-byte pointers.
var pclnMagic = []byte{0xf1, 0xff, 0xff, 0xff, 0, 0, 1, 8}

// The pclntab header's fields after the magic, each 8 bytes (runtime.pcHeader).
const (
	hdrNfunc       = 8
	hdrNfiles      = 16
	hdrFuncname    = 32
	hdrCutab       = 40
	hdrFiletab     = 48
	hdrPctab       = 56
	hdrFunctab     = 64
	hdrSize        = 72
	funcFixedSize  = 44 // runtime._func before its pcdata and funcdata arrays
	funcPcsp       = 16
	funcPcfile     = 20
	funcPcln       = 24
	funcNpcdata    = 28
	funcCuOffset   = 32
	funcStartLine  = 36
	funcNfuncdata  = 43
	functabEntry   = 8 // entryoff, funcoff: two uint32s
	maxFunctions   = 1 << 24
	maxPcdataCount = 64
)

// pclntab is the located function table: the offsets of its parts within the image.
type pclntab struct {
	at                             int // the header
	nfunc                          int
	cutab, filetab, pctab, functab int // absolute offsets into the image
	pctabEnd                       int // the end of pctab: the start of functab
}

// findPclntab finds the one pclntab in img whose header and function table are consistent.
func findPclntab(img []byte) (pclntab, error) {
	var found []pclntab
	for from := 0; ; {
		i := bytes.Index(img[from:], pclnMagic)
		if i < 0 {
			break
		}
		if t, ok := parsePclntab(img, from+i); ok {
			found = append(found, t)
		}
		from += i + 1
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return pclntab{}, errors.New("wasmpack: no function table of Go 1.20 or later (pclntab magic 0xfffffff1, 8-byte pointers) " +
			"in the module's data; is it a Go toolchain build? (TinyGo's modules have none; pack them without -drop-lines)")
	default:
		return pclntab{}, errors.New("wasmpack: " + strconv.Itoa(len(found)) + " candidate function tables in the module's data; refusing to guess")
	}
}

// parsePclntab reads the header at at and checks that its parts lie in order inside img.
func parsePclntab(img []byte, at int) (pclntab, bool) {
	if len(img)-at < hdrSize {
		return pclntab{}, false
	}
	u64 := func(off int) uint64 { return binary.LittleEndian.Uint64(img[at+off:]) }
	nfunc := u64(hdrNfunc)
	if nfunc == 0 || nfunc > maxFunctions {
		return pclntab{}, false
	}
	offs := []uint64{hdrSize, u64(hdrFuncname), u64(hdrCutab), u64(hdrFiletab), u64(hdrPctab), u64(hdrFunctab)}
	for i := 1; i < len(offs); i++ {
		if offs[i] < offs[i-1] || offs[i] > uint64(len(img)-at) {
			return pclntab{}, false
		}
	}
	t := pclntab{
		at: at, nfunc: int(nfunc),
		cutab: at + int(offs[2]), filetab: at + int(offs[3]), pctab: at + int(offs[4]), functab: at + int(offs[5]),
	}
	t.pctabEnd = t.functab
	if uint64(len(img)-t.functab) < (nfunc+1)*functabEntry {
		return pclntab{}, false
	}
	return t, true
}

// funcAt returns the absolute offset of function k's runtime._func, checking that it and its
// pcdata array lie inside img.
func (t pclntab) funcAt(img []byte, k int) (int, error) {
	off := int(binary.LittleEndian.Uint32(img[t.functab+k*functabEntry+4:]))
	f := t.functab + off
	if off < (t.nfunc+1)*functabEntry || f+funcFixedSize > len(img) {
		return 0, errors.New("wasmpack: function " + strconv.Itoa(k) + "'s entry points outside the function table")
	}
	npcdata := int(binary.LittleEndian.Uint32(img[f+funcNpcdata:]))
	if npcdata > maxPcdataCount || f+funcFixedSize+4*npcdata+4*int(img[f+funcNfuncdata]) > len(img) {
		return 0, errors.New("wasmpack: function " + strconv.Itoa(k) + " claims " + strconv.Itoa(npcdata) +
			" pcdata tables; not the runtime._func layout of Go 1.20 and later")
	}
	return f, nil
}

// tableLen returns the length of the pc-value table at pctab offset off: pairs of a value delta
// and a pc delta, both varints, ended by a zero value delta after the first pair.
func (t pclntab) tableLen(img []byte, off uint32) (int, error) {
	i := t.pctab + int(off)
	if off == 0 || i >= t.pctabEnd {
		return 0, errors.New("wasmpack: a pc-value table offset " + strconv.FormatUint(uint64(off), 10) + " lies outside the pc tables")
	}
	varint := func() (uint32, bool) {
		var v uint32
		for shift := 0; shift < 35; shift += 7 {
			if i >= t.pctabEnd {
				return 0, false
			}
			c := img[i]
			i++
			v |= uint32(c&0x7f) << shift
			if c < 0x80 {
				return v, true
			}
		}
		return 0, false
	}
	for first := true; ; first = false {
		v, ok := varint()
		if !ok {
			return 0, errors.New("wasmpack: the pc-value table at offset " + strconv.FormatUint(uint64(off), 10) + " runs past the pc tables")
		}
		if v == 0 && !first {
			return i - (t.pctab + int(off)), nil
		}
		if _, ok := varint(); !ok {
			return 0, errors.New("wasmpack: the pc-value table at offset " + strconv.FormatUint(uint64(off), 10) + " runs past the pc tables")
		}
	}
}

// dropLineTables points every function at no file or line table, zeroes its start line and
// compilation unit, and zeroes the bytes of every pc table no other table shares, and the
// file tables. It returns how many functions it changed and how many bytes it zeroed.
func dropLineTables(img []byte) (funcs, zeroed int, err error) {
	t, err := findPclntab(img)
	if err != nil {
		return 0, 0, err
	}
	// First check every function and mark the tables the runtime still needs, changing nothing
	// until all of them read as expected.
	keep := make([]bool, t.pctabEnd-t.pctab)
	starts := make([]int, t.nfunc)
	for k := 0; k < t.nfunc; k++ {
		f, err := t.funcAt(img, k)
		if err != nil {
			return 0, 0, err
		}
		starts[k] = f
		npcdata := int(binary.LittleEndian.Uint32(img[f+funcNpcdata:]))
		offs := []uint32{binary.LittleEndian.Uint32(img[f+funcPcsp:])}
		for q := 0; q < npcdata; q++ {
			offs = append(offs, binary.LittleEndian.Uint32(img[f+funcFixedSize+4*q:]))
		}
		for _, off := range offs {
			if off == 0 {
				continue
			}
			n, err := t.tableLen(img, off)
			if err != nil {
				return 0, 0, errors.New(err.Error() + " (function " + strconv.Itoa(k) + ")")
			}
			for i := int(off); i < int(off)+n; i++ {
				keep[i] = true
			}
		}
		for _, field := range []int{funcPcfile, funcPcln} {
			if off := binary.LittleEndian.Uint32(img[f+field:]); off != 0 {
				if _, err := t.tableLen(img, off); err != nil {
					return 0, 0, errors.New(err.Error() + " (function " + strconv.Itoa(k) + ")")
				}
			}
		}
	}
	for _, f := range starts {
		for _, field := range []int{funcPcfile, funcPcln, funcCuOffset, funcStartLine} {
			binary.LittleEndian.PutUint32(img[f+field:], 0)
		}
	}
	// Offset 0 of the pc tables is the runtime's "no table"; its byte stays as it is.
	for i := 1; i < len(keep); i++ {
		if !keep[i] && img[t.pctab+i] != 0 {
			img[t.pctab+i] = 0
			zeroed++
		}
	}
	// The compilation units' file lists and the file names: read only through a line table.
	for i := t.cutab; i < t.pctab; i++ {
		if img[i] != 0 {
			img[i] = 0
			zeroed++
		}
	}
	return t.nfunc, zeroed, nil
}
