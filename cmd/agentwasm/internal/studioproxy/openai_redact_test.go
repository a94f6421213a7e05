// Tests that the API key never reaches the page through the OpenAI model,
// whatever part of the upstream's answer echoes it and however it is split.

package studioproxy

import (
	"context"
	"encoding/json"
	"github.com/agentwasm/agentwasm/internal/openai"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentwasm/agentwasm/internal/rawjson"
)

// oaTestKey is the key of the redaction tests.
const oaTestKey = "sk-proj-Ab3dEf9_xQ"

// oaChunkOf returns one SSE event carrying a chunk with delta.
func oaChunkOf(t *testing.T, delta map[string]any) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"model": "m", "choices": []any{map[string]any{"index": 0, "delta": delta}}})
	require.NoError(t, err)
	return "data: " + string(b) + "\n\n"
}

// oaArgsDelta returns a delta with one part of tool call 0.
func oaArgsDelta(id, name, args string) map[string]any {
	fn := map[string]any{"arguments": args}
	if name != "" {
		fn["name"] = name
	}
	call := map[string]any{"index": 0, "function": fn}
	if id != "" {
		call["id"] = id
	}
	return map[string]any{"tool_calls": []any{call}}
}

// oaAssertNoKey fails t when any field of any event holds the key in a
// form the redactor replaces, and when the joined text or the joined
// arguments of a call do.
func oaAssertNoKey(t *testing.T, key string, events []oaRec) {
	t.Helper()
	var text strings.Builder // one run of text: between tool calls
	args := map[string]string{}
	for i, e := range events {
		if e.Ev.ToolCallID != "" {
			if redactOracle(key, text.String()) {
				t.Fatalf("a run of text holds the key: %q", text.String())
			}
			text.Reset()
		}
		for _, field := range []string{e.Ev.Model, e.Ev.Text, e.Ev.ToolCallID, e.Ev.ToolName, e.Ev.ToolArgumentsDelta, string(e.Ev.ToolArguments), e.Ev.ErrorMessage, e.Ev.StopReason} {
			if redactOracle(key, field) {
				t.Fatalf("event %d (%s) holds the key: %q", i, e.Name, field)
			}
		}
		text.WriteString(e.Ev.Text)
		args[e.Ev.ToolCallID] += e.Ev.ToolArgumentsDelta
	}
	if redactOracle(key, text.String()) {
		t.Fatalf("the last run of text holds the key: %q", text.String())
	}
	for id, a := range args {
		if redactOracle(key, a) {
			t.Fatalf("the joined arguments of %q hold the key: %q", id, a)
		}
	}
}

func TestOpenAIRedactsTheKey(t *testing.T) {
	k := oaTestKey
	tests := []struct {
		name        string
		contentType string
		status      int
		body        func(t *testing.T) string
		want        []oaRec
	}{
		{
			name: "content split across three chunks",
			body: func(t *testing.T) string {
				return oaChunkOf(t, map[string]any{"content": "your key is " + k[:4]}) +
					oaChunkOf(t, map[string]any{"content": k[4:10]}) +
					oaChunkOf(t, map[string]any{"content": k[10:] + ", keep it safe"}) +
					"data: [DONE]\n\n"
			},
			want: []oaRec{
				{EventMessageStart, Event{Model: "m"}},
				{EventTextDelta, Event{Text: "your key is "}},
				{EventTextDelta, Event{Text: "[redacted], keep it safe"}},
				{EventMessageStop, Event{StopReason: StopEndTurn}},
			},
		},
		{
			name: "content wrapped across lines, then refusal",
			body: func(t *testing.T) string {
				return oaChunkOf(t, map[string]any{"content": "key: " + k[:7] + "\n   "}) +
					oaChunkOf(t, map[string]any{"refusal": k[7:]}) +
					"data: [DONE]\n\n"
			},
			want: []oaRec{
				{EventMessageStart, Event{Model: "m"}},
				{EventTextDelta, Event{Text: "key: "}},
				{EventTextDelta, Event{Text: "[redacted]"}},
				{EventMessageStop, Event{StopReason: StopEndTurn}},
			},
		},
		{
			name: "a start of the key at the end is sent at the end",
			body: func(t *testing.T) string {
				return oaChunkOf(t, map[string]any{"content": "almost " + k[:8]}) + "data: [DONE]\n\n"
			},
			want: []oaRec{
				{EventMessageStart, Event{Model: "m"}},
				{EventTextDelta, Event{Text: "almost "}},
				{EventTextDelta, Event{Text: k[:8]}},
				{EventMessageStop, Event{StopReason: StopEndTurn}},
			},
		},
		{
			// Text that could begin the key ("…s " for "sk-…") is held back
			// only until the next piece: a tool call is one, so the text
			// still comes before the call, as the upstream sent it.
			name: "text held back is sent before a tool call that follows it",
			body: func(t *testing.T) string {
				return oaChunkOf(t, map[string]any{"content": "Checking the parks "}) +
					oaChunkOf(t, oaArgsDelta("c1", "get_weather", `{"place":"Oslo"}`)) +
					"data: [DONE]\n\n"
			},
			want: []oaRec{
				{EventMessageStart, Event{Model: "m"}},
				{EventTextDelta, Event{Text: "Checking the park"}},
				{EventTextDelta, Event{Text: "s "}},
				{EventToolCallStart, Event{ToolCallID: "c1", ToolName: "get_weather"}},
				{EventToolCallDelta, Event{ToolCallID: "c1", ToolArgumentsDelta: `{"place":"Oslo"}`}},
				{EventToolCallStop, Event{ToolCallID: "c1", ToolArguments: rawjson.Message(`{"place":"Oslo"}`)}},
				{EventMessageStop, Event{StopReason: StopToolCall}},
			},
		},
		{
			name: "tool name, id and arguments split across chunks",
			body: func(t *testing.T) string {
				return oaChunkOf(t, oaArgsDelta("call_"+k, "get_weather_"+k, `{"place":"`+k[:5])) +
					oaChunkOf(t, oaArgsDelta("", "", k[5:12])) +
					oaChunkOf(t, oaArgsDelta("", "", k[12:]+`"}`)) +
					"data: [DONE]\n\n"
			},
			want: []oaRec{
				{EventMessageStart, Event{Model: "m"}},
				{EventToolCallStart, Event{ToolCallID: "call_[redacted]", ToolName: "get_weather_[redacted]"}},
				{EventToolCallDelta, Event{ToolCallID: "call_[redacted]", ToolArgumentsDelta: `{"place":"`}},
				{EventToolCallDelta, Event{ToolCallID: "call_[redacted]", ToolArgumentsDelta: `[redacted]"}`}},
				{EventToolCallStop, Event{ToolCallID: "call_[redacted]", ToolArguments: rawjson.Message(`{"place":"[redacted]"}`)}},
				{EventMessageStop, Event{StopReason: StopToolCall}},
			},
		},
		{
			name: "arguments holding the key JSON-escaped, the name in a later chunk",
			body: func(t *testing.T) string {
				esc := redactJSONEscape(k, true, false)
				return oaChunkOf(t, oaArgsDelta("c1", "", `{"a":"`+esc[:15])) +
					oaChunkOf(t, oaArgsDelta("", "get_weather", esc[15:]+`","b":1}`)) +
					"data: [DONE]\n\n"
			},
			want: []oaRec{
				{EventMessageStart, Event{Model: "m"}},
				{EventToolCallStart, Event{ToolCallID: "c1", ToolName: "get_weather"}},
				{EventToolCallDelta, Event{ToolCallID: "c1", ToolArgumentsDelta: `{"a":"[redacted]","b":1}`}},
				{EventToolCallStop, Event{ToolCallID: "c1", ToolArguments: rawjson.Message(`{"a":"[redacted]","b":1}`)}},
				{EventMessageStop, Event{StopReason: StopToolCall}},
			},
		},
		{
			name: "the model name",
			body: func(t *testing.T) string {
				return `data: {"model":"m-` + k + `","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"
			},
			want: []oaRec{
				{EventMessageStart, Event{Model: "m-[redacted]"}},
				{EventTextDelta, Event{Text: "hi"}},
				{EventMessageStop, Event{StopReason: StopEndTurn}},
			},
		},
		{
			name: "an error event wrapping the key, after held-back text",
			body: func(t *testing.T) string {
				return oaChunkOf(t, map[string]any{"content": "ok " + k[:3]}) +
					"event: error\ndata: {\"error\":{\"message\":\"bad key " + k[:9] + "\\n  " + k[9:] + "\"}}\n\n"
			},
			want: []oaRec{
				{EventMessageStart, Event{Model: "m"}},
				{EventTextDelta, Event{Text: "ok "}},
				{EventTextDelta, Event{Text: k[:3]}},
				{EventError, Event{ErrorCode: "upstream_error", ErrorMessage: "the upstream reported an error during the answer: bad key [redacted]"}},
			},
		},
		{
			name:        "a whole JSON answer",
			contentType: "application/json",
			body: func(t *testing.T) string {
				return `{"model":"m","choices":[{"index":0,"message":{"content":"the key ` + k + ` is set","tool_calls":[{"id":"` + k + `","function":{"name":"n` + k + `","arguments":"{\"k\":\"` + k + `\"}"}}]},"finish_reason":"tool_calls"}]}`
			},
			want: []oaRec{
				{EventMessageStart, Event{Model: "m"}},
				{EventTextDelta, Event{Text: "the key [redacted] is set"}},
				{EventToolCallStart, Event{ToolCallID: "[redacted]", ToolName: "n[redacted]"}},
				{EventToolCallDelta, Event{ToolCallID: "[redacted]", ToolArgumentsDelta: `{"k":"[redacted]"}`}},
				{EventToolCallStop, Event{ToolCallID: "[redacted]", ToolArguments: rawjson.Message(`{"k":"[redacted]"}`)}},
				{EventMessageStop, Event{StopReason: StopToolCall}},
			},
		},
		{
			name:        "an error body wrapping the key across lines",
			contentType: "text/plain",
			status:      http.StatusUnauthorized,
			body: func(t *testing.T) string {
				return "Incorrect API key provided: " + k[:6] + "\r\n\t" + k[6:12] + "\n" + k[12:] + ".\n"
			},
			want: []oaRec{
				{EventError, Event{ErrorCode: "upstream_unauthorized", ErrorMessage: "the endpoint at @E refused the API key (HTTP 401): Incorrect API key provided: [redacted].; check AGENTWASM_API_KEY (or OPENAI_API_KEY) (and that it may use this model)"}},
			},
		},
		{
			name:        "an error body with the key URL-escaped and spaced",
			contentType: "application/json",
			status:      http.StatusBadRequest,
			body: func(t *testing.T) string {
				return `{"error":{"message":"see https://x.example/?key=` + redactEach(k, " ", func(c string) string { return "%" + strings.ToUpper(hexByte(c[0])) }) + `"}}`
			},
			want: []oaRec{
				{EventError, Event{ErrorCode: "upstream_rejected", ErrorMessage: "the endpoint at @E rejected the request (HTTP 400): see https://x.example/?key=[redacted]; check --upstream and the model name"}},
			},
		},
		{
			// The message collapses the white space, so the end of the
			// bound would be its start.
			name:        "an error body cut by its bound inside the key",
			contentType: "text/plain",
			status:      http.StatusInternalServerError,
			body: func(t *testing.T) string {
				return strings.Repeat(" ", openai.MaxErrorBodyBytes-8) + k
			},
			want: []oaRec{
				{EventError, Event{ErrorCode: "upstream_unavailable", ErrorMessage: "the endpoint at @E failed (HTTP 500); retry later, or check the server's logs"}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := tt.body(t)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				ct := tt.contentType
				if ct == "" {
					ct = "text/event-stream"
				}
				w.Header().Set("Content-Type", ct)
				if tt.status != 0 {
					w.WriteHeader(tt.status)
				}
				_, _ = io.WriteString(w, body)
			}))
			defer srv.Close()
			rec := &oaRecorder{}
			require.NoError(t, NewOpenAI(OpenAIOptions{URL: srv.URL, APIKey: k}).Stream(context.Background(), oaStreamReq(), rec))
			got := rec.got(t)
			// "@E" in a message stands for the endpoint's URL.
			want := slices.Clone(tt.want)
			for i := range want {
				want[i].Ev.ErrorMessage = strings.ReplaceAll(want[i].Ev.ErrorMessage, "@E", srv.URL+"/v1/chat/completions")
			}
			assert.Equal(t, want, got)
			oaCheckGrammar(t, rec.events)
			oaAssertNoKey(t, k, got)
		})
	}
}

// hexByte returns c as two lower-case hex digits.
func hexByte(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}

// TestOpenAINoKeyPassesEverything proves the redaction costs nothing
// without a key: the translation gets no redactor at all (a nil interface,
// not a typed nil), and text that would be held back with one goes at once.
func TestOpenAINoKeyPassesEverything(t *testing.T) {
	m := NewOpenAI(OpenAIOptions{URL: "http://127.0.0.1:1"})
	assert.Nil(t, m.red)
	assert.True(t, m.keyRedactor() == nil, "no key: a nil openai.Redactor")
	assert.True(t, NewOpenAI(OpenAIOptions{APIKey: oaTestKey}).keyRedactor() != nil)
	rec := &oaRecorder{}
	tr := m.translator(nil, "m", rec, time.Now())
	_, err := tr.Event("", `{"choices":[{"index":0,"delta":{"content":"`+oaTestKey[:5]+`"}}]}`)
	require.NoError(t, err)
	assert.Equal(t, []oaRec{{EventMessageStart, Event{Model: "m"}}, {EventTextDelta, Event{Text: oaTestKey[:5]}}}, rec.events)
}

// TestOpenAIUsageNeverCarriesTheKey sends usage fields as strings holding
// the key, in the chunk after the first: usage is read as numbers only, so
// the answer fails as malformed and the key is in no event.
func TestOpenAIUsageNeverCarriesTheKey(t *testing.T) {
	srv := oaServeBody(t, []byte(`data: {"model":"m","choices":[{"index":0,"delta":{"content":"hi"}}]}`+"\n\n"+`data: {"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":"`+oaTestKey+`","completion_tokens":"`+oaTestKey+`"}}`+"\n\ndata: [DONE]\n\n"))
	rec := &oaRecorder{}
	require.NoError(t, NewOpenAI(OpenAIOptions{URL: srv.URL, APIKey: oaTestKey}).Stream(context.Background(), oaStreamReq(), rec))
	got := rec.got(t)
	require.NotEmpty(t, got)
	assert.Equal(t, "upstream_malformed", got[len(got)-1].Ev.ErrorCode)
	oaAssertNoKey(t, oaTestKey, got)
}
