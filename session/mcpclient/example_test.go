//go:build !js && !wasip1

// An example of the client's main API: list the tools, call one.

package mcpclient_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/session/mcpclient"
	"github.com/agentwasm/agentwasm/testing/fakemcp"
)

// A client lists a server's tools and calls one. The server here is a
// fake that speaks the session era; Era would be left at EraAuto for a
// server of either era.
func Example() {
	srv := httptest.NewServer(&fakemcp.Server{Era: fakemcp.Session, Tools: []json.RawMessage{
		json.RawMessage(`{"name":"echo","inputSchema":{"type":"object"}}`),
	}})
	defer srv.Close()

	c, err := mcpclient.New(mcpclient.Config{
		URL:     srv.URL + "/mcp",
		Fetcher: &bridge.HTTPFetcher{Client: srv.Client()},
		Auth:    staticToken("token-abcdef"),
		Era:     mcpclient.EraSession,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()

	ctx := context.Background()
	tools, err := c.ListTools(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range tools {
		fmt.Println("tool:", t.Name)
	}
	res, err := c.CallTool(ctx, "echo", []byte(`{"text":"hi"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("isError:", res.IsError, "era:", c.Era())
	// Output:
	// tool: echo
	// isError: false era: session
}

// staticToken is a TokenSource that always gives the same token.
type staticToken string

func (t staticToken) AccessToken(context.Context, bool) (string, error) { return string(t), nil }
