// JSON-RPC 2.0 envelopes: the bodies both sides write, and the reading of
// one message.

package mcp

import (
	"strconv"

	"github.com/agentwasm/agentwasm/internal/jsonw"
	"github.com/agentwasm/agentwasm/internal/wire"
)

// head starts every message.
const head = `{"jsonrpc":"2.0"`

// RequestBody writes a request: id (JSON, a string or a number), method and
// params (a JSON object; nil leaves params out).
func RequestBody(id []byte, method string, params []byte) []byte {
	return []byte(head + `,"id":` + string(id) + `,"method":` + quote(method) + member(`,"params":`, params) + "}")
}

// NotificationBody writes a notification: method and params (a JSON
// object; nil leaves params out).
func NotificationBody(method string, params []byte) []byte {
	return []byte(head + `,"method":` + quote(method) + member(`,"params":`, params) + "}")
}

// ResultBody writes the response to request id with result, a JSON value
// (not empty).
func ResultBody(id, result []byte) []byte {
	return []byte(head + `,"id":` + string(id) + `,"result":` + string(result) + "}")
}

// ErrorBody writes the error response to request id (nil: the id is not
// known, written as null) with code, message and data (a JSON value; nil
// leaves data out).
func ErrorBody(id []byte, code int, message string, data []byte) []byte {
	idText := "null"
	if id != nil {
		idText = string(id)
	}
	return []byte(head + `,"id":` + idText + `,"error":{"code":` + strconv.Itoa(code) + `,"message":` + quote(message) + member(`,"data":`, data) + "}}")
}

// quote returns s as a JSON string.
func quote(s string) string { return string(jsonw.AppendString(nil, s)) }

// member returns a member's text, name and value, or "" when value is
// empty (the member is left out).
func member(name string, value []byte) string {
	if len(value) == 0 {
		return ""
	}
	return name + string(value)
}

// ValidID reports whether raw, a JSON value, can be a request id or a
// progress token: a string or a number.
func ValidID(raw []byte) bool {
	return len(raw) > 0 && (raw[0] == '"' || raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9'))
}

// ReadMessage decodes one JSON-RPC message: a JSON object, with white space
// around it allowed. ok is false for anything else (null included).
func ReadMessage(data []byte) (m wire.RPCMessage, ok bool) {
	return readMessage(data, 0)
}

// ReadMessageDeep is ReadMessage with no bound on how deeply the message's
// raw members (id, params, result, error data) nest: for a reader that
// bounds each member where it reads it, so that, say, one tool of a
// tools/list result nested too deeply refuses that tool, not the answer.
func ReadMessageDeep(data []byte) (m wire.RPCMessage, ok bool) {
	return readMessage(data, len(data))
}

// readMessage reads one message whose raw members nest at most maxDepth
// deep (zero: the lexer's default).
func readMessage(data []byte, maxDepth int) (m wire.RPCMessage, ok bool) {
	i := 0
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	if i == len(data) || data[i] != '{' || wire.UnmarshalDepth(data[i:], &m, maxDepth) != nil {
		return wire.RPCMessage{}, false
	}
	return m, true
}
