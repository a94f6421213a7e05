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
		fmt.Fprint(w, "event: text_delta\ndata: {\"text\":\"Hello from the module\"}\n\n")
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
