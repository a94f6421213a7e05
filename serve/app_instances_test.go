// Tests of the second version's repeating cards: ParseGraph's repeats and
// instancesFrom, SetInstances, the instance gate (INSTANCE_REQUIRED,
// INSTANCE_UNKNOWN, STILL_MOUNTING), the rows' instances, enumeration and
// instancesTotal, the instance handed to handlers, and approvals bound to
// one card. The v2app helper here is shared by the other tests of the
// second version.

package serve

import (
	"context"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// v2app is an app session over a test's own graph. Every action has a
// handler that records its call and answers with results[action] (else
// {"ok":true}); a fire of an action held with hold waits until release.
type v2app struct {
	app     *App
	mu      sync.Mutex
	calls   []HandlerCall
	holds   map[string]chan struct{}
	results map[string]func(HandlerCall) (any, error)
}

func newV2(t testing.TB, src string, opts AppOptions, results map[string]func(HandlerCall) (any, error)) *v2app {
	t.Helper()
	v := &v2app{holds: map[string]chan struct{}{}, results: results}
	g := mustGraph(t, src)
	h := func(ctx context.Context, c HandlerCall) (any, error) {
		v.mu.Lock()
		v.calls = append(v.calls, c)
		ch := v.holds[c.Action]
		fn := v.results[c.Action]
		v.mu.Unlock()
		if ch != nil {
			select {
			case <-ch:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if fn != nil {
			return fn(c)
		}
		return map[string]any{"ok": true}, nil
	}
	if opts.Handlers == nil {
		opts.Handlers = map[string]Handler{}
		for _, a := range g.Actions {
			opts.Handlers[a.ID] = h
		}
	}
	app, err := NewApp(g, opts)
	require.NoError(t, err)
	t.Cleanup(app.Close)
	v.app = app
	return v
}

// hold makes the next fires of action wait until release.
func (v *v2app) hold(action string) {
	v.mu.Lock()
	v.holds[action] = make(chan struct{})
	v.mu.Unlock()
}

// release lets the held fires of action finish.
func (v *v2app) release(action string) {
	v.mu.Lock()
	ch := v.holds[action]
	delete(v.holds, action)
	v.mu.Unlock()
	close(ch)
}

// setResult sets how the handler of action answers from now on.
func (v *v2app) setResult(action string, fn func(HandlerCall) (any, error)) {
	v.mu.Lock()
	if v.results == nil {
		v.results = map[string]func(HandlerCall) (any, error){}
	}
	v.results[action] = fn
	v.mu.Unlock()
}

func (v *v2app) handlerCalls() []HandlerCall {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]HandlerCall(nil), v.calls...)
}

func (v *v2app) port(t testing.TB, opts PortOptions) *Port {
	t.Helper()
	p, err := NewPort(v.app, opts)
	require.NoError(t, err)
	return p
}

// fire fires action as the agent through the app session.
func (v *v2app) fire(action string, f FireOptions) FireResult {
	if f.Source == "" {
		f.Source = PrincipalAgent
	}
	return v.app.Fire(context.Background(), action, f)
}

// rowOf returns the whats_here row (or ready step) of action in m's list
// under key ("actions" or "readySteps"), failing when there is none.
func rowOf(t testing.TB, m map[string]any, key, action string) map[string]any {
	t.Helper()
	idKey := "action"
	if key == "readySteps" {
		idKey = "step"
	}
	list, _ := m[key].([]any)
	for _, e := range list {
		row := e.(map[string]any)
		if row[idKey] == action {
			return row
		}
	}
	require.Failf(t, "no row", "%s has no row for %s: %v", key, action, m[key])
	return nil
}

// strs converts a decoded JSON array of strings.
func strs(v any) []string {
	list, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([]string, len(list))
	for i, e := range list {
		out[i], _ = e.(string)
	}
	return out
}

// schemaProps returns the property names of a tool's input schema, in
// the order its bytes list them.
func schemaProps(t testing.TB, p *Port, name string) []string {
	t.Helper()
	for _, tool := range p.Tools() {
		if tool.Name != name {
			continue
		}
		v, err := ParseValue(tool.InputSchema)
		require.NoError(t, err)
		props := v.(map[string]any)["properties"].(map[string]any)
		raw := string(tool.InputSchema)
		out := make([]string, 0, len(props))
		for k := range props {
			out = append(out, k)
		}
		sort.Slice(out, func(i, j int) bool {
			return strings.Index(raw, `"`+out[i]+`":{`) < strings.Index(raw, `"`+out[j]+`":{`)
		})
		return out
	}
	require.Failf(t, "no tool", "no tool named %s", name)
	return nil
}

// cardsGraph has a repeating area whose cards come from the state key
// "orders" (with a nested plain area), one whose cards the host lists, and
// plain actions around them.
const cardsGraph = `{"id":"crm",
 "pages":[{"id":"list","areas":[
    {"id":"orders","repeats":true,"instancesFrom":"orders","areas":[{"id":"row"}]},
    {"id":"notes","repeats":true},
    {"id":"toolbar"}]},
  {"id":"other"}],
 "actions":[
  {"id":"list.refresh","does":"Reload the list.","on":"list"},
  {"id":"list.toolbar.sort","does":"Sort the list.","on":"list"},
  {"id":"list.orders.open","does":"Open one order.","on":"list"},
  {"id":"list.orders.row.cancel","does":"Cancel one order.","on":"list","confirm":true},
  {"id":"list.orders.refund","does":"Refund one order.","on":"list","confirm":true,
   "input":{"type":"object","properties":{"reason":{"type":"string"}},"required":["reason"]}},
  {"id":"list.notes.pin","does":"Pin one note.","on":"list"},
  {"id":"other.back","does":"Back to the list.","on":"other","goTo":"list"}
 ],
 "journeys":[{"id":"triage","does":"Open an order, then cancel it.","steps":["list.orders.open","list.orders.row.cancel"]}]}`

func cardsState() State {
	return State{"orders": []any{"o-1", "o-2", map[string]any{"id": "o-3"}, 7.0, map[string]any{"key": "k-5"}, true, map[string]any{"name": "no key"}}}
}

func TestParseGraphRepeatingAreas(t *testing.T) {
	g := mustGraph(t, cardsGraph)
	assert.Equal(t, []Repeat{{Area: "list.orders", InstancesFrom: "orders"}, {Area: "list.notes"}}, g.Page("list").Repeats)
	assert.Equal(t, []string{"list.orders", "list.orders.row", "list.notes", "list.toolbar"}, g.Page("list").Areas)
	assert.Empty(t, g.Page("other").Repeats)
	for _, c := range []struct{ action, repeats string }{
		{"list.refresh", ""},
		{"list.toolbar.sort", ""},
		{"list.orders.open", "list.orders"},
		{"list.orders.row.cancel", "list.orders"}, // the nearest enclosing repeating area
		{"list.notes.pin", "list.notes"},
		{"other.back", ""},
	} {
		assert.Equal(t, c.repeats, g.Action(c.action).Repeats, c.action)
	}
	assert.Equal(t, &Repeat{Area: "list.notes"}, g.Repeat("list.notes"))
	assert.Nil(t, g.Repeat("list.toolbar"))
	assert.Nil(t, g.Repeat("list.orders.row"))
	assert.Nil(t, (*Graph)(nil).Repeat("list.notes"))
	assert.True(t, g.usesInstances())
	assert.False(t, mustGraph(t, appShopGraph).usesInstances())
}

func TestParseGraphRepeatErrors(t *testing.T) {
	page := func(areas string) string {
		return `{"id":"g","pages":[{"id":"p","areas":[` + areas + `]}]}`
	}
	cases := []struct{ name, src, want string }{
		{"instancesFrom without repeats", page(`{"id":"a","instancesFrom":"k"}`),
			`serve: area "p.a": instancesFrom needs "repeats": true`},
		{"instancesFrom with repeats false", page(`{"id":"a","repeats":false,"instancesFrom":"k"}`),
			`serve: area "p.a": instancesFrom needs "repeats": true`},
		{"nested repeats", page(`{"id":"a","repeats":true,"areas":[{"id":"b","repeats":true}]}`),
			`serve: area "p.a.b": repeating areas do not nest; an instance key names one card`},
		{"nested repeats deeper", page(`{"id":"a","repeats":true,"areas":[{"id":"b","areas":[{"id":"c","repeats":true,"instancesFrom":"x"}]}]}`),
			`serve: area "p.a.b.c": repeating areas do not nest`},
		{"repeats not a boolean", page(`{"id":"a","repeats":"yes"}`),
			`serve: area "p.a": "repeats" must be true or false, got`},
		{"instancesFrom not a string", page(`{"id":"a","repeats":true,"instancesFrom":3}`),
			`serve: area "p.a": "instancesFrom" must be a string, got`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := ParseGraph([]byte(c.src))
			require.Error(t, err)
			assert.Nil(t, g)
			assert.Contains(t, err.Error(), c.want)
		})
	}
	// Siblings may both repeat.
	g := mustGraph(t, page(`{"id":"a","repeats":true},{"id":"b","repeats":true,"instancesFrom":"k"}`))
	assert.Len(t, g.Page("p").Repeats, 2)
}

func TestInstanceKeysFromState(t *testing.T) {
	cases := []struct {
		name string
		v    any
		want string
	}{
		{"string", "o-1", "o-1"},
		{"empty string", "", ""},
		{"integer number", 7.0, "7"},
		{"fraction", 2.5, "2.5"},
		{"negative", -3.0, "-3"},
		{"object id", map[string]any{"id": "o-3"}, "o-3"},
		{"object numeric id", map[string]any{"id": 12.0}, "12"},
		{"object key", map[string]any{"key": "k-5"}, "k-5"},
		{"object id before key", map[string]any{"id": "a", "key": "b"}, "a"},
		{"object empty id falls to key", map[string]any{"id": "", "key": "b"}, "b"},
		{"object without id", map[string]any{"name": "x"}, ""},
		// A host's state may hold Go numbers and a State.
		{"go int", 7, "7"},
		{"int64", int64(-2), "-2"},
		{"uint8", uint8(3), "3"},
		{"float32", float32(1.5), "1.5"},
		{"big integer", 1e20, "100000000000000000000"},
		{"State object", State{"id": 4}, "4"},
		{"NaN has no JSON form", math.NaN(), ""},
		{"Inf has no JSON form", math.Inf(-1), ""},
		{"bool", true, ""},
		{"null", nil, ""},
		{"array", []any{"x"}, ""},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, instanceKey(c.v), c.name)
	}
}

func TestInstancesFromAHostsGoValues(t *testing.T) {
	// A Go host builds its state with ints and []string: the cards are the
	// same as from parsed JSON.
	for _, orders := range []any{[]any{1, int64(2), uint(3)}, []string{"1", "2", "3"}, []any{State{"id": 1}, map[string]any{"key": 2}, 3.0}} {
		v := newV2(t, cardsGraph, AppOptions{State: State{"orders": orders}}, nil)
		p := v.port(t, PortOptions{})
		_, m := pcall(t, p, "crm.whats_here", `{}`)
		assert.Equal(t, []string{"1", "2", "3"}, strs(rowOf(t, m, "actions", "list.orders.open")["instances"]), "%#v", orders)
		r, m := pcall(t, p, "crm.do_action", `{"action":"open","instance":2}`)
		require.Equal(t, true, m["ok"], "%s", r.JSON())
		assert.Equal(t, "2", waitSettled(t, v.app, r.TransitionID()).Instance)
	}
}

func TestWhatsHereRowsOfRepeatingActions(t *testing.T) {
	v := newV2(t, cardsGraph, AppOptions{State: cardsState()}, nil)
	p := v.port(t, PortOptions{})
	_, m := pcall(t, p, "crm.whats_here", `{}`)

	for _, plain := range []string{"list.refresh", "list.toolbar.sort"} {
		row := rowOf(t, m, "actions", plain)
		assert.NotContains(t, row, "instances", plain)
		assert.NotContains(t, row, "enumeration", plain)
	}
	all := []string{"o-1", "o-2", "o-3", "7", "k-5"} // true and the keyless object have no key
	open := rowOf(t, m, "actions", "list.orders.open")
	assert.Equal(t, all, strs(open["instances"]))
	assert.Equal(t, "selector", open["enumeration"])
	assert.NotContains(t, open, "instancesTotal")
	cancel := rowOf(t, m, "actions", "list.orders.row.cancel")
	assert.Equal(t, all, strs(cancel["instances"]))
	assert.Equal(t, true, cancel["highEffect"])
	pin := rowOf(t, m, "actions", "list.notes.pin")
	assert.Equal(t, []any{}, pin["instances"], "no card listed yet: an empty list, not absent")
	assert.Equal(t, "mounted-window", pin["enumeration"])

	// The host lists the mounted cards: for the notes they are the cards;
	// for the orders the row still lists every card of the state.
	require.NoError(t, v.app.SetInstances("list.notes", []string{"n-1", "n-2", "n-1"}))
	require.NoError(t, v.app.SetInstances("list.orders", []string{"o-1"}))
	_, m = pcall(t, p, "crm.whats_here", `{}`)
	assert.Equal(t, []string{"n-1", "n-2"}, strs(rowOf(t, m, "actions", "list.notes.pin")["instances"]), "deduplicated, in order")
	assert.Equal(t, all, strs(rowOf(t, m, "actions", "list.orders.open")["instances"]))

	// The state key changes: the rows follow it.
	require.NoError(t, v.app.Patch(State{"orders": []any{"z"}}, PrincipalUser))
	_, m = pcall(t, p, "crm.whats_here", `{}`)
	assert.Equal(t, []string{"z"}, strs(rowOf(t, m, "actions", "list.orders.open")["instances"]))
	// The key is not an array: no cards.
	require.NoError(t, v.app.Patch(State{"orders": "nope"}, PrincipalUser))
	_, m = pcall(t, p, "crm.whats_here", `{}`)
	assert.Equal(t, []any{}, rowOf(t, m, "actions", "list.orders.open")["instances"])
}

func TestInstancesTotalPastFifty(t *testing.T) {
	for _, n := range []int{49, 50, 51, 120} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			keys := make([]any, n)
			hostKeys := make([]string, n)
			for i := range keys {
				keys[i] = "o-" + strconv.Itoa(i)
				hostKeys[i] = "n-" + strconv.Itoa(i)
			}
			v := newV2(t, cardsGraph, AppOptions{State: State{"orders": keys}}, nil)
			require.NoError(t, v.app.SetInstances("list.notes", hostKeys))
			p := v.port(t, PortOptions{})
			_, m := pcall(t, p, "crm.whats_here", `{}`)
			for _, c := range []struct{ action, first string }{{"list.orders.open", "o-"}, {"list.notes.pin", "n-"}} {
				row := rowOf(t, m, "actions", c.action)
				listed := strs(row["instances"])
				assert.Len(t, listed, min(n, 50), c.action)
				assert.Equal(t, c.first+"0", listed[0])
				assert.Equal(t, c.first+strconv.Itoa(min(n, 50)-1), listed[len(listed)-1], "the first 50 in order")
				if n > 50 {
					assert.Equal(t, float64(n), row["instancesTotal"], c.action)
				} else {
					assert.NotContains(t, row, "instancesTotal", c.action)
				}
			}
			// A refusal lists at most 50 too, and a key past the 50th is
			// still known (checked against the full set).
			_, m = pcall(t, p, "crm.do_action", `{"action":"list.orders.open"}`)
			assert.Equal(t, ReasonInstanceRequired, m["reason"])
			assert.Len(t, m["instances"], min(n, 50))
			_, m = pcall(t, p, "crm.do_action", `{"action":"list.orders.open","instance":"o-`+strconv.Itoa(n-1)+`"}`)
			assert.Equal(t, true, m["ok"], "%v", m)
			_, m = pcall(t, p, "crm.do_action", `{"action":"list.notes.pin","instance":"n-`+strconv.Itoa(n-1)+`"}`)
			assert.Equal(t, true, m["ok"], "%v", m)
		})
	}
}

func TestInstanceGate(t *testing.T) {
	type step struct {
		args       string
		reason     string   // "" = fired
		instances  []string // listed with the refusal (nil: not checked)
		retriable  bool
		wantHandle string // the instance the handler gets
	}
	all := []string{"o-1", "o-2", "o-3", "7", "k-5"}
	cases := []struct {
		name  string
		setup func(t *testing.T, v *v2app)
		steps []step
	}{
		{"missing instance", nil, []step{
			{args: `{"action":"list.orders.open"}`, reason: ReasonInstanceRequired, instances: all},
			{args: `{"action":"list.orders.open","instance":""}`, reason: ReasonInstanceRequired, instances: all},
			{args: `{"action":"list.orders.open","instance":null}`, reason: ReasonInstanceRequired, instances: all},
		}},
		{"unknown key", nil, []step{
			{args: `{"action":"list.orders.open","instance":"o-9"}`, reason: ReasonInstanceUnknown, instances: all},
			{args: `{"action":"open","instance":"O-1"}`, reason: ReasonInstanceUnknown, instances: all},
		}},
		{"known keys fire", nil, []step{
			{args: `{"action":"list.orders.open","instance":"o-1"}`, wantHandle: "o-1"},
			{args: `{"action":"open","instance":"o-3"}`, wantHandle: "o-3"},
			{args: `{"action":"open","instance":"k-5"}`, wantHandle: "k-5"},
		}},
		{"a number instance matches its key", nil, []step{
			{args: `{"action":"list.orders.open","instance":7}`, wantHandle: "7"},
			{args: `{"action":"list.orders.open","instance":7.0}`, wantHandle: "7"},
			{args: `{"action":"list.orders.open","instance":"7"}`, wantHandle: "7"},
			{args: `{"action":"list.orders.open","instance":8}`, reason: ReasonInstanceUnknown, instances: all},
		}},
		{"not yet mounted", func(t *testing.T, v *v2app) {
			require.NoError(t, v.app.SetInstances("list.orders", []string{"o-1", "o-9"}))
		}, []step{
			{args: `{"action":"list.orders.open","instance":"o-2"}`, reason: ReasonStillMounting, retriable: true},
			{args: `{"action":"list.orders.open","instance":"o-1"}`, wantHandle: "o-1"},
			// Listed as mounted, but no card of the state: unknown.
			{args: `{"action":"list.orders.open","instance":"o-9"}`, reason: ReasonInstanceUnknown, instances: all},
		}},
		{"nothing mounted after an empty listing", func(t *testing.T, v *v2app) {
			require.NoError(t, v.app.SetInstances("list.orders", nil))
		}, []step{
			{args: `{"action":"list.orders.open","instance":"o-1"}`, reason: ReasonStillMounting, retriable: true},
		}},
		{"host-listed cards before any listing", nil, []step{
			{args: `{"action":"list.notes.pin","instance":"n-1"}`, reason: ReasonInstanceUnknown, instances: []string{}},
			{args: `{"action":"list.notes.pin"}`, reason: ReasonInstanceRequired, instances: []string{}},
		}},
		{"host-listed cards", func(t *testing.T, v *v2app) {
			require.NoError(t, v.app.SetInstances("list.notes", []string{"n-1", "n-2"}))
		}, []step{
			{args: `{"action":"list.notes.pin","instance":"n-2"}`, wantHandle: "n-2"},
			// For an area without instancesFrom a card not listed does not
			// exist: unknown, never still mounting.
			{args: `{"action":"list.notes.pin","instance":"n-3"}`, reason: ReasonInstanceUnknown, instances: []string{"n-1", "n-2"}},
		}},
		{"a plain action ignores instance", nil, []step{
			{args: `{"action":"list.refresh","instance":"o-1"}`, wantHandle: ""},
			{args: `{"action":"list.refresh","instance":"whatever"}`, wantHandle: ""},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := newV2(t, cardsGraph, AppOptions{State: cardsState()}, nil)
			if c.setup != nil {
				c.setup(t, v)
			}
			p := v.port(t, PortOptions{})
			fired := 0
			for _, s := range c.steps {
				r, m := pcall(t, p, "crm.do_action", s.args)
				if s.reason != "" {
					assert.Equal(t, "rejected", m["judgment"], "%s: %s", s.args, r.JSON())
					assert.Equal(t, s.reason, m["reason"], s.args)
					assert.Equal(t, whyOf(s.reason), m["why"])
					assert.Equal(t, false, m["performed"])
					if s.instances != nil {
						assert.Equal(t, s.instances, strs(m["instances"]), s.args)
						assert.NotNil(t, m["instances"])
					}
					if s.retriable {
						assert.Equal(t, true, m["retriable"])
					} else {
						assert.NotContains(t, m, "retriable")
					}
					continue
				}
				require.Equal(t, true, m["ok"], "%s: %s", s.args, r.JSON())
				fired++
				info := waitSettled(t, v.app, r.TransitionID())
				assert.Equal(t, s.wantHandle, info.Instance)
				calls := v.handlerCalls()
				require.Len(t, calls, fired)
				assert.Equal(t, s.wantHandle, calls[fired-1].Instance, s.args)
				assert.Equal(t, r.TransitionID(), calls[fired-1].TransitionID)
				if s.wantHandle != "" {
					assert.Equal(t, s.wantHandle, m["instance"], "the fired result names the card")
				} else {
					assert.NotContains(t, m, "instance")
				}
			}
			assert.Len(t, v.app.Transitions(), fired, "refusals record no transition")
		})
	}
}

func TestInstanceGateAtAppLevel(t *testing.T) {
	v := newV2(t, cardsGraph, AppOptions{State: cardsState()}, nil)
	r := v.fire("list.orders.open", FireOptions{})
	assert.Equal(t, ReasonInstanceRequired, r.Reason)
	assert.Equal(t, []string{"o-1", "o-2", "o-3", "7", "k-5"}, r.Instances)
	r = v.fire("list.orders.open", FireOptions{Instance: "nope"})
	assert.Equal(t, ReasonInstanceUnknown, r.Reason)
	require.NoError(t, v.app.SetInstances("list.orders", []string{"o-2"}))
	r = v.fire("list.orders.open", FireOptions{Instance: "o-1"})
	assert.Equal(t, ReasonStillMounting, r.Reason)
	assert.True(t, r.Retriable)
	assert.Nil(t, r.Instances)
	r = v.fire("list.orders.open", FireOptions{Instance: "o-2"})
	require.True(t, r.OK, "%+v", r)
	assert.Equal(t, "o-2", waitSettled(t, v.app, r.TransitionID).Instance)
	// Check leaves the instance gate to Fire.
	assert.True(t, v.app.Check("list.orders.open", nil, "").OK)
	// A plain action drops an instance it was given.
	r = v.fire("list.refresh", FireOptions{Instance: "o-2"})
	require.True(t, r.OK)
	assert.Equal(t, "", waitSettled(t, v.app, r.TransitionID).Instance)
}

func TestSetInstancesErrors(t *testing.T) {
	v := newV2(t, cardsGraph, AppOptions{State: cardsState()}, nil)
	cases := []struct {
		area string
		keys []string
		want string
	}{
		{"list.toolbar", []string{"a"}, `serve: SetInstances: "list.toolbar" is not a repeating area of graph "crm"`},
		{"list.orders.row", []string{"a"}, `"list.orders.row" is not a repeating area`},
		{"list", []string{"a"}, `"list" is not a repeating area`},
		{"list.orders.open", []string{"a"}, `"list.orders.open" is not a repeating area`},
		{"nope", nil, `"nope" is not a repeating area`},
		{"", nil, `"" is not a repeating area`},
		{"list.notes", []string{"a", ""}, `serve: SetInstances: key 1 is empty; name every card`},
		{"list.orders", []string{""}, `key 0 is empty`},
	}
	for _, c := range cases {
		err := v.app.SetInstances(c.area, c.keys)
		require.Error(t, err, c.area)
		assert.Contains(t, err.Error(), c.want)
	}
	// A refused listing changes nothing: every order card is still mounted.
	r := v.fire("list.orders.open", FireOptions{Instance: "o-2"})
	require.True(t, r.OK, "%+v", r)
	waitSettled(t, v.app, r.TransitionID)
	// SetInstances tells OnChange.
	var changed atomic.Int32
	v.app.OnChange(func() { changed.Add(1) })
	require.NoError(t, v.app.SetInstances("list.notes", []string{"n"}))
	assert.Equal(t, int32(1), changed.Load())
}

func TestHighEffectCardAsksBeforeTheInstanceGate(t *testing.T) {
	v := newV2(t, cardsGraph, AppOptions{State: cardsState(), RequireHumanApproval: ptrBool(false)}, nil)
	p := v.port(t, PortOptions{})

	// An unknown card still gets its ask minted first…
	_, m := pcall(t, p, "crm.do_action", `{"action":"cancel","instance":"zz"}`)
	require.Equal(t, "needs-confirm", m["judgment"], "%v", m)
	assert.Equal(t, map[string]any{"instance": "zz"}, m["willUse"])
	assert.Equal(t, "zz", m["instance"])
	askID := m["askId"].(string)
	// …and the yes meets the instance gate: nothing fires, the ask stays open.
	_, m = pcall(t, p, "crm.do_action", `{"action":"cancel","instance":"zz","confirm":true}`)
	assert.Equal(t, ReasonInstanceUnknown, m["reason"])
	ask, ok := v.app.Ask(askID)
	require.True(t, ok)
	assert.Equal(t, "zz", ask.Instance)
	assert.Equal(t, "approved", ask.State, "relayed yes; not used by a refused fire")
	assert.Empty(t, v.app.Transitions())

	// No card at all: the ask has no instance; the yes is refused.
	_, m = pcall(t, p, "crm.do_action", `{"action":"cancel"}`)
	require.Equal(t, "needs-confirm", m["judgment"])
	assert.Equal(t, map[string]any{}, m["willUse"])
	assert.NotContains(t, m, "instance")
	noCard := m["askId"].(string)
	_, m = pcall(t, p, "crm.do_action", `{"action":"cancel","confirm":true}`)
	assert.Equal(t, ReasonInstanceRequired, m["reason"])
	ask, _ = v.app.Ask(noCard)
	assert.Equal(t, "", ask.Instance)

	// A card and an input: both are bound in willUse; the yes fires it.
	_, m = pcall(t, p, "crm.do_action", `{"action":"refund","instance":"o-2","input":{"reason":"dup"}}`)
	require.Equal(t, "needs-confirm", m["judgment"])
	assert.Equal(t, map[string]any{"input": map[string]any{"reason": "dup"}, "instance": "o-2"}, m["willUse"])
	o2 := m["askId"].(string)
	r, m := pcall(t, p, "crm.do_action", `{"action":"refund","instance":"o-2","input":{"reason":"dup"},"confirm":true}`)
	require.Equal(t, true, m["ok"], "%s", r.JSON())
	assert.Equal(t, o2, m["askId"])
	assert.Equal(t, "o-2", m["instance"])
	info := waitSettled(t, v.app, r.TransitionID())
	assert.Equal(t, "o-2", info.Instance)
	assert.Equal(t, o2, info.AskID)
	_, m = pcall(t, p, "crm.did_it_work", `{"transitionId":"`+r.TransitionID()+`"}`)
	assert.Equal(t, "o-2", m["instance"])
	assert.Equal(t, "performed", m["effectStatus"])
}

// The test: approving card o-1 never authorizes o-2.
func TestApprovingCardO1NeverAuthorizesO2(t *testing.T) {
	v := newV2(t, cardsGraph, AppOptions{State: cardsState(), RequireHumanApproval: ptrBool(true)}, nil)
	p := v.port(t, PortOptions{})

	_, m := pcall(t, p, "crm.do_action", `{"action":"cancel","instance":"o-1"}`)
	require.Equal(t, "needs-confirm", m["judgment"])
	o1 := m["askId"].(string)
	assert.Equal(t, true, m["awaitingHuman"])
	assert.Equal(t, map[string]any{"instance": "o-1"}, m["willUse"])
	require.NoError(t, v.app.ApproveAsk(o1, "ann"))

	// Firing o-2 with confirm: a new ask for o-2, nothing performed.
	r, m := pcall(t, p, "crm.do_action", `{"action":"cancel","instance":"o-2","confirm":true}`)
	require.Equal(t, "needs-confirm", m["judgment"], "%s", r.JSON())
	o2 := m["askId"].(string)
	assert.NotEqual(t, o1, o2)
	assert.Equal(t, map[string]any{"instance": "o-2"}, m["willUse"])
	assert.Equal(t, "o-2", m["instance"])
	assert.Equal(t, true, m["awaitingHuman"])
	assert.Empty(t, v.app.Transitions())
	assert.Empty(t, v.handlerCalls())
	ask, _ := v.app.Ask(o1)
	assert.Equal(t, "approved", ask.State, "o-1's approval is untouched")
	assert.Equal(t, "o-1", ask.Instance)
	ask, _ = v.app.Ask(o2)
	assert.Equal(t, "pending", ask.State)
	assert.Equal(t, "o-2", ask.Instance)
	// did_it_work on each ask says which card it stands for.
	_, m = pcall(t, p, "crm.did_it_work", `{"askId":"`+o1+`"}`)
	assert.Equal(t, "approved-not-yet-done", m["judgment"])
	assert.Equal(t, "o-1", m["instance"])
	_, m = pcall(t, p, "crm.did_it_work", `{"askId":"`+o2+`"}`)
	assert.Equal(t, "awaiting-human", m["judgment"])
	assert.Equal(t, "o-2", m["instance"])

	// At the app level, o-1's ask cited for o-2 is a mismatch on the card.
	fr := v.fire("list.orders.row.cancel", FireOptions{AskID: o1, Instance: "o-2"})
	assert.False(t, fr.OK)
	assert.Equal(t, ReasonApprovalMismatch, fr.Reason)
	assert.Equal(t, "instance", fr.Differs)
	// Without a card it is a mismatch too (the ask names o-1).
	fr = v.fire("list.orders.row.cancel", FireOptions{AskID: o1})
	assert.Equal(t, ReasonApprovalMismatch, fr.Reason)
	assert.Equal(t, "instance", fr.Differs)
	assert.Empty(t, v.app.Transitions())

	// o-1 itself fires on its approval, once.
	r, m = pcall(t, p, "crm.do_action", `{"action":"cancel","instance":"o-1","confirm":true}`)
	require.Equal(t, true, m["ok"], "%s", r.JSON())
	assert.Equal(t, o1, m["askId"])
	info := waitSettled(t, v.app, r.TransitionID())
	assert.Equal(t, "o-1", info.Instance)
	calls := v.handlerCalls()
	require.Len(t, calls, 1)
	assert.Equal(t, "o-1", calls[0].Instance)
	fr = v.fire("list.orders.row.cancel", FireOptions{AskID: o1, Instance: "o-1"})
	assert.Equal(t, ReasonApprovalSpent, fr.Reason)

	// Approving o-2 then lets o-2 fire.
	require.NoError(t, v.app.ApproveAsk(o2, "ann"))
	r, m = pcall(t, p, "crm.do_action", `{"action":"cancel","instance":"o-2","confirm":true}`)
	require.Equal(t, true, m["ok"], "%s", r.JSON())
	assert.Equal(t, o2, m["askId"])
	assert.Equal(t, "o-2", waitSettled(t, v.app, r.TransitionID()).Instance)
}

func TestApprovalVerdictsPerCard(t *testing.T) {
	mint := func(v *v2app, instance string, input any) string {
		v.app.mu.Lock()
		defer v.app.mu.Unlock()
		return v.app.mintAsk("list.orders.refund", instance, input, PrincipalAgent, "").id
	}
	in := func(reason string) any { return map[string]any{"reason": reason} }
	cases := []struct {
		name     string
		askFor   string // the card the approved ask is for
		input    any
		fireFor  string
		fireIn   any
		reason   string // "" = fires
		differs  string
		grant    bool
		wantUsed bool
	}{
		{name: "same card", askFor: "o-1", input: in("a"), fireFor: "o-1", fireIn: in("a"), wantUsed: true},
		{name: "another card", askFor: "o-1", input: in("a"), fireFor: "o-2", fireIn: in("a"), reason: ReasonApprovalMismatch, differs: "instance"},
		{name: "no card", askFor: "o-1", input: in("a"), fireFor: "", fireIn: in("a"), reason: ReasonApprovalMismatch, differs: "instance"},
		{name: "card checked before input", askFor: "o-1", input: in("a"), fireFor: "o-2", fireIn: in("b"),
			reason: ReasonApprovalMismatch, differs: "instance"},
		{name: "same card other input", askFor: "o-1", input: in("a"), fireFor: "o-1", fireIn: in("b"),
			reason: ReasonApprovalMismatch, differs: "input"},
		{name: "a grant covers every card", askFor: "o-1", input: in("a"), fireFor: "o-2", fireIn: in("a"), grant: true},
		{name: "a grant uses the ask of that card", askFor: "o-2", input: in("a"), fireFor: "o-2", fireIn: in("a"), grant: true, wantUsed: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := newV2(t, cardsGraph, AppOptions{State: cardsState(), RequireHumanApproval: ptrBool(true)}, nil)
			id := mint(v, c.askFor, c.input)
			require.NoError(t, v.app.ApproveAsk(id, "ann"))
			if c.grant {
				require.NoError(t, v.app.AlwaysApprove("list.orders.refund", "ann", 0))
			}
			fr := v.fire("list.orders.refund", FireOptions{AskID: id, Instance: c.fireFor, Input: c.fireIn})
			if c.reason != "" {
				assert.False(t, fr.OK)
				assert.Equal(t, c.reason, fr.Reason)
				assert.Equal(t, c.differs, fr.Differs)
				assert.Empty(t, v.app.Transitions())
				return
			}
			require.True(t, fr.OK, "%+v", fr)
			info := waitSettled(t, v.app, fr.TransitionID)
			assert.Equal(t, c.fireFor, info.Instance)
			if c.wantUsed {
				assert.Equal(t, id, fr.UsedAsk)
			} else {
				assert.Equal(t, "", fr.UsedAsk)
				ask, _ := v.app.Ask(id)
				assert.Equal(t, "approved", ask.State, "another card's ask is not used up")
			}
		})
	}
}

func TestDeclineNamesTheCard(t *testing.T) {
	v := newV2(t, cardsGraph, AppOptions{State: cardsState(), RequireHumanApproval: ptrBool(false)}, nil)
	p := v.port(t, PortOptions{})
	_, m := pcall(t, p, "crm.do_action", `{"action":"cancel","instance":"o-1"}`)
	o1 := m["askId"].(string)
	_, m = pcall(t, p, "crm.do_action", `{"action":"cancel","instance":"o-2"}`)
	o2 := m["askId"].(string)
	require.NotEqual(t, o1, o2)

	// Declining o-1 closes o-1's ask (the older one), not o-2's (the newer).
	_, m = pcall(t, p, "crm.do_action", `{"action":"cancel","instance":"o-1","decline":true}`)
	assert.Equal(t, "declined", m["judgment"])
	assert.Equal(t, o1, m["askId"])
	assert.Equal(t, "o-1", m["instance"])
	a1, _ := v.app.Ask(o1)
	a2, _ := v.app.Ask(o2)
	assert.Equal(t, "declined", a1.State)
	assert.Equal(t, "pending", a2.State)
	// A card with no open ask: nothing to decline.
	_, m = pcall(t, p, "crm.do_action", `{"action":"cancel","instance":"o-3","decline":true}`)
	assert.Equal(t, "declined", m["judgment"])
	assert.NotContains(t, m, "askId")
	a2, _ = v.app.Ask(o2)
	assert.Equal(t, "pending", a2.State)
}

func TestJourneyStepsOnCards(t *testing.T) {
	for _, mode := range []string{JourneyToolsPerJourney, JourneyToolsSingle} {
		t.Run(mode, func(t *testing.T) {
			v := newV2(t, cardsGraph, AppOptions{State: cardsState(), RequireHumanApproval: ptrBool(false)}, nil)
			p := v.port(t, PortOptions{JourneyTools: mode})
			tool, pre := "crm.journey.triage", ""
			if mode == JourneyToolsSingle {
				tool, pre = "crm.journey", `"journey":"triage",`
			}
			_, m := pcall(t, p, tool, `{`+strings.TrimSuffix(pre, ",")+`}`)
			require.Equal(t, "one-ready-step", m["judgment"], "%v", m)
			row := rowOf(t, m, "readySteps", "list.orders.open")
			assert.Equal(t, []string{"o-1", "o-2", "o-3", "7", "k-5"}, strs(row["instances"]))
			assert.Equal(t, "selector", row["enumeration"])

			_, m = pcall(t, p, tool, `{`+pre+`"step":"open"}`)
			assert.Equal(t, ReasonInstanceRequired, m["reason"])
			assert.Equal(t, "list.orders.open", m["step"])
			r, m := pcall(t, p, tool, `{`+pre+`"step":"open","instance":7}`)
			require.Equal(t, true, m["ok"], "%s", r.JSON())
			assert.Equal(t, "7", m["instance"])
			assert.Equal(t, "7", waitSettled(t, v.app, r.TransitionID()).Instance)

			_, m = pcall(t, p, tool, `{`+pre+`"step":"cancel","instance":"o-3"}`)
			require.Equal(t, "needs-confirm", m["judgment"])
			assert.Equal(t, map[string]any{"instance": "o-3"}, m["willUse"])
			r, m = pcall(t, p, tool, `{`+pre+`"step":"cancel","instance":"o-3","confirm":true}`)
			require.Equal(t, true, m["ok"], "%s", r.JSON())
			assert.Equal(t, "o-3", waitSettled(t, v.app, r.TransitionID()).Instance)
			calls := v.handlerCalls()
			require.Len(t, calls, 2)
			assert.Equal(t, []string{"7", "o-3"}, []string{calls[0].Instance, calls[1].Instance})
		})
	}
}

func TestInstanceArgumentTypes(t *testing.T) {
	v := newV2(t, cardsGraph, AppOptions{State: cardsState()}, nil)
	p := v.port(t, PortOptions{})
	for _, args := range []string{
		`{"action":"list.orders.open","instance":true}`,
		`{"action":"list.orders.open","instance":["o-1"]}`,
		`{"action":"list.orders.open","instance":{"id":"o-1"}}`,
		`{"action":"list.refresh","instance":false}`, // typed even for a plain action
	} {
		r, m := pcall(t, p, "crm.do_action", args)
		assert.Equal(t, ReasonInvalidArguments, m["reason"], args)
		assert.Contains(t, m["error"], "instance must be a string", args)
		assert.False(t, r.IsError())
	}
	_, m := pcall(t, p, "crm.journey.triage", `{"step":"open","instance":false}`)
	assert.Equal(t, ReasonInvalidArguments, m["reason"])
	assert.Empty(t, v.app.Transitions())

	// A graph without repeating cards ignores the name, whatever its type.
	s := newShop(t, AppOptions{})
	sp := s.port(t, PortOptions{})
	r, m := pcall(t, sp, "shop.do_action", `{"action":"home.browse","instance":false}`)
	require.Equal(t, true, m["ok"], "%s", r.JSON())
	assert.NotContains(t, m, "instance")
}

func TestToolSchemasTakeInstance(t *testing.T) {
	v := newV2(t, cardsGraph, AppOptions{State: cardsState()}, nil)
	per := v.port(t, PortOptions{})
	assert.Equal(t, []string{"step", "input", "confirm", "decline", "instance"}, schemaProps(t, per, "crm.journey.triage"))
	assert.Equal(t, []string{"action", "input", "confirm", "decline", "instance"}, schemaProps(t, per, "crm.do_action"))
	assert.Equal(t, []string{"sinceVersion"}, schemaProps(t, per, "crm.whats_here"))
	single := v.port(t, PortOptions{JourneyTools: JourneyToolsSingle})
	assert.Equal(t, []string{"journey", "step", "input", "confirm", "decline", "instance"}, schemaProps(t, single, "crm.journey"))
	assert.Contains(t, string(per.ToolsJSON()), `"instance":{"type":"string","description":"`+descInstance+`"}`)

	// The shop has no repeating cards: no instance anywhere.
	s := newShop(t, AppOptions{})
	sp := s.port(t, PortOptions{})
	assert.NotContains(t, string(sp.ToolsJSON()), `"instance"`)
	assert.NotContains(t, string(sp.ToolsJSON()), `"offerId"`)
	assert.NotContains(t, string(sp.ToolsJSON()), `"routeTo"`)
}
