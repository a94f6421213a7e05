package wasmpack

import (
	"bytes"
	"testing"
)

// FuzzPack: any bytes either pack or are refused, with line tables kept and dropped; a module
// that packs packs again to itself, and with its line tables kept starts with the same memory.
func FuzzPack(f *testing.F) {
	f.Add(testModule([]seg{{100, "ab"}, {110, "cd"}}), int8(0))
	f.Add(testModule([]seg{{8, "a\x00\x00b"}, {0, "xy"}}), int8(-1))
	f.Add(testModule([]seg{{8, "abc"}, {9, "x"}}), int8(3))
	f.Add(testModule(nil), int8(0))
	img, _, _ := testPclntab()
	f.Add(testModule([]seg{{64, string(img)}}), int8(0))
	f.Fuzz(func(t *testing.T, module []byte, gap int8) {
		for _, drop := range []bool{false, true} {
			in := append([]byte(nil), module...)
			opts := Options{MaxGap: int(gap), DropLineTables: drop}
			out, stats, err := Pack(in, opts)
			if !bytes.Equal(in, module) {
				t.Fatal("Pack changed its input")
			}
			if err != nil {
				if out != nil {
					t.Fatal("Pack returned a module with its error")
				}
				continue
			}
			if stats.SegmentsAfter > stats.SegmentsBefore+bytes.Count(module, []byte{0}) {
				t.Fatalf("%d segments became %d", stats.SegmentsBefore, stats.SegmentsAfter)
			}
			again, _, err := Pack(out, opts)
			if err != nil {
				t.Fatalf("a packed module is refused: %v", err)
			}
			if !bytes.Equal(again, out) {
				t.Fatal("packing a packed module changed it")
			}
			if !drop && !bytes.Equal(imageOf(t, module), imageOf(t, out)) {
				t.Fatal("the memory the module starts with changed")
			}
		}
	})
}

// imageOf returns the memory a module's data section initializes, from address 0, without
// trailing zeros.
func imageOf(t *testing.T, module []byte) []byte {
	sections, err := splitSections(module)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sections {
		if s.id == sectionData {
			img, _, err := readData(s.body)
			if err != nil {
				t.Fatal(err)
			}
			mem := append(make([]byte, img.base), img.bytes...)
			return bytes.TrimRight(mem, "\x00")
		}
	}
	return nil
}
