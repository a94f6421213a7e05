// agentwasm dev: the demo page, the built assets, a Studio AI proxy and a
// demo MCP server on one address.

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/agentwasm/agentwasm/internal/demomcp"
	"github.com/agentwasm/agentwasm/internal/studioproxy"
	"github.com/agentwasm/agentwasm/serve"
	"github.com/agentwasm/agentwasm/wasm/command"
)

// version is the release version the binary and the module share.
const version = command.Version

// devOptions configure the dev server.
type devOptions struct {
	Addr     string
	Upstream string // OpenAI-compatible base URL; "" means the scripted model
	Model    string // the upstream's model
	APIKey   string // the upstream's key (from the environment)
	WebDir   string // the demo page
	DistDir  string // the built module, loader and types
	Pace     time.Duration
	Log      io.Writer
}

// runDev parses the flags and serves until interrupted.
func runDev(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("agentwasm dev", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := devOptions{Log: stderr}
	fs.StringVar(&o.Addr, "addr", "127.0.0.1:8080", "listen address (host:port); port 0 picks a free one")
	fs.StringVar(&o.Upstream, "upstream", "", "an OpenAI-compatible base URL to forward chats to (key from AGENTWASM_API_KEY or OPENAI_API_KEY); empty: the scripted model")
	fs.StringVar(&o.Model, "model", "", "the upstream model name, when the page names none")
	fs.StringVar(&o.WebDir, "web", "web/demo", "the folder of the demo page")
	fs.StringVar(&o.DistDir, "dist", "dist", "the folder of the built module (make build)")
	fs.DurationVar(&o.Pace, "pace", 35*time.Millisecond, "the scripted model's pause between words")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "agentwasm dev: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if o.Upstream != "" {
		o.APIKey = firstEnv("AGENTWASM_API_KEY", "OPENAI_API_KEY")
	}
	for _, f := range []struct{ path, fix string }{
		{filepath.Join(o.WebDir, "index.html"), "run from the repository's root, or point --web at web/demo"},
		{filepath.Join(o.DistDir, "agentwasm.wasm"), "run make build first, or point --dist at the built module"},
	} {
		if _, err := os.Stat(f.path); err != nil {
			fmt.Fprintf(stderr, "agentwasm dev: warning: %s is missing (%s); the page will not load\n", f.path, f.fix)
		}
	}
	h := newDevHandler(o)
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		fmt.Fprintf(stderr, "agentwasm dev: cannot listen on %s: %v (pick another with --addr)\n", o.Addr, err)
		return 1
	}
	if host, _, _ := net.SplitHostPort(ln.Addr().String()); !net.ParseIP(host).IsLoopback() {
		fmt.Fprintf(stderr, "agentwasm dev: warning: listening on %s, which is not a loopback address; the proxy spends your upstream key for anyone who reaches it\n", host)
	}
	model := "scripted model"
	if o.Upstream != "" {
		// The endpoint without user info or query: those may hold secrets.
		model = "upstream " + studioproxy.NewOpenAI(studioproxy.OpenAIOptions{URL: o.Upstream}).Endpoint()
		if o.APIKey == "" {
			model += " (no key set)"
		}
	}
	fmt.Fprintf(stdout, "agentwasm dev %s: open http://%s/ (%s; MCP at /api/mcp)\n", version, ln.Addr(), model)

	// Ctrl-C ends every request's context (streams included), then the
	// server, waiting up to 2 s for answers being written.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, BaseContext: func(net.Listener) context.Context { return ctx }}
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(stderr, "agentwasm dev:", err)
		return 1
	}
	<-done
	return 0
}

// newDevHandler builds the whole dev server: the page at /, the assets at
// /dist/, the proxy under /api/v1/studio/ai/, MCP at /api/mcp.
func newDevHandler(o devOptions) http.Handler {
	var model studioproxy.Model = studioproxy.Scripted{Pace: o.Pace}
	caps := studioproxy.Capabilities{Enabled: true, DefaultProvider: "scripted", Providers: []studioproxy.Provider{
		{Name: "scripted", Default: true, ToolSupport: true, DefaultModel: studioproxy.ScriptedModelName, Models: []string{studioproxy.ScriptedModelName}},
	}}
	if o.Upstream != "" {
		model = studioproxy.NewOpenAI(studioproxy.OpenAIOptions{URL: o.Upstream, APIKey: o.APIKey, Model: o.Model})
		p := studioproxy.Provider{Name: "openai-compatible", Default: true, ToolSupport: true, DefaultModel: o.Model}
		if o.Model != "" {
			p.Models = []string{o.Model}
		}
		caps = studioproxy.Capabilities{Enabled: true, DefaultProvider: p.Name, Providers: []studioproxy.Provider{p}}
	}
	logf := func(string) {}
	if o.Log != nil {
		logf = func(line string) { fmt.Fprintln(o.Log, line) }
	}
	proxy := studioproxy.New(studioproxy.Options{Model: model, Capabilities: caps, Log: logf})
	mcp := demomcp.New()

	mux := http.NewServeMux()
	mux.Handle("/api/v1/studio/ai/", http.StripPrefix("/api", proxy))
	mux.Handle("/api/mcp", mcp.Handler(serve.MCPHandlerOptions{}))
	mux.Handle("/dist/", http.StripPrefix("/dist", assets(o.DistDir)))
	mux.Handle("/", assets(o.WebDir))
	return recoverer(mux)
}

// recoverer turns a panic in a handler into a 500 for that request.
func recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				http.Error(w, "internal error", http.StatusInternalServerError)
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// firstEnv returns the first non-empty environment variable of names.
func firstEnv(names ...string) string {
	for _, n := range names {
		if v := strings.TrimSpace(os.Getenv(n)); v != "" {
			return v
		}
	}
	return ""
}
