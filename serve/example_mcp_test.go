//go:build !js && !wasip1

// Examples of the MCP server: the transport-free dispatcher over a port,
// and the same dispatcher behind the native Streamable HTTP handler.

package serve_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/agentwasm/agentwasm/serve"
)

// NewMCPServer builds the port and its dispatcher; Handle answers one
// JSON-RPC message (here a stateless-era tools/call: its _meta names the
// protocol version and the client's capabilities). A tools/call that fires waits up to SettleWithin for
// the fire to settle.
func ExampleNewMCPServer() {
	d, _, err := serve.NewMCPServer(exampleApp(), serve.MCPServerOptions{Version: "1.0.0"})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp := d.Handle(context.Background(), serve.MCPRequest{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call",
	 "params":{"name":"shop.do_action","arguments":{"action":"cart.checkout"},
	           "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
	                    "io.modelcontextprotocol/clientCapabilities":{}}}}`)})
	body := string(resp.Body)
	fmt.Println(resp.Status, strings.Contains(body, `"effectStatus":"performed"`), strings.Contains(body, `"isError"`))
	// Output: 200 true false
}

// NewMCPHandler serves the dispatcher over Streamable HTTP, refusing
// foreign origins.
func ExampleNewMCPHandler() {
	d, _, _ := serve.NewMCPServer(exampleApp(), serve.MCPServerOptions{})
	srv := httptest.NewServer(serve.NewMCPHandler(d, serve.MCPHandlerOptions{}))
	defer srv.Close()

	req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Origin", "https://evil.example")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode)
	// Output: 403
}
