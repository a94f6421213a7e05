// The transport-free MCP dispatcher: one JSON-RPC body in, one answer out,
// for both eras of MCP (the session era, 2025-03-26 … 2025-11-25, with
// initialize and optional session ids; the stateless 2026-07-28 revision
// with server/discover and per-request _meta). The HTTP handler and the wasm
// builds both sit on it.

package serve

import (
	"bytes"
	"context"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentwasm/agentwasm/internal/jsonr"
	"github.com/agentwasm/agentwasm/internal/mcp"
	"github.com/agentwasm/agentwasm/internal/wire"
)

// ToolServer is what the MCP dispatcher serves: the port adapter implements
// it, and so does the conformance fixture.
type ToolServer interface {
	// ListTools returns the JSON array of MCP tool objects. The dispatcher
	// reads it when it is built, and again on each ToolsChanged.
	ListTools() []byte
	// CallTool runs one tool and returns a complete CallToolResult JSON
	// object. args is the arguments object ("{}" when the call had none).
	// The dispatcher calls it only with a name its tool list holds: a call
	// of another name is answered with the JSON-RPC error -32602 (invalid
	// params) before it reaches the tool server.
	CallTool(ctx context.Context, name string, args []byte) []byte
}

// MCPToolCall is one tools/call as the dispatcher received it.
type MCPToolCall struct {
	Name      string // the tool name
	Arguments []byte // the arguments object ("{}" when absent)
	// ProtocolVersion is the request's protocol version: the stateless
	// era's _meta version, or the version the session negotiated ("" when
	// unknown).
	ProtocolVersion string
	// ClientCapabilities is the client's capabilities object as JSON (the
	// stateless era's _meta; nil in the session era).
	ClientCapabilities []byte
	Stateless          bool // the request came in the 2026-07-28 era
	// SessionID is the call's MCP session: the Mcp-Session-Id initialize
	// issued, in the session era with MCPDispatcherOptions.Sessions ("" in
	// the stateless era, or without sessions, where a call has no identity).
	// The port's tool server makes it the call's caller (WithCaller): an
	// approval backs only a fire of the session that asked for it.
	SessionID string
	// Progress, when not nil, sends notifications/progress for this call:
	// the request's _meta carried a progressToken and its transport can
	// stream (MCPRequest.Notify). progress must increase from one call to
	// the next (a value that does not is dropped); total <= 0 means
	// unknown and is left out, as is an empty message. Calls after the tool
	// returned send nothing. It is safe for concurrent use.
	Progress func(progress, total float64, message string)
}

// MCPCallHandler is an optional interface of a ToolServer that wants the
// whole call (its era, the client's capabilities, a Progress function), and
// may answer it with a JSON-RPC error instead of a result (a missing client
// capability, for instance). When a ToolServer implements it, the
// dispatcher calls it instead of CallTool, and, as CallTool, only with a
// name the tool list holds.
type MCPCallHandler interface {
	HandleToolCall(ctx context.Context, call MCPToolCall) ([]byte, *MCPError)
}

// MCPMethod answers one extra JSON-RPC method: params is the params object
// ("{}" when absent), the result a JSON object.
type MCPMethod func(ctx context.Context, params []byte) ([]byte, *MCPError)

// MCPError is a JSON-RPC error answer.
type MCPError struct {
	Code    int    // the JSON-RPC error code
	Message string // a short description
	Data    []byte // the error's data member as JSON (nil: none)
}

// Error returns the code and message.
func (e *MCPError) Error() string { return "mcp error " + strconv.Itoa(e.Code) + ": " + e.Message }

// JSON-RPC and MCP error codes the dispatcher answers with; each is the
// code internal/mcp defines.
const (
	MCPParseError          = mcp.ParseError                      // -32700: the body is not JSON
	MCPInvalidRequest      = mcp.InvalidRequest                  // -32600: not a valid JSON-RPC request
	MCPMethodNotFound      = mcp.MethodNotFound                  // -32601: no such method (in this era)
	MCPInvalidParams       = mcp.InvalidParams                   // -32602: params malformed or missing, or an unknown tool
	MCPInternalError       = mcp.InternalError                   // -32603: the server failed
	MCPSessionNotFound     = mcp.SessionNotFound                 // -32001: the session id is unknown or ended
	MCPHeaderMismatch      = mcp.HeaderMismatch                  // -32020: a required header is missing or differs from the body
	MCPMissingCapability   = mcp.MissingRequiredClientCapability // -32021: the client did not declare a capability the call needs
	MCPUnsupportedProtocol = mcp.UnsupportedProtocolVersion      // -32022: the requested protocol version is not served
	MCPServerBusy          = mcp.ServerBusy                      // -32000: the session table is full of sessions in use: retry later (HTTP 503)
)

// MCPStatelessVersion is the protocol revision of the stateless era
// ("2026-07-28").
const MCPStatelessVersion = mcp.LatestStatelessVersion

// Session table defaults (MCPDispatcherOptions.MaxSessions, SessionIdle).
const (
	defaultMaxMCPSessions = 4096
	defaultMCPSessionIdle = 10 * time.Minute
)

// maxValidToolNames caps the tool names an unknown-tool error lists.
const maxValidToolNames = 50

// MCPDispatcherOptions configure a dispatcher.
type MCPDispatcherOptions struct {
	Name    string // serverInfo name ["agentwasm"]
	Version string // serverInfo version ["0.0.0"]
	// Instructions, when set, is returned by initialize and server/discover.
	Instructions string
	// Era limits the eras served: "" or "both", "session" (2025-03-26 …
	// 2025-11-25 only) or "stateless" (2026-07-28 only). A request of an era
	// not served is answered as an unknown method (404), as an older or a
	// newer server would.
	Era string
	// Sessions makes initialize issue an Mcp-Session-Id; a session-era
	// request other than initialize must then carry it: without one it is
	// answered 400, with an unknown or ended one 404.
	Sessions bool
	// Capabilities is the server's capabilities object as JSON
	// [{"tools":{"listChanged":false}}, or true with ListChanged].
	Capabilities []byte
	// ListChanged offers notifications/tools/list_changed: the tool list
	// may change (ToolsChanged), and clients may listen for the change on
	// the session era's GET stream (ListenSession) or the stateless era's
	// subscriptions/listen (MCPResponse.Listen).
	ListChanged bool
	// Methods answers extra methods (prompts/list for instance) in both eras.
	Methods map[string]MCPMethod
	// ListTTLMs and CacheScope are the caching hints of stateless-era list
	// results [0 and "private"]; tools/list stays byte-identical until
	// ToolsChanged.
	ListTTLMs  int
	CacheScope string
	// MaxSessions bounds the session table [4096]. When it is full, an
	// initialize evicts the sessions idle for SessionIdle or longer (and
	// ends their notification streams); when none is, the initialize is
	// refused with 503 (MCPServerBusy) and a retry delay
	// (MCPResponse.RetryAfter). A session in use is never evicted.
	MaxSessions int
	// SessionIdle is how long a session must go unused before a full table
	// may evict it [10 minutes]. Every request that names the session, and
	// opening its notification stream, is a use.
	SessionIdle time.Duration
	// Now is the clock of the session table [time.Now]; tests inject one.
	Now func() time.Time
}

// MCPDispatcher answers MCP JSON-RPC messages over a ToolServer. It is safe
// for concurrent use; one message never affects another.
type MCPDispatcher struct {
	ts   ToolServer
	opts MCPDispatcherOptions
	caps []byte
	info []byte       // {"name":…,"version":…}
	list atomic.Value // *toolList; atomic.Pointer[toolList] would name the struct's whole shape in the module

	readMu sync.Mutex // serializes ToolsChanged's reads

	mu       sync.Mutex
	sessions map[string]*mcpSession
	evictAt  time.Time // no session may be evicted before this (zero: unknown)
	subs     map[*MCPListen]struct{}
}

// mcpSession is one live session of the table.
type mcpSession struct {
	version  string    // the negotiated protocol version
	lastUsed time.Time // the last request that named it
}

// toolList is the tool array as last read, and what is derived from it.
type toolList struct {
	tools     []byte              // the tool array
	names     map[string]struct{} // the tool names
	valid     []byte              // the first maxValidToolNames names, a JSON array
	headers   map[string][]mcp.ParamHeader
	session   []byte // tools/list result, session era
	stateless []byte // tools/list result, stateless era
}

// MCPRequest is one HTTP-less request to the dispatcher.
type MCPRequest struct {
	Body []byte // the JSON-RPC message (or batch)
	// Header returns a request header (case-insensitive name). Nil when the
	// transport has no headers: the stateless era's header checks are then
	// skipped.
	Header func(name string) (value string, present bool)
	// SessionID is the Mcp-Session-Id the client sent ("" none).
	SessionID string
	// Notify, when not nil, sends one JSON-RPC notification to the client
	// ahead of the answer (Streamable HTTP answers the POST with an event
	// stream then). The dispatcher calls it, one call at a time, only
	// before Handle returns; nil means the transport cannot stream, and no
	// notifications (progress) are sent.
	Notify func(message []byte)
}

// MCPResponse is the dispatcher's answer.
type MCPResponse struct {
	Body []byte // the JSON-RPC answer; nil when there is nothing to answer
	// Status is the HTTP status a transport should answer with: 200, 202
	// (nothing to answer), 400, 404, 500, 503 (the session table is full).
	Status int
	// SessionID is a session id initialize just issued ("" none).
	SessionID string
	// Listen, when not nil, means the request opened a notification stream
	// (the stateless era's subscriptions/listen, with ListChanged): Body is
	// nil, and the transport answers 200 with an event stream carrying
	// Listen's messages, and closes Listen when the client goes.
	Listen *MCPListen
	// RetryAfter, with Status 503, is how many seconds the client should
	// wait before trying again (HTTP Retry-After); 0 otherwise.
	RetryAfter int
}

// NewMCPDispatcher builds a dispatcher over ts. It reads ts.ListTools now
// and again on each ToolsChanged; a tool list that is not a JSON array is
// served as an empty one.
func NewMCPDispatcher(ts ToolServer, opts MCPDispatcherOptions) *MCPDispatcher {
	d := &MCPDispatcher{ts: ts, opts: opts, sessions: map[string]*mcpSession{}}
	if d.opts.Name == "" {
		d.opts.Name = "agentwasm"
	}
	if d.opts.Version == "" {
		d.opts.Version = "0.0.0"
	}
	if d.opts.CacheScope != "public" {
		d.opts.CacheScope = "private"
	}
	if d.opts.MaxSessions <= 0 {
		d.opts.MaxSessions = defaultMaxMCPSessions
	}
	if d.opts.SessionIdle <= 0 {
		d.opts.SessionIdle = defaultMCPSessionIdle
	}
	if d.opts.Now == nil {
		d.opts.Now = time.Now
	}
	if d.opts.ListTTLMs < 0 {
		d.opts.ListTTLMs = 0
	}
	d.caps = []byte(`{"tools":{"listChanged":false}}`)
	if opts.ListChanged {
		d.caps = []byte(`{"tools":{"listChanged":true}}`)
	}
	if c := bytes.TrimSpace(opts.Capabilities); len(c) > 0 && isJSONObject(c) {
		d.caps = append([]byte(nil), c...)
	}
	d.info = buildObject("name", wire.EncodeString(d.opts.Name), "version", wire.EncodeString(d.opts.Version))
	d.readTools()
	return d
}

// readTools reads the tool server's list and derives the list results; a
// list that is not a JSON array is served as an empty one.
func (d *MCPDispatcher) readTools() {
	l := &toolList{tools: []byte("[]")}
	if d.ts != nil {
		if t := safeListTools(d.ts); isJSONArray(t) {
			l.tools = t
		}
	}
	l.names, l.valid = listedToolNames(l.tools)
	l.headers = paramHeaderRules(l.tools)
	l.session = buildObject("tools", l.tools)
	l.stateless = d.decorate(mcp.MethodToolsList, l.session)
	d.list.Store(l)
}

// tools returns the tool list as last read.
func (d *MCPDispatcher) tools() *toolList {
	return d.list.Load().(*toolList)
}

// listedToolNames reads the names of a tool array, and the first
// maxValidToolNames of them as a JSON array.
func listedToolNames(tools []byte) (map[string]struct{}, []byte) {
	names := map[string]struct{}{}
	var first []string
	var list wire.RawList
	if wire.Unmarshal(tools, &list) != nil {
		return names, []byte("[]")
	}
	for _, t := range list {
		fields, err := wire.ObjectFields(bytes.TrimSpace(t))
		if err != nil {
			continue
		}
		name, err := wire.DecodeString(bytes.TrimSpace(wire.GetField(fields, "name")))
		if err != nil {
			continue
		}
		if _, dup := names[name]; dup {
			continue
		}
		names[name] = struct{}{}
		if len(first) < maxValidToolNames {
			first = append(first, name)
		}
	}
	return names, mcp.AppendStrings(nil, first)
}

// safeListTools calls ts.ListTools under recover.
func safeListTools(ts ToolServer) (out []byte) {
	defer func() {
		if recover() != nil {
			out = nil
		}
	}()
	return bytes.TrimSpace(append([]byte(nil), ts.ListTools()...))
}

// EndSession ends a session (an HTTP DELETE) and its notification streams.
// It reports whether the id was a live session.
func (d *MCPDispatcher) EndSession(id string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.sessions[id]; !ok {
		return false
	}
	delete(d.sessions, id)
	d.endListenersLocked(id)
	return true
}

// servedVersions are the revisions the dispatcher serves, oldest first:
// those of its one era (Era), or of both. An UnsupportedProtocolVersion
// error lists them all, whichever era the request seemed to speak, so a
// client can pick any revision the endpoint answers.
func (d *MCPDispatcher) servedVersions() []string {
	switch d.opts.Era {
	case "session":
		return mcp.SessionVersions()
	case "stateless":
		return mcp.StatelessVersions()
	}
	return mcp.Versions()
}

// SessionsEnabled reports whether initialize issues session ids.
func (d *MCPDispatcher) SessionsEnabled() bool { return d.opts.Sessions }

// sessionVersion returns the version a live session negotiated, and counts
// the lookup as a use of the session.
func (d *MCPDispatcher) sessionVersion(id string) (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	s, ok := d.sessions[id]
	if !ok {
		return "", false
	}
	s.lastUsed = d.opts.Now()
	return s.version, true
}

// newSession records a session and returns its id. When the table is full
// and no session has been idle long enough to go, it records nothing and
// returns how long until one may.
func (d *MCPDispatcher) newSession(version string) (string, time.Duration) {
	id := newSessionID()
	if id == "" {
		return "", 0
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.opts.Now()
	if len(d.sessions) >= d.opts.MaxSessions {
		if wait := d.evictIdleLocked(now); wait > 0 {
			return "", wait
		}
	}
	d.sessions[id] = &mcpSession{version: version, lastUsed: now}
	return id, 0
}

// evictIdleLocked ends every session idle for SessionIdle or longer, and
// their streams. When none was, it returns how long until one may be (at
// least a second); d.mu is held. evictAt remembers the earliest time a scan
// can free a session, so a flood of initialize calls refused before then
// costs no scan.
func (d *MCPDispatcher) evictIdleLocked(now time.Time) time.Duration {
	if now.Before(d.evictAt) {
		return atLeastSecond(d.evictAt.Sub(now))
	}
	ended := map[string]struct{}{}
	var next time.Time
	for id, s := range d.sessions {
		at := s.lastUsed.Add(d.opts.SessionIdle)
		if !now.Before(at) {
			delete(d.sessions, id)
			ended[id] = struct{}{}
			continue
		}
		if next.IsZero() || at.Before(next) {
			next = at
		}
	}
	d.evictAt = next
	if len(ended) > 0 {
		for l := range d.subs {
			if _, ok := ended[l.session]; ok {
				delete(d.subs, l)
				l.end()
			}
		}
		return 0
	}
	if next.IsZero() { // MaxSessions sessions, none of them: cannot happen
		return d.opts.SessionIdle
	}
	return atLeastSecond(next.Sub(now))
}

// atLeastSecond rounds a wait up to whole seconds, at least one.
func atLeastSecond(w time.Duration) time.Duration {
	if w < time.Second {
		return time.Second
	}
	return (w + time.Second - 1).Truncate(time.Second)
}

// Handle answers one request: a JSON-RPC message, or a batch where the
// negotiated era allows batches. It never panics.
func (d *MCPDispatcher) Handle(ctx context.Context, req MCPRequest) (resp MCPResponse) {
	defer func() {
		if r := recover(); r != nil {
			resp = MCPResponse{Body: mcp.ErrorBody(nil, MCPInternalError, "internal error", nil), Status: 500}
		}
	}()
	if ctx == nil {
		ctx = context.Background()
	}
	body := bytes.TrimSpace(req.Body)
	if len(body) > 0 && body[0] == '[' {
		return d.handleBatch(ctx, req, body)
	}
	if l := d.listenRequest(req, body); l != nil {
		return MCPResponse{Status: 200, Listen: l}
	}
	a := d.handleOne(ctx, req, body, false)
	if a.body == nil {
		return MCPResponse{Status: 202}
	}
	return MCPResponse{Body: a.body, Status: a.status, SessionID: a.sid, RetryAfter: a.retryAfter}
}

// sessionGone reports whether a session-era request carries a session id
// this dispatcher does not know (it ended, or never existed).
func (d *MCPDispatcher) sessionGone(req MCPRequest) bool {
	if req.SessionID == "" || !d.opts.Sessions {
		return false
	}
	_, ok := d.sessionVersion(req.SessionID)
	return !ok
}

// sessionNotFound is the message of a request of an unknown or ended
// session.
const sessionNotFound = "session not found: it ended or never existed; send initialize without " + mcp.HeaderSessionID + " to start a new one"

// checkSession checks a session-era request other than initialize against
// the session table and the MCP-Protocol-Version header: an unknown or
// ended session id (404), a missing one when sessions are on (400), and a
// header that names no session-era revision, or another than the session
// negotiated (400, UnsupportedProtocolVersion). An absent header is fine:
// the negotiated (or default) version is assumed. It returns the version
// the session negotiated ("" without sessions).
func (d *MCPDispatcher) checkSession(req MCPRequest) (string, *MCPError) {
	negotiated, known := "", false
	if d.opts.Sessions {
		if req.SessionID == "" {
			return "", &MCPError{Code: MCPInvalidRequest, Message: "bad request: this request needs the " + mcp.HeaderSessionID + " header that initialize issued; send initialize first, then echo its " + mcp.HeaderSessionID + " on every request"}
		}
		if negotiated, known = d.sessionVersion(req.SessionID); !known {
			return "", &MCPError{Code: MCPSessionNotFound, Message: sessionNotFound}
		}
	}
	if req.Header == nil {
		return negotiated, nil
	}
	v, ok := req.Header(mcp.HeaderProtocolVersion)
	if !ok {
		return negotiated, nil
	}
	v = trimOWS(v)
	if !mcp.IsSessionVersion(v) {
		return "", unsupportedVersion(v, d.servedVersions())
	}
	if known && v != negotiated {
		return "", &MCPError{Code: MCPUnsupportedProtocol,
			Message: "unsupported protocol version " + quote(v) + " for this session: it negotiated " + quote(negotiated) + "; send " + mcp.HeaderProtocolVersion + ": " + negotiated + ", or initialize a new session",
			Data:    buildObject("supported", mcp.AppendStrings(nil, d.servedVersions()), "requested", wire.EncodeString(v), "negotiated", wire.EncodeString(negotiated))}
	}
	return negotiated, nil
}

// handleBatch answers a JSON array of messages: per message in the
// 2025-03-26 revision, which has batches; otherwise one Invalid Request.
func (d *MCPDispatcher) handleBatch(ctx context.Context, req MCPRequest, body []byte) MCPResponse {
	if _, err := ParseValue(body); err != nil {
		return MCPResponse{Body: mcp.ErrorBody(nil, MCPParseError, "parse error: "+err.Error(), nil), Status: 400}
	}
	var items []RawJSON
	if err := wire.Unmarshal(body, (*wire.RawList)(&items)); err != nil {
		return MCPResponse{Body: mcp.ErrorBody(nil, MCPParseError, "parse error: "+err.Error(), nil), Status: 400}
	}
	if len(items) == 0 {
		return MCPResponse{Body: mcp.ErrorBody(nil, MCPInvalidRequest, "invalid request: an empty batch", nil), Status: 400}
	}
	if d.sessionGone(req) {
		return MCPResponse{Body: mcp.ErrorBody(nil, MCPSessionNotFound, sessionNotFound, nil), Status: 404}
	}
	if !d.isStateless(req, rpcMessage{}) && d.opts.Era != "stateless" {
		if _, e := d.checkSession(req); e != nil {
			return MCPResponse{Body: mcp.ErrorBody(nil, e.Code, e.Message, e.Data), Status: statusFor(e.Code, false)}
		}
	}
	if !mcp.HasBatches(d.requestVersion(req)) {
		return MCPResponse{Body: mcp.ErrorBody(nil, MCPInvalidRequest, "invalid request: JSON-RPC batches are not part of this protocol revision", nil), Status: 400}
	}
	out := []byte{'['}
	n := 0
	for _, it := range items {
		b := d.handleOne(ctx, req, bytes.TrimSpace(it), true).body
		if b == nil {
			continue
		}
		if n > 0 {
			out = append(out, ',')
		}
		out = append(out, b...)
		n++
	}
	if n == 0 {
		return MCPResponse{Status: 202}
	}
	return MCPResponse{Body: append(out, ']'), Status: 200}
}

// requestVersion is the protocol version a request speaks, from its header
// or its session ("" unknown).
func (d *MCPDispatcher) requestVersion(req MCPRequest) string {
	if req.Header != nil {
		if v, ok := req.Header(mcp.HeaderProtocolVersion); ok {
			return trimOWS(v)
		}
	}
	if req.SessionID != "" {
		v, _ := d.sessionVersion(req.SessionID)
		return v
	}
	return ""
}

// rpcMessage is one decoded JSON-RPC message.
type rpcMessage struct {
	id       []byte // raw id; nil for a notification
	method   string
	params   []byte // the params object ("{}" when absent)
	fields   []wire.Field
	hasParam bool
}

// answer is handleOne's answer to one message.
type answer struct {
	body       []byte // nil for a notification
	status     int    // the HTTP status
	sid        string // a session id initialize issued
	retryAfter int    // seconds, with status 503
}

// fail is the answer of an error.
func fail(id []byte, e *MCPError, stateless bool) answer {
	return answer{body: mcp.ErrorBody(id, e.Code, e.Message, e.Data), status: statusFor(e.Code, stateless)}
}

// handleOne answers one message.
func (d *MCPDispatcher) handleOne(ctx context.Context, req MCPRequest, raw []byte, inBatch bool) (a answer) {
	var id []byte
	defer func() {
		if r := recover(); r != nil {
			a = answer{body: mcp.ErrorBody(id, MCPInternalError, "internal error", nil), status: 500}
		}
	}()
	if len(raw) == 0 {
		return answer{body: mcp.ErrorBody(nil, MCPParseError, "parse error: the body is empty", nil), status: 400}
	}
	if _, err := ParseValue(raw); err != nil {
		return answer{body: mcp.ErrorBody(nil, MCPParseError, "parse error: "+err.Error(), nil), status: 400}
	}
	msg, e := decodeMessage(raw)
	id = msg.id
	if e != nil {
		return answer{body: mcp.ErrorBody(id, e.Code, e.Message, nil), status: 400}
	}
	stateless := d.isStateless(req, msg)
	if (stateless && d.opts.Era == "session") || (!stateless && d.opts.Era == "stateless") {
		if msg.id == nil {
			return answer{status: 202}
		}
		return answer{body: mcp.ErrorBody(id, MCPMethodNotFound, "method not found: "+msg.method+" (this server does not speak that protocol era)", nil), status: 404}
	}
	if stateless {
		if msg.id == nil {
			return answer{status: 202} // notifications need no answer in either era
		}
		if inBatch {
			return answer{body: mcp.ErrorBody(id, MCPInvalidRequest, "invalid request: no batches in the stateless era", nil), status: 400}
		}
		version, cc, e := d.checkStateless(req, msg)
		if e != nil {
			return fail(id, e, true)
		}
		res, e := d.route(ctx, req, msg, version, cc, true)
		if e != nil {
			return fail(id, e, true)
		}
		return answer{body: mcp.ResultBody(id, res), status: 200}
	}
	// The session era: initialize may carry a stale id (it starts a new
	// session) and negotiates its version in the body; every other message,
	// notifications included, needs the live session and a header that
	// agrees with it. (The stateless era ignores Mcp-Session-Id.)
	version := ""
	if msg.method != mcp.MethodInitialize {
		if version, e = d.checkSession(req); e != nil {
			return fail(id, e, false)
		}
	}
	if msg.id == nil {
		return answer{status: 202} // notifications/initialized, cancelled, …: nothing to answer
	}
	if msg.method == mcp.MethodInitialize {
		if inBatch {
			return answer{body: mcp.ErrorBody(id, MCPInvalidRequest, "invalid request: initialize cannot be batched", nil), status: 400}
		}
		res, version := d.initialize(msg)
		if !d.opts.Sessions {
			return answer{body: mcp.ResultBody(id, res), status: 200}
		}
		sid, wait := d.newSession(version)
		switch {
		case wait > 0:
			secs := int(wait / time.Second)
			return answer{body: mcp.ErrorBody(id, MCPServerBusy, "server busy: every session is in use; retry initialize in "+strconv.Itoa(secs)+" s (Retry-After)", nil),
				status: statusFor(MCPServerBusy, false), retryAfter: secs}
		case sid == "":
			return answer{body: mcp.ErrorBody(id, MCPInternalError, "internal error: no session id could be made; retry initialize", nil), status: 500}
		}
		return answer{body: mcp.ResultBody(id, res), status: 200, sid: sid}
	}
	res, e := d.route(ctx, req, msg, version, nil, false)
	if e != nil {
		return fail(id, e, false)
	}
	return answer{body: mcp.ResultBody(id, res), status: 200}
}

// listenRequest opens a listener when body is a valid stateless-era
// subscriptions/listen request and the dispatcher offers ListChanged; any
// other body (or an invalid listen request) is left to handleOne, which
// answers it or its error.
func (d *MCPDispatcher) listenRequest(req MCPRequest, body []byte) *MCPListen {
	if !d.opts.ListChanged || d.opts.Era == "session" || !bytes.Contains(body, []byte(mcp.MethodSubscriptionsListen)) {
		return nil
	}
	if _, err := ParseValue(body); err != nil {
		return nil
	}
	msg, e := decodeMessage(body)
	if e != nil || msg.id == nil || msg.method != mcp.MethodSubscriptionsListen || !d.isStateless(req, msg) {
		return nil
	}
	if _, _, e := d.checkStateless(req, msg); e != nil {
		return nil
	}
	return d.listen(msg.id, "")
}

// decodeMessage checks the JSON-RPC envelope of one valid JSON value.
func decodeMessage(raw []byte) (rpcMessage, *MCPError) {
	var m rpcMessage
	if raw[0] != '{' {
		return m, &MCPError{Code: MCPInvalidRequest, Message: "invalid request: a JSON-RPC message is an object"}
	}
	fields, err := wire.ObjectFields(raw)
	if err != nil {
		return m, &MCPError{Code: MCPInvalidRequest, Message: "invalid request: " + err.Error()}
	}
	m.fields = fields
	if idRaw := bytes.TrimSpace(wire.GetField(fields, "id")); len(idRaw) > 0 {
		if mcp.ValidID(idRaw) {
			m.id = idRaw
		} else {
			return m, &MCPError{Code: MCPInvalidRequest, Message: "invalid request: id must be a string or a number"}
		}
	}
	if k, dup := duplicateMember(fields); dup {
		if k == "id" {
			m.id = nil // which one the client meant is unknown
		}
		return m, &MCPError{Code: MCPInvalidRequest, Message: "invalid request: the member " + quote(k) + " appears twice; send each member once"}
	}
	if v, err := wire.DecodeString(bytes.TrimSpace(wire.GetField(fields, "jsonrpc"))); err != nil || v != "2.0" {
		return m, &MCPError{Code: MCPInvalidRequest, Message: `invalid request: jsonrpc must be "2.0"`}
	}
	mraw := bytes.TrimSpace(wire.GetField(fields, "method"))
	if len(mraw) == 0 || mraw[0] != '"' {
		if len(mraw) == 0 && (wire.GetField(fields, "result") != nil || wire.GetField(fields, "error") != nil) {
			// a response to a request we never send: treat like a notification
			m.id = nil
			m.method = ""
			return m, nil
		}
		return m, &MCPError{Code: MCPInvalidRequest, Message: "invalid request: method must be a string"}
	}
	m.method, _ = wire.DecodeString(mraw)
	m.params = []byte("{}")
	if p := bytes.TrimSpace(wire.GetField(fields, "params")); len(p) > 0 {
		if p[0] != '{' {
			return m, &MCPError{Code: MCPInvalidParams, Message: "invalid params: params must be an object"}
		}
		if k, dup, _ := jsonr.DuplicateKey(p); dup {
			// Header checks read one copy, a tool may read the other.
			return m, &MCPError{Code: MCPInvalidParams, Message: "invalid params: the member " + quote(k) + " appears twice in one object; send each member once"}
		}
		m.params, m.hasParam = p, true
	}
	return m, nil
}

// duplicateMember returns a member name that occurs twice among fields.
func duplicateMember(fields []wire.Field) (string, bool) {
	for i := range fields {
		for j := 0; j < i; j++ {
			if fields[i].Key == fields[j].Key {
				return fields[i].Key, true
			}
		}
	}
	return "", false
}

// route answers a request in either era; version and cc are the request's
// protocol version and client capabilities (stateless era).
func (d *MCPDispatcher) route(ctx context.Context, req MCPRequest, msg rpcMessage, version string, cc []byte, stateless bool) ([]byte, *MCPError) {
	switch msg.method {
	case mcp.MethodToolsList:
		if stateless {
			return d.tools().stateless, nil
		}
		return d.tools().session, nil
	case mcp.MethodToolsCall:
		sid := ""
		if !stateless && d.opts.Sessions {
			sid = req.SessionID // checked live by checkSession
		}
		res, e := d.callTool(ctx, req.Notify, msg, version, cc, stateless, sid)
		if e != nil {
			return nil, e
		}
		if stateless {
			res = d.decorate(mcp.MethodToolsCall, res)
		}
		return res, nil
	case mcp.MethodServerDiscover:
		if !stateless {
			return nil, &MCPError{Code: MCPMethodNotFound, Message: "method not found: server/discover belongs to the " + MCPStatelessVersion + " revision"}
		}
		return d.discover(), nil
	case mcp.MethodPing:
		if !stateless {
			return []byte("{}"), nil
		}
	case mcp.MethodInitialize:
		// stateless era: no handshake; falls through to not found
	default:
		if fn := d.opts.Methods[msg.method]; fn != nil {
			res, e := callMethod(ctx, fn, msg.params)
			if e != nil {
				return nil, e
			}
			if stateless {
				res = d.decorate(msg.method, res)
			}
			return res, nil
		}
	}
	return nil, &MCPError{Code: MCPMethodNotFound, Message: "method not found: " + msg.method}
}

// callMethod runs an extra method under recover and checks its result.
func callMethod(ctx context.Context, fn MCPMethod, params []byte) (res []byte, e *MCPError) {
	defer func() {
		if r := recover(); r != nil {
			res, e = nil, &MCPError{Code: MCPInternalError, Message: "internal error: the method failed"}
		}
	}()
	res, e = fn(ctx, params)
	if e != nil {
		return nil, e
	}
	res = bytes.TrimSpace(res)
	if !isJSONObject(res) {
		return nil, &MCPError{Code: MCPInternalError, Message: "internal error: the method's result is not a JSON object"}
	}
	return res, nil
}

// callTool checks tools/call params and runs the tool under recover. A name
// the tool list does not hold is invalid params (the specification's error
// for an unknown tool), listing valid names in the error's data. notify is
// the transport's (nil: it cannot stream): with it and a progressToken, the
// tool gets a Progress function.
func (d *MCPDispatcher) callTool(ctx context.Context, notify func([]byte), msg rpcMessage, version string, cc []byte, stateless bool, sid string) (res []byte, e *MCPError) {
	fields, err := wire.ObjectFields(msg.params)
	if err != nil {
		return nil, &MCPError{Code: MCPInvalidParams, Message: "invalid params: " + err.Error()}
	}
	nraw := bytes.TrimSpace(wire.GetField(fields, "name"))
	if len(nraw) == 0 || nraw[0] != '"' {
		return nil, &MCPError{Code: MCPInvalidParams, Message: "invalid params: tools/call needs a string name"}
	}
	name, _ := wire.DecodeString(nraw)
	if l := d.tools(); !hasName(l.names, name) {
		return nil, &MCPError{Code: MCPInvalidParams,
			Message: "invalid params: unknown tool " + quote(name) + "; call one of the tools tools/list returns (error.data.validTools lists the first " + strconv.Itoa(maxValidToolNames) + ")",
			Data:    buildObject("tool", wire.EncodeString(name), "validTools", l.valid, "validToolCount", []byte(strconv.Itoa(len(l.names))))}
	}
	args := bytes.TrimSpace(wire.GetField(fields, "arguments"))
	switch {
	case len(args) == 0 || string(args) == "null":
		args = []byte("{}")
	case args[0] != '{':
		return nil, &MCPError{Code: MCPInvalidParams, Message: "invalid params: arguments must be an object"}
	}
	defer func() {
		if r := recover(); r != nil {
			res, e = nil, &MCPError{Code: MCPInternalError, Message: "internal error: tool " + strconv.Quote(name) + " failed"}
		}
	}()
	if h, ok := d.ts.(MCPCallHandler); ok {
		call := MCPToolCall{Name: name, Arguments: args, ProtocolVersion: version, ClientCapabilities: cc, Stateless: stateless, SessionID: sid}
		if tok := progressToken(msg.params); tok != nil && notify != nil {
			p := &progress{notify: notify, token: tok}
			defer p.stop()
			call.Progress = p.send
		}
		res, e = h.HandleToolCall(ctx, call)
		if e != nil {
			return nil, e
		}
	} else {
		res = d.ts.CallTool(ctx, name, args)
	}
	res = bytes.TrimSpace(res)
	if !isJSONObject(res) {
		return nil, &MCPError{Code: MCPInternalError, Message: "internal error: tool " + strconv.Quote(name) + " returned no result object"}
	}
	return res, nil
}

// hasName reports whether names holds name.
func hasName(names map[string]struct{}, name string) bool {
	_, ok := names[name]
	return ok
}

// progressToken returns params._meta.progressToken when it is a string or
// a number (nil otherwise).
func progressToken(params []byte) []byte {
	tok := bytes.TrimSpace(wire.GetField(metaFields(params), mcp.MetaProgressToken))
	if !mcp.ValidID(tok) {
		return nil
	}
	return tok
}

// progress sends one call's notifications/progress until the call returns.
type progress struct {
	notify  func([]byte)
	token   []byte
	mu      sync.Mutex // held while notify runs: the notifications stay in order, and none follows stop
	sent    bool
	last    float64
	stopped bool
}

// send writes one notification, unless the call returned or progress did
// not increase (or is not a finite number).
func (p *progress) send(progress, total float64, message string) {
	if math.IsNaN(progress) || math.IsInf(progress, 0) {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped || (p.sent && progress <= p.last) {
		return
	}
	p.sent, p.last = true, progress
	params := append([]byte(`{"`+mcp.MetaProgressToken+`":`), p.token...)
	params = append(params, `,"progress":`...)
	params = strconv.AppendFloat(params, progress, 'g', -1, 64)
	if total > 0 && !math.IsInf(total, 0) {
		params = append(params, `,"total":`...)
		params = strconv.AppendFloat(params, total, 'g', -1, 64)
	}
	if message != "" {
		params = append(params, `,"message":`...)
		params = append(params, wire.EncodeString(message)...)
	}
	p.notify(mcp.NotificationBody(mcp.NotificationProgress, append(params, '}')))
}

// stop ends the notifications: the answer goes next.
func (p *progress) stop() {
	p.mu.Lock()
	p.stopped = true
	p.mu.Unlock()
}

// initialize answers the session-era handshake and returns the version it
// negotiated.
func (d *MCPDispatcher) initialize(msg rpcMessage) ([]byte, string) {
	requested := ""
	if fields, err := wire.ObjectFields(msg.params); err == nil {
		requested, _ = wire.DecodeString(bytes.TrimSpace(wire.GetField(fields, "protocolVersion")))
	}
	version := mcp.NegotiateSession(requested)
	kv := []any{"protocolVersion", wire.EncodeString(version), "capabilities", d.caps, "serverInfo", d.info}
	if d.opts.Instructions != "" {
		kv = append(kv, "instructions", wire.EncodeString(d.opts.Instructions))
	}
	return buildObject(kv...), version
}

// discover answers server/discover.
func (d *MCPDispatcher) discover() []byte {
	kv := []any{"supportedVersions", mcp.AppendStrings(nil, mcp.StatelessVersions()), "capabilities", d.caps}
	if d.opts.Instructions != "" {
		kv = append(kv, "instructions", wire.EncodeString(d.opts.Instructions))
	}
	kv = append(kv, mcp.KeyMeta, buildObject(mcp.MetaServerInfo, d.info))
	return d.decorate(mcp.MethodServerDiscover, buildObject(kv...))
}

// mcpCacheable are the results that carry caching hints in the stateless era.
var mcpCacheable = map[string]bool{
	mcp.MethodServerDiscover: true, mcp.MethodToolsList: true, mcp.MethodPromptsList: true,
	mcp.MethodResourcesList: true, mcp.MethodResourcesTemplatesList: true, mcp.MethodResourcesRead: true,
}

// decorate adds the stateless era's result fields a result lacks:
// resultType, and ttlMs/cacheScope on cacheable results.
func (d *MCPDispatcher) decorate(method string, res []byte) []byte {
	fields, err := wire.ObjectFields(res)
	if err != nil {
		return res
	}
	var add []wire.Field
	if wire.GetField(fields, mcp.KeyResultType) == nil {
		add = append(add, wire.Field{Key: mcp.KeyResultType, Value: []byte(`"` + mcp.ResultComplete + `"`)})
	}
	if mcpCacheable[method] {
		if wire.GetField(fields, "ttlMs") == nil {
			add = append(add, wire.Field{Key: "ttlMs", Value: []byte(strconv.Itoa(d.opts.ListTTLMs))})
		}
		if wire.GetField(fields, "cacheScope") == nil {
			add = append(add, wire.Field{Key: "cacheScope", Value: wire.EncodeString(d.opts.CacheScope)})
		}
	}
	if len(add) == 0 {
		return res
	}
	return wire.BuildObject(append(add, fields...))
}

// statusFor maps an error code to the HTTP status of its answer.
func statusFor(code int, stateless bool) int {
	switch code {
	case MCPMethodNotFound:
		if stateless {
			return 404
		}
		return 200
	case MCPSessionNotFound:
		return 404
	case MCPServerBusy:
		return 503
	case MCPInternalError:
		if stateless {
			return 500
		}
		return 200
	case MCPParseError, MCPInvalidRequest, MCPHeaderMismatch, MCPMissingCapability, MCPUnsupportedProtocol:
		return 400
	case MCPInvalidParams:
		if stateless {
			return 400
		}
		return 200
	}
	if stateless {
		return 400
	}
	return 200
}

// buildObject writes key/value pairs (values are JSON bytes) as an object.
func buildObject(kv ...any) []byte {
	fields := make([]wire.Field, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		fields = append(fields, wire.Field{Key: kv[i].(string), Value: kv[i+1].([]byte)})
	}
	return wire.BuildObject(fields)
}

// isJSONObject reports whether b is one well-formed JSON object.
func isJSONObject(b []byte) bool {
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	_, err := wire.ObjectFields(b)
	return err == nil
}

// isJSONArray reports whether b is one well-formed JSON array.
func isJSONArray(b []byte) bool {
	if len(b) == 0 || b[0] != '[' {
		return false
	}
	var l wire.RawList
	return wire.Unmarshal(b, &l) == nil
}
