// Example of the dispatcher: a ToolServer with one tool, served in both
// eras of MCP through Dispatcher.Handle, one JSON-RPC body in, one answer
// out.

package mcpserver_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentwasm/agentwasm/serve/mcpserver"
)

// greeter is a ToolServer with one tool, greet, that answers a fixed text.
type greeter struct{}

// ListTools returns the one tool.
func (greeter) ListTools() []byte {
	return []byte(`[{"name":"greet","description":"Say hello","inputSchema":{"type":"object"}}]`)
}

// CallTool answers every call of greet with the same text block.
func (greeter) CallTool(context.Context, string, []byte) []byte {
	return []byte(`{"content":[{"type":"text","text":"hello"}]}`)
}

// New builds a dispatcher over a tool server; Handle answers a session-era
// tools/call as is, and a stateless-era one (its _meta names the protocol
// version and the client's capabilities) with the era's resultType. An
// unknown tool is invalid params (-32602; the session era answers it with
// HTTP status 200). The example prints each answer up to its error message.
func ExampleNew() {
	d := mcpserver.New(greeter{}, mcpserver.Options{Name: "greeter", Version: "1.0.0"})
	ctx := context.Background()
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet",
		  "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"wave"}}`,
	} {
		resp := d.Handle(ctx, mcpserver.Request{Body: []byte(body)})
		fmt.Println(resp.Status, strings.SplitN(string(resp.Body), `,"message"`, 2)[0])
	}
	// Output:
	// 200 {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hello"}]}}
	// 200 {"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[{"type":"text","text":"hello"}]}}
	// 200 {"jsonrpc":"2.0","id":3,"error":{"code":-32602
}
