// Tests of the request half: a chat request as the body of POST
// …/v1/chat/completions, and the chat completions path under a base.

package openai

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentwasm/agentwasm/internal/rawjson"
	"github.com/agentwasm/agentwasm/internal/wire"
)

func TestBuildRequest(t *testing.T) {
	temp := 0.25
	req := &wire.ChatRequest{
		Provider: "anything",
		Model:    "gpt-test",
		System:   "You are terse.",
		Messages: []wire.ChatMessage{
			{Role: "user", Content: "Weather in Berlin? <b>&</b>"},
			{Role: "assistant", ToolCalls: []wire.ToolCall{
				{ID: "call_1", Name: "get_weather", Arguments: rawjson.Message(`{ "place": "Berlin" }`)},
				{ID: "call_2", Name: "studio.journey.publish_map"},
			}},
			{Role: "tool", ToolCallID: "call_1", ToolName: "get_weather", Content: `{"tempC":21}`},
			{Role: "tool", ToolCallID: "call_2", ToolName: "studio.journey.publish_map", Content: "published"},
			{Role: "assistant", Content: "21°C, and the map is out."},
		},
		Tools: []wire.ToolSpec{
			{Name: "get_weather", Description: "Weather at a place.", InputSchema: rawjson.Message(`{"type":"object","properties":{"place":{"type":"string"}},"required":["place"]}`)},
			{Name: "studio.journey.publish_map"},
		},
		ToolChoice:  &wire.ToolChoice{Mode: "specific", ToolName: "studio.journey.publish_map"},
		MaxTokens:   512,
		Temperature: &temp,
	}
	const want = `{
		"model": "gpt-test",
		"messages": [
			{"role": "system", "content": "You are terse."},
			{"role": "user", "content": "Weather in Berlin? <b>&</b>"},
			{"role": "assistant", "content": null, "tool_calls": [
				{"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"place\":\"Berlin\"}"}},
				{"id": "call_2", "type": "function", "function": {"name": "studio_journey_publish_map", "arguments": "{}"}}
			]},
			{"role": "tool", "tool_call_id": "call_1", "content": "{\"tempC\":21}"},
			{"role": "tool", "tool_call_id": "call_2", "content": "published"},
			{"role": "assistant", "content": "21°C, and the map is out."}
		],
		"tools": [
			{"type": "function", "function": {"name": "get_weather", "description": "Weather at a place.", "parameters": {"type":"object","properties":{"place":{"type":"string"}},"required":["place"]}}},
			{"type": "function", "function": {"name": "studio_journey_publish_map", "parameters": {"type":"object","properties":{}}}}
		],
		"tool_choice": {"type": "function", "function": {"name": "studio_journey_publish_map"}},
		"max_tokens": 512,
		"temperature": 0.25,
		"stream": true,
		"stream_options": {"include_usage": true}
	}`
	body, names, err := BuildRequest(req, "unused-default")
	require.NoError(t, err)
	assert.JSONEq(t, want, string(body))
	assert.NotContains(t, string(body), `\u003c`, "HTML characters are not escaped")
	assert.Equal(t, "studio.journey.publish_map", names.FromUpstream("studio_journey_publish_map"), "the answer's names map back")
}

func TestBuildRequestCases(t *testing.T) {
	user := []wire.ChatMessage{{Role: "user", Content: ""}}
	tests := []struct {
		name         string
		req          *wire.ChatRequest
		defaultModel string
		want         string // the body, as JSON; "" when the request is refused
		wantErr      string // a part of the refusal's message
	}{
		{
			name:         "defaults",
			req:          &wire.ChatRequest{Messages: user, ToolChoice: &wire.ToolChoice{Mode: "required"}},
			defaultModel: "default-model",
			want:         `{"model":"default-model","messages":[{"role":"user","content":""}],"tool_choice":"required","stream":true,"stream_options":{"include_usage":true}}`,
		},
		{
			name: "no model anywhere, negative max tokens",
			req:  &wire.ChatRequest{Messages: user, MaxTokens: -5},
			want: `{"messages":[{"role":"user","content":""}],"stream":true,"stream_options":{"include_usage":true}}`,
		},
		{
			name: "no messages at all",
			req:  &wire.ChatRequest{},
			want: `{"messages":[],"stream":true,"stream_options":{"include_usage":true}}`,
		},
		{
			name: "history arguments as a JSON string, null, or not JSON",
			req: &wire.ChatRequest{Messages: []wire.ChatMessage{{Role: "assistant", Content: "calling", ToolCalls: []wire.ToolCall{
				{ID: "a", Name: "f", Arguments: rawjson.Message(`"{\"x\": 1}"`)},
				{ID: "b", Name: "f", Arguments: rawjson.Message(`null`)},
				{ID: "c", Name: "f", Arguments: rawjson.Message(`{oops`)},
				{ID: "d", Name: "f", Arguments: rawjson.Message(` {"s": "a b\"c"} `)},
			}}}},
			want: `{"messages":[{"role":"assistant","content":"calling","tool_calls":[
				{"id":"a","type":"function","function":{"name":"f","arguments":"{\"x\": 1}"}},
				{"id":"b","type":"function","function":{"name":"f","arguments":"{}"}},
				{"id":"c","type":"function","function":{"name":"f","arguments":"{oops"}},
				{"id":"d","type":"function","function":{"name":"f","arguments":"{\"s\":\"a b\\\"c\"}"}}
			]}],"stream":true,"stream_options":{"include_usage":true}}`,
		},
		{
			name: "tool choices auto and none",
			req:  &wire.ChatRequest{Messages: user, ToolChoice: &wire.ToolChoice{Mode: "none"}},
			want: `{"messages":[{"role":"user","content":""}],"tool_choice":"none","stream":true,"stream_options":{"include_usage":true}}`,
		},
		{
			name: "a null schema",
			req:  &wire.ChatRequest{Messages: user, Tools: []wire.ToolSpec{{Name: "t", InputSchema: rawjson.Message(" null ")}}},
			want: `{"messages":[{"role":"user","content":""}],"tools":[{"type":"function","function":{"name":"t","parameters":{"type":"object","properties":{}}}}],"stream":true,"stream_options":{"include_usage":true}}`,
		},
		{name: "specific without a tool", req: &wire.ChatRequest{Messages: user, ToolChoice: &wire.ToolChoice{Mode: "specific"}}, wantErr: "names no tool"},
		{name: "unknown tool choice", req: &wire.ChatRequest{Messages: user, ToolChoice: &wire.ToolChoice{Mode: "sometimes"}}, wantErr: `"sometimes"`},
		{name: "unknown role", req: &wire.ChatRequest{Messages: []wire.ChatMessage{{Role: "system", Content: "x"}}}, wantErr: `message 0 has role "system"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, names, err := BuildRequest(tt.req, tt.defaultModel)
			if tt.wantErr != "" {
				var e *Error
				require.ErrorAs(t, err, &e)
				assert.Equal(t, CodeBadRequest, e.Code)
				assert.Contains(t, e.Message, tt.wantErr)
				assert.Nil(t, body)
				assert.Nil(t, names)
				return
			}
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(body))
		})
	}
}

func TestChatPath(t *testing.T) {
	tests := []struct{ base, want string }{
		{"", "/v1/chat/completions"},
		{"/", "/v1/chat/completions"},
		{"/api", "/api/v1/chat/completions"},
		{"/openai/v1", "/openai/v1/chat/completions"},
		{"/openai/v1/", "/openai/v1/chat/completions"},
		{"/x/chat/completions", "/x/chat/completions"},
		{"/x/chat/completions//", "/x/chat/completions"},
		{"http://127.0.0.1:11434", "http://127.0.0.1:11434/v1/chat/completions"},
		{"http://127.0.0.1:11434/v1", "http://127.0.0.1:11434/v1/chat/completions"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ChatPath(tt.base), tt.base)
	}
}
