// The transport-free MCP dispatcher: one JSON-RPC body in, one answer out,
// for both eras of MCP (the session era, 2025-03-26 … 2025-11-25, with
// initialize and optional session ids; the stateless 2026-07-28 revision
// with server/discover and per-request _meta). The HTTP handler and the wasm
// builds both sit on it.

package serve

import (
	"bytes"
	"context"
	"strconv"
	"sync"
	"sync/atomic"

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
}

// MCPCallHandler is an optional interface of a ToolServer that wants the
// whole call, and may answer it with a JSON-RPC error instead of a result
// (a missing client capability, for instance). When a ToolServer implements
// it, the dispatcher calls it instead of CallTool.
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

// JSON-RPC and MCP error codes the dispatcher answers with.
const (
	MCPParseError          = -32700 // the body is not JSON
	MCPInvalidRequest      = -32600 // not a valid JSON-RPC request
	MCPMethodNotFound      = -32601 // no such method (in this era)
	MCPInvalidParams       = -32602 // params malformed or missing
	MCPInternalError       = -32603 // the server failed
	MCPSessionNotFound     = -32001 // the session id is unknown or ended
	MCPHeaderMismatch      = -32020 // a required header is missing or differs from the body
	MCPMissingCapability   = -32021 // the client did not declare a capability the call needs
	MCPUnsupportedProtocol = -32022 // the requested protocol version is not served
)

// MCPStatelessVersion is the protocol revision of the stateless era.
const MCPStatelessVersion = "2026-07-28"

// mcpSessionVersions are the session-era revisions initialize negotiates,
// oldest first; the last is offered when the client asks for another.
var mcpSessionVersions = []string{"2025-03-26", "2025-06-18", "2025-11-25"}

// mcpStatelessVersions are the revisions served with per-request _meta.
var mcpStatelessVersions = []string{MCPStatelessVersion}

// maxMCPSessions bounds the session table; the oldest session is forgotten
// beyond it.
const maxMCPSessions = 4096

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
	// Sessions makes initialize issue an Mcp-Session-Id; a request that
	// carries an unknown or ended id is then answered 404.
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
}

// MCPDispatcher answers MCP JSON-RPC messages over a ToolServer. It is safe
// for concurrent use; one message never affects another.
type MCPDispatcher struct {
	ts   ToolServer
	opts MCPDispatcherOptions
	caps []byte
	info []byte // {"name":…,"version":…}
	list atomic.Pointer[toolList]

	readMu sync.Mutex // serializes ToolsChanged's reads

	mu       sync.Mutex
	sessions map[string]string // id → negotiated protocol version
	order    []string
	subs     map[*MCPListen]struct{}
}

// toolList is the tool array as last read, and what is derived from it.
type toolList struct {
	tools     []byte // the tool array
	headers   map[string][]paramHeaderRule
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
}

// MCPResponse is the dispatcher's answer.
type MCPResponse struct {
	Body []byte // the JSON-RPC answer; nil when there is nothing to answer
	// Status is the HTTP status a transport should answer with: 200, 202
	// (nothing to answer), 400, 404.
	Status int
	// SessionID is a session id initialize just issued ("" none).
	SessionID string
	// Listen, when not nil, means the request opened a notification stream
	// (the stateless era's subscriptions/listen, with ListChanged): Body is
	// nil, and the transport answers 200 with an event stream carrying
	// Listen's messages, and closes Listen when the client goes.
	Listen *MCPListen
}

// NewMCPDispatcher builds a dispatcher over ts. It reads ts.ListTools now
// and again on each ToolsChanged; a tool list that is not a JSON array is
// served as an empty one.
func NewMCPDispatcher(ts ToolServer, opts MCPDispatcherOptions) *MCPDispatcher {
	d := &MCPDispatcher{ts: ts, opts: opts, sessions: map[string]string{}}
	if d.opts.Name == "" {
		d.opts.Name = "agentwasm"
	}
	if d.opts.Version == "" {
		d.opts.Version = "0.0.0"
	}
	if d.opts.CacheScope != "public" {
		d.opts.CacheScope = "private"
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
	l.headers = paramHeaderRules(l.tools)
	l.session = buildObject("tools", l.tools)
	l.stateless = d.decorate("tools/list", l.session)
	d.list.Store(l)
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

// EndSession ends a session (an HTTP DELETE). It reports whether the id was
// a live session.
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

// SessionsEnabled reports whether initialize issues session ids.
func (d *MCPDispatcher) SessionsEnabled() bool { return d.opts.Sessions }

// sessionVersion returns the version a live session negotiated.
func (d *MCPDispatcher) sessionVersion(id string) (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	v, ok := d.sessions[id]
	return v, ok
}

// newSession records a session and returns its id.
func (d *MCPDispatcher) newSession(version string) string {
	id := newSessionID()
	if id == "" {
		return ""
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.sessions[id] = version
	d.order = append(d.order, id)
	for len(d.sessions) > maxMCPSessions && len(d.order) > 0 {
		delete(d.sessions, d.order[0])
		d.endListenersLocked(d.order[0])
		d.order = d.order[1:]
	}
	if len(d.order) > 2*maxMCPSessions { // ended sessions linger in order
		live := d.order[:0]
		for _, s := range d.order {
			if _, ok := d.sessions[s]; ok {
				live = append(live, s)
			}
		}
		d.order = live
	}
	return id
}

// Handle answers one request: a JSON-RPC message, or a batch where the
// negotiated era allows batches. It never panics.
func (d *MCPDispatcher) Handle(ctx context.Context, req MCPRequest) (resp MCPResponse) {
	defer func() {
		if r := recover(); r != nil {
			resp = MCPResponse{Body: errorBody(nil, MCPInternalError, "internal error", nil), Status: 500}
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
	out, status, sid := d.handleOne(ctx, req, body, false)
	if out == nil {
		return MCPResponse{Status: 202}
	}
	return MCPResponse{Body: out, Status: status, SessionID: sid}
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

// sessionGoneBody is the answer to a request of an ended session.
func sessionGoneBody() []byte {
	return errorBody(nil, MCPSessionNotFound, "session not found: it ended or never existed; send initialize without Mcp-Session-Id to start a new one", nil)
}

// handleBatch answers a JSON array of messages: per message in the
// 2025-03-26 revision, which has batches; otherwise one Invalid Request.
func (d *MCPDispatcher) handleBatch(ctx context.Context, req MCPRequest, body []byte) MCPResponse {
	if _, err := ParseValue(body); err != nil {
		return MCPResponse{Body: errorBody(nil, MCPParseError, "parse error: "+err.Error(), nil), Status: 400}
	}
	var items []wire.RawMessage
	if err := wire.Unmarshal(body, (*wire.RawList)(&items)); err != nil {
		return MCPResponse{Body: errorBody(nil, MCPParseError, "parse error: "+err.Error(), nil), Status: 400}
	}
	if len(items) == 0 {
		return MCPResponse{Body: errorBody(nil, MCPInvalidRequest, "invalid request: an empty batch", nil), Status: 400}
	}
	if d.sessionGone(req) {
		return MCPResponse{Body: sessionGoneBody(), Status: 404}
	}
	if d.requestVersion(req) != "2025-03-26" {
		return MCPResponse{Body: errorBody(nil, MCPInvalidRequest, "invalid request: JSON-RPC batches are not part of this protocol revision", nil), Status: 400}
	}
	out := []byte{'['}
	n := 0
	for _, it := range items {
		b, _, _ := d.handleOne(ctx, req, bytes.TrimSpace(it), true)
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
		if v, ok := req.Header("MCP-Protocol-Version"); ok {
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

// handleOne answers one message: its answer (nil for a notification), the
// HTTP status, and a session id initialize issued.
func (d *MCPDispatcher) handleOne(ctx context.Context, req MCPRequest, raw []byte, inBatch bool) (out []byte, status int, sid string) {
	var id []byte
	defer func() {
		if r := recover(); r != nil {
			out, status, sid = errorBody(id, MCPInternalError, "internal error", nil), 500, ""
		}
	}()
	if len(raw) == 0 {
		return errorBody(nil, MCPParseError, "parse error: the body is empty", nil), 400, ""
	}
	if _, err := ParseValue(raw); err != nil {
		return errorBody(nil, MCPParseError, "parse error: "+err.Error(), nil), 400, ""
	}
	msg, e := decodeMessage(raw)
	id = msg.id
	if e != nil {
		return errorBody(id, e.Code, e.Message, nil), 400, ""
	}
	stateless := d.isStateless(req, msg)
	if (stateless && d.opts.Era == "session") || (!stateless && d.opts.Era == "stateless") {
		if msg.id == nil {
			return nil, 202, ""
		}
		return errorBody(id, MCPMethodNotFound, "method not found: "+msg.method+" (this server does not speak that protocol era)", nil), 404, ""
	}
	if stateless {
		if msg.id == nil {
			return nil, 202, "" // notifications need no answer in either era
		}
		if inBatch {
			return errorBody(id, MCPInvalidRequest, "invalid request: no batches in the stateless era", nil), 400, ""
		}
		version, cc, e := d.checkStateless(req, msg)
		if e != nil {
			return errorBody(id, e.Code, e.Message, e.Data), statusFor(e.Code, true), ""
		}
		res, e := d.route(ctx, msg, version, cc, true)
		if e != nil {
			return errorBody(id, e.Code, e.Message, e.Data), statusFor(e.Code, true), ""
		}
		return resultBody(id, res), 200, ""
	}
	// The session era's session check; initialize may carry a stale id (it
	// starts a new session), and the stateless era ignores the header.
	if msg.method != "initialize" && d.sessionGone(req) {
		return sessionGoneBody(), 404, ""
	}
	if msg.id == nil {
		return nil, 202, "" // notifications/initialized, cancelled, …: nothing to answer
	}
	if msg.method == "initialize" {
		if inBatch {
			return errorBody(id, MCPInvalidRequest, "invalid request: initialize cannot be batched", nil), 400, ""
		}
		res, version := d.initialize(msg)
		if d.opts.Sessions {
			sid = d.newSession(version)
		}
		return resultBody(id, res), 200, sid
	}
	version := ""
	if req.SessionID != "" {
		version, _ = d.sessionVersion(req.SessionID)
	}
	res, e := d.route(ctx, msg, version, nil, false)
	if e != nil {
		return errorBody(id, e.Code, e.Message, e.Data), statusFor(e.Code, false), ""
	}
	return resultBody(id, res), 200, ""
}

// listenRequest opens a listener when body is a valid stateless-era
// subscriptions/listen request and the dispatcher offers ListChanged; any
// other body (or an invalid listen request) is left to handleOne, which
// answers it or its error.
func (d *MCPDispatcher) listenRequest(req MCPRequest, body []byte) *MCPListen {
	if !d.opts.ListChanged || d.opts.Era == "session" || !bytes.Contains(body, []byte("subscriptions/listen")) {
		return nil
	}
	if _, err := ParseValue(body); err != nil {
		return nil
	}
	msg, e := decodeMessage(body)
	if e != nil || msg.id == nil || msg.method != "subscriptions/listen" || !d.isStateless(req, msg) {
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
		if idRaw[0] == '"' || idRaw[0] == '-' || (idRaw[0] >= '0' && idRaw[0] <= '9') {
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
		if k, dup := duplicateKey(p); dup {
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

// duplicateKey returns a member name that occurs twice in one object
// anywhere in data, a JSON text already known to be valid. RFC 8259 leaves
// duplicates to the reader: the dispatcher reads the first copy, ParseValue
// the last, so a message with duplicates is refused rather than read two
// ways.
func duplicateKey(data []byte) (string, bool) {
	type frame struct {
		object bool
		key    bool // the next string is a member name
		keys   []string
		set    map[string]struct{}
	}
	var stack []frame
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '{':
			stack = append(stack, frame{object: true, key: true})
		case '[':
			stack = append(stack, frame{})
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case ',':
			if n := len(stack); n > 0 && stack[n-1].object {
				stack[n-1].key = true
			}
		case '"':
			j, escaped := i+1, false
			for ; j < len(data) && data[j] != '"'; j++ {
				if data[j] == '\\' {
					j++
					escaped = true
				}
			}
			n := len(stack)
			if n == 0 || !stack[n-1].object || !stack[n-1].key || j >= len(data) {
				i = j
				continue
			}
			f := &stack[n-1]
			f.key = false
			k := string(data[i+1 : j])
			if escaped {
				k, _ = wire.DecodeString(data[i : j+1])
			}
			i = j
			if f.set != nil {
				if _, dup := f.set[k]; dup {
					return k, true
				}
				f.set[k] = struct{}{}
				continue
			}
			for _, s := range f.keys {
				if s == k {
					return k, true
				}
			}
			f.keys = append(f.keys, k)
			if len(f.keys) > 16 {
				f.set = make(map[string]struct{}, 2*len(f.keys))
				for _, s := range f.keys {
					f.set[s] = struct{}{}
				}
				f.keys = nil
			}
		}
	}
	return "", false
}

// route answers a request in either era; version and cc are the request's
// protocol version and client capabilities (stateless era).
func (d *MCPDispatcher) route(ctx context.Context, msg rpcMessage, version string, cc []byte, stateless bool) ([]byte, *MCPError) {
	switch msg.method {
	case "tools/list":
		if stateless {
			return d.list.Load().stateless, nil
		}
		return d.list.Load().session, nil
	case "tools/call":
		res, e := d.callTool(ctx, msg, version, cc, stateless)
		if e != nil {
			return nil, e
		}
		if stateless {
			res = d.decorate("tools/call", res)
		}
		return res, nil
	case "server/discover":
		if !stateless {
			return nil, &MCPError{Code: MCPMethodNotFound, Message: "method not found: server/discover belongs to the " + MCPStatelessVersion + " revision"}
		}
		return d.discover(), nil
	case "ping":
		if !stateless {
			return []byte("{}"), nil
		}
	case "initialize":
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

// callTool checks tools/call params and runs the tool under recover.
func (d *MCPDispatcher) callTool(ctx context.Context, msg rpcMessage, version string, cc []byte, stateless bool) (res []byte, e *MCPError) {
	fields, err := wire.ObjectFields(msg.params)
	if err != nil {
		return nil, &MCPError{Code: MCPInvalidParams, Message: "invalid params: " + err.Error()}
	}
	nraw := bytes.TrimSpace(wire.GetField(fields, "name"))
	if len(nraw) == 0 || nraw[0] != '"' {
		return nil, &MCPError{Code: MCPInvalidParams, Message: "invalid params: tools/call needs a string name"}
	}
	name, _ := wire.DecodeString(nraw)
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
		res, e = h.HandleToolCall(ctx, MCPToolCall{Name: name, Arguments: args, ProtocolVersion: version, ClientCapabilities: cc, Stateless: stateless})
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

// initialize answers the session-era handshake and returns the version it
// negotiated.
func (d *MCPDispatcher) initialize(msg rpcMessage) ([]byte, string) {
	version := mcpSessionVersions[len(mcpSessionVersions)-1]
	if fields, err := wire.ObjectFields(msg.params); err == nil {
		if v, err := wire.DecodeString(bytes.TrimSpace(wire.GetField(fields, "protocolVersion"))); err == nil {
			for _, s := range mcpSessionVersions {
				if s == v {
					version = v
				}
			}
		}
	}
	kv := []any{"protocolVersion", wire.EncodeString(version), "capabilities", d.caps, "serverInfo", d.info}
	if d.opts.Instructions != "" {
		kv = append(kv, "instructions", wire.EncodeString(d.opts.Instructions))
	}
	return buildObject(kv...), version
}

// discover answers server/discover.
func (d *MCPDispatcher) discover() []byte {
	kv := []any{"supportedVersions", stringArray(mcpStatelessVersions), "capabilities", d.caps}
	if d.opts.Instructions != "" {
		kv = append(kv, "instructions", wire.EncodeString(d.opts.Instructions))
	}
	kv = append(kv, "_meta", buildObject("io.modelcontextprotocol/serverInfo", d.info))
	return d.decorate("server/discover", buildObject(kv...))
}

// mcpCacheable are the results that carry caching hints in the stateless era.
var mcpCacheable = map[string]bool{
	"server/discover": true, "tools/list": true, "prompts/list": true,
	"resources/list": true, "resources/templates/list": true, "resources/read": true,
}

// decorate adds the stateless era's result fields a result lacks:
// resultType, and ttlMs/cacheScope on cacheable results.
func (d *MCPDispatcher) decorate(method string, res []byte) []byte {
	fields, err := wire.ObjectFields(res)
	if err != nil {
		return res
	}
	var add []wire.Field
	if wire.GetField(fields, "resultType") == nil {
		add = append(add, wire.Field{Key: "resultType", Value: []byte(`"complete"`)})
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

// resultBody writes a JSON-RPC result response.
func resultBody(id, result []byte) []byte {
	out := append([]byte(`{"jsonrpc":"2.0","id":`), id...)
	out = append(out, `,"result":`...)
	out = append(out, result...)
	return append(out, '}')
}

// errorBody writes a JSON-RPC error response; a nil id is written as null.
func errorBody(id []byte, code int, message string, data []byte) []byte {
	out := []byte(`{"jsonrpc":"2.0","id":`)
	if id == nil {
		out = append(out, "null"...)
	} else {
		out = append(out, id...)
	}
	out = append(out, `,"error":{"code":`...)
	out = strconv.AppendInt(out, int64(code), 10)
	out = append(out, `,"message":`...)
	out = append(out, wire.EncodeString(message)...)
	if len(data) > 0 {
		out = append(out, `,"data":`...)
		out = append(out, data...)
	}
	return append(out, "}}"...)
}

// buildObject writes key/value pairs (values are JSON bytes) as an object.
func buildObject(kv ...any) []byte {
	fields := make([]wire.Field, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		fields = append(fields, wire.Field{Key: kv[i].(string), Value: kv[i+1].([]byte)})
	}
	return wire.BuildObject(fields)
}

// stringArray writes a JSON array of strings.
func stringArray(ss []string) []byte {
	out := []byte{'['}
	for i, s := range ss {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, wire.EncodeString(s)...)
	}
	return append(out, ']')
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
