package bridge

import (
	"errors"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// refResult is what the reference parser makes of a whole stream.
type refResult struct {
	events      []SSEEvent
	tooLarge    bool // the stream ended in ErrFrameTooLarge rather than io.EOF
	lastEventID string
	retry       int
	retryOK     bool
}

// refParse is a deliberately plain reading of the WHATWG event-stream rules,
// over the whole input at once, for checking SSEReader against. bound is the
// frame bound: the bytes of a frame's lines, terminators not counted, may
// not exceed it.
func refParse(input string, bound int) refResult {
	input = strings.TrimPrefix(input, "\uFEFF")

	// Split into lines. Whatever follows the last line end is an unfinished
	// line.
	var lines []string
	start := 0
	for i := 0; i < len(input); i++ {
		switch input[i] {
		case '\r':
			lines = append(lines, input[start:i])
			if i+1 < len(input) && input[i+1] == '\n' {
				i++
			}
			start = i + 1
		case '\n':
			lines = append(lines, input[start:i])
			start = i + 1
		}
	}
	unfinished := input[start:]

	var res refResult
	eventType, data := "", ""
	frameSize := 0
	for _, line := range lines {
		if line == "" {
			frameSize = 0
			if data == "" {
				eventType = ""
				continue
			}
			res.events = append(res.events, SSEEvent{
				Event: eventType,
				Data:  strings.TrimSuffix(data, "\n"),
				ID:    res.lastEventID,
			})
			eventType, data = "", ""
			continue
		}
		frameSize += len(line)
		if frameSize > bound {
			res.tooLarge = true
			return res
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		field, value, found := strings.Cut(line, ":")
		if found {
			value = strings.TrimPrefix(value, " ")
		}
		switch field {
		case "event":
			eventType = value
		case "data":
			data += value + "\n"
		case "id":
			if !strings.Contains(value, "\x00") {
				res.lastEventID = value
			}
		case "retry":
			if value != "" && strings.Trim(value, "0123456789") == "" {
				n, err := strconv.Atoi(value)
				if err != nil {
					n = math.MaxInt
				}
				res.retry, res.retryOK = n, true
			}
		}
	}
	if frameSize+len(unfinished) > bound {
		res.tooLarge = true
	}
	return res
}

// fuzzRun reads everything from src and reports it in the reference's form.
func fuzzRun(t *testing.T, src io.Reader, max int) refResult {
	t.Helper()
	r := NewSSEReader(src, max)
	var res refResult
	for {
		ev, err := r.Next()
		if err != nil {
			switch {
			case err == io.EOF:
			case errors.Is(err, ErrFrameTooLarge):
				res.tooLarge = true
			default:
				t.Fatalf("unexpected error %v", err)
			}
			if _, err2 := r.Next(); err2 != err {
				t.Fatalf("error not sticky: %v then %v", err, err2)
			}
			break
		}
		res.events = append(res.events, ev)
	}
	res.lastEventID = r.LastEventID()
	res.retry, res.retryOK = r.Retry()
	return res
}

func FuzzSSEReader(f *testing.F) {
	seeds := []string{
		"",
		"data: a\n\n",
		"data: a\r\n\r\ndata: b\r\n\r\n",
		"data: a\r\rdata: b\r\r",
		"\xEF\xBB\xBFdata: a\n\n",
		"\xEF\xBB\xBF\xEF\xBB\xBFdata: a\n\n",
		"\xEF\xBBdata: a\n\n",
		": comment\nevent: e\ndata: 1\ndata:2\ndata\n\n",
		"id: 1\ndata: a\n\nid: 2\x00\ndata: b\n\nid\n\n",
		"retry: 100\nretry: x\nretry: 99999999999999999999999\n\n",
		"event: text_delta\ndata: {\"type\":\"textDelta\",\"text\":\"hello world \"}\n\n",
		"data: " + strings.Repeat("x", 300) + "\n\n",
		"data: a\n\ndata: b",
		"data: a\r",
		"field\nfoo: bar\ndata : x\n\n",
	}
	for i, s := range seeds {
		f.Add([]byte(s), uint16(i*3), uint8(i*17))
	}
	f.Fuzz(func(t *testing.T, input []byte, split uint16, boundSel uint8) {
		// boundSel 0 uses the default bound through max 0; others make
		// small bounds that fuzzed inputs can actually reach.
		max, bound := int(boundSel), int(boundSel)
		if boundSel == 0 {
			bound = DefaultMaxFrameBytes
		}
		s := string(input)
		at := 0
		if len(s) > 0 {
			at = int(split) % (len(s) + 1)
		}

		whole := fuzzRun(t, strings.NewReader(s), max)
		for _, ev := range whole.events {
			if len(ev.Data) > bound {
				t.Fatalf("event data of %d bytes passed a %d byte bound", len(ev.Data), bound)
			}
		}
		want := refParse(s, bound)
		if !reflect.DeepEqual(whole, want) {
			t.Fatalf("whole read:\n\tgot  %#v\n\twant %#v", whole, want)
		}
		if got := fuzzRun(t, splitReader(s, at), max); !reflect.DeepEqual(got, want) {
			t.Fatalf("split at %d:\n\tgot  %#v\n\twant %#v", at, got, want)
		}
		if got := fuzzRun(t, splitReader(s, at/2, at), max); !reflect.DeepEqual(got, want) {
			t.Fatalf("split at %d and %d:\n\tgot  %#v\n\twant %#v", at/2, at, got, want)
		}
		if got := viewRun(t, splitReader(s, at), max); !reflect.DeepEqual(got, want.events) {
			t.Fatalf("NextView, split at %d:\n\tgot  %#v\n\twant %#v", at, got, want.events)
		}
		if len(s) <= 4096 {
			if got := fuzzRun(t, iotest.OneByteReader(strings.NewReader(s)), max); !reflect.DeepEqual(got, want) {
				t.Fatalf("one byte reads:\n\tgot  %#v\n\twant %#v", got, want)
			}
		}
	})
}
