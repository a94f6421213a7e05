//go:build !js && !wasip1

package session_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/internal/fakeproxy"
	"github.com/agentwasm/agentwasm/session"
)

// BenchmarkChatTurn measures one text-only turn of 50 deltas, served from
// memory so that only the session's own work is timed.
func BenchmarkChatTurn(b *testing.B) {
	parts := make([]string, 50)
	for i := range parts {
		parts[i] = "token "
	}
	stream := fakeproxy.TextStream(parts...)
	fetcher := bridge.FetcherFunc(func(ctx context.Context, req *bridge.Request) (*bridge.Response, error) {
		return &bridge.Response{Status: 200, Header: bridge.Header{}, Body: io.NopCloser(strings.NewReader(stream))}, nil
	})
	s, err := session.New(session.Options{Fetcher: fetcher})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		s.Reset()
		if turn := s.Chat(context.Background(), "hi"); turn.Status != session.StatusCompleted {
			b.Fatal(turn.ErrorMessage)
		}
	}
}

// BenchmarkChatTurnObserved is BenchmarkChatTurn with an observer
// (Options.OnEvent), as every host has: the cost of handing each delta on.
func BenchmarkChatTurnObserved(b *testing.B) {
	parts := make([]string, 50)
	for i := range parts {
		parts[i] = "token "
	}
	stream := fakeproxy.TextStream(parts...)
	fetcher := bridge.FetcherFunc(func(ctx context.Context, req *bridge.Request) (*bridge.Response, error) {
		return &bridge.Response{Status: 200, Header: bridge.Header{}, Body: io.NopCloser(strings.NewReader(stream))}, nil
	})
	deltas := 0
	s, err := session.New(session.Options{Fetcher: fetcher, OnEvent: func(ev session.Event) {
		if ev.Chat != nil && ev.Chat.Type == session.EventTextDelta {
			deltas++
		}
	}})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		s.Reset()
		if turn := s.Chat(context.Background(), "hi"); turn.Status != session.StatusCompleted {
			b.Fatal(turn.ErrorMessage)
		}
	}
	if deltas%50 != 0 {
		b.Fatalf("the observer saw %d deltas, not a multiple of 50", deltas)
	}
}
