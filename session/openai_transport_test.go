//go:build !js && !wasip1

// The direct transport (Options.OpenAI) against an in-process endpoint:
// turns with text and tool calls, the request it sends, the key's handling
// and each failure's code.

package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentwasm/agentwasm/internal/openai"
	"github.com/agentwasm/agentwasm/session"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// oaChunk is one data line of an OpenAI chat completion stream.
func oaChunk(delta string, finish string) string {
	f := "null"
	if finish != "" {
		f = `"` + finish + `"`
	}
	return `data: {"id":"c1","object":"chat.completion.chunk","model":"m1","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + f + "}]}\n\n"
}

// oaEndpoint is an in-process OpenAI-compatible endpoint answering each
// request with the next of answers (the last repeats), recording requests.
type oaEndpoint struct {
	mu      sync.Mutex
	answers []func(w http.ResponseWriter)
	bodies  []map[string]any
	auths   []string
}

func (e *oaEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var v map[string]any
	_ = json.Unmarshal(body, &v)
	e.mu.Lock()
	n := len(e.bodies)
	e.bodies = append(e.bodies, v)
	e.auths = append(e.auths, r.Header.Get("Authorization"))
	answer := e.answers[min(n, len(e.answers)-1)]
	e.mu.Unlock()
	if r.URL.Path != "/v1/chat/completions" {
		http.NotFound(w, r)
		return
	}
	answer(w)
}

// stream answers with an event stream of chunks.
func stream(chunks ...string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, c := range chunks {
			io.WriteString(w, c)
		}
	}
}

// status answers with a status, headers (name, value pairs) and a body.
func status(code int, body string, headers ...string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.WriteHeader(code)
		io.WriteString(w, body)
	}
}

// directSession returns a session talking to e directly, with the page's
// tool studio.journey.publish_map.
func directSession(t *testing.T, e *oaEndpoint, key session.TokenSource, exec session.Executor, events *[]session.Event) *session.Session {
	t.Helper()
	base := startHandler(t, e)
	base = strings.TrimSuffix(base, "/api")
	s, err := session.New(session.Options{
		OpenAI:               &session.OpenAIEndpoint{BaseURL: base + "/v1", APIKey: key},
		Model:                "m1",
		System:               "Use studio.journey.publish_map to publish.",
		DisableToolDiscovery: true,
		Tools:                []session.ToolDefinition{tool("studio.journey.publish_map")},
		Execute:              exec,
		OnEvent:              func(ev session.Event) { *events = append(*events, ev) },
	})
	require.NoError(t, err)
	return s
}

func TestOpenAIDirectTurn(t *testing.T) {
	e := &oaEndpoint{answers: []func(http.ResponseWriter){
		stream(
			oaChunk(`{"role":"assistant","content":"Publishing."}`, ""),
			oaChunk(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"studio_journey_publish_map","arguments":"{\"id\""}}]}`, ""),
			oaChunk(`{"tool_calls":[{"index":0,"function":{"arguments":":7}"}}]}`, "tool_calls"),
			`data: {"id":"c1","object":"chat.completion.chunk","model":"m1","choices":[],"usage":{"prompt_tokens":11,"completion_tokens":5,"total_tokens":16}}`+"\n\n",
			"data: [DONE]\n\n"),
		stream(oaChunk(`{"content":"Done: version 2 is live."}`, "stop"), "data: [DONE]\n\n"),
	}}
	exec := &recordingExec{}
	var events []session.Event
	s := directSession(t, e, session.StaticToken("sk-test-0123456789abcdef"), exec, &events)
	turn := chatWith(t, context.Background(), s, "Publish map 7", session.ChatOptions{})

	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	assert.Equal(t, "Publishing.Done: version 2 is live.", turn.Text)
	require.Len(t, exec.Calls(), 1)
	assert.Equal(t, "studio.journey.publish_map", exec.Calls()[0].Name, "the tool name maps back")
	assert.JSONEq(t, `{"id":7}`, string(exec.Calls()[0].Args))
	assert.Equal(t, int64(11), turn.Usage.InputTokens)
	assert.Equal(t, int64(5), turn.Usage.OutputTokens)

	require.Len(t, e.bodies, 2)
	first, second := e.bodies[0], e.bodies[1]
	assert.Equal(t, "m1", first["model"])
	assert.Equal(t, true, first["stream"])
	assert.Equal(t, map[string]any{"include_usage": true}, first["stream_options"])
	msgs := first["messages"].([]any)
	assert.Equal(t, map[string]any{"role": "system", "content": "Use studio_journey_publish_map to publish."}, msgs[0])
	tools := first["tools"].([]any)
	assert.Equal(t, "studio_journey_publish_map", tools[0].(map[string]any)["function"].(map[string]any)["name"])
	hist := second["messages"].([]any)
	require.Len(t, hist, 4, "system, user, assistant with the call, the tool result")
	assistant := hist[2].(map[string]any)
	assert.Equal(t, "studio_journey_publish_map", assistant["tool_calls"].([]any)[0].(map[string]any)["function"].(map[string]any)["name"])
	assert.Equal(t, "call_1", hist[3].(map[string]any)["tool_call_id"])
	assert.Equal(t, []string{"Bearer sk-test-0123456789abcdef", "Bearer sk-test-0123456789abcdef"}, e.auths)
}

func TestOpenAIDirectFailures(t *testing.T) {
	const key = "sk-secret-0123456789abcdef"
	tests := []struct {
		name     string
		answers  []func(http.ResponseWriter)
		wantCode string
		wantMsg  []string
	}{
		{"401 names the key", []func(http.ResponseWriter){status(401, `{"error":{"message":"Incorrect API key provided: `+key+`","code":"invalid_api_key"}}`)},
			session.ErrorCodeUpstreamUnauthorized, []string{"refused the API key", "HTTP 401", "the model's apiKey"}},
		{"404 names the model and the base", []func(http.ResponseWriter){status(404, `{"error":{"message":"model \"nope\" not found, try pulling it first"}}`)},
			session.ErrorCodeUpstreamNotFound, []string{"HTTP 404", "not found, try pulling it first", "the model's baseUrl"}},
		{"429 says when", []func(http.ResponseWriter){status(429, `{"error":{"message":"Rate limit reached"}}`, "Retry-After", "7")},
			session.ErrorCodeUpstreamRateLimited, []string{"retry after 7 seconds"}},
		{"5xx", []func(http.ResponseWriter){status(503, `Service Unavailable`)},
			session.ErrorCodeUpstreamUnavailable, []string{"HTTP 503", "retry later"}},
		{"an HTML page", []func(http.ResponseWriter){status(200, `<!doctype html><p>hi`, "Content-Type", "text/html; charset=utf-8")},
			session.ErrorCodeUpstreamNotOpenAI, []string{"HTML page"}},
		{"the Studio grammar", []func(http.ResponseWriter){stream("event: text_delta\ndata: {\"text\":\"hi\"}\n\n")},
			session.ErrorCodeUpstreamNotOpenAI, []string{`"text_delta" events`}},
		{"not JSON", []func(http.ResponseWriter){stream("data: hello\n\n")},
			session.ErrorCodeUpstreamNotOpenAI, []string{"not a chat completion"}},
		{"an error chunk echoing the key", []func(http.ResponseWriter){stream(oaChunk(`{"content":"Par"}`, ""), `data: {"error":{"message":"overloaded for `+key+`"}}`+"\n\n")},
			session.ErrorCodeUpstreamError, []string{"overloaded for [redacted]"}},
		{"a key where the message is cut", []func(http.ResponseWriter){status(500, strings.Repeat("x ", 148)+key)},
			session.ErrorCodeUpstreamUnavailable, []string{"x x x", "…"}},
		{"cut before the finish", []func(http.ResponseWriter){stream(oaChunk(`{"content":"Par"}`, ""))},
			session.ErrorCodeStreamTruncated, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var events []session.Event
			s := directSession(t, &oaEndpoint{answers: tt.answers}, session.StaticToken(key), nil, &events)
			turn := chatWith(t, context.Background(), s, "hi", session.ChatOptions{})
			assert.Equal(t, session.StatusError, turn.Status)
			assert.Equal(t, tt.wantCode, turn.ErrorCode, turn.ErrorMessage)
			for _, w := range tt.wantMsg {
				assert.Contains(t, turn.ErrorMessage, w)
			}
			all, _ := json.Marshal(struct {
				T session.Turn
				E []session.Event
				M []session.Message
			}{turn, events, s.Messages()})
			assert.NotContains(t, string(all), key, "the key never leaves the request")
			assert.NotContains(t, string(all), key[:12], "nor a part of it")
		})
	}
}

// TestOpenAIDirectKeyRefresh: after a 401 the key is asked again, refreshed,
// and the request sent once more; a session without a key sends none.
func TestOpenAIDirectKeyRefresh(t *testing.T) {
	e := &oaEndpoint{answers: []func(http.ResponseWriter){
		status(401, `{"error":{"message":"expired"}}`),
		stream(oaChunk(`{"content":"ok"}`, "stop"), "data: [DONE]\n\n"),
	}}
	var forced []bool
	key := session.TokenFunc(func(_ context.Context, force bool) (string, error) {
		forced = append(forced, force)
		if force {
			return "sk-fresh-0123456789", nil
		}
		return "sk-stale-0123456789", nil
	})
	var events []session.Event
	s := directSession(t, e, key, nil, &events)
	turn := chatWith(t, context.Background(), s, "hi", session.ChatOptions{})
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	assert.Equal(t, []bool{false, true}, forced)
	assert.Equal(t, []string{"Bearer sk-stale-0123456789", "Bearer sk-fresh-0123456789"}, e.auths)

	e2 := &oaEndpoint{answers: []func(http.ResponseWriter){stream(oaChunk(`{"content":"ok"}`, "stop"))}}
	s2 := directSession(t, e2, nil, nil, &events)
	turn = chatWith(t, context.Background(), s2, "hi", session.ChatOptions{})
	require.Equal(t, session.StatusCompleted, turn.Status, "a stream that ends after its finish_reason, without [DONE], is complete: "+turn.ErrorMessage)
	assert.Equal(t, []string{""}, e2.auths)
}

func TestOpenAIDirectOptions(t *testing.T) {
	tests := []struct {
		base    string
		wantErr string
	}{
		{"http://127.0.0.1:11434/v1", ""},
		{"/openai/v1", ""},
		{"https://api.example/v1?key=sk", "query, a fragment or credentials (?, # or @); give the URL without them and pass the key through OpenAI.APIKey"},
		{"https://user:sk@api.example/v1", "query, a fragment or credentials (?, # or @); give the URL without them and pass the key through OpenAI.APIKey"},
		{"ftp://api.example", "give the API's base"},
		{"ftp://user:sk-hidden@api.example/v1", "give the API's base"},
		{"//api.example/v1", "give the API's base"},
		{`/\api.example/v1`, "give the API's base"},
		{"", "give the API's base"},
	}
	for _, tt := range tests {
		_, err := session.New(session.Options{OpenAI: &session.OpenAIEndpoint{BaseURL: tt.base}, DisableToolDiscovery: true})
		if tt.wantErr == "" {
			assert.NoError(t, err, tt.base)
		} else if assert.Error(t, err, tt.base) {
			assert.Contains(t, err.Error(), tt.wantErr)
			assert.NotContains(t, err.Error(), "sk", "the error does not repeat a secret")
		}
	}
	_, err := session.New(session.Options{OpenAI: &session.OpenAIEndpoint{BaseURL: "/v1"}, Transport: session.TransportFunc(nil)})
	assert.ErrorContains(t, err, "not both")
}

// TestOpenAIDirectSplitKey: an endpoint that echoes the key split across two
// pieces of text, and of a call's arguments, shows [redacted] in every event
// the observer sees, not only in the finished turn; text that only looked
// like the key's start is held back and then shown whole.
func TestOpenAIDirectSplitKey(t *testing.T) {
	const key = "sk-split-0123456789abcdef"
	e := &oaEndpoint{answers: []func(http.ResponseWriter){
		stream(
			oaChunk(`{"content":"the key is sk-spl"}`, ""),
			oaChunk(`{"content":"it-0123456789abcdef, and sk-"}`, ""),
			oaChunk(`{"content":"not it"}`, ""),
			oaChunk(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"studio_journey_publish_map","arguments":"{\"k\":\"sk-split-0123"}}]}`, ""),
			oaChunk(`{"tool_calls":[{"index":0,"function":{"arguments":"456789abcdef\"}"}}]}`, "tool_calls"),
			"data: [DONE]\n\n"),
		stream(oaChunk(`{"content":"done sk-sp"}`, "stop"), "data: [DONE]\n\n"),
	}}
	exec := &recordingExec{}
	var events []session.Event
	s := directSession(t, e, session.StaticToken(key), exec, &events)
	turn := chatWith(t, context.Background(), s, "hi", session.ChatOptions{})
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	assert.Equal(t, "the key is [redacted], and sk-not itdone sk-sp", turn.Text, "text held back comes out whole, in order")
	var streamed, args strings.Builder
	for _, ev := range events {
		if ev.Chat != nil {
			streamed.WriteString(ev.Chat.Text)
			args.WriteString(ev.Chat.ToolArgumentsDelta)
		}
	}
	assert.NotContains(t, streamed.String(), key, "the pieces the observer saw, put together, hold no key")
	assert.NotContains(t, args.String(), key, "nor do the argument deltas")
	assert.Equal(t, turn.Text, streamed.String(), "the observer saw the same text as the turn")
	require.Len(t, exec.Calls(), 1)
	assert.JSONEq(t, `{"k":"[redacted]"}`, string(exec.Calls()[0].Args))
}

// The translator's event types are written again in internal/openai (which
// cannot import session); the direct transport passes them on as they are,
// so they must stay the session's.
func TestOpenAIEventTypesAreTheSessions(t *testing.T) {
	for _, c := range []struct{ translator, session string }{
		{openai.EventMessageStart, session.EventMessageStart},
		{openai.EventTextDelta, session.EventTextDelta},
		{openai.EventToolCallStart, session.EventToolCallStart},
		{openai.EventToolCallDelta, session.EventToolCallDelta},
		{openai.EventToolCallStop, session.EventToolCallStop},
		{openai.EventMessageStop, session.EventMessageStop},
	} {
		assert.Equal(t, c.session, c.translator)
	}
}

// TestOpenAIDirectRedirectKeepsTheKey: an endpoint that redirects (307) to
// another origin gets no request through to it: the native fetcher refuses
// to carry the key there, the turn fails saying so, and the other server
// sees nothing. A redirect within the endpoint's origin is followed, key
// and all.
func TestOpenAIDirectRedirectKeepsTheKey(t *testing.T) {
	const key = "sk-redirect-0123456789"
	var mu sync.Mutex
	var elsewhere []string
	other := startHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		elsewhere = append(elsewhere, r.Header.Get("Authorization"))
		mu.Unlock()
		stream(oaChunk(`{"content":"hijacked"}`, "stop"))(w)
	}))
	other = strings.TrimSuffix(other, "/api")
	for _, tc := range []struct {
		name, to   string
		wantStatus session.Status
	}{
		{"to another origin", other + "/v1/chat/completions", session.StatusError},
		{"within the origin", "/moved/v1/chat/completions", session.StatusCompleted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var auths []string
			base := startHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				auths = append(auths, r.Header.Get("Authorization"))
				mu.Unlock()
				if r.URL.Path == "/v1/chat/completions" {
					http.Redirect(w, r, tc.to, http.StatusTemporaryRedirect)
					return
				}
				stream(oaChunk(`{"content":"ok"}`, "stop"))(w)
			}))
			base = strings.TrimSuffix(base, "/api")
			s, err := session.New(session.Options{
				OpenAI: &session.OpenAIEndpoint{BaseURL: base + "/v1", APIKey: session.StaticToken(key)}, Model: "m", DisableToolDiscovery: true,
			})
			require.NoError(t, err)
			turn := chatWith(t, context.Background(), s, "hi", session.ChatOptions{})
			assert.Equal(t, tc.wantStatus, turn.Status, turn.ErrorMessage)
			mu.Lock()
			defer mu.Unlock()
			assert.Empty(t, elsewhere, "no request reached the other origin")
			if tc.wantStatus == session.StatusError {
				assert.Contains(t, turn.ErrorMessage, "redirect")
				assert.NotContains(t, turn.ErrorMessage, key)
				assert.Equal(t, []string{"Bearer " + key}, auths)
			} else {
				assert.Equal(t, "ok", turn.Text)
				assert.Equal(t, []string{"Bearer " + key, "Bearer " + key}, auths, "the same origin's redirect carries the key")
			}
		})
	}
}

// TestOpenAIDirectUnauthorizedSaysWhichKey: a 401 says the key was refused
// when one was sent, and that one is wanted when the key source (set, but
// answering "") sent none.
func TestOpenAIDirectUnauthorizedSaysWhichKey(t *testing.T) {
	tests := []struct {
		name string
		key  session.TokenSource
		want string
	}{
		{"no key source", nil, "wants an API key (HTTP 401)"},
		{"a source answering no key", session.StaticToken(""), "wants an API key (HTTP 401)"},
		{"a key", session.StaticToken("sk-wrong-0123456789"), "refused the API key (HTTP 401)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &oaEndpoint{answers: []func(http.ResponseWriter){status(401, `{"error":{"message":"no"}}`)}}
			var events []session.Event
			turn := chatWith(t, context.Background(), directSession(t, e, tt.key, nil, &events), "hi", session.ChatOptions{})
			assert.Equal(t, session.ErrorCodeUpstreamUnauthorized, turn.ErrorCode)
			assert.Contains(t, turn.ErrorMessage, tt.want)
		})
	}
}

// TestOpenAIDirectKeySourceFails: a key source that fails or panics ends the
// turn with an error naming the endpoint's key, and nothing is sent.
func TestOpenAIDirectKeySourceFails(t *testing.T) {
	for _, tc := range []struct {
		name string
		key  session.TokenFunc
		want string
	}{
		{"an error", func(context.Context, bool) (string, error) { return "", errors.New("the keychain is locked") },
			"Could not get the model endpoint's API key: the keychain is locked"},
		{"a panic", func(context.Context, bool) (string, error) { panic("no keychain") },
			"Could not get the model endpoint's API key: the token source panicked: no keychain"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &oaEndpoint{answers: []func(http.ResponseWriter){stream(oaChunk(`{"content":"ok"}`, "stop"))}}
			var events []session.Event
			s := directSession(t, e, tc.key, nil, &events)
			turn := chatWith(t, context.Background(), s, "hi", session.ChatOptions{})
			assert.Equal(t, session.StatusError, turn.Status)
			assert.Equal(t, tc.want, turn.ErrorMessage)
			assert.Empty(t, e.bodies, "nothing was sent")
		})
	}
}

// TestOpenAIDirectBounds: the Studio stream's bounds hold for an endpoint's
// answer — no answer within the first-byte bound, a silence past the idle
// bound and a frame past MaxFrameBytes each end the turn with a clear error;
// a silence after the finish_reason (no [DONE]) ends it as complete.
func TestOpenAIDirectBounds(t *testing.T) {
	// The body read first: only then does the server notice the client went away.
	hang := func(r *http.Request) { _, _ = io.Copy(io.Discard, r.Body); <-r.Context().Done() }
	tests := []struct {
		name       string
		handler    http.HandlerFunc
		wantStatus session.Status
		wantCode   string
		wantMsg    string
	}{
		{"no answer within the first-byte bound", func(w http.ResponseWriter, r *http.Request) { hang(r) },
			session.StatusError, session.ErrorCodeStreamTimeout, "The model endpoint sent no answer within 100ms"},
		{"silent mid-answer", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, oaChunk(`{"content":"Par"}`, ""))
			w.(http.Flusher).Flush()
			hang(r)
		}, session.StatusError, session.ErrorCodeStreamTimeout, "The model endpoint's answer went silent: no byte for 100ms"},
		{"silent after the finish", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, oaChunk(`{"content":"Done."}`, "stop"))
			w.(http.Flusher).Flush()
			hang(r)
		}, session.StatusCompleted, "", ""},
		{"a frame past MaxFrameBytes", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, oaChunk(`{"content":"`+strings.Repeat("x", 2048)+`"}`, ""))
		}, session.StatusError, "", "larger than the frame bound"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := strings.TrimSuffix(startHandler(t, tt.handler), "/api")
			s, err := session.New(session.Options{
				OpenAI: &session.OpenAIEndpoint{BaseURL: base + "/v1"}, Model: "m", DisableToolDiscovery: true,
				StreamFirstByteTimeout: 100 * time.Millisecond, StreamIdleTimeout: 100 * time.Millisecond, MaxFrameBytes: 1024,
			})
			require.NoError(t, err)
			turn := chatWith(t, context.Background(), s, "hi", session.ChatOptions{})
			assert.Equal(t, tt.wantStatus, turn.Status, turn.ErrorMessage)
			assert.Equal(t, tt.wantCode, turn.ErrorCode)
			assert.Contains(t, turn.ErrorMessage, tt.wantMsg)
		})
	}
}
