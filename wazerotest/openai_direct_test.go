// A session in the wasip1 module talking straight to an OpenAI-compatible
// endpoint (testing/fakeopenai, in two of the real servers' stream shapes):
// a page-tool turn, and an approval, with the key from the apiKey hook
// sent to the endpoint only and the tools' names mapped to ones the
// endpoint accepts and back; and the same model through the Studio AI
// proxy's grammar and directly, in the module and natively, with the same
// turn records.

package wazerotest_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/agentwasm/agentwasm/internal/wire"
	"github.com/agentwasm/agentwasm/portkit"
	"github.com/agentwasm/agentwasm/serve"
	"github.com/agentwasm/agentwasm/session"
	"github.com/agentwasm/agentwasm/testing/fakemcp"
	"github.com/agentwasm/agentwasm/testing/fakeopenai"
	"github.com/agentwasm/agentwasm/testing/fakeproxy"
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
		fakeopenai.EventToolCallStop, wire.StreamEvent{ToolCallID: id, ToolArguments: []byte(args)},
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

// proxyTypes are the proxy grammar's event types by event name.
var proxyTypes = map[string]string{
	fakeopenai.EventMessageStart: "messageStart", fakeopenai.EventTextDelta: "textDelta",
	fakeopenai.EventToolCallStart: "toolCallStart", fakeopenai.EventToolCallDelta: "toolCallDelta",
	fakeopenai.EventToolCallStop: "toolCallStop", fakeopenai.EventMessageStop: "messageStop",
}

// proxyGrammar is a Studio AI proxy at fakeproxy.ChatPath that answers
// each chat request with the events model returns, as server-sent events
// of the proxy's grammar; other paths (the capabilities read) get 404.
func proxyGrammar(model func(req *wire.ChatRequest) []any) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != fakeproxy.ChatPath {
			http.NotFound(w, r)
			return
		}
		var req wire.ChatRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		evs := model(&req)
		for i := 0; i+1 < len(evs); i += 2 {
			name, ev := evs[i].(string), evs[i+1].(wire.StreamEvent)
			ev.Type = proxyTypes[name]
			b, _ := json.Marshal(ev)
			_, _ = io.WriteString(w, fakeproxy.Frame(name, string(b)))
		}
	})
}

// routes are the ways a session reaches the model: through the Studio AI
// proxy, or directly to the OpenAI-compatible endpoint in two shapes. A
// direct model names the tools as the endpoint sees them (map_setFilter),
// the proxy's as the session does (map.setFilter).
var routes = []struct {
	name  string
	shape fakeopenai.Shape // "" for the proxy
}{
	{"proxy", ""},
	{"direct openai", fakeopenai.ShapeOpenAI},
	{"direct whole-calls", fakeopenai.ShapeWholeCalls},
}

// routeHandler serves model by the route of shape: the proxy's grammar
// ("") or the fake endpoint under /openai/v1, whose model names the tools
// as the endpoint sees them (dots made underscores, as the session maps
// these names).
func routeHandler(shape fakeopenai.Shape, model func(name func(string) string) func(*wire.ChatRequest) []any) http.Handler {
	if shape == "" {
		return proxyGrammar(model(func(s string) string { return s }))
	}
	m := model(func(s string) string { return strings.ReplaceAll(s, ".", "_") })
	h, _ := directHandler(fakeopenai.New(fakeopenai.Options{APIKey: directKey, Shape: shape,
		Answer: func(ctx context.Context, req *wire.ChatRequest, emit func(string, wire.StreamEvent) error) error {
			return emitAll(emit, m(req)...)
		}}), nil)
	return h
}

// nativeRoute runs turns in a native session (the session package on
// net/http) that reaches model by the route of shape over a real loopback
// server, with opts completed as runRoute completes the module's; it
// returns the turns as the module's encoder writes them.
func nativeRoute(t *testing.T, shape fakeopenai.Shape, model func(name func(string) string) func(*wire.ChatRequest) []any,
	opts session.Options, turns func(s *session.Session) []session.Turn) []wazerotest.Turn {
	t.Helper()
	srv := httptest.NewServer(routeHandler(shape, model))
	t.Cleanup(srv.Close)
	opts.BaseURL, opts.Model, opts.DisableToolDiscovery = srv.URL+"/api", "gpt-direct", true
	if shape != "" {
		opts.OpenAI = &session.OpenAIEndpoint{BaseURL: srv.URL + "/openai/v1", APIKey: session.StaticToken(directKey)}
	}
	s, err := session.New(opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	var out []wazerotest.Turn
	for _, turn := range turns(s) {
		b, err := wire.Marshal(turn)
		require.NoError(t, err)
		var w wazerotest.Turn
		require.NoError(t, json.Unmarshal(b, &w))
		out = append(out, w)
	}
	return out
}

// runRoute runs turns in a fresh module whose session reaches model by the
// route of shape; name maps a session tool name to the one the model uses.
// hook answers the module's callbacks other than apiKey; setup creates
// what the session's options need (a port) before the session.
func runRoute(t *testing.T, shape fakeopenai.Shape, model func(name func(string) string) func(*wire.ChatRequest) []any,
	hook func(context.Context, wazerotest.HookCall) ([]byte, error),
	options func(inst *wazerotest.Instance) map[string]any,
	turns func(inst *wazerotest.Instance, id int) []wazerotest.Turn) []wazerotest.Turn {
	t.Helper()
	rec := &recorder{exec: func(ctx context.Context, call wazerotest.HookCall) ([]byte, error) {
		if call.Hook == "apiKey" {
			return json.Marshal(directKey)
		}
		return hook(ctx, call)
	}}
	inst := wazerotest.New(t, wazerotest.Options{Handler: routeHandler(shape, model), Hook: rec.hook})
	opts := options(inst)
	opts["model"] = "gpt-direct"
	opts["disableToolDiscovery"] = true
	if shape != "" {
		opts["openai"] = map[string]any{"baseUrl": "/openai/v1", "apiKey": true}
	}
	return turns(inst, inst.CreateSession(context.Background(), opts))
}

// sameRecord returns a run's turns as compared across routes: as JSON,
// without what a route may differ in, which is
//   - an event's latencyMs: the time from request to answer, measured by
//     the direct transport (and reported, or not, by a proxy); a clock
//     reading, different on every run;
//   - the ask ids, wherever they appear (the pending approval's askId, the
//     port's results that name the ask): the port draws a random,
//     unguessable id for every ask, so two runs never share one, whatever
//     the route; each is replaced by "ask_…".
//
// Tool call ids, names, arguments, texts, usage and everything else are
// compared as they are.
func sameRecord(t *testing.T, turns []wazerotest.Turn) string {
	t.Helper()
	var asks []string
	for i := range turns {
		turns[i].Events = append([]wazerotest.StreamEvent(nil), turns[i].Events...)
		for j := range turns[i].Events {
			turns[i].Events[j].LatencyMs = 0
		}
		for _, a := range turns[i].PendingApprovals {
			asks = append(asks, a.AskID)
		}
	}
	b, err := json.MarshalIndent(turns, "", "  ")
	require.NoError(t, err)
	s := string(b)
	for _, a := range asks {
		require.NotEmpty(t, a)
		s = strings.ReplaceAll(s, a, "ask_…")
	}
	return s
}

// TestDirectMatchesProxyNativelyAndInTheModule plays the same model — a page
// tool turn, then an approval and its resumed turn — through the Studio AI
// proxy and directly against the fake endpoint in two shapes, in the
// wasip1 module and natively, and compares the turns' records with the
// module's through the proxy.
func TestDirectMatchesProxyNativelyAndInTheModule(t *testing.T) {
	pageModel := func(name func(string) string) func(*wire.ChatRequest) []any {
		return func(req *wire.ChatRequest) []any {
			for _, m := range req.Messages {
				if m.Role == "tool" {
					return textEvents("Filtered by age.")
				}
			}
			return callEvents("call_a1", name("map.setFilter"), `{"field":"age"}`)
		}
	}
	approvalModel := func(name func(string) string) func(*wire.ChatRequest) []any {
		var (
			mu sync.Mutex
			n  int
		)
		return func(*wire.ChatRequest) []any {
			mu.Lock()
			n++
			round := n
			mu.Unlock()
			switch round {
			case 1:
				return callEvents("call_pay", name("shop.do_action"), `{"action":"checkout.pay"}`)
			case 2:
				return callEvents("call_confirm", name("shop.do_action"), `{"action":"checkout.pay","confirm":true}`)
			}
			return textEvents("Paid.")
		}
	}
	ok := func(context.Context, wazerotest.HookCall) ([]byte, error) {
		return []byte(`{"status":"ok","data":{"applied":true}}`), nil
	}

	var wantPage, wantApproval string
	for _, r := range routes {
		t.Run("wasm "+r.name, func(t *testing.T) {
			page := runRoute(t, r.shape, pageModel, ok,
				func(*wazerotest.Instance) map[string]any {
					return map[string]any{"tools": []any{dottedTool}, "execute": true}
				},
				func(inst *wazerotest.Instance, id int) []wazerotest.Turn {
					return []wazerotest.Turn{inst.Chat(context.Background(), id, "filter by age")}
				})
			require.Equal(t, "completed", page[0].Status, page[0].ErrorMessage)
			require.Len(t, page[0].ToolCalls, 1)
			assert.Equal(t, "map.setFilter", page[0].ToolCalls[0].ToolName)

			var port int
			approval := runRoute(t, r.shape, approvalModel, handlerHook(&port),
				func(inst *wazerotest.Instance) map[string]any {
					port, _ = inst.CreatePort(context.Background(), shopGraph, map[string]any{
						"requireHumanApproval": true, "page": "checkout", "handlers": []string{"checkout.pay"},
					})
					return map[string]any{"port": port}
				},
				func(inst *wazerotest.Instance, id int) []wazerotest.Turn {
					first := inst.Chat(context.Background(), id, "Pay for my order.")
					require.Len(t, first.PendingApprovals, 1, first.ErrorMessage)
					return []wazerotest.Turn{first, inst.Resume(context.Background(), id, []string{first.PendingApprovals[0].AskID}, nil)}
				})
			require.Equal(t, "completed", approval[1].Status, approval[1].ErrorMessage)
			assert.Equal(t, "Paid.", approval[1].Text)

			gotPage, gotApproval := sameRecord(t, page), sameRecord(t, approval)
			if r.shape == "" {
				wantPage, wantApproval = gotPage, gotApproval
				return
			}
			require.NotEmpty(t, wantPage, "the proxy route ran first")
			assert.Equal(t, wantPage, gotPage, "the page-tool turn, as through the proxy")
			assert.Equal(t, wantApproval, gotApproval, "the approval and the resumed turn, as through the proxy")
		})
	}
	require.NotEmpty(t, wantPage, "the module's proxy route ran")
	for _, r := range routes {
		t.Run("native "+r.name, func(t *testing.T) {
			ctx := context.Background()
			execute := session.ExecutorFunc(func(context.Context, session.ToolCall) (session.ToolResult, error) {
				return session.ToolResult{Status: session.ToolOK, Data: session.RawJSON(`{"applied":true}`)}, nil
			})
			page := nativeRoute(t, r.shape, pageModel, session.Options{
				Tools:   []session.ToolDefinition{{Name: "map.setFilter", Description: "Filter the map", InputSchema: session.RawJSON(`{"type":"object"}`)}},
				Execute: execute,
			}, func(s *session.Session) []session.Turn { return []session.Turn{s.Chat(ctx, "filter by age")} })

			var ran []string
			g, err := serve.ParseGraph(shopGraph)
			require.NoError(t, err)
			yes := true
			app, err := serve.NewApp(g, serve.AppOptions{RequireHumanApproval: &yes, Page: "checkout",
				Handlers: map[string]serve.Handler{"checkout.pay": func(_ context.Context, c serve.HandlerCall) (any, error) {
					ran = append(ran, c.Action)
					return map[string]any{"ran": c.Action, "by": string(c.Source), "id": c.TransitionID}, nil
				}}})
			require.NoError(t, err)
			port, err := serve.NewPort(app, serve.PortOptions{})
			require.NoError(t, err)
			approval := nativeRoute(t, r.shape, approvalModel, session.Options{Kit: portkit.New(port, portkit.Options{})},
				func(s *session.Session) []session.Turn {
					first := s.Chat(ctx, "Pay for my order.")
					require.Len(t, first.PendingApprovals, 1, first.ErrorMessage)
					return []session.Turn{first, s.Resume(ctx, session.Resolution{Approve: []string{first.PendingApprovals[0].AskID}})}
				})
			assert.Equal(t, []string{"checkout.pay"}, ran, "the approved action ran once")

			assert.Equal(t, wantPage, sameRecord(t, page), "the page-tool turn, as the module's through the proxy")
			assert.Equal(t, wantApproval, sameRecord(t, approval), "the approval and the resumed turn, as the module's through the proxy")
		})
	}
}
