// pack.go: Pack, its options and what it reports.

package wasmpack

import (
	"errors"
	"strconv"
)

// DefaultMaxGap is the longest run of zero bytes [Pack] fills between two stretches of data when
// Options.MaxGap is 0. Runs up to a few dozen bytes are what the Go linker's segments are cut at;
// filling longer ones changes the compressed size by little (docs/SIZE.md).
const DefaultMaxGap = 64

// tailZeros is how many zero bytes past its last segment the image is read with when dropping
// line tables: more than the largest runtime._func with its pcdata and funcdata arrays.
const tailZeros = 4096

// Options says what [Pack] does. The zero value merges data segments across zero runs of up to
// DefaultMaxGap bytes and keeps the line tables.
type Options struct {
	// MaxGap is the longest run of zero bytes between two stretches of data that Pack fills in,
	// writing the two as one segment; a longer run ends a segment. 0 means DefaultMaxGap;
	// negative means never fill (every run of zeros ends a segment).
	MaxGap int
	// DropLineTables removes the file and line tables of every function (see the package
	// documentation): a stack trace still names each function, but its place prints as "?:0".
	DropLineTables bool
}

// Stats says what [Pack] did.
type Stats struct {
	// SegmentsBefore and SegmentsAfter count the data segments of the module given and of the
	// module written.
	SegmentsBefore, SegmentsAfter int
	// Functions counts the functions whose line tables were dropped (0 without DropLineTables).
	Functions int
	// LineTableBytes counts the bytes of line and file tables zeroed.
	LineTableBytes int
}

// Pack returns module rewritten as the options say, and what it did. The module must be a
// binary WebAssembly module whose data segments are active segments of memory 0 with constant
// offsets, as the Go linker writes them. On any error Pack returns the error alone: it never
// returns a module it could not rewrite whole.
func Pack(module []byte, opts Options) (packed []byte, stats Stats, err error) {
	sections, err := splitSections(module)
	if err != nil {
		return nil, Stats{}, err
	}
	maxGap := opts.MaxGap
	switch {
	case maxGap == 0:
		maxGap = DefaultMaxGap
	case maxGap < 0:
		maxGap = 0
	}
	data := -1
	for i, s := range sections {
		switch s.id {
		case sectionDataCount:
			return nil, Stats{}, errors.New("wasmpack: the module has a data count section, so its code may name data segments " +
				"by index (memory.init, data.drop), which renumbering them would break; the Go linker writes none")
		case sectionData:
			if data >= 0 {
				return nil, Stats{}, errors.New("wasmpack: the module has two data sections")
			}
			data = i
		}
	}
	if data < 0 {
		if opts.DropLineTables {
			return nil, Stats{}, errors.New("wasmpack: the module has no data section, so no function table whose line tables could be dropped")
		}
		return append([]byte(nil), module...), Stats{}, nil
	}
	img, n, err := readData(sections[data].body)
	if err != nil {
		return nil, Stats{}, err
	}
	stats.SegmentsBefore = n
	if opts.DropLineTables {
		// Memory past the last segment is zeros, which the function table may end in (a
		// function's last funcdata offsets, say): read them as the runtime does.
		img.bytes = append(img.bytes, make([]byte, tailZeros)...)
		stats.Functions, stats.LineTableBytes, err = dropLineTables(img.bytes)
		if err != nil {
			return nil, Stats{}, err
		}
	}
	body, count := writeData(img, maxGap)
	stats.SegmentsAfter = count
	out := append([]section(nil), sections...)
	out[data] = section{id: sectionData, body: body}
	return joinSections(out), stats, nil
}

// String describes the stats in one line, for a build's log.
func (s Stats) String() string {
	line := "data segments " + strconv.Itoa(s.SegmentsBefore) + " → " + strconv.Itoa(s.SegmentsAfter)
	if s.Functions > 0 {
		line += "; line tables of " + strconv.Itoa(s.Functions) + " functions dropped (" + strconv.Itoa(s.LineTableBytes) + " bytes zeroed)"
	}
	return line
}
