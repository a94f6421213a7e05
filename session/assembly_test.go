//go:build !js && !wasip1

// Round assembly: how one model round's stream events become the round's
// text, tool calls and ending, and that generated ids are unique across
// rounds.

package session_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentwasm/agentwasm/session"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func start(id, name string) session.StreamEvent {
	return session.StreamEvent{Type: session.EventToolCallStart, ToolCallID: id, ToolName: name}
}

func delta(id, fragment string) session.StreamEvent {
	return session.StreamEvent{Type: session.EventToolCallDelta, ToolCallID: id, ToolArgumentsDelta: fragment}
}

func stop(id string) session.StreamEvent {
	return session.StreamEvent{Type: session.EventToolCallStop, ToolCallID: id}
}

func stopWith(id, args string) session.StreamEvent {
	return session.StreamEvent{Type: session.EventToolCallStop, ToolCallID: id, ToolArguments: json.RawMessage(args)}
}

func text(s string) session.StreamEvent {
	return session.StreamEvent{Type: session.EventTextDelta, Text: s}
}

// completeAnswer is a complete scripted answer: events, then message_stop (an
// answer without it is truncated).
func completeAnswer(events ...session.StreamEvent) []session.StreamEvent {
	return append(append([]session.StreamEvent(nil), events...), session.StreamEvent{Type: session.EventMessageStop, StopReason: "toolCall"})
}

// TestRoundAssembly feeds one scripted round of events and checks the calls
// that went into history (in the assistant message) and to the executor.
func TestRoundAssembly(t *testing.T) {
	cases := []struct {
		name    string
		events  []session.StreamEvent
		history []session.ToolCall // the assistant message's calls; nil: none
		content string             // the assistant message's text
		exec    []session.ToolCall // what the executor got
	}{
		{
			name:    "missing ids are numbered tool-<n>",
			events:  []session.StreamEvent{start("", "a"), stop(""), start("", "b"), stop("")},
			history: []session.ToolCall{call("tool-1", "a", `{}`), call("tool-2", "b", `{}`)},
			exec:    []session.ToolCall{call("tool-1", "a", `{}`), call("tool-2", "b", `{}`)},
		},
		{
			name: "a repeated start resets name and arguments but keeps its place",
			events: []session.StreamEvent{
				start("c1", "first"), delta("c1", `{"x":1}`),
				start("c2", "second"), stopWith("c2", `{"y":2}`),
				start("c1", "renamed"), delta("c1", `{"z":3}`), stop("c1"),
			},
			history: []session.ToolCall{call("c1", "renamed", `{"z":3}`), call("c2", "second", `{"y":2}`)},
			exec:    []session.ToolCall{call("c1", "renamed", `{"z":3}`), call("c2", "second", `{"y":2}`)},
		},
		{
			name:    "a repeated start after a stop makes the call unready again",
			events:  []session.StreamEvent{start("c1", "a"), stop("c1"), start("c2", "b"), stop("c2"), start("c1", "a")},
			history: []session.ToolCall{call("c2", "b", `{}`)},
			exec:    []session.ToolCall{call("c2", "b", `{}`)},
		},
		{
			name: "deltas and stops without an id attach to the latest started call",
			events: []session.StreamEvent{
				start("c1", "a"), start("c2", "b"),
				delta("", `{"k":`), delta("", `"v"}`), stop(""),
			},
			history: []session.ToolCall{call("c2", "b", `{"k":"v"}`)},
			exec:    []session.ToolCall{call("c2", "b", `{"k":"v"}`)},
		},
		{
			name: "deltas by id go to their call even when another started later",
			events: []session.StreamEvent{
				start("c1", "a"), start("c2", "b"),
				delta("c1", `{"for":"a"}`), stop("c2"), stop("c1"),
			},
			history: []session.ToolCall{call("c1", "a", `{"for":"a"}`), call("c2", "b", `{}`)},
			exec:    []session.ToolCall{call("c1", "a", `{"for":"a"}`), call("c2", "b", `{}`)},
		},
		{
			name:    "toolArguments win over the deltas",
			events:  []session.StreamEvent{start("c1", "a"), delta("c1", `{"from":"deltas"}`), stopWith("c1", `{"from":"stop"}`)},
			history: []session.ToolCall{call("c1", "a", `{"from":"stop"}`)},
			exec:    []session.ToolCall{call("c1", "a", `{"from":"stop"}`)},
		},
		{
			name:    "joined deltas that are not JSON give {}",
			events:  []session.StreamEvent{start("c1", "a"), delta("c1", `{"a":`), stop("c1")},
			history: []session.ToolCall{call("c1", "a", `{}`)},
			exec:    []session.ToolCall{call("c1", "a", `{}`)},
		},
		{
			name:    "no deltas and no toolArguments give {}",
			events:  []session.StreamEvent{start("c1", "a"), stop("c1")},
			history: []session.ToolCall{call("c1", "a", `{}`)},
			exec:    []session.ToolCall{call("c1", "a", `{}`)},
		},
		{
			name:    "the arguments are settled at the stop",
			events:  []session.StreamEvent{start("c1", "a"), delta("c1", `{"a":1}`), stop("c1"), delta("c1", `garbage`)},
			history: []session.ToolCall{call("c1", "a", `{"a":1}`)},
			exec:    []session.ToolCall{call("c1", "a", `{"a":1}`)},
		},
		{
			name:    "calls that never stop are never dispatched and not in history",
			events:  []session.StreamEvent{start("c1", "a"), stop("c1"), start("c2", "b"), delta("c2", `{}`)},
			history: []session.ToolCall{call("c1", "a", `{}`)},
			exec:    []session.ToolCall{call("c1", "a", `{}`)},
		},
		{
			name:    "non-object arguments are kept in history and handed to the executor as {}",
			events:  []session.StreamEvent{start("c1", "a"), stopWith("c1", `[1,2]`), start("c2", "b"), delta("c2", `"str"`), stop("c2")},
			history: []session.ToolCall{call("c1", "a", `[1,2]`), call("c2", "b", `"str"`)},
			exec:    []session.ToolCall{call("c1", "a", `{}`), call("c2", "b", `{}`)},
		},
		{
			name:    "deltas and stops for unknown ids are ignored",
			events:  []session.StreamEvent{start("c1", "a"), delta("zz", `{"x":1}`), stop("zz")},
			history: nil,
			exec:    nil,
		},
		{
			name:    "a delta or stop before any start is ignored",
			events:  []session.StreamEvent{delta("", `{"x":1}`), stop(""), start("c1", "a"), stop("c1")},
			history: []session.ToolCall{call("c1", "a", `{}`)},
			exec:    []session.ToolCall{call("c1", "a", `{}`)},
		},
		{
			name:    "text around the calls is the assistant's content",
			events:  []session.StreamEvent{text("Look"), start("c1", "a"), text("ing"), stop("c1"), text(".")},
			content: "Looking.",
			history: []session.ToolCall{call("c1", "a", `{}`)},
			exec:    []session.ToolCall{call("c1", "a", `{}`)},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			exec := &recordingExec{}
			tr := session.NewScriptedTransport(completeAnswer(tc.events...), session.TextRound("end"))
			s := newScripted(t, tr, func(o *session.Options) {
				o.Tools = []session.ToolDefinition{tool("a"), tool("b"), tool("first"), tool("second"), tool("renamed")}
				o.Execute = exec
			})
			turn := chat(t, context.Background(), s, "go")
			require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)

			msgs := s.Messages()
			require.GreaterOrEqual(t, len(msgs), 2)
			assert.Equal(t, session.Message{Role: "assistant", Content: tc.content, ToolCalls: tc.history}, msgs[1])
			assert.Equal(t, tc.exec, exec.Calls())
			if tc.history == nil {
				assert.Equal(t, 1, turn.Rounds, "no ready call: the turn is complete")
				assert.Len(t, msgs, 2)
				return
			}
			assert.Equal(t, 2, turn.Rounds)
			require.Len(t, msgs, 2+len(tc.history)+1)
			for i, c := range tc.history {
				assert.Equal(t, c.ID, msgs[2+i].ToolCallID)
				assert.Equal(t, c.Name, msgs[2+i].ToolName)
			}
		})
	}
}

// TestGeneratedIDsAreUniqueAcrossRounds: a call without an id gets a fresh
// tool-<n> in every round, so each tool message answers one call.
func TestGeneratedIDsAreUniqueAcrossRounds(t *testing.T) {
	idless := completeAnswer(start("", "a"), stop(""))
	tr := session.NewScriptedTransport(idless, idless, session.TextRound("end"))
	s := newScripted(t, tr, func(o *session.Options) { o.Tools = []session.ToolDefinition{tool("a")}; o.Execute = &recordingExec{} })
	turn := chat(t, context.Background(), s, "go")
	require.Equal(t, session.StatusCompleted, turn.Status)
	require.Len(t, turn.ToolCalls, 2)
	assert.Equal(t, "tool-1", turn.ToolCalls[0].ToolCallID)
	assert.Equal(t, "tool-2", turn.ToolCalls[1].ToolCallID)
}
