//go:build !js && !wasip1

// An example of a turn that waits for a person's approval, answered with
// Resume.

package session_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentwasm/agentwasm/portkit"
	"github.com/agentwasm/agentwasm/serve"
	"github.com/agentwasm/agentwasm/session"
)

// A high-effect action of an app that requires a person's approval stops
// the turn with the ask pending; the host shows it, the person approves,
// and Resume answers it through the port's human door and goes on: the
// model confirms, and the action runs once.
func ExampleSession_Resume() {
	g, _ := serve.ParseGraph([]byte(`{"id":"shop","pages":[{"id":"checkout"},{"id":"done"}],
	 "actions":[{"id":"checkout.pay","does":"Pay for the order","on":"checkout","goTo":"done","confirm":true,"input":"none"}]}`))
	yes := true
	app, _ := serve.NewApp(g, serve.AppOptions{RequireHumanApproval: &yes, Handlers: map[string]serve.Handler{
		"checkout.pay": func(context.Context, serve.HandlerCall) (any, error) {
			fmt.Println("paying")
			return map[string]any{"orderId": "o-1"}, nil
		},
	}})
	port, _ := serve.NewPort(app, serve.PortOptions{})

	pay := func(id, args string) session.ToolCall {
		return session.ToolCall{ID: id, Name: "shop.do_action", Args: json.RawMessage(args)}
	}
	model := session.NewScriptedTransport(
		session.ToolCallRound(pay("c1", `{"action":"checkout.pay"}`)),
		// After the person's answer: the note tells the model to confirm.
		session.ToolCallRound(pay("c2", `{"action":"checkout.pay","confirm":true}`)),
		session.TextRound("Paid."),
	)
	s, _ := session.New(session.Options{Transport: model, Kit: portkit.New(port, portkit.Options{}), DisableToolDiscovery: true})

	turn := s.Chat(context.Background(), "Pay for my order.")
	ask := turn.PendingApprovals[0]
	fmt.Println(turn.Status, turn.Rounds, ask.AskID != "", ask.Action) // the id is the app's, unguessable

	// The approval card is the host's; the person said yes.
	turn = s.Resume(context.Background(), session.Resolution{Approve: []string{ask.AskID}})
	fmt.Println(turn.Status, turn.Text, app.Page(), len(turn.PendingApprovals))
	// Output:
	// completed 1 true checkout.pay
	// paying
	// completed Paid. done 0
}
