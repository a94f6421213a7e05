// The client: MCP over Streamable HTTP at {baseUrl}/mcp through a
// bridge.Fetcher, speaking both eras of the protocol (the session era
// with initialize and Mcp-Session-Id, 2025-03-26 … 2025-11-25; the stateless
// era with per-request _meta, 2026-07-28) and remembering which one the
// server answered. This file holds the configuration, the client's state and
// the methods session.MCPClient asks for; era.go negotiates the era and runs
// the handshake; http.go sends requests and reads answers.

package mcpclient

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/internal/absent"
	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/internal/jsonr"
	"github.com/agentwasm/agentwasm/internal/mcp"
	"github.com/agentwasm/agentwasm/internal/rawjson"
	"github.com/agentwasm/agentwasm/internal/wire"
)

// Era is the generation of MCP's Streamable HTTP an MCP client speaks.
type Era string

const (
	// EraAuto tries the stateless era first (server/discover) and falls
	// back to the session era; the answer is remembered until Reset or Close.
	EraAuto Era = "auto"
	// EraSession is the initialize-handshake era (2025-03-26 … 2025-11-25).
	EraSession Era = "session"
	// EraStateless is the per-request-metadata era (2026-07-28).
	EraStateless Era = "stateless"
)

// Protocol versions and defaults of Client.
const (
	// StatelessProtocolVersion is the stateless-era version the client
	// sends in _meta and the MCP-Protocol-Version header ("2026-07-28").
	StatelessProtocolVersion = mcp.LatestStatelessVersion
	// SessionProtocolVersion is the session-era version the client asks
	// for in initialize ("2025-11-25").
	SessionProtocolVersion = mcp.LatestSessionVersion
	// DefaultMaxPages bounds a tools/list walk.
	DefaultMaxPages = 50
	// DefaultMaxResponseBytes bounds one response body (a JSON body, or
	// the whole of an event stream).
	DefaultMaxResponseBytes = 8 << 20
	// DefaultWorkflowView is the view hint sent on initialize.
	DefaultWorkflowView = "setup"
	// DefaultClientName and DefaultClientVersion are the clientInfo
	// sent when the configuration gives none.
	DefaultClientName    = "agentwasm"
	DefaultClientVersion = "0.1.0"
	// DefaultCloseTimeout bounds the DELETE that Close sends.
	DefaultCloseTimeout = 10 * time.Second
	// DefaultAnswerTimeout bounds the POST that carries the client's
	// answer to one server request (see Client).
	DefaultAnswerTimeout = 5 * time.Second
)

// Config configures a Client. Zero fields take the defaults given in
// brackets.
type Config struct {
	// URL is the MCP endpoint, {baseUrl}/mcp. Required.
	URL string
	// Fetcher sends every request [bridge.DefaultFetcher()].
	Fetcher bridge.Fetcher
	// Auth supplies the bearer token, asked afresh for every request; after
	// a 401 it is asked once with forceRefresh and the request retried.
	// Nil sends no authorization header.
	Auth TokenSource
	// Era is the era to speak [EraAuto].
	Era Era
	// WorkflowView is sent as _meta["honua.io/workflow-view"] on initialize
	// [DefaultWorkflowView].
	WorkflowView string
	// ClientName and ClientVersion are the clientInfo
	// [DefaultClientName, DefaultClientVersion].
	ClientName, ClientVersion string
	// MaxPages bounds a tools/list walk [DefaultMaxPages].
	MaxPages int
	// MaxResponseBytes bounds one response body [DefaultMaxResponseBytes].
	MaxResponseBytes int
	// CloseTimeout bounds the DELETE that Close sends [DefaultCloseTimeout].
	CloseTimeout time.Duration
	// AnswerTimeout bounds the POST that answers one server request
	// [DefaultAnswerTimeout].
	AnswerTimeout time.Duration
	// OnNotification, when set, observes every notification a server sends
	// on a request's event stream before the answer (progress, log
	// messages). It runs on the calling goroutine, so it should return
	// quickly; a panic in it is ignored.
	OnNotification func(method string, params rawjson.Message)
	// OnToolRejected, when set, hears of each tool a stateless-era
	// tools/list walk left out because its x-mcp-header annotations break
	// the rules, with the reason. A panic in it is ignored.
	OnToolRejected func(name, reason string)
	// Tracer, when set, makes a span of each MCP request and notification
	// and gives the trace context the request carries (headers
	// traceparent and tracestate, and the same in params._meta); see
	// Tracer. Native builds only: in the wasm builds Tracer is an empty
	// placeholder, and nothing is traced. Nil traces nothing.
	Tracer Tracer
}

// Client is an MCP client over Streamable HTTP through a bridge.Fetcher,
// and session's default one (it implements session.MCPClient,
// MCPPageLister, MCPListener and MCPContextCloser). It is safe for
// concurrent use; concurrent calls share one era probe and one handshake.
//
// When the endpoint is absent — every answer since the client was created,
// Reset or Closed was 404 or 405, none to a request carrying an
// Mcp-Session-Id (see session.ErrEndpointAbsent) — a call fails with a
// *session.EndpointAbsentError wrapping the request's own error, and the
// client forgets the era it guessed, so that a later call probes afresh.
//
// In the session era the client answers the requests a server sends it on
// an event stream — the GET notification stream the list-changed watch
// reads, and the stream answering a POST, before the response — as MCP
// requires: ping with an empty result, any other method with the JSON-RPC
// error MethodNotFound, POSTed to the MCP endpoint with the request's
// headers (session id, protocol version, bearer token). An answer
// is sent on its own goroutine, bounded by AnswerTimeout and by the context
// of the call or stream it came on; its failure is ignored and never breaks
// the call or the stream. The stateless era (2026-07-28) has no server
// requests — a server must not send them, a client must not POST responses,
// and ping is gone — so there the client reads past them unanswered.
type Client struct {
	cfg       Config
	meta      rawjson.Message // the stateless era's _meta
	initMeta  rawjson.Message // initialize's _meta
	clientCap rawjson.Message // the client capabilities: none

	ids       atomic.Int64
	sem       chan struct{} // one slot, held while probing or initializing
	answering chan struct{} // a slot per answer to a server request in flight

	mu      sync.Mutex
	st      mcpState
	params  map[string][]mcp.ParamHeader // x-mcp-header annotations by tool, from the last stateless-era walk
	reached bool                         // some answer since the last Reset or Close was neither 404 nor 405
}

// mcpState is what the client knows about the server, copied by each request.
type mcpState struct {
	era       Era    // EraSession or EraStateless once known; "" before
	ready     bool   // requests may be sent: stateless, or initialized
	sessionID string // session era: the Mcp-Session-Id to echo
	version   string // the protocol version of the MCP-Protocol-Version header
	gen       uint64 // bumped by Reset and Close; a handshake of an older one is dropped
}

// New returns a client for cfg. It sends nothing until the first call.
func New(cfg Config) (*Client, error) {
	if cfg.URL == "" {
		return nil, errors.New("mcpclient: Config.URL is empty; give the MCP endpoint, {baseUrl}/mcp")
	}
	switch cfg.Era {
	case "":
		cfg.Era = EraAuto
	case EraAuto, EraSession, EraStateless:
	default:
		return nil, errs.New("mcpclient: Config.Era is ", strconv.Quote(string(cfg.Era)), `; give "auto", "session" or "stateless"`)
	}
	if cfg.MaxPages < 0 || cfg.MaxResponseBytes < 0 || cfg.CloseTimeout < 0 || cfg.AnswerTimeout < 0 {
		return nil, errors.New("mcpclient: Config bounds must not be negative")
	}
	if cfg.Fetcher == nil {
		cfg.Fetcher = bridge.DefaultFetcher()
	}
	if cfg.WorkflowView == "" {
		cfg.WorkflowView = DefaultWorkflowView
	}
	if cfg.ClientName == "" {
		cfg.ClientName = DefaultClientName
	}
	if cfg.ClientVersion == "" {
		cfg.ClientVersion = DefaultClientVersion
	}
	if cfg.MaxPages == 0 {
		cfg.MaxPages = DefaultMaxPages
	}
	if cfg.MaxResponseBytes == 0 {
		cfg.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if cfg.CloseTimeout == 0 {
		cfg.CloseTimeout = DefaultCloseTimeout
	}
	if cfg.AnswerTimeout == 0 {
		cfg.AnswerTimeout = DefaultAnswerTimeout
	}
	c := &Client{cfg: cfg, sem: make(chan struct{}, 1), answering: make(chan struct{}, mcpMaxAnswers), clientCap: rawjson.Message("{}")}
	var err error
	c.meta, err = wire.Marshal(&wire.MCPRequestMeta{
		ProtocolVersion:    StatelessProtocolVersion,
		ClientInfo:         &wire.MCPImplementation{Name: cfg.ClientName, Version: cfg.ClientVersion},
		ClientCapabilities: c.clientCap,
	})
	if err != nil {
		return nil, err
	}
	c.initMeta, err = wire.Marshal(&wire.MCPInitializeMeta{WorkflowView: cfg.WorkflowView})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Era returns the era the client speaks: the configured one, or for
// EraAuto the one the server answered, or EraAuto while that is not
// known yet.
func (c *Client) Era() Era {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.st.era != "" {
		return c.st.era
	}
	return c.cfg.Era
}

// ListTools walks tools/list from the first page, following nextCursor
// until it is absent or empty, and returns every tool in server order. A
// repeated cursor, or more than MaxPages pages, fails the walk with a
// *ProtocolError of code InternalError; no partial catalog is returned.
// Each page is read with ReadToolList: a tool nested too deeply or
// otherwise unreadable is handed on for discovery to refuse, and never
// fails the page.
func (c *Client) ListTools(ctx context.Context) (tools []Tool, err error) {
	tools, _, err = c.ListToolPages(ctx)
	return tools, err
}

// ListToolPages is ListTools that also says how many pages the catalog
// took (session.MCPPageLister).
func (c *Client) ListToolPages(ctx context.Context) (tools []Tool, pages int, err error) {
	defer recoverMCP(&err, mcp.MethodToolsList)
	seen := map[string]bool{}
	cursor := ""
	for page := 1; ; page++ {
		raw, err := c.call(ctx, mcp.MethodToolsList, "", nil, func(meta rawjson.Message) wire.Marshaler {
			return &wire.MCPListToolsParams{Cursor: cursor, Meta: meta}
		})
		if err != nil {
			return nil, 0, err
		}
		listed, next, err := ReadToolList(raw)
		if err != nil {
			return nil, 0, &TransportError{Method: mcp.MethodToolsList, Msg: "malformed result", Err: err}
		}
		tools = append(tools, listed...)
		switch {
		case next == "":
			return c.checkParamHeaders(tools), page, nil
		case seen[next] || next == cursor:
			return nil, 0, &ProtocolError{Method: mcp.MethodToolsList, Code: InternalError,
				Message: "the server repeated the cursor " + strconv.Quote(next) + " on page " + strconv.Itoa(page)}
		case page >= c.cfg.MaxPages:
			return nil, 0, &ProtocolError{Method: mcp.MethodToolsList, Code: InternalError,
				Message: "the catalog has more than " + strconv.Itoa(c.cfg.MaxPages) + " pages"}
		}
		seen[next] = true
		cursor = next
	}
}

// CallTool calls tools/call with name and args, a JSON object (empty means
// {}). Cancelling ctx aborts the request. A result with isError returns the
// result and a *ToolError; an error answer is a *ProtocolError; no
// usable answer is a *TransportError; an ended ctx gives an error for
// which errors.Is(err, ctx.Err()) holds.
func (c *Client) CallTool(ctx context.Context, name string, args rawjson.Message) (res ToolResult, err error) {
	defer recoverMCP(&err, mcp.MethodToolsCall)
	if name == "" {
		return ToolResult{}, errors.New("mcp: tools/call: the tool name is empty")
	}
	a, err := toolArguments(args)
	if err != nil {
		return ToolResult{}, errs.Wrap(err, "mcp: tools/call ", name)
	}
	c.mu.Lock()
	extra := paramHeaderValues(c.params[name], a)
	c.mu.Unlock()
	raw, err := c.call(ctx, mcp.MethodToolsCall, name, extra, func(meta rawjson.Message) wire.Marshaler {
		return &wire.MCPCallToolParams{Name: name, Arguments: a, Meta: meta}
	})
	if err != nil {
		return ToolResult{}, err
	}
	return callToolResult(name, raw)
}

// callToolResult reads a tools/call result: an input_required result is a
// protocol error; a result with isError comes with a *ToolError.
func callToolResult(name string, raw rawjson.Message) (ToolResult, error) {
	var r wire.MCPCallToolResult
	if err := wire.Unmarshal(raw, &r); err != nil {
		return ToolResult{}, &TransportError{Method: mcp.MethodToolsCall, Msg: "malformed result", Err: err}
	}
	if r.ResultType == mcp.ResultInputRequired {
		return ToolResult{}, &ProtocolError{Method: mcp.MethodToolsCall, Code: InternalError,
			Message: "the server asked for client input (resultType input_required), which this client does not provide"}
	}
	res := ToolResult{
		Content:           rawjson.Message(r.Content),
		StructuredContent: rawjson.Message(r.StructuredContent),
		IsError:           r.IsError,
	}
	if r.IsError {
		return res, toolError(name, res)
	}
	return res, nil
}

// Reset forgets the era and the MCP session without telling the server; the
// next call negotiates afresh (and may find the endpoint absent again, see
// session.ErrEndpointAbsent). A handshake in flight is dropped.
func (c *Client) Reset() {
	c.mu.Lock()
	c.st = mcpState{gen: c.st.gen + 1}
	c.reached = false
	c.mu.Unlock()
}

// Close ends the MCP session: in the session era it sends DELETE with the
// session id (bounded by CloseTimeout; a 404 or 405 answer is fine), and in
// either era it forgets the era and session like Reset. The client stays
// usable: a later call starts a new session.
func (c *Client) Close() error {
	return c.CloseContext(context.Background())
}

// CloseContext is Close whose DELETE also ends when ctx does (then it
// returns the request's error); the era and session are forgotten either
// way.
func (c *Client) CloseContext(ctx context.Context) (err error) {
	defer recoverMCP(&err, "DELETE")
	c.mu.Lock()
	st := c.st
	c.st = mcpState{gen: st.gen + 1}
	c.reached = false
	c.mu.Unlock()
	if st.era != EraSession || st.sessionID == "" {
		return nil
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.CloseTimeout)
	defer cancel()
	resp, err := c.send(ctx, "DELETE", "DELETE", sessionHeader(bridge.Header{}, st), nil)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if ok2xx(resp.Status) || resp.Status == 404 || resp.Status == 405 {
		return nil
	}
	return &TransportError{Method: "DELETE", Status: resp.Status, Msg: "the server refused to end the session"}
}

// state returns a copy of the client's state.
func (c *Client) state() mcpState {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.st
}

// store replaces the state unless Reset or Close ran since gen was read.
func (c *Client) store(st mcpState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.st.gen == st.gen {
		c.st = st
	}
}

// call sends one request in the current era and returns its result. In the
// session era a 404 on a request that carried a session id re-initializes
// once and retries; a second 404 is an error. A 404 or 405 from an endpoint
// that never answered otherwise is a *session.EndpointAbsentError.
//
// extra holds headers sent in the stateless era only (Mcp-Param-*).
func (c *Client) call(ctx context.Context, method, name string, extra map[string]string, params func(meta rawjson.Message) wire.Marshaler) (rawjson.Message, error) {
	st, err := c.ensure(ctx)
	if err != nil {
		return nil, err
	}
	for renewed := false; ; renewed = true {
		res, status, err := c.roundTrip(ctx, st, method, name, extra, params)
		if status == 404 && st.era == EraSession && st.sessionID != "" && !renewed {
			if st, err = c.renew(ctx, st); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil && st.sessionID == "" && absent.Status(status) && !c.hasReached() {
			return nil, c.absent(status, err)
		}
		return res, err
	}
}

// hasReached reports whether some answer since the last Reset or Close was
// neither 404 nor 405: the endpoint exists.
func (c *Client) hasReached() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reached
}

// absent is the error of a request that found the endpoint absent.
func (c *Client) absent(status int, err error) error {
	return &absent.Error{Endpoint: "MCP", URL: c.cfg.URL, Status: status, Err: err}
}

// checkParamHeaders, after a walk in the stateless era, leaves out the
// tools whose x-mcp-header annotations break the rules and remembers the
// annotations of the others for tools/call. In the session era it forgets
// them.
func (c *Client) checkParamHeaders(tools []Tool) []Tool {
	params := map[string][]mcp.ParamHeader{}
	if c.Era() == EraStateless {
		kept := tools[:0]
		for _, t := range tools {
			hs, err := mcp.ParamHeaders(t.InputSchema)
			if err != nil {
				c.rejected(t.Name, err.Error())
				continue
			}
			if len(hs) > 0 {
				params[t.Name] = hs
			}
			kept = append(kept, t)
		}
		tools = kept
	}
	c.mu.Lock()
	c.params = params
	c.mu.Unlock()
	return tools
}

// rejected tells OnToolRejected, ignoring a panic in it.
func (c *Client) rejected(name, reason string) {
	if c.cfg.OnToolRejected == nil {
		return
	}
	defer func() { _ = recover() }()
	c.cfg.OnToolRejected(name, reason)
}

// toolArguments checks args, a JSON object, and returns it ({} when empty).
func toolArguments(args rawjson.Message) (rawjson.Message, error) {
	a := jsonr.TrimSpace(args)
	if len(a) == 0 || string(a) == "null" {
		return rawjson.Message("{}"), nil
	}
	if a[0] != '{' || !wire.Valid(a) {
		return nil, errors.New("the arguments are not a JSON object")
	}
	return rawjson.Message(a), nil
}

// toolError reads the code and message of a result with isError.
func toolError(name string, r ToolResult) *ToolError {
	e := &ToolError{Tool: name, Result: r}
	if code, msg, ok := errorBody(r.StructuredContent); ok {
		e.Code, e.Message = code, msg
		return e
	}
	var blocks wire.MCPContentBlocks
	if len(r.Content) > 0 && wire.Unmarshal(r.Content, &blocks) == nil {
		for _, b := range blocks {
			if b.Type != "text" {
				continue
			}
			if code, msg, ok := errorBody([]byte(b.Text)); ok {
				e.Code, e.Message = code, msg
			} else {
				e.Code, e.Message = "unknown", b.Text
			}
			return e
		}
	}
	e.Code, e.Message = "unknown", "the tool reported an error without a message"
	return e
}

// errorBody parses data as {code, message}; ok is false unless it is an
// object with a code or a message. A numeric code is kept as its digits; a
// missing code is "unknown".
func errorBody(data []byte) (code, msg string, ok bool) {
	d := jsonr.TrimSpace(data)
	if len(d) == 0 || d[0] != '{' {
		return "", "", false
	}
	var b wire.MCPToolErrorBody
	if wire.Unmarshal(d, &b) != nil {
		return "", "", false
	}
	if c := jsonr.TrimSpace(b.Code); len(c) > 0 {
		if c[0] == '"' {
			code, _ = wire.DecodeString(c)
		} else if c[0] == '-' || (c[0] >= '0' && c[0] <= '9') {
			code = string(c)
		}
	}
	if code == "" && b.Message == "" {
		return "", "", false
	}
	if code == "" {
		code = "unknown"
	}
	return code, b.Message, true
}

// recoverMCP turns a panic in an exported method into a transport error.
func recoverMCP(err *error, method string) {
	if p := recover(); p != nil {
		*err = &TransportError{Method: method, Msg: "the MCP client panicked: " + errs.Text(p)}
	}
}
