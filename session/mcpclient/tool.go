// The values the client hands its user: a tool as tools/list describes it
// and the result of tools/call.

package mcpclient

import "github.com/agentwasm/agentwasm/internal/rawjson"

// Tool is one tool as an MCP server's tools/list describes it.
type Tool struct {
	Name         string
	Title        string
	Description  string
	InputSchema  rawjson.Message
	OutputSchema rawjson.Message
	Annotations  rawjson.Message
	Meta         rawjson.Message // the tool's _meta

	// Unreadable, when not empty, says why ReadToolList could not read this
	// descriptor (Name is what it could salvage); session's discovery
	// refuses such a tool (session.RejectDescriptor).
	Unreadable string
}

// ToolResult is the answer to tools/call. Content is the content block
// list; StructuredContent is absent (empty) when the server sent none.
type ToolResult struct {
	Content           rawjson.Message
	StructuredContent rawjson.Message
	IsError           bool
}
