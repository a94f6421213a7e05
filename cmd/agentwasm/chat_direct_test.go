// Tests of `agentwasm chat --openai-url`: the same scenarios through the
// Studio proxy and directly against the dev server's OpenAI-compatible
// endpoint, natively and in the wasip1 module, with the same turn record;
// and the endpoint's key, which no output ever shows.

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/agentwasm/agentwasm/internal/wire"
	"github.com/agentwasm/agentwasm/testing/fakeopenai"
	"github.com/agentwasm/agentwasm/wazerotest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// directKey is the key the dev server's OpenAI-compatible endpoint requires
// in these tests; the direct runs read it from AGENTWASM_API_KEY.
const directKey = "sk-crossgo-0123456789"

// transportFields are the members a turn record may differ in between the
// proxy and the direct transport, dropped (at any depth) before the
// records are compared. Keep the list minimal:
//
//   - latencyMs: a messageStop's time from request to answer, which the
//     direct transport measures itself and the scripted proxy does not
//     report; a clock reading, different on every run anyway.
//
// Nothing else is dropped: the messageStart model name is the same (the
// dev server's endpoint passes the scripted model's name on), as are the
// tool call ids, the arguments, the usage and every text.
var transportFields = []string{"latencyMs"}

// withoutTransportFields returns a --json output as a value with the
// transportFields removed.
func withoutTransportFields(t *testing.T, r chatRun) any {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &v), "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	var drop func(any)
	drop = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, f := range transportFields {
				delete(v, f)
			}
			for _, m := range v {
				drop(m)
			}
		case []any:
			for _, m := range v {
				drop(m)
			}
		}
	}
	drop(v)
	return v
}

// devRequest is one request the dev server received, as far as these
// tests care.
type devRequest struct {
	path, authorization string
}

// recordingDev serves a fresh dev server (scripted model without pauses,
// demo MCP server, directKey required by its OpenAI-compatible endpoint)
// and records the path and Authorization of every request. It returns the
// server's root URL.
func recordingDev(t *testing.T) (root string, requests func() []devRequest) {
	t.Helper()
	var (
		mu   sync.Mutex
		seen []devRequest
	)
	dev := newDevHandler(devOptions{WebDir: t.TempDir(), DistDir: t.TempDir(), OpenAIKey: directKey})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, devRequest{r.URL.Path, r.Header.Get("Authorization")})
		mu.Unlock()
		dev.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []devRequest {
		mu.Lock()
		defer mu.Unlock()
		return append([]devRequest(nil), seen...)
	}
}

// crossCombos are the four ways of running one turn: native or in the
// wasip1 module, through the proxy or directly.
var crossCombos = []struct {
	name         string
	wasm, direct bool
}{
	{"native proxy", false, false},
	{"native direct", false, true},
	{"wasm proxy", true, false},
	{"wasm direct", true, true},
}

// runCombo runs `agentwasm chat` with mode (--json, say) and text in one
// combination against a fresh dev server, and checks that the chat went
// the combination's way: through the proxy's chat route, or to the
// OpenAI-compatible endpoint with the key, which no other request carried.
func runCombo(t *testing.T, wasm, direct bool, mode, text string) chatRun {
	t.Helper()
	root, requests := recordingDev(t)
	args := []string{"chat", "--base-url", root + "/api", mode}
	if wasm {
		args = append(args, "--wasm")
	}
	if direct {
		args = append(args, "--openai-url", root+"/openai/v1")
	}
	r := runArgs(append(args, "--", text)...)
	var proxied, direct200 int
	for _, q := range requests() {
		switch q.path {
		case "/api/v1/studio/ai/chat":
			proxied++
		case openAIChatPath:
			direct200++
			assert.Equal(t, "Bearer "+directKey, q.authorization, "the key goes to the endpoint")
			continue
		}
		assert.Empty(t, q.authorization, "no key on %s", q.path)
	}
	if direct {
		assert.Zero(t, proxied, "a direct chat never uses the proxy's chat route")
		assert.Positive(t, direct200, "the chat went to the endpoint")
	} else {
		assert.Zero(t, direct200, "a proxied chat never calls the endpoint")
		assert.Positive(t, proxied, "the chat went through the proxy")
	}
	return r
}

// TestChatDirectMatchesProxy runs the same scenarios in the four
// combinations of {native, wasm} × {proxy, direct} and compares the turn
// records (--json), and the streamed text output, with the native proxy
// run's.
//
// The scenario, as far as `agentwasm chat` can play it:
//   - text: the scripted model's help answer;
//   - page tool: the CLI's session has no page tools (no page, no port),
//     so the prompt of the demo's page tool (set_basemap) meets none, and
//     the model says so in text, alike in every combination; the tool turns
//     are MCP tools;
//   - MCP tool: a draft created and a layer added on the demo MCP server
//     discovered at {base-url}/mcp, the second call retried after a
//     conflict;
//   - approval: a turn ends with pendingApprovals only when a tool's result
//     waits for a person, which only a port's kit does; the CLI has no port
//     and the demo MCP server no such tool, so the publish prompt meets no
//     journey and the model says so in text, alike in every combination.
//     (wazerotest's TestDirectMatchesProxyNativelyAndInTheModule plays a
//     page tool and an approval through the proxy and directly, natively
//     and under wazero, with the same records.)
func TestChatDirectMatchesProxy(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the wasip1 module")
	}
	t.Setenv("AGENTWASM_API_KEY", directKey)
	cases := []struct {
		name, text string
		check      func(t *testing.T, turn wazerotest.Turn)
		plainText  bool // compare the streamed text output too
	}{
		{"text", "hello", func(t *testing.T, turn wazerotest.Turn) {
			assert.Equal(t, 1, turn.Rounds)
			assert.Contains(t, turn.Text, "scripted model")
			assert.Empty(t, turn.ToolCalls)
		}, false},
		{"page tool (none offered)", "make the map dark", func(t *testing.T, turn wazerotest.Turn) {
			assert.Equal(t, "The page offers no set_basemap tool to this session, so I cannot change the basemap.", turn.Text)
			assert.Empty(t, turn.ToolCalls)
		}, false},
		{"MCP tools", "add a schools layer", assertSchoolsTurn, true},
		{"approval (no port)", "publish the map", func(t *testing.T, turn wazerotest.Turn) {
			assert.Contains(t, turn.Text, "This session offers no publish journey")
			assert.Empty(t, turn.PendingApprovals)
		}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var want any
			for _, c := range crossCombos {
				r := runCombo(t, c.wasm, c.direct, "--json", tc.text)
				require.Equal(t, 0, r.code, "%s: %s", c.name, r.stderr)
				assert.Empty(t, r.stderr, c.name)
				turn := decodeTurn(t, r)
				assert.Equal(t, "completed", turn.Status, c.name)
				tc.check(t, turn)
				got := withoutTransportFields(t, r)
				if want == nil {
					want = got
					continue
				}
				assert.Equal(t, want, got, "%s: the native proxy run's turn record, but for %v", c.name, transportFields)
			}
			if !tc.plainText {
				return
			}
			var wantOut, wantErr string
			for i, c := range crossCombos {
				r := runCombo(t, c.wasm, c.direct, "--timeout=1m", tc.text)
				require.Equal(t, 0, r.code, "%s: %s", c.name, r.stderr)
				if i == 0 {
					wantOut, wantErr = r.stdout, r.stderr
					continue
				}
				assert.Equal(t, wantOut, r.stdout, c.name)
				assert.Equal(t, wantErr, r.stderr, c.name)
			}
		})
	}
}

// echoingEndpoint is an OpenAI-compatible endpoint that puts the key it was
// sent into its answers: its 401 error body (as some servers quote the key
// they refused), or, with answer200, the text of a normal answer. It
// records the keys it received.
func echoingEndpoint(t *testing.T, answer200 bool) (url string, keys func() []string) {
	t.Helper()
	var (
		mu   sync.Mutex
		seen []string
	)
	fake := fakeopenai.New(fakeopenai.Options{
		Answer: func(ctx context.Context, req *wire.ChatRequest, emit func(string, wire.StreamEvent) error) error {
			for _, ev := range []struct {
				name string
				ev   wire.StreamEvent
			}{
				{fakeopenai.EventMessageStart, wire.StreamEvent{Model: "echo"}},
				{fakeopenai.EventTextDelta, wire.StreamEvent{Text: "Your key is " + directKey[:6]}},
				{fakeopenai.EventTextDelta, wire.StreamEvent{Text: directKey[6:] + "; and again: " + directKey + "."}},
				{fakeopenai.EventMessageStop, wire.StreamEvent{StopReason: "endTurn"}},
			} {
				if err := emit(ev.name, ev.ev); err != nil {
					return err
				}
			}
			return nil
		},
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		mu.Lock()
		seen = append(seen, key)
		mu.Unlock()
		if answer200 {
			fake.ServeHTTP(w, r)
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"error":{"message":"Incorrect API key provided: `+key+`. Check the key `+key+` and try again.","type":"invalid_request_error","code":"invalid_api_key"}}`)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1", func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// TestChatDirectKeyNeverPrinted checks that the key from the environment
// reaches the endpoint and appears in no output, plain or --json, natively
// or in the module, when the endpoint echoes it in a 401's body or in the
// answer's text.
func TestChatDirectKeyNeverPrinted(t *testing.T) {
	t.Setenv("AGENTWASM_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", directKey) // the second variable, read when the first is unset
	cases := []struct {
		name      string
		answer200 bool
		code      int
		stdout    string // a part of the plain output
		stderr    string // a part of stderr
	}{
		{"401 quoting the key", false, 1, "", "[upstream_unauthorized]\n(the endpoint refused the key: set it in AGENTWASM_API_KEY or OPENAI_API_KEY)"},
		{"answer quoting the key", true, 0, "Your key is [redacted]; and again: [redacted].", "completed"},
	}
	for _, tc := range cases {
		for _, wasm := range []bool{false, true} {
			if wasm && testing.Short() {
				continue
			}
			for _, mode := range []string{"--timeout=1m", "--json"} {
				name := tc.name + " native " + mode
				if wasm {
					name = tc.name + " wasm " + mode
				}
				t.Run(name, func(t *testing.T) {
					endpoint, keys := echoingEndpoint(t, tc.answer200)
					args := []string{"chat", "--base-url", startDev(t, 0), "--openai-url", endpoint, mode}
					if wasm {
						args = append(args, "--wasm")
					}
					r := runArgs(append(args, "hello")...)
					assert.Equal(t, tc.code, r.code, r.stderr)
					got := keys()
					require.NotEmpty(t, got)
					for _, k := range got {
						assert.Equal(t, directKey, k, "the endpoint was sent the key")
					}
					assert.NotContains(t, r.stdout+r.stderr, directKey, "the key is never printed")
					assert.NotContains(t, r.stdout+r.stderr, directKey[6:], "nor its tail")
					if mode == "--json" {
						turn := decodeTurn(t, r)
						if tc.answer200 {
							assert.Equal(t, "Your key is [redacted]; and again: [redacted].", turn.Text)
						} else {
							assert.Equal(t, "upstream_unauthorized", turn.ErrorCode)
							assert.Contains(t, turn.ErrorMessage, "[redacted]", "the endpoint's message is kept, the key redacted")
						}
						if tc.code == 0 {
							assert.Empty(t, r.stderr)
							return
						}
					} else if tc.stdout != "" {
						assert.Contains(t, r.stdout, tc.stdout)
					}
					assert.Contains(t, r.stderr, tc.stderr)
				})
			}
		}
	}
}

// TestChatDirectUsage checks the errors of --openai-url and that the key
// comes from the environment only, with --openai-url only.
func TestChatDirectUsage(t *testing.T) {
	t.Setenv("AGENTWASM_API_KEY", "sk-from-env")
	t.Setenv("OPENAI_API_KEY", "sk-second")
	cases := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"relative", []string{"--openai-url", "/openai/v1", "hi"}, `--openai-url "/openai/v1" is not an absolute http(s) URL`},
		{"query", []string{"--openai-url", "http://127.0.0.1:11434/v1?key=x", "hi"}, "without a query or credentials"},
		{"fragment", []string{"--openai-url", "http://127.0.0.1:11434/v1#x", "hi"}, "without a query or credentials"},
		{"credentials not echoed", []string{"--openai-url", "http://user:sk-secret-pass@127.0.0.1/v1", "hi"}, "--openai-url (with credentials, not shown) is not"},
		{"no key flag", []string{"--api-key", "sk-x", "hi"}, "flag provided but not defined: -api-key"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := runArgs(append([]string{"chat"}, tc.args...)...)
			assert.Equal(t, 2, r.code)
			assert.Contains(t, r.stderr, tc.stderr)
			assert.NotContains(t, r.stderr, "sk-secret-pass")
		})
	}

	o, _, ok := parseChatArgs([]string{"--openai-url", "http://127.0.0.1:11434/v1/", "--model", "llama3.2", "hi"}, io.Discard, io.Discard)
	require.True(t, ok)
	assert.Equal(t, "http://127.0.0.1:11434/v1", o.OpenAIURL, "the trailing slash dropped")
	assert.Equal(t, "sk-from-env", o.apiKey, "AGENTWASM_API_KEY first")
	o, _, ok = parseChatArgs([]string{"hi"}, io.Discard, io.Discard)
	require.True(t, ok)
	assert.Empty(t, o.apiKey, "no key is read for the proxy")

	r := runArgs("chat", "--help")
	for _, s := range []string{"-openai-url", "AGENTWASM_API_KEY", "OPENAI_API_KEY"} {
		assert.Contains(t, r.stdout, s)
	}
}

// TestRedactingWriter checks the last line of defence of the command's own
// output: every write has the key replaced, a short key is left alone.
func TestRedactingWriter(t *testing.T) {
	var b bytes.Buffer
	w := redactingWriter(&b, directKey)
	_, err := io.WriteString(w, "a "+directKey+" b "+directKey+"\n")
	require.NoError(t, err)
	assert.Equal(t, "a [redacted] b [redacted]\n", b.String())
	assert.Same(t, io.Writer(&b), redactingWriter(&b, "abc"), "a key shorter than 4 bytes is not a secret to redact")
}

// TestChatPrinterRedactsASplitKey checks that the streamed text never shows
// the key, whole or split across text events, and that text held back as a
// possible start of it is written when it turns out not to be.
func TestChatPrinterRedactsASplitKey(t *testing.T) {
	cases := []struct {
		name   string
		deltas []string // "" starts a round
		tool   bool     // a tool line after the deltas
		want   string
	}{
		{"whole", []string{"", "key " + directKey + "."}, false, "key [redacted]."},
		{"split in three", []string{"", "a " + directKey[:3], directKey[3:9], directKey[9:] + " b"}, false, "a [redacted] b"},
		{"a prefix, then not", []string{"", "see sk-cro", "wd"}, false, "see sk-crowd"},
		{"a prefix at the end", []string{"", "ends with sk-"}, false, "ends with sk-\n"},
		{"a prefix before a tool line", []string{"", "sk-c"}, true, "sk-c\n[tool] t {} (MCP) ok\n"},
		{"a prefix before the next round", []string{"", "One sk", "", "Two"}, false, "One sk\nTwo\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			p := &chatPrinter{w: &out, key: directKey}
			for _, d := range tc.deltas {
				if d == "" {
					p.stream("messageStart", "", "", "", nil)
					continue
				}
				p.stream("textDelta", d, "", "", nil)
			}
			if tc.tool {
				p.tool(chatDispatch{ToolCallID: "c", ToolName: "t", Plane: "composition", OK: true})
			}
			p.endLine()
			want := tc.want
			if !strings.HasSuffix(want, "\n") {
				want += "\n"
			}
			assert.Equal(t, want, out.String())
		})
	}
}
