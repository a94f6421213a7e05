// Tests of the answer half: the shapes in which endpoints send a chat
// completion (line ends, comments, multi-line data, calls without index or
// id, whole in one chunk, the legacy function_call, a whole JSON answer)
// and the events each must become.

package openai

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentwasm/agentwasm/internal/rawjson"
	"github.com/agentwasm/agentwasm/internal/wire"
)

// Events, short.
func start(model string) wire.StreamEvent {
	return wire.StreamEvent{Type: EventMessageStart, Model: model}
}
func textEv(s string) wire.StreamEvent { return wire.StreamEvent{Type: EventTextDelta, Text: s} }
func callStart(id, name string) wire.StreamEvent {
	return wire.StreamEvent{Type: EventToolCallStart, ToolCallID: id, ToolName: name}
}
func callDelta(id, args string) wire.StreamEvent {
	return wire.StreamEvent{Type: EventToolCallDelta, ToolCallID: id, ToolArgumentsDelta: args}
}

// callStop is a toolCallStop; args "" leaves toolArguments out.
func callStop(id, args string) wire.StreamEvent {
	ev := wire.StreamEvent{Type: EventToolCallStop, ToolCallID: id}
	if args != "" {
		ev.ToolArguments = rawjson.Message(args)
	}
	return ev
}
func stop(reason string, prompt, completion int64) wire.StreamEvent {
	return wire.StreamEvent{Type: EventMessageStop, StopReason: reason, PromptTokens: prompt, CompletionTokens: completion}
}
func failure(code, msg string) wire.StreamEvent {
	return wire.StreamEvent{Type: eventError, ErrorCode: code, ErrorMessage: msg}
}

// readEvents reads a .events.jsonl file: one event a line.
func readEvents(t *testing.T, path string) []wire.StreamEvent {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []wire.StreamEvent
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var ev wire.StreamEvent
		require.NoError(t, json.Unmarshal(line, &ev), "%s: %s", path, line)
		out = append(out, ev)
	}
	require.NoError(t, sc.Err())
	return out
}

func TestStreamShapes(t *testing.T) {
	openaiText, err := os.ReadFile(filepath.Join("testdata", "streams", "openai", "text.sse"))
	require.NoError(t, err)
	openaiTextWant := readEvents(t, filepath.Join("testdata", "streams", "openai", "text.events.jsonl"))
	shape := func(name string) string {
		b, err := os.ReadFile(filepath.Join("testdata", "shapes", name))
		require.NoError(t, err)
		return string(b)
	}
	const recorded = "gpt-4o-mini-2024-07-18"
	tests := []struct {
		name  string
		whole bool
		body  string
		want  []wire.StreamEvent
	}{
		{"crlf", false, strings.ReplaceAll(string(openaiText), "\n", "\r\n"), openaiTextWant},
		{"cr", false, strings.ReplaceAll(string(openaiText), "\n", "\r"), openaiTextWant},
		{"comments and multi-line data", false, ": keep-alive\n\n" +
			"data: {\"model\":\"m1\",\n" +
			"data:  \"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\\nb\"}}]}\n\n" +
			": ping\n" +
			"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n" +
			"data: [DONE]\n\n",
			[]wire.StreamEvent{start("m1"), textEv("a\nb"), stop(StopEndTurn, 0, 0)}},
		{"chunks on consecutive data lines", false, "data: {\"model\":\"m2\",\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n" +
			"data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n" +
			"data: [DONE]\n\n",
			[]wire.StreamEvent{start("m2"), textEv("x"), stop(StopEndTurn, 0, 0)}},
		{"events named message", false, "event: message\ndata: {\"model\":\"m\",\"choices\":[{\"delta\":{\"content\":\"x\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
			[]wire.StreamEvent{start("m"), textEv("x"), stop(StopEndTurn, 0, 0)}},
		{"tool calls without index or id, finish stop, no [DONE]", false,
			"data: {\"model\":\"m3\",\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"name\":\"get_weather\",\"arguments\":{\"place\":\"Rome\"}}},{\"function\":{\"name\":\"nope\"}}]},\"finish_reason\":\"stop\"}]}\n\n",
			[]wire.StreamEvent{
				start("m3"),
				callStart("call_0", "get_weather"),
				callDelta("call_0", `{"place":"Rome"}`),
				callStart("call_1", "nope"),
				callStop("call_0", `{"place":"Rome"}`),
				callStop("call_1", `{}`),
				stop(StopToolCall, 0, 0),
			}},
		{"calls keyed by id without index", false,
			"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"A\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"{\\\"place\\\":\"}}]}}]}\n\n" +
				"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"B\",\"function\":{\"name\":\"studio_journey_publish_map\",\"arguments\":\"{}\"}}]}}]}\n\n" +
				"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"A\",\"function\":{\"arguments\":\"\\\"Oslo\\\"}\"}}]}}]}\n\n" +
				"data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
			[]wire.StreamEvent{
				start("requested"),
				callStart("A", "get_weather"),
				callDelta("A", `{"place":`),
				callStart("B", "studio.journey.publish_map"),
				callDelta("B", `{}`),
				callDelta("A", `"Oslo"}`),
				callStop("A", `{"place":"Oslo"}`),
				callStop("B", `{}`),
				stop(StopToolCall, 0, 0),
			}},
		{"name after arguments, duplicate ids, unparsable arguments", false,
			"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"dup\",\"function\":{\"arguments\":\"{\\\"a\\\"\"}}]}}]}\n\n" +
				"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"name\":\"get_weather\",\"arguments\":\":1}\"}}]}}]}\n\n" +
				"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"dup\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"{oops\"}}]}}]}\n\n" +
				"data: [DONE]\n\n",
			[]wire.StreamEvent{
				start("requested"),
				callStart("dup", "get_weather"),
				callDelta("dup", `{"a":1}`),
				callStart("dup_1", "get_weather"),
				callDelta("dup_1", `{oops`),
				callStop("dup", `{"a":1}`),
				callStop("dup_1", ""),
				stop(StopToolCall, 0, 0),
			}},
		{"several calls whole in one chunk", false,
			`data: {"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"","tool_calls":[` +
				`{"id":"call_a","index":0,"type":"function","function":{"name":"get_weather","arguments":"{\"place\":\"Oslo\"}"}},` +
				`{"id":"call_b","index":1,"type":"function","function":{"name":"studio_journey_publish_map","arguments":"{\"id\":7}"}}]},"finish_reason":"tool_calls"}]}` +
				"\n\ndata: [DONE]\n\n",
			[]wire.StreamEvent{
				start("m"),
				callStart("call_a", "get_weather"),
				callDelta("call_a", `{"place":"Oslo"}`),
				callStart("call_b", "studio.journey.publish_map"),
				callDelta("call_b", `{"id":7}`),
				callStop("call_a", `{"place":"Oslo"}`),
				callStop("call_b", `{"id":7}`),
				stop(StopToolCall, 0, 0),
			}},
		{"legacy function_call", false,
			`data: {"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":null,"function_call":{"name":"get_weather","arguments":""}}}]}` + "\n\n" +
				`data: {"choices":[{"index":0,"delta":{"function_call":{"arguments":"{\"place\":"}}}]}` + "\n\n" +
				`data: {"choices":[{"index":0,"delta":{"function_call":{"arguments":"\"Rome\"}"}}}]}` + "\n\n" +
				`data: {"choices":[{"index":0,"delta":{},"finish_reason":"function_call"}]}` + "\n\ndata: [DONE]\n\n",
			[]wire.StreamEvent{
				start("m"),
				callStart("call_0", "get_weather"),
				callDelta("call_0", `{"place":`),
				callDelta("call_0", `"Rome"}`),
				callStop("call_0", `{"place":"Rome"}`),
				stop(StopToolCall, 0, 0),
			}},
		{"length cutting a tool call's arguments", false,
			"data: {\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_L\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"{\\\"pla\"}}]},\"finish_reason\":\"length\"}]}\n\ndata: [DONE]\n\n",
			[]wire.StreamEvent{
				start("m"),
				callStart("call_L", "get_weather"),
				callDelta("call_L", `{"pla`),
				callStop("call_L", ""),
				stop(StopToolCall, 0, 0),
			}},
		{"only [DONE]", false, "data: [DONE]\n\n", []wire.StreamEvent{start("requested"), stop(StopEndTurn, 0, 0)}},
		{"content filter", false, "data: {\"model\":\"m\",\"choices\":[{\"delta\":{},\"finish_reason\":\"content_filter\"}]}\n\ndata: [DONE]\n\n",
			[]wire.StreamEvent{start("m"), stop(StopContentFilter, 0, 0)}},
		{"refusal", false, `data: {"model":"m","choices":[{"index":0,"delta":{"refusal":"I can't."},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n",
			[]wire.StreamEvent{start("m"), textEv("I can't."), stop(StopEndTurn, 0, 0)}},
		{"choices other than the first are left out", false,
			`data: {"model":"m","choices":[{"index":1,"delta":{"content":"other"}},{"index":0,"delta":{"content":"first"},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n",
			[]wire.StreamEvent{start("m"), textEv("first"), stop(StopEndTurn, 0, 0)}},
		{"reasoning text is not part of the answer", false,
			`data: {"model":"m","choices":[{"index":0,"delta":{"reasoning_content":"Let me think."}}]}` + "\n\n" +
				`data: {"model":"m","choices":[{"index":0,"delta":{"reasoning":"Hmm.","content":"Hi."},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n",
			[]wire.StreamEvent{start("m"), textEv("Hi."), stop(StopEndTurn, 0, 0)}},
		{"an integer stop_reason", false,
			`data: {"model":"m","choices":[{"index":0,"delta":{"content":"Hi."},"logprobs":null,"finish_reason":"stop","stop_reason":128009}]}` + "\n\n" +
				`data: {"model":"m","choices":[],"usage":{"prompt_tokens":3,"total_tokens":5,"completion_tokens":2}}` + "\n\ndata: [DONE]\n\n",
			[]wire.StreamEvent{start("m"), textEv("Hi."), stop(StopEndTurn, 3, 2)}},
		{"a string stop_reason", false,
			`data: {"model":"m","choices":[{"index":0,"delta":{"content":"Hi."},"finish_reason":"stop","stop_reason":"</end>"}]}` + "\n\ndata: [DONE]\n\n",
			[]wire.StreamEvent{start("m"), textEv("Hi."), stop(StopEndTurn, 0, 0)}},
		{"finish without [DONE] or usage", false,
			`data: {"model":"m","choices":[{"index":0,"delta":{"content":"Hi."}}]}` + "\n\n" +
				`data: {"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n",
			[]wire.StreamEvent{start("m"), textEv("Hi."), stop(StopEndTurn, 0, 0)}},
		{"an error event", false, "event: error\ndata: {\"error\":{\"message\":\"overloaded\"}}\n\n",
			[]wire.StreamEvent{failure(CodeError, "the upstream reported an error during the answer: overloaded")}},
		{"an error event that is not JSON", false, "event: error\ndata: it broke\n\n",
			[]wire.StreamEvent{failure(CodeError, "the upstream reported an error during the answer: it broke")}},
		{"a stream of other events", false, "event: ping\ndata: {}\n\n",
			[]wire.StreamEvent{failure(CodeNotOpenAI, `the answer is a stream of "ping" events, not of chat completion chunks; check that --upstream names an OpenAI-compatible endpoint (its base, such as http://127.0.0.1:11434/v1)`)}},
		{"a cut stream", false, `data: {"model":"m","choices":[{"index":0,"delta":{"content":"Hi"}}]}` + "\n\n",
			[]wire.StreamEvent{start("m"), textEv("Hi"), failure(CodeCut, cutMessage)}},
		{"a call without a name", false,
			`data: {"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n",
			[]wire.StreamEvent{start("m"), failure(CodeMalformed, "the endpoint sent tool call 0 without a function name")}},
		{"whole JSON answer", true,
			`{"id":"chatcmpl-W","object":"chat.completion","model":"m4","choices":[{"index":0,"message":{"role":"assistant","content":"ok","tool_calls":[{"id":"call_W","type":"function","function":{"name":"studio_journey_publish_map","arguments":"{\"id\":1}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":5,"completion_tokens":6}}`,
			[]wire.StreamEvent{
				start("m4"),
				textEv("ok"),
				callStart("call_W", "studio.journey.publish_map"),
				callDelta("call_W", `{"id":1}`),
				callStop("call_W", `{"id":1}`),
				stop(StopToolCall, 5, 6),
			}},
		{"whole error body", true, `{"error":{"message":"no such model"}}`,
			[]wire.StreamEvent{failure(CodeError, "the upstream reported an error during the answer: no such model")}},
		{"whole answer that is not JSON", true, `<html>`,
			[]wire.StreamEvent{failure(CodeNotOpenAI, "")}},
		{"tool_call.sse", false, shape("tool_call.sse"), []wire.StreamEvent{
			start(recorded),
			callStart("call_Qx7bT2", "get_weather"),
			callDelta("call_Qx7bT2", `{"place"`),
			callDelta("call_Qx7bT2", `:"Berlin"}`),
			callStop("call_Qx7bT2", `{"place":"Berlin"}`),
			stop(StopToolCall, 0, 0),
		}},
		{"split_arguments.sse", false, shape("split_arguments.sse"), []wire.StreamEvent{
			start(recorded),
			callStart("call_S9", "get_weather"),
			callDelta("call_S9", `{"pla`),
			callDelta("call_S9", `ce":"Ber`),
			callDelta("call_S9", `lin"}`),
			callStop("call_S9", `{"place":"Berlin"}`),
			stop(StopToolCall, 0, 0),
		}},
		{"usage_final_chunk.sse", false, shape("usage_final_chunk.sse"), []wire.StreamEvent{
			start(recorded),
			textEv("Done."),
			stop(StopMaxTokens, 321, 64),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, names, err := BuildRequest(streamReq(), "")
			require.NoError(t, err)
			got := run(t, []byte(tt.body), tt.whole, TranslatorOptions{Names: names, Model: "requested"})
			want := tt.want
			if n := len(want); n > 0 && want[n-1].Type == eventError && want[n-1].ErrorMessage == "" {
				// Only the code is pinned: the message quotes a decoder's error.
				require.NotEmpty(t, got)
				got[len(got)-1].ErrorMessage = ""
			}
			assert.Equal(t, want, got)
			checkGrammar(t, got)
		})
	}
}

// TestStopReasonDecodes proves that the chunk types leave stop_reason out:
// vLLM sends it as null, a string, or an integer token id, and none of
// these may break the decoding of the chunk.
func TestStopReasonDecodes(t *testing.T) {
	for _, v := range []string{`null`, `128009`, `-1`, `1.5e3`, `"</s>"`, `{"a":[1]}`} {
		var c wire.OpenAIChunk
		data := `{"model":"m","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop","stop_reason":` + v + `}]}`
		require.NoError(t, wire.Unmarshal([]byte(data), &c), v)
		require.Len(t, c.Choices, 1, v)
		assert.Equal(t, "stop", c.Choices[0].FinishReason, v)
		require.NotNil(t, c.Choices[0].Delta, v)
		assert.Equal(t, "x", c.Choices[0].Delta.Content, v)
	}
}

// TestTranslatorEmitError proves an error of Emit ends the translation and
// is returned as it is.
func TestTranslatorEmitError(t *testing.T) {
	gone := &Error{Code: "gone", Message: "the client went away"}
	n := 0
	tr := NewTranslator(TranslatorOptions{Model: "m", Emit: func(wire.StreamEvent) error {
		n++
		return gone
	}})
	_, err := tr.Event("", `{"choices":[{"index":0,"delta":{"content":"x"}}]}`)
	assert.Same(t, gone, err)
	assert.Equal(t, 1, n, "the translation stops at the first failed emit")
}

// checkGrammar fails t unless events are one answer in the proxy grammar,
// as run records it: messageStart first (absent only when the answer fails
// before it), tool call events only for calls started once, every call
// stopped once before messageStop, stopReason toolCall exactly when there
// are calls, and at most one terminal event (messageStop or error), last.
func checkGrammar(t testing.TB, events []wire.StreamEvent) {
	t.Helper()
	if len(events) == 0 {
		t.Fatal("no events: the answer has no terminal event")
	}
	started := map[string]bool{}
	stopped := map[string]bool{}
	for i, e := range events {
		last := i == len(events)-1
		if i == 0 && e.Type != EventMessageStart && e.Type != eventError {
			t.Fatalf("the answer starts with %s, not messageStart: %+v", e.Type, events)
		}
		switch e.Type {
		case EventMessageStart:
			if i != 0 {
				t.Fatalf("event %d: messageStart after other events", i)
			}
		case EventTextDelta:
			if e.Text == "" {
				t.Fatalf("event %d: empty textDelta", i)
			}
		case EventToolCallStart:
			if e.ToolCallID == "" || e.ToolName == "" || started[e.ToolCallID] {
				t.Fatalf("event %d: tool call id %q or its name empty, or started twice", i, e.ToolCallID)
			}
			started[e.ToolCallID] = true
		case EventToolCallDelta, EventToolCallStop:
			if !started[e.ToolCallID] || stopped[e.ToolCallID] {
				t.Fatalf("event %d: %s for tool call %q not started or already stopped", i, e.Type, e.ToolCallID)
			}
			if e.Type == EventToolCallStop {
				stopped[e.ToolCallID] = true
				if a := bytes.TrimSpace(e.ToolArguments); len(a) > 0 && (a[0] != '{' || !json.Valid(a)) {
					t.Fatalf("event %d: toolArguments %q are not a JSON object", i, a)
				}
			}
		case EventMessageStop:
			if !last {
				t.Fatalf("event %d: messageStop is not the last event", i)
			}
			if len(stopped) != len(started) {
				t.Fatalf("messageStop with %d tool calls started but %d stopped", len(started), len(stopped))
			}
			switch e.StopReason {
			case StopEndTurn, StopToolCall, StopMaxTokens, StopContentFilter:
			default:
				t.Fatalf("messageStop with stop reason %q", e.StopReason)
			}
			if (e.StopReason == StopToolCall) != (len(started) > 0) {
				t.Fatalf("stop reason %q with %d tool calls", e.StopReason, len(started))
			}
		case eventError:
			if !last {
				t.Fatalf("event %d: error is not the last event", i)
			}
			if e.ErrorCode == "" {
				t.Fatalf("error event without a code: %+v", e)
			}
		default:
			t.Fatalf("event %d: unknown event type %q", i, e.Type)
		}
		if last && e.Type != EventMessageStop && e.Type != eventError {
			t.Fatalf("the answer ends with %s, not a terminal event", e.Type)
		}
	}
}
