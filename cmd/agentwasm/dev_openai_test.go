// Tests of the scripted model's OpenAI-compatible endpoint on agentwasm
// dev: a turn with a page tool in two rounds streams OpenAI chunks, an
// error streams an error object, the origin policy refuses other origins and
// rebinding hosts as under /api (with CORS for an allowed origin), the key
// is required when set, with an upstream the endpoint is not served, and
// the dev server's own upstream client reads what it (and the fake's other
// shapes) stream.

package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentwasm/agentwasm/cmd/agentwasm/internal/studioproxy"
	"github.com/agentwasm/agentwasm/internal/wire"
	"github.com/agentwasm/agentwasm/session"
	"github.com/agentwasm/agentwasm/testing/fakeopenai"
)

// openAIChunks decodes an OpenAI stream's data lines; done reports a final
// data: [DONE].
func openAIChunks(t *testing.T, body string) (chunks []map[string]any, done bool) {
	t.Helper()
	for _, block := range strings.Split(strings.TrimSpace(body), "\n\n") {
		payload, ok := strings.CutPrefix(block, "data: ")
		require.True(t, ok, "a block that is not one data line: %q", block)
		require.False(t, done, "data after [DONE]")
		if payload == "[DONE]" {
			done = true
			continue
		}
		var c map[string]any
		require.NoError(t, json.Unmarshal([]byte(payload), &c), payload)
		chunks = append(chunks, c)
	}
	return chunks, done
}

// delta is the first choice's delta of a chunk and its finish reason.
func delta(c map[string]any) (map[string]any, any) {
	choices, _ := c["choices"].([]any)
	if len(choices) == 0 {
		return nil, nil
	}
	ch := choices[0].(map[string]any)
	d, _ := ch["delta"].(map[string]any)
	return d, ch["finish_reason"]
}

const basemapTool = `"tools":[{"type":"function","function":{"name":"set_basemap","description":"Sets the basemap.","parameters":{"type":"object","properties":{"style":{"type":"string"}}}}}]`

func TestDevOpenAIScriptedTurn(t *testing.T) {
	srv := devServer(t, devOptions{WebDir: t.TempDir(), DistDir: t.TempDir()})
	url := srv.URL + openAIChatPath

	// Round one: the page tool, as an OpenAI tool call.
	resp, body := jsonPost(t, url, `{"model":"scripted-model","stream":true,"stream_options":{"include_usage":true},
		"messages":[{"role":"system","content":"You drive a map."},{"role":"user","content":"make the map dark"}],`+basemapTool+`}`)
	require.Equal(t, 200, resp.StatusCode, body)
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	chunks, done := openAIChunks(t, body)
	assert.True(t, done, body)
	require.GreaterOrEqual(t, len(chunks), 3, body)
	first, _ := delta(chunks[0])
	assert.Equal(t, "assistant", first["role"])
	assert.Equal(t, "chat.completion.chunk", chunks[0]["object"])
	assert.Equal(t, "scripted-model", chunks[0]["model"])
	var id, name, args string
	var finish any
	for _, c := range chunks {
		d, f := delta(c)
		if f != nil {
			finish = f
		}
		calls, _ := d["tool_calls"].([]any)
		for _, x := range calls {
			tc := x.(map[string]any)
			assert.Equal(t, float64(0), tc["index"])
			fn := tc["function"].(map[string]any)
			if v, ok := tc["id"].(string); ok {
				id = v
				assert.Equal(t, "function", tc["type"])
				name = fn["name"].(string)
			}
			args += fn["arguments"].(string)
		}
	}
	assert.Equal(t, "tool_calls", finish)
	assert.Equal(t, "set_basemap", name)
	assert.JSONEq(t, `{"style":"dark"}`, args)
	require.NotEmpty(t, id)
	last := chunks[len(chunks)-1]
	assert.Equal(t, []any{}, last["choices"], "the usage-only chunk comes last")
	assert.Contains(t, last, "usage")

	// Round two: the tool's result, answered with text.
	resp, body = jsonPost(t, url, `{"model":"scripted-model","stream":true,"messages":[
		{"role":"user","content":"make the map dark"},
		{"role":"assistant","content":null,"tool_calls":[{"id":"`+id+`","type":"function","function":{"name":"set_basemap","arguments":"{\"style\":\"dark\"}"}}]},
		{"role":"tool","tool_call_id":"`+id+`","content":"{\"status\":\"ok\",\"data\":{\"changed\":true}}"}],`+basemapTool+`}`)
	require.Equal(t, 200, resp.StatusCode, body)
	chunks, done = openAIChunks(t, body)
	assert.True(t, done)
	text := ""
	finish = nil
	for _, c := range chunks {
		d, f := delta(c)
		if s, ok := d["content"].(string); ok {
			text += s
		}
		if f != nil {
			finish = f
		}
	}
	assert.Equal(t, "Done: the basemap is now dark.", text)
	assert.Equal(t, "stop", finish)
	assert.NotContains(t, body, `"usage"`, "no usage without include_usage")

	// The model's error: an error object, no [DONE].
	resp, body = jsonPost(t, url, `{"stream":true,"messages":[{"role":"user","content":"fail please"}]}`)
	require.Equal(t, 200, resp.StatusCode)
	chunks, done = openAIChunks(t, body)
	assert.False(t, done)
	errObj, _ := chunks[len(chunks)-1]["error"].(map[string]any)
	require.NotNil(t, errObj, body)
	assert.Equal(t, "scripted_error", errObj["code"])
	assert.Contains(t, errObj["message"], "asked to fail")

	// Another path under /openai/ is not an endpoint.
	resp, body = jsonPost(t, srv.URL+"/openai/v1/models", `{}`)
	assert.Equal(t, 404, resp.StatusCode)
	assert.Contains(t, body, `"code":"not_found"`)
}

func TestDevOpenAIRefusals(t *testing.T) {
	const allowed = "http://127.0.0.1:5173"
	var log syncBuffer
	srv := devServer(t, devOptions{WebDir: t.TempDir(), DistDir: t.TempDir(), AllowOrigins: []string{allowed}, Log: &log})
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	self := "http://127.0.0.1:" + port
	const body = `{"stream":true,"messages":[{"role":"user","content":"hi"}]}`
	cases := []struct {
		name    string
		method  string
		host    string
		headers []string
		status  int
		code    string
		acao    string
	}{
		{"the server's own page", "POST", "", []string{"Origin", self, "Content-Type", "application/json"}, 200, "", ""},
		{"no Origin (curl, Go, a desktop host)", "POST", "", []string{"Content-Type", "application/json"}, 200, "", ""},
		{"an allowed origin", "POST", "", []string{"Origin", allowed, "Content-Type", "application/json"}, 200, "", allowed},
		{"an allowed origin's preflight", "OPTIONS", "", []string{"Origin", allowed, "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "authorization, content-type"}, 204, "", allowed},
		{"another origin", "POST", "", []string{"Origin", "http://evil.example", "Content-Type", "application/json"}, 403, "forbidden_origin", ""},
		{"another port of the same host", "POST", "", []string{"Origin", "http://127.0.0.1:5174", "Content-Type", "application/json"}, 403, "forbidden_origin", ""},
		{"Origin null", "POST", "", []string{"Origin", "null", "Content-Type", "application/json"}, 403, "forbidden_origin", ""},
		{"another origin's preflight", "OPTIONS", "", []string{"Origin", "http://evil.example", "Access-Control-Request-Method", "POST"}, 403, "forbidden_origin", ""},
		{"cross-site without Origin", "POST", "", []string{"Sec-Fetch-Site", "cross-site", "Content-Type", "application/json"}, 403, "forbidden_origin", ""},
		{"a rebinding host", "POST", "evil.example:" + port, []string{"Origin", "http://evil.example:" + port, "Content-Type", "application/json"}, 403, "forbidden_host", ""},
		{"a rebinding host without Origin", "POST", "evil.example:" + port, []string{"Content-Type", "application/json"}, 403, "forbidden_host", ""},
		{"a text/plain post", "POST", "", []string{"Content-Type", "text/plain"}, 415, "unsupported_media_type", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := body
			if c.method != "POST" {
				b = ""
			}
			resp, got := apiRequest(t, srv, c.method, openAIChatPath, c.host, b, c.headers...)
			require.Equal(t, c.status, resp.StatusCode, string(got))
			assert.Equal(t, c.code, errorCode(got))
			assert.Equal(t, c.acao, resp.Header.Get("Access-Control-Allow-Origin"))
			if c.status == 200 {
				assert.Contains(t, string(got), "data: [DONE]")
			} else {
				assert.NotContains(t, string(got), "data:", "nothing of the model reaches a refused request")
			}
			if c.status == 204 {
				assert.Contains(t, strings.ToLower(resp.Header.Get("Access-Control-Allow-Headers")), "authorization")
				assert.Contains(t, resp.Header.Get("Access-Control-Allow-Methods"), "POST")
			}
		})
	}
	assert.Contains(t, log.String(), `api: refused 403 forbidden_origin: POST "/openai/v1/chat/completions"`)
}

func TestDevOpenAIKey(t *testing.T) {
	srv := devServer(t, devOptions{WebDir: t.TempDir(), DistDir: t.TempDir(), OpenAIKey: "sk-fake-123"})
	const body = `{"stream":true,"messages":[{"role":"user","content":"hi"}]}`
	cases := []struct {
		name    string
		headers []string
		status  int
	}{
		{"no key", nil, 401},
		{"a wrong key", []string{"Authorization", "Bearer sk-fake-124"}, 401},
		{"the key", []string{"Authorization", "Bearer sk-fake-123"}, 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, got := jsonPost(t, srv.URL+openAIChatPath, body, c.headers...)
			require.Equal(t, c.status, resp.StatusCode, got)
			if c.status == 401 {
				assert.Equal(t, "invalid_api_key", errorCode([]byte(got)))
				assert.NotContains(t, got, "sk-fake-123", "the key is never in an answer")
				return
			}
			assert.Contains(t, got, "data: [DONE]")
		})
	}
	// The Studio proxy's routes do not ask for it.
	resp, got := jsonPost(t, srv.URL+"/api/v1/studio/ai/chat", chatBody)
	assert.Equal(t, 200, resp.StatusCode, got)
}

func TestDevOpenAIWithUpstream(t *testing.T) {
	const key = "sk-up-0000000000"
	var mu sync.Mutex
	var auths, bodies []string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		auths, bodies = append(auths, r.Header.Get("Authorization")), append(bodies, string(b))
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, `data: {"id":"x","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"Hello."},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(up.Close)
	srv := devServer(t, devOptions{WebDir: t.TempDir(), DistDir: t.TempDir(), Upstream: up.URL, Model: "m", APIKey: key})

	// The page's request passes through with the server's key, and the
	// answer comes back as the upstream wrote it.
	resp, body := jsonPost(t, srv.URL+openAIChatPath, `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, body, `"content":"Hello."`)
	mu.Lock()
	assert.Equal(t, []string{"Bearer " + key}, auths)
	assert.JSONEq(t, `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`, bodies[0])
	mu.Unlock()

	// A model the server does not allow is refused, and nothing is sent.
	resp, body = jsonPost(t, srv.URL+openAIChatPath, `{"model":"gpt-expensive","stream":true,"messages":[]}`)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Equal(t, "model_not_allowed", errorCode([]byte(body)))
	assert.NotContains(t, body, key)
	// Another path under /openai/ is not passed through.
	resp, _ = jsonPost(t, srv.URL+"/openai/v1/embeddings", `{"model":"m"}`)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	mu.Lock()
	assert.Len(t, auths, 1, "only the allowed chat request reached the upstream")
	mu.Unlock()
}

// TestDevOpenAIAsUpstream: the OpenAI stream the endpoint writes is one the
// dev server's own OpenAI-compatible upstream client reads — a session
// through one dev server whose --upstream is another's /openai/v1 runs a
// turn with a page tool, with that other server's key; and the fake's other
// shapes read the same.
func TestDevOpenAIAsUpstream(t *testing.T) {
	const key = "sk-chain-0000000000"
	inner := devServer(t, devOptions{WebDir: t.TempDir(), DistDir: t.TempDir(), OpenAIKey: key})
	whole := fakeopenai.New(fakeopenai.Options{Shape: fakeopenai.ShapeWholeCalls, Answer: scriptedAnswer()})
	noDone := fakeopenai.New(fakeopenai.Options{Shape: fakeopenai.ShapeNoDone, Answer: scriptedAnswer()})
	wholeSrv, noDoneSrv := httptest.NewServer(whole), httptest.NewServer(noDone)
	t.Cleanup(wholeSrv.Close)
	t.Cleanup(noDoneSrv.Close)
	for _, c := range []struct{ name, upstream string }{
		{"another dev server's /openai/v1", inner.URL + "/openai/v1"},
		{"whole-calls", wholeSrv.URL},
		{"no-done", noDoneSrv.URL},
	} {
		t.Run(c.name, func(t *testing.T) {
			outer := devServer(t, devOptions{WebDir: t.TempDir(), DistDir: t.TempDir(), Upstream: c.upstream, Model: "scripted-model", APIKey: key})
			var calls []string
			s, err := session.New(session.Options{BaseURL: outer.URL + "/api", DisableToolDiscovery: true,
				Tools: []session.ToolDefinition{{Name: "set_basemap", Description: "Sets the basemap.", InputSchema: session.RawJSON(`{"type":"object","properties":{"style":{"type":"string"}}}`)}},
				Execute: session.ExecutorFunc(func(_ context.Context, call session.ToolCall) (session.ToolResult, error) {
					calls = append(calls, call.Name+" "+string(call.Args))
					return session.ToolResult{Status: session.ToolOK, Data: session.RawJSON(`{"changed":true}`)}, nil
				}),
			})
			require.NoError(t, err)
			defer s.Close()
			turn := s.Chat(context.Background(), "make the map dark", session.ChatOptions{})
			require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
			assert.Equal(t, []string{`set_basemap {"style":"dark"}`}, calls)
			assert.Contains(t, turn.Text, "Done: the basemap is now dark.")
		})
	}
}

// scriptedAnswer is the dev server's scripted model as a fakeopenai Answer.
func scriptedAnswer() fakeopenai.Answer {
	return func(ctx context.Context, req *wire.ChatRequest, emit func(string, wire.StreamEvent) error) error {
		return studioproxy.Scripted{}.Stream(ctx, req, studioproxy.SinkFunc(emit))
	}
}

// TestDevOpenAIPassthroughSharesTheBound: the pass-through spends the same
// key as the proxy, so it takes the same --max-concurrent slots: with one
// slot held by a pass-through request, a chat and a second pass-through
// request are answered 429, and nothing more reaches the upstream.
func TestDevOpenAIPassthroughSharesTheBound(t *testing.T) {
	up := newCountingUpstream(t, true)
	srv := devServer(t, devOptions{WebDir: t.TempDir(), DistDir: t.TempDir(), Upstream: up.URL, Model: "m", APIKey: "sk-bound-0000000000", MaxConcurrent: 1})
	held := make(chan struct{})
	go func() {
		defer close(held)
		resp, err := http.Post(srv.URL+openAIChatPath, "application/json", strings.NewReader(`{"model":"m","stream":true,"messages":[]}`))
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	<-up.entered // the first request holds the one slot
	resp, body := jsonPost(t, srv.URL+openAIChatPath, `{"model":"m","stream":true,"messages":[]}`)
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode, body)
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))
	resp, body = jsonPost(t, srv.URL+"/api/v1/studio/ai/chat", `{"messages":[{"role":"user","content":"hi"}]}`)
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode, body)
	assert.Equal(t, int64(1), up.n.Load(), "only the first request reached the upstream")
	close(up.block)
	<-held
}
