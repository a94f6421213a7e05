package bridge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// readAllEvents calls Next until it fails and returns the events and the
// error that ended the stream.
func readAllEvents(t testing.TB, r *SSEReader) ([]SSEEvent, error) {
	t.Helper()
	var evs []SSEEvent
	for i := 0; ; i++ {
		ev, err := r.Next()
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
		if i > 1<<20 {
			t.Fatal("Next never stopped")
		}
	}
}

// partsReader returns its parts one Read at a time (a part larger than the
// caller's buffer takes several reads), then err, or io.EOF when err is nil.
type partsReader struct {
	parts [][]byte
	err   error
	reads int
}

func (p *partsReader) Read(b []byte) (int, error) {
	p.reads++
	for len(p.parts) > 0 && len(p.parts[0]) == 0 {
		p.parts = p.parts[1:]
	}
	if len(p.parts) == 0 {
		if p.err != nil {
			return 0, p.err
		}
		return 0, io.EOF
	}
	n := copy(b, p.parts[0])
	p.parts[0] = p.parts[0][n:]
	return n, nil
}

func splitReader(s string, at ...int) *partsReader {
	p := &partsReader{}
	prev := 0
	for _, i := range at {
		p.parts = append(p.parts, []byte(s[prev:i]))
		prev = i
	}
	p.parts = append(p.parts, []byte(s[prev:]))
	return p
}

// endlessReader returns the same byte forever, counting what it hands out.
type endlessReader struct {
	c     byte
	total int
}

func (e *endlessReader) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = e.c
	}
	e.total += len(b)
	return len(b), nil
}

// countingReader counts the calls to Read of the reader it wraps.
type countingReader struct {
	r     io.Reader
	reads int
}

func (c *countingReader) Read(b []byte) (int, error) {
	c.reads++
	return c.r.Read(b)
}

type sseCase struct {
	name    string
	input   string
	max     int // 0: DefaultMaxFrameBytes
	want    []SSEEvent
	wantErr error // nil: io.EOF
	wantID  string
}

var sseCases = []sseCase{
	{name: "empty stream", input: ""},
	{name: "lf", input: "data: a\n\ndata: b\n\n",
		want: []SSEEvent{{Data: "a"}, {Data: "b"}}},
	{name: "crlf", input: "data: a\r\n\r\ndata: b\r\n\r\n",
		want: []SSEEvent{{Data: "a"}, {Data: "b"}}},
	{name: "lone cr", input: "data: a\r\rdata: b\r\r",
		want: []SSEEvent{{Data: "a"}, {Data: "b"}}},
	{name: "mixed line ends", input: "data: a\rdata: b\r\ndata: c\n\r\n" + "event: e\r\rdata: d\n\r",
		want: []SSEEvent{{Data: "a\nb\nc"}, {Data: "d"}}},
	{name: "cr lf cr is two line ends", input: "data: a\r\n\rdata: b\n\n",
		want: []SSEEvent{{Data: "a"}, {Data: "b"}}},
	{name: "lf cr is two line ends", input: "data: a\n\rdata: b\n\n",
		want: []SSEEvent{{Data: "a"}, {Data: "b"}}},
	{name: "bom at start dropped", input: "\xEF\xBB\xBFdata: a\n\n",
		want: []SSEEvent{{Data: "a"}}},
	{name: "bom alone", input: "\xEF\xBB\xBF"},
	{name: "only the first bom dropped", input: "\xEF\xBB\xBF\xEF\xBB\xBFdata: a\n\ndata: b\n\n",
		want: []SSEEvent{{Data: "b"}}}, // the second BOM makes the field name "\uFEFFdata"
	{name: "bom in a later line kept", input: "data: a\n\n\xEF\xBB\xBFdata: b\n\ndata: \xEF\xBB\xBFc\n\n",
		want: []SSEEvent{{Data: "a"}, {Data: "\xEF\xBB\xBFc"}}},
	{name: "partial bom kept", input: "\xEF\xBBdata: a\n\ndata: b\n\n",
		want: []SSEEvent{{Data: "b"}}},
	{name: "short input that is not a bom", input: "\xEF\n",
		want: nil},
	{name: "comments ignored", input: ": hello\n:\ndata: a\n: between\ndata: b\n\n",
		want: []SSEEvent{{Data: "a\nb"}}},
	{name: "comment only frame not dispatched", input: ": keepalive\n\n: again\n\n"},
	{name: "one space stripped", input: "data:  a\n\n",
		want: []SSEEvent{{Data: " a"}}},
	{name: "no space after colon", input: "data:a\n\n",
		want: []SSEEvent{{Data: "a"}}},
	{name: "tab not stripped", input: "data:\ta\n\n",
		want: []SSEEvent{{Data: "\ta"}}},
	{name: "trailing spaces kept", input: "data: a  \n\n",
		want: []SSEEvent{{Data: "a  "}}},
	{name: "colon in value kept", input: "data: a: b:c\n\n",
		want: []SSEEvent{{Data: "a: b:c"}}},
	{name: "multi-line data", input: "data: a\ndata:\ndata: c\n\n",
		want: []SSEEvent{{Data: "a\n\nc"}}},
	{name: "event name", input: "event: add\ndata: 1\n\ndata: 2\n\n",
		want: []SSEEvent{{Event: "add", Data: "1"}, {Data: "2"}}},
	{name: "last event field wins", input: "event: a\nevent: b\ndata: x\n\n",
		want: []SSEEvent{{Event: "b", Data: "x"}}},
	{name: "event without data reset by blank line", input: "event: a\n\ndata: x\n\n",
		want: []SSEEvent{{Data: "x"}}},
	{name: "empty event field", input: "event: a\nevent\ndata: x\n\n",
		want: []SSEEvent{{Data: "x"}}},
	{name: "id persists", input: "id: 1\ndata: a\n\ndata: b\n\nid: 2\ndata: c\n\n",
		want: []SSEEvent{{Data: "a", ID: "1"}, {Data: "b", ID: "1"}, {Data: "c", ID: "2"}}, wantID: "2"},
	{name: "empty id resets", input: "id: 1\ndata: a\n\nid\ndata: b\n\n",
		want: []SSEEvent{{Data: "a", ID: "1"}, {Data: "b"}}},
	{name: "id with nul ignored", input: "id: 1\ndata: a\n\nid: 2\x003\ndata: b\n\n",
		want: []SSEEvent{{Data: "a", ID: "1"}, {Data: "b", ID: "1"}}, wantID: "1"},
	{name: "id from undispatched frame", input: "id: 7\n\ndata: a\n\n",
		want: []SSEEvent{{Data: "a", ID: "7"}}, wantID: "7"},
	{name: "id of unfinished frame counts", input: "data: a\n\nid: 9\ndata: b\n",
		want: []SSEEvent{{Data: "a"}}, wantID: "9"},
	{name: "id set after data still applies", input: "data: a\nid: 5\n\n",
		want: []SSEEvent{{Data: "a", ID: "5"}}, wantID: "5"},
	{name: "retry lines are not data", input: "retry: 1000\ndata: a\n\nretry: x\n\n",
		want: []SSEEvent{{Data: "a"}}},
	{name: "field without colon", input: "data\n\n",
		want: []SSEEvent{{Data: ""}}},
	{name: "two bare data lines", input: "data\ndata\n\n",
		want: []SSEEvent{{Data: "\n"}}},
	{name: "data with empty value", input: "data:\n\n",
		want: []SSEEvent{{Data: ""}}},
	{name: "unknown fields ignored", input: "foo: bar\nDATA: x\ndata : y\nevent: e\ndata: z\n\n",
		want: []SSEEvent{{Event: "e", Data: "z"}}},
	{name: "empty frames not dispatched", input: "\n\n\n\r\n\rdata: a\n\n\n\n",
		want: []SSEEvent{{Data: "a"}}},
	{name: "unfinished frame dropped", input: "data: a\n\ndata: b\n",
		want: []SSEEvent{{Data: "a"}}},
	{name: "unfinished line dropped", input: "data: a\n\ndata: b",
		want: []SSEEvent{{Data: "a"}}},
	{name: "trailing cr ends the line", input: "data: a\r\r",
		want: []SSEEvent{{Data: "a"}}},
	{name: "frame at the bound", input: "data: " + strings.Repeat("x", 58) + "\n\n", max: 64,
		want: []SSEEvent{{Data: strings.Repeat("x", 58)}}},
	{name: "frame over the bound", input: "data: " + strings.Repeat("x", 59) + "\n\n", max: 64,
		wantErr: ErrFrameTooLarge},
	{name: "lines add up past the bound", input: "data: 0123456789\n: 0123456789012345678901234567890123456789\ndata: 12\n\n", max: 64,
		wantErr: ErrFrameTooLarge},
	{name: "bound counts each frame anew", input: strings.Repeat("data: "+strings.Repeat("x", 50)+"\n\n", 5), max: 64,
		want: []SSEEvent{{Data: strings.Repeat("x", 50)}, {Data: strings.Repeat("x", 50)}, {Data: strings.Repeat("x", 50)}, {Data: strings.Repeat("x", 50)}, {Data: strings.Repeat("x", 50)}}},
	{name: "bound applies to dropped frames", input: "event: " + strings.Repeat("x", 100) + "\n\n", max: 64,
		wantErr: ErrFrameTooLarge},
	{name: "bound applies to unfinished frame", input: "data: a\n\ndata: " + strings.Repeat("x", 100), max: 64,
		want: []SSEEvent{{Data: "a"}}, wantErr: ErrFrameTooLarge},
	{name: "small frames before a big one", input: "data: a\n\ndata: b\n\ndata: " + strings.Repeat("x", 100) + "\n\ndata: c\n\n", max: 64,
		want: []SSEEvent{{Data: "a"}, {Data: "b"}}, wantErr: ErrFrameTooLarge},
	{name: "realistic", input: "event: text_delta\nid: 1\ndata: {\"text\":\"hi\"}\n\n: ping\n\nevent: done\ndata: {}\n\n",
		want: []SSEEvent{{Event: "text_delta", Data: `{"text":"hi"}`, ID: "1"}, {Event: "done", Data: "{}", ID: "1"}}, wantID: "1"},
}

// checkCase reads c.input from src and compares the outcome with c.
func checkCase(t *testing.T, c sseCase, how string, src io.Reader) {
	t.Helper()
	r := NewSSEReader(src, c.max)
	got, err := readAllEvents(t, r)
	wantErr := c.wantErr
	if wantErr == nil {
		wantErr = io.EOF
	}
	if !errors.Is(err, wantErr) {
		t.Errorf("%s: error = %v, want %v", how, err, wantErr)
	}
	if wantErr == io.EOF && err != io.EOF {
		t.Errorf("%s: end of stream error = %#v, want bare io.EOF", how, err)
	}
	if !reflect.DeepEqual(got, c.want) {
		t.Errorf("%s: events =\n\t%q\nwant\n\t%q", how, got, c.want)
	}
	if c.wantID != "" && r.LastEventID() != c.wantID {
		t.Errorf("%s: LastEventID() = %q, want %q", how, r.LastEventID(), c.wantID)
	}
}

func TestSSEReaderCases(t *testing.T) {
	for _, c := range sseCases {
		t.Run(c.name, func(t *testing.T) {
			checkCase(t, c, "whole", strings.NewReader(c.input))
			checkCase(t, c, "one byte", iotest.OneByteReader(strings.NewReader(c.input)))
			checkCase(t, c, "half", iotest.HalfReader(strings.NewReader(c.input)))
			checkCase(t, c, "data with EOF", iotest.DataErrReader(strings.NewReader(c.input)))
			for i := 0; i <= len(c.input); i++ {
				checkCase(t, c, fmt.Sprintf("split at %d", i), splitReader(c.input, i))
			}
		})
	}
}

// TestSSEReaderCRLFAcrossReads pins the rule that a CR ending one read and an
// LF starting the next are one line end, not a line end and an empty line.
func TestSSEReaderCRLFAcrossReads(t *testing.T) {
	tests := []struct {
		name  string
		parts []string
		want  []SSEEvent
	}{
		{"crlf split", []string{"data: a\r", "\ndata: b\n\n"}, []SSEEvent{{Data: "a\nb"}}},
		{"crlf split, blank line", []string{"data: a\r\n\r", "\ndata: b\r\n\r\n"}, []SSEEvent{{Data: "a"}, {Data: "b"}}},
		{"cr then empty reads then lf", []string{"data: a\r", "", "", "\ndata: b\n\n"}, []SSEEvent{{Data: "a\nb"}}},
		{"cr at end of read, then cr", []string{"data: a\r", "\rdata: b\n\n"}, []SSEEvent{{Data: "a"}, {Data: "b"}}},
		{"cr at end of read, then text", []string{"data: a\r", "data: b\n\n"}, []SSEEvent{{Data: "a\nb"}}},
		{"bom split three ways", []string{"\xEF", "\xBB", "\xBFdata: a\n\n"}, []SSEEvent{{Data: "a"}}},
		{"bom split after two", []string{"\xEF\xBB", "\xBFdata: a\n\n"}, []SSEEvent{{Data: "a"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &partsReader{}
			for _, s := range tt.parts {
				p.parts = append(p.parts, []byte(s))
			}
			got, err := readAllEvents(t, NewSSEReader(p, 0))
			if err != io.EOF {
				t.Errorf("error = %v, want io.EOF", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("events = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestSSEReaderLongFrames crosses the 32 KiB read buffer with single lines
// and frames, on either side of the bound.
func TestSSEReaderLongFrames(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 10<<10) // 160 KiB
	tests := []struct {
		name    string
		input   string
		max     int
		want    []SSEEvent
		wantErr error
	}{
		{"long line under default bound", "data: " + big + "\n\n", 0,
			[]SSEEvent{{Data: big}}, io.EOF},
		{"long line crlf", "event: x\r\ndata: " + big + "\r\ndata: " + big + "\r\n\r\n", 0,
			[]SSEEvent{{Event: "x", Data: big + "\n" + big}}, io.EOF},
		{"long line exactly at bound", "data: " + big + "\n\n", len("data: ") + len(big),
			[]SSEEvent{{Data: big}}, io.EOF},
		{"long line one over bound", "data: " + big + "\n\n", len("data: ") + len(big) - 1,
			nil, ErrFrameTooLarge},
		{"many lines over bound", strings.Repeat("data: "+big[:1000]+"\n", 200) + "\n", 100 << 10,
			nil, ErrFrameTooLarge},
		{"many lines under bound", strings.Repeat("data: "+big[:1000]+"\n", 200) + "\n", 300 << 10,
			[]SSEEvent{{Data: strings.TrimSuffix(strings.Repeat(big[:1000]+"\n", 200), "\n")}}, io.EOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for how, src := range map[string]io.Reader{
				"whole": strings.NewReader(tt.input),
				"half":  iotest.HalfReader(strings.NewReader(tt.input)),
				"odd":   splitReader(tt.input, 7, 32<<10+1, 65<<10+3),
			} {
				got, err := readAllEvents(t, NewSSEReader(src, tt.max))
				if !errors.Is(err, tt.wantErr) {
					t.Errorf("%s: error = %v, want %v", how, err, tt.wantErr)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("%s: got %d events, want %d (or different data)", how, len(got), len(tt.want))
				}
			}
		})
	}
}

func TestSSEReaderFrameTooLarge(t *testing.T) {
	r := NewSSEReader(strings.NewReader("data: "+strings.Repeat("x", 65)+"\n\n"), 64)
	_, err := r.Next()
	if !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("error = %v, want ErrFrameTooLarge", err)
	}
	if !strings.Contains(err.Error(), "64 bytes") {
		t.Errorf("error %q does not name the bound", err)
	}
}

// TestSSEReaderEndlessLine feeds one line that never ends: the reader must
// give up with ErrFrameTooLarge after reading little more than the bound.
func TestSSEReaderEndlessLine(t *testing.T) {
	for _, max := range []int{64, 100 << 10, 0} {
		t.Run(fmt.Sprint(max), func(t *testing.T) {
			src := &endlessReader{c: 'a'}
			_, err := NewSSEReader(src, max).Next()
			if !errors.Is(err, ErrFrameTooLarge) {
				t.Fatalf("error = %v, want ErrFrameTooLarge", err)
			}
			bound := max
			if bound <= 0 {
				bound = DefaultMaxFrameBytes
			}
			if limit := bound + sseReadSize; src.total > limit {
				t.Errorf("read %d bytes before failing, want at most %d", src.total, limit)
			}
		})
	}
	t.Run("endless frame of short lines", func(t *testing.T) {
		src := io.MultiReader(strings.NewReader("data: x\n"), &repeatReader{pattern: ":\r\n"})
		_, err := NewSSEReader(src, 1000).Next()
		if !errors.Is(err, ErrFrameTooLarge) {
			t.Fatalf("error = %v, want ErrFrameTooLarge", err)
		}
	})
	t.Run("endless blank lines are fine", func(t *testing.T) {
		src := io.MultiReader(io.LimitReader(&repeatReader{pattern: "\r\n"}, 1<<20), strings.NewReader("data: x\n\n"))
		got, err := readAllEvents(t, NewSSEReader(src, 10))
		if err != io.EOF || !reflect.DeepEqual(got, []SSEEvent{{Data: "x"}}) {
			t.Fatalf("events %q, error %v", got, err)
		}
	})
}

// repeatReader returns its pattern over and over.
type repeatReader struct {
	pattern string
	off     int
}

func (p *repeatReader) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = p.pattern[p.off]
		p.off = (p.off + 1) % len(p.pattern)
	}
	return len(b), nil
}

// TestSSEReaderFrameBoundMemory checks that a failing frame does not make
// the reader allocate much more than the bound.
func TestSSEReaderFrameBoundMemory(t *testing.T) {
	const max = 1 << 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := NewSSEReader(&endlessReader{c: 'a'}, max).Next()
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrFrameTooLarge) {
		t.Fatal(err)
	}
	// Growing the line buffer by doubling allocates about twice the bound
	// in all; the buffer itself never holds more than the bound.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 3*max {
		t.Errorf("allocated %d bytes for a %d byte bound", alloc, max)
	}
}

func TestSSEReaderStickyErrors(t *testing.T) {
	t.Run("frame too large", func(t *testing.T) {
		src := &countingReader{r: strings.NewReader("data: a\n\ndata: " + strings.Repeat("x", 100) + "\n\ndata: b\n\n")}
		r := NewSSEReader(src, 64)
		if ev, err := r.Next(); err != nil || ev.Data != "a" {
			t.Fatalf("first Next = %q, %v", ev, err)
		}
		_, err := r.Next()
		if !errors.Is(err, ErrFrameTooLarge) {
			t.Fatalf("second Next error = %v, want ErrFrameTooLarge", err)
		}
		reads := src.reads
		for range 3 {
			ev, err2 := r.Next()
			if err2 != err || ev != (SSEEvent{}) {
				t.Errorf("later Next = %q, %v, want the same error %v", ev, err2, err)
			}
		}
		if src.reads != reads {
			t.Errorf("Next read %d more times after failing", src.reads-reads)
		}
	})
	t.Run("read error", func(t *testing.T) {
		boom := errors.New("boom")
		src := &countingReader{r: iotest.ErrReader(boom)}
		r := NewSSEReader(src, 0)
		_, err := r.Next()
		if !errors.Is(err, boom) {
			t.Fatalf("error = %v, want %v", err, boom)
		}
		reads := src.reads
		for range 3 {
			if _, err2 := r.Next(); err2 != err {
				t.Errorf("later Next error = %v, want %v", err2, err)
			}
		}
		if src.reads != reads {
			t.Errorf("Next read %d more times after failing", src.reads-reads)
		}
	})
	t.Run("eof", func(t *testing.T) {
		src := &countingReader{r: strings.NewReader("data: a\n\n")}
		r := NewSSEReader(src, 0)
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if _, err := r.Next(); err != io.EOF {
				t.Fatalf("error = %v, want io.EOF", err)
			}
		}
		if src.reads > 2 {
			t.Errorf("read %d times, want 2", src.reads)
		}
	})
}

func TestSSEReaderReadErrors(t *testing.T) {
	tests := []struct {
		name string
		src  func() io.Reader
		err  error
		want []SSEEvent
	}{
		{"error at once", func() io.Reader { return iotest.ErrReader(context.Canceled) },
			context.Canceled, nil},
		{"events then error", func() io.Reader {
			return &partsReader{parts: [][]byte{[]byte("data: a\n\ndata: b\n\ndata: unfinished\n")}, err: context.Canceled}
		}, context.Canceled, []SSEEvent{{Data: "a"}, {Data: "b"}}},
		{"error with the last bytes", func() io.Reader {
			return io.MultiReader(strings.NewReader("data: a\n"), &dataErrReader{data: "\n", err: context.DeadlineExceeded})
		}, context.DeadlineExceeded, []SSEEvent{{Data: "a"}}},
		{"unexpected eof", func() io.Reader {
			return io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(io.ErrUnexpectedEOF))
		}, io.ErrUnexpectedEOF, []SSEEvent{{Data: "a"}}},
		{"timeout mid bom", func() io.Reader {
			return io.MultiReader(strings.NewReader("\xEF\xBB"), iotest.ErrReader(iotest.ErrTimeout))
		}, iotest.ErrTimeout, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readAllEvents(t, NewSSEReader(tt.src(), 0))
			if !errors.Is(err, tt.err) {
				t.Errorf("error = %v, want one wrapping %v", err, tt.err)
			}
			if tt.err != io.EOF && err == tt.err {
				t.Errorf("error %v was not wrapped", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("events = %q, want %q", got, tt.want)
			}
		})
	}
}

// dataErrReader returns data and err from the same Read.
type dataErrReader struct {
	data string
	err  error
}

func (d *dataErrReader) Read(b []byte) (int, error) {
	n := copy(b, d.data)
	d.data = d.data[n:]
	if d.data == "" {
		return n, d.err
	}
	return n, nil
}

// zeroReader returns (0, nil) forever.
type zeroReader struct{}

func (zeroReader) Read([]byte) (int, error) { return 0, nil }

func TestSSEReaderNoProgress(t *testing.T) {
	_, err := NewSSEReader(zeroReader{}, 0).Next()
	if !errors.Is(err, io.ErrNoProgress) {
		t.Errorf("error = %v, want io.ErrNoProgress", err)
	}
}

func TestSSEReaderLastEventID(t *testing.T) {
	r := NewSSEReader(strings.NewReader("id: 1\ndata: a\n\nid: 2\n\nid: x\x00y\n\ndata: b\n\nid: 3\ndata: c\n"), 0)
	if got := r.LastEventID(); got != "" {
		t.Errorf("LastEventID before reading = %q, want empty", got)
	}
	steps := []struct {
		ev     SSEEvent
		lastID string
	}{
		{SSEEvent{Data: "a", ID: "1"}, "1"},
		{SSEEvent{Data: "b", ID: "2"}, "2"}, // id 2 came in a frame without data; the NUL id was ignored
	}
	for i, s := range steps {
		ev, err := r.Next()
		if err != nil {
			t.Fatalf("Next %d: %v", i, err)
		}
		if ev != s.ev {
			t.Errorf("Next %d = %q, want %q", i, ev, s.ev)
		}
		if got := r.LastEventID(); got != s.lastID {
			t.Errorf("LastEventID after %d = %q, want %q", i, got, s.lastID)
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("final Next: %v, want io.EOF", err)
	}
	if got := r.LastEventID(); got != "3" {
		t.Errorf("LastEventID at the end = %q, want %q (from the unfinished frame)", got, "3")
	}
}

func TestSSEReaderRetry(t *testing.T) {
	tests := []struct {
		name   string
		input  string
		wantMS int
		wantOK bool
	}{
		{"none", "data: a\n\n", 0, false},
		{"valid", "retry: 1500\n\n", 1500, true},
		{"zero", "retry: 0\n\n", 0, true},
		{"no space", "retry:250\n\n", 250, true},
		{"leading zeros", "retry: 007\n\n", 7, true},
		{"last valid wins", "retry: 10\n\nretry: 20\n\n", 20, true},
		{"invalid ignored", "retry: 10\n\nretry: 2x\n\n", 10, true},
		{"empty ignored", "retry: 10\nretry:\nretry\n\n", 10, true},
		{"sign ignored", "retry: -5\nretry: +5\n\n", 0, false},
		{"space inside ignored", "retry: 1 2\n\n", 0, false},
		{"two spaces ignored", "retry:  12\n\n", 0, false},
		{"decimal ignored", "retry: 1.5\n\n", 0, false},
		{"non-ascii digit ignored", "retry: \u0661\n\n", 0, false},
		{"huge saturates", "retry: 99999999999999999999999999\n\n", math.MaxInt, true},
		{"unfinished frame counts", "retry: 42\n", 42, true},
		{"unfinished line does not", "retry: 42", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewSSEReader(strings.NewReader(tt.input), 0)
			if _, ok := r.Retry(); ok {
				t.Fatal("Retry reported a value before reading")
			}
			if _, err := readAllEvents(t, r); err != io.EOF {
				t.Fatalf("error = %v", err)
			}
			ms, ok := r.Retry()
			if ms != tt.wantMS || ok != tt.wantOK {
				t.Errorf("Retry() = %d, %v, want %d, %v", ms, ok, tt.wantMS, tt.wantOK)
			}
		})
	}
}

func TestSSEReaderDefaultBound(t *testing.T) {
	for _, max := range []int{0, -1} {
		// One byte over the default bound fails; exactly the bound passes.
		line := "data: " + strings.Repeat("x", DefaultMaxFrameBytes-len("data: "))
		got, err := readAllEvents(t, NewSSEReader(strings.NewReader(line+"\n\n"), max))
		if err != io.EOF || len(got) != 1 || len(got[0].Data) != DefaultMaxFrameBytes-len("data: ") {
			t.Errorf("max %d, frame at the bound: %d events, error %v", max, len(got), err)
		}
		_, err = readAllEvents(t, NewSSEReader(strings.NewReader(line+"x\n\n"), max))
		if !errors.Is(err, ErrFrameTooLarge) {
			t.Errorf("max %d, frame over the bound: error %v, want ErrFrameTooLarge", max, err)
		}
	}
}

// TestSSEReaderEventStringsReused checks that dispatched events do not share
// memory with the reader's buffers, which are reused for later frames.
func TestSSEReaderEventStringsReused(t *testing.T) {
	input := "event: aaaa\nid: 1111\ndata: xxxx\n\nevent: bbbb\nid: 2222\ndata: yyyy\n\n"
	r := NewSSEReader(iotest.OneByteReader(bytes.NewReader([]byte(input))), 0)
	first, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	if want := (SSEEvent{Event: "aaaa", Data: "xxxx", ID: "1111"}); first != want {
		t.Errorf("first event changed to %q, want %q", first, want)
	}
}
