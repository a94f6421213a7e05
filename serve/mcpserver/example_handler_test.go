//go:build !js && !wasip1

// Example of the native Streamable HTTP handler: the dispatcher behind
// NewHandler answers a ping from no browser, and refuses a foreign Origin.

package mcpserver_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/agentwasm/agentwasm/serve/mcpserver"
)

// NewHandler serves a dispatcher over Streamable HTTP: a request without an
// Origin is answered, one from a foreign origin is refused 403 (DNS
// rebinding protection).
func ExampleNewHandler() {
	d := mcpserver.New(greeter{}, mcpserver.Options{})
	srv := httptest.NewServer(mcpserver.NewHandler(d, mcpserver.HandlerOptions{}))
	defer srv.Close()

	for _, origin := range []string{"", "https://evil.example"} {
		req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Println(err)
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println(resp.StatusCode, strings.TrimSpace(string(body)))
	}
	// Output:
	// 200 {"jsonrpc":"2.0","id":1,"result":{}}
	// 403 {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"forbidden: Origin \"https://evil.example\" may not call this server"}}
}
