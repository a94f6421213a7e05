// Fires: the gates in the spec's order, transitions <actionId>#<n>, the
// handler run on its own goroutine under recover, and settlement (first
// wins; a performed goTo moves the page, declared writes are applied).

package serve

import (
	"context"
	"strconv"
	"time"

	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/internal/gopool"
)

// The statuses of a transition.
const (
	statusPending   = "pending"
	statusPerformed = "performed"
	statusRefused   = "refused"
)

// maxErrorText caps a refused transition's error text.
const maxErrorText = 200

// FireOptions say who fires, with what input, backed by which ask.
type FireOptions struct {
	Source Principal
	Input  any
	// AskID is the ask that backs the fire. Fire trusts its caller, host
	// code, with it; a port checks first that the ask is its caller's
	// (WithCaller).
	AskID string
	// Instance names the card a repeating action acts on.
	Instance string
}

// FireResult is what Fire returns at once: a refusal (OK false, with Reason)
// or a recorded transition whose effect is pending.
type FireResult struct {
	OK           bool
	TransitionID string
	EffectStatus string // "pending" when OK
	Reason       string
	Why          string
	// Evidence are the failed conditions (NOT_OFFERED, TOOL_DISABLED).
	Evidence []Condition
	// Expects is the input schema (PAYLOAD_INVALID); Errors what did not
	// match.
	Expects any
	Errors  []SchemaError
	// Retriable is true when the refusal may pass later without changing the
	// call (TOOL_DISABLED).
	Retriable bool
	// Differs says what differs from the approval (APPROVAL_MISMATCH):
	// "action", "instance" (the card) or "input".
	Differs string
	// On is the page the action is on (NOT_ON_PAGE).
	On string
	// UsedAsk is the ask the fire consumed, if any.
	UsedAsk string
	// Instances lists the cards there are (INSTANCE_REQUIRED,
	// INSTANCE_UNKNOWN), at most 50.
	Instances []string
	// PriorTransitionID is the performed fire a "once" action already had
	// (DUPLICATE_EXECUTION); PendingTransitionID the fire a "single-flight"
	// action is still waiting on (PRIOR_FIRE_PENDING).
	PriorTransitionID, PendingTransitionID string
	// Moved are the keys that changed since a cited offer (STALE_OFFER).
	Moved []string
}

// TransitionInfo is the record of one fire or report.
type TransitionInfo struct {
	ID        string
	Action    string
	Source    Principal
	Input     any
	Status    string // "pending", "performed" or "refused"
	Data      any
	Error     string
	AskID     string
	StartedAt time.Time
	SettledAt time.Time
	// Instance is the card a repeating action acted on.
	Instance string
	// VerifyHeld is, for a performed action that declares verify, whether
	// its check held after the settlement: "true", "false", or
	// "unevaluable" (the check reads a key the state does not have);
	// "" otherwise.
	VerifyHeld string
	// VerifyFailed are the verify conditions that did not hold.
	VerifyFailed []Condition
}

// VerifyValue is VerifyHeld as results carry it: true, false,
// "unevaluable", or nil when there was no check.
func (t TransitionInfo) VerifyValue() any {
	switch t.VerifyHeld {
	case "true":
		return true
	case "false":
		return false
	case "unevaluable":
		return "unevaluable"
	}
	return nil
}

// Settled reports whether the transition has settled.
func (t TransitionInfo) Settled() bool { return t.Status != statusPending }

type transition struct {
	id        string
	action    string
	source    Principal
	input     any
	status    string
	data      any
	err       string
	askID     string
	reported  bool
	startedAt time.Time
	settledAt time.Time
	instance  string
	verify    string
	verifyBad []Condition
}

func (t *transition) info() TransitionInfo {
	return TransitionInfo{
		ID: t.id, Action: t.action, Source: t.source, Input: CloneValue(t.input),
		Status: t.status, Data: CloneValue(t.data), Error: t.err, AskID: t.askID,
		StartedAt: t.startedAt, SettledAt: t.settledAt, Instance: t.instance,
		VerifyHeld: t.verify, VerifyFailed: append([]Condition(nil), t.verifyBad...),
	}
}

// newTransition records a pending transition; call it with the lock.
func (a *App) newTransition(act *Action, by Principal, input any, askID, instance string) *transition {
	a.counts[act.ID]++
	t := &transition{
		id: act.ID + "#" + strconv.Itoa(a.counts[act.ID]), action: act.ID, source: by,
		input: input, status: statusPending, askID: askID, startedAt: a.now(), instance: instance,
	}
	a.transitions[t.id] = t
	a.order = append(a.order, t.id)
	// The first pending fire holds the flight: a report made meanwhile
	// (settled at once) must not take it over and then free it.
	if k := flightKey(act.ID, instance); act.Concurrency == ConcurrencySingleFlight && a.inFlight[k] == "" {
		if a.inFlight == nil {
			a.inFlight = map[string]string{}
		}
		a.inFlight[k] = t.id
	}
	return t
}

// refusal builds a refused FireResult with the authored why of reason.
func refusal(reason string) FireResult {
	return FireResult{Reason: reason, Why: whyOf(reason)}
}

// check runs the gates before approval: unknown action, not on this page,
// guard fails, input does not match, disabled, no handler, and the
// concurrency gate (a "once" action already performed, a "single-flight"
// one still pending). Call it with the lock. It returns the action and a
// refusal (OK false) or OK.
func (a *App) check(actionID string, input any, instance string) (*Action, FireResult) {
	act := a.g.Action(actionID)
	if act == nil {
		return nil, refusal(ReasonUnknownAction)
	}
	if act.On != a.page {
		r := refusal(ReasonNotOnPage)
		r.On = act.On
		return act, r
	}
	if ok, _, failed := act.When.Eval(a.state); !ok {
		r := refusal(ReasonNotOffered)
		r.Evidence = failed
		return act, r
	}
	if act.Input != nil {
		if errs := act.Input.Validate(input); len(errs) > 0 {
			r := refusal(ReasonPayloadInvalid)
			r.Expects = act.Input.Source()
			r.Errors = errs
			return act, r
		}
	}
	if ok, _, failed := act.EnabledWhen.Eval(a.state); !ok {
		r := refusal(ReasonToolDisabled)
		r.Evidence = failed
		r.Retriable = true
		return act, r
	}
	if a.opts.Handlers[act.ID] == nil {
		return act, refusal(ReasonNotMaterialized)
	}
	if r := a.checkConcurrency(act, act.Card(instance)); !r.OK {
		return act, r
	}
	return act, FireResult{OK: true}
}

// Check runs the gates Fire runs before human approval and reports the
// first that refuses, without firing. OK means the action could fire now,
// approval and the instance gate aside (a high-effect repeating action
// mints its ask before its instance is checked).
func (a *App) Check(action string, input any, instance string) FireResult {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, r := a.check(action, input, instance)
	return r
}

// Fire runs the gates in order — unknown action, not on this page, guard,
// input schema, disabled, no handler, concurrency, human approval, and for
// a repeating action the instance (required, known, mounted) — then records a
// transition and starts the handler on its own goroutine. It returns at
// once; the transition settles when the handler returns. The handler's
// context carries ctx's values but not its cancellation (a fire outlives
// the call that made it); Close cancels it.
func (a *App) Fire(ctx context.Context, action string, f FireOptions) FireResult {
	r := a.fire(ctx, action, f)
	if r.OK {
		a.changed()
	}
	return r
}

// fire is Fire without the OnChange notification, which the port sends
// once its own lock is released.
func (a *App) fire(ctx context.Context, action string, f FireOptions) (res FireResult) {
	defer func() {
		if p := recover(); p != nil {
			res = FireResult{Reason: ReasonInternal, Why: whyOf(ReasonInternal) + " (" + capText(errs.Text(p), maxErrorText) + ")"}
		}
	}()
	if ctx == nil {
		ctx = context.Background()
	}
	by := principalOr(f.Source, PrincipalUnknown)
	input := CloneValue(f.Input)
	act, t, h, used, unbacked, refusal := a.admit(action, by, input, f.AskID, f.Instance)
	if refusal != nil {
		return *refusal
	}
	input = t.input
	if unbacked {
		a.warn(WarnUnguardedFire, act.ID, "serve: high-effect action "+strconv.Quote(act.ID)+
			" was fired by an agent with no ask behind it, and the app session never set RequireHumanApproval; set it to true to require a person's approval for such fires, or to false to say they need none")
	}
	call := HandlerCall{Action: act.ID, Input: CloneValue(input), Source: by, TransitionID: t.id, Instance: t.instance}
	// The fire outlives the call that made it: the handler keeps ctx's
	// values but is cancelled only by Close.
	hctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(a.life, cancel)
	gopool.Go(func() {
		defer cancel()
		defer stop()
		a.run(hctx, h, call)
	})
	return FireResult{OK: true, TransitionID: t.id, EffectStatus: statusPending, UsedAsk: used}
}

// run calls the handler under recover and settles the transition.
func (a *App) run(ctx context.Context, h Handler, call HandlerCall) {
	var (
		data any
		err  error
	)
	defer func() {
		// Recording the result is host input too: a value that cannot be
		// recorded refuses the fire instead of killing the module.
		if p := recover(); p != nil {
			a.settle(call.TransitionID, statusRefused, nil, capText("the handler's result could not be recorded: "+errs.Text(p), maxErrorText))
		}
	}()
	func() {
		defer func() {
			if p := recover(); p != nil {
				err = errs.New("handler panicked: ", errs.Text(p))
			}
		}()
		data, err = h(ctx, call)
	}()
	if err != nil {
		a.settle(call.TransitionID, statusRefused, nil, capText(err.Error(), maxErrorText))
		return
	}
	a.settle(call.TransitionID, statusPerformed, data, "")
}

// Settle settles a pending transition from outside its handler (a host
// whose handler finished elsewhere). The first settlement wins; a later one
// returns false.
func (a *App) Settle(id string, performed bool, data any, errText string) bool {
	status := statusRefused
	if performed {
		status = statusPerformed
	}
	return a.settle(id, status, data, capText(errText, maxErrorText))
}

// settle records the first settlement of id.
func (a *App) settle(id, status string, data any, errText string) bool {
	if !a.settleLocked(id, status, data, errText) {
		return false
	}
	a.changed()
	return true
}

// settleLocked records the settlement under the session lock (released by
// defer: the handler's data is host input).
func (a *App) settleLocked(id, status string, data any, errText string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	t := a.transitions[id]
	if t == nil || t.status != statusPending {
		return false
	}
	t.status = status
	t.settledAt = a.now()
	t.err = errText
	e := event{kind: evSettled, by: t.source, action: t.action, transition: id, status: status}
	act := a.g.Action(t.action)
	if act.Concurrency == ConcurrencySingleFlight && a.inFlight[flightKey(act.ID, t.instance)] == id {
		delete(a.inFlight, flightKey(act.ID, t.instance))
	}
	if status == statusPerformed {
		t.data = CloneValue(data)
		if act.GoTo != "" {
			a.page = act.GoTo
			e.page = act.GoTo
		}
		if m, ok := t.data.(map[string]any); ok {
			for _, w := range act.Writes {
				if v, ok := State(m).Lookup(w); ok {
					a.state[w] = CloneValue(v)
					e.keys = append(e.keys, w)
				}
			}
		}
		if act.Concurrency == ConcurrencyOnce {
			if a.once == nil {
				a.once = map[string]string{}
			}
			if k := flightKey(act.ID, t.instance); a.once[k] == "" {
				a.once[k] = id
			}
		}
		if act.Verify != nil {
			t.verify, t.verifyBad = verifyHeld(act.Verify, a.state)
		}
	}
	a.record(e)
	close(a.settledCh)
	a.settledCh = make(chan struct{})
	return true
}

// Transition returns the record of transition id.
func (a *App) Transition(id string) (TransitionInfo, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	t := a.transitions[id]
	if t == nil {
		return TransitionInfo{}, false
	}
	return t.info(), true
}

// Transitions returns every transition in the order they were made.
func (a *App) Transitions() []TransitionInfo {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]TransitionInfo, 0, len(a.order))
	for _, id := range a.order {
		out = append(out, a.transitions[id].info())
	}
	return out
}

// WaitSettled waits until transition id settles or ctx is done, and
// returns its record (pending when ctx ended first, with ctx's error).
func (a *App) WaitSettled(ctx context.Context, id string) (TransitionInfo, error) {
	for {
		a.mu.Lock()
		t := a.transitions[id]
		if t == nil {
			a.mu.Unlock()
			return TransitionInfo{}, errs.New("serve: WaitSettled: no transition ", strconv.Quote(id), "; use the id a fire returned")
		}
		info := t.info()
		ch := a.settledCh
		a.mu.Unlock()
		if info.Settled() {
			return info, nil
		}
		select {
		case <-ctx.Done():
			return info, ctx.Err()
		case <-ch:
		}
	}
}

// capText cuts s to at most n bytes without splitting a UTF-8 sequence.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut]
}

// admit runs the gates and records the transition, under the session lock
// (released by defer, so even a bug that panics here cannot leave the
// session locked). refusal is set when a gate refused.
func (a *App) admit(action string, by Principal, input any, askID, instance string) (act *Action, t *transition, h Handler, used string, unbacked bool, refusal *FireResult) {
	a.mu.Lock()
	defer a.mu.Unlock()
	act, r := a.check(action, input, instance)
	if !r.OK {
		return nil, nil, nil, "", false, &r
	}
	instance = act.Card(instance)
	if act.Confirm && by == PrincipalAgent {
		if a.Enforcing() {
			v := a.verdict(act, askID, input, instance)
			if !v.OK {
				return nil, nil, nil, "", false, &v
			}
			if v.UsedAsk != "" {
				used = v.UsedAsk
				input = CloneValue(a.asks[used].input) // the approved copy is what runs
			}
		} else {
			used = a.consumeAsk(act.ID, askID, instance)
			unbacked = used == "" && a.opts.RequireHumanApproval == nil
		}
	} else if askID != "" {
		used = a.consumeAsk(act.ID, askID, instance)
	}
	if r := a.checkInstance(act, instance); !r.OK {
		return nil, nil, nil, "", false, &r
	}
	t = a.newTransition(act, by, input, used, instance)
	if used != "" {
		ak := a.asks[used]
		ak.state = askUsed
		ak.transition = t.id
	}
	a.record(event{kind: evFired, by: by, action: act.ID, transition: t.id})
	return act, t, a.opts.Handlers[act.ID], used, unbacked, nil
}
