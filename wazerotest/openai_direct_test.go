// A session in the wasip1 module talking straight to an OpenAI-compatible
// endpoint (testing/fakeopenai, in two of the real servers' stream shapes):
// a page-tool turn, and an approval, with the key from the apiKey hook
// sent to the endpoint only and the tools' names mapped to ones the
// endpoint accepts and back.

package wazerotest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/agentwasm/agentwasm/internal/wire"
	"github.com/agentwasm/agentwasm/testing/fakemcp"
	"github.com/agentwasm/agentwasm/testing/fakeopenai"
	"github.com/agentwasm/agentwasm/wazerotest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// directKey is the key the fake endpoint requires, which the host's apiKey
// hook answers.
const directKey = "sk-wazero-direct-42"

// dottedTool is a page tool whose name an OpenAI-compatible endpoint does
// not accept as it is: the session sends map_setFilter.
var dottedTool = map[string]any{"name": "map.setFilter", "description": "Filter the map", "inputSchema": map[string]any{"type": "object"}}

// emitAll emits the events in order.
func emitAll(emit func(string, wire.StreamEvent) error, events ...any) error {
	for i := 0; i+1 < len(events); i += 2 {
		if err := emit(events[i].(string), events[i+1].(wire.StreamEvent)); err != nil {
			return err
		}
	}
	return nil
}

// callEvents are the events of a round that calls one tool.
func callEvents(id, name, args string) []any {
	return []any{
		fakeopenai.EventMessageStart, wire.StreamEvent{Model: "gpt-direct"},
		fakeopenai.EventToolCallStart, wire.StreamEvent{ToolCallID: id, ToolName: name},
		fakeopenai.EventToolCallDelta, wire.StreamEvent{ToolCallID: id, ToolArgumentsDelta: args},
		fakeopenai.EventToolCallStop, wire.StreamEvent{ToolCallID: id},
		fakeopenai.EventMessageStop, wire.StreamEvent{StopReason: "toolCall", PromptTokens: 30, CompletionTokens: 5},
	}
}

// textEvents are the events of a round that answers text.
func textEvents(text string) []any {
	return []any{
		fakeopenai.EventMessageStart, wire.StreamEvent{Model: "gpt-direct"},
		fakeopenai.EventTextDelta, wire.StreamEvent{Text: text},
		fakeopenai.EventMessageStop, wire.StreamEvent{StopReason: "endTurn", PromptTokens: 50, CompletionTokens: 3},
	}
}

// toolNames lists the names of the tools a chat request advertised, as the
// endpoint saw them.
func toolNames(req *wire.ChatRequest) []string {
	out := []string{}
	for _, t := range req.Tools {
		out = append(out, t.Name)
	}
	return out
}

// hostRequest is one request the host's handler received outside the chat
// endpoint.
type hostRequest struct{ path, authorization string }

// directHandler serves the fake endpoint under /openai/v1 and mcp (when
// set) at /api/mcp, and records every other request's path and
// Authorization.
func directHandler(fake *fakeopenai.Server, mcp http.Handler) (http.Handler, func() []hostRequest) {
	var (
		mu     sync.Mutex
		others []hostRequest
	)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/openai/") {
			fake.ServeHTTP(w, r)
			return
		}
		mu.Lock()
		others = append(others, hostRequest{r.URL.Path, r.Header.Get("Authorization")})
		mu.Unlock()
		if mcp != nil && r.URL.Path == "/api/mcp" {
			mcp.ServeHTTP(w, r)
			return
		}
		http.NotFound(w, r)
	})
	return h, func() []hostRequest {
		mu.Lock()
		defer mu.Unlock()
		return append([]hostRequest(nil), others...)
	}
}

// directOptions are session options that send the chat to the fake
// endpoint, the key from the apiKey hook.
func directOptions(extra map[string]any) map[string]any {
	o := map[string]any{"model": "gpt-direct", "openai": map[string]any{"baseUrl": "/openai/v1", "apiKey": true}}
	for k, v := range extra {
		o[k] = v
	}
	return o
}

// assertKeyedRequests checks the chat requests the fake recorded: n of
// them, streamed, each with the key, the model, and no tool name the
// endpoint would refuse.
func assertKeyedRequests(t *testing.T, reqs []fakeopenai.Request, n int) {
	t.Helper()
	require.Len(t, reqs, n)
	for i, r := range reqs {
		assert.Equal(t, "Bearer "+directKey, r.Header.Get("Authorization"), "request %d carries the key", i)
		assert.True(t, r.Stream, "request %d streams", i)
		require.NotNil(t, r.Chat, "request %d decoded", i)
		assert.Equal(t, "gpt-direct", r.Chat.Model)
		for _, name := range toolNames(r.Chat) {
			assert.Regexp(t, `^[a-zA-Z0-9_-]{1,64}$`, name, "request %d: a name the endpoint accepts", i)
		}
		assert.NotContains(t, string(r.Body), `"name":"map.setFilter"`, "request %d: no session name reaches the endpoint", i)
		assert.NotContains(t, string(r.Body), `"name":"shop.do_action"`, "request %d", i)
	}
}

// TestDirectToolTurnThroughTheModule runs a page-tool turn against the fake
// endpoint in OpenAI's shape and in whole calls: the key from the apiKey
// hook goes to the endpoint and nowhere else, the dotted tool name goes
// out as map_setFilter and comes back as map.setFilter, the tool call id
// is the endpoint's, and the MCP tool discovered on /api/mcp is advertised.
func TestDirectToolTurnThroughTheModule(t *testing.T) {
	for _, shape := range []fakeopenai.Shape{fakeopenai.ShapeOpenAI, fakeopenai.ShapeWholeCalls} {
		t.Run(string(shape), func(t *testing.T) {
			fake := fakeopenai.New(fakeopenai.Options{APIKey: directKey, Shape: shape,
				Answer: func(ctx context.Context, req *wire.ChatRequest, emit func(string, wire.StreamEvent) error) error {
					for _, m := range req.Messages {
						if m.Role == "tool" {
							return emitAll(emit, textEvents("Filtered by age.")...)
						}
					}
					return emitAll(emit, callEvents("call_a1", "map_setFilter", `{"field":"age"}`)...)
				}})
			mcp := &fakemcp.Server{Era: fakemcp.Stateless, Tools: []json.RawMessage{composed("honua_studio_set_view")}}
			handler, others := directHandler(fake, mcp)
			rec := &recorder{exec: func(ctx context.Context, call wazerotest.HookCall) ([]byte, error) {
				if call.Hook == "apiKey" {
					return json.Marshal(directKey)
				}
				return []byte(`{"status":"ok","data":{"applied":true}}`), nil
			}}
			inst := wazerotest.New(t, wazerotest.Options{Handler: handler, Hook: rec.hook})
			ctx := context.Background()
			id := inst.CreateSession(ctx, directOptions(map[string]any{"tools": []any{dottedTool}, "execute": true}))
			turn := inst.Chat(ctx, id, "filter by age")

			require.Equal(t, "completed", turn.Status, turn.ErrorMessage)
			assert.Equal(t, "Filtered by age.", turn.Text)
			assert.Equal(t, "endTurn", turn.StopReason)
			assert.Equal(t, 2, turn.Rounds)
			assert.Equal(t, &wazerotest.Usage{InputTokens: 80, OutputTokens: 8}, turn.Usage)
			require.Len(t, turn.ToolCalls, 1)
			c := turn.ToolCalls[0]
			assert.Equal(t, []string{"call_a1", "map.setFilter", "runtime"}, []string{c.ToolCallID, c.ToolName, c.Plane})
			assert.True(t, c.OK, c.ErrorMessage)
			var starts []string
			for _, e := range turn.Events {
				if e.Type == "toolCallStart" {
					starts = append(starts, e.ToolCallID+" "+e.ToolName)
				}
			}
			assert.Equal(t, []string{"call_a1 map.setFilter"}, starts, "the recorded event has the session's name")
			assert.Equal(t, map[string]string{"call_a1": `{"field":"age"}`}, toolArgs(turn))

			execs := rec.hooks("execute")
			require.Len(t, execs, 1)
			assert.Contains(t, string(execs[0].Payload), `"map.setFilter"`, "the page runs its own tool's name")
			assert.NotEmpty(t, rec.hooks("apiKey"), "the key came from the hook")
			for _, k := range rec.hooks("apiKey") {
				assert.JSONEq(t, `{"forceRefresh":false}`, string(k.Payload))
			}

			reqs := fake.Requests()
			assertKeyedRequests(t, reqs, 2)
			assert.Equal(t, []string{"map_setFilter", "honua_studio_set_view"}, toolNames(reqs[0].Chat), "the page tool mapped, the MCP tool as it is")
			var answered []string
			for _, m := range reqs[1].Chat.Messages {
				for _, tc := range m.ToolCalls {
					answered = append(answered, "call "+tc.ID+" "+tc.Name)
				}
				if m.Role == "tool" {
					answered = append(answered, "result "+m.ToolCallID)
				}
			}
			assert.Equal(t, []string{"call call_a1 map_setFilter", "result call_a1"}, answered, "the history sent back in the endpoint's names")

			got := others()
			require.NotEmpty(t, got, "discovery asked the MCP server")
			for _, r := range got {
				assert.Equal(t, "/api/mcp", r.path, "only the MCP server besides the endpoint")
				assert.Empty(t, r.authorization, "the key goes to the endpoint only")
			}
		})
	}
}

// toolArgs returns each tool call's arguments, compact, from its
// toolCallStop event.
func toolArgs(turn wazerotest.Turn) map[string]string {
	out := map[string]string{}
	for _, e := range turn.Events {
		if e.Type == "toolCallStop" {
			var v any
			if json.Unmarshal(e.ToolArguments, &v) == nil {
				b, _ := json.Marshal(v)
				out[e.ToolCallID] = string(b)
			}
		}
	}
	return out
}

// TestDirectApprovalThroughTheModule plays an approval against the fake
// endpoint: the port's high-effect action stops the turn with a pending
// ask named in the session's tool name, the host approves it, and the
// resumed turn confirms through the endpoint and completes.
func TestDirectApprovalThroughTheModule(t *testing.T) {
	var (
		mu    sync.Mutex
		chats int
	)
	fake := fakeopenai.New(fakeopenai.Options{APIKey: directKey,
		Answer: func(ctx context.Context, req *wire.ChatRequest, emit func(string, wire.StreamEvent) error) error {
			mu.Lock()
			chats++
			n := chats
			mu.Unlock()
			switch n {
			case 1:
				return emitAll(emit, callEvents("call_pay", "shop_do_action", `{"action":"checkout.pay"}`)...)
			case 2:
				return emitAll(emit, callEvents("call_confirm", "shop_do_action", `{"action":"checkout.pay","confirm":true}`)...)
			}
			return emitAll(emit, textEvents("Paid.")...)
		}})
	handler, others := directHandler(fake, nil)
	var port int
	handlers := handlerHook(&port)
	rec := &recorder{exec: func(ctx context.Context, call wazerotest.HookCall) ([]byte, error) {
		if call.Hook == "apiKey" {
			return json.Marshal(directKey)
		}
		return handlers(ctx, call)
	}}
	inst := wazerotest.New(t, wazerotest.Options{Handler: handler, Hook: rec.hook})
	ctx := context.Background()
	port, _ = inst.CreatePort(ctx, shopGraph, map[string]any{
		"requireHumanApproval": true, "page": "checkout", "handlers": []string{"checkout.pay"},
	})
	id := inst.CreateSession(ctx, directOptions(map[string]any{"port": port, "disableToolDiscovery": true}))

	turn := inst.Chat(ctx, id, "Pay for my order.")
	require.Equal(t, "completed", turn.Status, turn.ErrorMessage)
	assert.Equal(t, 1, turn.Rounds, "the turn stops on the ask")
	require.Len(t, turn.PendingApprovals, 1)
	ask := turn.PendingApprovals[0]
	assert.Equal(t, []string{"call_pay", "shop.do_action", "checkout.pay"}, []string{ask.ToolCallID, ask.ToolName, ask.Action})
	assert.Empty(t, rec.hooks("handler"), "nothing ran before the approval")

	turn = inst.Resume(ctx, id, []string{ask.AskID}, nil)
	require.Equal(t, "completed", turn.Status, turn.ErrorMessage)
	assert.Equal(t, "Paid.", turn.Text)
	assert.Empty(t, turn.PendingApprovals)
	require.Len(t, turn.ToolCalls, 1)
	assert.Equal(t, []string{"call_confirm", "shop.do_action"}, []string{turn.ToolCalls[0].ToolCallID, turn.ToolCalls[0].ToolName})
	assert.Len(t, rec.hooks("handler"), 1, "the approved action ran once")

	reqs := fake.Requests()
	assertKeyedRequests(t, reqs, 3)
	assert.Contains(t, toolNames(reqs[0].Chat), "shop_do_action", "the port's tool mapped")
	assert.Empty(t, others(), "no other request: discovery is off")
}
