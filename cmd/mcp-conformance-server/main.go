// Command mcp-conformance-server is the server under test for the official
// MCP conformance suite's server scenarios (@modelcontextprotocol/conformance,
// run by `make conformance`). It serves mcpserver.Dispatcher through
// mcpserver.NewHandler, the same code a port's MCP server runs, over a fixed
// tool set: the tools the suite's scenarios call (simple text, image, audio,
// embedded resource, mixed content, an error, progress notifications, a JSON
// Schema 2020-12 input schema, an x-mcp-header parameter, and the
// stateless-era diagnostics), plus empty prompt and resource lists so the
// caching hints can be read there.
//
//	mcp-conformance-server -addr 127.0.0.1:8931 -era both
//
// It prints "listening on http://ADDR/mcp" once it accepts connections.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/agentwasm/agentwasm/internal/mcp"
	"github.com/agentwasm/agentwasm/internal/wire"
	"github.com/agentwasm/agentwasm/serve/mcpserver"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8931", "listen address (host:port; port 0 picks one)")
	era := flag.String("era", "both", "which MCP eras to serve: both, session (2025-03-26 … 2025-11-25) or stateless (2026-07-28)")
	sessions := flag.Bool("sessions", true, "issue Mcp-Session-Id on initialize (session era)")
	flag.Parse()
	switch *era {
	case "both", "session", "stateless":
	default:
		fmt.Fprintf(os.Stderr, "mcp-conformance-server: -era must be both, session or stateless, not %q\n", *era)
		os.Exit(2)
	}
	d := mcpserver.New(fixture{}, mcpserver.Options{
		Name:         "agentwasm-conformance-server",
		Version:      "1.0.0",
		Sessions:     *sessions,
		Era:          *era,
		Capabilities: []byte(`{"tools":{"listChanged":false},"prompts":{"listChanged":false},"resources":{"listChanged":false,"subscribe":false}}`),
		Methods: map[string]mcpserver.Method{
			mcp.MethodPromptsList:            constant(`{"prompts":[]}`),
			mcp.MethodResourcesList:          constant(`{"resources":[]}`),
			mcp.MethodResourcesTemplatesList: constant(`{"resourceTemplates":[]}`),
		},
	})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcp-conformance-server:", err)
		os.Exit(1)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpserver.NewHandler(d, mcpserver.HandlerOptions{}))
	fmt.Printf("listening on http://%s/mcp\n", ln.Addr())
	if err := http.Serve(ln, mux); err != nil {
		fmt.Fprintln(os.Stderr, "mcp-conformance-server:", err)
		os.Exit(1)
	}
}

// constant answers a method with a fixed result.
func constant(result string) mcpserver.Method {
	return func(context.Context, []byte) ([]byte, *mcpserver.Error) { return []byte(result), nil }
}

// A 1×1 PNG and a tiny WAV, base64.
const (
	pngData = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	wavData = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA="
)

// tools is the fixture's tools/list array; the first tool answers a call
// with no arguments (the header-validation scenario calls it so).
const tools = `[` +
	`{"name":"test_simple_text","description":"Returns a fixed text block.","inputSchema":{"type":"object","properties":{}}},` +
	`{"name":"test_image_content","description":"Returns a 1x1 PNG image.","inputSchema":{"type":"object","properties":{}}},` +
	`{"name":"test_audio_content","description":"Returns a short WAV clip.","inputSchema":{"type":"object","properties":{}}},` +
	`{"name":"test_embedded_resource","description":"Returns an embedded text resource.","inputSchema":{"type":"object","properties":{}}},` +
	`{"name":"test_multiple_content_types","description":"Returns text, an image and a resource.","inputSchema":{"type":"object","properties":{}}},` +
	`{"name":"test_error_handling","description":"Always fails with a tool error.","inputSchema":{"type":"object","properties":{}}},` +
	`{"name":"test_tool_with_progress","description":"Takes about 100 ms, reporting progress 0, 50 and 100 of 100 when the call carries a progressToken.","inputSchema":{"type":"object","properties":{}}},` +
	`{"name":"json_schema_2020_12_tool","description":"Takes an input described with JSON Schema 2020-12 keywords.","inputSchema":{` +
	`"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
	`"$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},` +
	`"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},` +
	`"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],` +
	`"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"then":{"required":["phone"]},"else":{"required":["email"]},` +
	`"additionalProperties":false}},` +
	`{"name":"test_custom_header","description":"Echoes its region, which the stateless era mirrors into the Mcp-Param-Region header.","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}},` +
	`{"name":"test_missing_capability","description":"Needs the client's sampling capability.","inputSchema":{"type":"object","properties":{}}},` +
	`{"name":"test_streaming_elicitation","description":"Answers at once, without asking the client anything.","inputSchema":{"type":"object","properties":{}}},` +
	`{"name":"test_logging_tool","description":"Answers without sending log messages unless a log level was asked for.","inputSchema":{"type":"object","properties":{}}}` +
	`]`

// fixture is the ToolServer of the conformance runs.
type fixture struct{}

// ListTools returns the fixed tool array.
func (fixture) ListTools() []byte { return []byte(tools) }

// CallTool runs a tool (the dispatcher calls HandleToolCall instead).
func (f fixture) CallTool(ctx context.Context, name string, args []byte) []byte {
	res, _ := f.HandleToolCall(ctx, mcpserver.ToolCall{Name: name, Arguments: args})
	return res
}

// HandleToolCall runs a tool with the request's era and client capabilities.
func (fixture) HandleToolCall(ctx context.Context, call mcpserver.ToolCall) ([]byte, *mcpserver.Error) {
	switch call.Name {
	case "test_simple_text":
		return text("This is a simple text response for testing."), nil
	case "test_image_content":
		return []byte(`{"content":[{"type":"image","data":"` + pngData + `","mimeType":"image/png"}]}`), nil
	case "test_audio_content":
		return []byte(`{"content":[{"type":"audio","data":"` + wavData + `","mimeType":"audio/wav"}]}`), nil
	case "test_embedded_resource":
		return []byte(`{"content":[{"type":"resource","resource":{"uri":"test://embedded-resource","mimeType":"text/plain","text":"This is an embedded resource content."}}]}`), nil
	case "test_multiple_content_types":
		return []byte(`{"content":[{"type":"text","text":"Multiple content types test:"},` +
			`{"type":"image","data":"` + pngData + `","mimeType":"image/png"},` +
			`{"type":"resource","resource":{"uri":"test://mixed-content-resource","mimeType":"application/json","text":"{\"test\":\"data\",\"value\":123}"}}]}`), nil
	case "test_error_handling":
		return mcp.ToolResult("This tool intentionally returns an error for testing", nil, true), nil
	case "test_tool_with_progress":
		// 0/100, ~50 ms, 50/100, ~50 ms, 100/100 (without a token: just
		// the delays). Progress is nil when the call carried no token.
		progress := func(p float64) {
			if call.Progress != nil {
				call.Progress(p, 100, "")
			}
		}
		progress(0)
		for _, p := range []float64{50, 100} {
			select {
			case <-time.After(50 * time.Millisecond):
			case <-ctx.Done():
				return nil, &mcpserver.Error{Code: mcp.InternalError, Message: "cancelled: the request ended"}
			}
			progress(p)
		}
		return text("Progress reported: 0, 50 and 100 of 100."), nil
	case "json_schema_2020_12_tool":
		return text("Received the arguments."), nil
	case "test_custom_header":
		region := ""
		if fields, err := wire.ObjectFields(call.Arguments); err == nil {
			region, _ = wire.DecodeString(wire.GetField(fields, "region"))
		}
		return text("region: " + region), nil
	case "test_missing_capability":
		if !hasCapability(call.ClientCapabilities, "sampling") && call.Stateless {
			return nil, &mcpserver.Error{Code: mcp.MissingRequiredClientCapability, Message: "missing required client capability: sampling", Data: []byte(`{"requiredCapabilities":{"sampling":{}}}`)}
		}
		return text("The client declared sampling."), nil
	case "test_streaming_elicitation":
		return text("Nothing needed to be asked."), nil
	case "test_logging_tool":
		return text("Done, quietly."), nil
	}
	return mcp.ToolResult("unknown tool: "+call.Name, nil, true), nil
}

// text is a result of one text block.
func text(s string) []byte { return mcp.ToolResult(s, nil, false) }

// hasCapability reports whether a capabilities object has a member.
func hasCapability(caps []byte, name string) bool {
	fields, err := wire.ObjectFields(caps)
	if err != nil {
		return false
	}
	v := strings.TrimSpace(string(wire.GetField(fields, name)))
	return v != "" && v != "null"
}
