// Tests of the OpenAI-compatible model against loopback upstreams serving
// streams (testdata/openai) and failing in each way it handles: the HTTP
// around internal/openai, whose own tests cover the wire's shapes.

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

	"github.com/agentwasm/agentwasm/internal/openai"
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

// TestOpenAIRequestHTTP checks what reaches the upstream: the body
// internal/openai builds (the translation itself is tested there), at the
// chat completions path, with the key and the JSON content type; and a call
// of a renamed tool in the answer comes back under the session's name.
func TestOpenAIRequestHTTP(t *testing.T) {
	req := oaStreamReq()
	req.Model = "gpt-test"
	req.System = "Publish with studio.journey.publish_map."
	req.ToolChoice = &ToolChoice{Mode: "specific", ToolName: "studio.journey.publish_map"}
	want, _, err := openai.BuildRequest(req, "unused-default")
	require.NoError(t, err)

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

	assert.Equal(t, string(want), string(gotBody), "the body is openai.BuildRequest's")
	assert.Contains(t, string(gotBody), `"content":"Publish with studio_journey_publish_map."`)
	assert.Equal(t, "/v1/chat/completions", gotPath)
	assert.Equal(t, "Bearer sk-test-123", gotHeader.Get("Authorization"))
	assert.Equal(t, "application/json", gotHeader.Get("Content-Type"))
	assert.Equal(t, "text/event-stream", gotHeader.Get("Accept"))
	assert.Equal(t, []oaRec{
		{EventMessageStart, Event{Model: "gpt-test"}},
		{EventToolCallStart, Event{ToolCallID: "call_9", ToolName: "studio.journey.publish_map"}},
		{EventToolCallDelta, Event{ToolCallID: "call_9", ToolArgumentsDelta: "{}"}},
		{EventToolCallStop, Event{ToolCallID: "call_9", ToolArguments: rawjson.Message("{}")}},
		{EventMessageStop, Event{StopReason: StopToolCall}},
	}, rec.got(t))

	t.Run("bad tool choice", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			t.Error("a request that cannot be translated reached the upstream")
		}))
		defer srv.Close()
		req := oaStreamReq()
		req.ToolChoice = &ToolChoice{Mode: "sometimes"}
		rec := &oaRecorder{}
		require.NoError(t, NewOpenAI(OpenAIOptions{URL: srv.URL}).Stream(context.Background(), req, rec))
		got := rec.got(t)
		require.Len(t, got, 1)
		assert.Equal(t, "bad_request", got[0].Ev.ErrorCode)
	})
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
			name: "404",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusNotFound)
				_, _ = io.WriteString(w, `{"error":{"message":"model \"nope\" not found","type":"not_found_error"}}`)
			},
			code:     "upstream_not_found",
			contains: []string{"HTTP 404", `model "nope" not found`, "--upstream"},
		},
		{
			name: "first chunk not a chat completion",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = io.WriteString(w, "data: {\"choices\": nope}\n\n")
			},
			code:     "upstream_not_openai",
			contains: []string{"not a chat completion", "--upstream"},
		},
		{
			name: "malformed chunk",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = io.WriteString(w, "data: {\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"choices\": nope}\n\n")
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
			code:     "upstream_not_openai",
			contains: []string{"HTML page", "--upstream"},
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
