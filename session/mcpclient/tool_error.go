// Tool errors for MCP clients other than Client (a host's own client
// reached through hooks): the same reading of code and message.

package mcpclient

// NewToolError reads the code and message of a tools/call result with
// isError set, as Client does: from structuredContent {code,
// message}, else the first text block parsed as {code, message}, else that
// block's raw text with code "unknown". It returns nil when r is not an
// error.
func NewToolError(name string, r ToolResult) *ToolError {
	if !r.IsError {
		return nil
	}
	return toolError(name, r)
}
