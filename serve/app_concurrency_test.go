// Tests of the second version's concurrency: "once" (DUPLICATE_EXECUTION
// with priorTransitionId after a performed fire, PRIOR_FIRE_PENDING while
// the first is pending) and "single-flight" (PRIOR_FIRE_PENDING with
// pendingTransitionId), per card for repeating actions, and the gate
// running before any ask is minted.

package serve

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const concGraph = `{"id":"c",
 "pages":[{"id":"p","areas":[{"id":"rows","repeats":true,"instancesFrom":"rows"}]},{"id":"q"}],
 "actions":[
  {"id":"p.submit","does":"Submit, once.","on":"p","concurrency":"once"},
  {"id":"p.sync","does":"Sync.","on":"p","concurrency":"single-flight"},
  {"id":"p.launch","does":"Launch, once.","on":"p","concurrency":"once","confirm":true},
  {"id":"p.stream","does":"Stream.","on":"p","concurrency":"single-flight","confirm":true},
  {"id":"p.free","does":"Any number of times.","on":"p"},
  {"id":"p.rows.send","does":"Send one row, once.","on":"p","concurrency":"once"},
  {"id":"p.rows.poll","does":"Poll one row.","on":"p","concurrency":"single-flight"},
  {"id":"q.submit","does":"Elsewhere.","on":"q","concurrency":"once"}
 ],
 "journeys":[{"id":"j","does":"Submit.","steps":["p.submit"]}]}`

func concApp(t *testing.T, enforce *bool) *v2app {
	t.Helper()
	return newV2(t, concGraph, AppOptions{State: State{"rows": []any{"r-1", "r-2"}}, RequireHumanApproval: enforce}, nil)
}

func TestParseGraphConcurrency(t *testing.T) {
	g := mustGraph(t, concGraph)
	assert.Equal(t, ConcurrencyOnce, g.Action("p.submit").Concurrency)
	assert.Equal(t, ConcurrencySingleFlight, g.Action("p.sync").Concurrency)
	assert.Equal(t, "", g.Action("p.free").Concurrency)
	for _, c := range []struct{ field, want string }{
		{`"concurrency":"twice"`, `serve: action "p.a": concurrency "twice" is not a mode; use "once" or "single-flight"`},
		{`"concurrency":"singleflight"`, `concurrency "singleflight" is not a mode`},
		{`"concurrency":1`, `serve: action "p.a": "concurrency" must be a string, got`},
	} {
		_, err := ParseGraph([]byte(`{"id":"g","pages":[{"id":"p"}],"actions":[{"id":"p.a","on":"p",` + c.field + `}]}`))
		require.Error(t, err, c.field)
		assert.Contains(t, err.Error(), c.want)
	}
}

// The test: after a performed fire of a "once" action, another is
// rejected DUPLICATE_EXECUTION with the first transition's id.
func TestOnceDuplicateExecutionNamesThePriorTransition(t *testing.T) {
	v := concApp(t, nil)
	p := v.port(t, PortOptions{})
	r, m := pcall(t, p, "c.do_action", `{"action":"submit"}`)
	require.Equal(t, true, m["ok"], "%s", r.JSON())
	first := r.TransitionID()
	assert.Equal(t, "p.submit#1", first)
	assert.Equal(t, "performed", waitSettled(t, v.app, first).Status)

	r, m = pcall(t, p, "c.do_action", `{"action":"submit"}`)
	assert.Equal(t, "rejected", m["judgment"], "%s", r.JSON())
	assert.Equal(t, ReasonDuplicateExecution, m["reason"])
	assert.Equal(t, whyOf(ReasonDuplicateExecution), m["why"])
	assert.Equal(t, first, m["priorTransitionId"])
	assert.NotContains(t, m, "retriable", "it will never pass")
	assert.NotContains(t, m, "pendingTransitionId")
	assert.Equal(t, false, m["performed"])

	// The app session says the same, and records nothing.
	fr := v.fire("p.submit", FireOptions{})
	assert.Equal(t, ReasonDuplicateExecution, fr.Reason)
	assert.Equal(t, first, fr.PriorTransitionID)
	fr = v.app.Check("p.submit", nil, "")
	assert.Equal(t, ReasonDuplicateExecution, fr.Reason)
	assert.Len(t, v.app.Transitions(), 1)
	assert.Len(t, v.handlerCalls(), 1)

	// Whoever fires: the person's fire is refused too.
	fr = v.fire("p.submit", FireOptions{Source: PrincipalUser})
	assert.Equal(t, ReasonDuplicateExecution, fr.Reason)
	// Through a journey too.
	_, m = pcall(t, p, "c.journey.j", `{"step":"submit"}`)
	assert.Equal(t, ReasonDuplicateExecution, m["reason"])
	assert.Equal(t, first, m["priorTransitionId"])
}

func TestOncePendingAndRefused(t *testing.T) {
	v := concApp(t, nil)
	v.hold("p.submit")
	first := v.fire("p.submit", FireOptions{})
	require.True(t, first.OK)

	// While it is pending a second waits for it.
	fr := v.fire("p.submit", FireOptions{})
	assert.Equal(t, ReasonPriorFirePending, fr.Reason)
	assert.Equal(t, first.TransitionID, fr.PendingTransitionID)
	assert.Equal(t, "", fr.PriorTransitionID)
	assert.True(t, fr.Retriable)
	p := v.port(t, PortOptions{})
	_, m := pcall(t, p, "c.do_action", `{"action":"submit"}`)
	assert.Equal(t, ReasonPriorFirePending, m["reason"])
	assert.Equal(t, first.TransitionID, m["pendingTransitionId"])
	assert.Equal(t, true, m["retriable"])

	// It is refused: a refused fire does not count, the next one runs.
	require.True(t, v.app.Settle(first.TransitionID, false, nil, "declined by the bank"))
	v.release("p.submit")
	second := v.fire("p.submit", FireOptions{})
	require.True(t, second.OK, "%+v", second)
	assert.Equal(t, "p.submit#2", second.TransitionID)
	waitSettled(t, v.app, second.TransitionID)
	fr = v.fire("p.submit", FireOptions{})
	assert.Equal(t, ReasonDuplicateExecution, fr.Reason)
	assert.Equal(t, "p.submit#2", fr.PriorTransitionID)

	// A handler error is a refusal too.
	v2 := concApp(t, nil)
	v2.setResult("p.submit", func(HandlerCall) (any, error) { return nil, errBoom })
	fr = v2.fire("p.submit", FireOptions{})
	assert.Equal(t, "refused", waitSettled(t, v2.app, fr.TransitionID).Status)
	v2.setResult("p.submit", nil)
	fr = v2.fire("p.submit", FireOptions{})
	require.True(t, fr.OK)
	waitSettled(t, v2.app, fr.TransitionID)
	assert.Equal(t, "p.submit#2", v2.fire("p.submit", FireOptions{}).PriorTransitionID)
}

func TestOnceCountsAReport(t *testing.T) {
	v := concApp(t, nil)
	id, err := v.app.Report("p.submit", nil, nil)
	require.NoError(t, err)
	fr := v.fire("p.submit", FireOptions{})
	assert.Equal(t, ReasonDuplicateExecution, fr.Reason, "the person already did it")
	assert.Equal(t, id, fr.PriorTransitionID)
}

func TestOnceCountsAReportOfACard(t *testing.T) {
	v := concApp(t, nil)
	p := v.port(t, PortOptions{})
	// The person sent row r-1 themselves: the agent may not send it again,
	// and r-2 is still open.
	id, err := v.app.ReportInstance("p.rows.send", "r-1", nil, nil)
	require.NoError(t, err)
	info, _ := v.app.Transition(id)
	assert.Equal(t, "r-1", info.Instance)
	_, m := pcall(t, p, "c.do_action", `{"action":"rows.send","instance":"r-1"}`)
	assert.Equal(t, ReasonDuplicateExecution, m["reason"])
	assert.Equal(t, id, m["priorTransitionId"])
	r, m := pcall(t, p, "c.do_action", `{"action":"rows.send","instance":"r-2"}`)
	require.Equal(t, true, m["ok"], "%s", r.JSON())
	waitSettled(t, v.app, r.TransitionID())
	// A card no longer listed can still be reported (the person's act may
	// have removed it); an action that does not repeat ignores the card.
	_, err = v.app.ReportInstance("p.rows.send", "r-9", nil, nil)
	require.NoError(t, err)
	id, err = v.app.ReportInstance("p.free", "r-1", nil, nil)
	require.NoError(t, err)
	info, _ = v.app.Transition(id)
	assert.Equal(t, "", info.Instance)
	_, err = v.app.ReportInstance("p.nope", "r-1", nil, nil)
	require.Error(t, err)
}

func TestSingleFlight(t *testing.T) {
	v := concApp(t, nil)
	p := v.port(t, PortOptions{})
	v.hold("p.sync")
	r, m := pcall(t, p, "c.do_action", `{"action":"sync"}`)
	require.Equal(t, true, m["ok"], "%s", r.JSON())
	first := r.TransitionID()

	_, m = pcall(t, p, "c.do_action", `{"action":"sync"}`)
	assert.Equal(t, "rejected", m["judgment"])
	assert.Equal(t, ReasonPriorFirePending, m["reason"])
	assert.Equal(t, whyOf(ReasonPriorFirePending), m["why"])
	assert.Equal(t, first, m["pendingTransitionId"])
	assert.Equal(t, true, m["retriable"])
	assert.NotContains(t, m, "priorTransitionId")
	fr := v.fire("p.sync", FireOptions{Source: PrincipalUser})
	assert.Equal(t, ReasonPriorFirePending, fr.Reason, "per action, whoever fires")
	// Another action is not held up.
	fr = v.fire("p.free", FireOptions{})
	assert.True(t, fr.OK)

	v.release("p.sync")
	waitSettled(t, v.app, first)
	r, m = pcall(t, p, "c.do_action", `{"action":"sync"}`)
	require.Equal(t, true, m["ok"], "%s", r.JSON())
	assert.Equal(t, "p.sync#2", r.TransitionID())
	waitSettled(t, v.app, r.TransitionID())
	// And again: single-flight never says duplicate.
	r, m = pcall(t, p, "c.do_action", `{"action":"sync"}`)
	require.Equal(t, true, m["ok"], "%s", r.JSON())
	waitSettled(t, v.app, r.TransitionID())

	// A refused settlement frees it too, and so does one from outside.
	v.hold("p.sync")
	fr = v.fire("p.sync", FireOptions{})
	require.True(t, v.app.Settle(fr.TransitionID, false, nil, "stop"))
	fr = v.fire("p.sync", FireOptions{})
	require.True(t, fr.OK, "%+v", fr)
	v.release("p.sync")
	waitSettled(t, v.app, fr.TransitionID)
}

func TestSingleFlightSurvivesAReport(t *testing.T) {
	v := concApp(t, nil)
	v.hold("p.sync")
	first := v.fire("p.sync", FireOptions{})
	require.True(t, first.OK)
	// The person does it by hand meanwhile; the report settles at once.
	_, err := v.app.Report("p.sync", nil, nil)
	require.NoError(t, err)
	fr := v.fire("p.sync", FireOptions{})
	assert.Equal(t, ReasonPriorFirePending, fr.Reason, "the agent's first fire is still pending")
	assert.Equal(t, first.TransitionID, fr.PendingTransitionID)
	v.release("p.sync")
	waitSettled(t, v.app, first.TransitionID)
	fr = v.fire("p.sync", FireOptions{})
	assert.True(t, fr.OK, "%+v", fr)
}

func TestConcurrencyPerCard(t *testing.T) {
	v := concApp(t, nil)
	p := v.port(t, PortOptions{})
	r, m := pcall(t, p, "c.do_action", `{"action":"send","instance":"r-1"}`)
	require.Equal(t, true, m["ok"], "%s", r.JSON())
	sent := r.TransitionID()
	waitSettled(t, v.app, sent)
	_, m = pcall(t, p, "c.do_action", `{"action":"send","instance":"r-1"}`)
	assert.Equal(t, ReasonDuplicateExecution, m["reason"])
	assert.Equal(t, sent, m["priorTransitionId"])
	assert.Equal(t, "r-1", m["instance"])
	r, m = pcall(t, p, "c.do_action", `{"action":"send","instance":"r-2"}`)
	require.Equal(t, true, m["ok"], "another card is its own: %s", r.JSON())
	waitSettled(t, v.app, r.TransitionID())
	// No card: the instance gate answers, not the concurrency gate.
	_, m = pcall(t, p, "c.do_action", `{"action":"send"}`)
	assert.Equal(t, ReasonInstanceRequired, m["reason"])

	v.hold("p.rows.poll")
	r, m = pcall(t, p, "c.do_action", `{"action":"poll","instance":"r-1"}`)
	require.Equal(t, true, m["ok"])
	polling := r.TransitionID()
	_, m = pcall(t, p, "c.do_action", `{"action":"poll","instance":"r-1"}`)
	assert.Equal(t, ReasonPriorFirePending, m["reason"])
	assert.Equal(t, polling, m["pendingTransitionId"])
	r2, m := pcall(t, p, "c.do_action", `{"action":"poll","instance":"r-2"}`)
	require.Equal(t, true, m["ok"], "%s", r2.JSON())
	v.release("p.rows.poll")
	waitSettled(t, v.app, polling)
	waitSettled(t, v.app, r2.TransitionID())
	r, m = pcall(t, p, "c.do_action", `{"action":"poll","instance":"r-1"}`)
	require.Equal(t, true, m["ok"], "%s", r.JSON())
	waitSettled(t, v.app, r.TransitionID())
}

func TestOnceIgnoresAStrayInstance(t *testing.T) {
	// A plain "once" action acts on no card: an instance given anyway must
	// not open a second fire.
	v := concApp(t, nil)
	fr := v.fire("p.submit", FireOptions{})
	require.True(t, fr.OK)
	waitSettled(t, v.app, fr.TransitionID)
	for _, inst := range []string{"r-1", "x"} {
		again := v.fire("p.submit", FireOptions{Instance: inst})
		assert.Equal(t, ReasonDuplicateExecution, again.Reason, inst)
		assert.Equal(t, fr.TransitionID, again.PriorTransitionID)
		assert.Equal(t, ReasonDuplicateExecution, v.app.Check("p.submit", nil, inst).Reason)
	}
	v.hold("p.sync")
	fr = v.fire("p.sync", FireOptions{Instance: "a"})
	require.True(t, fr.OK)
	again := v.fire("p.sync", FireOptions{Instance: "b"})
	assert.Equal(t, ReasonPriorFirePending, again.Reason)
	assert.Equal(t, fr.TransitionID, again.PendingTransitionID)
	again = v.fire("p.sync", FireOptions{})
	assert.Equal(t, ReasonPriorFirePending, again.Reason)
	v.release("p.sync")
	waitSettled(t, v.app, fr.TransitionID)
	assert.Len(t, v.app.Transitions(), 2)
}

func TestConcurrencyGateRunsBeforeTheAsk(t *testing.T) {
	for _, enforce := range []bool{false, true} {
		name := "not enforcing"
		if enforce {
			name = "enforcing"
		}
		t.Run(name, func(t *testing.T) {
			v := concApp(t, ptrBool(enforce))
			p := v.port(t, PortOptions{})
			_, m := pcall(t, p, "c.do_action", `{"action":"launch"}`)
			require.Equal(t, "needs-confirm", m["judgment"])
			askID := m["askId"].(string)
			if enforce {
				require.NoError(t, v.app.ApproveAsk(askID, "ann"))
			}
			r, m := pcall(t, p, "c.do_action", `{"action":"launch","confirm":true}`)
			require.Equal(t, true, m["ok"], "%s", r.JSON())
			waitSettled(t, v.app, r.TransitionID())
			require.Len(t, v.app.Asks(), 1)

			// Done once: no needs-confirm, no new ask, with or without confirm.
			for _, args := range []string{`{"action":"launch"}`, `{"action":"launch","confirm":true}`} {
				_, m = pcall(t, p, "c.do_action", args)
				assert.Equal(t, "rejected", m["judgment"], args)
				assert.Equal(t, ReasonDuplicateExecution, m["reason"], args)
				assert.Equal(t, r.TransitionID(), m["priorTransitionId"])
			}
			assert.Len(t, v.app.Asks(), 1, "no ask was minted for a fire that cannot happen")

			// Single-flight with confirm: pending, so no ask either.
			v.hold("p.stream")
			_, m = pcall(t, p, "c.do_action", `{"action":"stream"}`)
			require.Equal(t, "needs-confirm", m["judgment"])
			if enforce {
				require.NoError(t, v.app.ApproveAsk(m["askId"].(string), "ann"))
			}
			r, m = pcall(t, p, "c.do_action", `{"action":"stream","confirm":true}`)
			require.Equal(t, true, m["ok"], "%s", r.JSON())
			asks := len(v.app.Asks())
			_, m = pcall(t, p, "c.do_action", `{"action":"stream"}`)
			assert.Equal(t, ReasonPriorFirePending, m["reason"])
			assert.Equal(t, r.TransitionID(), m["pendingTransitionId"])
			assert.Len(t, v.app.Asks(), asks)
			v.release("p.stream")
			waitSettled(t, v.app, r.TransitionID())
		})
	}
}

func TestConcurrencyGateOrder(t *testing.T) {
	// Earlier gates answer first: not on this page beats duplicate.
	v := concApp(t, nil)
	fr := v.fire("p.submit", FireOptions{})
	waitSettled(t, v.app, fr.TransitionID)
	require.NoError(t, v.app.Navigate("q", PrincipalUser))
	assert.Equal(t, ReasonNotOnPage, v.fire("p.submit", FireOptions{}).Reason)
	// An unwired action is refused before its concurrency is looked at.
	g := mustGraph(t, concGraph)
	app, err := NewApp(g, AppOptions{})
	require.NoError(t, err)
	assert.Equal(t, ReasonNotMaterialized, app.Fire(context.Background(), "p.submit", FireOptions{Source: PrincipalAgent}).Reason)
}

func TestOnceUnderRacingFires(t *testing.T) {
	// Many fires at once: exactly one is admitted, the rest wait on it or
	// are duplicates of it.
	for _, action := range []string{"p.submit", "p.sync"} {
		t.Run(action, func(t *testing.T) {
			v := concApp(t, nil)
			v.hold(action)
			const n = 32
			results := make([]FireResult, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					results[i] = v.fire(action, FireOptions{})
				}()
			}
			wg.Wait()
			var ok []string
			for _, r := range results {
				if r.OK {
					ok = append(ok, r.TransitionID)
					continue
				}
				assert.Equal(t, ReasonPriorFirePending, r.Reason)
			}
			require.Len(t, ok, 1)
			for _, r := range results {
				if !r.OK {
					assert.Equal(t, ok[0], r.PendingTransitionID)
				}
			}
			v.release(action)
			waitSettled(t, v.app, ok[0])
			assert.Len(t, v.app.Transitions(), 1)
		})
	}
}
