// routeTo: the way from the current page to another along the actions'
// declared goTo edges — fewest hops, ties broken by declaration order —
// answered by whats_here {routeTo} when the graph says "routeTo": true.

package serve

import "strconv"

// hop is one step of a route: fire action, arrive on page to.
type hop struct{ action, to string }

// route finds the fewest-hop path of declared goTo edges from page from
// to page to. Among paths of equal length it picks the one whose hops come
// first in declaration order (a breadth-first search that tries each
// page's actions in the order they were declared). ok is false when no
// declared path leads there.
func (g *Graph) route(from, to string) (hops []hop, ok bool) {
	if from == to {
		return nil, true
	}
	type visit struct {
		prev   string // the page this one was reached from
		action string // the action that reached it
	}
	seen := map[string]visit{from: {}}
	queue := []string{from}
	for len(queue) > 0 {
		page := queue[0]
		queue = queue[1:]
		for i := range g.Actions {
			act := &g.Actions[i]
			if act.On != page || act.GoTo == "" {
				continue
			}
			if _, done := seen[act.GoTo]; done {
				continue
			}
			seen[act.GoTo] = visit{prev: page, action: act.ID}
			if act.GoTo == to {
				for p := to; p != from; p = seen[p].prev {
					hops = append(hops, hop{action: seen[p].action, to: p})
				}
				for i, j := 0, len(hops)-1; i < j; i, j = i+1, j-1 {
					hops[i], hops[j] = hops[j], hops[i]
				}
				return hops, true
			}
			queue = append(queue, act.GoTo)
		}
	}
	return nil, false
}

// routeResult answers whats_here {routeTo}: the route, alreadyHere, or why
// there is none; an undeclared page is a refusal naming the pages there
// are.
func (p *Port) routeResult(to string) Result {
	g := p.app.g
	if g.Page(to) == nil {
		pages := make([]string, len(g.Pages))
		for i, pg := range g.Pages {
			pages[i] = pg.ID
		}
		return errorResult(ReasonUnknownPage, "routeTo", to, "pages", pages)
	}
	from := p.app.Page()
	hops, ok := g.route(from, to)
	route := Obj{{"to", to}}
	switch {
	case ok && len(hops) == 0:
		route = append(route, Field{"alreadyHere", true})
	case ok:
		rows := make([]Obj, len(hops))
		means := strconv.Itoa(len(hops)) + " hop"
		if len(hops) > 1 {
			means += "s"
		}
		means += " from " + from + ": "
		for i, h := range hops {
			rows[i] = Obj{{"action", h.action}, {"to", h.to}}
			if i > 0 {
				means += ", then "
			}
			means += h.action + " (to " + h.to + ")"
		}
		means += ". Each hop is an action on the page it leaves, done with do_action; the guards of each page still apply when you get there."
		route = append(route, Field{"hops", rows}, Field{"means", means})
	default:
		route = append(route, Field{"why", "No declared goTo path leads from page " + from + " to page " + to + "; the app may get there in a way it does not declare, or not at all."})
	}
	return newResult("ok", true, "route", route)
}
