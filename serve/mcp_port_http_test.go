//go:build !js && !wasip1

// The port's MCP server behind the native Streamable HTTP handler
// (mcpserver.NewHandler), in both eras: a confirm step answers needs-confirm
// in the session era, and the confirmed call fires in the stateless era.

package serve

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentwasm/agentwasm/serve/mcpserver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// post sends one JSON-RPC POST; kv are extra headers.
func post(t *testing.T, url, body string, kv ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(kv); i += 2 {
		req.Header.Set(kv[i], kv[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}

// newHTTPForDispatcher serves d on a loopback test server and returns its URL.
func newHTTPForDispatcher(t *testing.T, d *mcpserver.Dispatcher) string {
	srv := httptest.NewServer(mcpserver.NewHandler(d, mcpserver.HandlerOptions{}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestMCPPortOverHTTPBothEras(t *testing.T) {
	d, _, _ := mcpShop(t, time.Second, nil)
	srv := newHTTPForDispatcher(t, d)
	resp, _ := post(t, srv, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	require.Equal(t, 200, resp.StatusCode)
	resp, body := post(t, srv, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"shop.do_action","arguments":{"action":"cart.pay"}}}`, "MCP-Protocol-Version", "2025-11-25")
	require.Equal(t, 200, resp.StatusCode)
	assert.Contains(t, body, `needs-confirm`)
	assert.NotContains(t, body, `"isError"`)

	resp, body = post(t, srv, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"shop.do_action","arguments":{"action":"cart.pay","confirm":true},`+statelessMeta+`}}`,
		"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "shop.do_action")
	require.Equal(t, 200, resp.StatusCode, body)
	var env struct {
		Result struct {
			ResultType        string         `json:"resultType"`
			StructuredContent map[string]any `json:"structuredContent"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &env))
	assert.Equal(t, "complete", env.Result.ResultType)
	assert.Equal(t, "performed", env.Result.StructuredContent["effectStatus"])
}
