package wazerotest_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/agentwasm/agentwasm/wazerotest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nested is a JSON object n levels deep: {"a":{"a":…1…}}.
func nested(n int) json.RawMessage {
	return json.RawMessage(strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n))
}

// The nesting bounds of the module's build (internal/nesting): the Go
// toolchain's, or TinyGo's, whose goroutines have fixed stacks.
type bounds struct{ values, schema, guard int }

func buildBounds(tiny bool) bounds {
	if tiny {
		return bounds{values: 32, schema: 12, guard: 20}
	}
	return bounds{values: 512, schema: 128, guard: 64}
}

// Values, schemas and guards nested as deep as the module accepts, and
// deeper, through every command that takes one: the module answers each
// (a value or a refusal, never internal) and serves on. The recursion they
// drive (the value reader and writer, the schema compiler and validator,
// the guard parser) must fit the stack of the build: a TinyGo build, whose
// goroutine stacks are fixed and which cannot recover, must not trap.
func TestDeepValuesThroughTheModule(t *testing.T) {
	probe := wazerotest.New(t, wazerotest.Options{})
	b := buildBounds(probe.TinyGo(context.Background()))
	for _, depth := range []int{10, b.values - 2, b.values - 1, b.values, b.values + 1, 9000} {
		t.Run(strconv.Itoa(depth), func(t *testing.T) {
			deep := nested(depth)
			var port int
			rec := &recorder{exec: func(ctx context.Context, call wazerotest.HookCall) ([]byte, error) {
				switch call.Hook {
				case "transport":
					return []byte(`{"type":"toolCallStart","toolCallId":"c1","toolName":"t"}` + "\n" +
						`{"type":"toolCallStop","toolArguments":` + string(deep) + "}\n" +
						`{"type":"messageStop","stopReason":"toolCall"}`), nil
				case "execute":
					return []byte(`{"status":"ok","data":` + string(deep) + `}`), nil
				}
				return handlerHook(&port)(ctx, call)
			}}
			inst := wazerotest.New(t, wazerotest.Options{Hook: rec.hook})
			ctx := context.Background()
			port, _ = inst.CreatePort(ctx, shopGraph, map[string]any{"handlers": []string{"cart.checkout"}})
			// An action whose input schema refers to itself: validation recurses as deep as the input does,
			// up to the validator's own bound.
			tree, _ := inst.CreatePort(ctx, json.RawMessage(`{"id":"tree","pages":[{"id":"p"}],"actions":[{"id":"p.grow",
				"does":"Grow the tree","on":"p","input":{"$defs":{"n":{"type":"object","properties":{"a":{"$ref":"#/$defs/n"}}}},
				"$ref":"#/$defs/n"}}]}`), nil)
			cmds := []map[string]any{
				{"op": "port.patch", "port": port, "state": map[string]any{"k": deep}},
				{"op": "port.state", "port": port},
				{"op": "port.report", "port": port, "action": "cart.checkout", "input": deep, "data": deep},
				{"op": "port.call", "port": port, "name": "shop.do_action", "args": map[string]any{"action": "cart.checkout", "input": deep}},
				{"op": "port.call", "port": port, "name": "shop.why", "args": deep},
				{"op": "port.mcp", "port": port, "message": map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
					"params": map[string]any{"name": "shop.whats_here", "arguments": deep}}},
				{"op": "port.call", "port": tree, "name": "tree.do_action", "args": map[string]any{"action": "p.grow", "input": deep}},
				{"op": "port.transition", "port": port, "id": "cart.checkout#1"},
				{"op": "session.create", "options": map[string]any{"tools": []any{map[string]any{"name": "t", "inputSchema": deep}},
					"transport": true, "execute": true, "disableToolDiscovery": true, "maxToolRounds": 1}},
			}
			for _, cmd := range cmds {
				r, err := inst.Do(ctx, cmd)
				require.NoError(t, err, "%v %v at depth %d", cmd["op"], cmd["name"], depth)
				if !r.OK {
					require.NotNil(t, r.Error, "%v", cmd["op"])
					assert.NotEqual(t, "internal", r.Error.Code, "%v: %s", cmd["op"], r.Error.Message)
				}
				if cmd["op"] == "session.create" && r.OK {
					c, err := inst.Do(ctx, map[string]any{"op": "session.chat", "session": r.Session, "text": "go"})
					require.NoError(t, err, "chat at depth %d", depth)
					require.True(t, c.OK, "%+v", c.Error)
				}
			}
			assert.True(t, inst.Version(ctx).OK, "the module still serves")
		})
	}
	// Schemas and guards at their own bounds, and past them: the graph is
	// refused past them, and below them its action calls are answered.
	graphs := map[string]struct {
		bound int
		graph func(depth int) string
		call  map[string]any
	}{
		"schema": {b.schema, func(depth int) string {
			schema := strings.Repeat(`{"type":"array","items":`, depth) + `{"type":"integer"}` + strings.Repeat("}", depth)
			return `{"id":"g","pages":[{"id":"p"}],"actions":[{"id":"p.put","does":"Put","on":"p","input":` + schema + `}]}`
		}, map[string]any{"action": "p.put"}},
		"guard": {b.guard, func(depth int) string {
			guard := strings.Repeat(`{"not":`, depth) + `{"key":"k","op":"eq","value":1}` + strings.Repeat("}", depth)
			return `{"id":"g","pages":[{"id":"p"}],"actions":[{"id":"p.when","does":"When","on":"p","input":"none","when":` + guard + `}]}`
		}, map[string]any{"action": "p.when"}},
	}
	for name, g := range graphs {
		for _, depth := range []int{g.bound - 1, g.bound, g.bound + 1, g.bound + 2} {
			t.Run(name+" "+strconv.Itoa(depth), func(t *testing.T) {
				inst := wazerotest.New(t, wazerotest.Options{})
				ctx := context.Background()
				r, err := inst.Do(ctx, map[string]any{"op": "port.create", "graph": json.RawMessage(g.graph(depth))})
				require.NoError(t, err)
				switch {
				case depth < g.bound:
					require.True(t, r.OK, "%+v", r.Error)
				case depth > g.bound+1:
					require.False(t, r.OK, "nested past the bound")
				}
				if !r.OK {
					assert.Equal(t, "bad_options", r.Error.Code, r.Error.Message)
					return
				}
				args := map[string]any{"input": json.RawMessage(strings.Repeat("[", depth) + "1" + strings.Repeat("]", depth))}
				for k, v := range g.call {
					args[k] = v
				}
				for _, call := range []map[string]any{
					{"op": "port.call", "port": r.Port, "name": "g.do_action", "args": args},
					{"op": "port.call", "port": r.Port, "name": "g.whats_here", "args": map[string]any{}},
				} {
					res, err := inst.Do(ctx, call)
					require.NoError(t, err, "%v at depth %d", call["name"], depth)
					assert.True(t, res.OK, "%+v", res.Error)
				}
				assert.True(t, inst.Version(ctx).OK, "the module still serves")
			})
		}
	}
}
