// Tests of the OpenAI-compatible model against loopback upstreams serving
// recorded streams (testdata/openai) and failing in each way it handles.

package studioproxy

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentwasm/agentwasm/internal/rawjson"
)

// oaRec is one event a sink received.
type oaRec struct {
	Name string
	Ev   Event
}

// oaRecorder is a Sink that keeps the events it receives, safe for use
// from the test and the model.
type oaRecorder struct {
	mu     sync.Mutex
	events []oaRec
	onSend func(name string)
}

func (r *oaRecorder) Send(name string, ev Event) error {
	r.mu.Lock()
	r.events = append(r.events, oaRec{name, ev})
	r.mu.Unlock()
	if r.onSend != nil {
		r.onSend(name)
	}
	return nil
}

// got returns the events with their latency checked and cleared, for exact
// comparison.
func (r *oaRecorder) got(t *testing.T) []oaRec {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]oaRec, len(r.events))
	for i, e := range r.events {
		switch e.Name {
		case EventMessageStop:
			assert.Greater(t, e.Ev.LatencyMs, 0.0, "latencyMs of %s", e.Name)
		case EventError:
			assert.GreaterOrEqual(t, e.Ev.LatencyMs, 0.0, "latencyMs of %s", e.Name)
		}
		e.Ev.LatencyMs = 0
		out[i] = e
	}
	return out
}

// oaServeBody starts an upstream that answers every request with body as an
// event stream.
func oaServeBody(t *testing.T, body []byte) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// oaStreamReq is a chat request that advertises the tools the recorded
// streams call.
func oaStreamReq() *ChatRequest {
	return &ChatRequest{
		Messages: []Message{{Role: "user", Content: "hi"}},
		Tools: []Tool{
			{Name: "get_weather", Description: "Weather at a place."},
			{Name: "studio.journey.publish_map", Description: "Publish the journey map."},
		},
	}
}

const oaRecordedModel = "gpt-4o-mini-2024-07-18"

func TestOpenAIRecordedStreams(t *testing.T) {
	start := oaRec{EventMessageStart, Event{Model: oaRecordedModel}}
	tests := []struct {
		file string
		want []oaRec
	}{
		{"text.sse", []oaRec{
			start,
			{EventTextDelta, Event{Text: "Hello"}},
			{EventTextDelta, Event{Text: ", world."}},
			{EventMessageStop, Event{StopReason: StopEndTurn, PromptTokens: 12, CompletionTokens: 4}},
		}},
		{"tool_call.sse", []oaRec{
			start,
			{EventToolCallStart, Event{ToolCallID: "call_Qx7bT2", ToolName: "get_weather"}},
			{EventToolCallDelta, Event{ToolCallID: "call_Qx7bT2", ToolArgumentsDelta: `{"place"`}},
			{EventToolCallDelta, Event{ToolCallID: "call_Qx7bT2", ToolArgumentsDelta: `:"Berlin"}`}},
			{EventToolCallStop, Event{ToolCallID: "call_Qx7bT2", ToolArguments: rawjson.Message(`{"place":"Berlin"}`)}},
			{EventMessageStop, Event{StopReason: StopToolCall}},
		}},
		{"parallel_tool_calls.sse", []oaRec{
			start,
			{EventToolCallStart, Event{ToolCallID: "call_A1", ToolName: "get_weather"}},
			{EventToolCallStart, Event{ToolCallID: "call_B2", ToolName: "studio.journey.publish_map"}},
			{EventToolCallDelta, Event{ToolCallID: "call_A1", ToolArgumentsDelta: `{"place":`}},
			{EventToolCallDelta, Event{ToolCallID: "call_B2", ToolArgumentsDelta: `{"id":7}`}},
			{EventToolCallDelta, Event{ToolCallID: "call_A1", ToolArgumentsDelta: `"Oslo"}`}},
			{EventToolCallStop, Event{ToolCallID: "call_A1", ToolArguments: rawjson.Message(`{"place":"Oslo"}`)}},
			{EventToolCallStop, Event{ToolCallID: "call_B2", ToolArguments: rawjson.Message(`{"id":7}`)}},
			{EventMessageStop, Event{StopReason: StopToolCall}},
		}},
		{"split_arguments.sse", []oaRec{
			start,
			{EventToolCallStart, Event{ToolCallID: "call_S9", ToolName: "get_weather"}},
			{EventToolCallDelta, Event{ToolCallID: "call_S9", ToolArgumentsDelta: `{"pla`}},
			{EventToolCallDelta, Event{ToolCallID: "call_S9", ToolArgumentsDelta: `ce":"Ber`}},
			{EventToolCallDelta, Event{ToolCallID: "call_S9", ToolArgumentsDelta: `lin"}`}},
			{EventToolCallStop, Event{ToolCallID: "call_S9", ToolArguments: rawjson.Message(`{"place":"Berlin"}`)}},
			{EventMessageStop, Event{StopReason: StopToolCall}},
		}},
		{"usage_final_chunk.sse", []oaRec{
			start,
			{EventTextDelta, Event{Text: "Done."}},
			{EventMessageStop, Event{StopReason: StopMaxTokens, PromptTokens: 321, CompletionTokens: 64}},
		}},
		{"error_mid_stream.sse", []oaRec{
			start,
			{EventTextDelta, Event{Text: "Par"}},
			{EventError, Event{ErrorCode: "upstream_error", ErrorMessage: "the upstream reported an error during the answer: The server had an error while processing your request. Sorry about that!"}},
		}},
		{"cut.sse", []oaRec{
			start,
			{EventTextDelta, Event{Text: "The answer is"}},
			{EventToolCallStart, Event{ToolCallID: "call_C3", ToolName: "get_weather"}},
			{EventToolCallDelta, Event{ToolCallID: "call_C3", ToolArgumentsDelta: `{"pl`}},
			{EventError, Event{ErrorCode: "upstream_cut", ErrorMessage: "the upstream's stream ended before the answer was complete; retry"}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join("testdata", "openai", tt.file))
			require.NoError(t, err)
			srv := oaServeBody(t, body)
			rec := &oaRecorder{}
			m := NewOpenAI(OpenAIOptions{URL: srv.URL})
			require.NoError(t, m.Stream(context.Background(), oaStreamReq(), rec))
			assert.Equal(t, tt.want, rec.got(t))
			oaCheckGrammar(t, rec.events)
		})
	}
}

// TestOpenAIStreamShapes covers wire shapes the recorded streams do not:
// line ends, comments, multi-line data, chunks without index or id, a
// finish without [DONE], and a whole JSON answer.
func TestOpenAIStreamShapes(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("testdata", "openai", "text.sse"))
	require.NoError(t, err)
	textWant := []oaRec{
		{EventMessageStart, Event{Model: oaRecordedModel}},
		{EventTextDelta, Event{Text: "Hello"}},
		{EventTextDelta, Event{Text: ", world."}},
		{EventMessageStop, Event{StopReason: StopEndTurn, PromptTokens: 12, CompletionTokens: 4}},
	}
	tests := []struct {
		name        string
		contentType string
		body        string
		want        []oaRec
	}{
		{"crlf", "", strings.ReplaceAll(string(text), "\n", "\r\n"), textWant},
		{"cr", "", strings.ReplaceAll(string(text), "\n", "\r"), textWant},
		{"comments and multi-line data", "", ": keep-alive\n\n" +
			"data: {\"model\":\"m1\",\n" +
			"data:  \"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\\nb\"}}]}\n\n" +
			": ping\n" +
			"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n" +
			"data: [DONE]\n\n",
			[]oaRec{
				{EventMessageStart, Event{Model: "m1"}},
				{EventTextDelta, Event{Text: "a\nb"}},
				{EventMessageStop, Event{StopReason: StopEndTurn}},
			}},
		{"chunks on consecutive data lines", "", "data: {\"model\":\"m2\",\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n" +
			"data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n" +
			"data: [DONE]\n\n",
			[]oaRec{
				{EventMessageStart, Event{Model: "m2"}},
				{EventTextDelta, Event{Text: "x"}},
				{EventMessageStop, Event{StopReason: StopEndTurn}},
			}},
		{"tool calls without index or id, finish stop, no [DONE]", "",
			"data: {\"model\":\"m3\",\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"name\":\"get_weather\",\"arguments\":{\"place\":\"Rome\"}}},{\"function\":{\"name\":\"nope\"}}]},\"finish_reason\":\"stop\"}]}\n\n",
			[]oaRec{
				{EventMessageStart, Event{Model: "m3"}},
				{EventToolCallStart, Event{ToolCallID: "call_0", ToolName: "get_weather"}},
				{EventToolCallDelta, Event{ToolCallID: "call_0", ToolArgumentsDelta: `{"place":"Rome"}`}},
				{EventToolCallStart, Event{ToolCallID: "call_1", ToolName: "nope"}},
				{EventToolCallStop, Event{ToolCallID: "call_0", ToolArguments: rawjson.Message(`{"place":"Rome"}`)}},
				{EventToolCallStop, Event{ToolCallID: "call_1", ToolArguments: rawjson.Message(`{}`)}},
				{EventMessageStop, Event{StopReason: StopToolCall}},
			}},
		{"name after arguments, duplicate ids, unparsable arguments", "",
			"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"dup\",\"function\":{\"arguments\":\"{\\\"a\\\"\"}}]}}]}\n\n" +
				"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"name\":\"get_weather\",\"arguments\":\":1}\"}}]}}]}\n\n" +
				"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"dup\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"{oops\"}}]}}]}\n\n" +
				"data: [DONE]\n\n",
			[]oaRec{
				{EventMessageStart, Event{Model: "requested"}},
				{EventToolCallStart, Event{ToolCallID: "dup", ToolName: "get_weather"}},
				{EventToolCallDelta, Event{ToolCallID: "dup", ToolArgumentsDelta: `{"a":1}`}},
				{EventToolCallStart, Event{ToolCallID: "dup_1", ToolName: "get_weather"}},
				{EventToolCallDelta, Event{ToolCallID: "dup_1", ToolArgumentsDelta: `{oops`}},
				{EventToolCallStop, Event{ToolCallID: "dup", ToolArguments: rawjson.Message(`{"a":1}`)}},
				{EventToolCallStop, Event{ToolCallID: "dup_1"}},
				{EventMessageStop, Event{StopReason: StopToolCall}},
			}},
		{"length cutting a tool call's arguments", "",
			"data: {\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_L\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"{\\\"pla\"}}]},\"finish_reason\":\"length\"}]}\n\ndata: [DONE]\n\n",
			[]oaRec{
				{EventMessageStart, Event{Model: "m"}},
				{EventToolCallStart, Event{ToolCallID: "call_L", ToolName: "get_weather"}},
				{EventToolCallDelta, Event{ToolCallID: "call_L", ToolArgumentsDelta: `{"pla`}},
				{EventToolCallStop, Event{ToolCallID: "call_L"}},
				{EventMessageStop, Event{StopReason: StopToolCall}},
			}},
		{"only [DONE]", "", "data: [DONE]\n\n", []oaRec{
			{EventMessageStart, Event{Model: "requested"}},
			{EventMessageStop, Event{StopReason: StopEndTurn}},
		}},
		{"content filter", "", "data: {\"model\":\"m\",\"choices\":[{\"delta\":{},\"finish_reason\":\"content_filter\"}]}\n\ndata: [DONE]\n\n", []oaRec{
			{EventMessageStart, Event{Model: "m"}},
			{EventMessageStop, Event{StopReason: StopContentFilter}},
		}},
		{"whole JSON answer", "application/json",
			`{"id":"chatcmpl-W","object":"chat.completion","model":"m4","choices":[{"index":0,"message":{"role":"assistant","content":"ok","tool_calls":[{"id":"call_W","type":"function","function":{"name":"studio_journey_publish_map","arguments":"{\"id\":1}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":5,"completion_tokens":6}}`,
			[]oaRec{
				{EventMessageStart, Event{Model: "m4"}},
				{EventTextDelta, Event{Text: "ok"}},
				{EventToolCallStart, Event{ToolCallID: "call_W", ToolName: "studio.journey.publish_map"}},
				{EventToolCallDelta, Event{ToolCallID: "call_W", ToolArgumentsDelta: `{"id":1}`}},
				{EventToolCallStop, Event{ToolCallID: "call_W", ToolArguments: rawjson.Message(`{"id":1}`)}},
				{EventMessageStop, Event{StopReason: StopToolCall, PromptTokens: 5, CompletionTokens: 6}},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.contentType != "" {
					w.Header().Set("Content-Type", tt.contentType)
				}
				_, _ = io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			req := oaStreamReq()
			req.Model = "requested"
			rec := &oaRecorder{}
			require.NoError(t, NewOpenAI(OpenAIOptions{URL: srv.URL, Models: []string{"requested"}}).Stream(context.Background(), req, rec))
			assert.Equal(t, tt.want, rec.got(t))
			oaCheckGrammar(t, rec.events)
		})
	}
}

func TestOpenAIRequestTranslation(t *testing.T) {
	temp := 0.25
	req := &ChatRequest{
		Provider: "anything",
		Model:    "gpt-test",
		System:   "You are terse.",
		Messages: []Message{
			{Role: "user", Content: "Weather in Berlin? <b>&</b>"},
			{Role: "assistant", ToolCalls: []ToolCall{
				{ID: "call_1", Name: "get_weather", Arguments: rawjson.Message(`{ "place": "Berlin" }`)},
				{ID: "call_2", Name: "studio.journey.publish_map"},
			}},
			{Role: "tool", ToolCallID: "call_1", ToolName: "get_weather", Content: `{"tempC":21}`},
			{Role: "tool", ToolCallID: "call_2", ToolName: "studio.journey.publish_map", Content: "published"},
			{Role: "assistant", Content: "21°C, and the map is out."},
		},
		Tools: []Tool{
			{Name: "get_weather", Description: "Weather at a place.", InputSchema: rawjson.Message(`{"type":"object","properties":{"place":{"type":"string"}},"required":["place"]}`)},
			{Name: "studio.journey.publish_map"},
		},
		ToolChoice:  &ToolChoice{Mode: "specific", ToolName: "studio.journey.publish_map"},
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

	var (
		gotBody   []byte
		gotHeader http.Header
		gotPath   string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotBody, _ = io.ReadAll(r.Body)
		gotHeader, gotPath = r.Header.Clone(), r.URL.Path
		w.Header().Set("Content-Type", "text/event-stream")
		// Answer with a call of the renamed tool: it comes back dotted.
		_, _ = io.WriteString(w, `data: {"model":"gpt-test","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_9","type":"function","function":{"name":"studio_journey_publish_map","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`+"\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()

	rec := &oaRecorder{}
	m := NewOpenAI(OpenAIOptions{URL: srv.URL + "/", APIKey: "sk-test-123", Model: "unused-default", Models: []string{"gpt-test"}})
	require.NoError(t, m.Stream(context.Background(), req, rec))

	assert.JSONEq(t, want, string(gotBody))
	assert.Equal(t, "/v1/chat/completions", gotPath)
	assert.Equal(t, "Bearer sk-test-123", gotHeader.Get("Authorization"))
	assert.Equal(t, "application/json", gotHeader.Get("Content-Type"))
	assert.Equal(t, []oaRec{
		{EventMessageStart, Event{Model: "gpt-test"}},
		{EventToolCallStart, Event{ToolCallID: "call_9", ToolName: "studio.journey.publish_map"}},
		{EventToolCallDelta, Event{ToolCallID: "call_9", ToolArgumentsDelta: "{}"}},
		{EventToolCallStop, Event{ToolCallID: "call_9", ToolArguments: rawjson.Message("{}")}},
		{EventMessageStop, Event{StopReason: StopToolCall}},
	}, rec.got(t))

	t.Run("defaults", func(t *testing.T) {
		up, _, err := oaBuildRequest(&ChatRequest{Messages: []Message{{Role: "user", Content: ""}}, ToolChoice: &ToolChoice{Mode: "required"}}, "default-model")
		require.NoError(t, err)
		b, err := json.Marshal(up)
		require.NoError(t, err)
		assert.JSONEq(t, `{"model":"default-model","messages":[{"role":"user","content":""}],"tool_choice":"required","stream":true,"stream_options":{"include_usage":true}}`, string(b))
	})
	t.Run("bad tool choice", func(t *testing.T) {
		for _, tc := range []*ToolChoice{{Mode: "specific"}, {Mode: "sometimes"}} {
			_, _, err := oaBuildRequest(&ChatRequest{Messages: []Message{}, ToolChoice: tc}, "")
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, "bad_request", e.Code)
		}
	})
}

func TestOpenAIToolNames(t *testing.T) {
	long := strings.Repeat("x.", 40)
	req := &ChatRequest{
		Tools: []Tool{
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
		Messages:   []Message{{Role: "assistant", ToolCalls: []ToolCall{{Name: "history.only"}}}},
		ToolChoice: &ToolChoice{Mode: "specific", ToolName: "choice.only"},
	}
	n := oaNewToolNames(req)
	all := []string{"history.only", "choice.only"}
	for _, tool := range req.Tools {
		all = append(all, tool.Name)
	}
	seen := map[string]string{}
	for _, name := range all {
		up := n.toUpstream(name)
		assert.True(t, oaSafeName(up), "%q maps to %q, which upstreams reject", name, up)
		if other, dup := seen[up]; dup {
			t.Errorf("%q and %q both map to %q", other, name, up)
		}
		seen[up] = name
		assert.Equal(t, name, n.fromUpstream(up), "round trip of %q", name)
	}
	assert.Equal(t, "studio_journey_publish_map", n.toUpstream("studio.journey.publish_map"))
	assert.Equal(t, "plain-name_1", n.toUpstream("plain-name_1"))
	assert.Equal(t, "a_b", n.toUpstream("a_b"), "a safe name is kept even when another maps near it")
	assert.Regexp(t, `^a_b_[0-9a-f]{8}$`, n.toUpstream("a.b"))
	assert.Equal(t, "made.up", n.fromUpstream("made.up"), "an unknown name passes through")

	// The mapping does not depend on the order of the tools.
	rev := &ChatRequest{Tools: append([]Tool(nil), req.Tools...), Messages: req.Messages, ToolChoice: req.ToolChoice}
	for i, j := 0, len(rev.Tools)-1; i < j; i, j = i+1, j-1 {
		rev.Tools[i], rev.Tools[j] = rev.Tools[j], rev.Tools[i]
	}
	assert.Equal(t, n.up, oaNewToolNames(rev).up)
}

func TestOpenAIEndpoint(t *testing.T) {
	tests := []struct{ base, endpoint, shown string }{
		{"http://127.0.0.1:11434", "http://127.0.0.1:11434/v1/chat/completions", "http://127.0.0.1:11434/v1/chat/completions"},
		{"http://127.0.0.1:8080/", "http://127.0.0.1:8080/v1/chat/completions", "http://127.0.0.1:8080/v1/chat/completions"},
		{"https://host.example/openai/v1", "https://host.example/openai/v1/chat/completions", "https://host.example/openai/v1/chat/completions"},
		{"https://host.example/x/chat/completions?api-version=1", "https://host.example/x/chat/completions?api-version=1", "https://host.example/x/chat/completions"},
		{"https://user:pw@host.example/p", "https://user:pw@host.example/p/v1/chat/completions", "https://host.example/p/v1/chat/completions"},
	}
	for _, tt := range tests {
		endpoint, shown, problem := oaEndpoint(tt.base)
		assert.Empty(t, problem, tt.base)
		assert.Equal(t, tt.endpoint, endpoint, tt.base)
		assert.Equal(t, tt.shown, shown, tt.base)
		assert.Equal(t, tt.shown, NewOpenAI(OpenAIOptions{URL: tt.base}).Endpoint())
	}
	for _, bad := range []string{"", "127.0.0.1:11434", "ftp://host/", "http://"} {
		rec := &oaRecorder{}
		require.NoError(t, NewOpenAI(OpenAIOptions{URL: bad}).Stream(context.Background(), oaStreamReq(), rec), bad)
		got := rec.got(t)
		require.Len(t, got, 1, bad)
		assert.Equal(t, "upstream_unreachable", got[0].Ev.ErrorCode, bad)
	}
}

func TestOpenAIFailures(t *testing.T) {
	const key = "sk-live-SECRET0123456789"
	closedURL := func(t *testing.T) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := ln.Addr().String()
		require.NoError(t, ln.Close())
		return "http://" + addr
	}
	tests := []struct {
		name     string
		handler  http.HandlerFunc // nil: the upstream is unreachable
		opts     OpenAIOptions
		code     string
		contains []string
	}{
		{
			name: "401 echoing the key",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusUnauthorized)
				_, _ = io.WriteString(w, `{"error":{"message":"Incorrect API key provided: `+key+`. You can find your API key in your account.","type":"invalid_request_error","code":"invalid_api_key"}}`)
			},
			code:     "upstream_unauthorized",
			contains: []string{"HTTP 401", "Incorrect API key provided: [redacted]", "AGENTWASM_API_KEY", "OPENAI_API_KEY"},
		},
		{
			name: "403 echoing the key in text",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusForbidden)
				_, _ = io.WriteString(w, "forbidden for "+r.Header.Get("Authorization"))
			},
			code:     "upstream_unauthorized",
			contains: []string{"HTTP 403", "AGENTWASM_API_KEY"},
		},
		{
			name: "429 with Retry-After",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", "20")
				w.WriteHeader(http.StatusTooManyRequests)
				_, _ = io.WriteString(w, `{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}`)
			},
			code:     "upstream_rate_limited",
			contains: []string{"HTTP 429", "Rate limit reached for requests", "retry after 20 seconds"},
		},
		{
			name: "500",
			handler: func(w http.ResponseWriter, r *http.Request) {
				http.Error(w, "internal failure", http.StatusInternalServerError)
			},
			code:     "upstream_unavailable",
			contains: []string{"HTTP 500", "internal failure"},
		},
		{
			name: "400 with an error message",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = io.WriteString(w, `{"error":{"message":"Invalid 'messages[1].tool_calls': `+strings.Repeat("very long ", 100)+`","type":"invalid_request_error"}}`)
			},
			code:     "upstream_rejected",
			contains: []string{"HTTP 400", "Invalid 'messages[1].tool_calls': very long", "…"},
		},
		{
			name:     "unreachable",
			code:     "upstream_unreachable",
			contains: []string{"could not reach the upstream at http://127.0.0.1:", "/v1/chat/completions"},
		},
		{
			name: "stalled headers",
			handler: func(w http.ResponseWriter, r *http.Request) {
				oaHang(r)
			},
			opts:     OpenAIOptions{HeaderTimeout: 50 * time.Millisecond},
			code:     "upstream_stalled",
			contains: []string{"no response headers within 50ms"},
		},
		{
			name: "stalled body",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = io.WriteString(w, "data: {\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n")
				w.(http.Flusher).Flush()
				oaHang(r)
			},
			opts:     OpenAIOptions{StallTimeout: 50 * time.Millisecond},
			code:     "upstream_stalled",
			contains: []string{"silent for 50ms"},
		},
		{
			name: "connection cut mid-stream",
			handler: func(w http.ResponseWriter, r *http.Request) {
				conn, buf, err := w.(http.Hijacker).Hijack()
				if err != nil {
					return
				}
				defer conn.Close()
				frame := "data: {\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n"
				_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
				// The chunk promises ten bytes more than come before the cut.
				_, _ = buf.WriteString(strconv.FormatInt(int64(len(frame)+10), 16) + "\r\n" + frame)
				_ = buf.Flush()
			},
			code:     "upstream_cut",
			contains: []string{"the upstream's stream ended before the answer was complete"},
		},
		{
			name: "malformed chunk",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = io.WriteString(w, "data: {\"choices\": nope}\n\n")
			},
			code:     "upstream_malformed",
			contains: []string{"not the expected JSON"},
		},
		{
			name: "event too large",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = io.WriteString(w, "data: \""+strings.Repeat("x", oaMaxEventBytes+1)+"\"\n\n")
			},
			code:     "upstream_malformed",
			contains: []string{"larger than 4 MiB"},
		},
		{
			name: "HTML page",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				_, _ = io.WriteString(w, "<html></html>")
			},
			code:     "upstream_rejected",
			contains: []string{"HTML page"},
		},
		{
			name: "error event echoing the key",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = io.WriteString(w, "event: error\ndata: {\"error\":{\"message\":\"bad key "+key+"\"}}\n\n")
			},
			code:     "upstream_error",
			contains: []string{"bad key [redacted]"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts
			opts.APIKey = key
			if tt.handler == nil {
				opts.URL = closedURL(t)
			} else {
				srv := httptest.NewServer(tt.handler)
				defer srv.Close()
				opts.URL = srv.URL
			}
			rec := &oaRecorder{}
			require.NoError(t, NewOpenAI(opts).Stream(context.Background(), oaStreamReq(), rec))
			got := rec.got(t)
			oaCheckGrammar(t, rec.events)
			last := got[len(got)-1]
			require.Equal(t, EventError, last.Name, "events: %+v", got)
			assert.Equal(t, tt.code, last.Ev.ErrorCode, last.Ev.ErrorMessage)
			for _, want := range tt.contains {
				assert.Contains(t, last.Ev.ErrorMessage, want)
			}
			for _, e := range got {
				b, _ := json.Marshal(e.Ev)
				assert.NotContains(t, string(b), "SECRET", "the key leaked")
			}
			for _, e := range got[:len(got)-1] {
				assert.NotContains(t, []string{EventError, EventMessageStop}, e.Name, "one terminal event only")
			}
		})
	}
}

// oaHang holds a handler until its client goes away. It reads the request
// body first: only then does the server notice a closed connection.
func oaHang(r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	<-r.Context().Done()
}

func TestOpenAIRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		h    string
		want int64
		ok   bool
	}{
		{"20", 20, true},
		{" 7 ", 7, true},
		{"-3", 0, true},
		{"Wed, 01 Jan 2025 12:00:30 GMT", 30, true},
		{"Wed, 01 Jan 2025 11:00:00 GMT", 0, true},
		{"", 0, false},
		{"soon", 0, false},
	}
	for _, tt := range tests {
		got, ok := oaRetryAfter(tt.h, now)
		assert.Equal(t, tt.ok, ok, tt.h)
		assert.Equal(t, tt.want, got, tt.h)
	}
}

func TestOpenAICancel(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: {\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n")
		w.(http.Flusher).Flush()
		oaHang(r)
	}))
	defer srv.Close()

	for _, stage := range []string{"before headers", "mid-stream"} {
		t.Run(stage, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			rec := &oaRecorder{}
			if stage == "mid-stream" {
				rec.onSend = func(name string) {
					if name == EventTextDelta {
						cancel()
					}
				}
			} else {
				cancel()
			}
			done := make(chan error, 1)
			go func() { done <- NewOpenAI(OpenAIOptions{URL: srv.URL}).Stream(ctx, oaStreamReq(), rec) }()
			select {
			case err := <-done:
				assert.ErrorIs(t, err, context.Canceled)
			case <-time.After(10 * time.Second):
				t.Fatal("Stream did not return after its context was cancelled")
			}
			for _, e := range rec.got(t) {
				assert.NotContains(t, []string{EventError, EventMessageStop}, e.Name)
			}
		})
	}
}

func TestOpenAISinkFailure(t *testing.T) {
	body, err := os.ReadFile(filepath.Join("testdata", "openai", "text.sse"))
	require.NoError(t, err)
	srv := oaServeBody(t, body)
	gone := errors.New("client gone")
	n := 0
	sink := SinkFunc(func(name string, ev Event) error {
		n++
		return gone
	})
	err = NewOpenAI(OpenAIOptions{URL: srv.URL}).Stream(context.Background(), oaStreamReq(), sink)
	assert.ErrorIs(t, err, gone)
	assert.Equal(t, 1, n, "Stream stops at the first failed send")
}

// TestOpenAIModelPolicy proves the server, not the page, picks the model: a
// request naming a model outside Model and Models ends with one
// model_not_allowed error and nothing reaches the upstream, while the
// allowed ones (and no model at all) are forwarded with the model they mean.
func TestOpenAIModelPolicy(t *testing.T) {
	tests := []struct {
		name      string
		opts      OpenAIOptions
		model     string
		wantSent  string // the model the upstream saw; "-" when it saw no request
		wantInMsg []string
	}{
		{name: "none means Model", opts: OpenAIOptions{Model: "m-default"}, model: "", wantSent: "m-default"},
		{name: "Model itself", opts: OpenAIOptions{Model: "m-default"}, model: "m-default", wantSent: "m-default"},
		{name: "one of Models", opts: OpenAIOptions{Model: "m-default", Models: []string{"m-big", "m-small"}}, model: "m-small", wantSent: "m-small"},
		{name: "no model anywhere", opts: OpenAIOptions{}, model: "", wantSent: ""},
		{name: "outside Model", opts: OpenAIOptions{Model: "m-default"}, model: "gpt-expensive", wantSent: "-",
			wantInMsg: []string{`"gpt-expensive"`, `may pick only "m-default"`}},
		{name: "outside Models", opts: OpenAIOptions{Model: "m-default", Models: []string{"m-big", "m-default"}}, model: "m-huge", wantSent: "-",
			wantInMsg: []string{`"m-huge"`, `may pick only "m-default", "m-big"`}},
		{name: "server picks alone", opts: OpenAIOptions{}, model: "gpt-expensive", wantSent: "-",
			wantInMsg: []string{`"gpt-expensive"`, "may name none"}},
		{name: "case differs", opts: OpenAIOptions{Model: "m-default"}, model: "M-DEFAULT", wantSent: "-",
			wantInMsg: []string{`"M-DEFAULT"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var (
				mu   sync.Mutex
				sent = "-"
			)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var body struct {
					Model string `json:"model"`
				}
				_ = json.NewDecoder(r.Body).Decode(&body)
				mu.Lock()
				sent = body.Model
				mu.Unlock()
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = io.WriteString(w, `data: {"model":"up","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
			}))
			defer srv.Close()
			opts := tt.opts
			opts.URL, opts.APIKey = srv.URL, "sk-model-policy"
			req := oaStreamReq()
			req.Model = tt.model
			rec := &oaRecorder{}
			require.NoError(t, NewOpenAI(opts).Stream(context.Background(), req, rec))
			got := rec.got(t)
			mu.Lock()
			assert.Equal(t, tt.wantSent, sent, "the model the upstream saw")
			mu.Unlock()
			if tt.wantInMsg == nil {
				require.NotEmpty(t, got)
				assert.Equal(t, EventMessageStop, got[len(got)-1].Name)
				return
			}
			require.Len(t, got, 1)
			assert.Equal(t, EventError, got[0].Name)
			assert.Equal(t, "model_not_allowed", got[0].Ev.ErrorCode)
			for _, part := range tt.wantInMsg {
				assert.Contains(t, got[0].Ev.ErrorMessage, part)
			}
		})
	}
}

// TestOpenAIToolNamesInSystem checks that the system prompt names tools as
// the upstream sees them: each whole mention of a renamed tool is
// rewritten, a longer name that contains it is not, and the conversation's
// messages keep the names they were written with.
func TestOpenAIToolNamesInSystem(t *testing.T) {
	tools := []Tool{
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
		{"a safe name is as it is", "set_basemap sets it", "set_basemap sets it"},
		{"a prefix pattern names no tool", "Your tools are studio.* and set_basemap.", "Your tools are studio.* and set_basemap."},
		{"no mention", "You are terse.", "You are terse."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := &ChatRequest{
				System: tc.system,
				Tools:  tools,
				Messages: []Message{
					{Role: "user", Content: "What does studio.whats_here say? " + tc.system},
					{Role: "assistant", Content: "Calling studio.whats_here.", ToolCalls: []ToolCall{{ID: "c1", Name: "studio.whats_here"}}},
					{Role: "tool", ToolCallID: "c1", ToolName: "studio.whats_here", Content: `{"next":"studio.journey.publish"}`},
				},
			}
			up, names, err := oaBuildRequest(req, "m")
			require.NoError(t, err)
			require.Equal(t, "system", up.Messages[0].Role)
			assert.Equal(t, tc.want, *up.Messages[0].Content)
			// The history is the conversation as it happened: only the call's name is mapped.
			assert.Equal(t, req.Messages[0].Content, *up.Messages[1].Content)
			assert.Equal(t, "Calling studio.whats_here.", *up.Messages[2].Content)
			assert.Equal(t, "studio_whats_here", up.Messages[2].ToolCalls[0].Function.Name)
			assert.Equal(t, `{"next":"studio.journey.publish"}`, *up.Messages[3].Content)
			// And a call of the rewritten name maps back.
			assert.Equal(t, "studio.whats_here", names.fromUpstream("studio_whats_here"))
		})
	}
}

// TestOpenAIToolNamesRewriteOddNames checks rewrite with names that map
// to hashed upstream names or hold other bytes, and an empty name.
func TestOpenAIToolNamesRewriteOddNames(t *testing.T) {
	n := oaNewToolNames(&ChatRequest{Tools: []Tool{{Name: "a_b"}, {Name: "a.b"}, {Name: "名前"}, {Name: ""}}})
	assert.Equal(t, "use "+n.toUpstream("a.b")+" or a_b or "+n.toUpstream("名前"), n.rewrite("use a.b or a_b or 名前"))
	assert.Regexp(t, `^a_b_[0-9a-f]{8}$`, n.toUpstream("a.b"))
	assert.Equal(t, "nothing here", n.rewrite("nothing here"), "an empty name mentions nothing")
}
