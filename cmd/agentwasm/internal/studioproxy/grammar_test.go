// The answer grammar, checked: a reader of a proxy's SSE answer that fails
// the test on anything a session would not read as a well-formed answer.
// The scripted model's scenarios and the HTTP handler are checked with it.

package studioproxy

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentwasm/agentwasm/bridge"
)

// frame is one event of an answer, as the session reads it.
type frame struct {
	Name string
	Ev   Event
}

// readGrammar parses an SSE answer and checks the grammar: known event
// names whose data is one JSON object of the paired type; message_start
// first; exactly one terminal event, last; every started tool call stopped
// before message_stop, deltas and stops naming started calls; stopReason
// toolCall exactly when the answer has tool calls.
func readGrammar(t *testing.T, body string) []frame {
	t.Helper()
	r := bridge.NewSSEReader(strings.NewReader(body), 4<<20)
	var out []frame
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		want, known := eventTypes[ev.Event]
		require.True(t, known, "unknown event name %q", ev.Event)
		var e Event
		require.NoError(t, json.Unmarshal([]byte(ev.Data), &e), "data of %s is not a JSON object: %s", ev.Event, ev.Data)
		require.Equal(t, want, e.Type, "the data's type of a %s frame", ev.Event)
		out = append(out, frame{ev.Event, e})
	}
	require.NotEmpty(t, out, "an empty answer")
	last := out[len(out)-1].Name
	require.Contains(t, []string{EventMessageStop, EventError}, last, "the answer must end with a terminal event")
	started := map[string]bool{}
	stopped := map[string]bool{}
	for i, f := range out {
		if i < len(out)-1 {
			require.NotContains(t, []string{EventMessageStop, EventError}, f.Name, "a terminal event before the end (frame %d)", i)
		}
		switch f.Name {
		case EventMessageStart:
			require.Equal(t, 0, i, "message_start must come first")
		case EventToolCallStart:
			require.NotEmpty(t, f.Ev.ToolCallID)
			require.NotEmpty(t, f.Ev.ToolName)
			started[f.Ev.ToolCallID] = true
		case EventToolCallDelta, EventToolCallStop:
			require.True(t, started[f.Ev.ToolCallID], "%s for a call never started: %q", f.Name, f.Ev.ToolCallID)
			if f.Name == EventToolCallStop {
				stopped[f.Ev.ToolCallID] = true
				if len(f.Ev.ToolArguments) > 0 {
					var args map[string]any
					require.NoError(t, json.Unmarshal(f.Ev.ToolArguments, &args), "toolArguments must be an object")
				}
			}
		case EventMessageStop:
			require.Equal(t, started, stopped, "every started call is stopped before message_stop")
			require.Equal(t, len(started) > 0, f.Ev.StopReason == StopToolCall, "stopReason %q with %d calls", f.Ev.StopReason, len(started))
		case EventError:
			require.NotEmpty(t, f.Ev.ErrorMessage)
		}
	}
	return out
}

// textOf joins the text deltas of an answer.
func textOf(frames []frame) string {
	var b strings.Builder
	for _, f := range frames {
		if f.Name == EventTextDelta {
			b.WriteString(f.Ev.Text)
		}
	}
	return b.String()
}

// callOf returns the tool call of an answer: name and arguments.
func callOf(t *testing.T, frames []frame) (string, map[string]any) {
	t.Helper()
	var name string
	var args map[string]any
	deltas := map[string]string{}
	for _, f := range frames {
		switch f.Name {
		case EventToolCallStart:
			name = f.Ev.ToolName
		case EventToolCallDelta:
			deltas[f.Ev.ToolCallID] += f.Ev.ToolArgumentsDelta
		case EventToolCallStop:
			require.NoError(t, json.Unmarshal(f.Ev.ToolArguments, &args))
			var joined map[string]any
			require.NoError(t, json.Unmarshal([]byte(deltas[f.Ev.ToolCallID]), &joined), "the deltas join to the arguments")
			require.Equal(t, args, joined)
		}
	}
	return name, args
}
