// JSON-RPC 2.0 envelopes as the MCP client reads them, and the MCP message
// shapes it speaks: initialize (session era, 2025-03-26 … 2025-11-25),
// server/discover and the per-request _meta (stateless era, 2026-07-28),
// tools/list and tools/call (both eras), and subscriptions/listen
// (stateless-era list-changed watch). The envelopes the client writes, and
// every message the server writes, are internal/mcp's builders.

package wire

import (
	"github.com/agentwasm/agentwasm/internal/jsonr"
	"github.com/agentwasm/agentwasm/internal/jsonw"
	"github.com/agentwasm/agentwasm/internal/rawjson"
)

// RPCMessage is any JSON-RPC message, as mcp.ReadMessage reads it (the
// client reads what a server sends with it, the test fake what a client
// sends): a response (ID and Result or Error, no Method), a notification
// (Method, no ID) or a request (Method and ID). Empty rawjson.Message fields
// were absent (or null).
//
//easyjson:json
//agentwasm:decode-only
type RPCMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      rawjson.Message `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  rawjson.Message `json:"params,omitempty"`
	Result  rawjson.Message `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

// RPCError is the error member of a JSON-RPC error response.
//
//easyjson:json
//agentwasm:decode-only
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    rawjson.Message `json:"data,omitempty"`
}

// MCPImplementation names a client or server implementation (clientInfo,
// serverInfo).
//
//easyjson:json
type MCPImplementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// MCPRequestMeta is the _meta every stateless-era (2026-07-28) request
// carries: the protocol version and client capabilities (required) and the
// client info.
//
//easyjson:json
//agentwasm:encode-only
type MCPRequestMeta struct {
	ProtocolVersion    string             `json:"io.modelcontextprotocol/protocolVersion"`
	ClientInfo         *MCPImplementation `json:"io.modelcontextprotocol/clientInfo,omitempty"`
	ClientCapabilities rawjson.Message    `json:"io.modelcontextprotocol/clientCapabilities"`
}

// MCPInitializeMeta is the _meta of a session-era initialize request: the
// Honua server's workflow view hint.
//
//easyjson:json
//agentwasm:encode-only
type MCPInitializeMeta struct {
	WorkflowView string `json:"honua.io/workflow-view,omitempty"`
}

// MCPInitializeParams are the params of initialize.
//
//easyjson:json
//agentwasm:encode-only
type MCPInitializeParams struct {
	ProtocolVersion string            `json:"protocolVersion"`
	Capabilities    rawjson.Message   `json:"capabilities"`
	ClientInfo      MCPImplementation `json:"clientInfo"`
	Meta            rawjson.Message   `json:"_meta,omitempty"`
}

// MCPInitializeResult is the result of initialize.
//
//easyjson:json
//agentwasm:decode-only
type MCPInitializeResult struct {
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    rawjson.Message    `json:"capabilities,omitempty"`
	ServerInfo      *MCPImplementation `json:"serverInfo,omitempty"`
	Instructions    string             `json:"instructions,omitempty"`
}

// MCPMetaParams are params that carry nothing but _meta (server/discover).
//
//easyjson:json
//agentwasm:encode-only
type MCPMetaParams struct {
	Meta rawjson.Message `json:"_meta,omitempty"`
}

// MCPDiscoverResult is the result of server/discover.
//
//easyjson:json
//agentwasm:decode-only
type MCPDiscoverResult struct {
	ResultType        string          `json:"resultType,omitempty"`
	SupportedVersions []string        `json:"supportedVersions"`
	Capabilities      rawjson.Message `json:"capabilities,omitempty"`
	Instructions      string          `json:"instructions,omitempty"`
	Meta              rawjson.Message `json:"_meta,omitempty"`
}

// MCPUnsupportedVersionData is the data of an UnsupportedProtocolVersion
// error (-32022).
//
//easyjson:json
//agentwasm:decode-only
type MCPUnsupportedVersionData struct {
	Supported []string `json:"supported"`
	Requested string   `json:"requested,omitempty"`
}

// MCPListToolsParams are the params of tools/list.
//
//easyjson:json
//agentwasm:encode-only
type MCPListToolsParams struct {
	Cursor string          `json:"cursor,omitempty"`
	Meta   rawjson.Message `json:"_meta,omitempty"`
}

// MCPToolDescriptor is one tool in a tools/list result.
//
//easyjson:json
//agentwasm:decode-only
type MCPToolDescriptor struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  rawjson.Message `json:"inputSchema,omitempty"`
	OutputSchema rawjson.Message `json:"outputSchema,omitempty"`
	Annotations  rawjson.Message `json:"annotations,omitempty"`
	Meta         rawjson.Message `json:"_meta,omitempty"`
}

// MCPListToolsResult is the result of tools/list. An absent or empty
// NextCursor ends the walk.
//
//easyjson:json
//agentwasm:decode-only
type MCPListToolsResult struct {
	ResultType string              `json:"resultType,omitempty"`
	Tools      []MCPToolDescriptor `json:"tools"`
	NextCursor string              `json:"nextCursor,omitempty"`
}

// MCPCallToolParams are the params of tools/call.
//
//easyjson:json
//agentwasm:encode-only
type MCPCallToolParams struct {
	Name      string          `json:"name"`
	Arguments rawjson.Message `json:"arguments,omitempty"`
	Meta      rawjson.Message `json:"_meta,omitempty"`
}

// MCPCallToolResult is the result of tools/call. ResultType is "complete"
// (or absent, from earlier servers) or "input_required".
//
//easyjson:json
//agentwasm:decode-only
type MCPCallToolResult struct {
	ResultType        string          `json:"resultType,omitempty"`
	Content           rawjson.Message `json:"content,omitempty"`
	StructuredContent rawjson.Message `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
}

// MCPContentBlock is the part of a content block the client reads.
//
//easyjson:json
//agentwasm:decode-only
type MCPContentBlock struct {
	Type string `json:"type"`
	Text string `json:"text,omitempty"`
}

// MCPContentBlocks is a tools/call result's content list.
//
//easyjson:json
//agentwasm:decode-only
type MCPContentBlocks []MCPContentBlock

// MCPToolErrorBody is the {code, message} a tool error carries in its
// structuredContent or first text block. Code is kept as JSON: a string or
// a number.
//
//easyjson:json
//agentwasm:decode-only
type MCPToolErrorBody struct {
	Code    rawjson.Message `json:"code,omitempty"`
	Message string          `json:"message,omitempty"`
}

// MCPListenFilter chooses the notifications of a subscriptions/listen
// stream.
//
//easyjson:json
//agentwasm:encode-only
type MCPListenFilter struct {
	ToolsListChanged bool `json:"toolsListChanged,omitempty"`
}

// MCPListenParams are the params of subscriptions/listen.
//
//easyjson:json
//agentwasm:encode-only
type MCPListenParams struct {
	Notifications MCPListenFilter `json:"notifications"`
	Meta          rawjson.Message `json:"_meta,omitempty"`
}

// StringList is a JSON array of strings (a schema's type list).
//
//easyjson:json
type StringList []string

// RawList is a JSON array kept as its members' bytes (a null member is
// nil). Its codecs are written by hand: the generator would spell
// rawjson.Message's as json.RawMessage's MarshalJSON and UnmarshalJSON,
// methods the wasm builds' rawjson.Message ([]byte) lacks.
type RawList []rawjson.Message

// WriteJSON writes v as a JSON array of its members (an empty member as
// null), or null when v is nil (Marshaler).
func (v RawList) WriteJSON(w *jsonw.Writer) {
	if v == nil {
		w.RawString("null")
		return
	}
	w.RawByte('[')
	for i, m := range v {
		if i > 0 {
			w.RawByte(',')
		}
		w.Raw(m, nil)
	}
	w.RawByte(']')
}

// ReadJSON reads a JSON array (or null, which sets v to nil) into v,
// keeping each member's bytes (Unmarshaler).
func (v *RawList) ReadJSON(l *jsonr.Lexer) {
	jsonr.Slice(l, (*[]rawjson.Message)(v), readRaw)
}

// readRaw copies the next JSON value's bytes into m.
func readRaw(m *rawjson.Message, l *jsonr.Lexer) {
	*m = append((*m)[:0], l.Raw()...)
}
