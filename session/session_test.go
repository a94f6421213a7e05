//go:build !js && !wasip1

// Chat turns against a proxy: the turn and its events, split and failing
// streams, cancellation, a panicking observer, overlapping Chats, the chat
// request, options, Reset and concurrent sessions.

package session_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/session"
	"github.com/agentwasm/agentwasm/testing/fakeproxy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// waitBound is how long a test waits for something that should happen
// promptly before it gives up; it never decides a test's outcome by itself.
const waitBound = 30 * time.Second

// startProxy serves a fake proxy answering with replies and returns it with
// the base URL sessions should use.
func startProxy(t *testing.T, replies ...fakeproxy.Reply) (*fakeproxy.Proxy, string) {
	t.Helper()
	proxy := fakeproxy.New(replies...)
	srv := httptest.NewServer(proxy)
	t.Cleanup(func() {
		// Hanging replies end with their connections, so a turn that failed
		// to cancel its request fails the test instead of blocking Close.
		srv.CloseClientConnections()
		srv.Close()
	})
	return proxy, srv.URL + "/api"
}

// newSession returns a session on baseURL with the native fetcher; opts may
// adjust the other options.
func newSession(t *testing.T, baseURL string, opts func(*session.Options)) *session.Session {
	t.Helper()
	o := session.Options{BaseURL: baseURL, Fetcher: &bridge.HTTPFetcher{}}
	if opts != nil {
		opts(&o)
	}
	s, err := session.New(o)
	require.NoError(t, err)
	return s
}

// chat runs s.Chat on its own goroutine and fails the test if it does not
// return within waitBound.
func chat(t *testing.T, ctx context.Context, s *session.Session, text string) session.Turn {
	t.Helper()
	done := make(chan session.Turn, 1)
	go func() { done <- s.Chat(ctx, text) }()
	bound, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	select {
	case turn := <-done:
		return turn
	case <-bound.Done():
		t.Fatalf("Chat(%q) did not return", text)
		return session.Turn{}
	}
}

func eventTypes(evs []session.StreamEvent) []string {
	out := []string{}
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return out
}

// coalesced folds each run of contiguous text deltas into one, as the turn
// records them.
func coalesced(evs []session.StreamEvent) []session.StreamEvent {
	var out []session.StreamEvent
	for _, e := range evs {
		if n := len(out); n > 0 && e.Type == session.EventTextDelta && out[n-1].Type == session.EventTextDelta {
			out[n-1].Text += e.Text
			continue
		}
		out = append(out, e)
	}
	return out
}

func roles(msgs []session.Message) []string {
	out := []string{}
	for _, m := range msgs {
		out = append(out, m.Role+": "+m.Content)
	}
	return out
}

func TestChatTurns(t *testing.T) {
	text := fakeproxy.TextStream("Hel", "lo, ", "world")
	textTypes := []string{"messageStart", "textDelta", "messageStop"} // the three deltas are one run
	big := fakeproxy.Frame("text_delta", `{"text":"`+strings.Repeat("x", 2000)+`"}`)
	start := fakeproxy.Frame("message_start", `{"model":"fake-model"}`)
	hel := fakeproxy.Frame("text_delta", `{"text":"Hel"}`)
	stop := fakeproxy.Frame("message_stop", `{"stopReason":"endTurn"}`)
	malformed := session.StreamEvent{Type: "error", ErrorMessage: "Malformed event payload from the Studio AI proxy.", ErrorCode: "malformed_event"}

	type turnCase struct {
		name          string
		reply         fakeproxy.Reply
		maxFrameBytes int
		status        session.Status
		text          string
		types         []string
		stopReason    string
		errorMessage  string // exact, when set
		errorContains string
		errorCode     string
		lastEvent     *session.StreamEvent
		history       []string // after the turn
	}
	cases := []turnCase{
		{
			name: "text only", reply: fakeproxy.Reply{Body: text},
			status: session.StatusCompleted, text: "Hello, world", types: textTypes, stopReason: "endTurn",
			history: []string{"user: hi", "assistant: Hello, world"},
		},
		{
			name: "split into one-byte chunks", reply: fakeproxy.Reply{Body: text, Chunk: 1},
			status: session.StatusCompleted, text: "Hello, world", types: textTypes, stopReason: "endTurn",
			history: []string{"user: hi", "assistant: Hello, world"},
		},
		{
			name: "CRLF line endings", reply: fakeproxy.Reply{Body: strings.ReplaceAll(text, "\n", "\r\n")},
			status: session.StatusCompleted, text: "Hello, world", types: textTypes, stopReason: "endTurn",
			history: []string{"user: hi", "assistant: Hello, world"},
		},
		{
			name: "lone CR line endings in one-byte chunks", reply: fakeproxy.Reply{Body: strings.ReplaceAll(text, "\n", "\r"), Chunk: 1},
			status: session.StatusCompleted, text: "Hello, world", types: textTypes, stopReason: "endTurn",
			history: []string{"user: hi", "assistant: Hello, world"},
		},
		{
			name: "unknown event names, unnamed frames and comments are ignored",
			reply: fakeproxy.Reply{Body: start +
				fakeproxy.Frame("ping", `{"text":"no"}`) +
				": keep-alive\n\n" +
				`data: {"type":"textDelta","text":"no"}` + "\n\n" +
				hel +
				fakeproxy.Frame("content_block_delta", `{"type":"textDelta","text":"no"}`) +
				stop},
			status: session.StatusCompleted, text: "Hel", types: []string{"messageStart", "textDelta", "messageStop"}, stopReason: "endTurn",
			history: []string{"user: hi", "assistant: Hel"},
		},
		{
			name: "the event name overrides the JSON type",
			reply: fakeproxy.Reply{Body: start +
				fakeproxy.Frame("text_delta", `{"type":"messageStop","text":"A","stopReason":"maxTokens"}`) +
				fakeproxy.Frame("message_stop", `{"type":"textDelta","text":"ignored","stopReason":"endTurn"}`)},
			status: session.StatusCompleted, text: "A", types: []string{"messageStart", "textDelta", "messageStop"}, stopReason: "endTurn",
			history: []string{"user: hi", "assistant: A"},
		},
		{
			// The unfinished frame is dropped, and the answer, which never
			// reached message_stop, is truncated: an error keeping the text.
			name: "an unfinished last frame is dropped", reply: fakeproxy.Reply{Body: start + hel + "event: text_delta\ndata: {\"text\":\"lo\"}\n"},
			status: session.StatusError, text: "Hel", types: []string{"messageStart", "textDelta"},
			errorContains: "ended without a message_stop", errorCode: session.ErrorCodeStreamTruncated,
			history: []string{"user: hi"},
		},
		{
			name: "proxy answers 500", reply: fakeproxy.Reply{Status: 500, Body: "upstream exploded"},
			status: session.StatusError, types: []string{},
			errorMessage: "Studio AI proxy responded 500 for the chat request.",
			history:      []string{}, /* nothing of the answer came: the history is as before the turn */
		},
		{
			name: "proxy answers 401", reply: fakeproxy.Reply{Status: 401, Body: text},
			status: session.StatusError, types: []string{},
			errorMessage: "Studio AI proxy responded 401 for the chat request.",
			history:      []string{}, /* nothing of the answer came: the history is as before the turn */
		},
		{
			name: "non-JSON data", reply: fakeproxy.Reply{Body: start + hel + fakeproxy.Frame("text_delta", "not json") + stop},
			status: session.StatusError, text: "Hel", types: []string{"messageStart", "textDelta", "error"},
			errorMessage: malformed.ErrorMessage, errorCode: "malformed_event", lastEvent: &malformed,
			history: []string{"user: hi"},
		},
		{
			name: "truncated JSON", reply: fakeproxy.Reply{Body: fakeproxy.Frame("text_delta", `{"text":`) + stop},
			status: session.StatusError, types: []string{"error"},
			errorMessage: malformed.ErrorMessage, errorCode: "malformed_event", lastEvent: &malformed,
			history: []string{}, /* nothing of the answer came: the history is as before the turn */
		},
		{
			name: "JSON object followed by more", reply: fakeproxy.Reply{Body: fakeproxy.Frame("text_delta", `{"text":"a"} {}`) + stop},
			status: session.StatusError, types: []string{"error"},
			errorMessage: malformed.ErrorMessage, errorCode: "malformed_event", lastEvent: &malformed,
			history: []string{}, /* nothing of the answer came: the history is as before the turn */
		},
	}
	for _, data := range []string{`[1]`, `"x"`, `null`, `42`, `true`} {
		cases = append(cases, turnCase{
			name: "JSON that is not an object: " + data, reply: fakeproxy.Reply{Body: start + fakeproxy.Frame("message_stop", data)},
			status: session.StatusError, types: []string{"messageStart", "error"},
			errorMessage: malformed.ErrorMessage, errorCode: "malformed_event", lastEvent: &malformed,
			history: []string{}, // the answer never started: the history is as before the turn
		})
	}
	cases = append(cases, []turnCase{
		{
			name: "in-band error event",
			reply: fakeproxy.Reply{Body: start + hel +
				fakeproxy.Frame("error", `{"type":"error","errorMessage":"Upstream quota exceeded.","errorCode":"rate_limited","latencyMs":5}`) + stop},
			status: session.StatusError, text: "Hel", types: []string{"messageStart", "textDelta", "error"},
			errorMessage: "Upstream quota exceeded.", errorCode: "rate_limited",
			lastEvent: &session.StreamEvent{Type: "error", ErrorMessage: "Upstream quota exceeded.", ErrorCode: "rate_limited", LatencyMs: 5},
			history:   []string{"user: hi"},
		},
		{
			name:   "in-band error event without a message",
			reply:  fakeproxy.Reply{Body: fakeproxy.Frame("error", `{"errorCode":"x"}`)},
			status: session.StatusError, types: []string{"error"},
			errorMessage: "The Studio AI proxy reported an error without a message.", errorCode: "x",
			history: []string{}, /* nothing of the answer came: the history is as before the turn */
		},
		{
			name: "oversized frame", reply: fakeproxy.Reply{Body: start + big + stop}, maxFrameBytes: 1024,
			status: session.StatusError, types: []string{"messageStart"},
			errorContains: "1024 bytes",
			history:       []string{}, /* nothing of the answer came: the history is as before the turn */
		},
		{
			name: "a frame under the bound passes", reply: fakeproxy.Reply{Body: start + big + stop}, maxFrameBytes: 4096,
			status: session.StatusCompleted, text: strings.Repeat("x", 2000), types: []string{"messageStart", "textDelta", "messageStop"}, stopReason: "endTurn",
			history: []string{"user: hi", "assistant: " + strings.Repeat("x", 2000)},
		},
	}...)

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			proxy, base := startProxy(t, tc.reply)
			var observed []session.StreamEvent
			s := newSession(t, base, func(o *session.Options) {
				o.MaxFrameBytes = tc.maxFrameBytes
				o.OnEvent = func(ev session.Event) {
					if ev.Type == session.EventTypeToolDiscovery || ev.Type == session.EventTypeStepFinish {
						return // the default MCP client's failed pass (the fake proxy has no /mcp); the round's step
					}
					assert.Equal(t, session.EventTypeChat, ev.Type)
					if assert.NotNil(t, ev.Chat) {
						observed = append(observed, *ev.Chat)
					}
				}
			})
			turn := chat(t, context.Background(), s, "hi")

			assert.Equal(t, tc.status, turn.Status, turn.ErrorMessage)
			assert.Equal(t, tc.text, turn.Text)
			assert.Equal(t, tc.types, eventTypes(turn.Events))
			assert.Equal(t, tc.stopReason, turn.StopReason)
			assert.Equal(t, 1, turn.Rounds)
			assert.Equal(t, tc.errorCode, turn.ErrorCode)
			switch {
			case tc.errorMessage != "":
				assert.Equal(t, tc.errorMessage, turn.ErrorMessage)
			case tc.errorContains != "":
				assert.Contains(t, turn.ErrorMessage, tc.errorContains)
			default:
				assert.Empty(t, turn.ErrorMessage)
			}
			if tc.lastEvent != nil && assert.NotEmpty(t, turn.Events) {
				assert.Equal(t, *tc.lastEvent, turn.Events[len(turn.Events)-1])
			}
			assert.Equal(t, turn.Events, coalesced(observed), "the observer sees every event of the turn, in order, each text delta apart")
			assert.Equal(t, tc.history, roles(s.Messages()))
			assert.Len(t, fakeproxy.WithoutMCP(proxy.Requests()), 1)
		})
	}
}

// TestStreamSplitAtEveryByte serves the body through a reader that returns
// one byte per Read, so every frame, line end and UTF-8 sequence is split.
func TestStreamSplitAtEveryByte(t *testing.T) {
	text := fakeproxy.TextStream("Hél", "lo, ", "wörld 👋")
	cases := []struct{ name, body string }{
		{"LF", text},
		{"CRLF", strings.ReplaceAll(text, "\n", "\r\n")},
		{"CR", strings.ReplaceAll(text, "\n", "\r")},
		{"BOM and comments", "\uFEFF: hello\n\n" + strings.ReplaceAll(text, "\n\n", "\n: between\n\n")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t, "", func(o *session.Options) {
				o.Fetcher = bridge.FetcherFunc(func(ctx context.Context, req *bridge.Request) (*bridge.Response, error) {
					return &bridge.Response{Status: 200, Header: bridge.Header{}, Body: io.NopCloser(iotest.OneByteReader(strings.NewReader(tc.body)))}, nil
				})
			})
			turn := chat(t, context.Background(), s, "hi")
			assert.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
			assert.Equal(t, "Héllo, wörld 👋", turn.Text)
			assert.Equal(t, []string{"messageStart", "textDelta", "messageStop"}, eventTypes(turn.Events), "one textDelta per run")
			assert.Equal(t, "endTurn", turn.StopReason)
		})
	}
}

// TestStreamReadError: a body that fails mid-stream ends the turn in error,
// keeping what arrived before.
func TestStreamReadError(t *testing.T) {
	body := fakeproxy.Frame("text_delta", `{"text":"Hel"}`)
	closed := false
	s := newSession(t, "", func(o *session.Options) {
		o.Fetcher = bridge.FetcherFunc(func(ctx context.Context, req *bridge.Request) (*bridge.Response, error) {
			r := io.MultiReader(strings.NewReader(body), iotest.ErrReader(errors.New("connection reset")))
			return &bridge.Response{Status: 200, Header: bridge.Header{}, Body: closeFunc{r, func() { closed = true }}}, nil
		})
	})
	turn := chat(t, context.Background(), s, "hi")
	assert.Equal(t, session.StatusError, turn.Status)
	assert.Equal(t, "Hel", turn.Text)
	assert.Contains(t, turn.ErrorMessage, "connection reset")
	assert.True(t, closed, "the body is closed")
	assert.Equal(t, []string{"user: hi"}, roles(s.Messages()))
}

type closeFunc struct {
	io.Reader
	close func()
}

func (c closeFunc) Close() error { c.close(); return nil }

func TestWrongBasePathIs404(t *testing.T) {
	srv := httptest.NewServer(fakeproxy.New(fakeproxy.Reply{Body: fakeproxy.TextStream("x")}))
	defer srv.Close()
	turn := chat(t, context.Background(), newSession(t, srv.URL+"/elsewhere", nil), "hi")
	assert.Equal(t, session.StatusError, turn.Status)
	assert.Equal(t, "Studio AI proxy responded 404 for the chat request.", turn.ErrorMessage)
}

func TestTextTurnEventFields(t *testing.T) {
	_, base := startProxy(t, fakeproxy.Reply{Body: fakeproxy.TextStream("Hel", "lo")})
	turn := chat(t, context.Background(), newSession(t, base, nil), "hi")
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	assert.Equal(t, []session.StreamEvent{
		{Type: "messageStart", Model: "fake-model"},
		{Type: "textDelta", Text: "Hello"}, // the run of two deltas, recorded as one
		{Type: "messageStop", StopReason: "endTurn", PromptTokens: 12, CompletionTokens: 7, LatencyMs: 42},
	}, turn.Events)
}

func TestUnreachableProxy(t *testing.T) {
	srv := httptest.NewServer(fakeproxy.New(fakeproxy.Reply{Body: fakeproxy.TextStream("x")}))
	base := srv.URL + "/api"
	srv.Close()
	s := newSession(t, base, nil)
	turn := chat(t, context.Background(), s, "hi")
	assert.Equal(t, session.StatusError, turn.Status)
	assert.True(t, strings.HasPrefix(turn.ErrorMessage, "Could not reach the Studio AI proxy at "+base+"/v1/studio/ai/chat"),
		"message %q", turn.ErrorMessage)
	assert.NotContains(t, turn.ErrorMessage, "bridge: fetch", "the bridge's own prefix, which repeats the URL, is dropped")
	assert.Empty(t, turn.Events)
	assert.Equal(t, 1, turn.Rounds)
}

func TestAlreadyCancelledContext(t *testing.T) {
	proxy, base := startProxy(t, fakeproxy.Reply{Body: fakeproxy.TextStream("x")})
	s := newSession(t, base, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	turn := chat(t, ctx, s, "hi")
	assert.Equal(t, session.StatusCancelled, turn.Status)
	assert.Equal(t, 0, turn.Rounds)
	assert.Empty(t, turn.Events)
	assert.Empty(t, proxy.Requests(), "no request is sent")
	assert.Empty(t, s.Messages(), "history is untouched")
}

func TestCancelMidStream(t *testing.T) {
	partial := fakeproxy.Frame("message_start", `{"model":"m"}`) + fakeproxy.Frame("text_delta", `{"text":"Hel"}`)
	proxy, base := startProxy(t, fakeproxy.Reply{Body: partial, HangAfterBody: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var seen []string
	s := newSession(t, base, func(o *session.Options) {
		o.OnEvent = func(ev session.Event) {
			seen = append(seen, ev.Chat.Type)
			if ev.Chat.Type == session.EventTextDelta {
				cancel()
			}
		}
	})
	turn := chat(t, ctx, s, "hi")
	assert.Equal(t, session.StatusCancelled, turn.Status, turn.ErrorMessage)
	assert.Equal(t, "Hel", turn.Text, "text streamed before the cancel is kept")
	assert.Equal(t, []string{"messageStart", "textDelta"}, eventTypes(turn.Events))
	assert.Equal(t, []string{"messageStart", "textDelta"}, seen)
	assert.Equal(t, 1, turn.Rounds)
	assert.Len(t, fakeproxy.WithoutMCP(proxy.Requests()), 1)
	assert.Equal(t, []string{"user: hi"}, roles(s.Messages()), "a cancelled turn adds no assistant message")
}

func TestCancelWhileWaitingForTheHead(t *testing.T) {
	_, base := startProxy(t, fakeproxy.Reply{Hang: true})
	started := make(chan struct{})
	s := newSession(t, base, func(o *session.Options) {
		o.Fetcher = bridge.FetcherFunc(func(ctx context.Context, req *bridge.Request) (*bridge.Response, error) {
			close(started)
			return (&bridge.HTTPFetcher{}).Fetch(ctx, req)
		})
	})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	turn := chat(t, ctx, s, "hi")
	assert.Equal(t, session.StatusCancelled, turn.Status, turn.ErrorMessage)
	assert.Empty(t, turn.Events)
}

func TestPanickingObserver(t *testing.T) {
	_, base := startProxy(t, fakeproxy.Reply{Body: fakeproxy.TextStream("Hel", "lo")})
	calls := 0
	s := newSession(t, base, func(o *session.Options) {
		o.OnEvent = func(ev session.Event) {
			if ev.Type == session.EventTypeChat {
				calls++
			}
			panic("observer bug") // on the toolDiscovery event too
		}
	})
	turn := chat(t, context.Background(), s, "hi")
	assert.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	assert.Equal(t, "Hello", turn.Text)
	assert.Equal(t, "endTurn", turn.StopReason)
	assert.Equal(t, 4, calls, "the observer is still called for every chat event after it panicked")
	assert.Equal(t, []string{"user: hi", "assistant: Hello"}, roles(s.Messages()))
}

func TestOverlappingChatIsBusy(t *testing.T) {
	proxy, base := startProxy(t, fakeproxy.Reply{Hang: true})
	started := make(chan struct{}, 1)
	var sent atomic.Int32 // every request, the MCP ones included
	s := newSession(t, base, func(o *session.Options) {
		o.Fetcher = bridge.FetcherFunc(func(ctx context.Context, req *bridge.Request) (*bridge.Response, error) {
			sent.Add(1)
			if strings.HasSuffix(req.URL, fakeproxy.ChatPath) {
				started <- struct{}{}
			}
			return (&bridge.HTTPFetcher{}).Fetch(ctx, req)
		})
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := make(chan session.Turn, 1)
	go func() { first <- s.Chat(ctx, "first") }()
	bound, stop := context.WithTimeout(context.Background(), waitBound)
	defer stop()
	select {
	case <-started:
	case <-bound.Done():
		t.Fatal("the first chat never sent its request")
	}

	before := sent.Load()
	second := chat(t, context.Background(), s, "second")
	assert.Equal(t, session.StatusError, second.Status)
	assert.Equal(t, session.ErrorCodeBusy, second.ErrorCode)
	assert.NotEmpty(t, second.ErrorMessage)
	assert.Equal(t, 0, second.Rounds)
	assert.Empty(t, second.Events)
	assert.Len(t, started, 0, "the busy chat sent no chat request")
	assert.Equal(t, before, sent.Load(), "the busy chat sent no request at all")
	assert.Equal(t, []string{"user: first"}, roles(s.Messages()), "the busy chat touched no history")

	cancel()
	select {
	case turn := <-first:
		assert.Equal(t, session.StatusCancelled, turn.Status)
	case <-bound.Done():
		t.Fatal("the first chat did not end after its context was cancelled")
	}
	// The proxy may not have logged the hanging request when the first
	// chat ended, but it never saw a second one.
	assert.LessOrEqual(t, len(fakeproxy.WithoutMCP(proxy.Requests())), 1)
}

func TestSessionFreeAfterATurn(t *testing.T) {
	_, base := startProxy(t,
		fakeproxy.Reply{Status: 500},
		fakeproxy.Reply{Body: fakeproxy.TextStream("ok")})
	s := newSession(t, base, nil)
	first := chat(t, context.Background(), s, "one")
	require.Equal(t, session.StatusError, first.Status)
	second := chat(t, context.Background(), s, "two")
	assert.Equal(t, session.StatusCompleted, second.Status, "a finished turn (even a failed one) releases the session: %s", second.ErrorMessage)
	assert.Equal(t, "ok", second.Text)
	assert.Equal(t, []string{"user: two", "assistant: ok"}, roles(s.Messages()),
		"the refused turn left the history as it was before it")
}

func TestChatRequest(t *testing.T) {
	proxy, base := startProxy(t,
		fakeproxy.Reply{Body: fakeproxy.TextStream("one")},
		fakeproxy.Reply{Body: fakeproxy.TextStream("two")})
	temp := 0.2
	s := newSession(t, base, func(o *session.Options) {
		o.Model = "m1"
		o.Provider = "p1"
		o.System = "be brief"
		o.MaxTokens = 256
		o.Temperature = &temp
		o.ToolChoice = &session.ToolChoice{Mode: "specific", ToolName: "setFilter"}
	})
	require.Equal(t, session.StatusCompleted, chat(t, context.Background(), s, "hi").Status)
	require.Equal(t, session.StatusCompleted, chat(t, context.Background(), s, "again").Status)

	reqs := fakeproxy.WithoutMCP(proxy.Requests())
	require.Len(t, reqs, 2)
	for _, r := range reqs {
		assert.Equal(t, "POST", r.Method)
		assert.Equal(t, fakeproxy.ChatPath, r.Path)
		assert.Equal(t, "application/json", r.Header.Get("content-type"))
		assert.Equal(t, "text/event-stream", r.Header.Get("accept"))
		assert.Empty(t, r.Header.Get("authorization"), "no token, no authorization header")
	}
	common := map[string]any{
		"model":       "m1",
		"provider":    "p1",
		"system":      "be brief",
		"maxTokens":   float64(256),
		"temperature": 0.2,
		"toolChoice":  map[string]any{"mode": "specific", "toolName": "setFilter"},
	}
	want := func(msgs ...map[string]any) map[string]any {
		m := map[string]any{}
		for k, v := range common {
			m[k] = v
		}
		list := []any{}
		for _, msg := range msgs {
			list = append(list, msg)
		}
		m["messages"] = list
		return m
	}
	user := func(s string) map[string]any { return map[string]any{"role": "user", "content": s} }
	assistant := func(s string) map[string]any { return map[string]any{"role": "assistant", "content": s} }
	assert.Equal(t, want(user("hi")), reqs[0].JSON())
	assert.Equal(t, want(user("hi"), assistant("one"), user("again")), reqs[1].JSON())
}

func TestChatRequestOmitsUnsetFields(t *testing.T) {
	proxy, base := startProxy(t, fakeproxy.Reply{Body: fakeproxy.TextStream("x")})
	s := newSession(t, base, nil)
	require.Equal(t, session.StatusCompleted, chat(t, context.Background(), s, "hi").Status)
	reqs := fakeproxy.WithoutMCP(proxy.Requests())
	require.Len(t, reqs, 1)
	assert.Equal(t, `{"messages":[{"role":"user","content":"hi"}]}`, string(reqs[0].Body))
}

func TestChatRequestZeroTemperatureIsSent(t *testing.T) {
	proxy, base := startProxy(t, fakeproxy.Reply{Body: fakeproxy.TextStream("x")})
	zero := 0.0
	s := newSession(t, base, func(o *session.Options) { o.Temperature = &zero })
	require.Equal(t, session.StatusCompleted, chat(t, context.Background(), s, "hi").Status)
	reqs := fakeproxy.WithoutMCP(proxy.Requests())
	require.Len(t, reqs, 1)
	assert.Contains(t, reqs[0].JSON(), "temperature", "a set temperature of 0 is sent")
	assert.Equal(t, 0.0, reqs[0].JSON()["temperature"])
}

func TestChatURL(t *testing.T) {
	cases := []struct{ baseURL, want string }{
		{"", "/api/v1/studio/ai/chat"},
		{"https://studio.example/api", "https://studio.example/api/v1/studio/ai/chat"},
		{"https://studio.example/api/", "https://studio.example/api/v1/studio/ai/chat"},
		{"/proxy//", "/proxy/v1/studio/ai/chat"},
	}
	for _, tc := range cases {
		t.Run(tc.baseURL, func(t *testing.T) {
			var got string
			s, err := session.New(session.Options{
				BaseURL: tc.baseURL,
				Fetcher: bridge.FetcherFunc(func(ctx context.Context, req *bridge.Request) (*bridge.Response, error) {
					got = req.URL
					return nil, &bridge.FetchError{URL: req.URL, Err: errors.New("offline")}
				}),
			})
			require.NoError(t, err)
			turn := s.Chat(context.Background(), "hi")
			assert.Equal(t, tc.want, got)
			assert.Equal(t, "Could not reach the Studio AI proxy at "+tc.want+": offline", turn.ErrorMessage)
		})
	}
}

func TestOptionsValidation(t *testing.T) {
	cases := []struct {
		name    string
		opts    session.Options
		wantErr string // a substring; "" means valid
	}{
		{"zero options", session.Options{}, ""},
		{"negative MaxTokens", session.Options{MaxTokens: -1}, "MaxTokens is -1"},
		{"negative MaxFrameBytes", session.Options{MaxFrameBytes: -5}, "MaxFrameBytes is -5"},
		{"bad ToolChoice mode", session.Options{ToolChoice: &session.ToolChoice{Mode: "sometimes"}}, `ToolChoice mode "sometimes"`},
		{"empty ToolChoice mode", session.Options{ToolChoice: &session.ToolChoice{}}, `ToolChoice mode ""`},
		{"specific without ToolName", session.Options{ToolChoice: &session.ToolChoice{Mode: "specific"}}, `"specific" needs a ToolName`},
		{"specific with ToolName", session.Options{ToolChoice: &session.ToolChoice{Mode: "specific", ToolName: "t"}}, ""},
		{"auto", session.Options{ToolChoice: &session.ToolChoice{Mode: "auto"}}, ""},
		{"none", session.Options{ToolChoice: &session.ToolChoice{Mode: "none"}}, ""},
		{"required", session.Options{ToolChoice: &session.ToolChoice{Mode: "required"}}, ""},
		{"positive MaxTokens", session.Options{MaxTokens: 10, MaxFrameBytes: 10}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkNew(t, tc.opts, tc.wantErr)
		})
	}
}

func TestReset(t *testing.T) {
	proxy, base := startProxy(t,
		fakeproxy.Reply{Body: fakeproxy.TextStream("one")},
		fakeproxy.Reply{Body: fakeproxy.TextStream("two")})
	s := newSession(t, base, nil)
	require.Equal(t, session.StatusCompleted, chat(t, context.Background(), s, "hi").Status)
	assert.Equal(t, []string{"user: hi", "assistant: one"}, roles(s.Messages()))

	s.Reset()
	assert.Empty(t, s.Messages())

	require.Equal(t, session.StatusCompleted, chat(t, context.Background(), s, "fresh").Status)
	assert.Equal(t, []string{"user: fresh", "assistant: two"}, roles(s.Messages()))
	reqs := fakeproxy.WithoutMCP(proxy.Requests())
	require.Len(t, reqs, 2)
	assert.Equal(t, []any{map[string]any{"role": "user", "content": "fresh"}}, reqs[1].JSON()["messages"],
		"the request after Reset carries only the new message")
}

func TestMessagesReturnsACopy(t *testing.T) {
	_, base := startProxy(t, fakeproxy.Reply{Body: fakeproxy.TextStream("one")})
	s := newSession(t, base, nil)
	require.Equal(t, session.StatusCompleted, chat(t, context.Background(), s, "hi").Status)
	msgs := s.Messages()
	require.Len(t, msgs, 2)
	msgs[0].Content = "changed"
	assert.Equal(t, "hi", s.Messages()[0].Content)
}

// TestConcurrentSessions runs sessions at once against one proxy, each
// taking its turns in sequence; each keeps its own history (run with -race).
func TestConcurrentSessions(t *testing.T) {
	cases := []struct {
		name            string
		sessions, turns int
	}{
		{"8 sessions, one turn each", 8, 1},
		{"100 sessions, 10 turns each", 100, 10},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			proxy := fakeproxy.New(fakeproxy.Reply{Body: fakeproxy.TextStream("same", " answer"), Chunk: 7})
			srv := httptest.NewServer(proxy)
			defer srv.Close()
			var wg sync.WaitGroup
			failed := make([]string, tc.sessions)
			sessions := make([]*session.Session, tc.sessions)
			for i := range tc.sessions {
				sessions[i] = newSession(t, srv.URL+"/api", nil)
			}
			for i := range tc.sessions {
				wg.Go(func() {
					for j := range tc.turns {
						turn := sessions[i].Chat(context.Background(), fmt.Sprint("q", i, ".", j))
						if turn.Status != session.StatusCompleted || turn.Text != "same answer" {
							failed[i] = fmt.Sprintf("turn %d: %s %q %s", j, turn.Status, turn.Text, turn.ErrorMessage)
							return
						}
					}
				})
			}
			wg.Wait()
			for i := range tc.sessions {
				require.Empty(t, failed[i], "session %d", i)
				var want []string
				for j := range tc.turns {
					want = append(want, fmt.Sprint("user: q", i, ".", j), "assistant: same answer")
				}
				assert.Equal(t, want, roles(sessions[i].Messages()), "session %d", i)
			}
			assert.Len(t, fakeproxy.WithoutMCP(proxy.Requests()), tc.sessions*tc.turns)
		})
	}
}
