// A fuzz test of the OpenAI-compatible model's answer path: arbitrary bytes
// as the upstream's body, read and translated as the model does (the frame
// reader, internal/openai's translator, the key's redactor, the end-of-body
// rule), must never panic, must always end the answer in the grammar's
// order, and must never bring the API key to the page. internal/openai's
// FuzzTranslator checks the translator's grammar on its own.

package studioproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentwasm/agentwasm/internal/openai"
)

func FuzzOpenAIStream(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "openai", "*.sse"))
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("data: [DONE]\n\n"))
	f.Add([]byte("event: error\ndata: {\"error\":\"x\"}\n\n"))
	f.Add([]byte(`{"model":"m","choices":[{"index":0,"message":{"content":"hi","tool_calls":[{"function":{"name":"a.b","arguments":"{}"}}]},"finish_reason":"stop"}]}`))
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":3,\"function\":{\"arguments\":\"{\"}}]}}]}\n\ndata: [DONE]\n\n"))
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"function_call\":{\"name\":\"f\",\"arguments\":\"{}\"}},\"finish_reason\":\"function_call\"}]}\r\r"))
	// "@K" stands for the key, put in content, names, ids and arguments,
	// whole and split across chunks.
	f.Add([]byte("data: {\"model\":\"@K\",\"choices\":[{\"delta\":{\"content\":\"a @K b sk-\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"fu\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"refusal\":\"zz\\n\"}}]}\n\ndata: [DONE]\n\n"))
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"@K\",\"function\":{\"name\":\"x@K\",\"arguments\":\"{\\\"k\\\":\\\"sk-f\"}}]}}]}\n\ndata: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"u\\\\u007az\\\"}\"}}]}}]}\n\ndata: [DONE]\n\n"))
	f.Add([]byte(`{"model":"m","choices":[{"index":0,"message":{"content":"@K","tool_calls":[{"id":"@K","function":{"name":"@K","arguments":"{\"@K\":1}"}}]}}]}`))
	f.Add([]byte("event: error\ndata: {\"error\":{\"message\":\"sk-\\n fuzz\"}}\n\n"))

	const key = "sk-fuzz"
	req := oaStreamReq()
	m := NewOpenAI(OpenAIOptions{URL: "http://127.0.0.1:1", APIKey: key})
	f.Fuzz(func(t *testing.T, body []byte) {
		body = bytes.ReplaceAll(body, []byte("@K"), []byte(key))
		for _, whole := range []bool{false, true} {
			_, names, err := openai.BuildRequest(req, "")
			if err != nil {
				t.Fatal(err)
			}
			rec := &oaRecorder{}
			start := time.Now()
			ctx := context.Background()
			result := oaTranslate(ctx, bytes.NewReader(body), whole, time.Second, m.translator(names, "requested", rec, start))
			if err := m.finish(ctx, rec, start, result); err != nil {
				t.Fatalf("whole=%v: Stream would return %v", whole, err)
			}
			oaCheckGrammar(t, rec.events)
			oaAssertNoKey(t, key, rec.events)
		}
	})
}

// oaCheckGrammar fails t unless events are one answer in the proxy's
// grammar: at most one message_start, first; tool call events only for
// calls started once; every call stopped once before message_stop; and
// exactly one terminal event, last.
func oaCheckGrammar(t *testing.T, events []oaRec) {
	t.Helper()
	if len(events) == 0 {
		t.Fatal("no events: the answer has no terminal event")
	}
	started := map[string]bool{}
	stopped := map[string]bool{}
	for i, e := range events {
		last := i == len(events)-1
		switch e.Name {
		case EventMessageStart:
			if i != 0 {
				t.Fatalf("event %d: message_start after other events: %+v", i, events)
			}
		case EventTextDelta:
			if e.Ev.Text == "" {
				t.Fatalf("event %d: empty text_delta", i)
			}
		case EventToolCallStart:
			if e.Ev.ToolCallID == "" || e.Ev.ToolName == "" || started[e.Ev.ToolCallID] {
				t.Fatalf("event %d: tool call id %q or its name empty, or started twice", i, e.Ev.ToolCallID)
			}
			started[e.Ev.ToolCallID] = true
		case EventToolCallDelta, EventToolCallStop:
			if !started[e.Ev.ToolCallID] || stopped[e.Ev.ToolCallID] {
				t.Fatalf("event %d: %s for tool call %q not started or already stopped", i, e.Name, e.Ev.ToolCallID)
			}
			if e.Name == EventToolCallStop {
				stopped[e.Ev.ToolCallID] = true
				if a := bytes.TrimSpace(e.Ev.ToolArguments); len(a) > 0 && (a[0] != '{' || !json.Valid(a)) {
					t.Fatalf("event %d: toolArguments %q are not a JSON object", i, a)
				}
			}
		case EventMessageStop:
			if !last {
				t.Fatalf("event %d: message_stop is not the last event", i)
			}
			if len(stopped) != len(started) {
				t.Fatalf("message_stop with %d tool calls started but %d stopped", len(started), len(stopped))
			}
			switch e.Ev.StopReason {
			case StopEndTurn, StopToolCall, StopMaxTokens, StopContentFilter:
			default:
				t.Fatalf("message_stop with stop reason %q", e.Ev.StopReason)
			}
			if (e.Ev.StopReason == StopToolCall) != (len(started) > 0) {
				t.Fatalf("stop reason %q with %d tool calls", e.Ev.StopReason, len(started))
			}
		case EventError:
			if !last {
				t.Fatalf("event %d: error is not the last event", i)
			}
			if e.Ev.ErrorCode == "" || e.Ev.ErrorMessage == "" {
				t.Fatalf("error event without code or message: %+v", e.Ev)
			}
			if bytes.Contains([]byte(e.Ev.ErrorMessage), []byte("sk-fuzz")) {
				t.Fatal("the key leaked into an error message")
			}
		default:
			t.Fatalf("event %d: unknown event %q", i, e.Name)
		}
		if last && e.Name != EventMessageStop && e.Name != EventError {
			t.Fatalf("the answer ends with %s, not a terminal event", e.Name)
		}
	}
}
