//go:build !js && !wasip1

// The text-delta observer (Options.OnTextDelta): it takes the plain text
// deltas in OnEvent's place, redacted, and the texts it and OnEvent keep
// stay as they came.

package session_test

import (
	"context"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/session"
	"github.com/agentwasm/agentwasm/testing/fakeproxy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// deltaLog records what OnEvent and OnTextDelta observe, in one order.
type deltaLog struct{ seen []string }

func (l *deltaLog) event(ev session.Event) {
	if ev.Chat != nil {
		l.seen = append(l.seen, "event "+ev.Chat.Type+" "+ev.Chat.Text+ev.Chat.Model)
	}
}

func (l *deltaLog) text(text string) { l.seen = append(l.seen, "text "+text) }

// TestOnTextDelta checks Options.OnTextDelta: it takes the plain text
// deltas in OnEvent's place, in order among OnEvent's events; a delta that
// carries more than a text still goes to OnEvent, one with no text to
// neither (the session drops it); the turn is
// the same as without it; a panic in it changes nothing; without OnEvent it
// is not called.
func TestOnTextDelta(t *testing.T) {
	round := []session.StreamEvent{
		{Type: session.EventMessageStart, Model: "m"},
		{Type: session.EventTextDelta, Text: "a"},
		{Type: session.EventTextDelta, Text: "b", Model: "x"}, // more than a text
		{Type: session.EventTextDelta},                        // no text: dropped
		{Type: session.EventTextDelta, Text: "é€"},
		{Type: session.EventToolCallDelta, ToolCallID: "c1", ToolArgumentsDelta: "{"},
		{Type: session.EventTextDelta, Text: "c"},
		{Type: session.EventMessageStop, StopReason: "endTurn"},
	}
	cases := []struct {
		name     string
		onEvent  bool
		panics   bool
		wantSeen []string
	}{
		{name: "with OnEvent", onEvent: true, wantSeen: []string{
			"event messageStart m", "text a", "event textDelta bx", "text é€",
			"event toolCallDelta ", "text c", "event messageStop "}},
		{name: "panicking", onEvent: true, panics: true, wantSeen: []string{
			"event messageStart m", "text a", "event textDelta bx", "text é€",
			"event toolCallDelta ", "text c", "event messageStop "}},
		{name: "without OnEvent", onEvent: false, wantSeen: nil},
	}
	plain := chat(t, context.Background(), newScripted(t, session.NewScriptedTransport(round), nil), "hi")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var log deltaLog
			s := newScripted(t, session.NewScriptedTransport(round), func(o *session.Options) {
				if tc.onEvent {
					o.OnEvent = log.event
				}
				o.OnTextDelta = func(text string) {
					log.text(text)
					if tc.panics {
						panic("observer")
					}
				}
			})
			turn := chat(t, context.Background(), s, "hi")
			require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
			assert.Equal(t, tc.wantSeen, log.seen)
			assert.Equal(t, plain, turn, "the turn is the same as without OnTextDelta")
		})
	}
}

// TestOnTextDeltaRedacts checks that OnTextDelta gets a delta's text with
// the session's tokens redacted, as OnEvent would.
func TestOnTextDeltaRedacts(t *testing.T) {
	body := fakeproxy.Frame("message_start", `{"model":"m"}`) +
		fakeproxy.Frame("text_delta", `{"text":"the key is `+secretToken+`"}`) +
		fakeproxy.Frame("message_stop", `{"stopReason":"endTurn"}`)
	_, base := startProxy(t, fakeproxy.Reply{Body: body})
	var texts []string
	s := newSession(t, base, func(o *session.Options) {
		o.Auth = session.StaticToken(secretToken)
		o.OnEvent = func(session.Event) {}
		o.OnTextDelta = func(text string) { texts = append(texts, text) }
	})
	turn := chat(t, context.Background(), s, "hi")
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	assert.Equal(t, []string{"the key is [redacted]"}, texts)
}

// TestDeltaTextsAreTheirOwn checks that what the observers and the turn
// keep of each delta stays as it came, though the chat stream's reader
// reuses its buffer (sseStream reads with NextView): many deltas, read a
// few bytes at a time and all at once, kept by OnEvent and OnTextDelta
// until the turn ends.
func TestDeltaTextsAreTheirOwn(t *testing.T) {
	parts := make([]string, 3000)
	for i := range parts {
		parts[i] = strconv.Itoa(i) + "é "
	}
	stream := fakeproxy.TextStream(parts...)
	for _, tc := range []struct {
		name   string
		read   int
		onText bool
	}{
		{"7 byte reads, OnEvent", 7, false},
		{"7 byte reads, OnTextDelta", 7, true},
		{"whole, OnEvent", len(stream), false},
		{"whole, OnTextDelta", len(stream), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fetcher := bridge.FetcherFunc(func(context.Context, *bridge.Request) (*bridge.Response, error) {
				return &bridge.Response{Status: 200, Header: bridge.Header{},
					Body: io.NopCloser(&smallReads{s: stream, n: tc.read})}, nil
			})
			var kept []string
			s, err := session.New(session.Options{Fetcher: fetcher, DisableToolDiscovery: true,
				OnEvent: func(ev session.Event) {
					if ev.Chat != nil && ev.Chat.Type == session.EventTextDelta {
						kept = append(kept, ev.Chat.Text)
					}
				}})
			require.NoError(t, err)
			if tc.onText {
				s, err = session.New(session.Options{Fetcher: fetcher, DisableToolDiscovery: true,
					OnEvent:     func(session.Event) {},
					OnTextDelta: func(text string) { kept = append(kept, text) }})
				require.NoError(t, err)
			}
			turn := chat(t, context.Background(), s, "hi")
			require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
			assert.Equal(t, parts, kept)
			assert.Equal(t, strings.Join(parts, ""), turn.Text)
			require.Len(t, turn.Events, 3)
			assert.Equal(t, turn.Text, turn.Events[1].Text)
		})
	}
}

// smallReads reads s at most n bytes at a time.
type smallReads struct {
	s string
	n int
}

func (r *smallReads) Read(p []byte) (int, error) {
	if r.s == "" {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), r.n)], r.s)
	r.s = r.s[k:]
	return k, nil
}
