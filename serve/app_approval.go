// The ask journal and human approval: asks minted for high-effect fires,
// each with an unguessable id and the caller that raised it, the
// human-side doors (ApproveAsk, DeclineAsk, RevokeAsk, AlwaysApprove) and
// the approval verdict in the spec's order.

package serve

import (
	"strconv"
	"time"

	"github.com/agentwasm/agentwasm/internal/errs"
)

// The states of an ask.
const (
	askPending  = "pending"
	askApproved = "approved"
	askDeclined = "declined"
	askRevoked  = "revoked"
	askUsed     = "used"
)

type ask struct {
	id         string
	action     string
	input      any
	state      string
	askedBy    Principal
	answeredBy string
	createdAt  time.Time
	approvedAt time.Time
	transition string
	humanNo    bool   // declined through a human door
	instance   string // the card a repeating action's ask is for
	caller     string // the caller whose fire raised it ("" none: usable by citing the id)
}

// AskInfo describes an ask for the page's approval cards.
type AskInfo struct {
	ID     string
	Action string
	Does   string
	Input  any
	// State is "pending", "approved", "declined", "revoked", "used" or
	// "expired" (approved, unused, past ApprovalTTL).
	State      string
	AskedBy    Principal
	AnsweredBy string
	CreatedAt  time.Time
	Transition string // the fire that used it
	// Instance is the card the ask is for (a repeating action): the
	// approval covers that card only.
	Instance string
	// Caller is the identity of the conversation whose fire raised it, as
	// the journal records it ("" none): "caller:" and the name given with
	// WithCaller, "port:…" for a port's own calls, "mcp-session:…" for an
	// MCP session. Only that caller's fires can use its approval.
	Caller string
}

func (a *App) askInfo(k *ask) AskInfo {
	does := ""
	if act := a.g.Action(k.action); act != nil {
		does = act.Does
	}
	return AskInfo{
		ID: k.id, Action: k.action, Does: does, Input: CloneValue(k.input), State: a.askState(k),
		AskedBy: k.askedBy, AnsweredBy: k.answeredBy, CreatedAt: k.createdAt, Transition: k.transition,
		Instance: k.instance, Caller: k.caller,
	}
}

// askState is the ask's state with expiry applied; call it with the lock.
func (a *App) askState(k *ask) string {
	if k.state == askApproved && !a.now().Before(k.approvedAt.Add(a.opts.ApprovalTTL)) {
		return "expired"
	}
	return k.state
}

// Asks returns the ask journal, oldest first.
func (a *App) Asks() []AskInfo {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]AskInfo, 0, len(a.askOrder))
	for _, id := range a.askOrder {
		out = append(out, a.askInfo(a.asks[id]))
	}
	return out
}

// Ask returns one ask.
func (a *App) Ask(id string) (AskInfo, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	k := a.asks[id]
	if k == nil {
		return AskInfo{}, false
	}
	return a.askInfo(k), true
}

// mintAsk opens a new ask for action (on card instance) with input,
// raised by caller; call it with the lock.
func (a *App) mintAsk(action, instance string, input any, by Principal, caller string) *ask {
	id := a.newAskID()
	for a.asks[id] != nil { // 128 random bits do not collide; a test's ids might
		id = a.newAskID()
	}
	k := &ask{id: id, action: action, input: CloneValue(input),
		state: askPending, askedBy: by, createdAt: a.now(), instance: instance, caller: caller}
	a.asks[k.id] = k
	a.askOrder = append(a.askOrder, k.id)
	if len(a.askOrder) > 2*maxAsks {
		a.pruneAsks()
	}
	return k
}

// maxAsks is how many asks the journal keeps at least; it holds at most
// twice that, so a model that asks in a loop cannot grow it without bound.
const maxAsks = 1024

// pruneAsks forgets the oldest asks down to maxAsks: closed ones (declined,
// revoked, used, expired) first, then the oldest open ones. Call it with
// the lock.
func (a *App) pruneAsks() {
	excess := len(a.askOrder) - maxAsks
	keep := make([]string, 0, maxAsks)
	for _, id := range a.askOrder {
		if st := a.askState(a.asks[id]); excess > 0 && st != askPending && st != askApproved {
			delete(a.asks, id)
			excess--
			continue
		}
		keep = append(keep, id)
	}
	for ; excess > 0 && len(keep) > 0; excess-- {
		delete(a.asks, keep[0])
		keep = keep[1:]
	}
	a.askOrder = keep
}

// findOpenAsk returns the newest pending or approved (unexpired) ask that
// caller raised for action on card instance whose input equals input; call
// it with the lock. A caller with no identity ("") finds none: it can use
// an ask only by citing its id.
func (a *App) findOpenAsk(action, instance string, input any, pendingOnly bool, caller string) *ask {
	if caller == "" {
		return nil
	}
	for i := len(a.askOrder) - 1; i >= 0; i-- {
		k := a.asks[a.askOrder[i]]
		if k.caller != caller || k.action != action || k.instance != instance || !EqualValues(k.input, input) {
			continue
		}
		switch a.askState(k) {
		case askPending:
			return k
		case askApproved:
			if !pendingOnly {
				return k
			}
		}
	}
	return nil
}

// othersApproval returns the newest approved, unused and unexpired ask for
// action on card instance with input that caller did not raise (or, for a
// caller with no identity, any such ask); call it with the lock.
func (a *App) othersApproval(action, instance string, input any, caller string) *ask {
	for i := len(a.askOrder) - 1; i >= 0; i-- {
		k := a.asks[a.askOrder[i]]
		if (caller != "" && k.caller == caller) || k.action != action || k.instance != instance || !EqualValues(k.input, input) {
			continue
		}
		if a.askState(k) == askApproved {
			return k
		}
	}
	return nil
}

// mayUse reports whether caller may use ask k: k is its own, or k was
// raised with no identity (then citing its unguessable id is the proof).
func mayUse(k *ask, caller string) bool {
	return k.caller == "" || k.caller == caller
}

// consumeAsk returns askID when it names an open ask of action on card
// instance (outside enforcement, where any open ask backs the fire); call
// it with the lock.
func (a *App) consumeAsk(action, askID, instance string) string {
	k := a.asks[askID]
	if k == nil || k.action != action || k.instance != instance {
		return ""
	}
	if s := a.askState(k); s != askPending && s != askApproved {
		return ""
	}
	return k.id
}

// verdict is the human-approval gate, in the spec's order; call it with
// the lock. OK with UsedAsk set means the ask's approved input runs. An
// ask for one card never authorizes another (APPROVAL_MISMATCH, differs
// "instance"); a standing grant covers every card.
func (a *App) verdict(act *Action, askID string, input any, instance string) FireResult {
	k := a.asks[askID]
	if k != nil && k.action == act.ID && k.state == askDeclined {
		return refusal(ReasonApprovalDeclined)
	}
	// A standing grant is live until it expires or the person says no to
	// the action after granting it.
	if a.grantLive(act.ID) {
		// The grant allows the fire as called; the ask it points at is used
		// up only when it is for this very input (using it would otherwise
		// run the ask's input instead of the caller's).
		if k != nil && k.action == act.ID && k.instance == instance && (k.state == askPending || k.state == askApproved) && EqualValues(k.input, input) {
			return FireResult{OK: true, UsedAsk: k.id}
		}
		return FireResult{OK: true}
	}
	if k == nil {
		return refusal(ReasonApprovalRequired)
	}
	if k.action != act.ID {
		r := refusal(ReasonApprovalMismatch)
		r.Differs = "action"
		return r
	}
	switch a.askState(k) {
	case askPending:
		return refusal(ReasonApprovalRequired)
	case askUsed:
		return refusal(ReasonApprovalSpent)
	case askRevoked:
		return refusal(ReasonApprovalRevoked)
	case "expired":
		return refusal(ReasonApprovalStale)
	}
	if k.instance != instance {
		r := refusal(ReasonApprovalMismatch)
		r.Differs = "instance"
		return r
	}
	if !EqualValues(k.input, input) {
		r := refusal(ReasonApprovalMismatch)
		r.Differs = "input"
		return r
	}
	return FireResult{OK: true, UsedAsk: k.id}
}

// grantLive reports whether a standing grant (AlwaysApprove) allows an
// agent's fire of action: it has not expired and the person has not said
// no to the action since; call it with the lock.
func (a *App) grantLive(action string) bool {
	g := a.grants[action]
	return g != nil && a.lastNo[action] < g.seq && (g.expires.IsZero() || a.now().Before(g.expires))
}

type grant struct {
	seq     int64
	by      string
	expires time.Time
}

// ApproveAsk is the human door that approves a pending ask; by names the
// person (the door is always stamped user).
func (a *App) ApproveAsk(askID, by string) error {
	a.mu.Lock()
	k := a.asks[askID]
	if k == nil {
		a.mu.Unlock()
		return errs.New("serve: ApproveAsk: no ask ", strconv.Quote(askID), "; use an id from Asks()")
	}
	if k.state != askPending {
		st := a.askState(k)
		a.mu.Unlock()
		return errs.New("serve: ApproveAsk: ask ", strconv.Quote(askID), " is ", st, ", not pending; only a pending ask can be approved")
	}
	a.humanSeq++
	k.state = askApproved
	k.answeredBy = by
	k.approvedAt = a.now()
	a.mu.Unlock()
	a.changed()
	return nil
}

// DeclineAsk is the human door that says no to a pending or approved ask.
// A no after an AlwaysApprove grant withdraws the grant.
func (a *App) DeclineAsk(askID, by string) error {
	a.mu.Lock()
	k := a.asks[askID]
	if k == nil {
		a.mu.Unlock()
		return errs.New("serve: DeclineAsk: no ask ", strconv.Quote(askID), "; use an id from Asks()")
	}
	if st := a.askState(k); st != askPending && st != askApproved && st != "expired" {
		a.mu.Unlock()
		return errs.New("serve: DeclineAsk: ask ", strconv.Quote(askID), " is already ", st, "; nothing to decline")
	}
	a.humanSeq++
	k.state = askDeclined
	k.answeredBy = by
	k.humanNo = true
	a.lastNo[k.action] = a.humanSeq
	a.mu.Unlock()
	a.changed()
	return nil
}

// RevokeAsk is the human door that withdraws an approval not yet used.
func (a *App) RevokeAsk(askID, by string) error {
	a.mu.Lock()
	k := a.asks[askID]
	if k == nil {
		a.mu.Unlock()
		return errs.New("serve: RevokeAsk: no ask ", strconv.Quote(askID), "; use an id from Asks()")
	}
	if st := a.askState(k); st != askApproved && st != "expired" {
		a.mu.Unlock()
		return errs.New("serve: RevokeAsk: ask ", strconv.Quote(askID), " is ", st, "; only an approved, unused ask can be revoked (decline a pending one)")
	}
	a.humanSeq++
	k.state = askRevoked
	k.answeredBy = by
	a.mu.Unlock()
	a.changed()
	return nil
}

// AlwaysApprove is the human door that grants standing approval for
// action; expiresIn 0 means no expiry.
func (a *App) AlwaysApprove(action, by string, expiresIn time.Duration) error {
	if a.g.Action(action) == nil {
		return errs.New("serve: AlwaysApprove: action ", strconv.Quote(action), " is not declared in graph ", strconv.Quote(a.g.ID))
	}
	if expiresIn < 0 {
		return errs.New("serve: AlwaysApprove: expiresIn ", expiresIn.String(), " is negative; pass 0 for no expiry")
	}
	a.mu.Lock()
	a.humanSeq++
	g := &grant{seq: a.humanSeq, by: by}
	if expiresIn > 0 {
		g.expires = a.now().Add(expiresIn)
	}
	a.grants[action] = g
	a.mu.Unlock()
	a.changed()
	return nil
}
