// The stateless era (2026-07-28) on the server side: telling a request's era,
// the per-request _meta, the standard headers (MCP-Protocol-Version,
// Mcp-Method, Mcp-Name) and the custom Mcp-Param-* headers a tool's
// x-mcp-header annotations ask for.

package serve

import (
	"bytes"
	"encoding/base64"
	"slices"
	"strconv"
	"strings"

	"github.com/agentwasm/agentwasm/internal/wire"
)

// MCP _meta keys of the stateless era.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
)

// isStateless tells a request's era: stateless when its _meta names a
// protocol version, it asks server/discover, or its MCP-Protocol-Version
// header names a stateless revision. A header naming a revision served in
// neither era belongs to the one era the dispatcher serves; with both, to
// the session era when it is a dated revision older than the stateless one
// (2024-11-05) or the request carries an Mcp-Session-Id, and to the
// stateless era otherwise. The era decides which versions an
// UnsupportedProtocolVersion error lists.
func (d *MCPDispatcher) isStateless(req MCPRequest, msg rpcMessage) bool {
	if msg.method == "server/discover" {
		return true
	}
	if meta := metaFields(msg.params); meta != nil && wire.GetField(meta, metaProtocolVersion) != nil {
		return true
	}
	if req.Header != nil {
		if v, ok := req.Header("MCP-Protocol-Version"); ok {
			v = trimOWS(v)
			switch {
			case slices.Contains(mcpSessionVersions, v):
				return false
			case slices.Contains(mcpStatelessVersions, v):
				return true
			case d.opts.Era == "session" || d.opts.Era == "stateless":
				return d.opts.Era == "stateless"
			}
			return !(olderRevision(v) || (d.opts.Sessions && req.SessionID != ""))
		}
	}
	return false
}

// olderRevision reports whether v is a dated revision (YYYY-MM-DD) older
// than the stateless era's.
func olderRevision(v string) bool {
	if len(v) != 10 || v[4] != '-' || v[7] != '-' {
		return false
	}
	for i := 0; i < len(v); i++ {
		if i != 4 && i != 7 && (v[i] < '0' || v[i] > '9') {
			return false
		}
	}
	return v < MCPStatelessVersion
}

// statelessMethod reports whether the stateless era serves a method:
// server/discover, tools/list, tools/call, subscriptions/listen (with
// ListChanged) and the extra Methods. Others (ping and initialize, which the
// revision removed, among them) are not found there, whatever the _meta.
func (d *MCPDispatcher) statelessMethod(method string) bool {
	switch method {
	case "server/discover", "tools/list", "tools/call":
		return true
	case "subscriptions/listen":
		return d.opts.ListChanged
	}
	return d.opts.Methods[method] != nil
}

// metaFields returns the members of params._meta (nil: absent or not an
// object).
func metaFields(params []byte) []wire.Field {
	fields, err := wire.ObjectFields(params)
	if err != nil {
		return nil
	}
	meta := bytes.TrimSpace(wire.GetField(fields, "_meta"))
	if len(meta) == 0 || meta[0] != '{' {
		return nil
	}
	mf, err := wire.ObjectFields(meta)
	if err != nil {
		return nil
	}
	if mf == nil {
		mf = []wire.Field{}
	}
	return mf
}

// checkStateless validates a stateless-era request's _meta and headers. It
// returns the request's protocol version and client capabilities.
func (d *MCPDispatcher) checkStateless(req MCPRequest, msg rpcMessage) (string, []byte, *MCPError) {
	hv, hasHeader := "", false
	if req.Header != nil {
		hv, hasHeader = req.Header("MCP-Protocol-Version")
		hv = trimOWS(hv)
		if !hasHeader {
			return "", nil, &MCPError{Code: MCPHeaderMismatch, Message: "header mismatch: the MCP-Protocol-Version header is missing"}
		}
	}
	meta := metaFields(msg.params)
	vraw := bytes.TrimSpace(wire.GetField(meta, metaProtocolVersion))
	if hasHeader && len(vraw) == 0 && !slices.Contains(mcpStatelessVersions, hv) {
		// Classified by the header alone: a revision this server speaks in
		// neither era (a session-era one would not be here).
		return "", nil, unsupportedVersion(hv, mcpStatelessVersions)
	}
	if !d.statelessMethod(msg.method) {
		return "", nil, &MCPError{Code: MCPMethodNotFound, Message: "method not found: " + msg.method + " is not part of the " + MCPStatelessVersion + " revision"}
	}
	if meta == nil {
		return "", nil, &MCPError{Code: MCPInvalidParams, Message: "invalid params: params._meta is required in the " + MCPStatelessVersion + " revision"}
	}
	var missing []string
	if len(vraw) == 0 {
		missing = append(missing, metaProtocolVersion)
	}
	cc := bytes.TrimSpace(wire.GetField(meta, metaClientCapabilities))
	if len(cc) == 0 {
		missing = append(missing, metaClientCapabilities)
	}
	if len(missing) > 0 {
		return "", nil, &MCPError{Code: MCPInvalidParams, Message: "invalid params: _meta lacks " + strings.Join(missing, " and ")}
	}
	version, err := wire.DecodeString(vraw)
	if err != nil || vraw[0] != '"' {
		return "", nil, &MCPError{Code: MCPInvalidParams, Message: "invalid params: " + metaProtocolVersion + " must be a string"}
	}
	if cc[0] != '{' {
		return "", nil, &MCPError{Code: MCPInvalidParams, Message: "invalid params: " + metaClientCapabilities + " must be an object"}
	}
	if hasHeader && hv != version {
		return "", nil, &MCPError{Code: MCPHeaderMismatch, Message: "header mismatch: MCP-Protocol-Version " + quote(hv) + " differs from _meta " + quote(version)}
	}
	if !slices.Contains(mcpStatelessVersions, version) {
		return "", nil, unsupportedVersion(version, mcpStatelessVersions)
	}
	if req.Header != nil {
		if e := d.checkStandardHeaders(req, msg); e != nil {
			return "", nil, e
		}
	}
	return version, cc, nil
}

// unsupportedVersion is the UnsupportedProtocolVersionError for a requested
// revision, listing the revisions served in the request's era (supported).
func unsupportedVersion(requested string, supported []string) *MCPError {
	data := buildObject("supported", stringArray(supported), "requested", wire.EncodeString(requested))
	return &MCPError{Code: MCPUnsupportedProtocol, Message: "unsupported protocol version " + quote(requested) + ": use one of the supported versions in error.data", Data: data}
}

// checkStandardHeaders checks Mcp-Method, Mcp-Name and the custom
// Mcp-Param-* headers against the body.
func (d *MCPDispatcher) checkStandardHeaders(req MCPRequest, msg rpcMessage) *MCPError {
	m, ok := req.Header("Mcp-Method")
	if !ok {
		return &MCPError{Code: MCPHeaderMismatch, Message: "header mismatch: the Mcp-Method header is missing"}
	}
	if m = trimOWS(m); m != msg.method {
		return &MCPError{Code: MCPHeaderMismatch, Message: "header mismatch: Mcp-Method " + quote(m) + " differs from the body's method " + quote(msg.method)}
	}
	nameKey := ""
	switch msg.method {
	case "tools/call", "prompts/get":
		nameKey = "name"
	case "resources/read":
		nameKey = "uri"
	}
	if nameKey == "" {
		return nil
	}
	fields, _ := wire.ObjectFields(msg.params)
	nraw := bytes.TrimSpace(wire.GetField(fields, nameKey))
	if len(nraw) == 0 || nraw[0] != '"' {
		return nil // the method's own params check answers
	}
	name, _ := wire.DecodeString(nraw)
	h, ok := req.Header("Mcp-Name")
	if !ok {
		return &MCPError{Code: MCPHeaderMismatch, Message: "header mismatch: the Mcp-Name header is missing"}
	}
	h, e := headerValue("Mcp-Name", h)
	if e != nil {
		return e
	}
	if h != name {
		return &MCPError{Code: MCPHeaderMismatch, Message: "header mismatch: Mcp-Name " + quote(h) + " differs from the body's " + nameKey + " " + quote(name)}
	}
	if msg.method != "tools/call" {
		return nil
	}
	rules := d.list.Load().headers[name]
	if len(rules) == 0 {
		return nil
	}
	args := bytes.TrimSpace(wire.GetField(fields, "arguments"))
	for _, r := range rules {
		if e := r.check(req, args); e != nil {
			return e
		}
	}
	return nil
}

// paramHeaderRule is one x-mcp-header annotation of a tool: the property
// path from the arguments root and the header name after Mcp-Param-.
type paramHeaderRule struct {
	path   []string
	header string
}

// check compares the Mcp-Param header with the argument value.
func (r paramHeaderRule) check(req MCPRequest, args []byte) *MCPError {
	hname := "Mcp-Param-" + r.header
	hv, hasHeader := req.Header(hname)
	val, number, hasVal := argumentText(args, r.path)
	if !hasHeader {
		if hasVal {
			return &MCPError{Code: MCPHeaderMismatch, Message: "header mismatch: the " + hname + " header is missing"}
		}
		return nil
	}
	hv, e := headerValue(hname, hv)
	if e != nil {
		return e
	}
	if !hasVal {
		return &MCPError{Code: MCPHeaderMismatch, Message: "header mismatch: " + hname + " is set but the argument is absent"}
	}
	if hv != val && !(number && sameNumber(hv, val)) {
		return &MCPError{Code: MCPHeaderMismatch, Message: "header mismatch: " + hname + " differs from the argument"}
	}
	return nil
}

// headerValue reads an Mcp-Name or Mcp-Param-* value: it must be visible
// ASCII, space or tab (RFC 9110 field text), and a value in the Base64
// sentinel form =?base64?…?= is decoded.
func headerValue(hname, hv string) (string, *MCPError) {
	for i := 0; i < len(hv); i++ {
		if c := hv[i]; (c < 0x20 && c != '\t') || c > 0x7e {
			return "", &MCPError{Code: MCPHeaderMismatch, Message: "header mismatch: " + hname + " carries characters a header value may not; send such a value as =?base64?…?="}
		}
	}
	hv = trimOWS(hv)
	if strings.HasPrefix(hv, "=?base64?") && strings.HasSuffix(hv, "?=") && len(hv) >= len("=?base64??=") {
		dec, err := base64.StdEncoding.Strict().DecodeString(hv[len("=?base64?") : len(hv)-2])
		if err != nil {
			return "", &MCPError{Code: MCPHeaderMismatch, Message: "header mismatch: " + hname + " is not valid Base64 inside =?base64?…?="}
		}
		hv = string(dec)
	}
	return hv, nil
}

// sameNumber reports whether two decimal texts are the same number (the
// header 42 and the argument 42.0).
func sameNumber(a, b string) bool {
	x, err := strconv.ParseFloat(a, 64)
	if err != nil {
		return false
	}
	y, err := strconv.ParseFloat(b, 64)
	return err == nil && x == y
}

// argumentText returns the value at path in the arguments object as header
// text: a string as is, a number or boolean as written (number reports a
// number). Absent, null, or a container: not there.
func argumentText(args []byte, path []string) (text string, number, ok bool) {
	cur := args
	for _, key := range path {
		fields, err := wire.ObjectFields(bytes.TrimSpace(cur))
		if err != nil {
			return "", false, false
		}
		cur = wire.GetField(fields, key)
		if cur == nil {
			return "", false, false
		}
	}
	cur = bytes.TrimSpace(cur)
	if len(cur) == 0 {
		return "", false, false
	}
	switch c := cur[0]; {
	case c == '"':
		s, err := wire.DecodeString(cur)
		return s, false, err == nil
	case c == '{' || c == '[' || c == 'n':
		return "", false, false
	case c == '-' || (c >= '0' && c <= '9'):
		return string(cur), true, true
	}
	return string(cur), false, true
}

// paramHeaderRules reads the x-mcp-header annotations of every tool in a
// tools/list array: tool name → rules. Malformed schemas give no rules.
func paramHeaderRules(tools []byte) map[string][]paramHeaderRule {
	out := map[string][]paramHeaderRule{}
	if !bytes.Contains(tools, []byte("x-mcp-header")) {
		return out
	}
	var list wire.RawList
	if wire.Unmarshal(tools, &list) != nil {
		return out
	}
	for _, t := range list {
		fields, err := wire.ObjectFields(bytes.TrimSpace(t))
		if err != nil {
			continue
		}
		name, err := wire.DecodeString(bytes.TrimSpace(wire.GetField(fields, "name")))
		if err != nil || name == "" {
			continue
		}
		var rules []paramHeaderRule
		collectHeaderRules(bytes.TrimSpace(wire.GetField(fields, "inputSchema")), nil, &rules, 0)
		if len(rules) > 0 {
			out[name] = rules
		}
	}
	return out
}

// collectHeaderRules walks properties chains of a schema for x-mcp-header.
func collectHeaderRules(schema []byte, path []string, out *[]paramHeaderRule, depth int) {
	if depth > 32 || len(schema) == 0 || schema[0] != '{' {
		return
	}
	fields, err := wire.ObjectFields(schema)
	if err != nil {
		return
	}
	if len(path) > 0 {
		if h, err := wire.DecodeString(bytes.TrimSpace(wire.GetField(fields, "x-mcp-header"))); err == nil && h != "" {
			*out = append(*out, paramHeaderRule{path: slices.Clone(path), header: h})
		}
	}
	props := bytes.TrimSpace(wire.GetField(fields, "properties"))
	if len(props) == 0 || props[0] != '{' {
		return
	}
	pf, err := wire.ObjectFields(props)
	if err != nil {
		return
	}
	for _, p := range pf {
		collectHeaderRules(bytes.TrimSpace(p.Value), append(path, p.Key), out, depth+1)
	}
}

// trimOWS drops the optional white space around an HTTP field value.
func trimOWS(s string) string { return strings.Trim(s, " \t") }

// quote writes s as a JSON-style quoted string for messages.
func quote(s string) string { return string(wire.EncodeString(s)) }
