// agentwasm dev: the demo page, the built assets, a Studio AI proxy, a
// demo MCP server and (with the scripted model) an OpenAI-compatible
// endpoint on one address.

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
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentwasm/agentwasm/cmd/agentwasm/internal/demomcp"
	"github.com/agentwasm/agentwasm/cmd/agentwasm/internal/studioproxy"
	moduleversion "github.com/agentwasm/agentwasm/internal/version"
	"github.com/agentwasm/agentwasm/serve/mcpserver"
)

// version is the release version the binary and the module share.
const version = moduleversion.Version

// devOptions configure the dev server.
type devOptions struct {
	Addr        string
	Upstream    string   // OpenAI-compatible base URL; "" means the scripted model
	Model       string   // the upstream's model: the default, always allowed
	AllowModels []string // the other upstream models a page may name (--allow-model)
	APIKey      string   // the upstream's key (from the environment)
	OpenAIKey   string   // the key /openai/v1/chat/completions requires; "" none (--openai-key)
	WebDir      string   // the demo page
	DistDir     string   // the built module, loader and types
	Pace        time.Duration
	Log         io.Writer
	// Trace, when set, gets a line for each MCP request the demo MCP
	// server answers: its server span (--trace: stdout; dev_mcptrace.go).
	// Nil: no tracer.
	Trace io.Writer

	// Direct makes the demo page's session talk to the dev server's
	// OpenAI-compatible endpoint (/openai/v1) instead of the Studio AI
	// proxy (--direct); DirectURL makes it talk to that endpoint itself
	// (--direct-url, which implies Direct). demo_config.go.
	Direct    bool
	DirectURL string

	// AllowHosts are the Host values served besides loopback names
	// (--allow-host HOST[:PORT]); a non-loopback Addr needs at least one.
	// AllowOrigins are the other origins whose pages may call /api and
	// /openai, with CORS answers (--allow-origin URL). Both are checked by
	// runDev; when one reaching newDevHandler is invalid, none of them is
	// allowed.
	AllowHosts   []string
	AllowOrigins []string
	// MaxConcurrent bounds the chat requests answered at once
	// (studioproxy.Options.MaxConcurrent: 0 its default, negative none).
	MaxConcurrent int

	// The connection limits; 0 means the default (limits.go).
	IdleTimeout       time.Duration // a keep-alive connection left idle this long is closed
	ReadHeaderTimeout time.Duration // the request's headers must arrive within this
	BodyTimeout       time.Duration // a request body must arrive within this (answers are not bounded)
	MaxHeaderBytes    int           // the request headers' cap (431 past it)
}

// stringsFlag is a repeatable string flag.
type stringsFlag []string

// String lists the values given.
func (f *stringsFlag) String() string { return strings.Join(*f, ", ") }

// Set adds one value.
func (f *stringsFlag) Set(v string) error { *f = append(*f, v); return nil }

// runDev parses the flags and serves until interrupted.
func runDev(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("agentwasm dev", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := devOptions{Log: stderr}
	fs.StringVar(&o.Addr, "addr", "127.0.0.1:8080", "listen address (host:port); port 0 picks a free one")
	fs.StringVar(&o.Upstream, "upstream", "", "an OpenAI-compatible base URL to forward chats to (key from AGENTWASM_API_KEY or OPENAI_API_KEY); empty: the scripted model")
	fs.StringVar(&o.Model, "model", "", "the upstream model: the default, and always allowed (the page may name only this and --allow-model ones)")
	fs.Var((*stringsFlag)(&o.AllowModels), "allow-model", "another upstream model a page may name (repeatable)")
	fs.Var((*stringsFlag)(&o.AllowOrigins), "allow-origin", "another origin (scheme://host[:port]) whose pages may call /api and /openai, with CORS answers, e.g. http://127.0.0.1:5173 for an app on another local port (repeatable)")
	fs.Var((*stringsFlag)(&o.AllowHosts), "allow-host", "a host name or address (HOST[:PORT]) browsers use to reach the server, besides loopback names; required with a non-loopback --addr (repeatable)")
	fs.IntVar(&o.MaxConcurrent, "max-concurrent", 0, fmt.Sprintf("the chat requests answered at once; past it 429 (0: %d, negative: no bound)", studioproxy.DefaultMaxConcurrent))
	fs.StringVar(&o.WebDir, "web", "web/demo", "the folder of the demo page")
	fs.StringVar(&o.DistDir, "dist", "dist", "the folder of the built module (make build)")
	fs.DurationVar(&o.Pace, "pace", 35*time.Millisecond, "the scripted model's pause between words")
	fs.StringVar(&o.OpenAIKey, "openai-key", "", "a key the scripted model's OpenAI-compatible endpoint ("+openAIChatPath+") requires as Authorization: Bearer KEY (default from "+openAIKeyEnv+"; empty: none)")
	traceMCP := fs.Bool("trace", false, devTraceUsage)
	registerDirectFlags(fs, &o)
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
	if *traceMCP {
		o.Trace = stdout
		// A stdout whose reader is gone (agentwasm dev --trace | head)
		// makes the trace lines' writes fail, and they are dropped:
		// without this the first one would end the server (SIGPIPE).
		signal.Ignore(syscall.SIGPIPE)
	}
	if o.Upstream != "" {
		o.APIKey = firstEnv("AGENTWASM_API_KEY", "OPENAI_API_KEY")
	}
	if o.OpenAIKey == "" {
		o.OpenAIKey = firstEnv(openAIKeyEnv)
	}
	if o.OpenAIKey != "" && o.Upstream != "" {
		fmt.Fprintf(stderr, "agentwasm dev: warning: --openai-key (or %s) applies only to the scripted model's %s; with --upstream that route passes requests through with the upstream's key, and asks none of the page\n", openAIKeyEnv, openAIChatPath)
	}
	if _, err := newOriginPolicy(o.AllowHosts, o.AllowOrigins); err != nil {
		fmt.Fprintln(stderr, "agentwasm dev:", err)
		return 2
	}
	if err := checkDirect(&o); err != nil {
		fmt.Fprintln(stderr, "agentwasm dev:", err)
		return 2
	}
	for _, f := range []struct{ path, fix string }{
		{filepath.Join(o.WebDir, "index.html"), "run from the repository's root, or point --web at web/demo"},
		{filepath.Join(o.DistDir, "agentwasm.tiny.wasm"), "run make build first, or point --dist at the built module"},
	} {
		if _, err := os.Stat(f.path); err != nil {
			fmt.Fprintf(stderr, "agentwasm dev: warning: %s is missing (%s); the page will not load\n", f.path, f.fix)
		}
	}
	h := newDevHandler(o)
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		fmt.Fprintf(stderr, "agentwasm dev: cannot listen on %s: %v (%s)\n", o.Addr, err, listenFix(o.Addr))
		return 1
	}
	if host, _, _ := net.SplitHostPort(ln.Addr().String()); !net.ParseIP(host).IsLoopback() {
		if len(o.AllowHosts) == 0 {
			ln.Close()
			fmt.Fprintf(stderr, "agentwasm dev: --addr %s is not a loopback address: name the hosts browsers will use to reach it with --allow-host (e.g. --allow-host %s), or listen on 127.0.0.1; anyone who reaches the server can spend your upstream key\n", o.Addr, exampleHost(host))
			return 2
		}
		fmt.Fprintf(stderr, "agentwasm dev: warning: listening on %s, which is not a loopback address; the proxy spends your upstream key for anyone who reaches it as %s\n", host, strings.Join(o.AllowHosts, ", "))
	}
	model := "scripted model, OpenAI-compatible at " + openAIPrefix + "v1"
	if o.OpenAIKey != "" {
		model += " (key required)"
	}
	if o.Upstream != "" {
		// The endpoint without user info or query: those may hold secrets.
		model = "upstream " + studioproxy.NewOpenAI(studioproxy.OpenAIOptions{URL: o.Upstream}).Endpoint()
		if o.APIKey == "" {
			model += " (no key set)"
		}
	}
	open := ln.Addr().String()
	if host, port, _ := net.SplitHostPort(open); net.ParseIP(host).IsUnspecified() && len(o.AllowHosts) > 0 {
		// Every address: the page is opened by a name it serves.
		r, _ := parseAllowHost(o.AllowHosts[0])
		if r.port != "" {
			port = r.port
		}
		open = net.JoinHostPort(r.name, port)
	}
	fmt.Fprintf(stdout, "agentwasm dev %s: open http://%s/ (%s; MCP at /api/mcp)\n", version, open, model)
	if note := o.directNote(); note != "" {
		fmt.Fprintln(stdout, note)
	}

	// Ctrl-C ends every request's context (streams included), then the
	// server, waiting up to 2 s for answers being written.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv := newDevServer(ctx, o, h)
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
// /dist/, the proxy under /api/v1/studio/ai/, MCP at /api/mcp, the demo's
// reset at /api/demo/reset and its config at /api/demo/config, the
// OpenAI-compatible endpoint at /openai/v1/chat/completions (dev_openai.go);
// everything under /api/ and /openai/ behind the origin policy (origin.go).
func newDevHandler(o devOptions) http.Handler {
	var model studioproxy.Model = studioproxy.Scripted{Pace: o.Pace}
	caps := studioproxy.Capabilities{Enabled: true, DefaultProvider: "scripted", Providers: []studioproxy.Provider{
		{Name: "scripted", Default: true, ToolSupport: true, DefaultModel: studioproxy.ScriptedModelName, Models: []string{studioproxy.ScriptedModelName}},
	}}
	var models []string // with an upstream: the default first, then the others, each once
	if o.Upstream != "" {
		for _, m := range append([]string{o.Model}, o.AllowModels...) {
			if m != "" && !slices.Contains(models, m) {
				models = append(models, m)
			}
		}
		model = studioproxy.NewOpenAI(studioproxy.OpenAIOptions{URL: o.Upstream, APIKey: o.APIKey, Model: o.Model, Models: models})
		p := studioproxy.Provider{Name: "openai-compatible", Default: true, ToolSupport: true, DefaultModel: o.Model, Models: models}
		caps = studioproxy.Capabilities{Enabled: true, DefaultProvider: p.Name, Providers: []studioproxy.Provider{p}}
	}
	logf := func(string) {}
	if o.Log != nil {
		logf = func(line string) { fmt.Fprintln(o.Log, line) }
	}
	proxy := studioproxy.New(studioproxy.Options{Model: model, Capabilities: caps, Log: logf, MaxConcurrent: o.MaxConcurrent})
	mcp := demomcp.NewWithOptions(demomcp.Options{Tracer: devMCPTracer(o.Trace)})
	policy, err := newOriginPolicy(o.AllowHosts, o.AllowOrigins)
	if err != nil {
		policy = &originPolicy{} // runDev refuses such values first
	}
	policy.log = logf
	if host, port, err := net.SplitHostPort(o.Addr); err == nil {
		// A specific address listened on is served as itself (an IP
		// literal: no name to rebind), a loopback one such as 127.0.0.2
		// too: only 127.0.0.1 and ::1 are served as loopback names.
		if ip := net.ParseIP(host); ip != nil && !ip.IsUnspecified() && !isLoopbackHostName(ip.String()) {
			if port == "0" {
				port = ""
			}
			policy.hosts = append(policy.hosts, hostRule{name: ip.String(), port: port})
		}
	}
	api := http.NewServeMux()
	api.Handle("/api/v1/studio/ai/", http.StripPrefix("/api", proxy))
	api.Handle("/api/mcp", mcp.Handler(devMCPOptions(policy)))
	api.Handle(demoResetPath, demoResetHandler(mcp))
	api.Handle(demoConfigPath, demoConfigHandler(o.demoConfig()))
	api.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		apiError(w, http.StatusNotFound, "not_found", "no such endpoint: "+r.URL.Path)
	})
	mux := http.NewServeMux()
	mux.Handle("/api/", policy.wrap(api))
	mux.Handle(openAIPrefix, policy.wrap(newOpenAIHandler(o, models, proxy.Limit)))
	mux.Handle("/dist/", http.StripPrefix("/dist", assets(o.DistDir)))
	mux.Handle("/", assets(o.WebDir))
	return recoverer(mux)
}

// devMCPOptions are the MCP handler's options under policy: its allowed
// origins, and its allowed hosts, so that its own rebinding checks stay on
// with a non-loopback address (it then serves only these hosts and
// loopback names).
func devMCPOptions(policy *originPolicy) mcpserver.HandlerOptions {
	o := mcpserver.HandlerOptions{AllowedOrigins: policy.origins}
	for _, r := range policy.hosts {
		h := r.name
		if r.port != "" {
			h = net.JoinHostPort(r.name, r.port)
		}
		o.AllowedHosts = append(o.AllowedHosts, h)
	}
	return o
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

// listenFix says how to listen elsewhere when addr cannot be listened on:
// the flag, and the variable of make run, which passes ADDR as --addr.
func listenFix(addr string) string {
	alt := "127.0.0.1:8081"
	if host, port, err := net.SplitHostPort(addr); err == nil {
		if n, err := strconv.Atoi(port); err == nil && n > 0 && n < 65535 {
			alt = net.JoinHostPort(host, strconv.Itoa(n+1))
		}
	}
	return "pick another with --addr " + alt + "; under make run: make run ADDR=" + alt
}

// exampleHost is a host to suggest for --allow-host: the address listened
// on, or a placeholder when it is every address.
func exampleHost(host string) string {
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		return "192.168.1.5"
	}
	return host
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
