//go:build !js && !wasip1

// Steps: the stepFinish event of each round, its order, the Turn's Usage,
// and that steps do not count against the turn's bounds.

package session_test

import (
	"context"
	"sync"
	"testing"

	"github.com/agentwasm/agentwasm/session"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withUsage sets the token counts of a scripted round's messageStop.
func withUsage(round []session.StreamEvent, in, out int64) []session.StreamEvent {
	round = append([]session.StreamEvent(nil), round...)
	last := &round[len(round)-1]
	last.PromptTokens, last.CompletionTokens = in, out
	return round
}

// textToolRound is a round that says text, then calls.
func textToolRound(text string, calls ...session.ToolCall) []session.StreamEvent {
	r := session.ToolCallRound(calls...)
	return append(r[:1:1], append([]session.StreamEvent{{Type: session.EventTextDelta, Text: text}}, r[1:]...)...)
}

// observed keeps the events an observer saw; safe for concurrent use.
type observed struct {
	mu     sync.Mutex
	events []session.Event
}

func (o *observed) add(ev session.Event) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.events = append(o.events, ev)
}

func (o *observed) steps() []session.Step {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []session.Step
	for _, ev := range o.events {
		if ev.Type == session.EventTypeStepFinish {
			out = append(out, *ev.Step)
		}
	}
	return out
}

// Each finished round ends with a stepFinish event (its text, its dispatches
// in order, its stop reason and token counts), and the turn sums the counts.
// A round that failed has no step.
func TestStepFinishAndUsage(t *testing.T) {
	u := func(in, out int64) *session.Usage { return &session.Usage{InputTokens: in, OutputTokens: out} }
	cases := []struct {
		name      string
		rounds    [][]session.StreamEvent
		status    session.Status
		steps     []session.Step // ToolCalls as the ids of the records
		stepCalls [][]string
		usage     *session.Usage
	}{
		{
			name: "two rounds, both reporting",
			rounds: [][]session.StreamEvent{
				withUsage(textToolRound("Filtering.", call("c1", "a", `{}`), call("c2", "b", `{}`)), 10, 3),
				withUsage(session.TextRound("Done."), 20, 5),
			},
			status: session.StatusCompleted,
			steps: []session.Step{
				{Round: 1, Text: "Filtering.", StopReason: "toolCall", Usage: u(10, 3)},
				{Round: 2, Text: "Done.", StopReason: "endTurn", Usage: u(20, 5)},
			},
			stepCalls: [][]string{{"c1", "c2"}, nil},
			usage:     u(30, 8),
		},
		{
			name:      "no round reports usage",
			rounds:    [][]session.StreamEvent{session.ToolCallRound(call("c1", "a", `{}`)), session.TextRound("Done.")},
			status:    session.StatusCompleted,
			steps:     []session.Step{{Round: 1, StopReason: "toolCall"}, {Round: 2, Text: "Done.", StopReason: "endTurn"}},
			stepCalls: [][]string{{"c1"}, nil},
		},
		{
			name:      "one round of two reports usage",
			rounds:    [][]session.StreamEvent{session.ToolCallRound(call("c1", "a", `{}`)), withUsage(session.TextRound("Done."), 0, 7)},
			status:    session.StatusCompleted,
			steps:     []session.Step{{Round: 1, StopReason: "toolCall"}, {Round: 2, Text: "Done.", StopReason: "endTurn", Usage: u(0, 7)}},
			stepCalls: [][]string{{"c1"}, nil},
			usage:     u(0, 7),
		},
		{
			name: "the second round fails: one step, the first round's usage",
			rounds: [][]session.StreamEvent{
				withUsage(session.ToolCallRound(call("c1", "a", `{}`)), 4, 2),
				{{Type: session.EventMessageStart}, {Type: session.EventError, ErrorMessage: "upstream down"}},
			},
			status:    session.StatusError,
			steps:     []session.Step{{Round: 1, StopReason: "toolCall", Usage: u(4, 2)}},
			stepCalls: [][]string{{"c1"}},
			usage:     u(4, 2),
		},
		{
			name:   "a truncated round has no step",
			rounds: [][]session.StreamEvent{{{Type: session.EventMessageStart}, {Type: session.EventTextDelta, Text: "cut"}}},
			status: session.StatusError,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var obs observed
			s := newScripted(t, session.NewScriptedTransport(tc.rounds...), func(o *session.Options) {
				threeTools(o)
				o.Execute = &recordingExec{}
				o.OnEvent = obs.add
			})
			turn := chat(t, context.Background(), s, "go")
			require.Equal(t, tc.status, turn.Status, turn.ErrorMessage)
			assert.Equal(t, tc.usage, turn.Usage)
			steps := obs.steps()
			require.Len(t, steps, len(tc.steps))
			for i, st := range steps {
				var ids []string
				for _, rec := range st.ToolCalls {
					ids = append(ids, rec.ToolCallID)
				}
				assert.Equal(t, tc.stepCalls[i], ids, "step %d's calls", i+1)
				st.ToolCalls = nil
				assert.Equal(t, tc.steps[i], st)
			}
			for _, ev := range turn.Events {
				assert.NotEqual(t, string(session.EventTypeStepFinish), ev.Type, "a step is not a recorded event")
			}
		})
	}
}

// A step comes after its round's events and dispatches, and carries the
// very records the turn holds.
func TestStepFinishOrder(t *testing.T) {
	var obs observed
	s := newScripted(t, threeCalls(), func(o *session.Options) {
		threeTools(o)
		o.Execute = &recordingExec{}
		o.OnEvent = obs.add
	})
	turn := chat(t, context.Background(), s, "go")
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	var kinds []string
	for _, ev := range obs.events {
		switch ev.Type {
		case session.EventTypeChat:
			kinds = append(kinds, ev.Chat.Type)
		case session.EventTypeToolResult, session.EventTypeStepFinish:
			kinds = append(kinds, string(ev.Type))
		}
	}
	assert.Equal(t, []string{
		"messageStart", "toolCallStart", "toolCallStop", "toolCallStart", "toolCallStop", "toolCallStart", "toolCallStop", "messageStop",
		"toolResult", "toolResult", "toolResult", "stepFinish",
		"messageStart", "textDelta", "messageStop", "stepFinish",
	}, kinds)
	assert.Equal(t, turn.ToolCalls, obs.steps()[0].ToolCalls)
}

// The turn's event bound counts streamed events only: a turn whose answer
// is exactly MaxTurnEvents events completes, steps and dispatches aside.
func TestStepFinishIsNotCountedByTheBounds(t *testing.T) {
	tr := threeCalls() // 8 events, then 3
	var obs observed
	s := newScripted(t, tr, func(o *session.Options) {
		threeTools(o)
		o.Execute = &recordingExec{}
		o.OnEvent = obs.add
		o.MaxTurnEvents = 11
	})
	turn := chat(t, context.Background(), s, "go")
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	assert.Len(t, turn.Events, 11)
	assert.Len(t, obs.steps(), 2)
}
