// Resumption of an MCP request's event stream (Streamable HTTP, SEP-1699):
// a Fetcher wrapper that, when the event stream answering a POST ends before
// the response to the request arrived, waits the stream's retry delay and
// reconnects with GET and Last-Event-ID, splicing the new stream onto the
// old one so Client reads one uninterrupted stream.

package mcpclient

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/internal/jsonr"
	"github.com/agentwasm/agentwasm/internal/mcp"
)

// Defaults of ResumingFetcher.
const (
	// DefaultResumeAttempts bounds the reconnections of one request.
	DefaultResumeAttempts = 5
	// DefaultResumeDelay is the reconnection delay when the stream set
	// no retry field.
	DefaultResumeDelay = time.Second
)

// ResumingFetcher wraps a bridge.Fetcher for Client (Config.Fetcher). A
// POST carrying a JSON-RPC request whose answer is an event stream is
// watched: when the stream ends gracefully before the response with the
// request's id, after at least one event with an id, the fetcher waits the
// delay of the stream's last retry field (else DefaultDelay) and sends GET
// to the same URL with Last-Event-ID, the session id, the protocol version
// and the authorization of the POST. The events of the new stream continue
// the old one. Other requests and answers pass through untouched.
type ResumingFetcher struct {
	// Fetcher sends every request [bridge.DefaultFetcher()].
	Fetcher bridge.Fetcher
	// MaxAttempts bounds the reconnections of one request
	// [DefaultResumeAttempts].
	MaxAttempts int
	// DefaultDelay is the delay before reconnecting when the stream set no
	// retry field [DefaultResumeDelay].
	DefaultDelay time.Duration
	// Clock waits out the delays [the system clock].
	Clock Clock
}

// Fetch sends req and, for a POST answered with an event stream, returns a
// response whose body resumes the stream when it ends early.
func (f *ResumingFetcher) Fetch(ctx context.Context, req *bridge.Request) (*bridge.Response, error) {
	inner := f.Fetcher
	if inner == nil {
		inner = bridge.DefaultFetcher()
	}
	resp, err := inner.Fetch(ctx, req)
	if err != nil || resp == nil || resp.Body == nil || !strings.EqualFold(req.Method, "POST") ||
		!ok2xx(resp.Status) || resp.Header == nil || !mcp.IsEventStream(resp.Header.Get("content-type")) {
		return resp, err
	}
	m, ok := mcp.ReadMessage(req.Body)
	if !ok || m.Method == "" || len(jsonr.TrimSpace(m.ID)) == 0 {
		return resp, nil // not a request: nothing to wait for
	}
	attempts, delay := f.MaxAttempts, f.DefaultDelay
	if attempts <= 0 {
		attempts = DefaultResumeAttempts
	}
	if delay <= 0 {
		delay = DefaultResumeDelay
	}
	clock := f.Clock
	if clock == nil {
		clock = systemClock{}
	}
	b := &resumeBody{
		ctx: ctx, fetcher: inner, clock: clock, req: req, id: string(jsonr.TrimSpace(m.ID)),
		attempts: attempts, delay: delay, done: make(chan struct{}),
		cur: resp.Body, sr: bridge.NewSSEReader(resp.Body, 0),
	}
	out := *resp
	out.Body = b
	return &out, nil
}

// resumeBody re-serializes the events of one or more streams, reconnecting
// when a stream ends before the answer.
type resumeBody struct {
	ctx      context.Context
	fetcher  bridge.Fetcher
	clock    Clock
	req      *bridge.Request
	id       string // the request's id, as JSON text
	attempts int    // reconnections left
	delay    time.Duration

	sr       *bridge.SSEReader
	lastID   string
	retry    time.Duration // from the last retry field; 0 when none
	answered bool
	pending  bytes.Buffer
	err      error

	mu     sync.Mutex
	cur    io.ReadCloser // the body being read
	closed bool
	done   chan struct{} // closed by Close
}

// Read returns the events read so far, re-encoded, and reconnects when the
// stream ends before the answer.
func (b *resumeBody) Read(p []byte) (int, error) {
	for b.pending.Len() == 0 {
		if b.err != nil {
			return 0, b.err
		}
		b.err = b.next()
	}
	return b.pending.Read(p)
}

// next reads one event into pending, or reconnects, or returns the error
// that ends the body.
func (b *resumeBody) next() error {
	ev, err := b.sr.Next()
	if id := b.sr.LastEventID(); id != "" {
		b.lastID = id
	}
	if ms, ok := b.sr.Retry(); ok {
		b.retry = time.Duration(ms) * time.Millisecond
	}
	switch {
	case err == nil:
		b.note(ev)
		return nil
	case err != io.EOF:
		return err
	case b.answered || b.lastID == "" || b.attempts == 0:
		return io.EOF
	}
	return b.resume()
}

// note records whether ev is the answer and queues it for the reader.
func (b *resumeBody) note(ev bridge.SSEEvent) {
	if m, ok := mcp.ReadMessage([]byte(ev.Data)); ok && m.Method == "" && string(jsonr.TrimSpace(m.ID)) == b.id {
		b.answered = true
	}
	b.pending.Write(mcp.AppendEvent(b.pending.AvailableBuffer(), ev.Event, ev.ID, ev.Data))
}

// resume waits the retry delay and reconnects with Last-Event-ID.
func (b *resumeBody) resume() error {
	b.attempts--
	b.mu.Lock()
	b.cur.Close()
	b.mu.Unlock()
	delay := b.retry
	if delay <= 0 {
		delay = b.delay
	}
	elapsed := make(chan struct{})
	stop := b.clock.AfterFunc(delay, func() { close(elapsed) })
	defer stop()
	select {
	case <-elapsed:
	case <-b.ctx.Done():
		return b.ctx.Err()
	case <-b.done:
		return errors.New("the event stream was closed while waiting to resume it")
	}
	hdr := bridge.Header{"accept": mcp.ContentTypeEventStream}
	hdr.Set(mcp.HeaderLastEventID, b.lastID)
	for _, k := range []string{"authorization", mcp.HeaderSessionID, mcp.HeaderProtocolVersion} {
		if v := b.req.Header.Get(k); v != "" {
			hdr.Set(k, v)
		}
	}
	resp, err := b.fetcher.Fetch(b.ctx, &bridge.Request{Method: "GET", URL: b.req.URL, Header: hdr})
	if err != nil {
		return errs.Wrap(err, "resuming the event stream after event ", strconv.Quote(b.lastID))
	}
	if resp == nil || resp.Body == nil {
		return errs.New("resuming the event stream after event ", strconv.Quote(b.lastID), ": the fetcher returned no response")
	}
	if !ok2xx(resp.Status) || resp.Header == nil || !mcp.IsEventStream(resp.Header.Get("content-type")) {
		resp.Body.Close()
		return errs.New("resuming the event stream after event ", strconv.Quote(b.lastID), ": the server answered the GET with HTTP ", strconv.Itoa(resp.Status), " and no event stream")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		resp.Body.Close()
		return errors.New("the event stream was closed while it was resumed")
	}
	b.cur = resp.Body
	b.sr = bridge.NewSSEReader(resp.Body, 0)
	return nil
}

// Close closes the stream being read and stops a pending reconnection. It
// may be called while Read is blocked.
func (b *resumeBody) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	b.closed = true
	close(b.done)
	return b.cur.Close()
}
