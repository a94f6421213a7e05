//go:build !js && !wasip1

// The span tree of one turn, pinned whole: a page tool, an MCP tool that
// meets a conflict and is retried, a page tool that asks for a person, and
// the Resume that approves it; and the trace context the chat and MCP
// requests carried on the wire.

package tracing_test

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentwasm/agentwasm/session"
	"github.com/agentwasm/agentwasm/testing/fakemcp"
	"github.com/agentwasm/agentwasm/tracing"
)

func TestTurnSpanTree(t *testing.T) {
	tracer, rec := recorder(t)
	st := startStudio(t, turnScript(`{"region":"north"}`), &fakemcp.Server{Era: fakemcp.Session, Tools: composition, Call: conflictOnce("stale generation")})
	runTurn(t, st, "Filter the map, zoom in and pay.", session.Options{Kit: &pageKit{}, Tracer: tracing.Session(tracer)})
	spans := rec.Ended()

	got := tree(spans, func(kv attribute.KeyValue) (string, bool) {
		switch kv.Key {
		case "server.port":
			return "PORT", true
		case "gen_ai.response.time_to_first_chunk":
			assert.GreaterOrEqual(t, kv.Value.AsFloat64(), 0.0)
			return "SECONDS", true
		}
		return "", true
	})
	assert.Equal(t, wantTree, got)

	// One trace, from the send to the resume.
	for _, s := range spans {
		assert.Equal(t, spans[0].SpanContext().TraceID(), s.SpanContext().TraceID(), s.Name())
	}

	// Each chat request carried its chat span's trace context.
	chats := spanNamed(spans, "chat fake-model")
	reqs := st.proxy.ChatRequests()
	require.Len(t, reqs, len(chats))
	for i, r := range reqs {
		assert.Equal(t, traceparent(chats[i]), r.Header.Get("Traceparent"), "chat request %d", i+1)
	}

	// Each MCP request carried its client span's, in the header and in
	// params._meta (the stateless-era probe's own _meta keys kept); the
	// DELETE that ends the session is not traced.
	var clients []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if s.SpanKind() == trace.SpanKindClient && !strings.HasPrefix(s.Name(), "chat") {
			clients = append(clients, s)
		}
	}
	sort.SliceStable(clients, func(i, j int) bool { return clients[i].StartTime().Before(clients[j].StartTime()) })
	var posts []fakemcp.Request
	for _, r := range st.mcp.Requests() {
		if r.HTTPMethod == http.MethodPost {
			posts = append(posts, r)
		} else {
			assert.Empty(t, r.Header.Get("Traceparent"), r.HTTPMethod)
		}
	}
	require.Len(t, posts, len(clients))
	for i, r := range posts {
		want := traceparent(clients[i])
		assert.Equal(t, clients[i].Name(), mcpName(r.RPC), "request %d", i+1)
		assert.Equal(t, want, r.Header.Get("Traceparent"), "%s: header", clients[i].Name())
		meta := fakemcp.Meta(r.RPC)
		var got string
		require.NoError(t, json.Unmarshal(meta["traceparent"], &got), "%s: _meta %v", clients[i].Name(), meta)
		assert.Equal(t, want, got, "%s: params._meta.traceparent", clients[i].Name())
		if r.RPC.Method == "server/discover" {
			assert.Contains(t, meta, "io.modelcontextprotocol/protocolVersion", "the probe's own _meta is kept")
		}
	}
}

// mcpName is the span name of an MCP request: its method, and the tool of
// a tools/call.
func mcpName(m fakemcp.RPCMessage) string {
	var p struct {
		Name string `json:"name"`
	}
	if m.Method == "tools/call" && json.Unmarshal(m.Params, &p) == nil {
		return m.Method + " " + p.Name
	}
	return m.Method
}

// wantTree is the turn's span tree, as tree renders it.
const wantTree = `invoke_agent [internal]
  agentwasm.turn.kind="send"
  agentwasm.turn.rounds=2
  agentwasm.turn.status="completed"
  gen_ai.operation.name="invoke_agent"
  gen_ai.provider.name="agentwasm.studio_proxy"
  gen_ai.request.model="fake-model"
  gen_ai.usage.input_tokens=200
  gen_ai.usage.output_tokens=40
  @agentwasm.approval.requested
    agentwasm.approval.action="cart.pay"
    agentwasm.approval.ask_id="ask-1"
    gen_ai.tool.call.id="call-3"
    gen_ai.tool.name="pay"
  discover_tools [internal]
    agentwasm.discovery.discovered=1
    agentwasm.discovery.pages=1
    agentwasm.discovery.routed=1
    server/discover [client] ERROR "mcp: server/discover: error -32000: Bad Request: No valid session ID provided"
      error.type="-32000"
      jsonrpc.request.id="1"
      mcp.method.name="server/discover"
      mcp.protocol.version="2026-07-28"
      network.protocol.name="http"
      rpc.response.status_code="-32000"
      server.address="127.0.0.1"
      server.port=PORT
    initialize [client]
      jsonrpc.request.id="2"
      mcp.method.name="initialize"
      mcp.session.id="session-1"
      network.protocol.name="http"
      server.address="127.0.0.1"
      server.port=PORT
    notifications/initialized [client]
      mcp.method.name="notifications/initialized"
      mcp.protocol.version="2025-11-25"
      mcp.session.id="session-1"
      network.protocol.name="http"
      server.address="127.0.0.1"
      server.port=PORT
    tools/list [client]
      jsonrpc.request.id="3"
      mcp.method.name="tools/list"
      mcp.protocol.version="2025-11-25"
      mcp.session.id="session-1"
      network.protocol.name="http"
      server.address="127.0.0.1"
      server.port=PORT
  chat fake-model [client]
    agentwasm.round=1
    gen_ai.operation.name="chat"
    gen_ai.provider.name="agentwasm.studio_proxy"
    gen_ai.request.model="fake-model"
    gen_ai.request.stream=true
    gen_ai.response.finish_reasons=["tool_calls"]
    gen_ai.response.model="fake-model-2025"
    gen_ai.response.time_to_first_chunk=SECONDS
    gen_ai.usage.input_tokens=100
    gen_ai.usage.output_tokens=20
    server.address="127.0.0.1"
    server.port=PORT
  execute_tool setFilter [internal]
    agentwasm.tool.outcome="ok"
    agentwasm.tool.plane="runtime"
    gen_ai.operation.name="execute_tool"
    gen_ai.tool.call.id="call-1"
    gen_ai.tool.name="setFilter"
    gen_ai.tool.type="function"
  execute_tool honua_studio_set_view [internal]
    agentwasm.tool.outcome="ok"
    agentwasm.tool.plane="composition"
    agentwasm.tool.retried_after_conflict=true
    gen_ai.operation.name="execute_tool"
    gen_ai.tool.call.id="call-2"
    gen_ai.tool.name="honua_studio_set_view"
    gen_ai.tool.type="extension"
    @agentwasm.tool.conflict_retry
    tools/call honua_studio_set_view [client] ERROR "failed_precondition: stale generation"
      error.type="tool_error"
      gen_ai.operation.name="execute_tool"
      gen_ai.tool.name="honua_studio_set_view"
      jsonrpc.request.id="4"
      mcp.method.name="tools/call"
      mcp.protocol.version="2025-11-25"
      mcp.session.id="session-1"
      network.protocol.name="http"
      server.address="127.0.0.1"
      server.port=PORT
    tools/call honua_studio_get_draft [client]
      gen_ai.operation.name="execute_tool"
      gen_ai.tool.name="honua_studio_get_draft"
      jsonrpc.request.id="5"
      mcp.method.name="tools/call"
      mcp.protocol.version="2025-11-25"
      mcp.session.id="session-1"
      network.protocol.name="http"
      server.address="127.0.0.1"
      server.port=PORT
    tools/call honua_studio_set_view [client]
      gen_ai.operation.name="execute_tool"
      gen_ai.tool.name="honua_studio_set_view"
      jsonrpc.request.id="6"
      mcp.method.name="tools/call"
      mcp.protocol.version="2025-11-25"
      mcp.session.id="session-1"
      network.protocol.name="http"
      server.address="127.0.0.1"
      server.port=PORT
  chat fake-model [client]
    agentwasm.round=2
    gen_ai.operation.name="chat"
    gen_ai.provider.name="agentwasm.studio_proxy"
    gen_ai.request.model="fake-model"
    gen_ai.request.stream=true
    gen_ai.response.finish_reasons=["tool_calls"]
    gen_ai.response.model="fake-model-2025"
    gen_ai.response.time_to_first_chunk=SECONDS
    gen_ai.usage.input_tokens=100
    gen_ai.usage.output_tokens=20
    server.address="127.0.0.1"
    server.port=PORT
  execute_tool pay [internal]
    agentwasm.approval.ask_id="ask-1"
    agentwasm.tool.outcome="ok"
    agentwasm.tool.plane="runtime"
    gen_ai.operation.name="execute_tool"
    gen_ai.tool.call.id="call-3"
    gen_ai.tool.name="pay"
    gen_ai.tool.type="function"
  await_approval cart.pay [internal]
    agentwasm.approval.action="cart.pay"
    agentwasm.approval.ask_id="ask-1"
    agentwasm.approval.outcome="approved"
    gen_ai.tool.call.id="call-3"
    gen_ai.tool.name="pay"
    invoke_agent [internal]
      agentwasm.turn.kind="resume"
      agentwasm.turn.rounds=1
      agentwasm.turn.status="completed"
      gen_ai.operation.name="invoke_agent"
      gen_ai.provider.name="agentwasm.studio_proxy"
      gen_ai.request.model="fake-model"
      gen_ai.usage.input_tokens=150
      gen_ai.usage.output_tokens=5
      @agentwasm.approval.answered
        agentwasm.approval.approved=true
        agentwasm.approval.ask_id="ask-1"
      chat fake-model [client]
        agentwasm.round=1
        gen_ai.operation.name="chat"
        gen_ai.provider.name="agentwasm.studio_proxy"
        gen_ai.request.model="fake-model"
        gen_ai.request.stream=true
        gen_ai.response.finish_reasons=["stop"]
        gen_ai.response.model="fake-model-2025"
        gen_ai.response.time_to_first_chunk=SECONDS
        gen_ai.usage.input_tokens=150
        gen_ai.usage.output_tokens=5
        server.address="127.0.0.1"
        server.port=PORT
`
