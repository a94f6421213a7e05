// An example of the join: an agent session whose kit is a serving port.

package portkit_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentwasm/agentwasm/portkit"
	"github.com/agentwasm/agentwasm/serve"
	"github.com/agentwasm/agentwasm/session"
)

// A session drives the app through its own journey: a scripted model opens
// the journey and takes its first step; the fire settles within the fold,
// so the model reads the result settled.
func ExampleNew() {
	g, err := serve.ParseGraph([]byte(`{"id":"shop","pages":[{"id":"cart"},{"id":"checkout"}],
	 "actions":[{"id":"cart.checkout","does":"Go to checkout","on":"cart","goTo":"checkout","input":"none"}],
	 "journeys":[{"id":"buy","does":"Buy the cart","steps":["cart.checkout"]}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	app, _ := serve.NewApp(g, serve.AppOptions{Handlers: map[string]serve.Handler{
		"cart.checkout": func(context.Context, serve.HandlerCall) (any, error) { return map[string]any{"ok": true}, nil },
	}})
	port, _ := serve.NewPort(app, serve.PortOptions{})

	model := session.NewScriptedTransport(
		session.ToolCallRound(session.ToolCall{ID: "c1", Name: "shop.journey.buy", Args: json.RawMessage(`{"step":"checkout"}`)}),
		session.TextRound("You are at checkout."),
	)
	s, _ := session.New(session.Options{Transport: model, Kit: portkit.New(port, portkit.Options{}), DisableToolDiscovery: true})
	turn := s.Chat(context.Background(), "Check out, please.")

	var content struct {
		Data struct {
			EffectStatus string `json:"effectStatus"`
			YouAreOn     string `json:"youAreOn"`
		} `json:"data"`
	}
	_ = json.Unmarshal([]byte(turn.ToolCalls[0].Content), &content)
	fmt.Println(turn.Status, turn.Text)
	fmt.Println(content.Data.EffectStatus, content.Data.YouAreOn, app.Page())
	// Output:
	// completed You are at checkout.
	// performed checkout checkout
}
