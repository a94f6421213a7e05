// Example of the port's MCP server: NewMCPServer builds the port and the
// transport-free dispatcher (serve/mcpserver) that serves it. The
// dispatcher's own examples, the HTTP handler's among them, are in
// serve/mcpserver.

package serve_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentwasm/agentwasm/serve"
	"github.com/agentwasm/agentwasm/serve/mcpserver"
)

// NewMCPServer builds the port and its dispatcher; Handle answers one
// JSON-RPC message (here a stateless-era tools/call: its _meta names the
// protocol version and the client's capabilities). A tools/call that fires
// waits up to SettleWithin for the fire to settle.
func ExampleNewMCPServer() {
	d, _, err := serve.NewMCPServer(exampleApp(), serve.MCPServerOptions{Version: "1.0.0"})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp := d.Handle(context.Background(), mcpserver.Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call",
	 "params":{"name":"shop.do_action","arguments":{"action":"cart.checkout"},
	           "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
	                    "io.modelcontextprotocol/clientCapabilities":{}}}}`)})
	body := string(resp.Body)
	fmt.Println(resp.Status, strings.Contains(body, `"effectStatus":"performed"`), strings.Contains(body, `"isError"`))
	// Output: 200 true false
}
