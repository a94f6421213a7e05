// Streams that call tools.

package fakeproxy

import (
	"fmt"
	"strings"
)

// Call is one tool call in a scripted answer.
type Call struct {
	ID   string
	Name string
	Args string // JSON; "" sends {}
}

// ToolCallStream is an answer that calls tools: for each call a
// tool_call_start and a tool_call_stop with its arguments, then message_stop
// with stopReason toolCall.
func ToolCallStream(calls ...Call) string {
	var b strings.Builder
	b.WriteString(Frame("message_start", `{"model":"fake-model"}`))
	for _, c := range calls {
		args := c.Args
		if args == "" {
			args = "{}"
		}
		b.WriteString(Frame("tool_call_start", fmt.Sprintf(`{"toolCallId":%q,"toolName":%q}`, c.ID, c.Name)))
		b.WriteString(Frame("tool_call_stop", fmt.Sprintf(`{"toolCallId":%q,"toolArguments":%s}`, c.ID, args)))
	}
	b.WriteString(Frame("message_stop", `{"stopReason":"toolCall"}`))
	return b.String()
}

// ChatRequests returns the chat requests received so far (not the
// capabilities reads).
func (p *Proxy) ChatRequests() []Request {
	var out []Request
	for _, r := range p.Requests() {
		if r.Path == ChatPath {
			out = append(out, r)
		}
	}
	return out
}

// MCPPath is where a session's default MCP client sends its requests.
const MCPPath = "/api/mcp"

// WithoutMCP drops the requests to MCPPath, leaving the proxy's own.
func WithoutMCP(reqs []Request) []Request {
	var out []Request
	for _, r := range reqs {
		if r.Path != MCPPath {
			out = append(out, r)
		}
	}
	return out
}
