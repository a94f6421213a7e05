// Tests of `agentwasm chat` against the dev server's scripted model and
// demo MCP server, natively and in the wasip1 module.

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentwasm/agentwasm/wazerotest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startDev serves a fresh dev server (scripted model without pauses, demo
// MCP server) and returns its API base URL.
func startDev(t *testing.T, pace time.Duration) string {
	t.Helper()
	srv := httptest.NewServer(newDevHandler(devOptions{WebDir: t.TempDir(), DistDir: t.TempDir(), Pace: pace}))
	t.Cleanup(srv.Close)
	return srv.URL + "/api"
}

// chatRun is the outcome of one command line.
type chatRun struct {
	code           int
	stdout, stderr string
	took           time.Duration
}

// runArgs runs the agentwasm command line args.
func runArgs(args ...string) chatRun {
	var out, errb bytes.Buffer
	start := time.Now()
	code := run(args, &out, &errb)
	return chatRun{code: code, stdout: out.String(), stderr: errb.String(), took: time.Since(start)}
}

// decodeTurn decodes a --json output: the JavaScript API's Turn.
func decodeTurn(t *testing.T, r chatRun) wazerotest.Turn {
	t.Helper()
	var turn wazerotest.Turn
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &turn), "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	return turn
}

// latencyLine matches the timing member of an indented --json output, the
// one thing that differs between two runs of the same turn.
var latencyLine = regexp.MustCompile(`(?m)^ *"latencyMs": [0-9.e+-]+,?\n`)

// untimed returns a --json output without its timing members.
func untimed(r chatRun) string { return latencyLine.ReplaceAllString(r.stdout, "") }

// assertSchoolsTurn checks the turn of "add a schools layer".
func assertSchoolsTurn(t *testing.T, turn wazerotest.Turn) {
	t.Helper()
	assert.Equal(t, "completed", turn.Status, turn.ErrorMessage)
	assert.Equal(t, "endTurn", turn.StopReason)
	assert.Equal(t, 3, turn.Rounds)
	assert.Contains(t, turn.Text, "schools layer")
	require.GreaterOrEqual(t, len(turn.ToolCalls), 2)
	names := []string{}
	for _, c := range turn.ToolCalls {
		names = append(names, c.ToolName)
		assert.Equal(t, "composition", c.Plane, c.ToolName)
		assert.True(t, c.OK, "%s: %s", c.ToolName, c.ErrorMessage)
		assert.NotEmpty(t, c.ToolCallID)
		assert.NotEmpty(t, c.Content)
	}
	assert.Equal(t, []string{"honua_studio_create_draft", "honua_studio_add_layer"}, names)
	add := turn.ToolCalls[len(turn.ToolCalls)-1]
	assert.True(t, add.RetriedAfterConflict, "the demo server's first edit of a new draft meets a conflict")
	if assert.NotNil(t, add.Draft) {
		assert.NotEmpty(t, add.Draft.DraftID)
		assert.Contains(t, turn.Text, add.Draft.DraftID)
	}
	assert.Equal(t, map[string]string{turn.ToolCalls[0].ToolCallID: `{"title":"Demo map"}`, add.ToolCallID: `{"layer":"schools"}`},
		callArguments(turn), "each call's arguments, in its toolCallStop event")
	if assert.NotNil(t, turn.Usage, "the scripted model reports tokens") {
		assert.Positive(t, turn.Usage.InputTokens)
		assert.Positive(t, turn.Usage.OutputTokens)
	}
}

// callArguments returns the arguments of each tool call of turn, from its
// toolCallStop events.
func callArguments(turn wazerotest.Turn) map[string]string {
	out := map[string]string{}
	for _, e := range turn.Events {
		if e.Type == "toolCallStop" {
			var b bytes.Buffer
			if json.Compact(&b, e.ToolArguments) == nil {
				out[e.ToolCallID] = b.String()
			}
		}
	}
	return out
}

func TestChatJSON(t *testing.T) {
	base := startDev(t, 0)
	r := runArgs("chat", "--base-url", base, "--json", "add a schools layer")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stderr)
	assertSchoolsTurn(t, decodeTurn(t, r))

	// The field names of the JavaScript Turn and DispatchRecord, events and
	// usage included (the turn as the module writes it).
	var raw map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &raw))
	for _, k := range []string{"status", "text", "toolCalls", "events", "stopReason", "rounds", "usage"} {
		assert.Contains(t, raw, k)
	}
	assert.NotContains(t, raw, "errorMessage", "omitted when the turn completed")
	call := raw["toolCalls"].([]any)[1].(map[string]any)
	for _, k := range []string{"toolCallId", "toolName", "plane", "ok", "content", "draft", "retriedAfterConflict"} {
		assert.Contains(t, call, k)
	}
	assert.True(t, strings.HasPrefix(r.stdout, "{\n  \"status\""), "indented: %s", r.stdout)
}

// topLevelKeys returns the member names of the JSON object text, in order.
func topLevelKeys(t *testing.T, text string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(text))
	tok, err := dec.Token()
	require.NoError(t, err)
	require.Equal(t, json.Delim('{'), tok)
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		require.NoError(t, err)
		keys = append(keys, k.(string))
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip))
	}
	return keys
}

// filterIn returns the members of want that are in have, in want's order.
func filterIn(want, have []string) []string {
	var out []string
	for _, w := range want {
		for _, h := range have {
			if w == h {
				out = append(out, w)
				break
			}
		}
	}
	return out
}

// TestChatJSONIsTheModulesTurn checks that --json prints the session's Turn
// byte for byte as the module's encoder writes it (indented), over the
// scripted model's turns: the shape of the JavaScript API.
func TestChatJSONIsTheModulesTurn(t *testing.T) {
	cases := []struct {
		name, text string
		code       int
		rounds     int
		usage      bool
		args       []string // the calls' arguments, in order
	}{
		{"help text", "hello", 0, 1, true, nil},
		{"no page tool", "make the map dark", 0, 1, true, nil},
		{"MCP tools", "add a parks layer", 0, 3, true, []string{`{"title":"Demo map"}`, `{"layer":"parks"}`}},
		{"model error", "fail please", 1, 1, false, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := runArgs("chat", "--base-url", startDev(t, 0), "--json", tc.text)
			require.Equal(t, tc.code, r.code, r.stderr)
			turn := decodeTurn(t, r)
			assert.Equal(t, tc.rounds, turn.Rounds)
			assert.Equal(t, tc.usage, turn.Usage != nil, "usage, when the model reported tokens")
			assert.NotNil(t, turn.Events, "events, always an array")
			var args []string
			for _, c := range turn.ToolCalls {
				args = append(args, callArguments(turn)[c.ToolCallID])
			}
			assert.Equal(t, tc.args, args)

			// The members in the order the module's encoder writes them (session.Turn's
			// fields), white space only added: the compact form indents back to it.
			keys := topLevelKeys(t, r.stdout)
			want := []string{"status", "text", "toolCalls", "events", "stopReason", "errorMessage", "errorCode", "rounds", "usage"}
			assert.Equal(t, filterIn(want, keys), keys)
			var compact, indented bytes.Buffer
			require.NoError(t, json.Compact(&compact, []byte(r.stdout)))
			require.NoError(t, json.Indent(&indented, compact.Bytes(), "", "  "))
			assert.Equal(t, indented.String()+"\n", r.stdout, "printed as the encoder wrote it, indented")
		})
	}
}

func TestChatJSONStatuses(t *testing.T) {
	cases := []struct {
		name, text string
		code       int
		status     string
		errorMsg   string
		textPart   string
	}{
		{"model error", "fail please", 1, "error", "The scripted model was asked to fail", ""},
		{"page tool missing", "make the map dark", 0, "completed", "", "no set_basemap tool"},
		{"help", "hello", 0, "completed", "", "scripted model"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := runArgs("chat", "--base-url", startDev(t, 0), "--json", tc.text)
			assert.Equal(t, tc.code, r.code, r.stderr)
			turn := decodeTurn(t, r)
			assert.Equal(t, tc.status, turn.Status)
			assert.Contains(t, turn.ErrorMessage, tc.errorMsg)
			assert.Contains(t, turn.Text, tc.textPart)
			assert.NotNil(t, turn.ToolCalls, "toolCalls is an array even when empty")
			if tc.code != 0 {
				assert.Contains(t, r.stderr, tc.errorMsg, "a failed turn is said on stderr too")
			}
		})
	}
}

func TestChatText(t *testing.T) {
	cases := []struct {
		name     string
		args     []string
		code     int
		stdout   []string
		stderr   []string
		noStdout []string
	}{
		{
			name: "tools and text",
			args: []string{"add a schools layer"},
			stdout: []string{
				"[tool] honua_studio_create_draft {\"title\":\"Demo map\"} (MCP) ok, draft d-1 at generation 1: {\"status\":\"ok\"",
				"\n[tool] honua_studio_add_layer {\"layer\":\"schools\"} (MCP) ok, draft d-1 at generation 3, retried after a conflict: ",
				"\nAdded the schools layer to draft d-1, which is now at generation 3.\n",
			},
			stderr: []string{"agentwasm chat: completed (3 rounds, 2 tool calls)\n"},
		},
		{
			name:     "flags after the text",
			args:     []string{"add", "a", "schools", "layer", "--timeout", "30s"},
			stdout:   []string{"Added the schools layer"},
			stderr:   []string{"completed"},
			noStdout: []string{"--timeout"},
		},
		{
			name:   "model error",
			args:   []string{"fail", "please"},
			code:   1,
			stderr: []string{"agentwasm chat: error: The scripted model was asked to fail: this is how an error from the model looks. [scripted_error]\n"},
		},
		{
			name:   "text only",
			args:   []string{"make the map dark"},
			stdout: []string{"The page offers no set_basemap tool to this session, so I cannot change the basemap.\n"},
			stderr: []string{"completed (1 round, 0 tool calls)"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"chat", "--base-url", startDev(t, 0)}, tc.args...)
			r := runArgs(args...)
			assert.Equal(t, tc.code, r.code, r.stderr)
			for _, s := range tc.stdout {
				assert.Contains(t, r.stdout, s)
			}
			for _, s := range tc.noStdout {
				assert.NotContains(t, r.stdout, s)
			}
			for _, s := range tc.stderr {
				assert.Contains(t, r.stderr, s)
			}
			assert.NotContains(t, r.stdout, "agentwasm chat:", "the status goes to stderr")
		})
	}
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

func TestChatUnreachable(t *testing.T) {
	base := "http://" + closedPort(t) + "/api"
	for _, mode := range [][]string{nil, {"--json"}, {"--wasm"}} {
		t.Run(strings.Join(append([]string{"native"}, mode...), " "), func(t *testing.T) {
			args := append(append([]string{"chat", "--base-url", base}, mode...), "hi")
			r := runArgs(args...)
			assert.Equal(t, 1, r.code)
			assert.Empty(t, r.stdout)
			assert.Contains(t, r.stderr, "agentwasm chat: cannot reach the proxy at "+base+": ")
			assert.Contains(t, r.stderr, "start it with `agentwasm dev`")
			assert.Less(t, r.took, 10*time.Second)
		})
	}
}

func TestChatTimeout(t *testing.T) {
	base := startDev(t, 50*time.Millisecond) // the story takes seconds at this pace
	r := runArgs("chat", "--base-url", base, "--timeout", "300ms", "tell me a long story")
	assert.Equal(t, 1, r.code)
	assert.True(t, strings.HasPrefix(r.stdout, "Once upon a time"), r.stdout)
	assert.True(t, strings.HasSuffix(r.stdout, "\n"), "the open line is ended")
	assert.Contains(t, r.stderr, "agentwasm chat: cancelled: the turn ran longer than --timeout 300ms")
	assert.Less(t, r.took, 10*time.Second)
}

func TestChatUsage(t *testing.T) {
	cases := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"no text", nil, "no TEXT"},
		{"only flags", []string{"--json", "--wasm"}, "no TEXT"},
		{"blank text", []string{" ", ""}, "no TEXT"},
		{"unknown flag", []string{"--bogus", "hi"}, `flag provided but not defined: -bogus (a word of TEXT that starts with "-" goes after "--")`},
		{"unknown flag after the text", []string{"hi", "-x"}, "flag provided but not defined: -x"},
		{"bad timeout", []string{"--timeout", "soon", "hi"}, `invalid value "soon" for flag -timeout`},
		{"zero timeout", []string{"--timeout", "0s", "hi"}, "--timeout must be positive"},
		{"relative base URL", []string{"--base-url", "/api", "hi"}, `--base-url "/api" is not an absolute http(s) URL`},
		{"other scheme", []string{"--base-url", "ftp://127.0.0.1/api", "hi"}, "is not an absolute http(s) URL"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := runArgs(append([]string{"chat"}, tc.args...)...)
			assert.Equal(t, 2, r.code)
			assert.Empty(t, r.stdout)
			assert.Contains(t, r.stderr, tc.stderr)
			assert.Contains(t, r.stderr, `Run "agentwasm chat --help" for usage.`)
		})
	}
}

func TestChatHelp(t *testing.T) {
	r := runArgs("chat", "--help")
	assert.Equal(t, 0, r.code)
	assert.Empty(t, r.stderr)
	for _, s := range []string{"Usage: agentwasm chat [flags] TEXT…", "-base-url", "-json", "-wasm", "-model", "-timeout",
		"AGENTWASM_WASIP1", "agentwasm dev", defaultChatBaseURL} {
		assert.Contains(t, r.stdout, s)
	}
}

func TestParseChatArgs(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want chatOptions
	}{
		{"defaults", []string{"add", "a", "layer"},
			chatOptions{BaseURL: defaultChatBaseURL, Timeout: defaultChatTimeout, Text: "add a layer"}},
		{"flags anywhere", []string{"add", "--json", "a", "--model", "m1", "layer", "--wasm"},
			chatOptions{BaseURL: defaultChatBaseURL, Timeout: defaultChatTimeout, Text: "add a layer", JSON: true, Wasm: true, Model: "m1"}},
		{"dash words after --", []string{"--timeout", "5s", "--", "-5", "--json"},
			chatOptions{BaseURL: defaultChatBaseURL, Timeout: 5 * time.Second, Text: "-5 --json"}},
		{"trailing slash and query dropped", []string{"--base-url", "https://studio.example:8443/api/?x=1", "hi"},
			chatOptions{BaseURL: "https://studio.example:8443/api", Timeout: defaultChatTimeout, Text: "hi"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o, code, ok := parseChatArgs(tc.args, io.Discard, io.Discard)
			require.True(t, ok, "code %d", code)
			o.base = nil
			assert.Equal(t, tc.want, o)
		})
	}
}

// TestForwarderStreams checks that the --wasm forwarder passes the method,
// path, query, headers and body on, and streams the response: the first
// event arrives while the upstream still holds the second back.
func TestForwarderStreams(t *testing.T) {
	release := make(chan struct{})
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("content-type", "text/event-stream")
		w.Header().Set("x-echo", r.Method+" "+r.URL.RequestURI()+" "+r.Header.Get("x-test")+" "+string(body))
		w.WriteHeader(http.StatusAccepted)
		fmt.Fprint(w, "data: one\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		fmt.Fprint(w, "data: two\n\n")
	}))
	defer upstream.Close()
	base, err := url.Parse(upstream.URL + "/api")
	require.NoError(t, err)
	front := httptest.NewServer(newForwarder(http.DefaultClient, base))
	defer front.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "POST", front.URL+"/api/v1/x?y=z", strings.NewReader("payload"))
	require.NoError(t, err)
	req.Header.Set("x-test", "kept")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, http.StatusAccepted, resp.StatusCode)
	assert.Equal(t, "POST /api/v1/x?y=z kept payload", resp.Header.Get("x-echo"))
	assert.Equal(t, "text/event-stream", resp.Header.Get("content-type"))

	buf := make([]byte, 64)
	n, err := resp.Body.Read(buf)
	require.NoError(t, err)
	assert.Equal(t, "data: one\n\n", string(buf[:n]), "the first event, before the second is sent")
	close(release)
	rest, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, "data: two\n\n", string(rest))
}

// TestChatWasmMatchesNative runs the same turns natively and in the wasip1
// module, each against a fresh server, and compares the outputs. The first
// --wasm run builds the module from source unless AGENTWASM_WASIP1 names
// one (make gotest does).
func TestChatWasmMatchesNative(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the wasip1 module")
	}
	cases := []struct {
		name, text string
		code       int
	}{
		{"composition tools", "add a schools layer", 0},
		{"model error", "fail please", 1},
		{"text only", "make the map dark", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, mode := range []string{"--json", "--timeout=1m"} { // JSON, then the streamed text
				native := runArgs("chat", "--base-url", startDev(t, 0), mode, tc.text)
				wasm := runArgs("chat", "--base-url", startDev(t, 0), mode, "--wasm", tc.text)
				t.Logf("%s: native %v, --wasm %v", mode, native.took.Round(time.Millisecond), wasm.took.Round(time.Millisecond))
				require.Equal(t, tc.code, native.code, native.stderr)
				require.Equal(t, tc.code, wasm.code, wasm.stderr)
				if mode == "--json" {
					assert.Equal(t, untimed(native), untimed(wasm), "byte-equal as printed, but for the timing members")
					if tc.code == 0 && strings.Contains(tc.text, "layer") {
						assertSchoolsTurn(t, decodeTurn(t, wasm))
					}
				} else {
					assert.Equal(t, native.stdout, wasm.stdout)
					assert.Equal(t, native.stderr, wasm.stderr)
				}
			}
		})
	}
}

// printerEvent is one thing the printer is handed: a streamed event, or a
// dispatch record (tool set).
type printerEvent struct {
	typ, text, id, argsDelta, args string
	tool                           *chatDispatch
}

// TestChatPrinterRounds checks the plain output: one round's text never
// runs into the next, and a tool call shows its arguments (from the
// toolCallStop, or else the deltas; shortened when long) and its plane as
// the page names it.
func TestChatPrinterRounds(t *testing.T) {
	long := strings.Repeat("x", 200)
	mcp := &chatDispatch{ToolCallID: "c1", ToolName: "lookup", Plane: "composition", OK: true, Content: `{"status":"ok"}`}
	cases := []struct {
		name   string
		events []printerEvent
		want   string
	}{
		{"text, a tool round, text", []printerEvent{
			{typ: "messageStart"}, {typ: "textDelta", text: "Let me use "}, {typ: "textDelta", text: "a tool."},
			{typ: "toolCallStart", id: "c1"}, {typ: "toolCallStop", id: "c1", args: `{ "q": "a" }`}, {tool: mcp},
			{typ: "messageStart"}, {typ: "textDelta", text: "UPSTREAM-DONE"},
		}, "Let me use a tool.\n[tool] lookup {\"q\":\"a\"} (MCP) ok: {\"status\":\"ok\"}\nUPSTREAM-DONE"},
		{"two rounds of text, no tool between", []printerEvent{
			{typ: "messageStart"}, {typ: "textDelta", text: "First."},
			{typ: "messageStart"}, {typ: "textDelta", text: "Second."},
		}, "First.\nSecond."},
		{"a round without text", []printerEvent{
			{typ: "messageStart"}, {typ: "textDelta", text: "One"},
			{typ: "messageStart"}, {typ: "messageStart"}, {typ: "textDelta", text: "Two"}, {typ: "textDelta", text: " more"},
		}, "One\nTwo more"},
		{"arguments from the deltas, shortened", []printerEvent{
			{typ: "messageStart"}, {typ: "toolCallDelta", id: "c1", argsDelta: `{"q":"`}, {typ: "toolCallDelta", id: "c1", argsDelta: long + `"}`},
			{typ: "toolCallStop", id: "c1"}, {tool: mcp},
		}, "[tool] lookup " + `{"q":"` + strings.Repeat("x", excerptRunes-6) + "… (MCP) ok: {\"status\":\"ok\"}\n"},
		{"a page tool without arguments, failed", []printerEvent{
			{typ: "messageStart"}, {tool: &chatDispatch{ToolCallID: "c2", ToolName: "set_basemap", Plane: "runtime", ErrorCode: "no_executor", ErrorMessage: "no executor"}},
		}, "[tool] set_basemap {} (page) failed [no_executor]: no executor\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			p := &chatPrinter{w: &out}
			for _, e := range tc.events {
				if e.tool != nil {
					p.tool(*e.tool)
					continue
				}
				var args []byte
				if e.args != "" {
					args = []byte(e.args)
				}
				p.stream(e.typ, e.text, e.id, e.argsDelta, args)
			}
			assert.Equal(t, tc.want, out.String())
		})
	}
}
