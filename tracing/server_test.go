//go:build !js && !wasip1

// The port's MCP server continues the trace a session sends: its server
// span has the session's trace id and the session's MCP client span as its
// parent. The parent comes from params._meta, else from the traceparent
// header; an invalid trace context is ignored (a new root), never an error.

package tracing_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentwasm/agentwasm/serve"
	"github.com/agentwasm/agentwasm/serve/mcpserver"
	"github.com/agentwasm/agentwasm/session"
	"github.com/agentwasm/agentwasm/tracing"
)

// shopGraph is a port with one page and one action.
const shopGraph = `{"id":"shop","pages":[{"id":"cart"}],"actions":[{"id":"cart.add","does":"Add an item","on":"cart"}]}`

// startPort serves a port of shopGraph over Streamable HTTP, its MCP
// server traced with tracer, and returns its URL.
func startPort(t *testing.T, tracer trace.Tracer) string {
	t.Helper()
	g, err := serve.ParseGraph([]byte(shopGraph))
	require.NoError(t, err)
	app, err := serve.NewApp(g, serve.AppOptions{})
	require.NoError(t, err)
	d, _, err := serve.NewMCPServer(app, serve.MCPServerOptions{Sessions: true, Tracer: tracing.MCPServer(tracer)})
	require.NoError(t, err)
	srv := httptest.NewServer(mcpserver.NewHandler(d, mcpserver.HandlerOptions{}))
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv.URL + "/mcp"
}

func TestTraceContinuesInPortMCPServer(t *testing.T) {
	tracer, rec := recorder(t)
	url := startPort(t, tracer)
	model := session.NewScriptedTransport(
		session.ToolCallRound(session.ToolCall{ID: "call-1", Name: "shop.whats_here", Args: json.RawMessage(`{}`)}),
		session.TextRound("You are at the cart."),
	)
	s, err := session.New(session.Options{
		Transport: model, MCPURL: url, StudioTools: &session.ToolPolicy{Allowlist: []string{"shop.whats_here"}},
		Tracer: tracing.Session(tracer),
	})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	turn := s.Chat(ctx, "Where am I?")
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	require.Len(t, turn.ToolCalls, 1)
	require.True(t, turn.ToolCalls[0].OK, turn.ToolCalls[0].ErrorMessage)
	require.NoError(t, s.Close())

	spans := rec.Ended()
	turnSpan := spanNamed(spans, "invoke_agent")
	require.Len(t, turnSpan, 1)
	var client, server sdktrace.ReadOnlySpan
	for _, sp := range spanNamed(spans, "tools/call shop.whats_here") {
		switch sp.SpanKind() {
		case trace.SpanKindClient:
			client = sp
		case trace.SpanKindServer:
			server = sp
		}
	}
	require.NotNil(t, client, "the session's MCP client span")
	require.NotNil(t, server, "the port's MCP server span")
	assert.Equal(t, turnSpan[0].SpanContext().TraceID(), server.SpanContext().TraceID(), "the server span is in the session's trace")
	assert.Equal(t, client.SpanContext().SpanID(), server.Parent().SpanID(), "the server span's parent is the client span")
	assert.True(t, server.Parent().IsRemote())
	for _, kv := range []struct{ key, want string }{
		{"mcp.method.name", "tools/call"}, {"gen_ai.tool.name", "shop.whats_here"}, {"gen_ai.operation.name", "execute_tool"},
	} {
		v, ok := attr(server, kv.key)
		assert.True(t, ok, kv.key)
		assert.Equal(t, kv.want, v.AsString(), kv.key)
	}
	id, ok := attr(server, "jsonrpc.request.id")
	assert.True(t, ok)
	cid, _ := attr(client, "jsonrpc.request.id")
	assert.Equal(t, cid.AsString(), id.AsString(), "the client's request id")

	// Every request the session sent (discovery's too) continued its
	// client span on the server.
	clients := map[trace.SpanID]string{}
	for _, sp := range spans {
		if sp.SpanKind() == trace.SpanKindClient && !strings.HasPrefix(sp.Name(), "chat") {
			clients[sp.SpanContext().SpanID()] = sp.Name()
		}
	}
	servers := 0
	for _, sp := range spans {
		if sp.SpanKind() == trace.SpanKindServer {
			servers++
			assert.Equal(t, sp.Name(), clients[sp.Parent().SpanID()], "%s: the parent is its client span", sp.Name())
		}
	}
	assert.Equal(t, len(clients), servers)
}

func TestMCPServerParent(t *testing.T) {
	const (
		metaParent   = "00-11111111111111111111111111111111-2222222222222222-01"
		headerParent = "00-33333333333333333333333333333333-4444444444444444-01"
		broken       = "00-not-a-trace-context"
	)
	cases := []struct {
		name         string
		meta, header string // "" sends none
		want         string // the parent's traceparent; "" a new root
	}{
		{"params._meta", metaParent, "", metaParent},
		{"params._meta before the header", metaParent, headerParent, metaParent},
		{"the header", "", headerParent, headerParent},
		{"a broken _meta: the header", broken, headerParent, headerParent},
		{"none: a new root", "", "", ""},
		{"a broken header: a new root", "", broken, ""},
		{"both broken: a new root", broken, broken, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tracer, rec := recorder(t)
			url := startPort(t, tracer)
			meta := `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`
			if c.meta != "" {
				meta += `,"traceparent":"` + c.meta + `","tracestate":"vendor=1"`
			}
			meta += "}"
			body := `{"jsonrpc":"2.0","id":"req-7","method":"tools/call","params":{"name":"shop.whats_here","arguments":{},"_meta":` + meta + `}}`
			req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
			require.NoError(t, err)
			for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
				"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "shop.whats_here"} {
				req.Header.Set(k, v)
			}
			if c.header != "" {
				req.Header.Set("traceparent", c.header)
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			answer, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.Equal(t, http.StatusOK, resp.StatusCode, "an invalid trace context is never an error: %s", answer)
			assert.NotContains(t, string(answer), `"error"`)

			spans := rec.Ended()
			require.Len(t, spans, 1)
			sp := spans[0]
			assert.Equal(t, "tools/call shop.whats_here", sp.Name())
			assert.Equal(t, trace.SpanKindServer, sp.SpanKind())
			id, _ := attr(sp, "jsonrpc.request.id")
			assert.Equal(t, "req-7", id.AsString())
			if c.want == "" {
				assert.False(t, sp.Parent().IsValid(), "a new root")
				return
			}
			parent := "00-" + sp.Parent().TraceID().String() + "-" + sp.Parent().SpanID().String() + "-01"
			assert.Equal(t, c.want, parent)
			assert.Equal(t, sp.Parent().TraceID(), sp.SpanContext().TraceID())
			assert.True(t, sp.Parent().IsRemote())
		})
	}
}
