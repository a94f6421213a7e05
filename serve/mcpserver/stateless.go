// The stateless era (2026-07-28) on the server side: telling a request's era,
// the per-request _meta, the standard headers (MCP-Protocol-Version,
// Mcp-Method, Mcp-Name) and the custom Mcp-Param-* headers a tool's
// x-mcp-header annotations ask for.

package mcpserver

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/agentwasm/agentwasm/internal/mcp"
	"github.com/agentwasm/agentwasm/internal/wire"
)

// StatelessVersion is the protocol revision of the stateless era
// ("2026-07-28").
const StatelessVersion = mcp.LatestStatelessVersion

// isStateless tells a request's era: stateless when its _meta names a
// protocol version, it asks server/discover, or its MCP-Protocol-Version
// header names a stateless revision. A header naming a revision served in
// neither era belongs to the one era the dispatcher serves; with both, to
// the session era when it is a dated revision older than the stateless one
// (2024-11-05) or the request carries an Mcp-Session-Id, and to the
// stateless era otherwise. (An UnsupportedProtocolVersion error lists
// every revision the dispatcher serves, whichever era it was told.)
func (d *Dispatcher) isStateless(req Request, msg rpcMessage) bool {
	if msg.method == mcp.MethodServerDiscover {
		return true
	}
	if meta := metaFields(msg.params); meta != nil && wire.GetField(meta, mcp.MetaProtocolVersion) != nil {
		return true
	}
	if req.Header != nil {
		if v, ok := req.Header(mcp.HeaderProtocolVersion); ok {
			v = trimOWS(v)
			switch {
			case mcp.IsSessionVersion(v):
				return false
			case mcp.IsStatelessVersion(v):
				return true
			case d.opts.Era == "session" || d.opts.Era == "stateless":
				return d.opts.Era == "stateless"
			}
			return !(mcp.PrecedesStateless(v) || (d.opts.Sessions && req.SessionID != ""))
		}
	}
	return false
}

// statelessMethod reports whether the stateless era serves a method:
// server/discover, tools/list, tools/call, subscriptions/listen (with
// ListChanged) and the extra Methods. Others (ping and initialize, which the
// revision removed, among them) are not found there, whatever the _meta.
func (d *Dispatcher) statelessMethod(method string) bool {
	switch method {
	case mcp.MethodServerDiscover, mcp.MethodToolsList, mcp.MethodToolsCall:
		return true
	case mcp.MethodSubscriptionsListen:
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
	meta := bytes.TrimSpace(wire.GetField(fields, mcp.KeyMeta))
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
func (d *Dispatcher) checkStateless(req Request, msg rpcMessage) (string, []byte, *Error) {
	hv, hasHeader := "", false
	if req.Header != nil {
		hv, hasHeader = req.Header(mcp.HeaderProtocolVersion)
		hv = trimOWS(hv)
		if !hasHeader {
			return "", nil, &Error{Code: HeaderMismatch, Message: "header mismatch: the " + mcp.HeaderProtocolVersion + " header is missing"}
		}
	}
	meta := metaFields(msg.params)
	vraw := bytes.TrimSpace(wire.GetField(meta, mcp.MetaProtocolVersion))
	if hasHeader && len(vraw) == 0 && !mcp.IsStatelessVersion(hv) {
		// Classified by the header alone: a revision this server speaks in
		// neither era (a session-era one would not be here).
		return "", nil, unsupportedVersion(hv, d.servedVersions())
	}
	if !d.statelessMethod(msg.method) {
		if msg.method == mcp.MethodSubscriptionsListen {
			// Part of the revision, but only a server whose tool list may
			// change offers it.
			return "", nil, &Error{Code: MethodNotFound, Message: "method not found: this server offers no subscriptions: its tool list does not change (capabilities.tools.listChanged is false), so there is nothing to listen for"}
		}
		return "", nil, &Error{Code: MethodNotFound, Message: "method not found: " + msg.method + " is not part of the " + StatelessVersion + " revision"}
	}
	if meta == nil {
		return "", nil, &Error{Code: InvalidParams, Message: "invalid params: params._meta is required in the " + StatelessVersion + " revision"}
	}
	var missing []string
	if len(vraw) == 0 {
		missing = append(missing, mcp.MetaProtocolVersion)
	}
	cc := bytes.TrimSpace(wire.GetField(meta, mcp.MetaClientCapabilities))
	if len(cc) == 0 {
		missing = append(missing, mcp.MetaClientCapabilities)
	}
	if len(missing) > 0 {
		return "", nil, &Error{Code: InvalidParams, Message: "invalid params: _meta lacks " + strings.Join(missing, " and ")}
	}
	version, err := wire.DecodeString(vraw)
	if err != nil || vraw[0] != '"' {
		return "", nil, &Error{Code: InvalidParams, Message: "invalid params: " + mcp.MetaProtocolVersion + " must be a string"}
	}
	if cc[0] != '{' {
		return "", nil, &Error{Code: InvalidParams, Message: "invalid params: " + mcp.MetaClientCapabilities + " must be an object"}
	}
	if hasHeader && hv != version {
		return "", nil, &Error{Code: HeaderMismatch, Message: "header mismatch: " + mcp.HeaderProtocolVersion + " " + quote(hv) + " differs from _meta " + quote(version)}
	}
	if !mcp.IsStatelessVersion(version) {
		return "", nil, unsupportedVersion(version, d.servedVersions())
	}
	if req.Header != nil {
		if e := d.checkStandardHeaders(req, msg); e != nil {
			return "", nil, e
		}
	}
	return version, cc, nil
}

// unsupportedVersion is the UnsupportedProtocolVersionError for a requested
// revision, listing the revisions the endpoint serves (supported).
func unsupportedVersion(requested string, supported []string) *Error {
	return &Error{Code: UnsupportedProtocol, Message: "unsupported protocol version " + quote(requested) + ": use one of the supported versions in error.data",
		Data: mcp.UnsupportedVersionData(supported, requested)}
}

// checkStandardHeaders checks Mcp-Method, Mcp-Name and the custom
// Mcp-Param-* headers against the body.
func (d *Dispatcher) checkStandardHeaders(req Request, msg rpcMessage) *Error {
	m, ok := req.Header(mcp.HeaderMethod)
	if !ok {
		return &Error{Code: HeaderMismatch, Message: "header mismatch: the " + mcp.HeaderMethod + " header is missing"}
	}
	if m = trimOWS(m); m != msg.method {
		return &Error{Code: HeaderMismatch, Message: "header mismatch: " + mcp.HeaderMethod + " " + quote(m) + " differs from the body's method " + quote(msg.method)}
	}
	nameKey := ""
	switch msg.method {
	case mcp.MethodToolsCall, mcp.MethodPromptsGet:
		nameKey = "name"
	case mcp.MethodResourcesRead:
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
	h, ok := req.Header(mcp.HeaderName)
	if !ok {
		return &Error{Code: HeaderMismatch, Message: "header mismatch: the " + mcp.HeaderName + " header is missing"}
	}
	h, e := headerValue(mcp.HeaderName, h)
	if e != nil {
		return e
	}
	if h != name {
		return &Error{Code: HeaderMismatch, Message: "header mismatch: " + mcp.HeaderName + " " + quote(h) + " differs from the body's " + nameKey + " " + quote(name)}
	}
	if msg.method != mcp.MethodToolsCall {
		return nil
	}
	rules := d.tools().headers[name]
	if len(rules) == 0 {
		return nil
	}
	args := wire.GetField(fields, "arguments")
	for _, r := range rules {
		if e := checkParamHeader(req, r, args); e != nil {
			return e
		}
	}
	return nil
}

// checkParamHeader compares the Mcp-Param header of annotation r with the
// argument value.
func checkParamHeader(req Request, r mcp.ParamHeader, args []byte) *Error {
	hname := mcp.HeaderParamPrefix + r.Name
	hv, hasHeader := req.Header(hname)
	val, number, hasVal := argumentText(mcp.ArgumentAt(args, r.Path))
	if !hasHeader {
		if hasVal {
			return &Error{Code: HeaderMismatch, Message: "header mismatch: the " + hname + " header is missing"}
		}
		return nil
	}
	hv, e := headerValue(hname, hv)
	if e != nil {
		return e
	}
	if !hasVal {
		return &Error{Code: HeaderMismatch, Message: "header mismatch: " + hname + " is set but the argument is absent"}
	}
	if hv != val && !(number && sameNumber(hv, val)) {
		return &Error{Code: HeaderMismatch, Message: "header mismatch: " + hname + " differs from the argument"}
	}
	return nil
}

// headerValue reads an Mcp-Name or Mcp-Param-* value: it must be visible
// ASCII, space or tab (RFC 9110 field text), and a value in the Base64
// sentinel form =?base64?…?= is decoded.
func headerValue(hname, hv string) (string, *Error) {
	for i := 0; i < len(hv); i++ {
		if c := hv[i]; (c < 0x20 && c != '\t') || c > 0x7e {
			return "", &Error{Code: HeaderMismatch, Message: "header mismatch: " + hname + " carries characters a header value may not; send such a value as =?base64?…?="}
		}
	}
	hv, err := mcp.DecodeHeaderValue(trimOWS(hv))
	if err != nil {
		return "", &Error{Code: HeaderMismatch, Message: "header mismatch: " + hname + " is " + err.Error()}
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

// argumentText returns an argument value (mcp.ArgumentAt) as header text: a
// string as is, a number or boolean as written (number reports a number).
// Absent, null, or a container: not there.
func argumentText(cur []byte) (text string, number, ok bool) {
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
// tools/list array: tool name → annotations. A tool whose annotations break
// the rules (mcp.ParamHeaders; the client leaves such a tool out of its
// catalog) gets no header checks.
func paramHeaderRules(tools []byte) map[string][]mcp.ParamHeader {
	out := map[string][]mcp.ParamHeader{}
	if !bytes.Contains(tools, []byte(mcp.SchemaParamHeader)) {
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
		if hs, err := mcp.ParamHeaders(wire.GetField(fields, "inputSchema")); err == nil && len(hs) > 0 {
			out[name] = hs
		}
	}
	return out
}

// trimOWS drops the optional white space around an HTTP field value.
func trimOWS(s string) string { return strings.Trim(s, " \t") }

// quote writes s as a JSON-style quoted string for messages.
func quote(s string) string { return string(wire.EncodeString(s)) }
