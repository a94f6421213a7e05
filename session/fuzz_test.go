//go:build !js && !wasip1

// A fuzz test of the loop over arbitrary model event streams.

package session_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentwasm/agentwasm/session"
)

// FuzzRoundAssembly turns arbitrary bytes into a stream of events (each
// byte picks an event type and a tool call id from small sets) and runs a
// turn on it. Whatever the model sends, the turn ends, rounds stay within
// the limit, and every tool call in history has exactly one answer.
func FuzzRoundAssembly(f *testing.F) {
	f.Add([]byte{0x02, 0x13, 0x24, 0x45, 0x06})
	f.Add([]byte{0x02, 0x02, 0x12, 0x34, 0x14, 0x44, 0x05})
	f.Add([]byte{0x01, 0x03, 0x04, 0x55, 0x66})
	ids := []string{"", "a", "b", "a"}
	names := []string{"setFilter", "zoom", "nowhere", ""}
	deltas := []string{`{"x":`, `1}`, `"`, `{}`}
	f.Fuzz(func(t *testing.T, data []byte) {
		var events []session.StreamEvent
		for _, b := range data {
			id, arg := ids[b>>4&3], b>>6
			switch b & 0xf % 7 {
			case 0:
				events = append(events, session.StreamEvent{Type: session.EventTextDelta, Text: "t"})
			case 1:
				events = append(events, session.StreamEvent{Type: session.EventMessageStart})
			case 2:
				events = append(events, session.StreamEvent{Type: session.EventToolCallStart, ToolCallID: id, ToolName: names[arg]})
			case 3:
				events = append(events, session.StreamEvent{Type: session.EventToolCallDelta, ToolCallID: id, ToolArgumentsDelta: deltas[arg]})
			case 4:
				args := json.RawMessage(nil)
				if arg == 1 {
					args = json.RawMessage(`{"k":1}`)
				} else if arg == 2 {
					args = json.RawMessage(`[1]`)
				}
				events = append(events, session.StreamEvent{Type: session.EventToolCallStop, ToolCallID: id, ToolArguments: args})
			case 5:
				events = append(events, session.StreamEvent{Type: session.EventMessageStop, StopReason: "toolCall"})
			case 6:
				if arg == 3 {
					events = append(events, session.StreamEvent{Type: session.EventError, ErrorMessage: "boom"})
				}
			}
		}
		s, err := session.New(session.Options{
			Transport:     session.NewScriptedTransport(events),
			MaxToolRounds: 3,
			Tools:         []session.ToolDefinition{{Name: "setFilter"}, {Name: "zoom"}},
			Execute: session.ExecutorFunc(func(ctx context.Context, c session.ToolCall) (session.ToolResult, error) {
				if len(c.Args) == 0 || c.Args[0] != '{' {
					t.Errorf("arguments %q are not an object", c.Args)
				}
				return session.ToolResult{Status: session.ToolOK}, nil
			}),
		})
		if err != nil {
			t.Fatal(err)
		}
		turn := s.Chat(context.Background(), "go")
		if turn.Status != session.StatusCompleted && turn.Status != session.StatusError {
			t.Fatalf("status %s: %s", turn.Status, turn.ErrorMessage)
		}
		if turn.Rounds < 1 || turn.Rounds > 3 {
			t.Fatalf("%d rounds", turn.Rounds)
		}
		answers := map[string]int{}
		var calls []string
		for _, m := range s.Messages() {
			for _, c := range m.ToolCalls {
				calls = append(calls, c.ID)
			}
			if m.Role == "tool" {
				answers[m.ToolCallID]++
			}
		}
		for _, id := range calls {
			if answers[id] < 1 {
				t.Fatalf("call %s has no answer in history", id)
			}
		}
		if len(turn.ToolCalls) != len(calls) {
			t.Fatalf("%d dispatches for %d calls in history", len(turn.ToolCalls), len(calls))
		}
	})
}
