// did_it_work (settled facts of a fire, still-pending, where an ask stands,
// unknown ids) and do_action (one action by exact id or unique suffix).

package serve

import (
	"context"
	"sort"
	"strings"
)

// didItWork serves the did_it_work tool.
func (p *Port) didItWork(a argMap, caller string) Result {
	id, err := a.str("transitionId")
	if err != nil {
		return argRefusal(err)
	}
	if id == "" {
		if id, err = a.str("askId"); err != nil {
			return argRefusal(err)
		}
	}
	if id == "" {
		return errorResult(ReasonTransitionIDRequired)
	}
	app := p.app
	app.mu.Lock()
	defer app.mu.Unlock()
	if k := app.asks[id]; k != nil {
		return p.askResult(k)
	}
	if t := app.transitions[id]; t != nil {
		return p.transitionResult(t)
	}
	var pending, awaiting []string
	for _, tid := range app.order {
		if app.transitions[tid].status == statusPending {
			pending = append(pending, tid)
		}
	}
	for _, kid := range app.askOrder {
		if k := app.asks[kid]; k.state == askPending && caller != "" && k.caller == caller { // only the caller's own
			awaiting = append(awaiting, kid)
		}
	}
	if pending == nil {
		pending = []string{}
	}
	if awaiting == nil {
		awaiting = []string{}
	}
	return errorResult(ReasonUnknownTransition, "pending", pending, "asks", Obj{{"awaitingHuman", awaiting}})
}

// transitionResult reports a transition; call it with the app's lock.
func (p *Port) transitionResult(t *transition) Result {
	if t.status == statusPending {
		return newResult("ok", true, "judgment", JudgmentStillPending, "settled", false, "did", t.action,
			"transitionId", t.id, "effectStatus", statusPending,
			"settleWith", Obj{{"tool", p.names.didItWork}, {"arg", "transitionId"}},
			"why", "The fire was made and has not settled; do not say it happened yet.")
	}
	r := newResult("ok", true, "settled", true, "did", t.action, "transitionId", t.id)
	if t.instance != "" {
		r = r.With("instance", t.instance)
	}
	return withExtra(r, SettledFacts(TransitionInfo{
		Status: t.status, Data: t.data, Error: t.err, Action: t.action,
		VerifyHeld: t.verify, VerifyFailed: t.verifyBad,
	}))
}

// SettledFacts are the fields a settled transition adds to a result:
// effectStatus, outcome and data or error, and for an action that declares
// verify, verifyHeld (with the failed conditions as verifyFailed). An
// action the app reported performed whose check failed reads plainly as
// not done. The MCP settlement fold uses it.
func SettledFacts(t TransitionInfo) Obj {
	o := Obj{{"effectStatus", t.Status}}
	if t.Status == statusPerformed {
		outcome := "It happened: " + t.Action + " was performed."
		switch t.VerifyHeld {
		case "false":
			outcome = "The app reported " + t.Action + " performed, but the check it declares does not hold (see verifyFailed): treat it as not done and tell the person."
		case "unevaluable":
			outcome = "The app reported " + t.Action + " performed; the check it declares could not be evaluated (a key it reads is missing), so it is unconfirmed."
		case "true":
			outcome = "It happened: " + t.Action + " was performed, and its declared check holds."
		}
		o = append(o, Field{"outcome", outcome})
		if v := t.VerifyValue(); v != nil {
			o = append(o, Field{"verifyHeld", v})
			if t.VerifyHeld != "true" {
				o = append(o, Field{"verifyFailed", t.VerifyFailed})
			}
		}
		if t.Data != nil {
			o = append(o, Field{"data", CloneValue(t.Data)})
		}
	} else {
		o = append(o, Field{"outcome", "It did not happen: " + t.Action + " was refused."})
		if t.Error != "" {
			o = append(o, Field{"error", t.Error})
		}
	}
	return o
}

// askResult reports where an ask stands; call it with the app's lock.
func (p *Port) askResult(k *ask) Result {
	base := func(judgment, why string) Result {
		r := newResult("ok", true, "judgment", judgment, "why", why, "performed", false, "askId", k.id, "action", k.action)
		if k.instance != "" {
			r = r.With("instance", k.instance) // the card the ask is for
		}
		return r
	}
	switch p.app.askState(k) {
	case askPending:
		return base(JudgmentAwaitingHuman, "Nobody has answered this ask yet; nothing was performed.")
	case askApproved:
		return base(JudgmentApprovedNotDone, "The person approved this and it has not been fired yet; call the same step or action again with confirm:true.")
	case "expired":
		return base(JudgmentApprovalInvalid, "The approval expired before it was used; nothing was performed. Ask again.")
	case askRevoked:
		return base(JudgmentApprovalWithdrawn, "The person withdrew the approval; nothing was performed.")
	case askDeclined:
		return base(JudgmentDeclined, "The ask was declined; nothing was performed.")
	}
	// used: forward to its fire.
	if t := p.app.transitions[k.transition]; t != nil {
		return p.transitionResult(t).With("askId", k.id)
	}
	return base(JudgmentApprovalInvalid, "The ask was used but its fire is no longer on record.")
}

// doAction serves the do_action tool.
func (p *Port) doAction(ctx context.Context, a argMap) Result {
	name, err := a.str("action")
	if err != nil {
		return argRefusal(err)
	}
	fa, err := p.fireArgs(a)
	if err != nil {
		return argRefusal(err)
	}
	if name == "" {
		return errorResult(ReasonActionRequired, "actions", p.actionsHere())
	}
	act, matches := p.resolveAction(name)
	if act == nil {
		if len(matches) > 1 {
			return errorResult(ReasonAmbiguousAction, "action", name, "candidates", matches)
		}
		return errorResult(ReasonUnknownAction, "action", name, "actions", p.actionsHere())
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.app.mu.Lock()
	recent := p.app.recentFires()
	p.app.mu.Unlock()
	return p.fireAction(ctx, act, fa, nil, recent)
}

// actionsHere lists the ids of the actions offered on the current page.
func (p *Port) actionsHere() []string {
	app := p.app
	app.mu.Lock()
	defer app.mu.Unlock()
	out := []string{}
	for i := range app.g.Actions {
		act := &app.g.Actions[i]
		if act.On == app.page {
			if ok, _, _ := act.When.Eval(app.state); ok {
				out = append(out, act.ID)
			}
		}
	}
	return out
}

// resolveAction finds an action by exact id, else by a suffix unique among
// the actions on this page, else unique in the graph.
func (p *Port) resolveAction(name string) (*Action, []string) {
	g := p.app.g
	if act := g.Action(name); act != nil {
		return act, nil
	}
	page := p.app.Page()
	var here, all []string
	for i := range g.Actions {
		act := &g.Actions[i]
		if strings.HasSuffix(act.ID, "."+name) {
			all = append(all, act.ID)
			if act.On == page {
				here = append(here, act.ID)
			}
		}
	}
	switch {
	case len(here) == 1:
		return g.Action(here[0]), nil
	case len(here) > 1:
		sort.Strings(here)
		return nil, here
	case len(all) == 1:
		return g.Action(all[0]), nil
	}
	sort.Strings(all)
	return nil, all
}
