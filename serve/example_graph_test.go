// An example of declaring a graph and reading it back.

package serve_test

import (
	"fmt"

	"github.com/agentwasm/agentwasm/serve"
)

func ExampleParseGraph() {
	g, err := serve.ParseGraph([]byte(`{
	  "id": "shop",
	  "pages": [{"id": "cart", "areas": [{"id": "summary"}]}, {"id": "checkout"}],
	  "actions": [
	    {"id": "cart.checkout", "does": "Go to checkout", "on": "cart", "goTo": "checkout",
	     "when": {"key": "cart.items", "op": "nonEmpty"}},
	    {"id": "checkout.pay", "does": "Pay for the order", "on": "checkout", "confirm": true,
	     "input": {"type": "object", "required": ["card"], "properties": {"card": {"type": "string"}}}}
	  ],
	  "journeys": [{"id": "buy", "does": "Buy the cart", "steps": ["cart.checkout", "checkout.pay"]}]
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(g.ID, g.Page("cart").Areas, g.Journey("buy").Steps)

	ok, _, failed := g.Action("cart.checkout").When.Eval(serve.State{"cart": map[string]any{"items": []any{}}})
	fmt.Println("checkout offered:", ok, "because not:", failed[0])

	for _, e := range g.Action("checkout.pay").Input.Validate(map[string]any{"card": 42}) {
		fmt.Println("input:", e.Path, e.Message)
	}

	_, err = serve.ParseGraph([]byte(`{"id":"shop","pages":[{"id":"cart"}],"actions":[{"id":"cart.pay","on":"nope"}]}`))
	fmt.Println(err)
	// Output:
	// shop [cart.summary] [cart.checkout checkout.pay]
	// checkout offered: false because not: cart.items nonEmpty
	// input: /card must be string
	// serve: action "cart.pay": page "nope" is not declared
}
