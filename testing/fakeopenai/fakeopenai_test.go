// Tests of the fake: the exact chunks of each event sequence in each shape,
// the non-streaming answer, the request decoding, the key, CORS, every
// injected failure, and the record of requests.

package fakeopenai

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentwasm/agentwasm/internal/wire"
)

// ev is one scripted event.
type ev struct {
	name string
	e    wire.StreamEvent
}

// script is an Answer sending events in order, then returning err.
func script(err error, events ...ev) Answer {
	return func(_ context.Context, _ *wire.ChatRequest, emit func(string, wire.StreamEvent) error) error {
		for _, x := range events {
			if e := emit(x.name, x.e); e != nil {
				return e
			}
		}
		return err
	}
}

// post sends one POST with body and headers as pairs.
func post(t *testing.T, url, body string, kv ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(kv); i += 2 {
		req.Header.Set(kv[i], kv[i+1])
	}
	resp, err := (&http.Transport{}).RoundTrip(req) // no redirects followed
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp, string(b) + "<read error: " + err.Error() + ">"
	}
	return resp, string(b)
}

// data joins payloads as data lines.
func data(payloads ...string) string {
	var b strings.Builder
	for _, p := range payloads {
		b.WriteString("data: " + p + "\n\n")
	}
	return b.String()
}

const (
	streamReq = `{"model":"m1","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	usageReq  = `{"model":"m1","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`
	head      = `{"id":"chatcmpl-fake-1","object":"chat.completion.chunk","created":7,"model":"m1","choices":[{"index":0,"delta":`
	roleChunk = head + `{"role":"assistant","content":""},"finish_reason":null}]}`
)

// finish is the finishing chunk with reason and an optional usage suffix.
func finish(reason, usage string) string {
	return head + `{},"finish_reason":"` + reason + `"}]` + usage + `}`
}

func TestStreamShapes(t *testing.T) {
	text := []ev{
		{"message_start", wire.StreamEvent{}},
		{"text_delta", wire.StreamEvent{Text: "Hel"}},
		{"textDelta", wire.StreamEvent{Text: "lo"}}, // the camelCase type works too
		{"message_stop", wire.StreamEvent{StopReason: "endTurn", PromptTokens: 5, CompletionTokens: 2}},
	}
	tools := []ev{
		{"message_start", wire.StreamEvent{}},
		{"tool_call_start", wire.StreamEvent{ToolCallID: "c1", ToolName: "set_basemap"}},
		{"tool_call_delta", wire.StreamEvent{ToolCallID: "c1", ToolArgumentsDelta: `{"style":`}},
		{"tool_call_delta", wire.StreamEvent{ToolCallID: "c1", ToolArgumentsDelta: `"dark"}`}},
		{"tool_call_stop", wire.StreamEvent{ToolCallID: "c1", ToolArguments: json.RawMessage(`{"style":"dark"}`)}},
		{"tool_call_start", wire.StreamEvent{ToolCallID: "c2", ToolName: "ping"}},
		{"tool_call_stop", wire.StreamEvent{ToolCallID: "c2"}},
		{"message_stop", wire.StreamEvent{StopReason: "toolCall", PromptTokens: 9, CompletionTokens: 4}},
	}
	const textChunks = head + `{"content":"Hel"},"finish_reason":null}]}`
	const textChunks2 = head + `{"content":"lo"},"finish_reason":null}]}`
	u := func(p, c int) string {
		return `{"prompt_tokens":` + itoa(p) + `,"completion_tokens":` + itoa(c) + `,"total_tokens":` + itoa(p+c) + `}`
	}
	usageOnly := func(p, c int) string {
		return `{"id":"chatcmpl-fake-1","object":"chat.completion.chunk","created":7,"model":"m1","choices":[],"usage":` + u(p, c) + `}`
	}
	partsC1 := []string{
		head + `{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"set_basemap","arguments":""}}]},"finish_reason":null}]}`,
		head + `{"tool_calls":[{"index":0,"function":{"arguments":"{\"style\":"}}]},"finish_reason":null}]}`,
		head + `{"tool_calls":[{"index":0,"function":{"arguments":"\"dark\"}"}}]},"finish_reason":null}]}`,
		head + `{"tool_calls":[{"index":1,"id":"c2","type":"function","function":{"name":"ping","arguments":""}}]},"finish_reason":null}]}`,
		head + `{"tool_calls":[{"index":1,"function":{"arguments":"{}"}}]},"finish_reason":null}]}`,
	}
	wholeCalls := []string{
		head + `{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"set_basemap","arguments":"{\"style\":\"dark\"}"}}]},"finish_reason":null}]}`,
		head + `{"tool_calls":[{"index":1,"id":"c2","type":"function","function":{"name":"ping","arguments":"{}"}}]},"finish_reason":null}]}`,
	}
	cat := func(parts ...[]string) []string {
		var out []string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	cases := []struct {
		name   string
		shape  Shape
		req    string
		events []ev
		err    error
		want   string
	}{
		{"openai text", "", streamReq, text, nil, data(roleChunk, textChunks, textChunks2, finish("stop", ""), "[DONE]")},
		{"openai text with usage", ShapeOpenAI, usageReq, text, nil, data(roleChunk, textChunks, textChunks2, finish("stop", ""), usageOnly(5, 2), "[DONE]")},
		{"openai tool calls", ShapeOpenAI, streamReq, tools, nil, data(cat([]string{roleChunk}, partsC1, []string{finish("tool_calls", ""), "[DONE]"})...)},
		{"whole-calls text with usage", ShapeWholeCalls, usageReq, text, nil, data(roleChunk, textChunks, textChunks2, finish("stop", `,"usage":`+u(5, 2)), "[DONE]")},
		{"whole-calls tool calls", ShapeWholeCalls, streamReq, tools, nil, data(cat([]string{roleChunk}, wholeCalls, []string{finish("tool_calls", ""), "[DONE]"})...)},
		{"whole-calls tool calls with usage", ShapeWholeCalls, usageReq, tools, nil, data(cat([]string{roleChunk}, wholeCalls, []string{finish("tool_calls", `,"usage":`+u(9, 4)), "[DONE]"})...)},
		{"no-done text", ShapeNoDone, streamReq, text, nil, data(roleChunk, textChunks, textChunks2, finish("stop", ""))},
		{"no-done with usage", ShapeNoDone, usageReq, text, nil, data(roleChunk, textChunks, textChunks2, finish("stop", ""), usageOnly(5, 2))},
		{"max tokens", "", streamReq, []ev{{"message_stop", wire.StreamEvent{StopReason: "maxTokens"}}}, nil, data(roleChunk, finish("length", ""), "[DONE]")},
		{"content filter", "", streamReq, []ev{{"message_start", wire.StreamEvent{}}, {"message_stop", wire.StreamEvent{StopReason: "contentFilter"}}}, nil, data(roleChunk, finish("content_filter", ""), "[DONE]")},
		{"the model's name from message_start", "", streamReq, []ev{{"message_start", wire.StreamEvent{Model: "scripted-model"}}, {"message_stop", wire.StreamEvent{StopReason: "endTurn"}}}, nil,
			data(strings.Replace(roleChunk, `"m1"`, `"scripted-model"`, 1), strings.Replace(finish("stop", ""), `"m1"`, `"scripted-model"`, 1), "[DONE]")},
		{"an error event", "", streamReq, []ev{{"message_start", wire.StreamEvent{}}, {"text_delta", wire.StreamEvent{Text: "Hel"}}, {"error", wire.StreamEvent{ErrorMessage: "it broke", ErrorCode: "scripted_error"}}}, nil,
			data(roleChunk, textChunks, `{"error":{"message":"it broke","type":"server_error","code":"scripted_error"}}`)},
		{"an error event in whole-calls", ShapeWholeCalls, streamReq, []ev{{"error", wire.StreamEvent{ErrorMessage: "no"}}}, nil,
			data(`{"error":{"message":"no","type":"server_error","code":"server_error"}}`)},
		{"the answer fails before its end", "", streamReq, []ev{{"message_start", wire.StreamEvent{}}}, errors.New("the model is gone"), data(roleChunk, `{"error":{"message":"the model is gone","type":"server_error","code":"server_error"}}`)},
		{"the answer ends without a terminal event", "", streamReq, nil, nil, data(`{"error":{"message":"the model ended its answer without message_stop or error","type":"server_error","code":"server_error"}}`)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, hs := Start(t, Options{Shape: c.shape, Created: 7, Answer: script(c.err, c.events...)})
			resp, body := post(t, hs.URL+ChatPath, c.req)
			require.Equal(t, http.StatusOK, resp.StatusCode, body)
			assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
			assert.Equal(t, c.want, body)
		})
	}
}

// itoa is strconv.Itoa for the table above.
func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestEmitAfterTheEnd(t *testing.T) {
	var second error
	_, hs := Start(t, Options{Answer: func(_ context.Context, _ *wire.ChatRequest, emit func(string, wire.StreamEvent) error) error {
		_ = emit("message_stop", wire.StreamEvent{StopReason: "endTurn"})
		second = emit("text_delta", wire.StreamEvent{Text: "late"})
		return nil
	}})
	_, body := post(t, hs.URL+ChatPath, streamReq)
	assert.ErrorIs(t, second, errEnded)
	assert.NotContains(t, body, "late")
}

func TestNotStreaming(t *testing.T) {
	cases := []struct {
		name   string
		events []ev
		status int
		want   string
	}{
		{"text", []ev{{"message_start", wire.StreamEvent{}}, {"text_delta", wire.StreamEvent{Text: "Hi"}}, {"message_stop", wire.StreamEvent{StopReason: "endTurn", PromptTokens: 3, CompletionTokens: 1}}}, 200,
			`{"id":"chatcmpl-fake-1","object":"chat.completion","created":0,"model":"m1","choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`},
		{"a tool call", []ev{{"tool_call_start", wire.StreamEvent{ToolCallID: "c1", ToolName: "ping"}}, {"tool_call_stop", wire.StreamEvent{ToolCallID: "c1", ToolArguments: json.RawMessage(`{"a":1}`)}}, {"message_stop", wire.StreamEvent{StopReason: "toolCall"}}}, 200,
			`{"id":"chatcmpl-fake-1","object":"chat.completion","created":0,"model":"m1","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"ping","arguments":"{\"a\":1}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}}`},
		{"an error", []ev{{"error", wire.StreamEvent{ErrorMessage: "no", ErrorCode: "x"}}}, 500, `{"error":{"message":"no","type":"server_error","code":"x"}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, hs := Start(t, Options{Answer: script(nil, c.events...)})
			resp, body := post(t, hs.URL+ChatPath, `{"model":"m1","messages":[{"role":"user","content":"hi"}]}`)
			assert.Equal(t, c.status, resp.StatusCode)
			assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
			assert.Equal(t, c.want, body)
		})
	}
}

func TestDecodeRequest(t *testing.T) {
	temp := 0.25
	cases := []struct {
		name string
		body string
		want *wire.ChatRequest
		err  string
	}{
		{"a whole conversation", `{"model":"gpt-x","max_tokens":100,"temperature":0.25,"stream":true,
			"messages":[
				{"role":"system","content":"Be brief."},
				{"role":"developer","content":"Use tools."},
				{"role":"user","content":[{"type":"text","text":"make it "},{"type":"image_url","image_url":{"url":"x"}},{"type":"text","text":"dark"}]},
				{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"set_basemap","arguments":"{\"style\":\"dark\"}"}},{"id":"c2","type":"function","function":{"name":"ping","arguments":""}}]},
				{"role":"tool","tool_call_id":"c1","content":"done"},
				{"role":"tool","tool_call_id":"c9","name":"other","content":"?"},
				{"role":"assistant","content":"It is dark."}],
			"tools":[{"type":"function","function":{"name":"set_basemap","description":"Sets the basemap.","parameters":{"type":"object","properties":{"style":{"type":"string"}}}}}],
			"tool_choice":"required"}`,
			&wire.ChatRequest{Model: "gpt-x", MaxTokens: 100, Temperature: &temp, System: "Be brief.\n\nUse tools.",
				Messages: []wire.ChatMessage{
					{Role: "user", Content: "make it dark"},
					{Role: "assistant", ToolCalls: []wire.ToolCall{{ID: "c1", Name: "set_basemap", Arguments: json.RawMessage(`{"style":"dark"}`)}, {ID: "c2", Name: "ping", Arguments: json.RawMessage(`{}`)}}},
					{Role: "tool", Content: "done", ToolCallID: "c1", ToolName: "set_basemap"},
					{Role: "tool", Content: "?", ToolCallID: "c9", ToolName: "other"},
					{Role: "assistant", Content: "It is dark."},
				},
				Tools:      []wire.ToolSpec{{Name: "set_basemap", Description: "Sets the basemap.", InputSchema: json.RawMessage(`{"type":"object","properties":{"style":{"type":"string"}}}`)}},
				ToolChoice: &wire.ToolChoice{Mode: "required"}}, ""},
		{"a named tool choice and max_completion_tokens", `{"messages":[{"role":"user","content":"x"}],"max_completion_tokens":9,"tool_choice":{"type":"function","function":{"name":"ping"}}}`,
			&wire.ChatRequest{MaxTokens: 9, Messages: []wire.ChatMessage{{Role: "user", Content: "x"}}, ToolChoice: &wire.ToolChoice{Mode: "specific", ToolName: "ping"}}, ""},
		{"tool choice auto and none", `{"messages":[{"role":"user","content":"x"}],"tool_choice":"none"}`,
			&wire.ChatRequest{Messages: []wire.ChatMessage{{Role: "user", Content: "x"}}, ToolChoice: &wire.ToolChoice{Mode: "none"}}, ""},
		{"not JSON", `{`, nil, "not an OpenAI chat completions request"},
		{"no messages", `{"model":"m"}`, nil, "messages is empty"},
		{"an unknown role", `{"messages":[{"role":"robot","content":"x"}]}`, nil, `messages[0].role "robot"`},
		{"arguments that are not JSON", `{"messages":[{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"f","arguments":"{oops"}}]}]}`, nil, "arguments is not JSON"},
		{"a bad tool choice", `{"messages":[{"role":"user","content":"x"}],"tool_choice":"sometimes"}`, nil, `tool_choice "sometimes"`},
		{"a tool without a name", `{"messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{}}]}`, nil, "tools[0].function.name is empty"},
		{"content of another kind", `{"messages":[{"role":"user","content":5}]}`, nil, "messages[0].content"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := DecodeRequest([]byte(c.body))
			if c.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
}

func TestRequestsRecorded(t *testing.T) {
	var seen *wire.ChatRequest
	s, hs := Start(t, Options{Answer: func(ctx context.Context, req *wire.ChatRequest, emit func(string, wire.StreamEvent) error) error {
		seen = req
		return okAnswer(ctx, req, emit)
	}})
	_, body := post(t, hs.URL+"/some/prefix"+ChatPath, usageReq, "Authorization", "Bearer sk-1", "X-Other", "yes")
	assert.Contains(t, body, `"content":"ok"`)
	resp, _ := post(t, hs.URL+"/v1/models", `{}`)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	reqs := s.Requests()
	require.Len(t, reqs, 2)
	r := reqs[0]
	assert.Equal(t, "POST", r.Method)
	assert.Equal(t, "/some/prefix"+ChatPath, r.Path)
	assert.Equal(t, "Bearer sk-1", r.Header.Get("Authorization"))
	assert.Equal(t, "yes", r.Header.Get("X-Other"))
	assert.Equal(t, usageReq, string(r.Body))
	assert.True(t, r.Stream)
	assert.True(t, r.IncludeUsage)
	require.NotNil(t, r.Chat)
	assert.Equal(t, seen, r.Chat)
	assert.Equal(t, "m1", r.Chat.Model)
	assert.Equal(t, "/v1/models", reqs[1].Path)
	assert.Nil(t, reqs[1].Chat)

	// The record is a copy.
	reqs[0].Header.Set("Authorization", "changed")
	assert.Equal(t, "Bearer sk-1", s.Requests()[0].Header.Get("Authorization"))
}

func TestAPIKey(t *testing.T) {
	s, hs := Start(t, Options{APIKey: "sk-right"})
	const unauthorized = `{"error":{"message":"Incorrect API key provided. Send Authorization: Bearer \u003ckey\u003e with the key this server was given.","type":"invalid_request_error","code":"invalid_api_key"}}`
	cases := []struct {
		name   string
		header []string
		status int
	}{
		{"no key", nil, 401},
		{"a wrong key", []string{"Authorization", "Bearer sk-wrong"}, 401},
		{"the key without Bearer", []string{"Authorization", "sk-right"}, 401},
		{"the key", []string{"Authorization", "Bearer sk-right"}, 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, body := post(t, hs.URL+ChatPath, streamReq, c.header...)
			require.Equal(t, c.status, resp.StatusCode, body)
			if c.status == 401 {
				assert.Equal(t, unauthorized, body)
				assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
			} else {
				assert.Contains(t, body, "data: [DONE]")
			}
		})
	}
	reqs := s.Requests()
	require.Len(t, reqs, 4)
	for _, r := range reqs[:3] {
		assert.Nil(t, r.Chat, "a refused request is not decoded")
	}
}

func TestCORS(t *testing.T) {
	preflight := func(t *testing.T, url string) *http.Response {
		req, _ := http.NewRequest(http.MethodOptions, url, nil)
		req.Header.Set("Origin", "http://page.test")
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "authorization, content-type")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp
	}
	for _, allow := range []string{"http://page.test", "*"} {
		t.Run("allowed "+allow, func(t *testing.T) {
			_, hs := Start(t, Options{AllowOrigin: allow, APIKey: "k"})
			resp := preflight(t, hs.URL+ChatPath)
			assert.Equal(t, http.StatusNoContent, resp.StatusCode)
			assert.Equal(t, allow, resp.Header.Get("Access-Control-Allow-Origin"))
			assert.Equal(t, "authorization, content-type", resp.Header.Get("Access-Control-Allow-Headers"))
			assert.Equal(t, "POST, OPTIONS", resp.Header.Get("Access-Control-Allow-Methods"))
			resp, _ = post(t, hs.URL+ChatPath, streamReq, "Origin", "http://page.test", "Authorization", "Bearer k")
			assert.Equal(t, 200, resp.StatusCode)
			assert.Equal(t, allow, resp.Header.Get("Access-Control-Allow-Origin"))
			// A refusal is readable by the page too.
			resp, _ = post(t, hs.URL+ChatPath, streamReq, "Origin", "http://page.test")
			assert.Equal(t, 401, resp.StatusCode)
			assert.Equal(t, allow, resp.Header.Get("Access-Control-Allow-Origin"))
		})
	}
	t.Run("not allowed", func(t *testing.T) {
		_, hs := Start(t, Options{})
		resp := preflight(t, hs.URL+ChatPath)
		assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
		for _, h := range []string{"Access-Control-Allow-Origin", "Access-Control-Allow-Headers", "Access-Control-Allow-Methods"} {
			assert.Empty(t, resp.Header.Values(h), h)
		}
		resp, _ = post(t, hs.URL+ChatPath, streamReq, "Origin", "http://page.test")
		assert.Equal(t, 200, resp.StatusCode)
		assert.Empty(t, resp.Header.Values("Access-Control-Allow-Origin"))
	})
}

func TestFailures(t *testing.T) {
	// second is a chunk of the second request, of a server with Created 0.
	second := func(s string) string {
		return strings.NewReplacer(`"created":7`, `"created":0`, "chatcmpl-fake-1", "chatcmpl-fake-2").Replace(s)
	}
	long := script(nil,
		ev{"message_start", wire.StreamEvent{}},
		ev{"text_delta", wire.StreamEvent{Text: "one "}},
		ev{"text_delta", wire.StreamEvent{Text: "two "}},
		ev{"text_delta", wire.StreamEvent{Text: "three"}},
		ev{"message_stop", wire.StreamEvent{StopReason: "endTurn"}},
	)
	cases := []struct {
		name    string
		fail    *Failure
		status  int
		headers map[string]string
		body    string // exact, unless contains
		has     string
	}{
		{"429 with Retry-After", ErrorStatus(429, "rate_limit_error", "rate_limit_exceeded", "Slow down.", "Retry-After", "20"), 429,
			map[string]string{"Retry-After": "20", "Content-Type": "application/json"}, `{"error":{"message":"Slow down.","type":"rate_limit_error","code":"rate_limit_exceeded"}}`, ""},
		{"404 model not found", ErrorStatus(404, "invalid_request_error", "model_not_found", "The model `m1` does not exist."), 404,
			nil, `{"error":{"message":"The model ` + "`m1`" + ` does not exist.","type":"invalid_request_error","code":"model_not_found"}}`, ""},
		{"500", ErrorStatus(500, "server_error", "server_error", "Oops."), 500, nil, `{"error":{"message":"Oops.","type":"server_error","code":"server_error"}}`, ""},
		{"401", ErrorStatus(401, "invalid_request_error", "invalid_api_key", "Bad key."), 401, nil, `{"error":{"message":"Bad key.","type":"invalid_request_error","code":"invalid_api_key"}}`, ""},
		{"a bare status", &Failure{Status: 503, Body: "down"}, 503, nil, "down", ""},
		{"status 0 is 500", &Failure{}, 500, nil, "", ""},
		{"an HTML page", HTMLPage(200), 200, map[string]string{"Content-Type": "text/html; charset=utf-8"}, "", "<!doctype html>"},
		{"a redirect", Redirect(307, "http://elsewhere.test/v1/chat/completions"), 307, map[string]string{"Location": "http://elsewhere.test/v1/chat/completions"}, "", ""},
		{"a cut stream", Cut(2), 200, map[string]string{"Content-Type": "text/event-stream"},
			data(second(roleChunk), second(head)+`{"content":"one "},"finish_reason":null}]}`), ""},
		{"an aborted stream", &Failure{CutAfter: 2, Abort: true}, 200, nil, "", "<read error: unexpected EOF>"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, hs := Start(t, Options{Answer: long, Fail: func(n int) *Failure {
				if n == 2 {
					return c.fail
				}
				return nil
			}})
			resp, body := post(t, hs.URL+ChatPath, streamReq)
			require.Equal(t, 200, resp.StatusCode, "the first request is answered")
			assert.Contains(t, body, `"content":"three"`)

			resp, body = post(t, hs.URL+ChatPath, streamReq)
			assert.Equal(t, c.status, resp.StatusCode, body)
			for k, v := range c.headers {
				assert.Equal(t, v, resp.Header.Get(k), k)
			}
			if c.has != "" {
				assert.Contains(t, body, c.has)
			} else {
				assert.Equal(t, c.body, body)
			}
			assert.NotContains(t, body, "three")
			assert.NotContains(t, body, "[DONE]")

			resp, body = post(t, hs.URL+ChatPath, streamReq)
			assert.Equal(t, 200, resp.StatusCode, "the third request is answered")
			assert.Contains(t, body, "[DONE]")
			assert.Len(t, s.Requests(), 3)
		})
	}
}

func TestMethodAndPath(t *testing.T) {
	_, hs := Start(t, Options{})
	resp, err := http.Get(hs.URL + ChatPath)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, 405, resp.StatusCode)
	assert.Equal(t, "POST", resp.Header.Get("Allow"))
	assert.Contains(t, string(b), `"code":"method_not_allowed"`)

	resp, body := post(t, hs.URL+"/v1/chat/completions/extra", streamReq)
	assert.Equal(t, 404, resp.StatusCode)
	assert.Contains(t, body, `"code":"not_found"`)

	resp, body = post(t, hs.URL+ChatPath, `{"messages":[]}`)
	assert.Equal(t, 400, resp.StatusCode)
	assert.Contains(t, body, `"code":"invalid_request"`)
}

// TestHandlerWithoutServer: the handler serves through a recorder too.
func TestHandlerWithoutServer(t *testing.T) {
	s := New(Options{})
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, ChatPath, strings.NewReader(streamReq)))
	assert.Equal(t, 200, rec.Code)
	assert.True(t, strings.HasSuffix(rec.Body.String(), "data: [DONE]\n\n"), rec.Body.String())
}

func TestBodyBoundAndNoRecord(t *testing.T) {
	s, hs := Start(t, Options{MaxBodyBytes: int64(len(streamReq)), NoRecord: true})
	resp, body := post(t, hs.URL+ChatPath, streamReq)
	assert.Equal(t, 200, resp.StatusCode, body)
	resp, body = post(t, hs.URL+ChatPath, streamReq+" ")
	assert.Equal(t, 413, resp.StatusCode)
	assert.Equal(t, `{"error":{"message":"the request body is larger than `+itoa(len(streamReq))+` bytes","type":"invalid_request_error","code":"request_too_large"}}`, body)
	assert.Empty(t, s.Requests())
}
