// Tests of the tool name mapping: names an endpoint accepts, injective,
// independent of order, and the system prompt's mentions rewritten.

package openai

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentwasm/agentwasm/internal/wire"
)

func TestToolNames(t *testing.T) {
	long := strings.Repeat("x.", 40)
	req := &wire.ChatRequest{
		Tools: []wire.ToolSpec{
			{Name: "studio.journey.publish_map"},
			{Name: "studio_journey.publish_map"},
			{Name: "studio_journey_publish_map_2"},
			{Name: "plain-name_1"},
			{Name: "a_b"},
			{Name: "a.b"},
			{Name: "a b"},
			{Name: "名前"},
			{Name: ""},
			{Name: long},
			{Name: long + "y"},
		},
		Messages:   []wire.ChatMessage{{Role: "assistant", ToolCalls: []wire.ToolCall{{Name: "history.only"}}}},
		ToolChoice: &wire.ToolChoice{Mode: "specific", ToolName: "choice.only"},
	}
	n := NewToolNames(req)
	all := []string{"history.only", "choice.only"}
	for _, tool := range req.Tools {
		all = append(all, tool.Name)
	}
	seen := map[string]string{}
	for _, name := range all {
		up := n.ToUpstream(name)
		assert.True(t, safeName(up), "%q maps to %q, which endpoints reject", name, up)
		if other, dup := seen[up]; dup {
			t.Errorf("%q and %q both map to %q", other, name, up)
		}
		seen[up] = name
		assert.Equal(t, name, n.FromUpstream(up), "round trip of %q", name)
	}
	assert.Equal(t, "studio_journey_publish_map", n.ToUpstream("studio.journey.publish_map"))
	assert.Equal(t, "plain-name_1", n.ToUpstream("plain-name_1"))
	assert.Equal(t, "a_b", n.ToUpstream("a_b"), "a safe name is kept even when another maps near it")
	assert.Regexp(t, `^a_b_[0-9a-f]{8}$`, n.ToUpstream("a.b"))
	assert.Equal(t, "made.up", n.FromUpstream("made.up"), "an unknown name passes through")
	assert.Equal(t, "not.asked", n.ToUpstream("not.asked"), "a name the request does not mention is as it is")
	var none *ToolNames
	assert.Equal(t, "a_b", none.FromUpstream("a_b"), "a nil mapping maps nothing")

	// The mapping does not depend on the order of the tools.
	rev := &wire.ChatRequest{Tools: append([]wire.ToolSpec(nil), req.Tools...), Messages: req.Messages, ToolChoice: req.ToolChoice}
	for i, j := 0, len(rev.Tools)-1; i < j; i, j = i+1, j-1 {
		rev.Tools[i], rev.Tools[j] = rev.Tools[j], rev.Tools[i]
	}
	assert.Equal(t, n.up, NewToolNames(rev).up)
}

// TestToolNamesInSystem checks that the system prompt names tools as the
// endpoint sees them: each whole mention of a renamed tool is rewritten, a
// longer name that contains it is not, and the conversation's messages keep
// the names they were written with.
func TestToolNamesInSystem(t *testing.T) {
	tools := []wire.ToolSpec{
		{Name: "studio.journey.publish"},
		{Name: "studio.journey.publish_map"},
		{Name: "studio.whats_here"},
		{Name: "set_basemap"},
	}
	cases := []struct {
		name, system, want string
	}{
		{"once", "Call studio.whats_here first.", "Call studio_whats_here first."},
		{"twice", "studio.whats_here, then studio.whats_here again", "studio_whats_here, then studio_whats_here again"},
		{"at the end of a sentence", "Publish with studio.journey.publish.", "Publish with studio_journey_publish."},
		{"a longer name is its own", "Use studio.journey.publish_map, not studio.journey.publish!",
			"Use studio_journey_publish_map, not studio_journey_publish!"},
		{"inside a longer name it is not one", "x.studio.whats_here and studio.whats_here.more and studio.whats_heres",
			"x.studio.whats_here and studio.whats_here.more and studio.whats_heres"},
		{"quoted and in parentheses", "`studio.whats_here` (studio.journey.publish)", "`studio_whats_here` (studio_journey_publish)"},
		{"followed by a dash that ends it", "studio.whats_here- then", "studio_whats_here- then"},
		{"a safe name is as it is", "set_basemap sets it", "set_basemap sets it"},
		{"a prefix pattern names no tool", "Your tools are studio.* and set_basemap.", "Your tools are studio.* and set_basemap."},
		{"no mention", "You are terse.", "You are terse."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := &wire.ChatRequest{
				System: tc.system,
				Tools:  tools,
				Messages: []wire.ChatMessage{
					{Role: "user", Content: "What does studio.whats_here say? " + tc.system},
					{Role: "assistant", Content: "Calling studio.whats_here.", ToolCalls: []wire.ToolCall{{ID: "c1", Name: "studio.whats_here"}}},
					{Role: "tool", ToolCallID: "c1", ToolName: "studio.whats_here", Content: `{"next":"studio.journey.publish"}`},
				},
			}
			body, names, err := BuildRequest(req, "m")
			require.NoError(t, err)
			var up struct {
				Messages []struct {
					Role      string  `json:"role"`
					Content   *string `json:"content"`
					ToolCalls []struct {
						Function struct {
							Name string `json:"name"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"messages"`
			}
			require.NoError(t, json.Unmarshal(body, &up))
			require.Len(t, up.Messages, 4)
			require.Equal(t, "system", up.Messages[0].Role)
			assert.Equal(t, tc.want, *up.Messages[0].Content)
			// The history is the conversation as it happened: only the call's name is mapped.
			assert.Equal(t, req.Messages[0].Content, *up.Messages[1].Content)
			assert.Equal(t, "Calling studio.whats_here.", *up.Messages[2].Content)
			assert.Equal(t, "studio_whats_here", up.Messages[2].ToolCalls[0].Function.Name)
			assert.Equal(t, `{"next":"studio.journey.publish"}`, *up.Messages[3].Content)
			// And a call of the rewritten name maps back.
			assert.Equal(t, "studio.whats_here", names.FromUpstream("studio_whats_here"))
		})
	}
}

// TestToolNamesRewriteOddNames checks Rewrite with names that map to
// hashed upstream names or hold other bytes, and an empty name.
func TestToolNamesRewriteOddNames(t *testing.T) {
	n := NewToolNames(&wire.ChatRequest{Tools: []wire.ToolSpec{{Name: "a_b"}, {Name: "a.b"}, {Name: "名前"}, {Name: ""}}})
	assert.Equal(t, "use "+n.ToUpstream("a.b")+" or a_b or "+n.ToUpstream("名前"), n.Rewrite("use a.b or a_b or 名前"))
	assert.Regexp(t, `^a_b_[0-9a-f]{8}$`, n.ToUpstream("a.b"))
	assert.Equal(t, "nothing here", n.Rewrite("nothing here"), "an empty name mentions nothing")
	assert.Equal(t, "a.b.c", n.Rewrite("a.b.c"), "a longer dotted name is not a mention")

	plain := NewToolNames(&wire.ChatRequest{Tools: []wire.ToolSpec{{Name: "get_weather"}}})
	assert.Equal(t, "call get_weather", plain.Rewrite("call get_weather"), "no mapped name: the text as it is")
}
