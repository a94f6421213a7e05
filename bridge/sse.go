// This file holds SSEReader, a streaming server-sent events (text/event-stream)
// parser that follows the WHATWG "event stream interpretation" rules and bounds
// the memory one event frame may use.

package bridge

import (
	"bytes"
	"errors"
	"io"
	"math"
	"strconv"
	"unsafe"
)

// DefaultMaxFrameBytes is the frame bound used when NewSSEReader gets
// maxFrameBytes <= 0: 4 MiB.
const DefaultMaxFrameBytes = 4 << 20

// ErrFrameTooLarge is returned, wrapped, by [SSEReader.Next] when one event
// frame grows past the reader's size bound. Test for it with errors.Is; the
// wrapping error's text names the bound in bytes.
var ErrFrameTooLarge = errors.New("bridge: server-sent event frame exceeds the size bound")

// sseReadSize is the size of the buffer an SSEReader reads into.
const sseReadSize = 32 << 10

// sseKeepBytes is the largest line or data buffer an SSEReader keeps for
// reuse once the line or event it held is done.
const sseKeepBytes = 256 << 10

// sseMaxEmptyReads is how many consecutive (0, nil) reads Next tolerates
// before it gives up with io.ErrNoProgress, as bufio does.
const sseMaxEmptyReads = 100

// SSEEvent is one dispatched server-sent event.
type SSEEvent struct {
	// Event is the value of the frame's last "event" field, or "" when the
	// frame had none; callers treat "" as "message".
	Event string
	// Data is the values of the frame's "data" fields, joined with "\n".
	Data string
	// ID is the last event ID in effect when the event was dispatched. As in
	// the WHATWG rules it persists across events: a frame without an "id"
	// field carries the ID set by an earlier frame.
	ID string
}

// SSEReader reads server-sent events from a byte stream, one event per call
// to Next.
//
// It follows the WHATWG event-stream interpretation: lines end in LF, CRLF or
// a lone CR (a CR that ends one read and an LF that starts the next are one
// line end); one leading UTF-8 byte order mark is dropped; lines starting with
// ':' are comments; "field:value" lines have one space after the colon
// stripped; the fields event, data, id and retry are understood and any other
// field is ignored; an empty line dispatches the frame collected so far, unless
// it holds no data. Bytes are passed through as they are, without UTF-8
// validation.
//
// The bytes of one frame — every line since the previous empty line, not
// counting line terminators, including a line whose end has not arrived yet —
// may not exceed the bound given to NewSSEReader, so a reader buffers at most
// about that bound plus one 32 KiB read, even when the stream is one endless
// line.
//
// An SSEReader is not safe for concurrent use.
type SSEReader struct {
	src io.Reader
	max int

	buf      []byte // read buffer; buf[pos:end] is not yet consumed
	pos, end int
	lfAt     int // index in buf of the next '\n' at or after pos, end if none; -1 when unknown
	crAt     int // index in buf of the next '\r' at or after pos, end if none; -1 when unknown

	started bool  // the leading byte order mark has been dealt with
	skipLF  bool  // the last line ended in '\r': an immediately following '\n' belongs to it
	readErr error // error from src, reported once buf is drained
	err     error // sticky error returned by every later Next

	line     []byte // a line whose end has not arrived yet
	frameLen int    // bytes of the completed lines of the current frame

	event   []byte // event type buffer
	data    []byte // data buffer
	id      []byte // last event ID buffer
	idStr   string // string(id), valid unless idDirty
	idDirty bool

	lastEvent string // the last dispatched event type, reused when it repeats

	retry   int
	retryOK bool

	view bool // the call is NextView's: Data may share the reader's buffers
}

// NewSSEReader returns a reader that parses server-sent events from r.
// maxFrameBytes bounds the size of one frame (see [SSEReader]); when it is
// <= 0, DefaultMaxFrameBytes is used. NewSSEReader does not read from r.
func NewSSEReader(r io.Reader, maxFrameBytes int) *SSEReader {
	if maxFrameBytes <= 0 {
		maxFrameBytes = DefaultMaxFrameBytes
	}
	return &SSEReader{src: r, max: maxFrameBytes, lfAt: -1, crAt: -1}
}

// Next reads until the next event is dispatched and returns it.
//
// It returns io.EOF, unwrapped, when the stream ends; a frame left unfinished
// at the end of the stream (no empty line after it) is dropped, never
// dispatched. When a frame exceeds the size bound, Next returns an error
// wrapping [ErrFrameTooLarge]; events that were complete before that frame are
// returned first. Any other error from the underlying reader is returned
// wrapped, so errors.Is still finds it (context.Canceled, for one), after the
// events completed by the bytes read before it. Once Next has returned an
// error it returns that same error on every later call without reading more.
func (r *SSEReader) Next() (SSEEvent, error) {
	r.view = false
	return r.next()
}

// NextView is Next for a caller that is done with each event's Data before
// it calls Next or NextView again: Data may then share the reader's
// buffers, which the next call overwrites, so that an event costs no copy
// of its data. The event type and ID are strings of their own, as Next's.
func (r *SSEReader) NextView() (SSEEvent, error) {
	r.view = true
	return r.next()
}

// next is Next, giving views of the buffers when r.view is set.
func (r *SSEReader) next() (SSEEvent, error) {
	if r.err != nil {
		return SSEEvent{}, r.err
	}
	if r.buf == nil {
		r.buf = make([]byte, sseReadSize)
	}
	for {
		if !r.started {
			// The byte order mark may arrive split across reads: wait for
			// three bytes (or the end of the stream) before deciding.
			if r.end-r.pos < 3 && r.readErr == nil {
				if err := r.fill(); err != nil {
					return SSEEvent{}, r.fail(readFailure(err))
				}
				continue
			}
			r.started = true
			if bytes.HasPrefix(r.buf[r.pos:r.end], []byte{0xEF, 0xBB, 0xBF}) {
				r.pos += 3
			}
		}
		for r.pos < r.end {
			if r.skipLF {
				r.skipLF = false
				if r.buf[r.pos] == '\n' {
					r.pos++
					continue
				}
			}
			if len(r.line) == 0 && r.frameLen == 0 {
				if ev, ok := r.simpleFrame(); ok {
					return ev, nil
				}
			}
			eol := r.nextEOL()
			if eol == r.end {
				// The line goes on past this read: keep what there is of it,
				// unless that already makes the frame too large.
				if r.frameLen+len(r.line)+(r.end-r.pos) > r.max {
					return SSEEvent{}, r.fail(r.tooLarge())
				}
				r.line = appendBounded(r.line, r.buf[r.pos:r.end], r.max)
				r.pos = r.end
				break
			}
			line := r.buf[r.pos:eol]
			if len(r.line) > 0 {
				r.line = appendBounded(r.line, line, r.max)
				line = r.line
			}
			if r.frameLen+len(line) > r.max {
				return SSEEvent{}, r.fail(r.tooLarge())
			}
			r.pos = eol + 1
			if r.buf[eol] == '\r' {
				if r.pos < r.end {
					if r.buf[r.pos] == '\n' {
						r.pos++
					}
				} else {
					r.skipLF = true
				}
			}
			ev, ok := r.processLine(line)
			r.line = r.line[:0]
			if cap(r.line) > sseKeepBytes {
				r.line = nil // don't hold on to the memory of one long line
			}
			if ok {
				return ev, nil
			}
		}
		if r.readErr != nil {
			return SSEEvent{}, r.fail(readFailure(r.readErr))
		}
		if err := r.fill(); err != nil {
			return SSEEvent{}, r.fail(readFailure(err))
		}
	}
}

// simpleFrame dispatches the frame at pos, at the start of a frame, when
// the buffer holds all of it and it has the form nearly every frame takes:
// "event:" and "data:" lines and an empty line, each ending in a lone LF,
// within the frame bound. It gives what the line by line path would give
// for those bytes (sse_test.go), and leaves everything as it was when
// ok is false.
func (r *SSEReader) simpleFrame() (_ SSEEvent, ok bool) {
	const eventField, dataField = "event:", "data:"
	b := r.buf[r.pos:r.end]
	if len(b) < len(eventField)+len(dataField)+3 || string(b[:len(eventField)]) != eventField {
		return SSEEvent{}, false
	}
	e1 := bytes.IndexByte(b, '\n')
	if e1 < 0 || len(b)-e1-1 < len(dataField) || string(b[e1+1:e1+1+len(dataField)]) != dataField {
		return SSEEvent{}, false
	}
	e2 := bytes.IndexByte(b[e1+1:], '\n')
	if e2 < 0 {
		return SSEEvent{}, false
	}
	e2 += e1 + 1
	// The frame's bytes, line ends not counted, are e2-1.
	if e2+1 >= len(b) || b[e2+1] != '\n' || e2-1 > r.max {
		return SSEEvent{}, false
	}
	// No CR in the frame: crAt is the next one at or after pos.
	if r.crAt < r.pos {
		r.crAt = indexFrom(r.buf[:r.end], r.pos, '\r')
	}
	if r.crAt-r.pos <= e2+1 {
		return SSEEvent{}, false
	}
	name, data := trimSpace1(b[len(eventField):e1]), trimSpace1(b[e1+1+len(dataField):e2])
	ev := SSEEvent{Data: r.dataString(data), ID: r.idString()}
	if len(name) > 0 {
		if string(name) != r.lastEvent {
			r.lastEvent = string(name)
		}
		ev.Event = r.lastEvent
	}
	r.pos += e2 + 2
	return ev, true
}

// dataString returns an event's data as a string: a view of b, which
// the next call overwrites, for NextView; else a copy.
func (r *SSEReader) dataString(b []byte) string {
	if r.view && len(b) > 0 {
		return unsafe.String(&b[0], len(b))
	}
	return string(b)
}

// trimSpace1 drops one leading space from a field's value.
func trimSpace1(v []byte) []byte {
	if len(v) > 0 && v[0] == ' ' {
		return v[1:]
	}
	return v
}

// LastEventID returns the last event ID buffer: the value of the last valid
// "id" field read so far, including one from a frame that was never
// dispatched, or "" when there was none.
func (r *SSEReader) LastEventID() string {
	return r.idString()
}

// Retry returns the reconnection time, in milliseconds, from the last valid
// "retry" field read so far; ok is false when there was none. A value is
// valid when it is one or more ASCII digits; other values are ignored. A value
// too large for an int yields math.MaxInt.
func (r *SSEReader) Retry() (ms int, ok bool) {
	return r.retry, r.retryOK
}

// fill reads more bytes into buf after the unconsumed ones. A read error is
// kept in readErr, to be reported once the bytes read with it are consumed;
// fill itself fails only when the reader makes no progress.
func (r *SSEReader) fill() error {
	if r.pos == r.end {
		r.pos, r.end = 0, 0
	}
	r.lfAt, r.crAt = -1, -1
	for range sseMaxEmptyReads {
		n, err := r.src.Read(r.buf[r.end:])
		if n < 0 || n > len(r.buf)-r.end {
			return errors.New("the source returned an invalid byte count")
		}
		r.end += n
		if err != nil {
			r.readErr = err
			return nil
		}
		if n > 0 {
			return nil
		}
	}
	return io.ErrNoProgress
}

// nextEOL returns the index in buf of the next '\r' or '\n' at or after pos,
// or end when there is none. It remembers where each byte was last found so
// that a stream of many short lines ending in only one of them is still
// scanned once, not once per line.
func (r *SSEReader) nextEOL() int {
	if r.lfAt < r.pos {
		r.lfAt = indexFrom(r.buf[:r.end], r.pos, '\n')
	}
	if r.crAt < r.pos {
		r.crAt = indexFrom(r.buf[:r.end], r.pos, '\r')
	}
	return min(r.lfAt, r.crAt)
}

// indexFrom returns the index of the first c in b[from:], as an index into b,
// or len(b) when there is none.
func indexFrom(b []byte, from int, c byte) int {
	if i := bytes.IndexByte(b[from:], c); i >= 0 {
		return from + i
	}
	return len(b)
}

// readFailure returns the error Next reports for err from the underlying
// reader: io.EOF as it is, anything else wrapped.
func readFailure(err error) error {
	if err == io.EOF {
		return err
	}
	return wrap("bridge: reading server-sent events", err)
}

// fail makes err sticky, drops the reader's buffers and returns err.
func (r *SSEReader) fail(err error) error {
	r.err = err
	r.readErr = nil
	r.line, r.event, r.data = nil, nil, nil
	r.buf = nil
	r.pos, r.end = 0, 0
	return err
}

// tooLarge returns the frame bound error for this reader.
func (r *SSEReader) tooLarge() error {
	return &wrapError{msg: ErrFrameTooLarge.Error() + " of " + strconv.Itoa(r.max) + " bytes", cause: ErrFrameTooLarge}
}

// processLine applies one complete line, without its terminator, to the
// frame. It returns the event and true when the line dispatched one.
func (r *SSEReader) processLine(line []byte) (SSEEvent, bool) {
	if len(line) == 0 {
		r.frameLen = 0
		return r.dispatch()
	}
	r.frameLen += len(line)
	if line[0] == ':' {
		return SSEEvent{}, false
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "event":
		r.event = append(r.event[:0], value...)
	case "data":
		r.data = appendBounded(r.data, value, r.max)
		r.data = appendBounded(r.data, []byte{'\n'}, r.max)
	case "id":
		if bytes.IndexByte(value, 0) < 0 && !bytes.Equal(value, r.id) {
			r.id = append(r.id[:0], value...)
			r.idDirty = true
		}
	case "retry":
		if ms, ok := parseRetry(value); ok {
			r.retry, r.retryOK = ms, true
		}
	}
	return SSEEvent{}, false
}

// dispatch ends the frame: it returns the event when the data buffer holds
// anything, and empties the event type and data buffers either way.
func (r *SSEReader) dispatch() (SSEEvent, bool) {
	if len(r.data) == 0 {
		r.event = r.event[:0]
		return SSEEvent{}, false
	}
	ev := SSEEvent{
		Event: r.eventString(),
		Data:  r.dataString(r.data[:len(r.data)-1]),
		ID:    r.idString(),
	}
	r.event = r.event[:0]
	r.data = r.data[:0]
	if cap(r.data) > sseKeepBytes {
		r.data = nil // don't hold on to the memory of one large event
	}
	return ev, true
}

// eventString returns the event type buffer as a string, reusing the last
// one built when the type repeats, as it usually does.
func (r *SSEReader) eventString() string {
	if len(r.event) == 0 {
		return ""
	}
	if string(r.event) != r.lastEvent {
		r.lastEvent = string(r.event)
	}
	return r.lastEvent
}

// idString returns the last event ID buffer as a string, building it only
// when the ID changed since it was last built.
func (r *SSEReader) idString() string {
	if r.idDirty {
		r.idStr = string(r.id)
		r.idDirty = false
	}
	return r.idStr
}

// appendBounded appends src to dst like append, except that when it must
// grow dst it never makes the capacity larger than limit unless the result
// needs more, so that a buffer that holds at most limit bytes never takes
// up to twice that.
func appendBounded(dst, src []byte, limit int) []byte {
	n := len(dst) + len(src)
	if n <= cap(dst) {
		return append(dst, src...)
	}
	c := max(2*cap(dst), n, 512)
	if c > limit {
		c = max(limit, n)
	}
	grown := make([]byte, len(dst), c)
	copy(grown, dst)
	return append(grown, src...)
}

// parseRetry parses a retry field value: one or more ASCII digits, read in
// base ten and saturating at math.MaxInt. ok is false for anything else.
func parseRetry(v []byte) (ms int, ok bool) {
	if len(v) == 0 {
		return 0, false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		if d := int(c - '0'); ms > (math.MaxInt-d)/10 {
			ms = math.MaxInt
		} else {
			ms = ms*10 + d
		}
	}
	return ms, true
}
