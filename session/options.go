// Options: everything a Session is configured with, and their defaults.
// The names follow the seed's StudioAgentSessionOptions.

package session

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/internal/errs"
)

// DefaultBaseURL is the base of the Studio API used when Options.BaseURL is empty.
const DefaultBaseURL = "/api"

// DefaultMaxToolRounds is the model requests per Chat when Options.MaxToolRounds is zero.
const DefaultMaxToolRounds = 8

// Options configures a Session. The zero value is usable: it talks to
// DefaultBaseURL with the host's default fetcher and no tools.
type Options struct {
	// Auth supplies the bearer token, read afresh for every request. Every
	// token it gives the session (to the chat and capabilities requests and
	// to the default MCP client, refreshes included) is learned, and
	// replaced by [redacted] in every text the session emits or forwards:
	// events, errors, turns, dispatch records, discovery reports, the
	// history and the requests to the model. Nil sends no token.
	Auth TokenSource

	// BaseURL is the base of the Studio API: chat at
	// {BaseURL}/v1/studio/ai/chat, capabilities at
	// {BaseURL}/v1/studio/ai/capabilities, MCP at {BaseURL}/mcp (unless
	// MCPURL says otherwise).
	// Default DefaultBaseURL. Capabilities and MCP are optional: one that
	// answers 404 or 405 is absent, asked once and not again on later
	// turns (see ErrEndpointAbsent). A BaseURL (or MCPURL) with a query, a
	// fragment or an "@" (credentials, user:password@host) is refused by New:
	// a token goes through Auth, never into the URL.
	BaseURL string

	// DisableToolDiscovery never contacts the MCP endpoint: only runtime
	// tools are advertised.
	DisableToolDiscovery bool

	// Draft is the composition draft that composition tools mutate.
	Draft *DraftBinding

	// Execute runs runtime tools. When set it replaces the Kit's executor
	// for every runtime tool.
	Execute Executor

	// Fetcher sends every request. Default bridge.DefaultFetcher().
	Fetcher bridge.Fetcher

	// Kit is the page's local tool plane. Its tools come first; Tools are
	// merged after them, and the first tool of a name wins.
	Kit Kit

	// MaxTokens, Model, Provider and Temperature are passed to the proxy as
	// given; zero values are omitted from the request.
	MaxTokens   int
	Model       string
	Provider    string
	Temperature *float64

	// MaxToolRounds is the number of model requests one Chat may make
	// before the loop stops. Default DefaultMaxToolRounds.
	MaxToolRounds int

	// MCPURL is the MCP endpoint of the default MCP client when it is not
	// {BaseURL}/mcp: an absolute http or https URL, or a path starting with
	// a single "/" (resolved like BaseURL, against the page). Empty keeps
	// {BaseURL}/mcp. It is ignored when MCPClient is set.
	MCPURL string

	// MCPClient is the MCP client used for discovery and composition calls,
	// typically mcpclient.New on {BaseURL}/mcp. Nil means that default:
	// New sets mcpclient.New on MCPURL (default {BaseURL}/mcp) with
	// Fetcher (wrapped in an mcpclient.ResumingFetcher) and Auth, unless
	// DisableToolDiscovery is set (then no MCP server is contacted and only
	// runtime tools are advertised).
	//
	// Discovery runs once per session and is cached when it succeeds, and
	// also when the endpoint is absent (an error matching ErrEndpointAbsent:
	// for the default client, {BaseURL}/mcp answered 404 or 405 to the
	// first contact): that pass is published once, with an empty catalog,
	// and not run again until RefreshTools or Reconnect. Any other failure
	// (an error, or no answer within ToolDiscoveryTimeout) is published with
	// Degraded set and the request that failed named; from then on turns
	// do not wait for discovery (they go on with the runtime tools and the
	// last catalog known) while passes are retried in the background after
	// 1 s, 2 s, 4 s … at most 60 s, until one succeeds. In the js build the
	// retry's timer does not keep a Node process alive. The client's
	// descriptors are vetted one by one (see ToolDiscoveryReport.Rejected).
	MCPClient MCPClient

	// Clock is the time the session reads and waits on: the discovery
	// bound, the stream and capabilities timeouts, the watch's backoff and
	// stable-stream check. Nil means the system clock (in the js build its
	// timers are the host's setTimeout, cleared when stopped, so that a
	// finished turn does not hold a Node process open). Tests inject one to
	// run long bounds at once.
	Clock Clock

	// OnEvent observes every streamed event (each text delta apart, where
	// Turn.Events records a run of them as one), every dispatch and every
	// finished round's step (EventTypeStepFinish), on the goroutine running
	// Chat or Resume, in order, with every token of Auth redacted. A
	// panicking observer is recovered and ignored: it never breaks, hangs or
	// fails a turn.
	OnEvent func(Event)

	// OnTextDelta, when set with OnEvent, observes the plain text deltas
	// in OnEvent's place: each text delta that carries a text and nothing
	// else, as its text alone, with every token of Auth redacted, on the
	// same goroutine and in the same order among OnEvent's events. It is
	// the cheap path of an observer that serializes every event (the
	// module's: wasm/internal/command): no Event is built and no copy of the
	// delta made. Without OnEvent it is not called. A panic in it is
	// recovered and ignored, as OnEvent's is.
	OnTextDelta func(text string)

	// StudioTools is the policy for tools discovered on the MCP server.
	// Nil means the defaults (DefaultToolFamilies, every view, no
	// allowlist, DefaultRequiredTools).
	StudioTools *ToolPolicy

	// System is the system prompt. SystemFunc, when set instead, is called
	// once per Chat (not per round); its error ends the turn. With neither,
	// a Kit that is a SystemPrompter supplies it.
	System     string
	SystemFunc func(ctx context.Context) (string, error)

	// ToolChoice tells the model whether and which tools to call; nil omits
	// it. ChatOptions.ToolChoice overrides it for one turn.
	ToolChoice *ToolChoice

	// ToolDiscoveryTimeout bounds one whole discovery pass. Zero means
	// DefaultToolDiscoveryTimeout; a negative value disables the bound.
	ToolDiscoveryTimeout time.Duration

	// ToolListChangedWatch tunes the list-changed watch.
	ToolListChangedWatch *WatchOptions

	// Tools are explicit runtime tool definitions, merged after the Kit's.
	Tools []ToolDefinition

	// Transport replaces the SSE transport to the Studio AI proxy.
	Transport Transport

	// Restore, when set, is a snapshot (Session.Snapshot's bytes, of this
	// or an earlier SnapshotVersion, taken in any host) the session starts
	// from: its history, the asks its last turn stopped on (Resume answers
	// them), its usage, draft binding and call counter. Given the same
	// options, the restored session's next Chat sends the very request the
	// original's would have. The snapshot's data options (BaseURL, MCPURL,
	// Model, Provider, System, MaxTokens, Temperature, ToolChoice,
	// MaxToolRounds, OpenAI's BaseURL — never a function or a credential)
	// fill the ones these Options leave unset: the caller's win. New
	// refuses a snapshot of another format or
	// version, one that is not well-formed or past the bounds with an error
	// matching ErrBadSnapshot, and makes no session.
	Restore RawJSON

	// OpenAI, when set, sends each chat request straight to an
	// OpenAI-compatible chat completions endpoint (a local server such as
	// Ollama, llama.cpp's llama-server, vLLM or LM Studio, or a hosted API)
	// instead of the Studio AI proxy: see OpenAIEndpoint. Model names the
	// endpoint's model; Provider is not sent. The capabilities endpoint is
	// not read. Every bound of the proxy's stream holds for its answer
	// (StreamFirstByteTimeout, StreamIdleTimeout, MaxFrameBytes and the
	// turn's bounds), and a failure at the endpoint ends the turn with one
	// of the ErrorCodeUpstream… codes (a stream cut short or gone silent
	// with ErrorCodeStreamTruncated or ErrorCodeStreamTimeout, as through
	// the proxy; a build without the direct transport with
	// ErrorCodeDirectUnavailable). It may not be set with
	// Transport. Discovery is not affected: BaseURL and MCPURL still name
	// the MCP server (set DisableToolDiscovery when there is none).
	OpenAI *OpenAIEndpoint

	// WatchToolListChanged subscribes to the MCP server's list-changed
	// notifications after the first successful discovery.
	WatchToolListChanged bool

	// MaxFrameBytes bounds one server-sent event frame of the chat stream.
	// Default bridge.DefaultMaxFrameBytes (4 MiB).
	MaxFrameBytes int

	// MaxTurnEvents bounds the events one Chat records in Turn.Events, where
	// a run of contiguous text deltas is one event. Past it the turn ends
	// with StatusError and ErrorCodeTurnTooLarge, keeping the text received
	// so far. Default DefaultMaxTurnEvents (100,000).
	MaxTurnEvents int

	// MaxTurnTextBytes bounds the bytes one Chat takes in from the model:
	// the strings of every streamed event (the answer's text, tool-call
	// arguments, ids, names, messages), over all its rounds. Past it the
	// turn ends as for MaxTurnEvents. Default DefaultMaxTurnTextBytes
	// (8 MiB).
	MaxTurnTextBytes int

	// MaxRequestBytes bounds one chat request as it is sent (its JSON
	// body): a turn whose next request would pass it sends nothing and
	// ends with StatusError and ErrorCodeRequestTooLarge, the history left
	// as it was before the turn (Chat says how). Set it to the bound of the
	// proxy in use. Default DefaultMaxRequestBytes (8 MiB, the dev proxy's
	// bound).
	MaxRequestBytes int

	// MaxToolResultBytes bounds one tool message as the next request
	// carries it (its content, JSON-escaped). A result past it, or one
	// that would take the next request past MaxRequestBytes, is not kept:
	// the call fails with CodeResultTooLarge, and the model reads that
	// small rejection instead. Default DefaultMaxToolResultBytes (2 MiB);
	// it may not exceed MaxRequestBytes.
	MaxToolResultBytes int

	// StreamFirstByteTimeout bounds the wait from sending a chat request
	// (after its token was read) to the first byte of the answer's body;
	// StreamIdleTimeout bounds the silence between bytes after that. Past
	// either, the request is aborted and the turn ends with StatusError and
	// ErrorCodeStreamTimeout, keeping the text received so far; an answer
	// whose message_stop had arrived ends as if the stream had closed. Both
	// are waited on Clock. Zero means DefaultStreamFirstByteTimeout and
	// DefaultStreamIdleTimeout (120 s each); a negative value disables the
	// bound. They bound the default SSE transport; a Transport bounds its
	// own streams.
	StreamFirstByteTimeout time.Duration
	StreamIdleTimeout      time.Duration

	// Tracer, when set, is told of every turn — its model requests, tool
	// calls, discovery passes, MCP requests and waits for a person — to
	// make spans of them, and gives the trace context that the chat
	// requests and the default MCP client's requests carry (see Tracer;
	// package tracing makes OpenTelemetry spans). Native builds only: in
	// the wasm builds Tracer is an empty placeholder, and nothing is
	// traced. Nil traces nothing.
	Tracer Tracer

	// CapabilitiesTimeout bounds the capabilities request, from sending it
	// (after its token was read) to the end of its body, on Clock. Past it
	// the read fails (it is not cached: the next turn with tools asks
	// again) and the turn goes on without a refusal check. Zero means
	// DefaultCapabilitiesTimeout (30 s); a negative value disables it.
	CapabilitiesTimeout time.Duration
}

// OpenAIEndpoint is an OpenAI-compatible chat completions endpoint that a
// session talks to directly (Options.OpenAI).
type OpenAIEndpoint struct {
	// BaseURL is the API's base: an absolute http or https URL, or a path
	// starting with "/" (resolved against the page). Requests go to
	// {BaseURL}/v1/chat/completions, except that a BaseURL ending in /v1
	// only gets /chat/completions and one ending in /chat/completions is
	// used as it is: http://127.0.0.1:11434/v1 (Ollama),
	// http://127.0.0.1:8080 (llama.cpp), https://api.openai.com/v1. A
	// query, a fragment or credentials (user:password@) are refused: the
	// key goes through APIKey.
	BaseURL string

	// APIKey supplies the key, read afresh for every request (and once more,
	// refreshed, after a 401), sent as "Authorization: Bearer <key>" to the
	// endpoint only. It is handled like a token of Auth: learned by the
	// scrubber and replaced by [redacted] in every text the session emits,
	// never in an event, error, record or the history. A redirect to
	// another origin never carries it (natively the fetcher refuses such a
	// redirect; a browser's and Node's fetch drop Authorization on it). Nil
	// sends no key (a local server needs none).
	APIKey TokenSource
}

// ToolChoice tells the model whether and which tools to call.
type ToolChoice struct {
	Mode     string // "auto", "none", "required" or "specific"
	ToolName string // with Mode "specific": the tool to call
}

// ChatOptions are per-turn overrides.
type ChatOptions struct {
	// ToolChoice, when set, replaces Options.ToolChoice for this turn.
	ToolChoice *ToolChoice
}

func (tc *ToolChoice) validate(where string) error {
	if tc == nil {
		return nil
	}
	switch tc.Mode {
	case "auto", "none", "required":
	case "specific":
		if tc.ToolName == "" {
			return errs.New("session: ", where, ` mode "specific" needs a ToolName`)
		}
	default:
		return errs.New("session: ", where, " mode ", strconv.Quote(tc.Mode), ` is not one of "auto", "none", "required", "specific"`)
	}
	return nil
}

// negative is the error of an option that must not be negative; zero says
// what 0 means.
func negative(name string, v int, zero string) error {
	return errs.New("session: ", name, " is ", strconv.Itoa(v), "; give a positive number, or 0 ", zero)
}

// withDefaults checks o and returns a copy with defaults filled in.
func (o Options) withDefaults() (Options, error) {
	if o.BaseURL == "" {
		o.BaseURL = DefaultBaseURL
	}
	o.BaseURL = strings.TrimRight(o.BaseURL, "/")
	if err := secretFreeURL("BaseURL", o.BaseURL, "pass a token through the auth option"); err != nil {
		return o, err
	}
	if o.Fetcher == nil {
		o.Fetcher = bridge.DefaultFetcher()
	}
	if o.Clock == nil {
		o.Clock = defaultClock()
	}
	switch {
	case o.MaxTokens < 0:
		return o, negative("MaxTokens", o.MaxTokens, "to let the proxy choose")
	case o.MaxFrameBytes < 0:
		return o, negative("MaxFrameBytes", o.MaxFrameBytes, "for the 4 MiB default")
	case o.MaxTurnEvents < 0:
		return o, negative("MaxTurnEvents", o.MaxTurnEvents, "for the default 100000")
	case o.MaxTurnTextBytes < 0:
		return o, negative("MaxTurnTextBytes", o.MaxTurnTextBytes, "for the 8 MiB default")
	case o.MaxToolRounds < 0:
		return o, negative("MaxToolRounds", o.MaxToolRounds, "for the default 8")
	case o.MaxRequestBytes < 0:
		return o, negative("MaxRequestBytes", o.MaxRequestBytes, "for the 8 MiB default")
	case o.MaxToolResultBytes < 0:
		return o, negative("MaxToolResultBytes", o.MaxToolResultBytes, "for the 2 MiB default")
	case o.System != "" && o.SystemFunc != nil:
		return o, errors.New("session: give System or SystemFunc, not both")
	}
	if err := validMCPURL(o.MCPURL); err != nil {
		return o, err
	}
	if o.OpenAI != nil {
		e := *o.OpenAI
		e.BaseURL = strings.TrimRight(e.BaseURL, "/")
		if err := validEndpointURL(e.BaseURL); err != nil {
			return o, err
		}
		if o.Transport != nil {
			return o, errors.New("session: give OpenAI or Transport, not both")
		}
		o.OpenAI = &e
	}
	if o.MaxToolRounds == 0 {
		o.MaxToolRounds = DefaultMaxToolRounds
	}
	if o.MaxTurnEvents == 0 {
		o.MaxTurnEvents = DefaultMaxTurnEvents
	}
	if o.MaxTurnTextBytes == 0 {
		o.MaxTurnTextBytes = DefaultMaxTurnTextBytes
	}
	if o.MaxRequestBytes == 0 {
		o.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if o.MaxToolResultBytes == 0 {
		o.MaxToolResultBytes = min(DefaultMaxToolResultBytes, o.MaxRequestBytes)
	}
	if o.MaxToolResultBytes > o.MaxRequestBytes {
		return o, errs.New("session: MaxToolResultBytes is ", strconv.Itoa(o.MaxToolResultBytes), ", over MaxRequestBytes (",
			strconv.Itoa(o.MaxRequestBytes), "); a result that large could never be sent: lower it, or raise MaxRequestBytes")
	}
	if o.StreamFirstByteTimeout == 0 {
		o.StreamFirstByteTimeout = DefaultStreamFirstByteTimeout
	}
	if o.StreamIdleTimeout == 0 {
		o.StreamIdleTimeout = DefaultStreamIdleTimeout
	}
	if o.CapabilitiesTimeout == 0 {
		o.CapabilitiesTimeout = DefaultCapabilitiesTimeout
	}
	// Copy what the caller could change under the session.
	if o.ToolChoice != nil {
		tc := *o.ToolChoice
		o.ToolChoice = &tc
	}
	if o.Temperature != nil {
		t := *o.Temperature
		o.Temperature = &t
	}
	o.Tools = append([]ToolDefinition(nil), o.Tools...)
	if o.ToolDiscoveryTimeout == 0 {
		o.ToolDiscoveryTimeout = DefaultToolDiscoveryTimeout
	}
	if err := o.ToolChoice.validate("ToolChoice"); err != nil {
		return o, err
	}
	for i, t := range o.Tools {
		if t.Name == "" {
			return o, errs.New("session: Tools[", strconv.Itoa(i), "] has no name")
		}
	}
	return o, o.validateMCPOptions()
}

// validMCPURL accepts "" (the default endpoint), an absolute http or https
// URL with a host, or a path starting with a single "/"; nothing with
// spaces or control characters.
func validMCPURL(u string) error {
	if u == "" {
		return nil
	}
	if err := secretFreeURL("MCPURL", u, "pass a token through the auth option"); err != nil {
		return err
	}
	bad := func(why string) error {
		return errs.New("session: MCPURL ", strconv.Quote(errs.Trunc(u, 80)), " ", why,
			`; give an absolute http(s) URL such as "https://studio.example/mcp", a path such as "/api/mcp", or "" for {BaseURL}/mcp`)
	}
	for _, r := range u {
		if r <= ' ' || r == 0x7f {
			return bad("has a space or control character")
		}
	}
	lower := strings.ToLower(u)
	switch {
	case strings.HasPrefix(u, "//"):
		return bad("is a scheme-relative URL, not a path")
	case strings.HasPrefix(u, "/"):
		return nil
	case strings.HasPrefix(lower, "http://"), strings.HasPrefix(lower, "https://"):
		host := u[strings.Index(u, "//")+2:]
		if i := strings.IndexAny(host, "/?#"); i >= 0 {
			host = host[:i]
		}
		if host == "" {
			return bad("has no host")
		}
		return nil
	}
	return bad("is neither an absolute http(s) URL nor a path starting with /")
}

// validEndpointURL accepts an OpenAI endpoint's base: an absolute http or
// https URL, or a path starting with a single "/", without secrets.
func validEndpointURL(u string) error {
	// A "\" is refused as well: a browser reads /\host as //host, another origin.
	if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") && (!strings.HasPrefix(u, "/") || strings.HasPrefix(u, "//")) || strings.IndexByte(u, '\\') >= 0 {
		return errors.New("session: OpenAI.BaseURL is not an http:// or https:// URL nor a path starting with a single / (the URL is not repeated here: it may hold a secret); give the API's base, such as http://127.0.0.1:11434/v1")
	}
	return secretFreeURL("OpenAI.BaseURL", u, "pass the key through OpenAI.APIKey (the apiKey hook)")
}

// secretFreeURL refuses a URL that carries a query, a fragment or an "@"
// (credentials, user:password@host): the session appends paths to it (a
// query would swallow them) and names it in errors and records, where a
// token written into it would be shown. The error does not repeat the URL;
// it ends with where the secret goes instead (secretAdvice).
func secretFreeURL(name, u, secretAdvice string) error {
	if strings.ContainsAny(u, "?#@") {
		return errs.New("session: ", name, " has a query, a fragment or credentials (?, # or @); give the URL without them and ", secretAdvice)
	}
	return nil
}
