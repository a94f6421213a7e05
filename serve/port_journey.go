// The journey frame: opening (blocked on a failed precondition, switching
// cancels the old frame), ready and later steps, steps by exact id or
// unique suffix, and completion (frame completed, judgment done).

package serve

import (
	"context"
	"strings"
)

// frame is the open journey of a port.
type frame struct {
	journey string
	trans   []string // per step: the transition fired through the frame
	start   int      // len(app.order) when the frame opened
	// done, for a frame restored from a snapshot, is each step done before
	// it (Port.Snapshot); nil otherwise.
	done []bool
}

// The statuses of a journey step.
const (
	stepDone     = "done"
	stepInFlight = "in-flight"
	stepReady    = "ready"
	stepWaiting  = "waiting-for-first-step"
	stepNotHere  = "on-another-page"
	stepNotShown = "not-offered"
	stepDisabled = "disabled"
)

// stepStatus computes step i of the frame; call it with the app's lock.
func (p *Port) stepStatus(fr *frame, j *Journey, i int) (string, *Action) {
	a := p.app
	act := a.g.Action(j.Steps[i])
	if i < len(fr.done) && fr.done[i] && fr.trans[i] == "" {
		return stepDone, act // done before the snapshot the frame was restored from
	}
	st := ""
	if id := fr.trans[i]; id != "" {
		if t := a.transitions[id]; t != nil {
			st = t.status
		}
	}
	if st == "" || st == statusRefused {
		for k := len(a.order) - 1; k >= fr.start && k >= 0; k-- {
			t := a.transitions[a.order[k]]
			if t.action == act.ID && t.status != statusRefused {
				st = t.status
				break
			}
		}
	}
	switch st {
	case statusPerformed:
		return stepDone, act
	case statusPending:
		return stepInFlight, act
	}
	if i > 0 {
		if s0, _ := p.stepStatus(fr, j, 0); s0 != stepDone {
			return stepWaiting, act
		}
	}
	if act.On != a.page {
		return stepNotHere, act
	}
	if ok, _, _ := act.When.Eval(a.state); !ok {
		return stepNotShown, act
	}
	if ok, _, _ := act.EnabledWhen.Eval(a.state); !ok {
		return stepDisabled, act
	}
	return stepReady, act
}

// frameView describes the open frame; call it with the app's lock. done
// reports that every step is done.
func (p *Port) frameView(fr *frame) (view Obj, judgment string, recent []Obj, done bool) {
	a := p.app
	j := a.g.Journey(fr.journey)
	var ready, later []Obj
	var doneSteps []string
	for i := range j.Steps {
		st, act := p.stepStatus(fr, j, i)
		switch st {
		case stepDone:
			doneSteps = append(doneSteps, act.ID)
			recent = append(recent, Obj{{"step", act.ID}, {"effectStatus", statusPerformed}})
		case stepReady:
			ready = append(ready, p.decorate(actionRow(act, "step"), act))
		default:
			row := Obj{{"step", act.ID}, {"status", st}}
			switch st {
			case stepInFlight:
				recent = append(recent, Obj{{"step", act.ID}, {"effectStatus", statusPending}})
			case stepNotHere:
				row = append(row, Field{"on", act.On})
			case stepDisabled:
				_, _, failed := act.EnabledWhen.Eval(a.state)
				row = append(row, Field{"blockedBecause", conditionTexts(failed)})
			case stepNotShown:
				_, _, failed := act.When.Eval(a.state)
				row = append(row, Field{"blockedBecause", conditionTexts(failed)})
			}
			later = append(later, row)
		}
	}
	if len(recent) > maxRecent {
		recent = recent[len(recent)-maxRecent:]
	}
	if len(doneSteps) == len(j.Steps) {
		return Obj{{"doneSteps", doneSteps}}, JudgmentDone, recent, true
	}
	switch len(ready) {
	case 0:
		judgment = JudgmentNavigateOrWait
	case 1:
		judgment = JudgmentOneReadyStep
	default:
		judgment = JudgmentNeedsChoice
	}
	if ready == nil {
		ready = []Obj{}
	}
	if later == nil {
		later = []Obj{}
	}
	view = Obj{{"readySteps", ready}, {"laterSteps", later}}
	if len(doneSteps) > 0 {
		view = append(view, Field{"doneSteps", doneSteps})
	}
	return view, judgment, recent, false
}

// actionRow describes an action for whats_here (key "action") or a ready
// step (key "step").
func actionRow(act *Action, key string) Obj {
	row := Obj{{key, act.ID}, {"does", act.Does}}
	if act.GoTo != "" {
		row = append(row, Field{"goesTo", act.GoTo})
	}
	if act.Confirm {
		row = append(row, Field{"highEffect", true})
	}
	if act.Input != nil {
		row = append(row, Field{"expects", act.Input.Source()})
	}
	return row
}

// journeyIDs lists the graph's journey ids.
func (p *Port) journeyIDs() []string {
	out := make([]string, len(p.app.g.Journeys))
	for i, j := range p.app.g.Journeys {
		out[i] = j.ID
	}
	return out
}

// callJourney serves a journey tool; jid is empty in single mode.
func (p *Port) callJourney(ctx context.Context, jid string, a argMap) Result {
	if jid == "" {
		var err error
		if jid, err = a.str("journey"); err != nil {
			return argRefusal(err)
		}
		if jid == "" {
			return errorResult(ReasonJourneyRequired, "journeys", p.journeyIDs())
		}
	}
	g := p.app.g
	j := g.Journey(jid)
	if j == nil {
		return errorResult(ReasonUnknownJourney, "journey", jid, "journeys", p.journeyIDs())
	}
	step, err := a.str("step")
	if err != nil {
		return argRefusal(err)
	}
	fa, err := p.fireArgs(a)
	if err != nil {
		return argRefusal(err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	app := p.app
	extra := Obj{{"journey", j.ID}}
	frameNote, cancelled := "open", ""
	if p.frame != nil && p.frame.journey == j.ID {
		app.mu.Lock()
		view, _, _, done := p.frameView(p.frame)
		app.mu.Unlock()
		if done {
			p.frame = nil
			return withExtra(newResult("ok", true, "judgment", JudgmentDone, "frame", "completed",
				"why", "Every step of this journey is done; the journey is closed."), append(extra, view...))
		}
	} else {
		app.mu.Lock()
		ok, _, failed := j.Precondition.Eval(app.state)
		var oldDone bool
		if ok && p.frame != nil {
			_, _, _, oldDone = p.frameView(p.frame)
		}
		app.mu.Unlock()
		if !ok {
			r := errorResult(ReasonPreconditionFailed, "journey", j.ID, "evidence", failed, "performed", false)
			r = r.With("judgment", JudgmentBlocked).With("blockedBecause", conditionTexts(failed))
			if p.frame != nil {
				r = r.With("note", "The open journey "+p.frame.journey+" is unchanged.")
			}
			return r
		}
		if p.frame != nil && !oldDone {
			cancelled = p.frame.journey
		}
		app.mu.Lock()
		p.frame = &frame{journey: j.ID, trans: make([]string, len(j.Steps)), start: len(app.order)}
		app.mu.Unlock()
		frameNote = "opened"
	}
	if cancelled != "" {
		extra = append(extra, Field{"cancelled", cancelled})
	}
	extra = append(extra, Field{"frame", frameNote})
	if step == "" {
		return p.journeyView(newResult("ok", true, "does", j.Does), extra)
	}
	idx, matches := resolveStep(j, step)
	if idx < 0 {
		r := errorResult(ReasonUnknownStep, "step", step, "steps", append([]string(nil), j.Steps...))
		if len(matches) > 1 {
			r = r.With("candidates", matches)
		}
		return withExtra(r, extra)
	}
	app.mu.Lock()
	st, act := p.stepStatus(p.frame, j, idx)
	_, _, recent, _ := p.frameView(p.frame)
	app.mu.Unlock()
	extra = append(extra, Field{"step", act.ID})
	switch st {
	case stepDone:
		return withExtra(p.reject(act, refusal(ReasonStepDone)), extra)
	case stepInFlight:
		return withExtra(p.reject(act, refusal(ReasonStepInFlight)), extra)
	case stepWaiting:
		return withExtra(p.reject(act, refusal(ReasonStepNotReady)), extra)
	}
	r := p.fireAction(ctx, act, fa, extra, recent)
	if id := r.TransitionID(); id != "" {
		p.frame.trans[idx] = id
		return p.journeyView(r, nil)
	}
	return r
}

// journeyView adds the frame's judgment and steps to r; call it with the
// port's lock.
func (p *Port) journeyView(r Result, extra Obj) Result {
	p.app.mu.Lock()
	view, judgment, _, done := p.frameView(p.frame)
	p.app.mu.Unlock()
	r = withExtra(r, extra)
	if done {
		p.frame = nil
		r = r.With("frame", "completed")
	}
	return withExtra(r.With("judgment", judgment), view)
}

// resolveStep finds a step by exact id or unique suffix; -1 when none or
// several match (matches lists them).
func resolveStep(j *Journey, s string) (int, []string) {
	for i, id := range j.Steps {
		if id == s {
			return i, nil
		}
	}
	idx := -1
	var matches []string
	for i, id := range j.Steps {
		if strings.HasSuffix(id, "."+s) {
			idx = i
			matches = append(matches, id)
		}
	}
	if len(matches) != 1 {
		return -1, matches
	}
	return idx, matches
}

// refreshJourney recomputes the frame view of a journey step's result after
// its transition settled (the settlement fold): the judgment, the ready,
// later and done steps, and the frame's completion, which closes it. A
// result of another journey than the open frame's is returned as it is.
func (p *Port) refreshJourney(r Result) Result {
	jv, _ := r.Get("journey")
	jid, _ := jv.(string)
	if jid == "" {
		return r
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.frame == nil || p.frame.journey != jid {
		return r
	}
	r = r.With("readySteps", nil).With("laterSteps", nil).With("doneSteps", nil)
	return p.journeyView(r, nil)
}
