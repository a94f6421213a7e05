package bridge

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// TestSSEReaderSimpleFrames checks the whole-frame path (simpleFrame)
// against the reference parser: runs of "event:"/"data:" frames mixed with
// frames that must take the line by line path, read whole and split at
// every byte (a frame cut anywhere, a multibyte character cut in two), with
// bounds around the frames' sizes.
func TestSSEReaderSimpleFrames(t *testing.T) {
	delta := "event: text_delta\ndata: {\"text\":\"h\xc3\xa9llo \xe2\x82\xac \"}\n\n"
	cases := []struct {
		name  string
		input string
	}{
		{"deltas", strings.Repeat(delta, 4)},
		{"no spaces", "event:text_delta\ndata:{\"text\":\"a\"}\n\n" + delta},
		{"two spaces", "event:  x\ndata:  y\n\n" + delta},
		{"empty event name", "event:\ndata: a\n\n" + delta},
		{"empty data", "event: e\ndata:\n\n" + delta},
		{"event names change", "event: a\ndata: 1\n\nevent: b\ndata: 2\n\nevent: a\ndata: 3\n\n"},
		{"crlf", "event: a\r\ndata: 1\r\n\r\n" + delta + "event: b\rdata: 2\r\r" + delta},
		{"cr in a value", "event: a\ndata: 1\r2\n\n" + delta},
		{"cr in the next frame", delta + "event: a\ndata: 1\n\r\n" + delta},
		{"id before", "id: 7\n" + delta + delta},
		{"id after", delta + "event: a\ndata: 1\nid: 8\n\n" + delta},
		{"two data lines", "event: a\ndata: 1\ndata: 2\n\n" + delta},
		{"comment first", ": hi\n" + delta + delta},
		{"data first", "data: 1\nevent: a\n\n" + delta},
		{"eventx field", "eventx: a\ndata: 1\n\n" + delta},
		{"datax field", "event: a\ndatax: 1\n\n" + delta},
		{"no blank line at the end", delta + "event: a\ndata: 1\n"},
		{"retry", "retry: 5\n" + delta},
		{"bom", "\xEF\xBB\xBF" + delta + delta},
		{"leading blank lines", "\n\n" + delta},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, bound := range []int{0, 8, 20, 44, 45, 46, 47, 60} {
				ref := bound
				if ref == 0 {
					ref = DefaultMaxFrameBytes
				}
				want := refParse(c.input, ref)
				if got := fuzzRun(t, strings.NewReader(c.input), bound); !reflect.DeepEqual(got, want) {
					t.Fatalf("bound %d, whole:\n\tgot  %#v\n\twant %#v", bound, got, want)
				}
				for at := 0; at <= len(c.input); at++ {
					if got := fuzzRun(t, splitReader(c.input, at), bound); !reflect.DeepEqual(got, want) {
						t.Fatalf("bound %d, split at %d:\n\tgot  %#v\n\twant %#v", bound, at, got, want)
					}
					if got := viewRun(t, splitReader(c.input, at/2, at), bound); !reflect.DeepEqual(got, want.events) {
						t.Fatalf("NextView, bound %d, split at %d and %d:\n\tgot  %#v\n\twant %#v", bound, at/2, at, got, want.events)
					}
				}
			}
		})
	}
}

// viewRun reads every event from src with NextView, copying each one's
// data before the next call, as its callers must.
func viewRun(t *testing.T, src io.Reader, max int) []SSEEvent {
	t.Helper()
	r := NewSSEReader(src, max)
	var events []SSEEvent
	for {
		ev, err := r.NextView()
		if err != nil {
			if err != io.EOF && !errors.Is(err, ErrFrameTooLarge) {
				t.Fatalf("unexpected error %v", err)
			}
			return events
		}
		ev.Data = strings.Clone(ev.Data)
		events = append(events, ev)
	}
}
