//go:build !js && !wasip1

// Examples of the loop with no model and no network: a scripted transport,
// an executor function, and a script that refuses.

package session_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentwasm/agentwasm/session"
)

// A scripted transport drives a session with no model and no network. Here
// the model calls a runtime tool in its first round and answers in its
// second; the second request carries the call and its result.
func ExampleNewScriptedTransport() {
	tr := session.NewScriptedTransport(
		session.ToolCallRound(session.ToolCall{ID: "c1", Name: "setZoom", Args: json.RawMessage(`{"level":12}`)}),
		session.TextRound("Zoomed to ", "level 12."),
	)
	s, err := session.New(session.Options{
		Transport: tr,
		Tools: []session.ToolDefinition{{
			Name:        "setZoom",
			Description: "Zoom the map.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"level":{"type":"integer"}}}`),
		}},
		Execute: session.ExecutorFunc(func(ctx context.Context, call session.ToolCall) (session.ToolResult, error) {
			fmt.Printf("run %s %s\n", call.Name, call.Args)
			return session.ToolResult{Status: session.ToolOK, Data: json.RawMessage(`{"zoom":12}`)}, nil
		}),
		OnEvent: func(ev session.Event) {
			if ev.Type == session.EventTypeToolResult {
				fmt.Printf("result %s ok=%v %s\n", ev.Result.ToolName, ev.Result.OK, ev.Result.Content)
			}
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	turn := s.Chat(context.Background(), "Zoom in to 12.")
	fmt.Println(turn.Status, turn.Rounds, turn.StopReason)
	fmt.Println(turn.Text)
	for _, m := range s.Messages() {
		switch {
		case len(m.ToolCalls) > 0:
			fmt.Printf("%s: %q calls %s%s\n", m.Role, m.Content, m.ToolCalls[0].Name, m.ToolCalls[0].Args)
		case m.Role == "tool":
			fmt.Printf("%s (%s %s): %s\n", m.Role, m.ToolCallID, m.ToolName, m.Content)
		default:
			fmt.Printf("%s: %s\n", m.Role, m.Content)
		}
	}
	second := tr.Requests()[1]
	body, _ := session.EncodeChatRequest(&second)
	fmt.Println(string(body))
	// Output:
	// run setZoom {"level":12}
	// result setZoom ok=true {"status":"ok","data":{"zoom":12}}
	// completed 2 endTurn
	// Zoomed to level 12.
	// user: Zoom in to 12.
	// assistant: "" calls setZoom{"level":12}
	// tool (c1 setZoom): {"status":"ok","data":{"zoom":12}}
	// assistant: Zoomed to level 12.
	// {"messages":[{"role":"user","content":"Zoom in to 12."},{"role":"assistant","content":"","toolCalls":[{"id":"c1","name":"setZoom","arguments":{"level":12}}]},{"role":"tool","content":"{\"status\":\"ok\",\"data\":{\"zoom\":12}}","toolCallId":"c1","toolName":"setZoom"}],"tools":[{"name":"setZoom","description":"Zoom the map.","inputSchema":{"type":"object","properties":{"level":{"type":"integer"}}}}]}
}

// A tool the executor denies is reported to the model, and the turn goes on:
// the model answers with the denial in view.
func ExampleExecutorFunc() {
	tr := session.NewScriptedTransport(
		session.ToolCallRound(session.ToolCall{ID: "c1", Name: "deleteLayer", Args: json.RawMessage(`{"layer":"roads"}`)}),
		session.TextRound("I may not delete layers here."),
	)
	s, _ := session.New(session.Options{
		Transport: tr,
		Tools:     []session.ToolDefinition{{Name: "deleteLayer"}},
		Execute: session.ExecutorFunc(func(ctx context.Context, call session.ToolCall) (session.ToolResult, error) {
			return session.ToolResult{Status: session.ToolDenied, DeniedReason: "This map is read-only."}, nil
		}),
	})
	turn := s.Chat(context.Background(), "Delete the roads layer.")
	rec := turn.ToolCalls[0]
	fmt.Println(turn.Status, turn.Rounds)
	fmt.Println(rec.Plane, rec.OK, rec.ErrorCode, rec.ErrorMessage)
	fmt.Println(rec.Content)
	fmt.Println(turn.Text)
	// Output:
	// completed 2
	// runtime false denied This map is read-only.
	// {"status":"denied","deniedReason":"This map is read-only."}
	// I may not delete layers here.
}

// A turn that advertises tools is refused, before anything is sent, when
// the proxy's capabilities say its provider cannot call tools.
func ExampleScriptedTransport_refused() {
	no := false
	tr := session.NewScriptedTransport(session.TextRound("never sent"))
	tr.Caps = &session.Capabilities{Enabled: true, DefaultProvider: "local",
		Providers: []session.ProviderInfo{{Name: "local", ToolSupport: &no, DefaultModel: "tiny-1"}}}
	s, _ := session.New(session.Options{Transport: tr, Tools: []session.ToolDefinition{{Name: "setZoom"}}})
	turn := s.Chat(context.Background(), "Zoom in.")
	fmt.Println(turn.Status)
	fmt.Println(turn.ErrorMessage)
	fmt.Println(len(tr.Requests()), len(s.Messages()))
	// Output:
	// refused
	// Provider local with model tiny-1 does not support tool calls, and this session advertises tools; no chat request was sent.
	// 0 0
}
