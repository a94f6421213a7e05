// agentwasm chat: one turn from a terminal, natively or in the wasip1
// module under wazero, printed as it streams or as one JSON object.

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/agentwasm/agentwasm/internal/wire"
	"github.com/agentwasm/agentwasm/session"
	"github.com/agentwasm/agentwasm/tracing"
	"github.com/agentwasm/agentwasm/wazerotest"
)

// defaultChatBaseURL is where `agentwasm dev` serves its proxy by default.
const defaultChatBaseURL = "http://127.0.0.1:8080/api"

// Bounds of the work around a turn.
const (
	defaultChatTimeout = 2 * time.Minute
	dialBound          = 5 * time.Second // the reachability check
	buildNotice        = 2 * time.Second // when to say the module is being built
	excerptRunes       = 120             // of a tool result's content, in text mode
)

const chatUsage = `Usage: agentwasm chat [flags] TEXT…

Runs one turn of an agent session: TEXT (its words joined by spaces) goes to
the Studio AI proxy at --base-url, the session discovers tools on the MCP
server at {base-url}/mcp (the default policy decides which it routes), runs
the tools the model calls and loops until the model answers. The default
--base-url is where ` + "`agentwasm dev`" + ` serves its proxy: start that first.
Flags may come before or after TEXT; "--" ends them.

Output: the text as it streams, each round's text on lines of its own, and
one "[tool] …" line per tool call — its name, its arguments, its plane as
the demo page names it (MCP for a tool discovered on the MCP server, page
for the session's own tools) and its outcome — on stdout, then how the turn
ended on stderr. With --json, only the finished turn as one JSON object: the
Turn of the JavaScript API, exactly as the module writes it (status, text,
toolCalls, events — which carry each call's arguments —, stopReason,
errorMessage, errorCode, rounds, usage, pendingApprovals), natively and with
--wasm alike.

Exit status: 0 when the turn completed; 1 when it ended in error, was
refused or cancelled (Ctrl-C, --timeout), or the proxy or the module could
not be reached; 2 for a usage error.

--wasm runs the same turn in the wasip1 module under wazero, with every
fetch of the module forwarded to --base-url's host. It needs the module:
on first use it is built from this source tree with the Go toolchain (a
minute or two; cached in the user cache directory, as is wazero's
compilation of it, so later runs start fast), or set AGENTWASM_WASIP1 to a
prebuilt one (make build writes dist/agentwasm-wasip1.wasm).

--openai-url sends the chat straight to an OpenAI-compatible chat
completions endpoint instead of the proxy (a local server such as Ollama,
llama.cpp's llama-server, vLLM or LM Studio, a hosted API, or the
scripted model of ` + "`agentwasm dev`" + ` at http://127.0.0.1:8080/openai/v1);
--model names the endpoint's model, and tools are still discovered on
{base-url}/mcp. The key, when the endpoint needs one, is read from the
environment, AGENTWASM_API_KEY or else OPENAI_API_KEY, never from a flag
(a flag shows in the process list); it goes to the endpoint only, and is
never printed: every text of the turn has it replaced by [redacted].

`

// chatTraceUsage is the usage text of --trace, after chatUsage.
const chatTraceUsage = `--trace prints the turn's spans after it, on stderr, as a tree: the turn
(invoke_agent), the discovery pass and its MCP requests, each model request
(chat: response model, finish reason, tokens, time to the first chunk),
each tool call (execute_tool: plane, outcome, a retry after a conflict) with
its MCP requests, each wait for approval; one line each with its duration.
The spans follow the OpenTelemetry GenAI and MCP semantic conventions.
Stdout is as without it (with --json, only the JSON). Natively only: the
wasip1 module does no tracing, so --trace with --wasm is refused.

`

// chatOptions are the parsed command line of `agentwasm chat`.
type chatOptions struct {
	BaseURL string   // absolute http(s), no trailing slash
	base    *url.URL // BaseURL parsed
	// OpenAIURL, when set, is the OpenAI-compatible endpoint the chat goes
	// to directly (absolute http(s), no trailing slash); "" means the proxy.
	OpenAIURL string
	openai    *url.URL // OpenAIURL parsed
	// apiKey is the endpoint's key, from the environment (apiKeyEnvs), read
	// only with OpenAIURL; "" sends none.
	apiKey  string
	JSON    bool
	Wasm    bool
	Model   string
	Timeout time.Duration
	Text    string
	// Trace prints the turn's spans as a tree on stderr after the turn
	// (writeTraceTree); native runs only.
	Trace bool
}

// runChat parses the flags, runs one turn and prints it; it returns the
// exit code.
func runChat(args []string, stdout, stderr io.Writer) int {
	o, code, ok := parseChatArgs(args, stdout, stderr)
	if !ok {
		return code
	}
	sigCtx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	// Every line the command writes passes the key's redaction (the
	// session's own texts already have it redacted; this covers the rest).
	stdout, stderr = redactingWriter(stdout, o.apiKey), redactingWriter(stderr, o.apiKey)
	reach, what, hint := o.base, "the proxy at "+o.BaseURL, "start it with `agentwasm dev`, or point --base-url at a running one"
	if o.openai != nil {
		reach, what, hint = o.openai, "the OpenAI-compatible endpoint at "+o.OpenAIURL, "start it, or point --openai-url at a running one"
	}
	if err := checkReachable(sigCtx, reach); err != nil {
		if sigCtx.Err() != nil {
			fmt.Fprintln(stderr, "agentwasm chat: interrupted")
			return 1
		}
		fmt.Fprintf(stderr, "agentwasm chat: cannot reach %s: %v; %s\n", what, err, hint)
		return 1
	}

	var p *chatPrinter
	if !o.JSON {
		p = &chatPrinter{w: stdout, key: o.apiKey}
	}
	// --trace: the session's spans are kept in memory, and written as a
	// tree once the turn is over and the session closed.
	var (
		spans *tracetest.SpanRecorder
		tp    *sdktrace.TracerProvider
	)
	if o.Trace {
		spans = tracetest.NewSpanRecorder()
		tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
		defer func() { _ = tp.Shutdown(context.Background()) }()
	}
	var (
		turn chatTurn
		err  error
	)
	if o.Wasm {
		turn, err = chatWasm(sigCtx, o, p, stderr)
	} else {
		turn, err = chatNative(sigCtx, o, p, tp)
	}
	if err != nil {
		if sigCtx.Err() != nil {
			fmt.Fprintln(stderr, "agentwasm chat: interrupted")
			return 1
		}
		fmt.Fprintln(stderr, "agentwasm chat:", err)
		return 1
	}
	if o.JSON {
		var out bytes.Buffer
		if err := json.Indent(&out, turn.JSON, "", "  "); err != nil {
			fmt.Fprintln(stderr, "agentwasm chat: the turn is not JSON:", err)
			return 1
		}
		out.WriteByte('\n')
		if _, err := stdout.Write(out.Bytes()); err != nil {
			fmt.Fprintln(stderr, "agentwasm chat: writing the turn:", err)
			return 1
		}
	} else {
		p.endLine()
	}
	if spans != nil {
		writeTraceTree(stderr, spans.Ended())
	}
	if turn.Status == string(session.StatusCompleted) {
		if !o.JSON {
			fmt.Fprintf(stderr, "agentwasm chat: completed (%s, %s)\n", plural(turn.Rounds, "round"), plural(turn.ToolCalls, "tool call"))
		}
		return 0
	}
	msg := turn.ErrorMessage
	if turn.Status == string(session.StatusCancelled) {
		msg = cancelReason(sigCtx, o.Timeout, msg)
	}
	line := "agentwasm chat: " + turn.Status
	if msg != "" {
		line += ": " + msg
	}
	if turn.ErrorCode != "" {
		line += " [" + turn.ErrorCode + "]"
	}
	fmt.Fprintln(stderr, line+turnHint(turn, o.openai != nil))
	return 1
}

// turnHint suggests what to do about a turn that did not complete, when
// its message or code points at a likely mistake; direct says the chat
// went to --openai-url.
func turnHint(t chatTurn, direct bool) string {
	switch {
	case direct && t.ErrorCode == session.ErrorCodeUpstreamUnauthorized:
		return "\n(the endpoint refused the key: set it in " + apiKeyEnvs[0] + " or " + apiKeyEnvs[1] + ")"
	case direct && t.ErrorCode == session.ErrorCodeUpstreamNotFound:
		return "\n(nothing answers chat completions there, or it has no such --model: --openai-url is the API's base, e.g. http://127.0.0.1:11434/v1)"
	case t.Status == string(session.StatusError) && t.Rounds <= 1 &&
		(strings.Contains(t.ErrorMessage, "responded 404 ") || strings.Contains(t.ErrorMessage, "responded 405 ")):
		return "\n(nothing serves the chat there: --base-url is the proxy's API base, e.g. " + defaultChatBaseURL + ")"
	case t.Status == string(session.StatusRefused):
		return "\n(the proxy will not serve this turn; ask its operator, or try another --model)"
	}
	return ""
}

// parseChatArgs reads the command line. ok false means stop with code: 0
// after --help, 2 for a usage error (already explained on stderr).
func parseChatArgs(args []string, stdout, stderr io.Writer) (o chatOptions, code int, ok bool) {
	fs := flag.NewFlagSet("agentwasm chat", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.BaseURL, "base-url", defaultChatBaseURL, "the Studio API base URL of the proxy (chat at {base-url}/v1/studio/ai/chat, MCP at {base-url}/mcp)")
	fs.BoolVar(&o.JSON, "json", false, "print only the finished turn, as one indented JSON object (the JavaScript API's Turn)")
	fs.BoolVar(&o.Wasm, "wasm", false, "run the turn in the wasip1 module under wazero instead of natively")
	fs.BoolVar(&o.Trace, "trace", false, "after the turn, print its spans as a tree on stderr (natively only, not with --wasm)")
	fs.StringVar(&o.Model, "model", "", "the model to ask the proxy (or the --openai-url endpoint) for; empty: its default")
	fs.StringVar(&o.OpenAIURL, "openai-url", "", "send the chat straight to this OpenAI-compatible endpoint (its API base, e.g. http://127.0.0.1:11434/v1) instead of the proxy; its key from "+apiKeyEnvs[0]+" or "+apiKeyEnvs[1])
	fs.DurationVar(&o.Timeout, "timeout", defaultChatTimeout, "how long the whole turn may take (not counting the module's first build)")
	printUsage := func(w io.Writer) {
		fmt.Fprint(w, chatUsage)
		fmt.Fprint(w, chatTraceUsage)
		fmt.Fprint(w, "Flags:\n")
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	usageError := func(msg string) (chatOptions, int, bool) {
		fmt.Fprintf(stderr, "agentwasm chat: %s\nRun \"agentwasm chat --help\" for usage.\n", msg)
		return o, 2, false
	}

	// Flags may follow words of TEXT: parse, take one word, parse again.
	var words []string
	rest := args
	for len(rest) > 0 {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				printUsage(stdout)
				return o, 0, false
			}
			msg := err.Error()
			if strings.HasPrefix(msg, "flag provided but not defined") {
				msg += ` (a word of TEXT that starts with "-" goes after "--")`
			}
			return usageError(msg)
		}
		left := fs.Args()
		if used := len(rest) - len(left); used > 0 && rest[used-1] == "--" {
			words = append(words, left...)
			break
		}
		if len(left) == 0 {
			break
		}
		words = append(words, left[0])
		rest = left[1:]
	}
	o.Text = strings.Join(words, " ")
	if strings.TrimSpace(o.Text) == "" {
		return usageError("no TEXT: say what to ask, e.g. agentwasm chat add a schools layer")
	}
	if o.Timeout <= 0 {
		return usageError("--timeout must be positive, e.g. 30s or 2m")
	}
	if msg := chatModeConflict(o); msg != "" {
		return usageError(msg)
	}
	u, err := url.Parse(o.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return usageError("--base-url " + strconv.Quote(o.BaseURL) + " is not an absolute http(s) URL such as " + defaultChatBaseURL)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath, u.RawQuery, u.Fragment = "", "", ""
	o.base, o.BaseURL = u, u.String()
	if o.OpenAIURL != "" {
		e, err := url.Parse(o.OpenAIURL)
		if err != nil || (e.Scheme != "http" && e.Scheme != "https") || e.Host == "" || e.User != nil || e.RawQuery != "" || e.Fragment != "" || e.ForceQuery {
			shown := strconv.Quote(o.OpenAIURL)
			if err == nil && e.User != nil {
				shown = "(with credentials, not shown)"
			}
			return usageError("--openai-url " + shown + " is not an absolute http(s) URL without a query or credentials, such as http://127.0.0.1:11434/v1 (the key goes in " + apiKeyEnvs[0] + ")")
		}
		e.Path = strings.TrimRight(e.Path, "/")
		e.RawPath = ""
		o.openai, o.OpenAIURL = e, e.String()
		o.apiKey = firstEnv(apiKeyEnvs...)
	}
	return o, 0, true
}

// chatModeConflict says why flags given together cannot both be honoured,
// "" when they can.
func chatModeConflict(o chatOptions) string {
	if o.Trace && o.Wasm {
		return "--trace cannot be used with --wasm: the wasip1 module does no tracing (no OpenTelemetry is linked into it); run the turn natively, without --wasm, to see its spans"
	}
	return ""
}

// apiKeyEnvs name the environment variables the --openai-url endpoint's key
// is read from, the first set one winning.
var apiKeyEnvs = []string{"AGENTWASM_API_KEY", "OPENAI_API_KEY"}

// checkReachable dials the base URL's host, so that a proxy that is not
// running is reported as such (and before any module is built).
func checkReachable(ctx context.Context, base *url.URL) error {
	hostport := base.Host
	if base.Port() == "" {
		port := "80"
		if base.Scheme == "https" {
			port = "443"
		}
		hostport = net.JoinHostPort(base.Hostname(), port)
	}
	d := net.Dialer{Timeout: dialBound}
	c, err := d.DialContext(ctx, "tcp", hostport)
	if err != nil {
		return err
	}
	return c.Close()
}

// cancelReason says why a cancelled turn was cancelled.
func cancelReason(sigCtx context.Context, timeout time.Duration, msg string) string {
	why := "the turn ran longer than --timeout " + timeout.String()
	if sigCtx.Err() != nil {
		why = "interrupted"
	}
	if msg == "" || strings.Contains(msg, why) {
		return why
	}
	return why + " (" + msg + ")"
}

// chatNative runs the turn with the session package on net/http. tp, when
// not nil, is the tracer provider for the session's spans (--trace); the
// session is closed when chatNative returns, so every span of the turn has
// ended.
func chatNative(sigCtx context.Context, o chatOptions, p *chatPrinter, tp *sdktrace.TracerProvider) (chatTurn, error) {
	ctx, cancel := context.WithTimeout(sigCtx, o.Timeout)
	defer cancel()
	opts := session.Options{BaseURL: o.BaseURL, Model: o.Model}
	if tp != nil {
		opts.Tracer = tracing.Session(tp.Tracer(tracing.ScopeName))
	}
	if o.openai != nil {
		opts.OpenAI = &session.OpenAIEndpoint{BaseURL: o.OpenAIURL}
		if o.apiKey != "" {
			opts.OpenAI.APIKey = session.StaticToken(o.apiKey)
		}
	}
	if p != nil {
		opts.OnEvent = func(ev session.Event) {
			switch {
			case ev.Type == session.EventTypeChat && ev.Chat != nil:
				p.stream(ev.Chat.Type, ev.Chat.Text, ev.Chat.ToolCallID, ev.Chat.ToolArgumentsDelta, ev.Chat.ToolArguments)
			case ev.Type == session.EventTypeToolResult && ev.Result != nil:
				p.tool(dispatchFromSession(*ev.Result))
			case ev.Type == session.EventTypeToolDiscovery && ev.Discovery != nil && ctx.Err() == nil:
				p.discovery(ev.Discovery.ErrorMessage)
			}
		}
	}
	s, err := session.New(opts)
	if err != nil {
		return chatTurn{}, fmt.Errorf("creating the session: %w", err)
	}
	defer s.Close()
	t := s.Chat(ctx, o.Text)
	// The module's own encoder (wasm/internal/command writes a turn with it).
	b, err := wire.Marshal(t)
	if err != nil {
		return chatTurn{}, fmt.Errorf("encoding the turn: %w", err)
	}
	return chatTurn{Status: string(t.Status), ErrorMessage: t.ErrorMessage, ErrorCode: t.ErrorCode, Rounds: t.Rounds,
		ToolCalls: len(t.ToolCalls), JSON: b}, nil
}

// chatWasm runs the turn in the wasip1 module under wazero, its fetches
// forwarded to the base URL's host.
func chatWasm(sigCtx context.Context, o chatOptions, p *chatPrinter, stderr io.Writer) (chatTurn, error) {
	if err := prepareModule(sigCtx, stderr); err != nil {
		return chatTurn{}, err
	}
	var ctx context.Context = sigCtx // the turn's, once it runs
	targets := []*url.URL{o.base}
	if o.openai != nil {
		targets = append(targets, o.openai)
	}
	wopts := wazerotest.Options{
		Handler:          newForwarder(http.DefaultClient, targets...),
		Stderr:           stderr,
		DisableTestHooks: true,
		Hook:             chatHook(o.apiKey),
	}
	if p != nil {
		wopts.OnEvent = func(_ int, ev wazerotest.Event) {
			switch {
			case ev.Type == "chat" && ev.Event != nil:
				p.stream(ev.Event.Type, ev.Event.Text, ev.Event.ToolCallID, ev.Event.ToolArgumentsDelta, ev.Event.ToolArguments)
			case ev.Type == "toolResult" && ev.Result != nil:
				p.tool(*ev.Result)
			case ev.Type == "toolDiscovery" && ev.Report != nil && ctx.Err() == nil:
				p.discovery(ev.Report.ErrorMessage)
			}
		}
	}
	inst, err := wazerotest.Start(sigCtx, wopts)
	if err != nil {
		return chatTurn{}, fmt.Errorf("starting the wasip1 module: %w", err)
	}
	defer inst.Close()

	options := map[string]any{"baseUrl": o.BaseURL}
	if o.Model != "" {
		options["model"] = o.Model
	}
	if o.openai != nil {
		// The key never crosses as data: the module asks the apiKey hook.
		options["openai"] = map[string]any{"baseUrl": o.OpenAIURL, "apiKey": o.apiKey != ""}
	}
	r, err := inst.Do(sigCtx, map[string]any{"op": "session.create", "options": options})
	if err != nil {
		return chatTurn{}, err
	}
	if !r.OK {
		return chatTurn{}, fmt.Errorf("the module refused to create the session: %s", moduleError(r))
	}
	id := r.Session
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, _ = inst.Do(ctx, map[string]any{"op": "session.close", "session": id})
	}()

	ctx, cancel := context.WithTimeout(sigCtx, o.Timeout)
	defer cancel()
	cmd, err := json.Marshal(map[string]any{"op": "session.chat", "session": id, "text": o.Text})
	if err != nil {
		return chatTurn{}, err
	}
	out, err := inst.Call(ctx, cmd)
	if err != nil {
		return chatTurn{}, err
	}
	// The turn member as the module wrote it, and what the summary needs.
	var reply struct {
		OK    bool                  `json:"ok"`
		Turn  json.RawMessage       `json:"turn"`
		Error *wazerotest.ErrorBody `json:"error"`
	}
	if err := json.Unmarshal(out, &reply); err != nil {
		return chatTurn{}, fmt.Errorf("the module's reply is not JSON: %v", err)
	}
	if !reply.OK || len(reply.Turn) == 0 || string(reply.Turn) == "null" {
		return chatTurn{}, fmt.Errorf("the module did not run the turn: %s", moduleError(wazerotest.Reply{Error: reply.Error}))
	}
	var t wazerotest.Turn
	if err := json.Unmarshal(reply.Turn, &t); err != nil {
		return chatTurn{}, fmt.Errorf("the module's turn is not a Turn: %v", err)
	}
	return chatTurn{Status: t.Status, ErrorMessage: t.ErrorMessage, ErrorCode: t.ErrorCode, Rounds: t.Rounds,
		ToolCalls: len(t.ToolCalls), JSON: reply.Turn}, nil
}

// chatHook answers the module's host callbacks: apiKey, the --openai-url
// endpoint's key (the same answer with or without forceRefresh: the
// environment is all there is). The session asks for no other.
func chatHook(key string) func(context.Context, wazerotest.HookCall) ([]byte, error) {
	return func(_ context.Context, call wazerotest.HookCall) ([]byte, error) {
		if call.Hook != "apiKey" || key == "" {
			return nil, fmt.Errorf("agentwasm chat answers no %s callback", call.Hook)
		}
		return json.Marshal(key)
	}
}

// prepareModule finds or builds the wasip1 module, saying so on stderr when
// that takes a while; an interrupt stops the wait.
func prepareModule(ctx context.Context, stderr io.Writer) error {
	done := make(chan error, 1)
	go func() {
		_, err := wazerotest.ModulePath()
		done <- err
	}()
	notice := time.NewTimer(buildNotice)
	defer notice.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				return fmt.Errorf("--wasm needs the wasip1 module: %v\n(build it with `make build` and run with %s=dist/agentwasm-wasip1.wasm)", err, wazerotest.EnvModule)
			}
			return nil
		case <-notice.C:
			fmt.Fprintf(stderr, "agentwasm chat: building the wasip1 module from source (first use; a minute or two; %s=path skips this)…\n", wazerotest.EnvModule)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// moduleError describes a failed reply of the module.
func moduleError(r wazerotest.Reply) string {
	if r.Error == nil {
		return "no reason given"
	}
	return r.Error.Code + ": " + r.Error.Message
}

// chatTurn is a finished turn: what the exit status and the closing line
// need, and the turn as the module's encoder writes it (the JavaScript
// API's Turn), which --json prints.
type chatTurn struct {
	Status       string
	ErrorMessage string
	ErrorCode    string
	Rounds       int
	ToolCalls    int    // how many
	JSON         []byte // the whole turn
}

// chatDispatch is one tool call as the printer shows it: the module's
// dispatch record (the JavaScript DispatchRecord), which native records
// are converted to.
type chatDispatch = wazerotest.DispatchRecord

// dispatchFromSession converts a native dispatch record.
func dispatchFromSession(d session.DispatchRecord) chatDispatch {
	out := chatDispatch{ToolCallID: d.ToolCallID, ToolName: d.ToolName, Plane: string(d.Plane), OK: d.OK,
		ErrorCode: d.ErrorCode, ErrorMessage: d.ErrorMessage, Content: d.Content, RetriedAfterConflict: d.RetriedAfterConflict}
	if d.Draft != nil {
		out.Draft = &wazerotest.Draft{DraftID: d.Draft.DraftID, Generation: d.Draft.Generation}
	}
	return out
}
