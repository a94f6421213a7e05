// module.go: the module's outer structure: its header, its sections, and the LEB128 numbers
// that frame them.

package wasmpack

import (
	"bytes"
	"errors"
	"strconv"
)

// header is the magic number and version 1 that open every binary WebAssembly module.
var header = []byte{0x00, 'a', 's', 'm', 0x01, 0x00, 0x00, 0x00}

// Section ids of the binary format that Pack reads or rewrites.
const (
	sectionData      = 11
	sectionDataCount = 12
)

// section is one section of a module: its id and its contents, without the id and size that
// frame it.
type section struct {
	id   byte
	body []byte
}

// splitSections reads a module into its sections, in order.
func splitSections(module []byte) ([]section, error) {
	if !bytes.HasPrefix(module, header) {
		return nil, errors.New("wasmpack: not a WebAssembly module of version 1 (the first 8 bytes are not \\0asm 1 0 0 0)")
	}
	var sections []section
	r := reader{b: module, at: len(header)}
	for r.at < len(r.b) {
		id := r.b[r.at]
		r.at++
		size, err := r.u32("the size of section " + strconv.Itoa(int(id)))
		if err != nil {
			return nil, err
		}
		if uint64(size) > uint64(len(r.b)-r.at) {
			return nil, errors.New("wasmpack: section " + strconv.Itoa(int(id)) + " at byte " + strconv.Itoa(r.at) +
				" claims " + strconv.FormatUint(uint64(size), 10) + " bytes, more than the module has left")
		}
		sections = append(sections, section{id: id, body: r.b[r.at : r.at+int(size)]})
		r.at += int(size)
	}
	return sections, nil
}

// joinSections writes a module of the given sections.
func joinSections(sections []section) []byte {
	n := len(header)
	for _, s := range sections {
		n += 1 + 5 + len(s.body)
	}
	out := make([]byte, 0, n)
	out = append(out, header...)
	for _, s := range sections {
		out = append(out, s.id)
		out = appendU32(out, uint32(len(s.body)))
		out = append(out, s.body...)
	}
	return out
}

// reader reads LEB128 numbers and bytes from b, starting at at.
type reader struct {
	b  []byte
	at int
}

// u32 reads an unsigned LEB128 number of at most 32 bits; what names the number in an error.
func (r *reader) u32(what string) (uint32, error) {
	var v uint64
	for shift := 0; shift < 35; shift += 7 {
		if r.at >= len(r.b) {
			return 0, errors.New("wasmpack: the module ends inside " + what)
		}
		c := r.b[r.at]
		r.at++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			if v > 0xffffffff {
				return 0, errors.New("wasmpack: " + what + " does not fit in 32 bits")
			}
			return uint32(v), nil
		}
	}
	return 0, errors.New("wasmpack: " + what + " is longer than 5 bytes")
}

// i32 reads a signed LEB128 number of at most 32 bits; what names the number in an error.
func (r *reader) i32(what string) (int32, error) {
	var v int64
	shift := 0
	for {
		if r.at >= len(r.b) {
			return 0, errors.New("wasmpack: the module ends inside " + what)
		}
		if shift >= 35 {
			return 0, errors.New("wasmpack: " + what + " is longer than 5 bytes")
		}
		c := r.b[r.at]
		r.at++
		v |= int64(c&0x7f) << shift
		shift += 7
		if c < 0x80 {
			if c&0x40 != 0 {
				v |= -1 << shift
			}
			if v < -1<<31 || v > 1<<31-1 {
				return 0, errors.New("wasmpack: " + what + " does not fit in 32 bits")
			}
			return int32(v), nil
		}
	}
}

// byte1 reads one byte; what names it in an error.
func (r *reader) byte1(what string) (byte, error) {
	if r.at >= len(r.b) {
		return 0, errors.New("wasmpack: the module ends before " + what)
	}
	c := r.b[r.at]
	r.at++
	return c, nil
}

// appendU32 appends v as an unsigned LEB128 number.
func appendU32(b []byte, v uint32) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// appendI32 appends v as a signed LEB128 number.
func appendI32(b []byte, v int32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
