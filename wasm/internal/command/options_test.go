package command

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/agentwasm/agentwasm/internal/wire"
	"github.com/agentwasm/agentwasm/session"
)

// TestEventJSONTextDelta checks eventJSON's fast path for plain text deltas
// against the general encoding: the same bytes for every event, and the
// fast path taken only for a text delta with a text and nothing else.
func TestEventJSONTextDelta(t *testing.T) {
	chat := func(c session.StreamEvent) session.Event {
		return session.Event{Type: session.EventTypeChat, Chat: &c}
	}
	delta := func(text string) session.StreamEvent {
		return session.StreamEvent{Type: session.EventTextDelta, Text: text}
	}
	for _, c := range []struct {
		name string
		ev   session.Event
		fast bool
	}{
		{"ascii", chat(delta("hello ")), true},
		{"escapes", chat(delta("a \"quoted\"\n\ttab\\ and \x01")), true},
		{"non-ASCII", chat(delta("héllo 日本 🙂")), true},
		{"U+2028 and U+2029", chat(delta("a\u2028b\u2029c")), true},
		{"HTML characters", chat(delta("<a href='x'>&</a>")), true},
		{"invalid UTF-8", chat(delta("a\xffb\xe6\x97")), true},
		{"empty text", chat(delta("")), false},
		{"with a model", chat(session.StreamEvent{Type: session.EventTextDelta, Text: "a", Model: "m"}), false},
		{"with arguments", chat(session.StreamEvent{Type: session.EventTextDelta, Text: "a", ToolArguments: json.RawMessage(`{}`)}), false},
		{"with a latency", chat(session.StreamEvent{Type: session.EventTextDelta, Text: "a", LatencyMs: 1.5}), false},
		{"with a negative zero latency", chat(session.StreamEvent{Type: session.EventTextDelta, Text: "a", LatencyMs: math.Copysign(0, -1)}), true},
		{"with tokens", chat(session.StreamEvent{Type: session.EventTextDelta, Text: "a", CompletionTokens: 2}), false},
		{"with an error", chat(session.StreamEvent{Type: session.EventTextDelta, Text: "a", ErrorCode: "x"}), false},
		{"a message start", chat(session.StreamEvent{Type: session.EventMessageStart, Model: "m"}), false},
		{"a tool call delta", chat(session.StreamEvent{Type: session.EventToolCallDelta, ToolCallID: "c", ToolArgumentsDelta: `{"a"`}), false},
		{"a watch status", session.Event{Type: session.EventTypeToolWatch, WatchStatus: "connected"}, false},
		{"a chat event with a watch detail", session.Event{Type: session.EventTypeChat, Chat: &session.StreamEvent{Type: session.EventTextDelta, Text: "a"}, WatchDetail: "d"}, false},
		{"a step", session.Event{Type: session.EventTypeStepFinish, Step: &session.Step{Round: 1, Text: "a"}}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := encode(c.ev)
			if got := eventJSON(c.ev); !bytes.Equal(got, want) {
				t.Errorf("eventJSON = %s, want %s", got, want)
			}
			fast := c.ev.Chat != nil && c.ev.Type == session.EventTypeChat && c.ev.WatchDetail == "" && plainTextDelta(c.ev.Chat)
			if fast != c.fast {
				t.Errorf("the fast path took it: %v, want %v", fast, c.fast)
			}
			if !json.Valid(want) {
				t.Errorf("%s is not JSON", want)
			}
		})
	}
}

// TestEventJSONTextDeltaAllocs checks that a plain text delta is encoded
// with one allocation, its bytes.
func TestEventJSONTextDeltaAllocs(t *testing.T) {
	c := session.StreamEvent{Type: session.EventTextDelta, Text: "token "}
	ev := session.Event{Type: session.EventTypeChat, Chat: &c}
	if n := testing.AllocsPerRun(100, func() { _ = eventJSON(ev) }); n != 1 {
		t.Errorf("encoding a text delta allocates %v times, want 1", n)
	}
}

// TestSessionOptionsTextDelta checks the wiring of Hooks.OnTextDelta: set
// only with OnEvent, it hands the session's id and the text on, and the
// JSON it stands for is eventJSON's for that delta.
func TestSessionOptionsTextDelta(t *testing.T) {
	cases := []struct {
		name            string
		onEvent, onText bool
		wantOnTextDelta bool
	}{
		{name: "both", onEvent: true, onText: true, wantOnTextDelta: true},
		{name: "OnEvent only", onEvent: true},
		{name: "OnTextDelta only", onText: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			var h Hooks
			if tc.onEvent {
				h.OnEvent = func(int, []byte) {}
			}
			if tc.onText {
				h.OnTextDelta = func(id int, text string) {
					if id != 7 {
						t.Errorf("session id %d, want 7", id)
					}
					got = append(got, text)
				}
			}
			opts, err := sessionOptions(&wire.SessionOptions{}, 7, h)
			if err != nil {
				t.Fatal(err)
			}
			if (opts.OnTextDelta != nil) != tc.wantOnTextDelta {
				t.Fatalf("OnTextDelta set: %v, want %v", opts.OnTextDelta != nil, tc.wantOnTextDelta)
			}
			if !tc.wantOnTextDelta {
				return
			}
			opts.OnTextDelta("h\u00e9 \"q\"")
			if len(got) != 1 || got[0] != "h\u00e9 \"q\"" {
				t.Fatalf("got %q", got)
			}
			c := session.StreamEvent{Type: session.EventTextDelta, Text: got[0]}
			want := eventJSON(session.Event{Type: session.EventTypeChat, Chat: &c})
			var text string
			if err := json.Unmarshal(want, &struct {
				Event *struct{ Text *string } `json:"event"`
			}{Event: &struct{ Text *string }{Text: &text}}); err != nil || text != got[0] {
				t.Fatalf("eventJSON %s does not carry the text %q", want, got[0])
			}
		})
	}
}
