// The port's second version through the wasip1 command layer: repeating
// cards (port.setInstances, the instance in the handler hook and in the
// transition record), busy labels (port.setBusy), verify, a "once" action,
// freshness offers and routeTo.

package wazerotest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/agentwasm/agentwasm/wazerotest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ordersGraph: a list of order cards from the state, a cancel that checks
// it happened, a once-only refund, a cited edit, and a route to help.
var ordersGraph = json.RawMessage(`{"id":"shop","routeTo":true,
 "pages":[{"id":"orders","areas":[{"id":"list","repeats":true,"instancesFrom":"orders.ids"}]},{"id":"help"},{"id":"faq"}],
 "actions":[
  {"id":"orders.list.cancel","does":"Cancel this order","on":"orders","input":"none","writes":["orders.cancelled"],
   "verify":{"key":"orders.cancelled","op":"nonEmpty"}},
  {"id":"orders.refund","does":"Refund the last order","on":"orders","input":"none","concurrency":"once"},
  {"id":"orders.note","does":"Edit the note","on":"orders","reads":["orders.note"],"freshness":"cite",
   "input":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}},
  {"id":"orders.help","does":"Open help","on":"orders","goTo":"help","input":"none"},
  {"id":"help.faq","does":"Open the FAQ","on":"help","goTo":"faq","input":"none"}]}`)

func TestPortSecondVersionThroughTheModule(t *testing.T) {
	var port int
	rec := &recorder{exec: func(ctx context.Context, call wazerotest.HookCall) ([]byte, error) {
		var h struct{ Action, Instance string }
		if err := json.Unmarshal(call.Payload, &h); err != nil {
			return nil, err
		}
		if h.Action == "orders.list.cancel" && h.Instance == "o-2" {
			return []byte(`{"orders":{"cancelled":[]}}`), nil // claims success, changes nothing
		}
		if h.Action == "orders.list.cancel" {
			return []byte(fmt.Sprintf(`{"orders":{"cancelled":[%q]}}`, h.Instance)), nil
		}
		return []byte(`{}`), nil
	}}
	inst := wazerotest.New(t, wazerotest.Options{Hook: rec.hook})
	ctx := context.Background()
	var tools json.RawMessage
	port, tools = inst.CreatePort(ctx, ordersGraph, map[string]any{
		"state":           map[string]any{"orders": map[string]any{"ids": []any{"o-1", "o-2", "o-3"}, "note": "hi"}},
		"handlers":        []string{"orders.list.cancel", "orders.refund", "orders.note", "orders.help", "help.faq"},
		"offerLedgerSize": 8,
	})
	assert.Contains(t, string(tools), `"instance":{"type":"string"`, "do_action takes instance")
	assert.Contains(t, string(tools), `"offerId":{"type":"string"`, "do_action takes offerId")
	assert.Contains(t, string(tools), `"routeTo":{"type":"string"`, "whats_here takes routeTo")

	// Only o-1 and o-2 are mounted: o-3 is still mounting.
	inst.SetInstances(ctx, port, "orders.list", []string{"o-1", "o-2"})
	inst.SetBusy(ctx, port, "orders.list", "Loading orders…")
	here := inst.PortCall(ctx, port, "shop.whats_here", map[string]any{})
	rows := map[string]map[string]any{}
	for _, r := range here["actions"].([]any) {
		row := r.(map[string]any)
		rows[row["action"].(string)] = row
	}
	cancel := rows["orders.list.cancel"]
	assert.Equal(t, []any{"o-1", "o-2", "o-3"}, cancel["instances"])
	assert.Equal(t, "selector", cancel["enumeration"])
	assert.Equal(t, "Loading orders…", cancel["busy"])
	offer, _ := rows["orders.note"]["offerId"].(string)
	require.NotEmpty(t, offer, "a cite action's row carries an offer")

	r := inst.PortCall(ctx, port, "shop.do_action", map[string]any{"action": "orders.list.cancel", "instance": "o-3"})
	assert.Equal(t, "STILL_MOUNTING", r["reason"])
	assert.Equal(t, true, r["retriable"])
	assert.Equal(t, "Loading orders…", r["busy"])
	r = inst.PortCall(ctx, port, "shop.do_action", map[string]any{"action": "orders.list.cancel", "instance": "o-9"})
	assert.Equal(t, "INSTANCE_UNKNOWN", r["reason"])

	// o-1 is cancelled and the check holds; o-2's handler claims success
	// but the declared check fails.
	r = inst.PortCall(ctx, port, "shop.do_action", map[string]any{"action": "orders.list.cancel", "instance": "o-1"})
	require.Equal(t, true, r["ok"], "%v", r)
	facts := settled(ctx, t, inst, port, r["transitionId"].(string))
	assert.Equal(t, true, facts["verifyHeld"])
	assert.Equal(t, "o-1", facts["instance"])
	r = inst.PortCall(ctx, port, "shop.do_action", map[string]any{"action": "orders.list.cancel", "instance": "o-2"})
	id2 := r["transitionId"].(string)
	facts = settled(ctx, t, inst, port, id2)
	assert.Equal(t, false, facts["verifyHeld"])
	assert.Contains(t, facts["outcome"], "does not hold")
	rep, err := inst.PortDo(ctx, port, "port.transition", map[string]any{"id": id2})
	require.NoError(t, err)
	var rec2 map[string]any
	require.NoError(t, json.Unmarshal(rep.Value, &rec2))
	assert.Equal(t, "o-2", rec2["instance"])
	assert.Equal(t, false, rec2["verifyHeld"])
	var instances []string
	for _, c := range rec.hooks("handler") {
		var h struct{ Action, Instance string }
		require.NoError(t, json.Unmarshal(c.Payload, &h))
		if h.Action == "orders.list.cancel" {
			instances = append(instances, h.Instance)
		}
	}
	assert.Equal(t, []string{"o-1", "o-2"}, instances, "the handler hook names the card")

	// The person cancels o-3 themselves: the record names the card.
	rep3, err := inst.PortDo(ctx, port, "port.report", map[string]any{"action": "orders.list.cancel", "instance": "o-3"})
	require.NoError(t, err)
	require.True(t, rep3.OK)
	var reported struct{ TransitionID string }
	require.NoError(t, json.Unmarshal(rep3.Value, &reported))
	rep3, err = inst.PortDo(ctx, port, "port.transition", map[string]any{"id": reported.TransitionID})
	require.NoError(t, err)
	assert.Contains(t, string(rep3.Value), `"instance":"o-3"`)
	assert.Contains(t, string(rep3.Value), `"source":"user"`)

	// refund happens once.
	r = inst.PortCall(ctx, port, "shop.do_action", map[string]any{"action": "orders.refund"})
	first := r["transitionId"].(string)
	settled(ctx, t, inst, port, first)
	r = inst.PortCall(ctx, port, "shop.do_action", map[string]any{"action": "orders.refund"})
	assert.Equal(t, "DUPLICATE_EXECUTION", r["reason"])
	assert.Equal(t, first, r["priorTransitionId"])

	// The person edits the note: the offer is stale.
	_, err = inst.PortDo(ctx, port, "port.patch", map[string]any{"state": map[string]any{"orders.note": "bye"}})
	require.NoError(t, err)
	r = inst.PortCall(ctx, port, "shop.do_action", map[string]any{"action": "orders.note", "input": map[string]any{"text": "x"}, "offerId": offer})
	assert.Equal(t, "STALE_OFFER", r["reason"])
	assert.Equal(t, []any{"orders.note"}, r["moved"])

	// Two hops to the FAQ.
	r = inst.PortCall(ctx, port, "shop.whats_here", map[string]any{"routeTo": "faq"})
	route := r["route"].(map[string]any)
	assert.Equal(t, []any{
		map[string]any{"action": "orders.help", "to": "help"},
		map[string]any{"action": "help.faq", "to": "faq"},
	}, route["hops"])

	// Bad commands are refused with a clear error.
	bad, err := inst.PortDo(ctx, port, "port.setInstances", map[string]any{"area": "orders", "keys": []string{"x"}})
	require.NoError(t, err)
	require.False(t, bad.OK)
	assert.Equal(t, "refused", bad.Error.Code)
	assert.Contains(t, bad.Error.Message, "not a repeating area")
	bad, err = inst.PortDo(ctx, port, "port.setBusy", map[string]any{"id": "nope", "label": "x"})
	require.NoError(t, err)
	require.False(t, bad.OK)
	assert.Contains(t, bad.Error.Message, "not an action, area or page")
	assert.True(t, inst.Version(ctx).OK, "the module still serves")
}
