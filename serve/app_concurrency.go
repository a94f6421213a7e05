// Concurrency: an action declared "once" never performs twice, and one
// declared "single-flight" never has two fires pending; both count per
// card for a repeating action, and refuse before any ask is made.

package serve

// flightKey names one action on one card for the concurrency gates.
func flightKey(action, instance string) string { return action + "\x00" + instance }

// checkConcurrency is the concurrency gate: "once" refuses a fire after a
// performed one, "single-flight" a fire while one is pending (each per
// card for a repeating action). Call it with the lock.
func (a *App) checkConcurrency(act *Action, instance string) FireResult {
	switch act.Concurrency {
	case ConcurrencyOnce:
		if id := a.once[flightKey(act.ID, instance)]; id != "" {
			r := refusal(ReasonDuplicateExecution)
			r.PriorTransitionID = id
			return r
		}
		// A pending fire of a "once" action may still perform: a second
		// one waits for it.
		for i := len(a.order) - 1; i >= 0; i-- {
			if t := a.transitions[a.order[i]]; t.action == act.ID && t.instance == instance && t.status == statusPending {
				r := refusal(ReasonPriorFirePending)
				r.PendingTransitionID = t.id
				r.Retriable = true
				return r
			}
		}
	case ConcurrencySingleFlight:
		if id := a.inFlight[flightKey(act.ID, instance)]; id != "" {
			r := refusal(ReasonPriorFirePending)
			r.PendingTransitionID = id
			r.Retriable = true
			return r
		}
	}
	return FireResult{OK: true}
}
