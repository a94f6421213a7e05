// whats_here (facts, brief, actions, journeys startable here and the count
// of the rest, with the sinceVersion delta) and why (the chain behind a
// state key).

package serve

import (
	"slices"
	"strconv"
)

// maxBrief bounds the events and facts whats_here shows without
// sinceVersion.
const maxBrief = 10

// whatsHere serves the whats_here tool.
func (p *Port) whatsHere(a argMap, caller string) Result {
	since, err := a.sinceVersion()
	if err != nil {
		return argRefusal(err)
	}
	if p.app.g.RouteTo {
		to, err := a.str("routeTo")
		if err != nil {
			return argRefusal(err)
		}
		if to != "" {
			return p.routeResult(to)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	app := p.app
	app.mu.Lock()
	defer app.mu.Unlock()
	g := app.g

	// facts: fires (and reports) and asks, newest last.
	var fires []Obj
	order := app.order
	if since < 0 && len(order) > maxBrief {
		order = order[len(order)-maxBrief:]
	}
	var touched map[string]bool
	if since >= 0 {
		touched = app.touchedSince(since)
		if len(touched) == 0 {
			order = nil
		}
	}
	for _, id := range order {
		t := app.transitions[id]
		if touched != nil && !touched[id] {
			continue
		}
		row := Obj{{"transition", t.id}, {"did", t.action}, {"by", string(t.source)}, {"effectStatus", t.status}}
		if t.err != "" {
			row = append(row, Field{"error", t.err})
		}
		fires = append(fires, row)
	}
	var asks []Obj
	for _, id := range app.askOrder {
		k := app.asks[id]
		st := app.askState(k)
		if st == askUsed || caller == "" || k.caller != caller {
			continue // another conversation's asks are not this caller's to see or use
		}
		asks = append(asks, Obj{{"ask", k.id}, {"action", k.action}, {"state", st}})
	}
	if len(asks) > maxBrief {
		asks = asks[len(asks)-maxBrief:]
	}
	facts := Obj{{"fires", nonNilObjs(fires)}}
	if len(asks) > 0 {
		facts = append(facts, Field{"asks", asks})
	}

	// brief: position and what happened.
	var happened []string
	for _, e := range app.log {
		if since >= 0 && e.version <= since {
			continue
		}
		happened = append(happened, describeEvent(e))
	}
	if since < 0 && len(happened) > maxBrief {
		happened = happened[len(happened)-maxBrief:]
	}
	if happened == nil {
		happened = []string{}
	}
	brief := Obj{{"position", "On page " + app.page + " at version " + strconv.FormatInt(app.version, 10) + "."}}
	if since >= 0 {
		brief = append(brief, Field{"sinceVersion", since})
	}
	brief = append(brief, Field{"happened", happened})
	if since >= 0 && len(app.log) > 0 && app.log[0].version > since+1 {
		brief = append(brief, Field{"note", "Earlier events were dropped from the log."})
	}

	// actions offered here.
	actions := []Obj{}
	for i := range g.Actions {
		act := &g.Actions[i]
		if act.On != app.page {
			continue
		}
		if ok, _, _ := act.When.Eval(app.state); !ok {
			continue
		}
		row := actionRow(act, "action")
		if ok, _, failed := act.EnabledWhen.Eval(app.state); !ok {
			row = append(row, Field{"enabled", false}, Field{"blockedBecause", conditionTexts(failed)})
		}
		actions = append(actions, p.decorate(row, act))
	}

	// journeys startable here, plus the open one.
	journeys := []Obj{}
	var elsewhere []string // the other pages the journeys left out start on
	away := 0              // how many of them start on another page
	open := ""
	if p.frame != nil {
		open = p.frame.journey
	}
	for i := range g.Journeys {
		j := &g.Journeys[i]
		entry := g.Action(j.Steps[0])
		offered := entry != nil && entry.On == app.page
		if offered {
			offered, _, _ = entry.When.Eval(app.state)
		}
		if !offered && j.ID != open {
			if entry != nil && entry.On != app.page {
				away++
				if !slices.Contains(elsewhere, entry.On) {
					elsewhere = append(elsewhere, entry.On)
				}
			}
			continue
		}
		pre, _, _ := j.Precondition.Eval(app.state)
		enabled := entry != nil
		if enabled {
			enabled, _, _ = entry.EnabledWhen.Eval(app.state)
		}
		standing := "can-start"
		if j.ID == open {
			standing = "open"
			if _, _, _, done := p.frameView(p.frame); done {
				standing = "completed"
			}
		}
		feasible := pre && (enabled || j.ID == open)
		journeys = append(journeys, Obj{{"journey", j.ID}, {"does", j.Does}, {"feasible", feasible}, {"standing", standing}})
	}
	r := newResult("ok", true, "facts", facts, "brief", brief, "actions", actions, "journeys", journeys)
	if n := len(g.Journeys) - len(journeys); n > 0 {
		r = r.With("journeysElsewhere", n)
		// The hint names only other pages: a journey whose entry is on
		// this page but not offered has no way there to route.
		if g.RouteTo && away > 0 {
			what := " more journeys start"
			if away == 1 {
				what = " more journey starts"
			}
			r = r.With("journeysElsewhereHint", strconv.Itoa(away)+what+" elsewhere (on "+joinKeys(elsewhere)+
				"); whats_here with routeTo and one of those pages gives the way there.")
		}
	}
	return r
}

// touchedSince returns the transitions made or settled after version
// since; call it with the lock.
func (a *App) touchedSince(since int64) map[string]bool {
	out := map[string]bool{}
	for i := len(a.log) - 1; i >= 0 && a.log[i].version > since; i-- {
		if a.log[i].transition != "" {
			out[a.log[i].transition] = true
		}
	}
	return out
}

// nonNilObjs returns rows, or an empty slice for nil.
func nonNilObjs(rows []Obj) []Obj {
	if rows == nil {
		return []Obj{}
	}
	return rows
}

// describeEvent is one line of the brief.
func describeEvent(e event) string {
	v := "v" + strconv.FormatInt(e.version, 10) + " "
	switch e.kind {
	case evFired:
		return v + string(e.by) + " fired " + e.action + " (" + e.transition + ")"
	case evReported:
		return v + "user did " + e.action + " (" + e.transition + ")"
	case evSettled:
		s := v + e.transition + " " + e.status
		if e.page != "" {
			s += ", now on " + e.page
		}
		if len(e.keys) > 0 {
			s += ", wrote " + joinKeys(e.keys)
		}
		return s
	case evNavigated:
		return v + string(e.by) + " moved to page " + e.page
	case evPatched:
		return v + string(e.by) + " changed " + joinKeys(e.keys)
	}
	return v + "change"
}

func joinKeys(keys []string) string {
	s := ""
	for i, k := range keys {
		if i > 0 {
			s += ", "
		}
		s += k
	}
	return s
}

// why serves the why tool.
func (p *Port) why(a argMap) Result {
	key, err := a.str("key")
	if err != nil {
		return argRefusal(err)
	}
	if key == "" {
		return errorResult(ReasonKeyRequired)
	}
	app := p.app
	app.mu.Lock()
	defer app.mu.Unlock()
	chain := []Obj{}
	for _, e := range app.log {
		switch e.kind {
		case evSettled:
			if e.status != statusPerformed || !keysTouch(e.keys, key) {
				continue
			}
			via := "fire"
			if t := app.transitions[e.transition]; t != nil && t.reported {
				via = "report"
			}
			chain = append(chain, Obj{{"version", e.version}, {"via", via}, {"by", string(e.by)}, {"action", e.action}, {"transition", e.transition}})
		case evPatched:
			if keysTouch(e.keys, key) {
				chain = append(chain, Obj{{"version", e.version}, {"via", "patch"}, {"by", string(e.by)}})
			}
		}
	}
	val, known := app.state.Lookup(key)
	r := newResult("ok", true, "key", key, "chain", chain)
	if known {
		r = r.With("value", CloneValue(val))
		if val == nil {
			r = r.With("value", jsonNull)
		}
	} else {
		r = r.With("note", "The state has no such key now.")
	}
	if len(chain) == 0 {
		r = r.With("why", "No fire, report or patch on record touched this key; its value came with the initial state, if any.")
	}
	return r
}

// keysTouch reports whether any of keys is key, inside it or around it.
func keysTouch(keys []string, key string) bool { return writesKey(keys, key) }
