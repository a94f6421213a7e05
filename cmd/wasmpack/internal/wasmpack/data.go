// data.go: the data section: its segments read into one memory image, and written back as
// few segments as the zero runs allow.

package wasmpack

import (
	"errors"
	"sort"
	"strconv"
)

// maxImage bounds the memory image Pack builds from a module's data segments: a module whose
// segments span more is refused rather than allocated.
const maxImage = 256 << 20

// image is the memory a module's data segments initialize: bytes starting at address base.
// Memory outside any segment starts as zeros, so bytes no segment wrote are zero here too.
type image struct {
	base  uint32
	bytes []byte
}

// readData reads the segments of a data section into one image and returns how many there were.
func readData(body []byte) (image, int, error) {
	r := reader{b: body}
	n, err := r.u32("the data section's segment count")
	if err != nil {
		return image{}, 0, err
	}
	type seg struct {
		at   uint32
		data []byte
	}
	segs := make([]seg, 0, min(int(n), len(body)/4+1))
	for i := uint32(0); i < n; i++ {
		what := "data segment " + strconv.FormatUint(uint64(i), 10)
		flags, err := r.u32(what + "'s flags")
		if err != nil {
			return image{}, 0, err
		}
		if flags != 0 {
			return image{}, 0, errors.New("wasmpack: " + what + " has flags " + strconv.FormatUint(uint64(flags), 10) +
				"; only active segments of memory 0 (flags 0), as the Go linker writes them, can be packed")
		}
		op, err := r.byte1(what + "'s offset")
		if err != nil {
			return image{}, 0, err
		}
		if op != 0x41 { // i32.const
			return image{}, 0, errors.New("wasmpack: " + what + "'s offset is not an i32.const expression")
		}
		at, err := r.i32(what + "'s offset")
		if err != nil {
			return image{}, 0, err
		}
		if end, err := r.byte1(what + "'s offset expression end"); err != nil {
			return image{}, 0, err
		} else if end != 0x0b {
			return image{}, 0, errors.New("wasmpack: " + what + "'s offset expression is more than one i32.const")
		}
		if at < 0 {
			return image{}, 0, errors.New("wasmpack: " + what + " starts at a negative address")
		}
		size, err := r.u32(what + "'s size")
		if err != nil {
			return image{}, 0, err
		}
		if uint64(size) > uint64(len(body)-r.at) {
			return image{}, 0, errors.New("wasmpack: " + what + " claims more bytes than the data section has left")
		}
		segs = append(segs, seg{at: uint32(at), data: body[r.at : r.at+int(size)]})
		r.at += int(size)
	}
	if r.at != len(body) {
		return image{}, 0, errors.New("wasmpack: the data section has bytes after its last segment")
	}
	if len(segs) == 0 {
		return image{}, 0, nil
	}
	sort.SliceStable(segs, func(i, j int) bool { return segs[i].at < segs[j].at })
	lo, hi := uint64(segs[0].at), uint64(0)
	for i, s := range segs {
		end := uint64(s.at) + uint64(len(s.data))
		if i > 0 && uint64(s.at) < hi {
			return image{}, 0, errors.New("wasmpack: data segments overlap at address " + strconv.FormatUint(uint64(s.at), 10) +
				"; the later one would win, which a packed module could not keep")
		}
		hi = max(hi, end)
	}
	if hi > 1<<31 {
		return image{}, 0, errors.New("wasmpack: a data segment ends past address 2^31, which the Go linker never writes")
	}
	if hi-lo > maxImage {
		return image{}, 0, errors.New("wasmpack: the data segments span " + strconv.FormatUint(hi-lo, 10) +
			" bytes, more than the 256 MiB wasmpack builds in memory")
	}
	img := image{base: uint32(lo), bytes: make([]byte, hi-lo)}
	for _, s := range segs {
		copy(img.bytes[uint64(s.at)-lo:], s.data)
	}
	return img, len(segs), nil
}

// writeData writes img as a data section whose segments hold every non-zero byte, split only at
// runs of more than maxGap zeros. It returns the section and its segment count.
func writeData(img image, maxGap int) ([]byte, int) {
	type span struct{ from, to int }
	var spans []span
	b := img.bytes
	for i := 0; i < len(b); {
		if b[i] == 0 {
			i++
			continue
		}
		from, last := i, i // last: the last non-zero byte of the span so far
		for i++; i < len(b); i++ {
			if b[i] != 0 {
				last = i
			} else if i-last > maxGap {
				break
			}
		}
		spans = append(spans, span{from, last + 1})
		i = last + 1
	}
	out := appendU32(make([]byte, 0, len(b)/2+16), uint32(len(spans)))
	for _, s := range spans {
		out = append(out, 0, 0x41)
		out = appendI32(out, int32(img.base+uint32(s.from)))
		out = append(out, 0x0b)
		out = appendU32(out, uint32(s.to-s.from))
		out = append(out, b[s.from:s.to]...)
	}
	return out, len(spans)
}
