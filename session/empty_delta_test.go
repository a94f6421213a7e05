//go:build !js && !wasip1

// Empty text deltas: a text delta without text is dropped as the stream is
// read, so every textDelta an observer sees and a turn records has a text,
// and one alone does not start the answer.

package session_test

import (
	"context"
	"testing"

	"github.com/agentwasm/agentwasm/session"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEmptyTextDeltasDropped streams answers with empty text deltas and
// checks what the observer saw, what the turn recorded, and how it ended.
func TestEmptyTextDeltasDropped(t *testing.T) {
	msgStop := session.StreamEvent{Type: session.EventMessageStop, StopReason: "endTurn"}
	empty := session.StreamEvent{Type: session.EventTextDelta}
	cases := []struct {
		name     string
		events   []session.StreamEvent
		observed []string // the chat events' types and texts, as the observer saw them
		status   session.Status
		text     string
		history  int // messages kept after the turn
	}{
		{"between texts", []session.StreamEvent{text("a"), empty, text("b"), msgStop},
			[]string{"textDelta:a", "textDelta:b", "messageStop:"}, session.StatusCompleted, "ab", 2},
		{"alone", []session.StreamEvent{{Type: session.EventMessageStart}, empty, msgStop},
			[]string{"messageStart:", "messageStop:"}, session.StatusCompleted, "", 2},
		{"with other fields, still no text", []session.StreamEvent{{Type: session.EventTextDelta, Model: "m", LatencyMs: 2}, text("x"), msgStop},
			[]string{"textDelta:x", "messageStop:"}, session.StatusCompleted, "x", 2},
		// Nothing of the answer came before the error: the request counts as refused, and the
		// history is left as it was before the turn.
		{"before an error", []session.StreamEvent{empty, {Type: session.EventError, ErrorMessage: "no", ErrorCode: "upstream"}},
			[]string{"error:"}, session.StatusError, "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var observed []string
			s, err := session.New(session.Options{
				Transport:            session.NewScriptedTransport(c.events),
				DisableToolDiscovery: true,
				OnEvent: func(ev session.Event) {
					if ev.Type == session.EventTypeChat {
						observed = append(observed, ev.Chat.Type+":"+ev.Chat.Text)
					}
				},
			})
			require.NoError(t, err)
			turn := s.Chat(context.Background(), "hi")
			assert.Equal(t, c.status, turn.Status, turn.ErrorMessage)
			assert.Equal(t, c.text, turn.Text)
			assert.Equal(t, c.observed, observed)
			assert.Len(t, s.Messages(), c.history)
			for _, ev := range turn.Events {
				if ev.Type == session.EventTextDelta {
					assert.NotEmpty(t, ev.Text, "a recorded text delta has a text")
				}
			}
		})
	}
}
