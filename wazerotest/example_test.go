package wazerotest_test

import (
	"context"
	"fmt"
	"net/http"

	"github.com/agentwasm/agentwasm/wazerotest"
)

// A program (or a test, with New) runs the real wasip1 module against a
// proxy served in-process.
func ExampleStart() {
	proxy := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("content-type", "text/event-stream")
		fmt.Fprint(w, "event: text_delta\ndata: {\"text\":\"Hello from the module\"}\n\n"+
			"event: message_stop\ndata: {\"stopReason\":\"endTurn\"}\n\n") // an answer ends with message_stop
	})
	ctx := context.Background()
	inst, err := wazerotest.Start(ctx, wazerotest.Options{Handler: proxy})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer inst.Close()

	id := inst.CreateSession(ctx, map[string]any{"baseUrl": "/api"})
	turn := inst.Chat(ctx, id, "hi")
	fmt.Println(turn.Status, turn.Text)
	// Output: completed Hello from the module
}

// A serving port in the module: its action handlers are the host's
// "handler" hook; a call that fires returns at once, pending, and poll lets
// the handler run.
func ExampleInstance_CreatePort() {
	handler := func(ctx context.Context, call wazerotest.HookCall) ([]byte, error) {
		return []byte(`{"paid":true}`), nil // call.Payload names the action and its input
	}
	ctx := context.Background()
	inst, err := wazerotest.Start(ctx, wazerotest.Options{Hook: handler})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer inst.Close()

	graph := map[string]any{"id": "shop", "pages": []any{map[string]any{"id": "cart"}},
		"actions": []any{map[string]any{"id": "cart.pay", "does": "Pay", "on": "cart", "input": "none"}}}
	port, _ := inst.CreatePort(ctx, graph, map[string]any{"handlers": []string{"cart.pay"}, "confirmHighEffect": false})
	fired := inst.PortCall(ctx, port, "shop.do_action", map[string]any{"action": "cart.pay"})
	fmt.Println(fired["transitionId"], fired["effectStatus"])
	_, _ = inst.Do(ctx, map[string]any{"op": "poll", "timeoutMs": 50})
	facts := inst.PortCall(ctx, port, "shop.did_it_work", map[string]any{"transitionId": fired["transitionId"]})
	fmt.Println(facts["effectStatus"], facts["data"])
	// Output:
	// cart.pay#1 pending
	// performed map[paid:true]
}
