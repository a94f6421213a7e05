//go:build !js && !wasip1

// Benchmarks of one chat turn, with and without an observer.

package session_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/session"
	"github.com/agentwasm/agentwasm/testing/fakeproxy"
)

// BenchmarkChatTurn measures one text-only turn of 50 deltas, served from
// memory so that only the session's own work is timed.
func BenchmarkChatTurn(b *testing.B) { benchTurns(b, nil) }

// BenchmarkChatTurnObserved is BenchmarkChatTurn with an observer
// (Options.OnEvent), as every host has: the cost of handing each delta on.
func BenchmarkChatTurnObserved(b *testing.B) {
	deltas := 0
	benchTurns(b, func(ev session.Event) {
		if ev.Chat != nil && ev.Chat.Type == session.EventTextDelta {
			deltas++
		}
	})
	if deltas%50 != 0 {
		b.Fatalf("the observer saw %d deltas, not a multiple of 50", deltas)
	}
}

// BenchmarkChatTurnDirect is BenchmarkChatTurn's turn through the direct
// transport (Options.OpenAI): the same 50 deltas as OpenAI chat completion
// chunks, served from memory, translated by internal/openai.
func BenchmarkChatTurnDirect(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < 50; i++ {
		sb.WriteString(`data: {"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"token "},"finish_reason":null}]}` + "\n\n")
	}
	sb.WriteString(`data: {"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n")
	benchStream(b, sb.String(), "text/event-stream", session.Options{OpenAI: &session.OpenAIEndpoint{BaseURL: "/v1"}, Model: "m", DisableToolDiscovery: true})
}

// benchTurns runs text-only turns of 50 deltas, served from memory, on one
// session with the observer onEvent (nil: none), its history reset each time.
func benchTurns(b *testing.B, onEvent func(session.Event)) {
	parts := make([]string, 50)
	for i := range parts {
		parts[i] = "token "
	}
	benchStream(b, fakeproxy.TextStream(parts...), "", session.Options{OnEvent: onEvent})
}

// benchStream runs turns on one session made with opts, every request
// answered with stream (of the content type given, "" for none); each turn
// must complete with the 300 bytes of text of 50 "token " deltas.
func benchStream(b *testing.B, stream, contentType string, opts session.Options) {
	header := bridge.Header{}
	if contentType != "" {
		header["content-type"] = contentType
	}
	opts.Fetcher = bridge.FetcherFunc(func(ctx context.Context, req *bridge.Request) (*bridge.Response, error) {
		return &bridge.Response{Status: 200, Header: header, Body: io.NopCloser(strings.NewReader(stream))}, nil
	})
	s, err := session.New(opts)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		s.Reset()
		if turn := s.Chat(context.Background(), "hi"); turn.Status != session.StatusCompleted || len(turn.Text) != 300 {
			b.Fatal(turn.Status, turn.ErrorMessage, len(turn.Text))
		}
	}
}
