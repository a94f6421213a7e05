// Tests of the join: a session whose kit is a port drives a journey through
// needs-confirm and a human approval; the kit's tools, prompt and statuses.

package portkit_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/agentwasm/agentwasm/portkit"
	"github.com/agentwasm/agentwasm/serve"
	"github.com/agentwasm/agentwasm/session"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shopGraph: go to checkout, then pay (high-effect).
const shopGraph = `{"id":"shop",
 "pages":[{"id":"cart"},{"id":"checkout"},{"id":"done"}],
 "actions":[
  {"id":"cart.checkout","does":"Go to checkout","on":"cart","goTo":"checkout","input":"none"},
  {"id":"checkout.pay","does":"Pay for the order","on":"checkout","goTo":"done","confirm":true,"writes":["order.id"],"input":"none"}],
 "journeys":[{"id":"buy","does":"Buy what is in the cart","steps":["cart.checkout","checkout.pay"]}]}`

// handlerLog records the fires the app's handlers ran.
type handlerLog struct {
	mu    sync.Mutex
	calls []serve.HandlerCall
}

func (l *handlerLog) handler(data any) serve.Handler {
	return func(_ context.Context, call serve.HandlerCall) (any, error) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.calls = append(l.calls, call)
		return data, nil
	}
}

func (l *handlerLog) actions() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, c := range l.calls {
		out = append(out, c.Action+"/"+string(c.Source))
	}
	return out
}

func newShop(t *testing.T, log *handlerLog) *serve.Port {
	t.Helper()
	g, err := serve.ParseGraph([]byte(shopGraph))
	require.NoError(t, err)
	yes := true
	app, err := serve.NewApp(g, serve.AppOptions{
		RequireHumanApproval: &yes,
		Handlers: map[string]serve.Handler{
			"cart.checkout": log.handler(map[string]any{"step": "checkout"}),
			"checkout.pay":  log.handler(map[string]any{"orderId": "o-1"}),
		},
	})
	require.NoError(t, err)
	p, err := serve.NewPort(app, serve.PortOptions{})
	require.NoError(t, err)
	return p
}

func call(id, name, args string) session.ToolCall {
	return session.ToolCall{ID: id, Name: name, Args: json.RawMessage(args)}
}

// result decodes the port result inside a dispatch record's content.
func result(t *testing.T, rec session.DispatchRecord) map[string]any {
	t.Helper()
	var content struct {
		Status string         `json:"status"`
		Data   map[string]any `json:"data"`
	}
	require.NoError(t, json.Unmarshal([]byte(rec.Content), &content), rec.Content)
	return content.Data
}

// The join: a scripted model in a session whose kit is a port opens a
// journey and takes the first step; the high-effect step waits for a
// person, so the turn stops there with the ask pending. A bare confirm in
// the next turn cannot approve it (the turn stops on it again); the person
// approves through the human door, and the model's confirm then fires the
// step.
func TestSessionDrivesPortThroughApproval(t *testing.T) {
	log := &handlerLog{}
	port := newShop(t, log)
	tr := session.NewScriptedTransport(
		session.ToolCallRound(call("c1", "shop.journey.buy", `{}`)),
		session.ToolCallRound(call("c2", "shop.journey.buy", `{"step":"checkout"}`)),
		session.ToolCallRound(call("c3", "shop.journey.buy", `{"step":"pay"}`)),
		// The next turn: the model confirms without the person's approval.
		session.ToolCallRound(call("c4", "shop.journey.buy", `{"step":"pay","confirm":true}`)),
		// The turn after the person approved on the card.
		session.ToolCallRound(call("c5", "shop.journey.buy", `{"step":"pay","confirm":true}`)),
		session.TextRound("Paid."),
	)
	s, err := session.New(session.Options{Transport: tr, Kit: portkit.New(port, portkit.Options{}), DisableToolDiscovery: true})
	require.NoError(t, err)

	turn := s.Chat(context.Background(), "Buy what is in my cart.")
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	require.Len(t, turn.ToolCalls, 3)
	assert.Equal(t, 3, turn.Rounds, "no model request after the round that waits for a person")
	for _, rec := range turn.ToolCalls {
		assert.Equal(t, session.PlaneRuntime, rec.Plane)
		assert.True(t, rec.OK, rec.Content)
	}
	opened := result(t, turn.ToolCalls[0])
	assert.Equal(t, "one-ready-step", opened["judgment"])
	stepped := result(t, turn.ToolCalls[1])
	assert.Equal(t, true, stepped["ok"])
	assert.Equal(t, "performed", stepped["effectStatus"], "the fire settled within the fold: %v", stepped)
	assert.Equal(t, "checkout", stepped["youAreOn"])
	asked := result(t, turn.ToolCalls[2])
	assert.Equal(t, "needs-confirm", asked["judgment"])
	assert.Equal(t, false, asked["performed"])
	assert.NotContains(t, asked, "transitionId")
	askID, _ := asked["askId"].(string)
	require.NotEmpty(t, askID)
	require.Len(t, turn.PendingApprovals, 1)
	assert.Equal(t, askID, turn.PendingApprovals[0].AskID)
	assert.Equal(t, "c3", turn.PendingApprovals[0].ToolCallID)

	turn = s.Chat(context.Background(), "Just pay, please.")
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	require.Len(t, turn.ToolCalls, 1)
	bare := result(t, turn.ToolCalls[0])
	assert.Equal(t, "needs-confirm", bare["judgment"], "a confirm without the person's approval fires nothing: %v", bare)
	assert.NotContains(t, bare, "transitionId")
	assert.Equal(t, []string{askID}, pendingIDs(turn), "the same ask waits again")
	assert.Equal(t, []string{"cart.checkout/agent"}, log.actions(), "pay has not run")

	// The approval card is the page's: the person approves it.
	asks := port.App().Asks()
	require.NotEmpty(t, asks)
	require.NoError(t, port.App().ApproveAsk(askID, "person"))

	turn = s.Chat(context.Background(), "I approved it.")
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	require.Len(t, turn.ToolCalls, 1)
	assert.Empty(t, turn.PendingApprovals)
	paid := result(t, turn.ToolCalls[0])
	assert.Equal(t, true, paid["ok"], "%v", paid)
	assert.Equal(t, "performed", paid["effectStatus"])
	assert.Equal(t, map[string]any{"orderId": "o-1"}, paid["data"])
	assert.Equal(t, "Paid.", turn.Text)
	assert.Equal(t, []string{"cart.checkout/agent", "checkout.pay/agent"}, log.actions())
	assert.Equal(t, "done", port.App().Page())
}

// pendingIDs returns the ask ids of a turn's pending approvals.
func pendingIDs(turn session.Turn) []string {
	var out []string
	for _, p := range turn.PendingApprovals {
		out = append(out, p.AskID)
	}
	return out
}

// The kit advertises exactly the port's tools, in order, with their MCP
// annotations, and never a human door.
func TestKitTools(t *testing.T) {
	port := newShop(t, &handlerLog{})
	k := portkit.New(port, portkit.Options{})
	var names []string
	for _, d := range k.Tools() {
		names = append(names, d.Name)
		assert.True(t, json.Valid(d.InputSchema), d.Name)
	}
	assert.Equal(t, []string{"shop.journey.buy", "shop.whats_here", "shop.why", "shop.do_action", "shop.did_it_work"}, names)
	assert.JSONEq(t, `{"title":"What's here","readOnlyHint":true}`, string(k.Tools()[1].Annotations))
	assert.JSONEq(t, `{"title":"Journey buy","destructiveHint":true}`, string(k.Tools()[0].Annotations))
	prompt, err := k.SystemPrompt(context.Background())
	require.NoError(t, err)
	assert.Contains(t, prompt, "shop.whats_here")
	assert.Contains(t, prompt, "shop.did_it_work")
}

// An unknown tool is an error result the model reads; a refusal is an
// ordinary (ok) tool result.
func TestKitResultStatuses(t *testing.T) {
	port := newShop(t, &handlerLog{})
	k := portkit.New(port, portkit.Options{SettleWithin: -1})
	r, err := k.Execute(context.Background(), call("x", "shop.nope", `{}`))
	require.NoError(t, err)
	assert.Equal(t, session.ToolError, r.Status)
	assert.Contains(t, string(r.Data), `"UNKNOWN_TOOL"`)

	r, err = k.Execute(context.Background(), call("y", "shop.do_action", `{"action":"checkout.pay"}`))
	require.NoError(t, err)
	assert.Equal(t, session.ToolOK, r.Status)
	assert.Contains(t, string(r.Data), `"ok":false`, "pay is not on this page: a refusal, as data")
}
