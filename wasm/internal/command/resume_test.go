//go:build !js && !wasip1

// session.resume and the turn's new fields through the command layer: a
// session whose kit is a port that requires a person's approval stops on
// the ask, resume answers it through the port's door, and the handler hook
// runs once; stepFinish events, usage and pendingApprovals as a host reads
// them; mcpUrl; the port's change event at version 0.

package command_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/wasm/internal/command"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const checkoutGraph = `{"id":"shop","pages":[{"id":"checkout"},{"id":"done"}],
 "actions":[{"id":"checkout.pay","does":"Pay for the order","on":"checkout","goTo":"done","confirm":true,"input":"none"}]}`

// approvalHost answers a port's handler hook and a session's transport
// hook with scripted rounds (one JSON event per line), and records the
// events and the handler runs.
type approvalHost struct {
	rounds []string

	mu       sync.Mutex
	next     int
	handled  []string
	events   []string
	requests []string
}

func (h *approvalHost) hooks() command.Hooks {
	return command.Hooks{
		Call: func(ctx context.Context, _ int, hook string, payload []byte) (io.ReadCloser, error) {
			h.mu.Lock()
			defer h.mu.Unlock()
			switch hook {
			case "handler":
				var p struct{ Action string }
				_ = json.Unmarshal(payload, &p)
				h.handled = append(h.handled, p.Action)
				return io.NopCloser(strings.NewReader(`{"orderId":"o-1"}`)), nil
			case "transport":
				h.requests = append(h.requests, string(payload))
				if h.next >= len(h.rounds) {
					return nil, errors.New("the script ran out")
				}
				h.next++
				return io.NopCloser(strings.NewReader(h.rounds[h.next-1])), nil
			}
			return nil, errors.New("unexpected hook " + hook)
		},
		OnEvent: func(_ int, event []byte) {
			h.mu.Lock()
			h.events = append(h.events, string(event))
			h.mu.Unlock()
		},
	}
}

func (h *approvalHost) handlerRuns() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.handled...)
}

// eventsOf returns the recorded events whose type is typ.
func (h *approvalHost) eventsOf(typ string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, e := range h.events {
		if strings.HasPrefix(e, `{"type":"`+typ+`"`) {
			out = append(out, e)
		}
	}
	return out
}

const (
	payRound = `{"type":"messageStart","model":"m"}
{"type":"toolCallStart","toolCallId":"c1","toolName":"shop.do_action"}
{"type":"toolCallStop","toolCallId":"c1","toolArguments":{"action":"checkout.pay"}}
{"type":"messageStop","stopReason":"toolCall","promptTokens":100,"completionTokens":10}`
	confirmRound = `{"type":"toolCallStart","toolCallId":"c2","toolName":"shop.do_action"}
{"type":"toolCallStop","toolCallId":"c2","toolArguments":{"action":"checkout.pay","confirm":true}}
{"type":"messageStop","stopReason":"toolCall","promptTokens":150,"completionTokens":12}`
	paidRound = `{"type":"textDelta","text":"Paid."}
{"type":"messageStop","stopReason":"endTurn","promptTokens":200,"completionTokens":3}`
)

// rawTurn is the turn of a reply, decoded loosely.
type rawTurn struct {
	Status           string            `json:"status"`
	Text             string            `json:"text"`
	ErrorCode        string            `json:"errorCode"`
	ErrorMessage     string            `json:"errorMessage"`
	Rounds           int               `json:"rounds"`
	Usage            json.RawMessage   `json:"usage"`
	PendingApprovals []json.RawMessage `json:"pendingApprovals"`
	ToolCalls        []json.RawMessage `json:"toolCalls"`
}

func turnOf(t *testing.T, raw string) rawTurn {
	t.Helper()
	var r struct {
		OK   bool     `json:"ok"`
		Turn *rawTurn `json:"turn"`
	}
	require.NoError(t, json.Unmarshal([]byte(raw), &r), raw)
	require.True(t, r.OK, raw)
	require.NotNil(t, r.Turn, raw)
	return *r.Turn
}

// checkoutSession opens the port (requiring approval) and a session whose
// kit it is, driven by host.
func checkoutSession(t *testing.T, rt *command.Runtime, host *approvalHost) int {
	t.Helper()
	r, raw := call(t, context.Background(), rt, `{"op":"port.create","graph":`+checkoutGraph+
		`,"options":{"requireHumanApproval":true,"handlers":["checkout.pay"]}}`, host.hooks())
	require.True(t, r.OK, raw)
	var port struct{ Port int }
	require.NoError(t, json.Unmarshal([]byte(raw), &port))
	return create(t, rt, map[string]any{"port": port.Port, "transport": true, "disableToolDiscovery": true}, host.hooks())
}

func TestResumeThroughTheCommandLayer(t *testing.T) {
	host := &approvalHost{rounds: []string{payRound, confirmRound, paidRound}}
	rt := command.New(false)
	id := checkoutSession(t, rt, host)

	_, raw := call(t, context.Background(), rt, chatCmd(id, "Pay."), command.Hooks{})
	turn := turnOf(t, raw)
	require.Equal(t, "completed", turn.Status, turn.ErrorMessage)
	assert.Equal(t, 1, turn.Rounds)
	assert.JSONEq(t, `{"inputTokens":100,"outputTokens":10}`, string(turn.Usage))
	require.Len(t, turn.PendingApprovals, 1)
	var ask struct {
		AskID      string          `json:"askId"`
		ToolCallID string          `json:"toolCallId"`
		ToolName   string          `json:"toolName"`
		Action     string          `json:"action"`
		Detail     json.RawMessage `json:"detail"`
	}
	require.NoError(t, json.Unmarshal(turn.PendingApprovals[0], &ask))
	assert.NotEmpty(t, ask.AskID, "the app's ask id")
	assert.Equal(t, "c1", ask.ToolCallID)
	assert.Equal(t, "shop.do_action", ask.ToolName)
	assert.Equal(t, "checkout.pay", ask.Action)
	assert.Contains(t, string(ask.Detail), `"judgment":"needs-confirm"`)
	assert.Contains(t, string(ask.Detail), `"awaitingHuman":true`)
	steps := host.eventsOf("stepFinish")
	require.Len(t, steps, 1)
	assert.Regexp(t, `^\{"type":"stepFinish","step":\{"round":1,"text":"","toolCalls":\[\{"toolCallId":"c1","toolName":"shop.do_action","plane":"runtime","ok":true,"content":".*"\}\],"stopReason":"toolCall","usage":\{"inputTokens":100,"outputTokens":10\}\}\}$`, steps[0])
	assert.Empty(t, host.handlerRuns())

	cases := []struct {
		name string
		cmd  map[string]any
		code string
	}{
		{"no ids", map[string]any{"op": "session.resume", "session": id}, "bad_resolution"},
		{"an unknown id", map[string]any{"op": "session.resume", "session": id, "approve": []string{"ask#7"}}, "unknown_ask"},
		{"approved and declined", map[string]any{"op": "session.resume", "session": id, "approve": []string{ask.AskID}, "decline": []string{ask.AskID}}, "bad_resolution"},
	}
	for _, tc := range cases {
		_, raw := call(t, context.Background(), rt, tc.cmd, command.Hooks{})
		bad := turnOf(t, raw)
		assert.Equal(t, "error", bad.Status, tc.name)
		assert.Equal(t, tc.code, bad.ErrorCode, tc.name)
	}
	r, raw := call(t, context.Background(), rt, map[string]any{"op": "session.resume", "session": 99, "approve": []string{"ask#1"}}, command.Hooks{})
	require.False(t, r.OK, raw)
	assert.Equal(t, command.CodeUnknownSession, r.Error.Code)
	r, raw = call(t, context.Background(), rt, map[string]any{"op": "session.resume", "session": id, "approve": ask.AskID}, command.Hooks{})
	require.False(t, r.OK, raw)
	assert.Equal(t, command.CodeBadCommand, r.Error.Code, "approve is a list of ids")

	_, raw = call(t, context.Background(), rt, map[string]any{"op": "session.resume", "session": id, "approve": []string{ask.AskID}}, command.Hooks{})
	turn = turnOf(t, raw)
	require.Equal(t, "completed", turn.Status, turn.ErrorMessage)
	assert.Equal(t, "Paid.", turn.Text)
	assert.Equal(t, 2, turn.Rounds)
	assert.JSONEq(t, `{"inputTokens":350,"outputTokens":15}`, string(turn.Usage))
	assert.Nil(t, turn.PendingApprovals)
	assert.NotContains(t, raw, "pendingApprovals", "omitted when empty")
	require.Len(t, turn.ToolCalls, 1)
	assert.Contains(t, string(turn.ToolCalls[0]), `\"effectStatus\":\"performed\"`)
	assert.Equal(t, []string{"checkout.pay"}, host.handlerRuns(), "the handler ran exactly once")
	assert.Len(t, host.eventsOf("stepFinish"), 3)
	host.mu.Lock()
	assert.Contains(t, host.requests[1], `"role":"user","content":"Approved: the person approved \"`+ask.AskID+`\" (checkout.pay: Pay for the order) in the app.`)
	host.mu.Unlock()

	_, raw = call(t, context.Background(), rt, map[string]any{"op": "session.resume", "session": id, "approve": []string{ask.AskID}}, command.Hooks{})
	assert.Equal(t, "unknown_ask", turnOf(t, raw).ErrorCode, "resuming twice")
	assert.Equal(t, []string{"checkout.pay"}, host.handlerRuns())
}

// A session whose kit is not a port has no human doors; a turn without
// usage has none on the wire.
func TestResumeWithoutApprovalDoors(t *testing.T) {
	host := &approvalHost{rounds: []string{`{"type":"textDelta","text":"hi"}` + "\n" + `{"type":"messageStop","stopReason":"endTurn"}`}}
	rt := command.New(false)
	id := create(t, rt, map[string]any{"transport": true, "disableToolDiscovery": true}, host.hooks())
	_, raw := call(t, context.Background(), rt, chatCmd(id, "hi"), command.Hooks{})
	assert.NotContains(t, raw, `"usage"`)
	assert.NotContains(t, raw, `"pendingApprovals"`)
	_, raw = call(t, context.Background(), rt, map[string]any{"op": "session.resume", "session": id, "decline": []string{"ask#1"}}, command.Hooks{})
	assert.Equal(t, "no_approval_doors", turnOf(t, raw).ErrorCode)
}

// mcpUrl is where the default MCP client discovers; a malformed one is
// refused at session.create.
func TestMCPURLOption(t *testing.T) {
	var mu sync.Mutex
	var urls []string
	hooks := command.Hooks{Fetcher: bridge.FetcherFunc(func(_ context.Context, req *bridge.Request) (*bridge.Response, error) {
		mu.Lock()
		urls = append(urls, req.URL)
		mu.Unlock()
		if isChat(req) {
			return nil, errors.New("no chat here")
		}
		return mcpNotFound(), nil
	})}
	rt := command.New(false)
	id := create(t, rt, map[string]any{"baseUrl": "https://studio.example/api", "mcpUrl": "https://mcp.example/v2/mcp"}, hooks)
	r, raw := call(t, context.Background(), rt, map[string]any{"op": "session.refreshTools", "session": id}, hooks)
	require.True(t, r.OK, raw)
	mu.Lock()
	assert.Contains(t, urls, "https://mcp.example/v2/mcp")
	assert.NotContains(t, urls, "https://studio.example/api/mcp")
	mu.Unlock()

	r, raw = call(t, context.Background(), rt, map[string]any{"op": "session.create", "options": map[string]any{"mcpUrl": "mcp.example"}}, hooks)
	require.False(t, r.OK, raw)
	assert.Equal(t, command.CodeBadOptions, r.Error.Code)
	assert.Contains(t, r.Error.Message, "MCPURL")
}

// A port's change events always carry their version, 0 included.
func TestPortChangeEventCarriesVersionZero(t *testing.T) {
	var mu sync.Mutex
	var events []string
	hooks := command.Hooks{OnEvent: func(_ int, e []byte) {
		mu.Lock()
		events = append(events, string(e))
		mu.Unlock()
	}}
	rt := command.New(false)
	r, raw := call(t, context.Background(), rt, `{"op":"port.create","graph":`+checkoutGraph+`}`, hooks)
	require.True(t, r.OK, raw)
	var port struct{ Port int }
	require.NoError(t, json.Unmarshal([]byte(raw), &port))
	// An ask is a change that leaves the version where it was: 0.
	r, raw = call(t, context.Background(), rt, map[string]any{"op": "port.call", "port": port.Port, "name": "shop.do_action",
		"args": map[string]any{"action": "checkout.pay"}}, hooks)
	require.True(t, r.OK, raw)
	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, events)
	assert.Equal(t, `{"type":"change","version":0}`, events[0])
}

// A port kit with the page's own tool beside it: the execute hook runs the
// page's tool only, a port tool goes through the port (the model's confirm
// cannot reach the handler through the page), and the ask still resumes.
func TestPortKitWithPageToolsBesideIt(t *testing.T) {
	pageAndPay := `{"type":"toolCallStart","toolCallId":"p1","toolName":"set_basemap"}
{"type":"toolCallStop","toolCallId":"p1","toolArguments":{"style":"dark"}}
{"type":"toolCallStart","toolCallId":"c1","toolName":"shop.do_action"}
{"type":"toolCallStop","toolCallId":"c1","toolArguments":{"action":"checkout.pay"}}
{"type":"messageStop","stopReason":"toolCall"}`
	host := &approvalHost{rounds: []string{pageAndPay, confirmRound, paidRound}}
	var mu sync.Mutex
	var executed []string
	hooks := host.hooks()
	portHooks := hooks.Call
	hooks.Call = func(ctx context.Context, session int, hook string, payload []byte) (io.ReadCloser, error) {
		if hook == "execute" {
			var c struct{ Name string }
			_ = json.Unmarshal(payload, &c)
			mu.Lock()
			executed = append(executed, c.Name)
			mu.Unlock()
			return io.NopCloser(strings.NewReader(`{"status":"ok","data":{"basemap":"dark"}}`)), nil
		}
		return portHooks(ctx, session, hook, payload)
	}
	rt := command.New(false)
	r, raw := call(t, context.Background(), rt, `{"op":"port.create","graph":`+checkoutGraph+
		`,"options":{"requireHumanApproval":true,"handlers":["checkout.pay"]}}`, hooks)
	require.True(t, r.OK, raw)
	var port struct{ Port int }
	require.NoError(t, json.Unmarshal([]byte(raw), &port))
	id := create(t, rt, map[string]any{"port": port.Port, "transport": true, "disableToolDiscovery": true, "execute": true,
		"tools": []any{map[string]any{"name": "set_basemap", "inputSchema": map[string]any{"type": "object"}}}}, hooks)

	_, raw = call(t, context.Background(), rt, chatCmd(id, "Dark, and pay."), hooks)
	turn := turnOf(t, raw)
	require.Equal(t, "completed", turn.Status, turn.ErrorMessage)
	require.Len(t, turn.ToolCalls, 2)
	assert.Contains(t, string(turn.ToolCalls[0]), `basemap`)
	require.Len(t, turn.PendingApprovals, 1)
	var ask struct {
		AskID string `json:"askId"`
	}
	require.NoError(t, json.Unmarshal(turn.PendingApprovals[0], &ask))
	_, raw = call(t, context.Background(), rt, map[string]any{"op": "session.resume", "session": id, "approve": []string{ask.AskID}}, hooks)
	turn = turnOf(t, raw)
	require.Equal(t, "completed", turn.Status, turn.ErrorMessage)
	assert.Equal(t, "Paid.", turn.Text)
	assert.Equal(t, []string{"checkout.pay"}, host.handlerRuns())
	mu.Lock()
	assert.Equal(t, []string{"set_basemap"}, executed, "the execute hook never saw a port tool")
	mu.Unlock()
}
