// Freshness: the declared keys others changed since the port last acted
// (staleReads, staleWrites), the offers a "cite" action's fires must cite
// (offerId, STALE_OFFER with moved, a bounded ledger), and the second
// version's decorations of a whats_here row or a ready step (instances,
// busy, freshness).

package serve

import (
	"slices"
	"strconv"
)

// DefaultOfferLedger is how many offers a port remembers when
// PortOptions.OfferLedger is 0; older ones answer OFFER_UNKNOWN.
const DefaultOfferLedger = 500

// offer is one citation a whats_here row handed out: action's declared
// keys as they stood at version.
type offer struct {
	id, action string
	version    int64
}

// movedSince returns the keys of declared that were committed (patched, or
// written by a performed fire or a report) after version since, in
// declared order; commits by exclude are left out when it is set. Call it
// with the app's lock.
func (a *App) movedSince(since int64, declared []string, exclude Principal) []string {
	if len(declared) == 0 {
		return nil
	}
	hit := make([]bool, len(declared))
	for i := len(a.log) - 1; i >= 0 && a.log[i].version > since; i-- {
		e := &a.log[i]
		if len(e.keys) == 0 || (exclude != "" && e.by == exclude) {
			continue
		}
		if e.kind != evPatched && (e.kind != evSettled || e.status != statusPerformed) {
			continue
		}
		for j, k := range declared {
			if !hit[j] && keysTouch(e.keys, k) {
				hit[j] = true
			}
		}
	}
	var out []string
	for j, k := range declared {
		if hit[j] {
			out = append(out, k)
		}
	}
	return out
}

// logReaches reports whether the event log still holds every event after
// version since, so movedSince can answer for it; call it with the app's
// lock.
func (a *App) logReaches(since int64) bool {
	return len(a.log) == 0 || a.log[0].version <= since+1
}

// declaredKeys are the keys an action reads and writes, each once.
func declaredKeys(act *Action) []string {
	out := append([]string(nil), act.Reads...)
	for _, w := range act.Writes {
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// acknowledge records that the port fired act: what others changed before
// now is no longer news for its row. Call it with the port's lock.
func (p *Port) acknowledge(act *Action, version int64) {
	if act.Freshness == "" {
		return
	}
	if p.acked == nil {
		p.acked = map[string]int64{}
	}
	p.acked[act.ID] = version
}

// currentOffer returns the offer a row of act carries: the newest live one
// when nothing it covers moved since, else a fresh one. Call it with the
// port's and the app's locks.
func (p *Port) currentOffer(act *Action) string {
	app := p.app
	if id := p.latestOffer[act.ID]; id != "" {
		if o := p.offers[id]; o != nil && app.logReaches(o.version) && len(app.movedSince(o.version, declaredKeys(act), "")) == 0 {
			return id
		}
	}
	p.offerSeq++
	o := &offer{id: "offer#" + strconv.Itoa(p.offerSeq), action: act.ID, version: app.version}
	if p.offers == nil {
		p.offers = map[string]*offer{}
		p.latestOffer = map[string]string{}
	}
	p.offers[o.id] = o
	p.latestOffer[act.ID] = o.id
	p.offerOrder = append(p.offerOrder, o.id)
	p.evictOffers()
	return o.id
}

// evictOffers keeps the ledger within its bound, forgetting the oldest
// offers first, but an action's newest offer only when every offer left is
// one: a small ledger does not evict offers of the rows it just handed
// out. Call it with the port's lock.
func (p *Port) evictOffers() {
	for i := 0; len(p.offerOrder) > p.offerCap && i < len(p.offerOrder); {
		id := p.offerOrder[i]
		if p.latestOffer[p.offers[id].action] == id {
			i++
			continue
		}
		delete(p.offers, id)
		p.offerOrder = append(p.offerOrder[:i], p.offerOrder[i+1:]...)
	}
	for len(p.offerOrder) > p.offerCap {
		id := p.offerOrder[0]
		if o := p.offers[id]; p.latestOffer[o.action] == id {
			delete(p.latestOffer, o.action)
		}
		delete(p.offers, id)
		p.offerOrder = p.offerOrder[1:]
	}
}

// checkOffer is the citation gate of a "cite" action: the fire must cite
// a live offer of this action under which nothing it reads or writes
// moved. Call it with the port's lock.
func (p *Port) checkOffer(act *Action, offerID string) FireResult {
	if act.Freshness != FreshnessCite {
		return FireResult{OK: true}
	}
	if offerID == "" {
		return refusal(ReasonOfferRequired)
	}
	app := p.app
	app.mu.Lock()
	defer app.mu.Unlock()
	o := p.offers[offerID]
	// An offer older than the event log cannot be checked: too old.
	if o == nil || o.action != act.ID || !app.logReaches(o.version) {
		return refusal(ReasonOfferUnknown)
	}
	if moved := app.movedSince(o.version, declaredKeys(act), ""); len(moved) > 0 {
		r := refusal(ReasonStaleOffer)
		r.Moved = moved
		return r
	}
	return FireResult{OK: true}
}

// decorate adds the second version's fields to the row of act: the cards
// of a repeating action, its busy label, and for a freshness action the
// keys others changed since the port last fired it and (cite) an offer.
// A graph without those fields gets the row unchanged. Call it with the
// port's and the app's locks.
func (p *Port) decorate(row Obj, act *Action) Obj {
	app := p.app
	if act.Repeats != "" {
		keys, _ := app.instanceKeys(act.Repeats)
		row = append(row, Field{"instances", listed(keys)}, Field{"enumeration", app.enumeration(act.Repeats)})
		if len(keys) > maxListedInstances {
			row = append(row, Field{"instancesTotal", len(keys)})
		}
	}
	if l := app.busyOf(act); l != "" {
		row = append(row, Field{"busy", l})
	}
	if act.Freshness != "" {
		since, ok := p.acked[act.ID]
		if !ok {
			since = p.born
		}
		if k := app.movedSince(since, act.Reads, p.source); len(k) > 0 {
			row = append(row, Field{"staleReads", k})
		}
		if k := app.movedSince(since, act.Writes, p.source); len(k) > 0 {
			row = append(row, Field{"staleWrites", k})
		}
		if act.Freshness == FreshnessCite {
			row = append(row, Field{"offerId", p.currentOffer(act)})
		}
	}
	return row
}
