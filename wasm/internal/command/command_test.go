//go:build !js && !wasip1

package command_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/testing/fakeproxy"
	"github.com/agentwasm/agentwasm/wasm/internal/command"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// waitBound is how long a test waits for something that should happen
// promptly before it gives up; it never decides a test's outcome by itself.
const waitBound = 30 * time.Second

// reply is a command reply as a host decodes it.
type reply struct {
	OK        bool   `json:"ok"`
	Version   string `json:"version"`
	ABI       int    `json:"abi"`
	GoVersion string `json:"goVersion"`
	Serve     bool   `json:"serve"`
	Session   int    `json:"session"`
	Turn      *struct {
		Status       string            `json:"status"`
		Text         string            `json:"text"`
		ToolCalls    []json.RawMessage `json:"toolCalls"`
		Events       []json.RawMessage `json:"events"`
		StopReason   string            `json:"stopReason"`
		ErrorMessage string            `json:"errorMessage"`
		ErrorCode    string            `json:"errorCode"`
		Rounds       int               `json:"rounds"`
	} `json:"turn"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// call sends one command (a JSON string, or any value to marshal) and
// decodes the reply. The call must return within waitBound.
func call(t *testing.T, ctx context.Context, rt *command.Runtime, cmd any, hooks command.Hooks) (reply, string) {
	t.Helper()
	raw, ok := cmd.(string)
	if !ok {
		b, err := json.Marshal(cmd)
		require.NoError(t, err)
		raw = string(b)
	}
	done := make(chan []byte, 1)
	go func() { done <- rt.Call(ctx, []byte(raw), hooks) }()
	bound, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	var out []byte
	select {
	case out = <-done:
	case <-bound.Done():
		t.Fatalf("command %s did not return", raw)
	}
	var r reply
	require.NoError(t, json.Unmarshal(out, &r), "the reply is JSON: %s", out)
	if r.OK {
		assert.Nil(t, r.Error, "a successful reply carries no error: %s", out)
	} else if assert.NotNil(t, r.Error, "a failed reply says why: %s", out) {
		assert.NotEmpty(t, r.Error.Message)
	}
	return r, string(out)
}

// proxyHooks serves a fake proxy with replies and returns hooks whose fetcher
// reaches it, with the baseUrl to create sessions with.
func proxyHooks(t *testing.T, replies ...fakeproxy.Reply) (*fakeproxy.Proxy, command.Hooks, string) {
	t.Helper()
	proxy := fakeproxy.New(replies...)
	srv := httptest.NewServer(proxy)
	t.Cleanup(func() {
		// Hanging replies end with their connections, so a turn that failed
		// to cancel its request fails the test instead of blocking Close.
		srv.CloseClientConnections()
		srv.Close()
	})
	return proxy, command.Hooks{Fetcher: &bridge.HTTPFetcher{}}, srv.URL + "/api"
}

// create opens a session and returns its id.
func create(t *testing.T, rt *command.Runtime, options map[string]any, hooks command.Hooks) int {
	t.Helper()
	r, raw := call(t, context.Background(), rt, map[string]any{"op": "session.create", "options": options}, hooks)
	require.True(t, r.OK, raw)
	require.GreaterOrEqual(t, r.Session, 1)
	return r.Session
}

// isChat says whether req is a chat request (not an MCP or capabilities
// request).
func isChat(req *bridge.Request) bool { return strings.HasSuffix(req.URL, fakeproxy.ChatPath) }

// isChatEvent says whether a hook event is a chat event (not, say, the
// default MCP client's toolDiscovery report).
func isChatEvent(event []byte) bool { return bytes.HasPrefix(event, []byte(`{"type":"chat",`)) }

// mcpNotFound is a 404, what a proxy without an MCP endpoint answers.
func mcpNotFound() *bridge.Response {
	return &bridge.Response{Status: 404, Header: bridge.Header{}, Body: io.NopCloser(strings.NewReader("not found"))}
}

func chatCmd(id int, text string) map[string]any {
	return map[string]any{"op": "session.chat", "session": id, "text": text}
}

func TestVersion(t *testing.T) {
	r, raw := call(t, context.Background(), command.New(false), `{"op":"version"}`, command.Hooks{})
	require.True(t, r.OK, raw)
	assert.Equal(t, command.ABIVersion, r.ABI)
	assert.Equal(t, 1, r.ABI, "ABI 1 is what wasm/README.md documents")
	assert.Equal(t, command.Version, r.Version)
	assert.Equal(t, runtime.Version(), r.GoVersion)
	assert.Equal(t, command.HasServe, r.Serve, "serve says whether the build has the port: true but in the session-only build")
}

func TestBadCommands(t *testing.T) {
	cases := []struct {
		name      string
		testHooks bool
		cmd       string
		code      string
		contains  string
	}{
		{"not JSON", true, `op=version`, command.CodeBadCommand, "malformed JSON or has a field of the wrong type"},
		{"truncated JSON", true, `{"op":"version"`, command.CodeBadCommand, "malformed JSON or has a field of the wrong type"},
		{"trailing garbage", true, `{"op":"version"} x`, command.CodeBadCommand, "malformed JSON or has a field of the wrong type"},
		{"empty", true, ``, command.CodeBadCommand, "malformed JSON or has a field of the wrong type"},
		{"JSON array", true, `[]`, command.CodeBadCommand, "malformed JSON or has a field of the wrong type"},
		{"wrong field type", true, `{"op":"session.chat","session":"one"}`, command.CodeBadCommand, "malformed JSON or has a field of the wrong type"},
		{"unknown op", true, `{"op":"session.explode"}`, command.CodeBadCommand, `unknown op "session.explode"`},
		{"no op", true, `{}`, command.CodeBadCommand, `unknown op ""`},
		{"debug.panic without test hooks", false, `{"op":"debug.panic"}`, command.CodeBadCommand, `unknown op "debug.panic"`},
		{"unknown debug op with test hooks", true, `{"op":"debug.nothing"}`, command.CodeBadCommand, `unknown op "debug.nothing"`},
		{"chat on an unknown session", true, `{"op":"session.chat","session":42,"text":"hi"}`, command.CodeUnknownSession, "no open session 42"},
		{"chat without a session", true, `{"op":"session.chat","text":"hi"}`, command.CodeUnknownSession, "no open session 0"},
		{"close an unknown session", true, `{"op":"session.close","session":7}`, command.CodeUnknownSession, "no open session 7"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, raw := call(t, context.Background(), command.New(tc.testHooks), tc.cmd, command.Hooks{})
			assert.False(t, r.OK, raw)
			require.NotNil(t, r.Error, raw)
			assert.Equal(t, tc.code, r.Error.Code)
			assert.Contains(t, r.Error.Message, tc.contains)
		})
	}
}

func TestNegativeTimeout(t *testing.T) {
	proxy, hooks, base := proxyHooks(t, fakeproxy.Reply{Body: fakeproxy.TextStream("x")})
	rt := command.New(false)
	id := create(t, rt, map[string]any{"baseUrl": base}, hooks)
	cmd := chatCmd(id, "hi")
	cmd["timeoutMs"] = -1
	r, raw := call(t, context.Background(), rt, cmd, hooks)
	require.False(t, r.OK, raw)
	assert.Equal(t, command.CodeBadCommand, r.Error.Code)
	assert.Contains(t, r.Error.Message, "timeoutMs")
	assert.Empty(t, proxy.Requests(), "a refused command sends nothing")
}

func TestDebugPanicIsRecovered(t *testing.T) {
	_, hooks, base := proxyHooks(t, fakeproxy.Reply{Body: fakeproxy.TextStream("still ", "here")})
	rt := command.New(true)
	id := create(t, rt, map[string]any{"baseUrl": base}, hooks)

	r, raw := call(t, context.Background(), rt, `{"op":"debug.panic"}`, hooks)
	require.False(t, r.OK, raw)
	assert.Equal(t, command.CodeInternal, r.Error.Code)
	assert.Contains(t, r.Error.Message, "recovered panic")
	assert.Contains(t, r.Error.Message, "still serving")

	// The session made before the panic, and a new one, both still work.
	for _, sid := range []int{id, create(t, rt, map[string]any{"baseUrl": base}, hooks)} {
		r, raw = call(t, context.Background(), rt, chatCmd(sid, "hi"), hooks)
		require.True(t, r.OK, raw)
		require.NotNil(t, r.Turn, raw)
		assert.Equal(t, "completed", r.Turn.Status, r.Turn.ErrorMessage)
		assert.Equal(t, "still here", r.Turn.Text)
	}
}

// TestDebugCrashKillsTheProcess runs debug.crash in a child process (this
// test binary again): the panic on a goroutine of its own is recovered by
// nothing, so the program dies with Go's exit code 2 and the panic's text,
// as the Go builds of the module do (a TinyGo build traps instead).
func TestDebugCrashKillsTheProcess(t *testing.T) {
	if os.Getenv("AGENTWASM_DEBUG_CRASH_CHILD") == "1" {
		command.New(true).Call(context.Background(), []byte(`{"op":"debug.crash"}`), command.Hooks{})
		fmt.Println("debug.crash returned")
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestDebugCrashKillsTheProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "AGENTWASM_DEBUG_CRASH_CHILD=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "the child must die: %s", out)
	assert.Equal(t, 2, exit.ExitCode(), "%s", out)
	assert.Contains(t, string(out), "panic: agentwasm: debug.crash")
	assert.NotContains(t, string(out), "debug.crash returned")

	// Without test hooks it is an unknown op, like debug.panic.
	r, raw := call(t, context.Background(), command.New(false), `{"op":"debug.crash"}`, command.Hooks{})
	require.False(t, r.OK, raw)
	assert.Equal(t, command.CodeBadCommand, r.Error.Code)
}

func TestPanickingFetcherIsRecovered(t *testing.T) {
	calls := 0
	hooks := command.Hooks{Fetcher: bridge.FetcherFunc(func(ctx context.Context, req *bridge.Request) (*bridge.Response, error) {
		if !isChat(req) {
			return mcpNotFound(), nil // the default MCP client's discovery fails fast
		}
		calls++
		if calls == 1 {
			panic("host fetch bug")
		}
		return nil, &bridge.FetchError{URL: req.URL, Err: errors.New("offline")}
	})}
	rt := command.New(false)
	id := create(t, rt, nil, hooks)
	// A panic in a host callback is the turn's error, not the command's.
	r, raw := call(t, context.Background(), rt, chatCmd(id, "hi"), hooks)
	require.True(t, r.OK, raw)
	assert.Equal(t, "error", r.Turn.Status)
	assert.Equal(t, "The chat transport panicked: host fetch bug", r.Turn.ErrorMessage)

	// The session is not left busy by the panic.
	r, raw = call(t, context.Background(), rt, chatCmd(id, "again"), hooks)
	require.True(t, r.OK, raw)
	assert.Equal(t, "error", r.Turn.Status)
	assert.Equal(t, "Could not reach the Studio AI proxy at /api/v1/studio/ai/chat: offline", r.Turn.ErrorMessage)
}

func TestBadOptions(t *testing.T) {
	cases := []struct {
		name     string
		options  string
		contains string
	}{
		{"negative maxTokens", `{"maxTokens":-1}`, "MaxTokens is -1"},
		{"negative maxFrameBytes", `{"maxFrameBytes":-1}`, "MaxFrameBytes is -1"},
		{"bad toolChoice mode", `{"toolChoice":{"mode":"sometimes"}}`, `"sometimes"`},
		{"specific without toolName", `{"toolChoice":{"mode":"specific"}}`, "ToolName"},
		{"maxTokens not a number", `{"maxTokens":"many"}`, "malformed"},
		{"options not an object", `"fast"`, "malformed"},
		{"options an array", `[1]`, "malformed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rt := command.New(false)
			r, raw := call(t, context.Background(), rt, `{"op":"session.create","options":`+tc.options+`}`, command.Hooks{})
			require.False(t, r.OK, raw)
			assert.Equal(t, command.CodeBadOptions, r.Error.Code)
			assert.Contains(t, r.Error.Message, tc.contains)
			assert.Zero(t, r.Session)
		})
	}
}

func TestSessionLifecycle(t *testing.T) {
	_, hooks, base := proxyHooks(t, fakeproxy.Reply{Body: fakeproxy.TextStream("ok")})
	rt := command.New(false)
	a := create(t, rt, map[string]any{"baseUrl": base}, hooks)
	b := create(t, rt, map[string]any{"baseUrl": base}, hooks)
	assert.NotEqual(t, a, b, "every session gets its own id")

	r, raw := call(t, context.Background(), rt, map[string]any{"op": "session.close", "session": a}, hooks)
	require.True(t, r.OK, raw)

	r, raw = call(t, context.Background(), rt, chatCmd(a, "hi"), hooks)
	require.False(t, r.OK, raw)
	assert.Equal(t, command.CodeUnknownSession, r.Error.Code)

	r, raw = call(t, context.Background(), rt, map[string]any{"op": "session.close", "session": a}, hooks)
	require.False(t, r.OK, raw)
	assert.Equal(t, command.CodeUnknownSession, r.Error.Code, "a session closes once")

	// The other session is unaffected.
	r, raw = call(t, context.Background(), rt, chatCmd(b, "hi"), hooks)
	require.True(t, r.OK, raw)
	assert.Equal(t, "completed", r.Turn.Status)
	assert.Equal(t, "ok", r.Turn.Text)

	c := create(t, rt, map[string]any{"baseUrl": base}, hooks)
	assert.NotContains(t, []int{a, b}, c, "ids are not reused")
}

func TestChatReply(t *testing.T) {
	proxy, hooks, base := proxyHooks(t, fakeproxy.Reply{Body: fakeproxy.TextStream("Hel", "lo")})
	rt := command.New(false)
	id := create(t, rt, map[string]any{
		"baseUrl": base, "model": "m1", "provider": "p1", "system": "sys",
		"maxTokens": 100, "temperature": 0.5, "toolChoice": map[string]any{"mode": "none"},
		"unknownField": true,
	}, hooks)
	r, raw := call(t, context.Background(), rt, chatCmd(id, "hi"), hooks)
	require.True(t, r.OK, raw)
	require.NotNil(t, r.Turn)
	assert.Equal(t, "completed", r.Turn.Status)
	assert.Equal(t, "Hello", r.Turn.Text)
	assert.Equal(t, "endTurn", r.Turn.StopReason)
	assert.Equal(t, 1, r.Turn.Rounds)
	assert.Len(t, r.Turn.Events, 3, "messageStart, the run of two text deltas as one, messageStop")
	assert.Contains(t, raw, `"toolCalls":[]`, "toolCalls is an empty list, not null")
	assert.NotContains(t, raw, `"errorMessage"`)

	reqs := fakeproxy.WithoutMCP(proxy.Requests())
	require.Len(t, reqs, 1)
	assert.Equal(t, map[string]any{
		"model": "m1", "provider": "p1", "system": "sys", "maxTokens": float64(100), "temperature": 0.5,
		"toolChoice": map[string]any{"mode": "none"},
		"messages":   []any{map[string]any{"role": "user", "content": "hi"}},
	}, reqs[0].JSON(), "the session options reach the chat request")
}

func TestFailedTurnIsASuccessfulCommand(t *testing.T) {
	_, hooks, base := proxyHooks(t, fakeproxy.Reply{Status: 502})
	rt := command.New(false)
	id := create(t, rt, map[string]any{"baseUrl": base}, hooks)
	r, raw := call(t, context.Background(), rt, chatCmd(id, "hi"), hooks)
	require.True(t, r.OK, raw)
	assert.Equal(t, "error", r.Turn.Status)
	assert.Equal(t, "Studio AI proxy responded 502 for the chat request.", r.Turn.ErrorMessage)
	assert.Contains(t, raw, `"events":[]`, "events is an empty list, not null")
}

func TestEventsHook(t *testing.T) {
	_, hooks, base := proxyHooks(t, fakeproxy.Reply{Body: fakeproxy.TextStream("Hel", "lo")})
	type got struct {
		session int
		json    string
	}
	var mu sync.Mutex
	var events []got
	var others []int // the sessions of the other events (the failed discovery report)
	hooks.OnEvent = func(session int, event []byte) {
		mu.Lock()
		defer mu.Unlock()
		if !isChatEvent(event) {
			others = append(others, session)
			return
		}
		events = append(events, got{session, string(event)})
	}
	rt := command.New(false)
	id := create(t, rt, map[string]any{"baseUrl": base}, hooks)
	r, raw := call(t, context.Background(), rt, chatCmd(id, "hi"), hooks)
	require.True(t, r.OK, raw)

	mu.Lock()
	defer mu.Unlock()
	want := []string{
		`{"type":"chat","event":{"type":"messageStart","model":"fake-model"}}`,
		`{"type":"chat","event":{"type":"textDelta","text":"Hel"}}`,
		`{"type":"chat","event":{"type":"textDelta","text":"lo"}}`,
		`{"type":"chat","event":{"type":"messageStop","stopReason":"endTurn","promptTokens":12,"completionTokens":7,"latencyMs":42}}`,
	}
	for _, sid := range others {
		assert.Equal(t, id, sid)
	}
	require.Len(t, events, len(want))
	for k, ev := range events {
		assert.Equal(t, id, ev.session)
		assert.Equal(t, want[k], ev.json)
	}
	// The hook saw every delta; the turn recorded the run of deltas as one.
	recorded := []string{
		`{"type":"messageStart","model":"fake-model"}`,
		`{"type":"textDelta","text":"Hello"}`,
		`{"type":"messageStop","stopReason":"endTurn","promptTokens":12,"completionTokens":7,"latencyMs":42}`,
	}
	require.Len(t, r.Turn.Events, len(recorded))
	for k, ev := range r.Turn.Events {
		assert.JSONEq(t, recorded[k], string(ev))
	}
}

func TestEventsGoToTheirOwnSession(t *testing.T) {
	_, hooks, base := proxyHooks(t, fakeproxy.Reply{Body: fakeproxy.TextStream("x")})
	counts := map[int]int{}
	hooks.OnEvent = func(session int, event []byte) {
		if isChatEvent(event) { // not the discovery reports
			counts[session]++
		}
	}
	rt := command.New(false)
	a := create(t, rt, map[string]any{"baseUrl": base}, hooks)
	b := create(t, rt, map[string]any{"baseUrl": base}, hooks)
	for _, id := range []int{b, b, a} {
		r, raw := call(t, context.Background(), rt, chatCmd(id, "hi"), hooks)
		require.True(t, r.OK, raw)
	}
	assert.Equal(t, map[int]int{a: 3, b: 6}, counts)
}

func TestTimeoutOnHangingProxy(t *testing.T) {
	var deadline time.Time
	var hasDeadline bool
	var ctxErr error
	hooks := command.Hooks{Fetcher: bridge.FetcherFunc(func(ctx context.Context, req *bridge.Request) (*bridge.Response, error) {
		if !isChat(req) {
			return mcpNotFound(), nil // the default MCP client's discovery fails fast
		}
		deadline, hasDeadline = ctx.Deadline()
		<-ctx.Done()
		ctxErr = ctx.Err()
		return nil, ctx.Err()
	})}
	rt := command.New(false)
	id := create(t, rt, nil, hooks)
	cmd := chatCmd(id, "hi")
	cmd["timeoutMs"] = 50
	before := time.Now()
	r, raw := call(t, context.Background(), rt, cmd, hooks)
	require.True(t, r.OK, raw)
	assert.Equal(t, "cancelled", r.Turn.Status)
	assert.True(t, hasDeadline, "timeoutMs puts a deadline on the turn")
	assert.False(t, deadline.Before(before.Add(50*time.Millisecond)), "the deadline is timeoutMs after the command started")
	assert.ErrorIs(t, ctxErr, context.DeadlineExceeded)
}

func TestTimeoutOnHangingProxyOverHTTP(t *testing.T) {
	_, hooks, base := proxyHooks(t, fakeproxy.Reply{Hang: true})
	rt := command.New(false)
	// No discovery pass before the round: on a loaded machine it could outlast the timeout, and the
	// turn would end before it asked the proxy at all.
	id := create(t, rt, map[string]any{"baseUrl": base, "disableToolDiscovery": true}, hooks)
	cmd := chatCmd(id, "hi")
	cmd["timeoutMs"] = 100
	r, raw := call(t, context.Background(), rt, cmd, hooks)
	require.True(t, r.OK, raw)
	assert.Equal(t, "cancelled", r.Turn.Status)
	assert.Equal(t, 1, r.Turn.Rounds)
}

func TestCallContextCancelsTheTurn(t *testing.T) {
	_, hooks, base := proxyHooks(t, fakeproxy.Reply{Body: fakeproxy.Frame("text_delta", `{"text":"Hel"}`), HangAfterBody: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hooks.OnEvent = func(_ int, event []byte) {
		if isChatEvent(event) { // not the failed discovery report
			cancel()
		}
	}
	rt := command.New(false)
	id := create(t, rt, map[string]any{"baseUrl": base}, hooks)
	r, raw := call(t, ctx, rt, chatCmd(id, "hi"), hooks)
	require.True(t, r.OK, raw)
	assert.Equal(t, "cancelled", r.Turn.Status)
	assert.Equal(t, "Hel", r.Turn.Text)
}

// TestConcurrentCalls drives several sessions of one Runtime at once (run
// with -race); an overlapping chat on one session is answered busy.
func TestConcurrentCalls(t *testing.T) {
	_, hooks, base := proxyHooks(t, fakeproxy.Reply{Body: fakeproxy.TextStream("a", "b"), Chunk: 3})
	rt := command.New(false)
	const n = 6
	ids := make([]int, n)
	for i := range ids {
		ids[i] = create(t, rt, map[string]any{"baseUrl": base}, hooks)
	}
	var wg sync.WaitGroup
	outs := make([][]byte, n)
	for i := range n {
		wg.Go(func() {
			b, _ := json.Marshal(chatCmd(ids[i], fmt.Sprint("q", i)))
			outs[i] = rt.Call(context.Background(), b, hooks)
		})
	}
	wg.Wait()
	for i := range n {
		var r reply
		require.NoError(t, json.Unmarshal(outs[i], &r))
		require.True(t, r.OK, string(outs[i]))
		assert.Equal(t, "completed", r.Turn.Status)
		assert.Equal(t, "ab", r.Turn.Text)
	}
}

func TestPoll(t *testing.T) {
	rt := command.New(false)
	r, raw := call(t, context.Background(), rt, map[string]any{"op": "poll", "timeoutMs": 1}, command.Hooks{})
	assert.True(t, r.OK, raw)
	r, raw = call(t, context.Background(), rt, map[string]any{"op": "poll", "timeoutMs": -1}, command.Hooks{})
	require.False(t, r.OK, raw)
	assert.Equal(t, command.CodeBadCommand, r.Error.Code)
	// The call's context ends a long poll.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, raw = call(t, ctx, rt, map[string]any{"op": "poll", "timeoutMs": 3600000}, command.Hooks{})
	assert.True(t, r.OK, raw)
}
