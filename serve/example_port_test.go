// Examples of the app session and the port: building them over a graph,
// listing the tools, and calling them as a model would.

package serve_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentwasm/agentwasm/serve"
)

const exampleGraph = `{"id":"shop",
 "pages":[{"id":"cart"},{"id":"checkout"}],
 "actions":[
  {"id":"cart.checkout","does":"Go to checkout.","on":"cart","goTo":"checkout"},
  {"id":"checkout.pay","does":"Pay for the order.","on":"checkout","confirm":true,
   "input":{"type":"object","properties":{"amount":{"type":"number"}},"required":["amount"]}}],
 "journeys":[{"id":"buy","does":"Check out and pay.","steps":["cart.checkout","checkout.pay"]}]}`

func exampleApp() *serve.App {
	g, err := serve.ParseGraph([]byte(exampleGraph))
	if err != nil {
		panic(err)
	}
	done := func(ctx context.Context, c serve.HandlerCall) (any, error) {
		return map[string]any{"done": c.Action}, nil
	}
	app, err := serve.NewApp(g, serve.AppOptions{
		RequireHumanApproval: new(false),
		Handlers:             map[string]serve.Handler{"cart.checkout": done, "checkout.pay": done},
	})
	if err != nil {
		panic(err)
	}
	return app
}

// NewApp starts an app session; Fire runs the gates and returns at once,
// and the transition settles when the handler returns.
func ExampleNewApp() {
	app := exampleApp()
	r := app.Fire(context.Background(), "cart.checkout", serve.FireOptions{Source: serve.PrincipalAgent})
	info, _ := app.WaitSettled(context.Background(), r.TransitionID)
	fmt.Println(r.TransitionID, info.Status, app.Page())
	// Output: cart.checkout#1 performed checkout
}

// NewPort fixes the tool set at construction.
func ExampleNewPort() {
	p, err := serve.NewPort(exampleApp(), serve.PortOptions{JourneyTools: serve.JourneyToolsSingle})
	if err != nil {
		panic(err)
	}
	for _, t := range p.Tools() {
		fmt.Println(t.Name, t.Annotations.ReadOnlyHint)
	}
	// Output:
	// shop.journey false
	// shop.whats_here true
	// shop.why true
	// shop.do_action false
	// shop.did_it_work true
}

// Call opens a journey, performs a step, and meets the confirm gate of a
// high-effect step.
func ExamplePort_Call() {
	p, _ := serve.NewPort(exampleApp(), serve.PortOptions{})
	ctx := context.Background()
	fmt.Println(p.Call(ctx, "shop.journey.buy", nil).Judgment())
	r := p.Call(ctx, "shop.journey.buy", []byte(`{"step":"checkout"}`))
	_, _ = p.App().WaitSettled(ctx, r.TransitionID())
	r = p.Call(ctx, "shop.journey.buy", []byte(`{"step":"pay","input":{"amount":12}}`))
	fmt.Println(r.Judgment())
	askID, _ := r.Get("askId")
	fmt.Println(strings.HasPrefix(askID.(string), "ask_")) // an unguessable id
	r = p.Call(ctx, "shop.journey.buy", []byte(`{"step":"pay","input":{"amount":12},"confirm":true}`))
	fmt.Println(r.TransitionID())
	// Output:
	// one-ready-step
	// needs-confirm
	// true
	// checkout.pay#1
}
