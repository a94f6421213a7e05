//go:build !js && !wasip1

// The turn's bounds: events and text taken in, contiguous text deltas
// recorded as one event, streams that end before message_stop, and the
// stream and capabilities timeouts on an injected clock.

package session_test

import (
	"context"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/session"
	"github.com/agentwasm/agentwasm/testing/fakeproxy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// frameStream is an answer generated as it is read, never held whole:
// message_start, n frames of frame(i), then message_stop (unless cut).
type frameStream struct {
	n     int
	frame func(i int) string
	cut   bool // end without message_stop

	i   int
	buf []byte
}

func (f *frameStream) Read(p []byte) (int, error) {
	for len(f.buf) == 0 {
		switch {
		case f.i == 0:
			f.buf = []byte(fakeproxy.Frame("message_start", `{"model":"lazy"}`))
		case f.i <= f.n:
			f.buf = []byte(f.frame(f.i - 1))
		case f.i == f.n+1 && !f.cut:
			f.buf = []byte(fakeproxy.Frame("message_stop", `{"stopReason":"endTurn"}`))
		default:
			return 0, io.EOF
		}
		f.i++
	}
	n := copy(p, f.buf)
	f.buf = f.buf[n:]
	return n, nil
}

// oneCharDeltas is a frame function: 36 bytes of SSE for one character.
func oneCharDeltas(int) string { return "event: text_delta\ndata: {\"text\":\"x\"}\n\n" }

// streamingSession is a session whose every chat request is answered by
// body(), through the default SSE transport; discovery is off.
func streamingSession(t *testing.T, body func() io.Reader, opts func(*session.Options)) *session.Session {
	t.Helper()
	return newSession(t, "https://studio.test/api", func(o *session.Options) {
		o.DisableToolDiscovery = true
		o.Fetcher = bridge.FetcherFunc(func(ctx context.Context, req *bridge.Request) (*bridge.Response, error) {
			return &bridge.Response{Status: 200, Header: bridge.Header{}, Body: io.NopCloser(body())}, nil
		})
		if opts != nil {
			opts(o)
		}
	})
}

// heapPeak samples the live heap every few milliseconds until stop is
// called, and returns the highest HeapAlloc seen and the bytes allocated
// in all.
func heapPeak() (stop func() (peak, total uint64)) {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	startTotal := m.TotalAlloc
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > peak.Load() {
				peak.Store(m.HeapAlloc)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() (uint64, uint64) {
		close(done)
		wg.Wait()
		runtime.ReadMemStats(&m)
		return peak.Load(), m.TotalAlloc - startTotal
	}
}

// A million one-character text deltas (36 MB of SSE, generated as read).
// Under a small text bound the turn stops with turn_too_large, keeping the
// text up to the bound. With the defaults it completes, the record holds
// the run as one event, and the heap stays far from the 630 MB the
// per-frame record once took.
func TestMillionTextDeltas(t *testing.T) {
	const deltas = 1_000_000
	if testing.Short() {
		t.Skip("streams a million frames")
	}
	cases := []struct {
		name     string
		bound    int // MaxTurnTextBytes; 0: the default
		status   session.Status
		code     string
		textLen  int
		events   []string
		observed int // text deltas the observer saw
	}{
		{name: "a small text bound", bound: 1000, status: session.StatusError, code: session.ErrorCodeTurnTooLarge,
			// messageStart counts its model (4 bytes), each delta its text.
			textLen: 1000 - 4, events: []string{"messageStart", "textDelta"}, observed: 1000 - 4},
		{name: "the defaults", status: session.StatusCompleted,
			textLen: deltas, events: []string{"messageStart", "textDelta", "messageStop"}, observed: deltas},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var observed atomic.Int64
			s := streamingSession(t, func() io.Reader { return &frameStream{n: deltas, frame: oneCharDeltas} }, func(o *session.Options) {
				o.MaxTurnTextBytes = tc.bound
				o.OnEvent = func(ev session.Event) {
					if ev.Chat != nil && ev.Chat.Type == session.EventTextDelta {
						observed.Add(1)
					}
				}
			})
			stop := heapPeak()
			turn := chat(t, context.Background(), s, "go on and on")
			peak, total := stop()
			t.Logf("heap peak %d MB, allocated %d MB in all", peak>>20, total>>20)

			assert.Equal(t, tc.status, turn.Status, turn.ErrorMessage)
			assert.Equal(t, tc.code, turn.ErrorCode)
			assert.Equal(t, tc.textLen, len(turn.Text), "the partial text is kept")
			assert.Equal(t, strings.Repeat("x", tc.textLen), turn.Text)
			assert.Equal(t, tc.events, eventTypes(turn.Events), "one textDelta for the whole run")
			assert.Equal(t, turn.Text, turn.Events[1].Text)
			assert.EqualValues(t, tc.observed, observed.Load(), "the observer saw every delta")
			assert.Less(t, peak, uint64(150<<20), "the live heap stays well under 300 MB")
			if tc.status == session.StatusError {
				assert.Contains(t, turn.ErrorMessage, "1000 bytes")
				assert.Equal(t, []string{"user: go on and on"}, roles(s.Messages()), "the failed turn adds no answer")
			}
		})
	}
}

// MaxTurnEvents counts the events the turn records: contiguous text deltas
// are one, anything else one each.
func TestMaxTurnEvents(t *testing.T) {
	interleaved := func(i int) string {
		if i%2 == 0 {
			return oneCharDeltas(i)
		}
		return fakeproxy.Frame("tool_call_delta", `{"toolCallId":"nobody","toolArgumentsDelta":"y"}`)
	}
	cases := []struct {
		name   string
		frame  func(int) string
		n      int
		bound  int
		status session.Status
		events int
	}{
		{"a run of a million deltas is one event", oneCharDeltas, 1_000_000, 3, session.StatusCompleted, 3},
		{"interleaved events count one each", interleaved, 100_000, 1000, session.StatusError, 1000},
		{"exactly at the bound", interleaved, 998, 1000, session.StatusCompleted, 1000},
		{"one past the bound", interleaved, 999, 1000, session.StatusError, 1000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if testing.Short() && tc.n > 100_000 {
				t.Skip("streams a million frames")
			}
			s := streamingSession(t, func() io.Reader { return &frameStream{n: tc.n, frame: tc.frame} }, func(o *session.Options) {
				o.MaxTurnEvents = tc.bound
			})
			turn := chat(t, context.Background(), s, "hi")
			assert.Equal(t, tc.status, turn.Status, turn.ErrorMessage)
			assert.Len(t, turn.Events, tc.events)
			if tc.status == session.StatusError {
				assert.Equal(t, session.ErrorCodeTurnTooLarge, turn.ErrorCode)
				assert.Contains(t, turn.ErrorMessage, "1000 events")
				assert.NotEmpty(t, turn.Text, "the partial text is kept")
			}
		})
	}
}

// Contiguous text deltas are one textDelta in Turn.Events; any other event
// ends the run, and each round starts its own. The observer sees every
// delta as it streams.
func TestTextDeltasCoalesced(t *testing.T) {
	round1 := []session.StreamEvent{
		{Type: session.EventMessageStart, Model: "m"},
		text("Look"), text("ing "), start("c1", "a"), text("at"), text(" it"), stop("c1"), text("."),
		{Type: session.EventMessageStop, StopReason: "toolCall"},
	}
	tr := session.NewScriptedTransport(round1, session.TextRound("Do", "ne"))
	var observed []session.StreamEvent
	s := newScripted(t, tr, func(o *session.Options) {
		o.Tools = []session.ToolDefinition{tool("a")}
		o.Execute = &recordingExec{}
		o.OnEvent = func(ev session.Event) {
			if ev.Chat != nil {
				observed = append(observed, *ev.Chat)
			}
		}
	})
	turn := chat(t, context.Background(), s, "go")
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	assert.Equal(t, "Looking at it.Done", turn.Text)
	assert.Equal(t, []session.StreamEvent{
		{Type: session.EventMessageStart, Model: "m"},
		text("Looking "), start("c1", "a"), text("at it"), stop("c1"), text("."),
		{Type: session.EventMessageStop, StopReason: "toolCall"},
		{Type: session.EventMessageStart, Model: "scripted"},
		text("Done"),
		{Type: session.EventMessageStop, StopReason: "endTurn"},
	}, turn.Events)
	assert.Equal(t, append(append([]session.StreamEvent(nil), round1...), session.TextRound("Do", "ne")...), observed,
		"the observer saw every delta")
	assert.Equal(t, "Looking at it.", s.Messages()[1].Content)
}

// An answer that ends without message_stop (or error) is truncated: the
// turn ends in error with stream_truncated, keeps the text it got, runs
// none of the round's calls and adds no answer to the history.
func TestTruncatedAnswer(t *testing.T) {
	start := fakeproxy.Frame("message_start", `{"model":"fake-model"}`)
	hel := fakeproxy.Frame("text_delta", `{"text":"Hel"}`)
	cases := []struct {
		name   string
		body   string
		text   string
		events []string
	}{
		{"the stream ends after the text", start + hel, "Hel", []string{"messageStart", "textDelta"}},
		{"the stream is cut mid-frame", start + hel + "event: text_delta\ndata: {\"text\":\"lo\"", "Hel", []string{"messageStart", "textDelta"}},
		{"the stream is cut inside message_stop", start + hel + "event: message_stop\ndata: {\"stopReason\":\"endTurn\"}\n", "Hel", []string{"messageStart", "textDelta"}},
		{"stopped calls but no message_stop", start + hel + sseToolCall("c1", "a", `{}`), "Hel",
			[]string{"messageStart", "textDelta", "toolCallStart", "toolCallDelta", "toolCallStop"}},
		{"an empty body", "", "", []string{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			proxy, base := startProxy(t, fakeproxy.Reply{Body: tc.body})
			exec := &recordingExec{}
			s := newSession(t, base, func(o *session.Options) {
				o.DisableToolDiscovery = true
				o.Tools = []session.ToolDefinition{tool("a")}
				o.Execute = exec
			})
			turn := chat(t, context.Background(), s, "hi")
			assert.Equal(t, session.StatusError, turn.Status)
			assert.Equal(t, session.ErrorCodeStreamTruncated, turn.ErrorCode)
			assert.Contains(t, turn.ErrorMessage, "ended without a message_stop or error event")
			assert.Equal(t, tc.text, turn.Text, "the partial text is kept")
			assert.Equal(t, tc.events, eventTypes(turn.Events))
			assert.Empty(t, exec.Calls(), "no call of a truncated answer runs")
			assert.Empty(t, turn.ToolCalls)
			if tc.text == "" && len(tc.events) == 0 {
				assert.Empty(t, s.Messages(), "nothing of the answer came: the history is as before the turn")
			} else {
				assert.Equal(t, []string{"user: hi"}, roles(s.Messages()))
			}
			assert.Len(t, chatRequests(proxy), 1)
		})
	}

	// The rule is the session's, whatever the transport.
	tr := session.NewScriptedTransport([]session.StreamEvent{{Type: session.EventMessageStart}, text("partial")})
	turn := chat(t, context.Background(), newScripted(t, tr, nil), "hi")
	assert.Equal(t, session.StatusError, turn.Status)
	assert.Equal(t, session.ErrorCodeStreamTruncated, turn.ErrorCode)
	assert.Equal(t, "partial", turn.Text)
}

// pipeFetcher answers chat requests with a body the test writes into, and
// holds capabilities requests until their context ends. Each request's
// context ending is recorded.
type pipeFetcher struct {
	bodies  chan *io.PipeWriter
	aborted chan string // the URL of each request whose context ended
}

func newPipeFetcher() *pipeFetcher {
	return &pipeFetcher{bodies: make(chan *io.PipeWriter, 8), aborted: make(chan string, 8)}
}

func (f *pipeFetcher) Fetch(ctx context.Context, req *bridge.Request) (*bridge.Response, error) {
	if strings.HasSuffix(req.URL, "/capabilities") {
		<-ctx.Done()
		f.aborted <- req.URL
		return nil, ctx.Err()
	}
	pr, pw := io.Pipe()
	context.AfterFunc(ctx, func() {
		f.aborted <- req.URL
		pw.CloseWithError(ctx.Err())
	})
	f.bodies <- pw
	return &bridge.Response{Status: 200, Header: bridge.Header{}, Body: pr}, nil
}

// silentFetcher never answers: Fetch returns when its context ends.
func silentFetcher() bridge.Fetcher {
	return bridge.FetcherFunc(func(ctx context.Context, req *bridge.Request) (*bridge.Response, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
}

// turnAsync runs Chat on its own goroutine.
func turnAsync(s *session.Session, text string) <-chan session.Turn {
	turns := make(chan session.Turn, 1)
	go func() { turns <- s.Chat(context.Background(), text) }()
	return turns
}

// notYet fails if a turn has ended.
func notYet(t *testing.T, turns <-chan session.Turn, when string) {
	t.Helper()
	time.Sleep(5 * time.Millisecond) // let a wrongly fired timer's turn end
	select {
	case turn := <-turns:
		t.Fatalf("the turn ended %s: %s %s", when, turn.Status, turn.ErrorMessage)
	default:
	}
}

func waitTurn(t *testing.T, turns <-chan session.Turn) session.Turn {
	t.Helper()
	select {
	case turn := <-turns:
		return turn
	case <-time.After(waitBound):
		t.Fatal("the turn did not end")
		return session.Turn{}
	}
}

// The stream timeouts run on the session's clock: nothing happens until the
// bound has passed on it, then the request is aborted and the turn ends
// with stream_timeout, keeping the text it got.
func TestStreamTimeoutsOnAnInjectedClock(t *testing.T) {
	t.Run("the defaults: 120 s to the first byte", func(t *testing.T) {
		clock := newManualClock()
		s := newSession(t, "https://studio.test/api", func(o *session.Options) {
			o.DisableToolDiscovery = true
			o.Clock = clock
			o.Fetcher = silentFetcher()
		})
		turns := turnAsync(s, "hi")
		require.Equal(t, 120*time.Second, <-clock.added)
		clock.Advance(120*time.Second - time.Millisecond)
		notYet(t, turns, "before the first-byte bound")
		clock.Advance(time.Millisecond)
		turn := waitTurn(t, turns)
		assert.Equal(t, session.StatusError, turn.Status)
		assert.Equal(t, session.ErrorCodeStreamTimeout, turn.ErrorCode)
		assert.Contains(t, turn.ErrorMessage, "no answer within 120000ms")
	})

	t.Run("the defaults: 120 s between bytes, counted from the last byte", func(t *testing.T) {
		clock := newManualClock()
		f := newPipeFetcher()
		texts := make(chan string, 8)
		s := newSession(t, "https://studio.test/api", func(o *session.Options) {
			o.DisableToolDiscovery = true
			o.Clock = clock
			o.Fetcher = f
			o.OnEvent = func(ev session.Event) {
				if ev.Chat != nil && ev.Chat.Type == session.EventTextDelta {
					texts <- ev.Chat.Text
				}
			}
		})
		turns := turnAsync(s, "hi")
		require.Equal(t, 120*time.Second, <-clock.added, "the first-byte bound")
		w := <-f.bodies
		_, _ = io.WriteString(w, fakeproxy.Frame("message_start", `{}`)+fakeproxy.Frame("text_delta", `{"text":"Hel"}`))
		require.Equal(t, 120*time.Second, <-clock.added, "after the first byte, the idle bound")
		require.Equal(t, "Hel", <-texts)

		clock.Advance(100 * time.Second)
		_, _ = io.WriteString(w, fakeproxy.Frame("text_delta", `{"text":"lo"}`))
		require.Equal(t, "lo", <-texts)
		clock.Advance(20 * time.Second) // 120 s after the first byte, 20 s after the last
		require.Equal(t, 100*time.Second, <-clock.added, "re-armed for the rest of the bound from the last byte")
		notYet(t, turns, "while bytes kept coming")
		clock.Advance(100*time.Second - time.Millisecond)
		notYet(t, turns, "before 120 s of silence")
		clock.Advance(time.Millisecond)
		turn := waitTurn(t, turns)
		assert.Equal(t, session.StatusError, turn.Status)
		assert.Equal(t, session.ErrorCodeStreamTimeout, turn.ErrorCode)
		assert.Contains(t, turn.ErrorMessage, "no byte for 120000ms")
		assert.Equal(t, "Hello", turn.Text, "the partial text is kept")
		assert.Equal(t, "https://studio.test/api/v1/studio/ai/chat", <-f.aborted, "the request was aborted")
	})

	t.Run("options: 5 s to the first byte, 2 s between bytes", func(t *testing.T) {
		clock := newManualClock()
		f := newPipeFetcher()
		s := newSession(t, "https://studio.test/api", func(o *session.Options) {
			o.DisableToolDiscovery = true
			o.Clock = clock
			o.Fetcher = f
			o.StreamFirstByteTimeout = 5 * time.Second
			o.StreamIdleTimeout = 2 * time.Second
		})
		turns := turnAsync(s, "hi")
		require.Equal(t, 5*time.Second, <-clock.added)
		w := <-f.bodies
		clock.Advance(4 * time.Second)
		_, _ = io.WriteString(w, fakeproxy.Frame("text_delta", `{"text":"a"}`))
		require.Equal(t, 2*time.Second, <-clock.added)
		clock.Advance(2 * time.Second)
		turn := waitTurn(t, turns)
		assert.Equal(t, session.ErrorCodeStreamTimeout, turn.ErrorCode)
		assert.Contains(t, turn.ErrorMessage, "no byte for 2000ms")
		assert.Equal(t, "a", turn.Text)
	})

	t.Run("after message_stop, silence ends the answer as complete", func(t *testing.T) {
		clock := newManualClock()
		f := newPipeFetcher()
		s := newSession(t, "https://studio.test/api", func(o *session.Options) {
			o.DisableToolDiscovery = true
			o.Clock = clock
			o.Fetcher = f
		})
		turns := turnAsync(s, "hi")
		<-clock.added
		w := <-f.bodies
		_, _ = io.WriteString(w, fakeproxy.TextStream("All ", "done."))
		<-clock.added
		clock.Advance(120 * time.Second)
		turn := waitTurn(t, turns)
		assert.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
		assert.Equal(t, "All done.", turn.Text)
		assert.Equal(t, []string{"user: hi", "assistant: All done."}, roles(s.Messages()))
	})

	t.Run("disabled bounds set no timer", func(t *testing.T) {
		clock := newManualClock()
		s := streamingSession(t, func() io.Reader { return strings.NewReader(fakeproxy.TextStream("ok")) }, func(o *session.Options) {
			o.Clock = clock
			o.StreamFirstByteTimeout = -1
			o.StreamIdleTimeout = -1
		})
		turn := chat(t, context.Background(), s, "hi")
		assert.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
		select {
		case d := <-clock.added:
			t.Fatalf("a %s timer was set", d)
		default:
		}
	})

	t.Run("the caller's cancel is still a cancel", func(t *testing.T) {
		clock := newManualClock()
		s := newSession(t, "https://studio.test/api", func(o *session.Options) {
			o.DisableToolDiscovery = true
			o.Clock = clock
			o.Fetcher = silentFetcher()
		})
		ctx, cancel := context.WithCancel(context.Background())
		turns := make(chan session.Turn, 1)
		go func() { turns <- s.Chat(ctx, "hi") }()
		<-clock.added
		cancel()
		turn := waitTurn(t, turns)
		assert.Equal(t, session.StatusCancelled, turn.Status)
		assert.Empty(t, turn.ErrorCode)
	})
}

// The capabilities request is bounded (30 s by default) on the session's
// clock: past it the read fails, is not cached, and the turn goes on.
func TestCapabilitiesTimeoutOnAnInjectedClock(t *testing.T) {
	for _, tc := range []struct {
		name  string
		set   time.Duration
		bound time.Duration
	}{
		{"the default", 0, 30 * time.Second},
		{"an option", 3 * time.Second, 3 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := newManualClock()
			f := newPipeFetcher()
			s := newSession(t, "https://studio.test/api", func(o *session.Options) {
				o.DisableToolDiscovery = true
				o.Clock = clock
				o.Fetcher = f
				o.CapabilitiesTimeout = tc.set
				o.Tools = []session.ToolDefinition{tool("a")} // a turn with tools reads the capabilities
				o.Execute = &recordingExec{}
			})
			turns := turnAsync(s, "hi")
			require.Equal(t, tc.bound, <-clock.added)
			clock.Advance(tc.bound - time.Millisecond)
			notYet(t, turns, "before the capabilities bound")
			clock.Advance(time.Millisecond)
			assert.Equal(t, "https://studio.test/api/v1/studio/ai/capabilities", <-f.aborted)
			<-clock.added // the chat request's first-byte bound
			w := <-f.bodies
			_, _ = io.WriteString(w, fakeproxy.TextStream("went on"))
			w.Close()
			turn := waitTurn(t, turns)
			assert.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
			assert.Equal(t, "went on", turn.Text)

			require.Equal(t, 120*time.Second, <-clock.added, "the chat answer's idle bound, set at its first byte")

			// Not cached: asked again, and bounded again.
			errs := make(chan error, 1)
			go func() { _, err := s.Capabilities(context.Background()); errs <- err }()
			require.Equal(t, tc.bound, <-clock.added)
			clock.Advance(tc.bound)
			err := <-errs
			require.Error(t, err)
			assert.Contains(t, err.Error(), "did not complete within "+strconv.FormatInt(tc.bound.Milliseconds(), 10)+"ms")
			assert.NotErrorIs(t, err, context.Canceled, "a timeout is not the caller's cancel")
		})
	}
}

func TestBoundOptionsValidation(t *testing.T) {
	cases := []struct {
		name    string
		opts    session.Options
		wantErr string // a substring; "" means valid
	}{
		{"negative MaxTurnEvents", session.Options{MaxTurnEvents: -1}, "MaxTurnEvents is -1"},
		{"negative MaxTurnTextBytes", session.Options{MaxTurnTextBytes: -5}, "MaxTurnTextBytes is -5"},
		{"zero bounds are the defaults", session.Options{}, ""},
		{"positive bounds", session.Options{MaxTurnEvents: 10, MaxTurnTextBytes: 10}, ""},
		{"negative timeouts disable them", session.Options{StreamFirstByteTimeout: -1, StreamIdleTimeout: -1, CapabilitiesTimeout: -1}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := checkNew(t, tc.opts, tc.wantErr); err != nil {
				assert.Contains(t, err.Error(), "0 for the")
			}
		})
	}
}

// afterStopStream is an answer — message_start, text, message_stop — and
// then, forever, tail: a proxy that keeps sending past the end of its
// answer. It counts the bytes read after message_stop, and whether it was
// closed.
type afterStopStream struct {
	head   *strings.Reader
	tail   string
	at     int
	after  atomic.Int64
	closed atomic.Bool
}

func (s *afterStopStream) Read(p []byte) (int, error) {
	if s.head.Len() > 0 {
		return s.head.Read(p)
	}
	n := 0
	for n < len(p) {
		c := copy(p[n:], s.tail[s.at:])
		n += c
		s.at = (s.at + c) % len(s.tail)
	}
	s.after.Add(int64(n))
	return n, nil
}

func (s *afterStopStream) Close() error {
	s.closed.Store(true)
	return nil
}

// TestReadingAfterMessageStopIsBounded: after message_stop the session reads
// on towards the stream's end (a proxy's stream that ends there completes
// its request instead of being aborted), but a stream that keeps sending —
// comments, unknown events, text — is read for at most 64 KiB more, then
// closed; the answer ends there as complete, whatever the clock says.
func TestReadingAfterMessageStopIsBounded(t *testing.T) {
	const budget = 64 << 10 // session's maxBytesAfterStop
	cases := []struct {
		name, tail string
		text       string // the answer's text: text after message_stop is still applied, within the bound
	}{
		{"comments", ": keep-alive\n\n", "All done."},
		{"unknown events", "event: ping\ndata: {}\n\n", "All done."},
		{"text", fakeproxy.Frame("text_delta", `{"text":"!"}`), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := &afterStopStream{head: strings.NewReader(fakeproxy.TextStream("All ", "done.")), tail: tc.tail}
			clock := newManualClock() // never advanced: only the byte bound can end the reading
			s := newSession(t, "https://studio.test/api", func(o *session.Options) {
				o.DisableToolDiscovery = true
				o.Clock = clock
				o.Fetcher = bridge.FetcherFunc(func(ctx context.Context, req *bridge.Request) (*bridge.Response, error) {
					return &bridge.Response{Status: 200, Header: bridge.Header{}, Body: body}, nil
				})
			})
			turns := turnAsync(s, "hi")
			turn := waitTurn(t, turns)
			assert.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
			if tc.text != "" {
				assert.Equal(t, tc.text, turn.Text)
			} else {
				assert.True(t, strings.HasPrefix(turn.Text, "All done.!"), "text after message_stop is applied: %.40q", turn.Text)
			}
			read := body.after.Load()
			assert.GreaterOrEqual(t, read, int64(budget), "it read on after message_stop")
			assert.LessOrEqual(t, read, int64(budget), "and not past the bound")
			assert.True(t, body.closed.Load(), "the stream was closed")
		})
	}
}
