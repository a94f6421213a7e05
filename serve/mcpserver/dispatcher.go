// The transport-free MCP dispatcher: one JSON-RPC body in, one answer out,
// for both eras of MCP (the session era, 2025-03-26 … 2025-11-25, with
// initialize and optional session ids; the stateless 2026-07-28 revision
// with server/discover and per-request _meta). The HTTP handler and the wasm
// builds both sit on it.

package mcpserver

import (
	"bytes"
	"context"
	"github.com/agentwasm/agentwasm/internal/rawjson"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentwasm/agentwasm/internal/jsonr"
	"github.com/agentwasm/agentwasm/internal/mcp"
	"github.com/agentwasm/agentwasm/internal/wire"
)

// maxValidToolNames caps the tool names an unknown-tool error lists.
const maxValidToolNames = 50

// Options configure a dispatcher.
type Options struct {
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
	// subscriptions/listen (Response.Listen).
	ListChanged bool
	// Methods answers extra methods (prompts/list for instance) in both eras.
	Methods map[string]Method
	// ListTTLMs and CacheScope are the caching hints of stateless-era list
	// results [0 and "private"]; tools/list stays byte-identical until
	// ToolsChanged.
	ListTTLMs  int
	CacheScope string
	// MaxSessions bounds the session table [4096]. When it is full, an
	// initialize evicts the sessions idle for SessionIdle or longer (and
	// ends their notification streams); when none is, the initialize is
	// refused with 503 (ServerBusy) and a retry delay
	// (Response.RetryAfter). A session in use is never evicted.
	MaxSessions int
	// SessionIdle is how long a session must go unused before a full table
	// may evict it [10 minutes]. Every request that names the session, and
	// opening its notification stream, is a use.
	SessionIdle time.Duration
	// Now is the clock of the session table [time.Now]; tests inject one.
	Now func() time.Time
	// Tracer, when set, makes a server span of each request and
	// notification, continuing the trace the client sent (see Tracer;
	// tracing.MCPServer makes OpenTelemetry spans). Native builds only: in
	// the wasm builds Tracer is an empty placeholder, and nothing is
	// traced. Nil traces nothing.
	Tracer Tracer
}

// Dispatcher answers MCP JSON-RPC messages over a ToolServer. It is safe
// for concurrent use; one message never affects another.
type Dispatcher struct {
	ts   ToolServer
	opts Options
	caps []byte
	info []byte       // {"name":…,"version":…}
	list atomic.Value // *toolList; atomic.Pointer[toolList] would name the struct's whole shape in the module

	readMu sync.Mutex // serializes ToolsChanged's reads

	mu       sync.Mutex
	sessions map[string]*liveSession
	evictAt  time.Time // no session may be evicted before this (zero: unknown)
	subs     map[*Listen]struct{}
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

// Request is one HTTP-less request to the dispatcher.
type Request struct {
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

// Response is the dispatcher's answer.
type Response struct {
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
	Listen *Listen
	// RetryAfter, with Status 503, is how many seconds the client should
	// wait before trying again (HTTP Retry-After); 0 otherwise.
	RetryAfter int
}

// New builds a dispatcher over ts. It reads ts.ListTools now
// and again on each ToolsChanged; a tool list that is not a JSON array is
// served as an empty one.
func New(ts ToolServer, opts Options) *Dispatcher {
	d := &Dispatcher{ts: ts, opts: opts, sessions: map[string]*liveSession{}}
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
		d.opts.MaxSessions = defaultMaxSessions
	}
	if d.opts.SessionIdle <= 0 {
		d.opts.SessionIdle = defaultSessionIdle
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
func (d *Dispatcher) readTools() {
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
func (d *Dispatcher) tools() *toolList {
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

// servedVersions are the revisions the dispatcher serves, oldest first:
// those of its one era (Era), or of both. An UnsupportedProtocolVersion
// error lists them all, whichever era the request seemed to speak, so a
// client can pick any revision the endpoint answers.
func (d *Dispatcher) servedVersions() []string {
	switch d.opts.Era {
	case "session":
		return mcp.SessionVersions()
	case "stateless":
		return mcp.StatelessVersions()
	}
	return mcp.Versions()
}

// Handle answers one request: a JSON-RPC message, or a batch where the
// negotiated era allows batches. It never panics.
func (d *Dispatcher) Handle(ctx context.Context, req Request) (resp Response) {
	defer func() {
		if r := recover(); r != nil {
			resp = Response{Body: mcp.ErrorBody(nil, InternalError, "internal error", nil), Status: 500}
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
		return Response{Status: 200, Listen: l}
	}
	tctx, mt := ctx, (*msgTrace)(nil)
	if traced {
		tctx, mt = traceMessage(d, ctx, req, body)
	}
	a := d.handleOne(tctx, req, body, false)
	if traced {
		mt.end(req, &a)
	}
	if a.body == nil {
		return Response{Status: 202}
	}
	return Response{Body: a.body, Status: a.status, SessionID: a.sid, RetryAfter: a.retryAfter}
}

// handleBatch answers a JSON array of messages: per message in the
// 2025-03-26 revision, which has batches; otherwise one Invalid Request.
func (d *Dispatcher) handleBatch(ctx context.Context, req Request, body []byte) Response {
	if err := checkJSON(body); err != nil {
		return Response{Body: mcp.ErrorBody(nil, ParseError, "parse error: "+err.Error(), nil), Status: 400}
	}
	var items []rawjson.Message
	if err := wire.Unmarshal(body, (*wire.RawList)(&items)); err != nil {
		return Response{Body: mcp.ErrorBody(nil, ParseError, "parse error: "+err.Error(), nil), Status: 400}
	}
	if len(items) == 0 {
		return Response{Body: mcp.ErrorBody(nil, InvalidRequest, "invalid request: an empty batch", nil), Status: 400}
	}
	if d.sessionGone(req) {
		return Response{Body: mcp.ErrorBody(nil, SessionNotFound, sessionNotFound, nil), Status: 404}
	}
	if !d.isStateless(req, rpcMessage{}) && d.opts.Era != "stateless" {
		if _, e := d.checkSession(req); e != nil {
			return Response{Body: mcp.ErrorBody(nil, e.Code, e.Message, e.Data), Status: statusFor(e.Code, false)}
		}
	}
	if !mcp.HasBatches(d.requestVersion(req)) {
		return Response{Body: mcp.ErrorBody(nil, InvalidRequest, "invalid request: JSON-RPC batches are not part of this protocol revision", nil), Status: 400}
	}
	out := []byte{'['}
	n := 0
	for _, it := range items {
		tctx, mt := ctx, (*msgTrace)(nil)
		if traced {
			tctx, mt = traceMessage(d, ctx, req, it)
		}
		a := d.handleOne(tctx, req, bytes.TrimSpace(it), true)
		if traced {
			mt.end(req, &a)
		}
		b := a.body
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
		return Response{Status: 202}
	}
	return Response{Body: append(out, ']'), Status: 200}
}

// requestVersion is the protocol version a request speaks, from its header
// or its session ("" unknown).
func (d *Dispatcher) requestVersion(req Request) string {
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
func fail(id []byte, e *Error, stateless bool) answer {
	return answer{body: mcp.ErrorBody(id, e.Code, e.Message, e.Data), status: statusFor(e.Code, stateless)}
}

// handleOne answers one message.
func (d *Dispatcher) handleOne(ctx context.Context, req Request, raw []byte, inBatch bool) (a answer) {
	var id []byte
	defer func() {
		if r := recover(); r != nil {
			a = answer{body: mcp.ErrorBody(id, InternalError, "internal error", nil), status: 500}
		}
	}()
	if len(raw) == 0 {
		return answer{body: mcp.ErrorBody(nil, ParseError, "parse error: the body is empty", nil), status: 400}
	}
	if err := checkJSON(raw); err != nil {
		return answer{body: mcp.ErrorBody(nil, ParseError, "parse error: "+err.Error(), nil), status: 400}
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
		return answer{body: mcp.ErrorBody(id, MethodNotFound, "method not found: "+msg.method+" (this server does not speak that protocol era)", nil), status: 404}
	}
	if stateless {
		if msg.id == nil {
			return answer{status: 202} // notifications need no answer in either era
		}
		if inBatch {
			return answer{body: mcp.ErrorBody(id, InvalidRequest, "invalid request: no batches in the stateless era", nil), status: 400}
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
			return answer{body: mcp.ErrorBody(id, InvalidRequest, "invalid request: initialize cannot be batched", nil), status: 400}
		}
		res, version := d.initialize(msg)
		if !d.opts.Sessions {
			return answer{body: mcp.ResultBody(id, res), status: 200}
		}
		sid, wait := d.newSession(version)
		switch {
		case wait > 0:
			secs := int(wait / time.Second)
			return answer{body: mcp.ErrorBody(id, ServerBusy, "server busy: every session is in use; retry initialize in "+strconv.Itoa(secs)+" s (Retry-After)", nil),
				status: statusFor(ServerBusy, false), retryAfter: secs}
		case sid == "":
			return answer{body: mcp.ErrorBody(id, InternalError, "internal error: no session id could be made; retry initialize", nil), status: 500}
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
func (d *Dispatcher) listenRequest(req Request, body []byte) *Listen {
	if !d.opts.ListChanged || d.opts.Era == "session" || !bytes.Contains(body, []byte(mcp.MethodSubscriptionsListen)) {
		return nil
	}
	if err := checkJSON(body); err != nil {
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
func decodeMessage(raw []byte) (rpcMessage, *Error) {
	var m rpcMessage
	if raw[0] != '{' {
		return m, &Error{Code: InvalidRequest, Message: "invalid request: a JSON-RPC message is an object"}
	}
	fields, err := wire.ObjectFields(raw)
	if err != nil {
		return m, &Error{Code: InvalidRequest, Message: "invalid request: " + err.Error()}
	}
	m.fields = fields
	if idRaw := bytes.TrimSpace(wire.GetField(fields, "id")); len(idRaw) > 0 {
		if mcp.ValidID(idRaw) {
			m.id = idRaw
		} else {
			return m, &Error{Code: InvalidRequest, Message: "invalid request: id must be a string or a number"}
		}
	}
	if k, dup := duplicateMember(fields); dup {
		if k == "id" {
			m.id = nil // which one the client meant is unknown
		}
		return m, &Error{Code: InvalidRequest, Message: "invalid request: the member " + quote(k) + " appears twice; send each member once"}
	}
	if v, err := wire.DecodeString(bytes.TrimSpace(wire.GetField(fields, "jsonrpc"))); err != nil || v != "2.0" {
		return m, &Error{Code: InvalidRequest, Message: `invalid request: jsonrpc must be "2.0"`}
	}
	mraw := bytes.TrimSpace(wire.GetField(fields, "method"))
	if len(mraw) == 0 || mraw[0] != '"' {
		if len(mraw) == 0 && (wire.GetField(fields, "result") != nil || wire.GetField(fields, "error") != nil) {
			// a response to a request we never send: treat like a notification
			m.id = nil
			m.method = ""
			return m, nil
		}
		return m, &Error{Code: InvalidRequest, Message: "invalid request: method must be a string"}
	}
	m.method, _ = wire.DecodeString(mraw)
	m.params = []byte("{}")
	if p := bytes.TrimSpace(wire.GetField(fields, "params")); len(p) > 0 {
		if p[0] != '{' {
			return m, &Error{Code: InvalidParams, Message: "invalid params: params must be an object"}
		}
		if k, dup, _ := jsonr.DuplicateKey(p); dup {
			// Header checks read one copy, a tool may read the other.
			return m, &Error{Code: InvalidParams, Message: "invalid params: the member " + quote(k) + " appears twice in one object; send each member once"}
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
func (d *Dispatcher) route(ctx context.Context, req Request, msg rpcMessage, version string, cc []byte, stateless bool) ([]byte, *Error) {
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
			return nil, &Error{Code: MethodNotFound, Message: "method not found: server/discover belongs to the " + StatelessVersion + " revision"}
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
	return nil, &Error{Code: MethodNotFound, Message: "method not found: " + msg.method}
}

// callMethod runs an extra method under recover and checks its result.
func callMethod(ctx context.Context, fn Method, params []byte) (res []byte, e *Error) {
	defer func() {
		if r := recover(); r != nil {
			res, e = nil, &Error{Code: InternalError, Message: "internal error: the method failed"}
		}
	}()
	res, e = fn(ctx, params)
	if e != nil {
		return nil, e
	}
	res = bytes.TrimSpace(res)
	if !isJSONObject(res) {
		return nil, &Error{Code: InternalError, Message: "internal error: the method's result is not a JSON object"}
	}
	return res, nil
}

// callTool checks tools/call params and runs the tool under recover. A name
// the tool list does not hold is invalid params (the specification's error
// for an unknown tool), listing valid names in the error's data. notify is
// the transport's (nil: it cannot stream): with it and a progressToken, the
// tool gets a Progress function.
func (d *Dispatcher) callTool(ctx context.Context, notify func([]byte), msg rpcMessage, version string, cc []byte, stateless bool, sid string) (res []byte, e *Error) {
	fields, err := wire.ObjectFields(msg.params)
	if err != nil {
		return nil, &Error{Code: InvalidParams, Message: "invalid params: " + err.Error()}
	}
	nraw := bytes.TrimSpace(wire.GetField(fields, "name"))
	if len(nraw) == 0 || nraw[0] != '"' {
		return nil, &Error{Code: InvalidParams, Message: "invalid params: tools/call needs a string name"}
	}
	name, _ := wire.DecodeString(nraw)
	if l := d.tools(); !hasName(l.names, name) {
		return nil, &Error{Code: InvalidParams,
			Message: "invalid params: unknown tool " + quote(name) + "; call one of the tools tools/list returns (error.data.validTools lists the first " + strconv.Itoa(maxValidToolNames) + ")",
			Data:    buildObject("tool", wire.EncodeString(name), "validTools", l.valid, "validToolCount", []byte(strconv.Itoa(len(l.names))))}
	}
	args := bytes.TrimSpace(wire.GetField(fields, "arguments"))
	switch {
	case len(args) == 0 || string(args) == "null":
		args = []byte("{}")
	case args[0] != '{':
		return nil, &Error{Code: InvalidParams, Message: "invalid params: arguments must be an object"}
	}
	defer func() {
		if r := recover(); r != nil {
			res, e = nil, &Error{Code: InternalError, Message: "internal error: tool " + strconv.Quote(name) + " failed"}
		}
	}()
	if h, ok := d.ts.(CallHandler); ok {
		call := ToolCall{Name: name, Arguments: args, ProtocolVersion: version, ClientCapabilities: cc, Stateless: stateless, SessionID: sid}
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
		return nil, &Error{Code: InternalError, Message: "internal error: tool " + strconv.Quote(name) + " returned no result object"}
	}
	return res, nil
}

// hasName reports whether names holds name.
func hasName(names map[string]struct{}, name string) bool {
	_, ok := names[name]
	return ok
}

// initialize answers the session-era handshake and returns the version it
// negotiated.
func (d *Dispatcher) initialize(msg rpcMessage) ([]byte, string) {
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
func (d *Dispatcher) discover() []byte {
	kv := []any{"supportedVersions", mcp.AppendStrings(nil, d.servedVersions()), "capabilities", d.caps}
	if d.opts.Instructions != "" {
		kv = append(kv, "instructions", wire.EncodeString(d.opts.Instructions))
	}
	kv = append(kv, mcp.KeyMeta, buildObject(mcp.MetaServerInfo, d.info))
	return d.decorate(mcp.MethodServerDiscover, buildObject(kv...))
}

// cacheable are the results that carry caching hints in the stateless era.
var cacheable = map[string]bool{
	mcp.MethodServerDiscover: true, mcp.MethodToolsList: true, mcp.MethodPromptsList: true,
	mcp.MethodResourcesList: true, mcp.MethodResourcesTemplatesList: true, mcp.MethodResourcesRead: true,
}

// decorate adds the stateless era's result fields a result lacks:
// resultType, and ttlMs/cacheScope on cacheable results.
func (d *Dispatcher) decorate(method string, res []byte) []byte {
	fields, err := wire.ObjectFields(res)
	if err != nil {
		return res
	}
	var add []wire.Field
	if wire.GetField(fields, mcp.KeyResultType) == nil {
		add = append(add, wire.Field{Key: mcp.KeyResultType, Value: []byte(`"` + mcp.ResultComplete + `"`)})
	}
	if cacheable[method] {
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
