// Command mcp-conformance-client is the client under test for the official
// MCP conformance suite (@modelcontextprotocol/conformance, run by
// `make conformance`). It is a thin program over mcpclient.Client.
//
// The suite runs it as `mcp-conformance-client <server-url>` with the
// environment variables MCP_CONFORMANCE_SCENARIO (the scenario name) and
// MCP_CONFORMANCE_PROTOCOL_VERSION (the spec revision the scenario runs at;
// through 2025-11-25 the client speaks the session era with the initialize
// handshake, from 2026-07-28 the stateless era, found with server/discover).
// It runs the scenario's steps and exits 0, or prints what failed to stderr
// and exits 1; an unknown scenario exits 2.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/internal/mcp"
	"github.com/agentwasm/agentwasm/session/mcpclient"
)

// scenarios maps a scenario name to its steps.
var scenarios = map[string]func(ctx context.Context, c *mcpclient.Client) error{
	"initialize":       listTools,
	"request-metadata": listTools,
	"tools_call":       toolsCall,
	"sse-retry":        sseRetry,
}

func main() {
	if len(os.Args) < 2 {
		fail(2, "usage: mcp-conformance-client <server-url> (with MCP_CONFORMANCE_SCENARIO set)")
	}
	url := os.Args[len(os.Args)-1]
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	version := os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION")
	run, ok := scenarios[scenario]
	if !ok {
		fail(2, fmt.Sprintf("scenario %q is not supported by this client (supported: initialize, tools_call, sse-retry, request-metadata)", scenario))
	}
	// The lifecycle follows the requested revision: the session era
	// (initialize) through 2025-11-25; from 2026-07-28 the auto era, which
	// starts with server/discover and speaks the stateless era. When the
	// server rejects the discover with UnsupportedProtocolVersion, the era
	// comes from the versions the error lists, and the next request carries
	// a version the server supports (what request-metadata checks).
	era := mcpclient.EraSession
	if version >= mcp.Version20260728 {
		era = mcpclient.EraAuto
	}
	c, err := mcpclient.New(mcpclient.Config{
		URL:           url,
		Fetcher:       &mcpclient.ResumingFetcher{Fetcher: &bridge.HTTPFetcher{}},
		Era:           era,
		ClientName:    "agentwasm-conformance-client",
		ClientVersion: "0.1.0",
	})
	if err != nil {
		fail(1, err.Error())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	err = run(ctx, c)
	spoken := c.Era() // Close forgets it
	if cerr := c.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("closing the session: %w", cerr)
	}
	if err != nil {
		fail(1, fmt.Sprintf("scenario %s (era %s): %v", scenario, spoken, err))
	}
	fmt.Printf("scenario %s: ok (protocol %s, era %s)\n", scenario, version, spoken)
}

// listTools connects (initialize or discover) and lists the tools.
func listTools(ctx context.Context, c *mcpclient.Client) error {
	tools, err := c.ListTools(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("listed %d tools\n", len(tools))
	return nil
}

// toolsCall lists the tools and calls add_numbers.
func toolsCall(ctx context.Context, c *mcpclient.Client) error {
	if err := need(ctx, c, "add_numbers"); err != nil {
		return err
	}
	res, err := c.CallTool(ctx, "add_numbers", json.RawMessage(`{"a":5,"b":3}`))
	if err != nil {
		return err
	}
	text := string(res.Content)
	if !strings.Contains(text, "8") {
		return fmt.Errorf("add_numbers(5, 3) answered %s, without the sum 8", text)
	}
	fmt.Printf("add_numbers: %s\n", text)
	return nil
}

// sseRetry lists the tools and calls test_reconnection, whose event stream
// the server ends before the answer; mcpclient.ResumingFetcher reconnects.
func sseRetry(ctx context.Context, c *mcpclient.Client) error {
	if err := need(ctx, c, "test_reconnection"); err != nil {
		return err
	}
	res, err := c.CallTool(ctx, "test_reconnection", nil)
	if err != nil {
		return err
	}
	fmt.Printf("test_reconnection: %s\n", res.Content)
	return nil
}

// need lists the tools and checks that name is among them.
func need(ctx context.Context, c *mcpclient.Client, name string) error {
	tools, err := c.ListTools(ctx)
	if err != nil {
		return err
	}
	for _, t := range tools {
		if t.Name == name {
			return nil
		}
	}
	return errors.New("the server does not list the tool " + name)
}

// fail prints msg to stderr and exits with code.
func fail(code int, msg string) {
	fmt.Fprintln(os.Stderr, "mcp-conformance-client: "+msg)
	os.Exit(code)
}
