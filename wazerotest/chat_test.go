package wazerotest_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentwasm/agentwasm/testing/fakeproxy"
	"github.com/agentwasm/agentwasm/wazerotest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// waitBound is how long a test waits for something that should happen
// promptly before it gives up; it never decides a test's outcome by itself.
const waitBound = 60 * time.Second

// chatEvents keeps the chat events of evs: not the toolDiscovery report the
// default MCP client publishes for a failed pass on a proxy with no /mcp.
func chatEvents(evs []wazerotest.Event) []wazerotest.Event {
	var out []wazerotest.Event
	for _, ev := range evs {
		if ev.Type == "chat" {
			out = append(out, ev)
		}
	}
	return out
}

func eventTypes(evs []wazerotest.StreamEvent) []string {
	out := []string{}
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return out
}

// crlf turns every LF line end of s into CRLF.
func crlf(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

// textTypes are the recorded events of a text answer: its run of text
// deltas is one textDelta.
var textTypes = []string{"messageStart", "textDelta", "messageStop"}

// coalesced folds each run of contiguous text deltas into one, as a turn
// records them (the host's events have each delta apart).
func coalesced(evs []wazerotest.StreamEvent) []wazerotest.StreamEvent {
	var out []wazerotest.StreamEvent
	for _, e := range evs {
		if n := len(out); n > 0 && e.Type == "textDelta" && out[n-1].Type == "textDelta" {
			out[n-1].Text += e.Text
			continue
		}
		out = append(out, e)
	}
	return out
}

func TestTextTurn(t *testing.T) {
	proxy := fakeproxy.New(fakeproxy.Reply{Body: fakeproxy.TextStream("Hel", "lo, ", "world")})
	inst := wazerotest.New(t, wazerotest.Options{Handler: proxy})
	ctx := context.Background()
	id := inst.CreateSession(ctx, map[string]any{"model": "m1", "system": "be brief"})
	turn := inst.Chat(ctx, id, "hi")

	assert.Equal(t, "completed", turn.Status, turn.ErrorMessage)
	assert.Equal(t, "Hello, world", turn.Text)
	assert.Equal(t, "endTurn", turn.StopReason)
	assert.Equal(t, 1, turn.Rounds)
	assert.Equal(t, textTypes, eventTypes(turn.Events))

	// The events streamed to the host arrive in the order the turn records
	// them, each text delta apart.
	events := chatEvents(inst.Events(id))
	require.Len(t, events, 5)
	var streamed []wazerotest.StreamEvent
	for _, ev := range events {
		assert.Equal(t, "chat", ev.Type)
		streamed = append(streamed, *ev.Event)
	}
	assert.Equal(t, turn.Events, coalesced(streamed))

	reqs := fakeproxy.WithoutMCP(proxy.Requests())
	require.Len(t, reqs, 1)
	assert.Equal(t, "POST", reqs[0].Method)
	assert.Equal(t, "text/event-stream", reqs[0].Header.Get("accept"))
	assert.Equal(t, "application/json", reqs[0].Header.Get("content-type"))
	body := reqs[0].JSON()
	assert.Equal(t, "m1", body["model"])
	assert.Equal(t, "be brief", body["system"])
	assert.Equal(t, []any{map[string]any{"role": "user", "content": "hi"}}, body["messages"])
	assert.Equal(t, 0, inst.InFlight(), "the module closed its request")
}

func TestTextTurnSplitAtEveryByte(t *testing.T) {
	cases := []struct {
		name string
		body string
	}{
		{"LF", fakeproxy.TextStream("Hel", "lo, ", "world")},
		{"CRLF", crlf(fakeproxy.TextStream("Hel", "lo, ", "world"))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			proxy := fakeproxy.New(fakeproxy.Reply{Body: tc.body, Chunk: 1})
			inst := wazerotest.New(t, wazerotest.Options{Handler: proxy})
			ctx := context.Background()
			id := inst.CreateSession(ctx, nil)
			turn := inst.Chat(ctx, id, "hi")
			assert.Equal(t, "completed", turn.Status, turn.ErrorMessage)
			assert.Equal(t, "Hello, world", turn.Text)
			assert.Equal(t, "endTurn", turn.StopReason)
			assert.Equal(t, textTypes, eventTypes(turn.Events))
			assert.Equal(t, 0, inst.InFlight())
		})
	}
}

func TestHistoryGrowsAcrossTurns(t *testing.T) {
	proxy := fakeproxy.New(
		fakeproxy.Reply{Body: fakeproxy.TextStream("one")},
		fakeproxy.Reply{Body: fakeproxy.TextStream("two")})
	inst := wazerotest.New(t, wazerotest.Options{Handler: proxy})
	ctx := context.Background()
	id := inst.CreateSession(ctx, nil)
	assert.Equal(t, "one", inst.Chat(ctx, id, "hi").Text)
	assert.Equal(t, "two", inst.Chat(ctx, id, "again").Text)
	reqs := fakeproxy.WithoutMCP(proxy.Requests())
	require.Len(t, reqs, 2)
	assert.Equal(t, []any{
		map[string]any{"role": "user", "content": "hi"},
		map[string]any{"role": "assistant", "content": "one"},
		map[string]any{"role": "user", "content": "again"},
	}, reqs[1].JSON()["messages"])
}

func TestCancelledOnSilentProxy(t *testing.T) {
	proxy := fakeproxy.New(fakeproxy.Reply{Hang: true})
	inst := wazerotest.New(t, wazerotest.Options{Handler: proxy})
	id := inst.CreateSession(context.Background(), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	turn := inst.Chat(ctx, id, "hi")
	assert.Equal(t, "cancelled", turn.Status)
	assert.Equal(t, 0, inst.InFlight(), "the module closed its request")
}

func TestCancelMidStream(t *testing.T) {
	partial := fakeproxy.Frame("message_start", `{"model":"m"}`) + fakeproxy.Frame("text_delta", `{"text":"Hel"}`)
	proxy := fakeproxy.New(fakeproxy.Reply{Body: partial, HangAfterBody: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inst := wazerotest.New(t, wazerotest.Options{Handler: proxy, OnEvent: func(_ int, ev wazerotest.Event) {
		if ev.Event != nil && ev.Event.Type == "textDelta" {
			cancel()
		}
	}})
	id := inst.CreateSession(context.Background(), nil)
	turn := inst.Chat(ctx, id, "hi")
	assert.Equal(t, "cancelled", turn.Status, turn.ErrorMessage)
	assert.Equal(t, "Hel", turn.Text)
	assert.Equal(t, 0, inst.InFlight(), "the module closed its request")
}

func TestOnEventOption(t *testing.T) {
	proxy := fakeproxy.New(fakeproxy.Reply{Body: fakeproxy.TextStream("Hel", "lo")})
	type got struct {
		session int
		ev      wazerotest.Event
	}
	var seen []got
	inst := wazerotest.New(t, wazerotest.Options{Handler: proxy, OnEvent: func(session int, ev wazerotest.Event) {
		if ev.Type == "toolDiscovery" {
			assert.Equal(t, 1, session) // the failed pass's report, on the only session
			return
		}
		seen = append(seen, got{session, ev})
	}})
	ctx := context.Background()
	id := inst.CreateSession(ctx, nil)
	turn := inst.Chat(ctx, id, "hi")
	require.Equal(t, "completed", turn.Status, turn.ErrorMessage)
	require.Len(t, seen, 5, "messageStart, each of the two text deltas, messageStop, the round's step")
	last := seen[4]
	seen = seen[:4]
	assert.Equal(t, "stepFinish", last.ev.Type)
	if assert.NotNil(t, last.ev.Step) {
		assert.Equal(t, wazerotest.Step{Round: 1, Text: "Hello", ToolCalls: []wazerotest.DispatchRecord{}, StopReason: "endTurn",
			Usage: &wazerotest.Usage{InputTokens: 12, OutputTokens: 7}}, *last.ev.Step)
	}
	assert.Equal(t, &wazerotest.Usage{InputTokens: 12, OutputTokens: 7}, turn.Usage)
	var streamed []wazerotest.StreamEvent
	for _, g := range seen {
		assert.Equal(t, id, g.session)
		assert.Equal(t, "chat", g.ev.Type)
		if assert.NotNil(t, g.ev.Event) {
			streamed = append(streamed, *g.ev.Event)
		}
	}
	assert.Equal(t, turn.Events, coalesced(streamed), "the turn records the run of deltas as one")
	assert.Equal(t, "Hel", seen[1].ev.Event.Text)
	assert.Equal(t, "fake-model", seen[0].ev.Event.Model)
}

func TestHandlerPanic(t *testing.T) {
	proxy := fakeproxy.New(fakeproxy.Reply{Body: fakeproxy.TextStream("recovered")})
	var mu sync.Mutex
	calls := 0
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != fakeproxy.ChatPath {
			proxy.ServeHTTP(w, r) // the default MCP client's discovery: 404
			return
		}
		mu.Lock()
		calls++
		first := calls == 1
		mu.Unlock()
		if first {
			panic("handler bug")
		}
		proxy.ServeHTTP(w, r)
	})
	inst := wazerotest.New(t, wazerotest.Options{Handler: handler})
	ctx := context.Background()
	id := inst.CreateSession(ctx, nil)

	turn := inst.Chat(ctx, id, "hi")
	assert.Equal(t, "error", turn.Status)
	assert.Equal(t, "Could not reach the Studio AI proxy at /api/v1/studio/ai/chat: wazerotest: the handler panicked: handler bug", turn.ErrorMessage)
	assert.Equal(t, 0, inst.InFlight())

	turn = inst.Chat(ctx, id, "again")
	assert.Equal(t, "completed", turn.Status, "the instance still serves: %s", turn.ErrorMessage)
	assert.Equal(t, "recovered", turn.Text)
}

func TestNilHandler(t *testing.T) {
	inst := wazerotest.New(t, wazerotest.Options{})
	ctx := context.Background()
	id := inst.CreateSession(ctx, map[string]any{"baseUrl": "https://studio.example/api"})
	turn := inst.Chat(ctx, id, "hi")
	assert.Equal(t, "error", turn.Status)
	assert.Equal(t, "Could not reach the Studio AI proxy at https://studio.example/api/v1/studio/ai/chat: wazerotest: no Handler configured; nothing serves https://studio.example/api/v1/studio/ai/chat", turn.ErrorMessage)
	assert.Empty(t, turn.Events)
	assert.Equal(t, 0, inst.InFlight())
}

// TestTwoInstancesSideBySide runs turns in two instances at once, each
// against its own proxy. Every first request waits until the other instance
// has sent one too, so the turns really overlap.
func TestTwoInstancesSideBySide(t *testing.T) {
	bound, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	entered := []chan struct{}{make(chan struct{}), make(chan struct{})}
	var once [2]sync.Once
	names := []string{"alpha", "beta"}
	insts := make([]*wazerotest.Instance, 2)
	for k := range insts {
		proxy := fakeproxy.New(fakeproxy.Reply{Body: fakeproxy.TextStream(names[k], " says hi"), Chunk: 5})
		handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			once[k].Do(func() { close(entered[k]) })
			select {
			case <-entered[1-k]:
			case <-bound.Done():
				http.Error(w, "the other instance never sent a request", http.StatusGatewayTimeout)
				return
			case <-r.Context().Done():
				return
			}
			proxy.ServeHTTP(w, r)
		})
		insts[k] = wazerotest.New(t, wazerotest.Options{Handler: handler})
	}

	const turns = 3
	type result struct {
		reply wazerotest.Reply
		err   error
	}
	results := make([][]result, 2)
	var wg sync.WaitGroup
	for k, inst := range insts {
		id := inst.CreateSession(bound, map[string]any{"model": names[k]})
		wg.Go(func() {
			for n := range turns {
				r, err := inst.Do(bound, map[string]any{"op": "session.chat", "session": id, "text": fmt.Sprint("turn ", n)})
				results[k] = append(results[k], result{r, err})
			}
		})
	}
	wg.Wait()
	for k := range insts {
		require.Len(t, results[k], turns)
		for n, res := range results[k] {
			require.NoError(t, res.err)
			require.True(t, res.reply.OK, "%+v", res.reply.Error)
			require.NotNil(t, res.reply.Turn)
			assert.Equal(t, "completed", res.reply.Turn.Status, "instance %d turn %d: %s", k, n, res.reply.Turn.ErrorMessage)
			assert.Equal(t, names[k]+" says hi", res.reply.Turn.Text, "instance %d turn %d", k, n)
		}
	}
}

func TestDebugPanicKeepsServing(t *testing.T) {
	proxy := fakeproxy.New(fakeproxy.Reply{Body: fakeproxy.TextStream("still ", "here")})
	inst := wazerotest.New(t, wazerotest.Options{Handler: proxy})
	ctx := context.Background()
	if inst.TinyGo(ctx) {
		t.Skip("TinyGo cannot recover a panic on wasm (its compiler has no recover for wasm32): in the TinyGo build " +
			"a panic traps the instance, so it must never panic on any input; TestDebugCrashKillsTheModule shows the trap")
	}
	id := inst.CreateSession(ctx, nil)

	r, err := inst.Do(ctx, map[string]any{"op": "debug.panic"})
	require.NoError(t, err, "a panic in the module is an error reply, not a trap")
	assert.False(t, r.OK)
	require.NotNil(t, r.Error)
	assert.Equal(t, "internal", r.Error.Code)
	assert.Contains(t, r.Error.Message, "recovered panic")

	turn := inst.Chat(ctx, id, "hi")
	assert.Equal(t, "completed", turn.Status, turn.ErrorMessage)
	assert.Equal(t, "still here", turn.Text)
	assert.Equal(t, 1, inst.Version(ctx).ABI, "version still answers")
}

func TestDisableTestHooks(t *testing.T) {
	inst := wazerotest.New(t, wazerotest.Options{DisableTestHooks: true})
	r, err := inst.Do(context.Background(), map[string]any{"op": "debug.panic"})
	require.NoError(t, err)
	assert.False(t, r.OK)
	require.NotNil(t, r.Error)
	assert.Equal(t, "bad_command", r.Error.Code)
	assert.Contains(t, r.Error.Message, `"debug.panic"`)
}

func TestVersion(t *testing.T) {
	inst := wazerotest.New(t, wazerotest.Options{})
	v := inst.Version(context.Background())
	assert.True(t, v.OK)
	assert.Equal(t, 1, v.ABI)
	assert.Equal(t, "0.1.0", v.Version)
	// goVersion names the compiler: the Go release, or TinyGo's (make test-tiny sets
	// AGENTWASM_WASIP1_TOOLCHAIN=tinygo for the TinyGo build).
	if wazerotest.ExpectTinyGo() {
		assert.Regexp(t, `^tinygo0\.\d+\.\d+$`, v.GoVersion)
	} else {
		assert.Regexp(t, `^go1\.`, v.GoVersion)
	}
}

// debug.crash kills the module in every build: the Go runtime prints the
// panic and exits (WASI proc_exit 2), a TinyGo build traps. Either way the
// call fails, and so does every later one.
func TestDebugCrashKillsTheModule(t *testing.T) {
	var stderr syncBuffer
	inst := wazerotest.New(t, wazerotest.Options{Stderr: &stderr})
	ctx := context.Background()
	tiny := inst.TinyGo(ctx)
	_, err := inst.Do(ctx, map[string]any{"op": "debug.crash"})
	require.Error(t, err, "debug.crash never answers")
	t.Logf("stderr: %s", stderr.String())
	assert.Contains(t, err.Error(), "unreachable", "a TinyGo build traps")
	if !tiny {
		assert.Contains(t, stderr.String(), "panic: agentwasm: debug.crash")
	}
	_, err = inst.Do(ctx, map[string]any{"op": "version"})
	assert.ErrorContains(t, err, "died in an earlier call")

	// Without test hooks it is an unknown op.
	off := wazerotest.New(t, wazerotest.Options{DisableTestHooks: true})
	r, err := off.Do(ctx, map[string]any{"op": "debug.crash"})
	require.NoError(t, err)
	require.NotNil(t, r.Error)
	assert.Equal(t, "bad_command", r.Error.Code)
}

// syncBuffer collects the module's output, safe for its writes and the test's reads.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestSessionCloseInModule(t *testing.T) {
	inst := wazerotest.New(t, wazerotest.Options{Handler: fakeproxy.New(fakeproxy.Reply{Body: fakeproxy.TextStream("x")})})
	ctx := context.Background()
	id := inst.CreateSession(ctx, nil)
	inst.CloseSession(ctx, id)
	r, err := inst.Do(ctx, map[string]any{"op": "session.chat", "session": id, "text": "hi"})
	require.NoError(t, err)
	assert.False(t, r.OK)
	require.NotNil(t, r.Error)
	assert.Equal(t, "unknown_session", r.Error.Code)
}

func TestBadOptionsInModule(t *testing.T) {
	inst := wazerotest.New(t, wazerotest.Options{})
	r, err := inst.Do(context.Background(), map[string]any{"op": "session.create", "options": map[string]any{"maxTokens": -1}})
	require.NoError(t, err)
	assert.False(t, r.OK)
	require.NotNil(t, r.Error)
	assert.Equal(t, "bad_options", r.Error.Code)
}

func TestMalformedCommandInModule(t *testing.T) {
	inst := wazerotest.New(t, wazerotest.Options{})
	out, err := inst.Call(context.Background(), []byte(`{"op":`))
	require.NoError(t, err)
	assert.Contains(t, string(out), `"code":"bad_command"`)
	assert.Contains(t, string(out), `"ok":false`)
}
