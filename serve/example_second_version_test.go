// Examples of the port's second version: repeating cards named by an
// instance, and actions that cite an offer and declare a check.

package serve_test

import (
	"context"
	"fmt"

	"github.com/agentwasm/agentwasm/serve"
)

// A repeating area lists cards; its actions act on one card, named by the
// instance argument. With instancesFrom the cards come from a state key,
// and SetInstances says which of them the page has mounted.
func ExampleApp_SetInstances() {
	g, err := serve.ParseGraph([]byte(`{"id":"crm",
	 "pages":[{"id":"list","areas":[{"id":"orders","repeats":true,"instancesFrom":"orders"}]}],
	 "actions":[{"id":"list.orders.open","does":"Open one order.","on":"list"}]}`))
	if err != nil {
		panic(err)
	}
	open := func(ctx context.Context, c serve.HandlerCall) (any, error) {
		return map[string]any{"opened": c.Instance}, nil
	}
	app, err := serve.NewApp(g, serve.AppOptions{
		State:    serve.State{"orders": []any{"o-1", map[string]any{"id": "o-2"}, 7}},
		Handlers: map[string]serve.Handler{"list.orders.open": open},
	})
	if err != nil {
		panic(err)
	}
	_ = app.SetInstances("list.orders", []string{"o-1", "7"}) // o-2 is still scrolling in
	p, _ := serve.NewPort(app, serve.PortOptions{})
	ctx := context.Background()

	r := p.Call(ctx, "crm.whats_here", nil)
	actions, _ := r.Get("actions")
	row := actions.([]serve.Obj)[0]
	instances, _ := row.Get("instances")
	enumeration, _ := row.Get("enumeration")
	fmt.Println(instances, enumeration)

	for _, args := range []string{`{"action":"open"}`, `{"action":"open","instance":"o-9"}`, `{"action":"open","instance":"o-2"}`} {
		fmt.Println(p.Call(ctx, "crm.do_action", []byte(args)).Reason())
	}
	r = p.Call(ctx, "crm.do_action", []byte(`{"action":"open","instance":7}`))
	info, _ := app.WaitSettled(ctx, r.TransitionID())
	fmt.Println(info.ID, info.Instance, info.Data)
	// Output:
	// [o-1 o-2 7] selector
	// INSTANCE_REQUIRED
	// INSTANCE_UNKNOWN
	// STILL_MOUNTING
	// list.orders.open#1 7 map[opened:7]
}

// A "cite" action's fire cites the offerId of its whats_here row; when the
// person changes what it reads, the offer is stale and whats_here hands out
// a fresh one. Its verify check is evaluated once it settles: here the
// handler says it saved, but the state says otherwise.
func ExamplePort_Call_offerAndVerify() {
	g, err := serve.ParseGraph([]byte(`{"id":"doc","pages":[{"id":"edit"}],
	 "actions":[{"id":"edit.save","does":"Save the draft.","on":"edit",
	   "reads":["draft.body"],"writes":["draft.saved"],"freshness":"cite",
	   "verify":{"key":"draft.saved","op":"eq","value":true}}]}`))
	if err != nil {
		panic(err)
	}
	save := func(ctx context.Context, c serve.HandlerCall) (any, error) {
		return map[string]any{"draft.saved": false}, nil // claims success, saves nothing
	}
	app, _ := serve.NewApp(g, serve.AppOptions{
		State:    serve.State{"draft": map[string]any{"body": "hi"}},
		Handlers: map[string]serve.Handler{"edit.save": save},
	})
	p, _ := serve.NewPort(app, serve.PortOptions{})
	ctx := context.Background()
	offer := func() string {
		actions, _ := p.Call(ctx, "doc.whats_here", nil).Get("actions")
		id, _ := actions.([]serve.Obj)[0].Get("offerId")
		return id.(string)
	}

	first := offer()
	_ = app.Patch(serve.State{"draft.body": "hello"}, serve.PrincipalUser) // the person edits
	r := p.Call(ctx, "doc.do_action", []byte(`{"action":"save","offerId":"`+first+`"}`))
	moved, _ := r.Get("moved")
	fmt.Println(first, r.Reason(), moved)

	fresh := offer()
	r = serve.CallSettled(ctx, p, "doc.do_action", []byte(`{"action":"save","offerId":"`+fresh+`"}`), 0)
	info, _ := app.WaitSettled(ctx, r.TransitionID())
	fmt.Println(fresh, info.Status, info.VerifyHeld)
	r = p.Call(ctx, "doc.did_it_work", []byte(`{"transitionId":"`+info.ID+`"}`))
	held, _ := r.Get("verifyHeld")
	fmt.Println(held)
	// Output:
	// offer#1 STALE_OFFER [draft.body]
	// offer#2 performed false
	// false
}
