//go:build !js && !wasip1

// The tracing seam never breaks a turn: a Tracer that panics everywhere,
// or that answers nil contexts and nil handles, leaves every turn, its
// tool calls (MCP's too), its asks and Close as they are without one.

package session_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentwasm/agentwasm/session"
	"github.com/agentwasm/agentwasm/session/mcpclient"
	"github.com/agentwasm/agentwasm/testing/fakemcp"
	"github.com/agentwasm/agentwasm/testing/fakeproxy"
)

// badTracer panics in every call when panics is set (its handles too),
// and otherwise answers nil contexts and nil handles.
type badTracer struct{ panics bool }

func (b badTracer) fail() {
	if b.panics {
		panic("the tracer broke")
	}
}

func (b badTracer) StartRequest(context.Context, mcpclient.TracedRequest) (context.Context, mcpclient.RequestSpan) {
	b.fail()
	return nil, nil
}
func (b badTracer) Inject(_ context.Context, set func(key, value string)) {
	set("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
	b.fail()
}
func (b badTracer) StartTurn(context.Context, session.TurnStart) (context.Context, session.TurnSpan) {
	b.fail()
	return nil, nil
}
func (b badTracer) StartChat(context.Context, session.ChatStart) (context.Context, session.ChatSpan) {
	b.fail()
	return nil, nil
}
func (b badTracer) StartTool(context.Context, session.ToolStart) (context.Context, session.ToolSpan) {
	b.fail()
	return nil, nil
}
func (b badTracer) StartDiscovery(context.Context) (context.Context, session.DiscoverySpan) {
	b.fail()
	return nil, nil
}

// payKit offers pay, which waits for a person, and answers its ask.
type payKit struct{}

func (payKit) Tools() []session.ToolDefinition { return []session.ToolDefinition{tool("pay")} }
func (payKit) Execute(context.Context, session.ToolCall) (session.ToolResult, error) {
	return session.ToolResult{Status: session.ToolOK, Approval: &session.ApprovalRequest{AskID: "ask-1", Action: "cart.pay"}}, nil
}
func (payKit) AnswerAsk(context.Context, string, bool) (string, error) { return "Approved.", nil }

func TestABrokenTracerBreaksNothing(t *testing.T) {
	for _, panics := range []bool{false, true} {
		name := map[bool]string{false: "nil answers", true: "panics"}[panics]
		t.Run(name, func(t *testing.T) {
			proxy := fakeproxy.New(
				fakeproxy.Reply{Body: fakeproxy.ToolCallStream(fakeproxy.Call{ID: "1", Name: "honua_studio_set_view", Args: `{"zoom":3}`}, fakeproxy.Call{ID: "2", Name: "pay"})},
				fakeproxy.Reply{Body: fakeproxy.TextStream("Paid.")},
			)
			mcp := &fakemcp.Server{Era: fakemcp.Session, Tools: []json.RawMessage{
				json.RawMessage(`{"name":"honua_studio_set_view","inputSchema":{"type":"object"},"_meta":{"honua.studio":{"family":"honua.studio.composition"}}}`),
			}}
			mux := http.NewServeMux()
			mux.Handle("/api/mcp", mcp)
			mux.Handle("/", proxy)
			base := startHandler(t, mux)
			s, err := session.New(session.Options{BaseURL: base, Kit: payKit{}, Tracer: badTracer{panics: panics}})
			require.NoError(t, err)
			turn := chatWith(t, context.Background(), s, "Zoom and pay.", session.ChatOptions{})
			require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
			require.Len(t, turn.ToolCalls, 2)
			assert.True(t, turn.ToolCalls[0].OK, turn.ToolCalls[0].ErrorMessage)
			require.Len(t, turn.PendingApprovals, 1)
			turn = s.Resume(context.Background(), session.Resolution{Approve: []string{"ask-1"}})
			require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
			assert.Equal(t, "Paid.", turn.Text)
			assert.NoError(t, s.Close())
			assert.Contains(t, mcp.RPCMethods(), "tools/call")
		})
	}
}
