// Examples of `agentwasm chat`.

package main

import (
	"fmt"
	"io"
	"net/http/httptest"
	"os"
)

// One turn against the dev server's scripted model and demo MCP server: the
// tool calls as they happen, then the streamed text, on stdout. (The line
// saying how the turn ended goes to stderr, discarded here.)
func Example_chat() {
	srv := httptest.NewServer(newDevHandler(devOptions{WebDir: os.TempDir(), DistDir: os.TempDir()}))
	defer srv.Close()

	code := run([]string{"chat", "--base-url", srv.URL + "/api", "add a schools layer"}, os.Stdout, io.Discard)
	fmt.Println("exit", code)
	// Output:
	// [tool] honua_studio_create_draft {"title":"Demo map"} (MCP) ok, draft d-1 at generation 1: {"status":"ok","draft":{"draftId":"d-1","generation":1}}
	// [tool] honua_studio_add_layer {"layer":"schools"} (MCP) ok, draft d-1 at generation 3, retried after a conflict: {"status":"ok","draft":{"draftId":"d-1","generation":3}}
	// Added the schools layer to draft d-1, which is now at generation 3.
	// exit 0
}
