//go:build !js && !wasip1

// Examples of a session against a scripted Studio AI proxy (a turn, and a
// turn that ends in error) and directly against an OpenAI-compatible
// endpoint (a turn, and the endpoint's refusal).

package session_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

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

// A session talks straight to an OpenAI-compatible chat completions
// endpoint (here one in process, answering with a short stream) when
// Options.OpenAI names it: the request goes to {BaseURL}/chat/completions
// for a BaseURL ending in /v1, with the key as a bearer token, and the
// answer's chunks become the turn's events as the proxy's would.
func ExampleOptions_openAI() {
	endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Println(r.Method, r.URL.Path, r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "text/event-stream")
		for _, chunk := range []string{
			`{"id":"c1","object":"chat.completion.chunk","model":"llama3.2","choices":[{"index":0,"delta":{"role":"assistant","content":"Hello, "}}]}`,
			`{"id":"c1","object":"chat.completion.chunk","model":"llama3.2","choices":[{"index":0,"delta":{"content":"world"}}]}`,
			`{"id":"c1","object":"chat.completion.chunk","model":"llama3.2","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
			`{"id":"c1","object":"chat.completion.chunk","model":"llama3.2","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}`,
			`[DONE]`,
		} {
			fmt.Fprintf(w, "data: %s\n\n", chunk)
		}
	}))
	defer endpoint.Close()

	s, err := session.New(session.Options{
		OpenAI: &session.OpenAIEndpoint{
			BaseURL: endpoint.URL + "/v1",
			APIKey:  session.StaticToken("sk-example"),
		},
		Model:                "llama3.2",
		Fetcher:              &bridge.HTTPFetcher{},
		DisableToolDiscovery: true, // no MCP server here
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	turn := s.Chat(context.Background(), "Say hello.")
	fmt.Println(turn.Status, turn.StopReason)
	fmt.Println(turn.Text)
	// Output:
	// POST /v1/chat/completions Bearer sk-example
	// completed endTurn
	// Hello, world
}

// An endpoint's refusal ends the turn with one of the ErrorCodeUpstream…
// codes and a message that quotes the endpoint and says what to change.
func ExampleOptions_openAIError() {
	endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"error":{"message":"model \"llama9\" not found","type":"not_found_error"}}`)
	}))
	defer endpoint.Close()

	s, _ := session.New(session.Options{
		OpenAI:               &session.OpenAIEndpoint{BaseURL: endpoint.URL + "/v1"},
		Model:                "llama9",
		Fetcher:              &bridge.HTTPFetcher{},
		DisableToolDiscovery: true,
	})
	turn := s.Chat(context.Background(), "hi")
	fmt.Println(turn.Status, turn.ErrorCode == session.ErrorCodeUpstreamNotFound)
	fmt.Println(strings.ReplaceAll(turn.ErrorMessage, endpoint.URL, "http://127.0.0.1:11434"))
	// Output:
	// error true
	// The endpoint at http://127.0.0.1:11434/v1/chat/completions answered HTTP 404: model "llama9" not found; check the model name, and that the model's baseUrl is the API's base (such as http://127.0.0.1:11434/v1).
}
