package wazerotest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentwasm/agentwasm/testing/fakeproxy"
	"github.com/agentwasm/agentwasm/wazerotest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProxyFaults: every way the proxy can fail a turn, through the real
// module. Each turn ends in error with a clear message, the module closes
// its request, and the same instance serves a normal turn afterwards.
func TestProxyFaults(t *testing.T) {
	start := fakeproxy.Frame("message_start", `{"model":"m"}`)
	hel := fakeproxy.Frame("text_delta", `{"text":"Hel"}`)
	stop := fakeproxy.Frame("message_stop", `{"stopReason":"endTurn"}`)
	malformed := "Malformed event payload from the Studio AI proxy."

	cases := []struct {
		name          string
		reply         fakeproxy.Reply
		options       map[string]any
		text          string
		types         []string
		errorMessage  string // exact, when set
		errorContains string
		errorCode     string
		lastEvent     *wazerotest.StreamEvent
	}{
		{
			name:         "500",
			reply:        fakeproxy.Reply{Status: 500, Body: "upstream exploded"},
			types:        []string{},
			errorMessage: "Studio AI proxy responded 500 for the chat request.",
		},
		{
			name:         "404 at a wrong base URL",
			reply:        fakeproxy.Reply{Body: fakeproxy.TextStream("x")},
			options:      map[string]any{"baseUrl": "/elsewhere"},
			types:        []string{},
			errorMessage: "Studio AI proxy responded 404 for the chat request.",
		},
		{
			name:         "malformed SSE data",
			reply:        fakeproxy.Reply{Body: start + hel + fakeproxy.Frame("text_delta", "{not json") + stop},
			text:         "Hel",
			types:        []string{"messageStart", "textDelta", "error"},
			errorMessage: malformed,
			errorCode:    "malformed_event",
			lastEvent:    &wazerotest.StreamEvent{Type: "error", ErrorMessage: malformed, ErrorCode: "malformed_event"},
		},
		{
			name:         "data that is not a JSON object",
			reply:        fakeproxy.Reply{Body: start + fakeproxy.Frame("text_delta", `["Hel"]`) + stop, Chunk: 3},
			types:        []string{"messageStart", "error"},
			errorMessage: malformed,
			errorCode:    "malformed_event",
			lastEvent:    &wazerotest.StreamEvent{Type: "error", ErrorMessage: malformed, ErrorCode: "malformed_event"},
		},
		{
			name:          "oversized frame",
			reply:         fakeproxy.Reply{Body: start + fakeproxy.Frame("text_delta", `{"text":"`+strings.Repeat("x", 4000)+`"}`) + stop},
			options:       map[string]any{"maxFrameBytes": 1024},
			types:         []string{"messageStart"},
			errorContains: "1024 bytes",
		},
		{
			name: "in-band error event",
			reply: fakeproxy.Reply{Body: start + hel +
				fakeproxy.Frame("error", `{"errorMessage":"Upstream quota exceeded.","errorCode":"rate_limited"}`) + stop},
			text:         "Hel",
			types:        []string{"messageStart", "textDelta", "error"},
			errorMessage: "Upstream quota exceeded.",
			errorCode:    "rate_limited",
			lastEvent:    &wazerotest.StreamEvent{Type: "error", ErrorMessage: "Upstream quota exceeded.", ErrorCode: "rate_limited"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			proxy := fakeproxy.New(tc.reply, fakeproxy.Reply{Body: fakeproxy.TextStream("fine")})
			inst := wazerotest.New(t, wazerotest.Options{Handler: proxy})
			ctx := context.Background()
			id := inst.CreateSession(ctx, tc.options)
			turn := inst.Chat(ctx, id, "hi")

			assert.Equal(t, "error", turn.Status)
			assert.Equal(t, tc.text, turn.Text)
			assert.Equal(t, tc.types, eventTypes(turn.Events))
			assert.Equal(t, tc.errorCode, turn.ErrorCode)
			assert.Equal(t, 1, turn.Rounds)
			if tc.errorMessage != "" {
				assert.Equal(t, tc.errorMessage, turn.ErrorMessage)
			} else {
				assert.Contains(t, turn.ErrorMessage, tc.errorContains)
			}
			if tc.lastEvent != nil && assert.NotEmpty(t, turn.Events) {
				assert.Equal(t, *tc.lastEvent, turn.Events[len(turn.Events)-1])
			}
			streamed := chatEvents(inst.Events(id))
			require.Len(t, streamed, len(turn.Events), "every recorded event, synthetic ones too, was streamed")
			for k, ev := range streamed {
				assert.Equal(t, turn.Events[k], *ev.Event)
			}
			assert.Equal(t, 0, inst.InFlight(), "the module closed its request")

			if tc.options == nil {
				next := inst.Chat(ctx, id, "again")
				assert.Equal(t, "completed", next.Status, next.ErrorMessage)
				assert.Equal(t, "fine", next.Text)
			}
		})
	}
}
