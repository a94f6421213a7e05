// Tests of agentwasm dev --trace: each MCP request /api/mcp answers is one
// line on stdout, its server span continuing the trace context the caller
// sent (params._meta first, else the traceparent header; a malformed one
// starts a new trace); a dev server started without --trace prints no
// such line, and one whose stdout nobody reads any more answers as ever.

package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// lockedBuffer is a buffer written by the server's goroutines and read by
// the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String is what was written.
func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// traceLineRE is one --trace line: trace id, span id, parent, name,
// duration and the optional error type.
var traceLineRE = regexp.MustCompile(`^trace ([0-9a-f]{32}) span ([0-9a-f]{16}) parent ([0-9a-f]{16}|-) (.+?) [0-9]+\.[0-9] ms(?: error (\S+))?$`)

// traceLine is one parsed --trace line.
type traceLine struct {
	trace, span, parent, name, errorType string
}

// parseTraceLines parses the --trace lines of out (other lines are left
// out).
func parseTraceLines(t *testing.T, out string) []traceLine {
	t.Helper()
	var lines []traceLine
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "trace ") {
			continue
		}
		m := traceLineRE.FindStringSubmatch(l)
		require.NotNil(t, m, "a --trace line: %q", l)
		lines = append(lines, traceLine{trace: m[1], span: m[2], parent: m[3], name: m[4], errorType: m[5]})
	}
	return lines
}

// statelessMeta is the stateless era's _meta members of a request.
const statelessMeta = `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`

// statelessHeaders are the stateless era's headers of a request of method
// (naming tool, for tools/call), then kv.
func statelessHeaders(method, tool string, kv ...string) []string {
	h := []string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", method}
	if tool != "" {
		h = append(h, "Mcp-Name", tool)
	}
	return append(h, kv...)
}

// mcpCallBody is a stateless tools/call of tool with args, its _meta
// carrying extra members (`,"traceparent":"…"` or "").
func mcpCallBody(tool, args, extra string) string {
	return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `,"_meta":{` + statelessMeta + extra + `}}}`
}

func TestDevMCPTraceLines(t *testing.T) {
	const (
		pageTrace  = "4bf92f3577b34da6a3ce929d0e0e4736"
		pageSpan   = "00f067aa0ba902b7"
		headTrace  = "0af7651916cd43dd8448eb211c80319c"
		headSpan   = "b7ad6b7169203331"
		metaParent = "00-" + pageTrace + "-" + pageSpan + "-01"
		headParent = "00-" + headTrace + "-" + headSpan + "-01"
	)
	out := &lockedBuffer{}
	srv := devServer(t, devOptions{WebDir: t.TempDir(), DistDir: t.TempDir(), Trace: out})
	mcp := srv.URL + "/api/mcp"

	create := func(extra string) string { return mcpCallBody("honua_studio_create_draft", `{"title":"t"}`, extra) }
	cases := []struct {
		name        string
		body        string
		method      string // the Mcp-Method header ["tools/call"]
		tool        string // the Mcp-Name header [honua_studio_create_draft]
		status      int    // the answer's status [200]
		header      string // the traceparent header, when not ""
		wantTrace   string // "" : a new trace (not one sent)
		wantParent  string // "-" : a root
		wantName    string
		wantErrType string
	}{
		{name: "params._meta.traceparent is the parent", body: create(`,"traceparent":"` + metaParent + `","tracestate":"a=b"`),
			wantTrace: pageTrace, wantParent: pageSpan, wantName: "tools/call honua_studio_create_draft"},
		{name: "the header when _meta has none", body: create(""), header: headParent,
			wantTrace: headTrace, wantParent: headSpan, wantName: "tools/call honua_studio_create_draft"},
		{name: "_meta before the header", body: create(`,"traceparent":"` + metaParent + `"`), header: headParent,
			wantTrace: pageTrace, wantParent: pageSpan, wantName: "tools/call honua_studio_create_draft"},
		{name: "a malformed traceparent: a new root", body: create(`,"traceparent":"00-` + pageTrace + `-` + pageSpan + `-1"`),
			wantParent: "-", wantName: "tools/call honua_studio_create_draft"},
		{name: "an all-zero trace id: a new root", body: create(`,"traceparent":"00-00000000000000000000000000000000-` + pageSpan + `-01"`),
			wantParent: "-", wantName: "tools/call honua_studio_create_draft"},
		{name: "none sent: a new root", body: create(""),
			wantParent: "-", wantName: "tools/call honua_studio_create_draft"},
		{name: "a tool error", tool: "honua_studio_add_layer", body: mcpCallBody("honua_studio_add_layer", `{"draftId":"nope","generation":1,"layer":"schools"}`, `,"traceparent":"`+metaParent+`"`),
			wantTrace: pageTrace, wantParent: pageSpan, wantName: "tools/call honua_studio_add_layer", wantErrType: "tool_error"},
		{name: "a JSON-RPC error", method: "no/such", tool: "-", status: http.StatusNotFound, body: `{"jsonrpc":"2.0","id":8,"method":"no/such","params":{"_meta":{` + statelessMeta + `,"traceparent":"` + metaParent + `"}}}`,
			wantTrace: pageTrace, wantParent: pageSpan, wantName: "no/such", wantErrType: "-32601"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := len(parseTraceLines(t, out.String()))
			method, tool, status := c.method, c.tool, c.status
			if method == "" {
				method = "tools/call"
			}
			if tool == "" {
				tool = "honua_studio_create_draft"
			} else if tool == "-" {
				tool = ""
			}
			if status == 0 {
				status = http.StatusOK
			}
			var kv []string
			if c.header != "" {
				kv = append(kv, "traceparent", c.header)
			}
			resp, body := jsonPost(t, mcp, c.body, statelessHeaders(method, tool, kv...)...)
			require.Equal(t, status, resp.StatusCode, body)

			// The line is written as the span ends, before the answer is sent.
			lines := parseTraceLines(t, out.String())
			require.Len(t, lines, before+1, "one line per request:\n%s", out.String())
			got := lines[before]
			assert.Equal(t, c.wantName, got.name)
			assert.Equal(t, c.wantParent, got.parent)
			assert.Equal(t, c.wantErrType, got.errorType)
			if c.wantTrace != "" {
				assert.Equal(t, c.wantTrace, got.trace)
			} else {
				assert.NotContains(t, []string{pageTrace, headTrace, strings.Repeat("0", 32)}, got.trace, "a trace of its own")
			}
			assert.NotEqual(t, pageSpan, got.span)
		})
	}
}

// failingWriter fails every write.
type failingWriter struct{ calls int }

// Write fails.
func (f *failingWriter) Write([]byte) (int, error) { f.calls++; return 0, io.ErrClosedPipe }

// TestDevMCPTraceWriteFails: a trace line that cannot be written changes no
// answer.
func TestDevMCPTraceWriteFails(t *testing.T) {
	w := &failingWriter{}
	srv := devServer(t, devOptions{WebDir: t.TempDir(), DistDir: t.TempDir(), Trace: w})
	resp, body := jsonPost(t, srv.URL+"/api/mcp", mcpCallBody("honua_studio_create_draft", `{"title":"t"}`, ""), statelessHeaders("tools/call", "honua_studio_create_draft")...)
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Contains(t, body, `"draftId"`)
	assert.NotContains(t, body, `"isError":true`)
	assert.Equal(t, 1, w.calls, "the line was tried")
}

// startDevProcess starts `agentwasm dev` (this test binary, as
// TestDevTraceHelperProcess), with --trace when trace is set, and returns
// the process, its stdout after the line that says where it listens, and
// its URL.
func startDevProcess(t *testing.T, trace bool) (*exec.Cmd, io.ReadCloser, *bufio.Reader, string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("ends the server with SIGTERM")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestDevTraceHelperProcess$")
	cmd.Env = append(os.Environ(), "AGENTWASM_DEV_TRACE_HELPER=1")
	if trace {
		cmd.Env = append(cmd.Env, "AGENTWASM_DEV_TRACE_FLAG=1")
	}
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	r := bufio.NewReader(stdout)
	first, err := r.ReadString('\n')
	require.NoError(t, err)
	m := regexp.MustCompile(`open (http://127\.0\.0\.1:[0-9]+)/`).FindStringSubmatch(first)
	require.NotNil(t, m, first)
	return cmd, stdout, r, m[1]
}

// TestDevTraceHelperProcess is the dev server of TestDevTraceFlag, run as
// a process of its own (it does nothing in a plain test run).
func TestDevTraceHelperProcess(t *testing.T) {
	if os.Getenv("AGENTWASM_DEV_TRACE_HELPER") != "1" {
		t.Skip("the helper process of TestDevTraceFlag")
	}
	args := []string{"dev", "--addr", "127.0.0.1:0", "--web", t.TempDir(), "--dist", t.TempDir()}
	if os.Getenv("AGENTWASM_DEV_TRACE_FLAG") == "1" {
		args = append(args, "--trace")
	}
	os.Exit(run(args, os.Stdout, io.Discard))
}

// TestDevTraceFlag runs `agentwasm dev` with and without --trace (this test
// binary, as TestDevTraceHelperProcess) and sends it MCP requests: with the
// flag its stdout has a line per request after the line that says where it
// listens, without it nothing more; and the flag is in the usage.
func TestDevTraceFlag(t *testing.T) {
	help := runArgs("dev", "--help")
	assert.Contains(t, help.stderr, "-trace")
	assert.Contains(t, help.stderr, devTraceUsage)

	const parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	for _, c := range []struct {
		name  string
		flag  bool
		lines int
	}{
		{name: "with --trace", flag: true, lines: 2},
		{name: "without", flag: false, lines: 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd, _, r, url := startDevProcess(t, c.flag)
			mcp := url + "/api/mcp"
			for _, tool := range []string{"honua_studio_create_draft", "honua_studio_get_draft"} {
				resp, body := jsonPost(t, mcp, mcpCallBody(tool, `{"title":"t","draftId":"d"}`, `,"traceparent":"`+parent+`"`), statelessHeaders("tools/call", tool)...)
				require.Equal(t, http.StatusOK, resp.StatusCode, body)
			}
			// Ends the server (as Ctrl-C does); the rest of its stdout is
			// then all there is.
			require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
			rest, err := io.ReadAll(r)
			require.NoError(t, err)
			require.NoError(t, cmd.Wait())
			lines := parseTraceLines(t, string(rest))
			assert.Len(t, lines, c.lines, "stdout after the first line:\n%s", rest)
			if c.flag {
				assert.Equal(t, strings.Count(string(rest), "\n"), c.lines, "nothing else on stdout:\n%s", rest)
				for _, l := range lines {
					assert.Equal(t, "4bf92f3577b34da6a3ce929d0e0e4736", l.trace)
					assert.Equal(t, "00f067aa0ba902b7", l.parent)
				}
				assert.Equal(t, "tools/call honua_studio_create_draft", lines[0].name)
				assert.Equal(t, "tools/call honua_studio_get_draft", lines[1].name)
			} else {
				assert.Empty(t, string(rest), "no line without --trace")
			}
		})
	}
}

// TestDevTraceStdoutClosed: with --trace, a stdout nobody reads any more
// (the reader of a pipe gone, as after `agentwasm dev --trace | head`)
// loses the lines and nothing else: every MCP request is answered, and the
// server ends as usual when told to.
func TestDevTraceStdoutClosed(t *testing.T) {
	cmd, stdout, _, url := startDevProcess(t, true)
	require.NoError(t, stdout.Close())
	for i, tool := range []string{"honua_studio_create_draft", "honua_studio_create_draft"} {
		resp, body := jsonPost(t, url+"/api/mcp", mcpCallBody(tool, `{"title":"t"}`, ""), statelessHeaders("tools/call", tool)...)
		require.Equal(t, http.StatusOK, resp.StatusCode, "request %d: %s", i+1, body)
		assert.Contains(t, body, `"draftId"`)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, cmd.Wait(), "the server ends as usual (not by SIGPIPE)")
}

// TestDevMCPTraceLineIsOneLine: a span whose name (a caller's tool name)
// or error type holds a line break or another control character is still
// one line, the text quoted; a plain name is written as it is.
func TestDevMCPTraceLineIsOneLine(t *testing.T) {
	cases := []struct{ name, errType, want string }{
		{"tools/call honua_studio_add_layer", "tool_error", ` tools/call honua_studio_add_layer 0.0 ms error tool_error`},
		{"tools/call x\ntrace " + strings.Repeat("0", 32) + " span forged", "", ` "tools/call x\ntrace ` + strings.Repeat("0", 32) + ` span forged" 0.0 ms`},
		{"tools/call tab\there", "bad\rtype", ` "tools/call tab\there" 0.0 ms error "bad\rtype"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out lockedBuffer
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(&spanLineWriter{w: &out}))
			at := time.Unix(1_700_000_000, 0)
			_, span := tp.Tracer("test").Start(context.Background(), c.name, trace.WithTimestamp(at))
			if c.errType != "" {
				span.SetAttributes(attribute.String("error.type", c.errType))
			}
			span.End(trace.WithTimestamp(at))
			line := out.String()
			assert.Equal(t, 1, strings.Count(line, "\n"), "one line: %q", line)
			assert.True(t, strings.HasSuffix(line, c.want+"\n"), "%q ends with %q", line, c.want)
		})
	}
}
