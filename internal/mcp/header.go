// Header names of Streamable HTTP, and the encoding of header values that
// mirror the body (Mcp-Name, Mcp-Param-*).

package mcp

import (
	"encoding/base64"
	"errors"
	"strings"
)

// Header names, as the specification spells them (HTTP header names are
// case-insensitive).
const (
	// HeaderSessionID carries the session id initialize issued (session era).
	HeaderSessionID = "Mcp-Session-Id"
	// HeaderProtocolVersion names the request's revision (both eras).
	HeaderProtocolVersion = "MCP-Protocol-Version"
	// HeaderMethod mirrors the body's method (stateless era).
	HeaderMethod = "Mcp-Method"
	// HeaderName mirrors the body's name or uri (stateless era: tools/call,
	// prompts/get, resources/read).
	HeaderName = "Mcp-Name"
	// HeaderParamPrefix starts the name of a header that mirrors a tool
	// argument marked with SchemaParamHeader (stateless era).
	HeaderParamPrefix = "Mcp-Param-"
	// HeaderLastEventID resumes an event stream after the event it names.
	HeaderLastEventID = "Last-Event-ID"
)

// SchemaParamHeader is the inputSchema keyword that marks a property whose
// value a stateless-era tools/call mirrors into HeaderParamPrefix + its
// value (the header name after the prefix).
const SchemaParamHeader = "x-mcp-header"

// The Base64 form of a header value: =?base64?…?=.
const (
	base64Prefix = "=?base64?"
	base64Suffix = "?="
)

// errHeaderBase64 is DecodeHeaderValue's error.
var errHeaderBase64 = errors.New("not valid Base64 inside =?base64?…?=")

// isBase64Form reports whether v has the =?base64?…?= form.
func isBase64Form(v string) bool {
	return len(v) >= len(base64Prefix)+len(base64Suffix) && strings.HasPrefix(v, base64Prefix) && strings.HasSuffix(v, base64Suffix)
}

// EncodeHeaderValue returns v as a header value: as it is when it is
// visible ASCII with inner spaces and tabs only, else (and when it has the
// Base64 form itself) Base64-encoded as =?base64?…?=.
func EncodeHeaderValue(v string) string {
	safe := v == "" || (v[0] != ' ' && v[0] != '\t' && v[len(v)-1] != ' ' && v[len(v)-1] != '\t')
	for i := 0; safe && i < len(v); i++ {
		b := v[i]
		safe = b == ' ' || b == '\t' || (b >= 0x21 && b <= 0x7e)
	}
	if safe && !isBase64Form(v) {
		return v
	}
	return base64Prefix + base64.StdEncoding.EncodeToString([]byte(v)) + base64Suffix
}

// DecodeHeaderValue returns the value a header carries: a value of the
// form =?base64?…?= decoded (strict Base64), any other as it is. It fails
// when the Base64 is malformed.
func DecodeHeaderValue(v string) (string, error) {
	if !isBase64Form(v) {
		return v, nil
	}
	dec, err := base64.StdEncoding.Strict().DecodeString(v[len(base64Prefix) : len(v)-len(base64Suffix)])
	if err != nil {
		return "", errHeaderBase64
	}
	return string(dec), nil
}
