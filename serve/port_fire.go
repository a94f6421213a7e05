// Firing through the port: decline, the confirm gate with its receipts
// (needs-confirm with askId), finding the caller's own open ask (or the one
// it cites) on confirm:true, and the rejected and fired results shared by
// the journey tools and do_action.

package serve

import "context"

// fireAction fires act through the port's gates. extra (journey, step) is
// added to every result; recent are the recent steps for the receipts (the
// journey's, or the session's last fires for do_action).
func (p *Port) fireAction(ctx context.Context, act *Action, f fireArgs, extra Obj, recent []Obj) Result {
	input := f.input
	if act.Input == nil {
		input = nil
	}
	caller := p.callerOf(ctx)
	instance := act.Card(f.instance)
	if instance != "" {
		extra = append(extra[:len(extra):len(extra)], Field{"instance", instance}) // a copy: the caller's stays as it was
	}
	if f.refuse {
		return p.decline(act, input, instance, f.hasInput && act.Input != nil, f.askID, caller, extra)
	}
	if chk := p.app.Check(act.ID, input, instance); !chk.OK {
		return withExtra(p.reject(act, chk), extra)
	}
	if chk := p.checkOffer(act, f.offerID); !chk.OK {
		return withExtra(p.reject(act, chk), extra)
	}
	if act.Confirm && p.confirm && !f.confirm {
		return p.needsConfirm(act, input, instance, f.askID, caller, extra, recent)
	}
	askID := ""
	if act.Confirm && (f.confirm || p.gated) {
		var no *FireResult
		if askID, no = p.pickAsk(act.ID, instance, input, f.askID, caller); no != nil {
			return withExtra(p.reject(act, *no), extra)
		}
	}
	fr := p.app.fire(ctx, act.ID, FireOptions{Source: p.source, Input: input, AskID: askID, Instance: instance})
	if !fr.OK {
		if fr.Reason == ReasonApprovalRequired {
			return p.needsConfirm(act, input, instance, askID, caller, extra, recent)
		}
		return withExtra(p.reject(act, fr), extra)
	}
	p.acknowledge(act, p.app.Version()) // the port acted on what it saw
	r := newResult("ok", true, "did", act.ID, "does", act.Does, "transitionId", fr.TransitionID,
		"effectStatus", fr.EffectStatus,
		"settleWith", Obj{{"tool", p.names.didItWork}, {"arg", "transitionId"}})
	if fr.UsedAsk != "" {
		r = r.With("askId", fr.UsedAsk)
	}
	return withExtra(r, extra)
}

// pickAsk returns the ask that backs caller's fire of action: the one it
// cites (cited, the askId argument), or its own newest open ask for the
// same card and input; "" when it has none. Outside enforcement a pending
// one is approved as the person's relayed yes. It refuses, using nothing,
// a cited id that names no ask (ASK_UNKNOWN) or another caller's ask
// (APPROVAL_NOT_YOURS); and in a gated port a caller without an ask of
// its own whose confirm matches an approval another caller holds
// (APPROVAL_NOT_YOURS), or an approval raised with no identity that only
// citing its id can use (ASK_ID_REQUIRED) — unless a standing grant
// (AlwaysApprove) allows the fire without any ask.
func (p *Port) pickAsk(action, instance string, input any, cited, caller string) (string, *FireResult) {
	a := p.app
	a.mu.Lock()
	defer a.mu.Unlock()
	var k *ask
	if cited != "" {
		if k = a.asks[cited]; k == nil {
			r := refusal(ReasonAskUnknown)
			return "", &r
		}
		if !mayUse(k, caller) {
			r := refusal(ReasonApprovalNotYours)
			return "", &r
		}
		if k.action != action || k.instance != instance || !EqualValues(k.input, input) {
			return k.id, nil // the verdict says what differs
		}
	} else if k = a.findOpenAsk(action, instance, input, false, caller); k == nil {
		if p.gated && !a.grantLive(action) { // a standing grant allows the fire without any ask
			if o := a.othersApproval(action, instance, input, caller); o != nil {
				reason := ReasonApprovalNotYours
				if o.caller == "" {
					reason = ReasonAskIDRequired
				}
				r := refusal(reason)
				return "", &r
			}
		}
		return "", nil
	}
	if !a.Enforcing() && k.state == askPending {
		k.state = askApproved
		k.answeredBy = "relayed by " + string(p.source)
		k.approvedAt = a.now()
	}
	return k.id, nil
}

// decline closes caller's open ask for act: the one it cites, or its
// newest (matching input when given, and the card when one is named).
// Another caller's ask is never closed.
func (p *Port) decline(act *Action, input any, instance string, matchInput bool, cited, caller string, extra Obj) Result {
	a := p.app
	a.mu.Lock()
	var found, newest *ask // the open ask to close; the newest one of the caller's for act, whatever its state
	if cited != "" {
		k := a.asks[cited]
		switch {
		case k == nil:
			a.mu.Unlock()
			return withExtra(p.reject(act, refusal(ReasonAskUnknown)), extra)
		case !mayUse(k, caller):
			a.mu.Unlock()
			return withExtra(p.reject(act, refusal(ReasonApprovalNotYours)), extra)
		}
		if k.action == act.ID {
			newest = k
			if s := a.askState(k); s == askPending || s == askApproved {
				found = k
			}
		}
	}
	for i := len(a.askOrder) - 1; cited == "" && caller != "" && i >= 0 && found == nil; i-- {
		k := a.asks[a.askOrder[i]]
		if k.caller != caller || k.action != act.ID || (matchInput && !EqualValues(k.input, input)) || (instance != "" && k.instance != instance) {
			continue
		}
		if newest == nil {
			newest = k
		}
		if s := a.askState(k); s == askPending || s == askApproved {
			found = k
		}
	}
	why := "There was no open ask for this; nothing was performed and nothing is pending."
	if found != nil {
		found.state = askDeclined
		found.answeredBy = "relayed by " + string(p.source)
		why = "The ask is closed as declined; nothing was performed."
	} else if newest != nil {
		why = closedWhy(newest)
	}
	a.mu.Unlock()
	r := newResult("ok", true, "judgment", JudgmentDeclined, "performed", false, "action", act.ID)
	if found != nil {
		r = r.With("askId", found.id)
	}
	return withExtra(r.With("why", why), extra)
}

// closedWhy says why a decline found nothing open when the caller's newest
// ask for the action was already answered no: the person declined it (say,
// on the page's card, before the model relayed the same answer), the
// caller declined it before, or the person withdrew the approval. Any
// other state says there was no open ask. Call it with the app's lock.
func closedWhy(k *ask) string {
	switch {
	case k.state == askDeclined && k.humanNo:
		return "The person already declined this; nothing was performed and nothing is pending."
	case k.state == askDeclined:
		return "This was already declined; nothing was performed and nothing is pending."
	case k.state == askRevoked:
		return "The person withdrew their approval of this; nothing was performed and nothing is pending."
	}
	return "There was no open ask for this; nothing was performed and nothing is pending."
}

// needsConfirm returns the receipts of a high-effect fire that waits for a
// yes, reusing the caller's open ask for the same action and input (the
// one it cites, or its newest) or minting one.
func (p *Port) needsConfirm(act *Action, input any, instance, cited, caller string, extra Obj, recent []Obj) Result {
	a := p.app
	a.mu.Lock()
	var k *ask
	if c := a.asks[cited]; c != nil && mayUse(c, caller) && c.action == act.ID && c.instance == instance && EqualValues(c.input, input) {
		if s := a.askState(c); s == askPending || s == askApproved {
			k = c
		}
	}
	if k == nil {
		k = a.findOpenAsk(act.ID, instance, input, false, caller)
	}
	if k == nil {
		k = a.mintAsk(act.ID, instance, input, p.source, caller)
	}
	kid, pending := k.id, k.state == askPending
	_, heldWhen, _ := act.When.Eval(a.state)
	_, heldEnabled, _ := act.EnabledWhen.Eval(a.state)
	a.mu.Unlock()
	willDo := Obj{{"does", act.Does}}
	if len(act.Writes) > 0 {
		willDo = append(willDo, Field{"writes", append([]string(nil), act.Writes...)})
	}
	if act.GoTo != "" {
		willDo = append(willDo, Field{"navigatesTo", act.GoTo})
	}
	because := append(append([]Condition{}, heldWhen...), heldEnabled...)
	willUse := Obj{}
	if input != nil {
		willUse = append(willUse, Field{"input", CloneValue(input)})
	}
	if instance != "" {
		willUse = append(willUse, Field{"instance", instance}) // the card the approval binds
	}
	why := "This is high-effect, so nothing was done. Tell the person what it will do and ask them; call again with confirm:true if they say yes, decline:true if no."
	if p.gated {
		why = "This is high-effect and the app requires a person's approval, so nothing was done. The person approves or declines " + kid + " in the app; then call again with confirm:true and askId " + kid + "."
	}
	r := newResult("ok", true, "judgment", JudgmentNeedsConfirm, "why", why, "performed", false,
		"askId", kid, "action", act.ID, "willDo", willDo, "because", because, "willUse", willUse)
	if recent == nil {
		recent = []Obj{}
	}
	r = r.With("recentSteps", recent)
	if p.gated && pending {
		r = r.With("awaitingHuman", true)
	}
	return withExtra(r, extra)
}

// rejected is the result of a refused fire.
func rejected(action string, fr FireResult) Result {
	r := newResult("ok", false, "judgment", JudgmentRejected, "reason", fr.Reason, "why", fr.Why,
		"performed", false, "action", action)
	if len(fr.Evidence) > 0 {
		r = r.With("evidence", fr.Evidence)
		if fr.Reason == ReasonToolDisabled {
			r = r.With("blockedBecause", conditionTexts(fr.Evidence))
		}
	}
	if fr.Expects != nil {
		r = r.With("expects", fr.Expects)
	}
	if len(fr.Errors) > 0 {
		errs := make([]Obj, len(fr.Errors))
		for i, e := range fr.Errors {
			errs[i] = Obj{{"path", e.Path}, {"message", e.Message}}
		}
		r = r.With("errors", errs)
	}
	if fr.Retriable {
		r = r.With("retriable", true)
	}
	if fr.Differs != "" {
		r = r.With("differs", fr.Differs)
	}
	if fr.On != "" {
		r = r.With("note", "The action is on page "+fr.On+".")
	}
	if fr.Instances != nil {
		r = r.With("instances", fr.Instances)
	}
	if fr.PriorTransitionID != "" {
		r = r.With("priorTransitionId", fr.PriorTransitionID)
	}
	if fr.PendingTransitionID != "" {
		r = r.With("pendingTransitionId", fr.PendingTransitionID)
	}
	if fr.Moved != nil {
		r = r.With("moved", fr.Moved)
	}
	return r
}

// reject is the result of a refused fire of act, with one sentence more
// when the app marked it busy: working is not broken.
func (p *Port) reject(act *Action, fr FireResult) Result {
	r := rejected(act.ID, fr)
	p.app.mu.Lock()
	busy := p.app.busyOf(act)
	p.app.mu.Unlock()
	if busy != "" {
		r = r.With("why", fr.Why+" The app is busy with it ("+busy+"): that is work in progress, not a failure.").With("busy", busy)
	}
	return r
}

// conditionTexts renders conditions as short human text.
func conditionTexts(cs []Condition) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.String()
	}
	return out
}

// withExtra adds the fields of extra to r.
func withExtra(r Result, extra Obj) Result {
	for _, f := range extra {
		r = r.With(f.Key, f.Value)
	}
	return r
}

// maxRecent is how many recent steps a needs-confirm receipt shows.
const maxRecent = 3

// recentFires lists the session's last fires as receipt rows {step,
// effectStatus}, oldest first; call it with the app's lock.
func (a *App) recentFires() []Obj {
	order := a.order
	if len(order) > maxRecent {
		order = order[len(order)-maxRecent:]
	}
	out := make([]Obj, 0, len(order))
	for _, id := range order {
		t := a.transitions[id]
		out = append(out, Obj{{"step", t.action}, {"effectStatus", t.status}})
	}
	return out
}
