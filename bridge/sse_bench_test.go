package bridge

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
)

// benchStream builds a chat-like stream of n frames with the given line end.
func benchStream(n int, eol string) []byte {
	var b bytes.Buffer
	for i := range n {
		if i%100 == 0 {
			fmt.Fprintf(&b, ": ping%s", eol)
		}
		fmt.Fprintf(&b, "event: text_delta%sdata: {\"type\":\"textDelta\",\"text\":\"hello world \"}%s%s", eol, eol, eol)
	}
	fmt.Fprintf(&b, "id: done%sevent: done%sdata: {}%s%s", eol, eol, eol, eol)
	return b.Bytes()
}

// benchCase is one stream of the SSE benchmarks.
type benchCase struct {
	name   string
	stream []byte
}

// benchCases are the streams BenchmarkSSEReader reads and, but for the lone
// CR ends, BenchmarkSSELines splits.
func benchCases() []benchCase {
	return []benchCase{
		{"lf", benchStream(1000, "\n")},
		{"crlf", benchStream(1000, "\r\n")},
		{"cr", benchStream(1000, "\r")},
		{"large data", []byte(strings.Repeat("data: "+strings.Repeat("x", 64<<10)+"\n\n", 16))},
	}
}

func BenchmarkSSEReader(b *testing.B) {
	for _, bc := range benchCases() {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.stream)))
			b.ReportAllocs()
			src := bytes.NewReader(bc.stream)
			for b.Loop() {
				src.Reset(bc.stream)
				r := NewSSEReader(src, 0)
				n := 0
				for {
					_, err := r.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					n++
				}
				if n == 0 {
					b.Fatal("no events")
				}
			}
		})
	}
}

// BenchmarkSSELines is the baseline of BenchmarkSSEReader: the same bytes
// split into lines by bufio.Scanner (LF and CRLF ends; it knows no lone CR),
// with no SSE fields, events or strings — the least work any SSE reader
// does. make bench writes the SSE reader's ratio to it beside each figure.
func BenchmarkSSELines(b *testing.B) {
	for _, bc := range benchCases() {
		if bc.name == "cr" {
			continue // bufio.Scanner splits on LF only
		}
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.stream)))
			b.ReportAllocs()
			src := bytes.NewReader(bc.stream)
			for b.Loop() {
				src.Reset(bc.stream)
				s := bufio.NewScanner(src)
				s.Buffer(make([]byte, 0, 32<<10), 1<<20)
				n := 0
				for s.Scan() {
					n += len(s.Bytes())
				}
				if s.Err() != nil || n == 0 {
					b.Fatal(s.Err(), n)
				}
			}
		})
	}
}
