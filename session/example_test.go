//go:build !js && !wasip1

// Examples of a session against a scripted Studio AI proxy: a turn, and a
// turn that ends in error.

package session_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/session"
	"github.com/agentwasm/agentwasm/testing/fakeproxy"
)

// A session streams one turn from a Studio AI proxy (here a scripted one)
// and reports it as a Turn. Chat never returns a Go error; the Turn's
// Status says how it ended.
func Example() {
	proxy := httptest.NewServer(fakeproxy.New(fakeproxy.Reply{Body: fakeproxy.TextStream("Hello, ", "world")}))
	defer proxy.Close()

	s, err := session.New(session.Options{
		BaseURL: proxy.URL + "/api",
		Fetcher: &bridge.HTTPFetcher{},
		Model:   "fake-model",
		OnEvent: func(ev session.Event) {
			if ev.Chat.Type == session.EventTextDelta {
				fmt.Printf("delta %q\n", ev.Chat.Text)
			}
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	turn := s.Chat(context.Background(), "Say hello.")
	fmt.Println(turn.Status, turn.StopReason, turn.Rounds)
	fmt.Println(turn.Text)
	for _, m := range s.Messages() {
		fmt.Printf("%s: %s\n", m.Role, m.Content)
	}
	// Output:
	// delta "Hello, "
	// delta "world"
	// completed endTurn 1
	// Hello, world
	// user: Say hello.
	// assistant: Hello, world
}

// A proxy that answers non-2xx ends the turn with StatusError and a message
// that says what happened.
func ExampleSession_Chat_error() {
	proxy := httptest.NewServer(fakeproxy.New(fakeproxy.Reply{Status: 503}))
	defer proxy.Close()

	s, _ := session.New(session.Options{BaseURL: proxy.URL + "/api", Fetcher: &bridge.HTTPFetcher{}})
	turn := s.Chat(context.Background(), "hi")
	fmt.Println(turn.Status)
	fmt.Println(turn.ErrorMessage)
	// Output:
	// error
	// Studio AI proxy responded 503 for the chat request.
}
