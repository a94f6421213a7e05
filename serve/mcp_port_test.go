// Tests of the port over MCP: results as text and structuredContent, an
// unknown tool as the JSON-RPC error -32602 (while port.call keeps its
// UNKNOWN_TOOL result), needs-confirm and approval-required as ordinary
// results, confirm then firing, handler data, and the settlement fold
// (settled within the ceiling, a miss, a fire that never settles, a ceiling
// of 0, a cancelled call).

package serve

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/agentwasm/agentwasm/serve/mcpserver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const mcpShopGraph = `{"id":"shop","pages":[{"id":"cart"},{"id":"done"}],"actions":[` +
	`{"id":"cart.pay","does":"Pay for the cart","on":"cart","goTo":"done","confirm":true,"writes":["order.id"]},` +
	`{"id":"cart.add","does":"Add an item","on":"cart","input":{"type":"object","properties":{"sku":{"type":"string"}},"required":["sku"]}},` +
	`{"id":"cart.slow","does":"Takes its time","on":"cart"},` +
	`{"id":"cart.fail","does":"Always fails","on":"cart"}]}`

// statelessMeta is the _meta of a stateless-era (2026-07-28) request.
const statelessMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// rpc decodes an answer for assertions.
type rpc struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  map[string]any  `json:"result"`
	Error   *struct {
		Code    int            `json:"code"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	} `json:"error"`
}

// decodeRPC decodes one JSON-RPC answer and checks its version.
func decodeRPC(t *testing.T, b []byte) rpc {
	t.Helper()
	var r rpc
	require.NoError(t, json.Unmarshal(b, &r), "answer: %s", b)
	require.Equal(t, "2.0", r.JSONRPC)
	return r
}

// mcpShop builds an MCP server over the shop graph. release unblocks
// cart.slow (closing it lets every slow fire finish).
func mcpShop(t *testing.T, within time.Duration, approval *bool) (*mcpserver.Dispatcher, *Port, chan struct{}) {
	t.Helper()
	g, err := ParseGraph([]byte(mcpShopGraph))
	require.NoError(t, err)
	release := make(chan struct{})
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	app, err := NewApp(g, AppOptions{RequireHumanApproval: approval, Handlers: map[string]Handler{
		"cart.pay": func(context.Context, HandlerCall) (any, error) { return map[string]any{"receipt": "r-1"}, nil },
		"cart.add": func(_ context.Context, c HandlerCall) (any, error) {
			return map[string]any{"added": c.Input, "count": 3}, nil
		},
		"cart.slow": func(context.Context, HandlerCall) (any, error) { <-release; return "late", nil },
		"cart.fail": func(context.Context, HandlerCall) (any, error) { return nil, errors.New("card declined") },
	}})
	require.NoError(t, err)
	d, p, err := NewMCPServer(app, MCPServerOptions{SettleWithin: within, Version: "9"})
	require.NoError(t, err)
	return d, p, release
}

// toolResult is a decoded CallToolResult.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent map[string]any `json:"structuredContent"`
	IsError           bool           `json:"isError"`
}

// callMCP sends tools/call through the dispatcher and checks the shape
// every result shares: one text block whose JSON is structuredContent.
func callMCP(t *testing.T, ctx context.Context, d *mcpserver.Dispatcher, name, args string) toolResult {
	t.Helper()
	resp := d.Handle(ctx, mcpserver.Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`)})
	require.Equal(t, 200, resp.Status, "answer: %s", resp.Body)
	var env struct {
		Result toolResult     `json:"result"`
		Error  map[string]any `json:"error"`
	}
	require.NoError(t, json.Unmarshal(resp.Body, &env))
	require.Nil(t, env.Error)
	r := env.Result
	require.Len(t, r.Content, 1)
	assert.Equal(t, "text", r.Content[0].Type)
	var fromText map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.Content[0].Text), &fromText))
	assert.Equal(t, r.StructuredContent, fromText, "text and structuredContent carry the same object")
	return r
}

func TestMCPPortToolsList(t *testing.T) {
	d, p, _ := mcpShop(t, 0, nil)
	req := mcpserver.Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)}
	first := d.Handle(context.Background(), req).Body
	for i := 0; i < 3; i++ {
		callMCP(t, context.Background(), d, "shop.do_action", `{"action":"cart.add","input":{"sku":"a"}}`)
		assert.Equal(t, string(first), string(d.Handle(context.Background(), req).Body), "byte-identical across calls")
	}
	assert.Contains(t, string(first), string(p.ToolsJSON()))
	init := decodeRPC(t, d.Handle(context.Background(), mcpserver.Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`)}).Body)
	assert.Equal(t, map[string]any{"name": "shop", "version": "9"}, init.Result["serverInfo"], "the name defaults to the graph id")
}

func TestMCPPortResults(t *testing.T) {
	d, p, _ := mcpShop(t, time.Second, nil)
	ctx := context.Background()

	t.Run("needs-confirm carries receipts and an askId, not isError", func(t *testing.T) {
		r := callMCP(t, ctx, d, "shop.do_action", `{"action":"cart.pay"}`)
		assert.False(t, r.IsError)
		sc := r.StructuredContent
		assert.Equal(t, "needs-confirm", sc["judgment"])
		assert.Equal(t, false, sc["performed"])
		assert.NotEmpty(t, sc["askId"])
		assert.Contains(t, sc, "willDo")
		assert.NotContains(t, sc, "transitionId")
	})
	t.Run("confirm then fires and the fold settles it", func(t *testing.T) {
		r := callMCP(t, ctx, d, "shop.do_action", `{"action":"cart.pay","confirm":true}`)
		assert.False(t, r.IsError)
		sc := r.StructuredContent
		assert.Equal(t, true, sc["ok"])
		assert.NotEmpty(t, sc["transitionId"])
		assert.Equal(t, "performed", sc["effectStatus"])
		assert.Equal(t, true, sc["settled"])
		assert.Equal(t, map[string]any{"receipt": "r-1"}, sc["data"])
		assert.NotContains(t, sc, "settleWith", "a settled result drops its pending pointer")
		assert.Equal(t, "done", sc["youAreOn"], "the goTo moved the page")
	})
	t.Run("an unknown tool is invalid params over MCP, UNKNOWN_TOOL in port.call", func(t *testing.T) {
		resp := d.Handle(ctx, mcpserver.Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shop.nope","arguments":{}}}`)})
		r := decodeRPC(t, resp.Body)
		require.NotNil(t, r.Error, "answer: %s", resp.Body)
		assert.Equal(t, mcpserver.InvalidParams, r.Error.Code)
		assert.Equal(t, []any{"shop.whats_here", "shop.why", "shop.do_action", "shop.did_it_work"}, r.Error.Data["validTools"])
		res := p.Call(ctx, "shop.nope", []byte(`{}`))
		assert.True(t, res.IsError())
		assert.Equal(t, ReasonUnknownTool, res.Reason())
	})
}

func TestMCPPortHandlerDataAndRefusal(t *testing.T) {
	d, _, _ := mcpShop(t, time.Second, nil)
	r := callMCP(t, context.Background(), d, "shop.do_action", `{"action":"cart.add","input":{"sku":"a-1"}}`)
	assert.False(t, r.IsError)
	assert.Equal(t, map[string]any{"added": map[string]any{"sku": "a-1"}, "count": float64(3)}, r.StructuredContent["data"])

	r = callMCP(t, context.Background(), d, "shop.do_action", `{"action":"cart.fail"}`)
	assert.False(t, r.IsError, "a refused fire is an ordinary result")
	assert.Equal(t, "refused", r.StructuredContent["effectStatus"])
	assert.Contains(t, r.StructuredContent["error"], "card declined")

	r = callMCP(t, context.Background(), d, "shop.do_action", `{"action":"cart.add","input":{"sku":5}}`)
	assert.False(t, r.IsError, "a refusal before firing is an ordinary result")
	assert.NotContains(t, r.StructuredContent, "transitionId")
}

func TestMCPPortApprovalRequiredIsNotError(t *testing.T) {
	yes := true
	d, p, _ := mcpShop(t, time.Second, &yes)
	r := callMCP(t, context.Background(), d, "shop.do_action", `{"action":"cart.pay","confirm":true}`)
	assert.False(t, r.IsError)
	assert.Equal(t, "needs-confirm", r.StructuredContent["judgment"])
	askID, _ := r.StructuredContent["askId"].(string)
	require.NotEmpty(t, askID)

	require.NoError(t, p.App().ApproveAsk(askID, "tester"))
	// Without a session the call has no identity: the approval counts only
	// for a call that cites its askId, and an uncited confirm uses nothing.
	r = callMCP(t, context.Background(), d, "shop.do_action", `{"action":"cart.pay","confirm":true}`)
	assert.False(t, r.IsError, "a refusal is an ordinary result")
	assert.Equal(t, ReasonAskIDRequired, r.StructuredContent["reason"])
	r = callMCP(t, context.Background(), d, "shop.do_action", `{"action":"cart.pay","confirm":true,"askId":"`+askID+`"}`)
	assert.False(t, r.IsError)
	assert.Equal(t, "performed", r.StructuredContent["effectStatus"], "after the human approved, confirm citing the ask fires")
}

func TestMCPPortSettlementFold(t *testing.T) {
	t.Run("a miss returns pending", func(t *testing.T) {
		d, p, release := mcpShop(t, 20*time.Millisecond, nil)
		start := time.Now()
		r := callMCP(t, context.Background(), d, "shop.do_action", `{"action":"cart.slow"}`)
		assert.Less(t, time.Since(start), 2*time.Second)
		sc := r.StructuredContent
		assert.Equal(t, "pending", sc["effectStatus"])
		assert.Contains(t, sc, "settleWith")
		assert.NotContains(t, sc, "settled")
		close(release)
		info, err := p.App().WaitSettled(context.Background(), sc["transitionId"].(string))
		require.NoError(t, err)
		assert.Equal(t, "performed", info.Status)
	})
	t.Run("a fire that never settles does not hang", func(t *testing.T) {
		d, _, _ := mcpShop(t, 50*time.Millisecond, nil)
		done := make(chan toolResult, 1)
		go func() { done <- callMCP(t, context.Background(), d, "shop.do_action", `{"action":"cart.slow"}`) }()
		select {
		case r := <-done:
			assert.Equal(t, "pending", r.StructuredContent["effectStatus"])
		case <-time.After(5 * time.Second):
			t.Fatal("tools/call hung on a fire that never settles")
		}
	})
	t.Run("a cancelled call stops waiting", func(t *testing.T) {
		d, _, _ := mcpShop(t, time.Hour, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
		defer cancel()
		start := time.Now()
		r := callMCP(t, ctx, d, "shop.do_action", `{"action":"cart.slow"}`)
		assert.Less(t, time.Since(start), 5*time.Second)
		assert.Equal(t, "pending", r.StructuredContent["effectStatus"])
	})
	t.Run("ceiling 0 never waits", func(t *testing.T) {
		g, err := ParseGraph([]byte(mcpShopGraph))
		require.NoError(t, err)
		release := make(chan struct{})
		defer close(release)
		app, err := NewApp(g, AppOptions{Handlers: map[string]Handler{
			"cart.add": func(context.Context, HandlerCall) (any, error) { <-release; return 1, nil },
		}})
		require.NoError(t, err)
		p, err := NewPort(app, PortOptions{})
		require.NoError(t, err)
		d := mcpserver.New(NewPortToolServer(p, 0), mcpserver.Options{})
		r := callMCP(t, context.Background(), d, "shop.do_action", `{"action":"cart.add","input":{"sku":"x"}}`)
		assert.Equal(t, "pending", r.StructuredContent["effectStatus"])
		assert.Contains(t, r.StructuredContent, "settleWith")
	})
	t.Run("negative SettleWithin means no wait", func(t *testing.T) {
		d, _, _ := mcpShop(t, -1, nil)
		start := time.Now()
		r := callMCP(t, context.Background(), d, "shop.do_action", `{"action":"cart.slow"}`)
		assert.Less(t, time.Since(start), 200*time.Millisecond)
		assert.Equal(t, "pending", r.StructuredContent["effectStatus"])
	})
	t.Run("the default ceiling folds a quick fire", func(t *testing.T) {
		d, _, _ := mcpShop(t, 0, nil)
		r := callMCP(t, context.Background(), d, "shop.do_action", `{"action":"cart.add","input":{"sku":"q"}}`)
		assert.Equal(t, "performed", r.StructuredContent["effectStatus"])
		assert.Equal(t, true, r.StructuredContent["settled"])
	})
}
