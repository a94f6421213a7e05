//go:build !js && !wasip1 && !agentwasm_sessiononly

// port.snapshot and port.create's restore: a port's ask journal taken in
// one runtime and restored in another keeps a pending ask, which the
// person then approves and the port's own confirm fires once; a snapshot
// that does not belong answers bad_snapshot and no port is made.

package command_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentwasm/agentwasm/wasm/internal/command"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gatedPort creates the checkout port requiring approval on rt, with
// restore when given, and returns the reply.
func gatedPort(t *testing.T, rt *command.Runtime, host *approvalHost, restore string) (reply, string) {
	t.Helper()
	opts := `{"requireHumanApproval":true,"handlers":["checkout.pay"]`
	if restore != "" {
		opts += `,"restore":` + restore
	}
	return call(t, context.Background(), rt, `{"op":"port.create","graph":`+checkoutGraph+`,"options":`+opts+`}}`, host.hooks())
}

// portCall calls do_action on port with args and returns the result.
func portCall(t *testing.T, rt *command.Runtime, port int, args string) map[string]any {
	t.Helper()
	r, raw := call(t, context.Background(), rt, `{"op":"port.call","port":`+itoa(port)+`,"name":"shop.do_action","args":`+args+`,"settleWithinMs":1000}`, command.Hooks{})
	require.True(t, r.OK, raw)
	var v struct{ Value map[string]any }
	require.NoError(t, json.Unmarshal([]byte(raw), &v), raw)
	return v.Value
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// portSnapshotOf answers port.snapshot's snapshot member.
func portSnapshotOf(t *testing.T, rt *command.Runtime, port int) string {
	t.Helper()
	r, raw := call(t, context.Background(), rt, map[string]any{"op": "port.snapshot", "port": port}, command.Hooks{})
	require.True(t, r.OK, raw)
	var v struct{ Snapshot json.RawMessage }
	require.NoError(t, json.Unmarshal([]byte(raw), &v), raw)
	return string(v.Snapshot)
}

func TestPortSnapshotAcrossRuntimes(t *testing.T) {
	host := &approvalHost{}
	rt := command.New(false)
	r, raw := gatedPort(t, rt, host, "")
	require.True(t, r.OK, raw)
	port := portOf(t, raw)
	m := portCall(t, rt, port, `{"action":"checkout.pay"}`)
	askID, _ := m["askId"].(string)
	require.NotEmpty(t, askID, "%v", m)
	snap := portSnapshotOf(t, rt, port)
	assert.Contains(t, snap, `"format":"agentwasm.port","version":1,"graph":"fnv1a128:`)
	assert.Contains(t, snap, `"id":"`+askID+`"`)

	rt2 := command.New(false)
	r, raw = gatedPort(t, rt2, host, snap)
	require.True(t, r.OK, raw)
	port2 := portOf(t, raw)
	asks := portAsks(t, rt2, port2)
	require.Len(t, asks, 1)
	assert.Equal(t, askID, asks[0]["askId"])
	assert.Equal(t, "pending", asks[0]["state"])
	r, raw = call(t, context.Background(), rt2, map[string]any{"op": "port.approveAsk", "port": port2, "askId": askID, "by": "ana"}, command.Hooks{})
	require.True(t, r.OK, raw)
	m = portCall(t, rt2, port2, `{"action":"checkout.pay","confirm":true,"askId":"`+askID+`"}`)
	assert.Equal(t, "performed", m["effectStatus"], "%v", m)
	assert.Equal(t, []string{"checkout.pay"}, host.handlerRuns(), "performed once")

	t.Run("refused", func(t *testing.T) {
		other := strings.Replace(checkoutGraph, "Pay for the order", "Pay", 1)
		r, raw := call(t, context.Background(), command.New(false), `{"op":"port.create","graph":`+other+`,"options":{"restore":`+snap+`}}`, host.hooks())
		assert.False(t, r.OK, raw)
		assert.Contains(t, raw, `"code":"bad_snapshot"`)
		assert.Contains(t, raw, "another graph")
		for _, bad := range []string{
			strings.Replace(snap, `"version":1`, `"version":9`, 1),
			strings.Replace(snap, `agentwasm.port`, `agentwasm.session`, 1),
			`"not a snapshot"`,
		} {
			r, raw := gatedPort(t, command.New(false), host, bad)
			assert.False(t, r.OK, raw)
			assert.Contains(t, raw, `"code":"bad_snapshot"`)
		}
	})
}

func portOf(t *testing.T, raw string) int {
	t.Helper()
	var v struct{ Port int }
	require.NoError(t, json.Unmarshal([]byte(raw), &v), raw)
	require.NotZero(t, v.Port, raw)
	return v.Port
}
