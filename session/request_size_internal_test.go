// The chat request's size count and the messages it drops (tool messages
// whose call is not in the request), from inside the package.

package session

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRequestBytesCountsHigh: the size a turn checks against
// MaxRequestBytes is never below the body the default transport sends, and
// close to it, whatever the strings hold (quotes, control characters,
// invalid UTF-8, U+2028, multi-byte runes).
func TestRequestBytesCountsHigh(t *testing.T) {
	pieces := []string{"a", "\"", "\\", "\n", "\t", "\x01", "\x1f", "\xff", "\u2028", "\u2029", "é", "👋", "<>&", " "}
	rng := rand.New(rand.NewPCG(1, 2))
	str := func() string {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	temp := 0.5
	for i := range 500 {
		req := &ChatRequest{Provider: str(), Model: str(), System: str(), MaxTokens: rng.IntN(1 << 30)}
		if i%2 == 0 {
			req.Temperature = &temp
			req.ToolChoice = &ToolChoice{Mode: "specific", ToolName: str()}
		}
		for range rng.IntN(6) {
			m := Message{Role: "assistant", Content: str()}
			for range rng.IntN(3) {
				m.ToolCalls = append(m.ToolCalls, ToolCall{ID: str(), Name: str(), Args: RawJSON(`{"q":"x\"y"}`)})
			}
			req.Messages = append(req.Messages, m, Message{Role: "tool", Content: str(), ToolCallID: str(), ToolName: str()})
		}
		for range rng.IntN(3) {
			req.Tools = append(req.Tools, ToolDefinition{Name: str(), Description: str(),
				InputSchema: RawJSON(`{"type":"object"}`), Annotations: RawJSON(`{"title":"t"}`), OutputSchema: RawJSON(`{}`)})
		}
		body, err := EncodeChatRequest(req)
		require.NoError(t, err)
		got := requestBytes(req)
		require.GreaterOrEqual(t, got, len(body), "request %d: counted %d, sent %d", i, got, len(body))
		slack := requestOverhead + len(req.Messages)*(messageOverhead+8*6) + len(req.Tools)*toolSpecOverhead
		for _, m := range req.Messages {
			slack += len(m.ToolCalls) * toolCallOverhead
		}
		require.LessOrEqual(t, got, len(body)+slack, "request %d: counted far above the body", i)
	}
	assert.Equal(t, 2, stringBytes(""))
	assert.Equal(t, 2+6+2+1, stringBytes("\x01\"a"))
}

// TestRequestMessagesDropOrphans: a tool message whose call is not in the
// assistant message before it never reaches a request.
func TestRequestMessagesDropOrphans(t *testing.T) {
	s, err := New(Options{Transport: NewScriptedTransport(), DisableToolDiscovery: true})
	require.NoError(t, err)
	s.history = []Message{
		{Role: "tool", Content: "orphan at the start", ToolCallID: "x"},
		{Role: "user", Content: "hi"},
		{Role: "tool", Content: "orphan after a user message", ToolCallID: "c1"},
		{Role: "assistant", ToolCalls: []ToolCall{{ID: "c1", Name: "a"}, {ID: "c2", Name: "a"}}},
		{Role: "tool", Content: "answers c1", ToolCallID: "c1"},
		{Role: "tool", Content: "answers nothing", ToolCallID: "c9"},
		{Role: "tool", Content: "answers c2", ToolCallID: "c2"},
		{Role: "assistant", Content: "done"},
		{Role: "tool", Content: "orphan after an answer", ToolCallID: "c2"},
	}
	var got []string
	for _, m := range s.requestMessages() {
		got = append(got, m.Role+": "+m.Content)
	}
	assert.Equal(t, []string{"user: hi", "assistant: ", "tool: answers c1", "tool: answers c2", "assistant: done"}, got)
	assert.Len(t, s.Messages(), 9, "the history itself is left alone")
}
