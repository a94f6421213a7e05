// POST /api/demo/reset: the demo page's "New conversation" puts the demo
// MCP server back as it started (no drafts, the first catalog), so the
// draft conflict and the list-changed moment happen again.

package main

import (
	"encoding/json"
	"io"
	"net/http"

	"github.com/agentwasm/agentwasm/cmd/agentwasm/internal/demomcp"
)

// demoResetPath is where the demo page resets the demo MCP server.
const demoResetPath = "/api/demo/reset"

// maxResetBody bounds the reset's body: it is `{}`.
const maxResetBody = 4 << 10

// demoResetHandler answers a POST of a JSON object (`{}`; its members are
// ignored) by resetting mcp (demomcp.Server.Reset) with `{"reset":true}`.
// Another method is 405 and a body that is not a JSON object 400, each
// with {"error":{code,message}}. It sits behind the /api origin policy,
// which refuses other origins' pages and non-JSON posts first; the
// scripted model keeps nothing between requests, so there is nothing
// else to reset.
func demoResetHandler(mcp *demomcp.Server) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			apiError(w, http.StatusMethodNotAllowed, "method_not_allowed", "POST {} to "+demoResetPath+" to reset the demo server's drafts and catalog")
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxResetBody))
		var obj map[string]json.RawMessage
		if err != nil || json.Unmarshal(body, &obj) != nil || obj == nil {
			apiError(w, http.StatusBadRequest, "invalid_request", "the body must be a JSON object of at most 4 KiB: POST {} to reset")
			return
		}
		mcp.Reset()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-cache") // not no-store: Chromium reports a no-store answer read through a stream as aborted
		_, _ = w.Write([]byte(`{"reset":true}`))
	})
}
