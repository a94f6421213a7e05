// Tests of the second version's verify: the guard an action declares is
// evaluated after a performed settlement (its declared writes applied):
// TransitionInfo.VerifyHeld "true", "false" or "unevaluable", did_it_work's
// verifyHeld, outcome and verifyFailed, and CallSettled's fold.

package serve

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// verifyGraph: pay writes order.paid and checks it; ship checks a key it
// does not write, with exists; count checks a number; hide checks a key
// is absent (negated); plain checks nothing.
const verifyGraph = `{"id":"v",
 "pages":[{"id":"p"},{"id":"q"}],
 "actions":[
  {"id":"p.pay","does":"Pay.","on":"p","writes":["order.paid"],"verify":{"key":"order.paid","op":"eq","value":true}},
  {"id":"p.ship","does":"Ship.","on":"p","verify":{"key":"shipment.id","op":"exists"}},
  {"id":"p.count","does":"Count.","on":"p","writes":["n"],"verify":{"all":[{"key":"n","op":"gt","value":0},{"key":"label","op":"nonEmpty"}]}},
  {"id":"p.hide","does":"Hide.","on":"p","verify":{"not":{"key":"banner","op":"exists"}}},
  {"id":"p.either","does":"Either.","on":"p","verify":{"any":[{"key":"a","op":"truthy"},{"key":"b","op":"truthy"}]}},
  {"id":"p.go","does":"Go.","on":"p","goTo":"q","verify":{"key":"arrived","op":"truthy"}},
  {"id":"p.plain","does":"Plain.","on":"p","writes":["x"]}
 ],
 "journeys":[{"id":"buy","does":"Pay, then ship.","steps":["p.pay","p.ship"]}]}`

func TestParseGraphVerify(t *testing.T) {
	g := mustGraph(t, verifyGraph)
	assert.NotNil(t, g.Action("p.pay").Verify)
	assert.Nil(t, g.Action("p.plain").Verify)
	_, err := ParseGraph([]byte(`{"id":"g","pages":[{"id":"p"}],"actions":[{"id":"p.a","on":"p","verify":{"key":"k","op":"bogus"}}]}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `serve: action "p.a": verify: `)
	_, err = ParseGraph([]byte(`{"id":"g","pages":[{"id":"p"}],"actions":[{"id":"p.a","on":"p","verify":"yes"}]}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `serve: action "p.a": verify: a condition must be an object`)
}

func TestVerifyHeld(t *testing.T) {
	data := func(d any) func(HandlerCall) (any, error) {
		return func(HandlerCall) (any, error) { return d, nil }
	}
	cases := []struct {
		name   string
		state  State
		action string
		answer func(HandlerCall) (any, error)
		status string
		held   string
		failed []Condition
	}{
		{name: "the write makes it hold", state: State{"order.paid": false}, action: "p.pay",
			answer: data(map[string]any{"order.paid": true}), status: "performed", held: "true"},
		{name: "the handler claims success, the check fails", state: State{"order.paid": false}, action: "p.pay",
			answer: data(map[string]any{"order.paid": false}), status: "performed", held: "false",
			failed: []Condition{{Key: "order.paid", Op: "eq", Value: true, Actual: false}}},
		{name: "nothing written, the state already fails", state: State{"order.paid": "no"}, action: "p.pay",
			answer: data(map[string]any{"ok": true}), status: "performed", held: "false",
			failed: []Condition{{Key: "order.paid", Op: "eq", Value: true, Actual: "no"}}},
		{name: "the key is missing: unevaluable", action: "p.pay",
			answer: data(map[string]any{"ok": true}), status: "performed", held: "unevaluable",
			failed: []Condition{{Key: "order.paid", Op: "eq", Value: true}}},
		{name: "a nested write counts", state: State{"order.paid": false}, action: "p.pay",
			answer: data(map[string]any{"order": map[string]any{"paid": true}}), status: "performed", held: "true"},
		{name: "exists on a missing key is a plain false", action: "p.ship",
			answer: data(nil), status: "performed", held: "false",
			failed: []Condition{{Key: "shipment.id", Op: "exists"}}},
		{name: "exists holds", state: State{"shipment": map[string]any{"id": "s-1"}}, action: "p.ship",
			answer: data(nil), status: "performed", held: "true"},
		{name: "all: one missing key makes it unevaluable", action: "p.count",
			answer: data(map[string]any{"n": 0.0}), status: "performed", held: "unevaluable",
			failed: []Condition{{Key: "n", Op: "gt", Value: 0.0, Actual: 0.0}, {Key: "label", Op: "nonEmpty"}}},
		{name: "all: both present, one fails", state: State{"label": ""}, action: "p.count",
			answer: data(map[string]any{"n": 2.0}), status: "performed", held: "false",
			failed: []Condition{{Key: "label", Op: "nonEmpty", Actual: ""}}},
		{name: "all holds", state: State{"label": "L"}, action: "p.count",
			answer: data(map[string]any{"n": 2.0}), status: "performed", held: "true"},
		{name: "not exists fails on a present key", state: State{"banner": "hi"}, action: "p.hide",
			answer: data(nil), status: "performed", held: "false",
			failed: []Condition{{Key: "banner", Op: "exists", Actual: "hi", Negated: true}}},
		{name: "not exists holds on a missing key", action: "p.hide",
			answer: data(nil), status: "performed", held: "true"},
		{name: "any with both keys missing", action: "p.either",
			answer: data(nil), status: "performed", held: "unevaluable"},
		{name: "any with one present and falsy, one missing", state: State{"a": false}, action: "p.either",
			answer: data(nil), status: "performed", held: "unevaluable"},
		{name: "any holds", state: State{"b": 1.0}, action: "p.either",
			answer: data(nil), status: "performed", held: "true"},
		{name: "a refused settlement is not checked", state: State{"order.paid": true}, action: "p.pay",
			answer: func(HandlerCall) (any, error) { return nil, errBoom }, status: "refused", held: ""},
		{name: "no verify, no verdict", action: "p.plain",
			answer: data(map[string]any{"x": 1.0}), status: "performed", held: ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := newV2(t, verifyGraph, AppOptions{State: c.state}, map[string]func(HandlerCall) (any, error){c.action: c.answer})
			r := v.fire(c.action, FireOptions{})
			require.True(t, r.OK, "%+v", r)
			pending, _ := v.app.Transition(r.TransitionID)
			info := waitSettled(t, v.app, r.TransitionID)
			assert.Equal(t, c.status, info.Status)
			assert.Equal(t, c.held, info.VerifyHeld)
			if c.failed != nil {
				assert.Equal(t, c.failed, info.VerifyFailed)
			} else if c.held != "unevaluable" {
				assert.Empty(t, info.VerifyFailed)
			}
			// Before it settled there was no verdict.
			if pending.Status == "pending" {
				assert.Equal(t, "", pending.VerifyHeld)
			}
			// Transitions() agrees.
			all := v.app.Transitions()
			require.Len(t, all, 1)
			assert.Equal(t, c.held, all[0].VerifyHeld)
		})
	}
}

func TestVerifyAfterGoToAndOnOtherPaths(t *testing.T) {
	// The check runs on the state after the settlement; a goTo moves the
	// page but the check is about the state only.
	v := newV2(t, verifyGraph, AppOptions{State: State{"arrived": false}}, nil)
	r := v.fire("p.go", FireOptions{})
	info := waitSettled(t, v.app, r.TransitionID)
	assert.Equal(t, "q", v.app.Page())
	assert.Equal(t, "false", info.VerifyHeld)

	// A settlement from outside the handler is checked too.
	v = newV2(t, verifyGraph, AppOptions{State: State{"order.paid": false}}, nil)
	v.hold("p.pay")
	r = v.fire("p.pay", FireOptions{})
	require.True(t, r.OK)
	require.True(t, v.app.Settle(r.TransitionID, true, map[string]any{"order.paid": true}, ""))
	info, _ = v.app.Transition(r.TransitionID)
	assert.Equal(t, "true", info.VerifyHeld)
	v.release("p.pay") // the handler's later answer loses
	assert.False(t, v.app.Settle(r.TransitionID, true, nil, ""))
	info, _ = v.app.Transition(r.TransitionID)
	assert.Equal(t, "true", info.VerifyHeld, "the first settlement's verdict stays")

	// Settled refused from outside: no verdict.
	v.hold("p.pay")
	r = v.fire("p.pay", FireOptions{})
	require.True(t, v.app.Settle(r.TransitionID, false, nil, "gave up"))
	info, _ = v.app.Transition(r.TransitionID)
	assert.Equal(t, "refused", info.Status)
	assert.Equal(t, "", info.VerifyHeld)
	v.release("p.pay")

	// A report of what the person did is checked as well.
	id, err := v.app.Report("p.pay", nil, map[string]any{"order.paid": "maybe"})
	require.NoError(t, err)
	info, _ = v.app.Transition(id)
	assert.Equal(t, "false", info.VerifyHeld)
	assert.Equal(t, []Condition{{Key: "order.paid", Op: "eq", Value: true, Actual: "maybe"}}, info.VerifyFailed)
}

// The test: verifyHeld false when the handler claims success but
// the declared check fails.
func TestDidItWorkVerifyHeldFalseWhenTheHandlerClaimsSuccess(t *testing.T) {
	v := newV2(t, verifyGraph, AppOptions{State: State{"order.paid": false}}, map[string]func(HandlerCall) (any, error){
		"p.pay": func(HandlerCall) (any, error) { return map[string]any{"receipt": "r-1"}, nil },
	})
	p := v.port(t, PortOptions{})
	r, m := pcall(t, p, "v.do_action", `{"action":"pay"}`)
	require.Equal(t, true, m["ok"], "%s", r.JSON())
	id := r.TransitionID()
	waitSettled(t, v.app, id)

	r, m = pcall(t, p, "v.did_it_work", `{"transitionId":"`+id+`"}`)
	assert.Equal(t, true, m["settled"])
	assert.Equal(t, "performed", m["effectStatus"])
	assert.Equal(t, false, m["verifyHeld"])
	assert.Equal(t, "The app reported p.pay performed, but the check it declares does not hold (see verifyFailed): treat it as not done and tell the person.", m["outcome"])
	assert.Equal(t, []any{map[string]any{"key": "order.paid", "op": "eq", "value": true, "actual": false}}, m["verifyFailed"])
	assert.Equal(t, map[string]any{"receipt": "r-1"}, m["data"])
	assert.Equal(t, []string{"ok", "did", "transitionId", "effectStatus", "settled", "outcome", "verifyHeld", "verifyFailed", "data", "youAreOn", "version"}, r.Keys())
}

func TestDidItWorkVerifyFields(t *testing.T) {
	cases := []struct {
		name    string
		state   State
		action  string
		answer  func(HandlerCall) (any, error)
		held    any // nil = absent
		outcome string
		failed  bool
	}{
		{"held", nil, "p.pay", func(HandlerCall) (any, error) { return map[string]any{"order.paid": true}, nil },
			true, "It happened: p.pay was performed, and its declared check holds.", false},
		{"unevaluable", nil, "p.pay", func(HandlerCall) (any, error) { return nil, nil },
			"unevaluable", "The app reported p.pay performed; the check it declares could not be evaluated (a key it reads is missing), so it is unconfirmed.", true},
		{"refused", State{"order.paid": true}, "p.pay", func(HandlerCall) (any, error) { return nil, errBoom },
			nil, "It did not happen: p.pay was refused.", false},
		{"no verify", nil, "p.plain", func(HandlerCall) (any, error) { return nil, nil },
			nil, "It happened: p.plain was performed.", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := newV2(t, verifyGraph, AppOptions{State: c.state}, map[string]func(HandlerCall) (any, error){c.action: c.answer})
			p := v.port(t, PortOptions{})
			r, m := pcall(t, p, "v.do_action", `{"action":"`+c.action+`"}`)
			require.Equal(t, true, m["ok"], "%s", r.JSON())
			waitSettled(t, v.app, r.TransitionID())
			_, m = pcall(t, p, "v.did_it_work", `{"transitionId":"`+r.TransitionID()+`"}`)
			assert.Equal(t, c.outcome, m["outcome"])
			if c.held == nil {
				assert.NotContains(t, m, "verifyHeld")
			} else {
				assert.Equal(t, c.held, m["verifyHeld"])
			}
			if c.failed {
				assert.NotEmpty(t, m["verifyFailed"])
			} else {
				assert.NotContains(t, m, "verifyFailed")
			}
		})
	}
	v := newV2(t, verifyGraph, AppOptions{}, nil)
	v.hold("p.pay")
	p := v.port(t, PortOptions{})
	r, _ := pcall(t, p, "v.do_action", `{"action":"pay"}`)
	_, m := pcall(t, p, "v.did_it_work", `{"transitionId":"`+r.TransitionID()+`"}`)
	assert.Equal(t, "still-pending", m["judgment"])
	assert.NotContains(t, m, "verifyHeld")
	v.release("p.pay")
	waitSettled(t, v.app, r.TransitionID())
}

func TestCallSettledFoldsVerifyHeld(t *testing.T) {
	v := newV2(t, verifyGraph, AppOptions{State: State{"order.paid": false, "shipment.id": "s"}}, map[string]func(HandlerCall) (any, error){
		"p.pay": func(HandlerCall) (any, error) { return map[string]any{"order.paid": false}, nil },
	})
	p := v.port(t, PortOptions{})
	ctx := context.Background()
	r := CallSettled(ctx, p, "v.do_action", []byte(`{"action":"pay"}`), 5*time.Second)
	m := checkResult(t, r)
	assert.Equal(t, true, m["settled"])
	assert.Equal(t, false, m["verifyHeld"])
	assert.Contains(t, m["outcome"], "does not hold")
	assert.Len(t, m["verifyFailed"], 1)
	assert.NotContains(t, m, "settleWith")

	// A journey step folds it too, and its frame view is refreshed.
	r = CallSettled(ctx, p, "v.journey.buy", []byte(`{"step":"pay"}`), 5*time.Second)
	m = checkResult(t, r)
	assert.Equal(t, true, m["settled"], "%s", r.JSON())
	assert.Equal(t, false, m["verifyHeld"])
	assert.Equal(t, "one-ready-step", m["judgment"])
	assert.Equal(t, []any{"p.pay"}, m["doneSteps"], "the app said performed: the step is done, the check says otherwise")
	rowOf(t, m, "readySteps", "p.ship")
	r = CallSettled(ctx, p, "v.do_action", []byte(`{"action":"ship"}`), 5*time.Second)
	m = checkResult(t, r)
	assert.Equal(t, true, m["verifyHeld"])
	assert.Equal(t, "It happened: p.ship was performed, and its declared check holds.", m["outcome"])
	assert.NotContains(t, m, "verifyFailed")

	// Without verify the fold carries no verifyHeld.
	r = CallSettled(ctx, p, "v.do_action", []byte(`{"action":"plain"}`), 5*time.Second)
	m = checkResult(t, r)
	assert.Equal(t, true, m["settled"])
	assert.NotContains(t, m, "verifyHeld")
	assert.Equal(t, "It happened: p.plain was performed.", m["outcome"])
}

func TestSettledFactsVerify(t *testing.T) {
	failed := []Condition{{Key: "k", Op: "exists"}}
	cases := []struct {
		info TransitionInfo
		want string
	}{
		{TransitionInfo{Status: "performed", Action: "a.b", VerifyHeld: "true"},
			`[{"effectStatus":"performed"},{"outcome":"It happened: a.b was performed, and its declared check holds."},{"verifyHeld":true}]`},
		{TransitionInfo{Status: "performed", Action: "a.b", VerifyHeld: "false", VerifyFailed: failed, Data: "d"},
			`[{"effectStatus":"performed"},{"outcome":"The app reported a.b performed, but the check it declares does not hold (see verifyFailed): treat it as not done and tell the person."},{"verifyHeld":false},{"verifyFailed":[{"key":"k","op":"exists"}]},{"data":"d"}]`},
		{TransitionInfo{Status: "performed", Action: "a.b", VerifyHeld: "unevaluable", VerifyFailed: failed},
			`[{"effectStatus":"performed"},{"outcome":"The app reported a.b performed; the check it declares could not be evaluated (a key it reads is missing), so it is unconfirmed."},{"verifyHeld":"unevaluable"},{"verifyFailed":[{"key":"k","op":"exists"}]}]`},
		// A refused transition never shows a verdict, whatever it holds.
		{TransitionInfo{Status: "refused", Action: "a.b", VerifyHeld: "false", Error: "no"},
			`[{"effectStatus":"refused"},{"outcome":"It did not happen: a.b was refused."},{"error":"no"}]`},
	}
	for _, c := range cases {
		o := SettledFacts(c.info)
		var parts []byte
		parts = append(parts, '[')
		for i, f := range o {
			if i > 0 {
				parts = append(parts, ',')
			}
			parts = AppendValue(parts, Obj{f})
		}
		parts = append(parts, ']')
		assert.Equal(t, c.want, string(parts))
	}
}
