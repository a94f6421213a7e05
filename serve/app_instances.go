// Repeating cards: which cards of a repeating area exist (from a state key
// or from the host) and which are mounted, and the instance gate
// (INSTANCE_REQUIRED, INSTANCE_UNKNOWN, STILL_MOUNTING).

package serve

import (
	"math"
	"slices"
	"strconv"

	"github.com/agentwasm/agentwasm/internal/errs"
)

// maxListedInstances is how many instance keys a row or a refusal lists.
const maxListedInstances = 50

// The enumerations of a repeating action's row.
const (
	enumerationSelector = "selector"       // the keys come from a state key
	enumerationMounted  = "mounted-window" // the host lists the mounted cards
)

// SetInstances says which cards of the repeating area area are mounted
// (their handlers can run). For an area declared with instancesFrom the
// full set of cards comes from the state and a key listed here only marks
// its card mounted; until the host calls SetInstances for such an area
// every card is taken as mounted, and after it only the cards it lists are
// (an empty list: none yet). For an area without instancesFrom the keys
// are the cards there are. Each call replaces the last; keys must be
// non-empty.
func (a *App) SetInstances(area string, keys []string) error {
	if a.g.Repeat(area) == nil {
		return errs.New("serve: SetInstances: ", strconv.Quote(area), " is not a repeating area of graph ", strconv.Quote(a.g.ID), "; declare it with \"repeats\": true")
	}
	seen := make(map[string]bool, len(keys))
	list := make([]string, 0, len(keys))
	for i, k := range keys {
		if k == "" {
			return errs.New("serve: SetInstances: key ", strconv.Itoa(i), " is empty; name every card")
		}
		if !seen[k] {
			seen[k] = true
			list = append(list, k)
		}
	}
	a.mu.Lock()
	if a.mounted == nil {
		a.mounted = map[string][]string{}
	}
	a.mounted[area] = list
	a.mu.Unlock()
	a.changed()
	return nil
}

// instanceKeys returns the keys of the cards of a repeating area (all of
// them) and whether the host listed the mounted ones; call it with the
// lock.
func (a *App) instanceKeys(area string) (keys []string, hostListed bool) {
	mounted, hostListed := a.mounted[area]
	r := a.g.Repeat(area)
	if r == nil || r.InstancesFrom == "" {
		return mounted, hostListed
	}
	v, _ := a.state.Lookup(r.InstancesFrom)
	list, _ := arrayOf(v)
	for _, e := range list {
		if k := instanceKey(e); k != "" {
			keys = append(keys, k)
		}
	}
	return keys, hostListed
}

// instanceKey renders a card key from a state array's element: a string
// as it is, a number (of any Go number type: a host's state may hold an
// int) in its JSON form, an object by its "id" or "key" field; anything
// else has no key.
func instanceKey(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	if n, ok := numberOf(v); ok {
		if math.IsNaN(n) || math.IsInf(n, 0) {
			return "" // no JSON form
		}
		return string(AppendValue(nil, n))
	}
	if m, ok := objectOf(v); ok {
		for _, f := range []string{"id", "key"} {
			if k := instanceKey(m[f]); k != "" {
				return k
			}
		}
	}
	return ""
}

// enumeration says where a repeating area's keys come from.
func (a *App) enumeration(area string) string {
	if r := a.g.Repeat(area); r != nil && r.InstancesFrom != "" {
		return enumerationSelector
	}
	return enumerationMounted
}

// listed is at most maxListedInstances of keys, never nil.
func listed(keys []string) []string {
	if len(keys) > maxListedInstances {
		keys = keys[:maxListedInstances]
	}
	return append([]string{}, keys...)
}

// checkInstance is the instance gate of a repeating action: a key is
// required, must name a card there is, and that card must be mounted.
// Call it with the lock.
func (a *App) checkInstance(act *Action, instance string) FireResult {
	if act.Repeats == "" {
		return FireResult{OK: true}
	}
	keys, hostListed := a.instanceKeys(act.Repeats)
	if instance == "" {
		r := refusal(ReasonInstanceRequired)
		r.Instances = listed(keys)
		return r
	}
	if !slices.Contains(keys, instance) {
		r := refusal(ReasonInstanceUnknown)
		r.Instances = listed(keys)
		return r
	}
	if hostListed && a.g.Repeat(act.Repeats).InstancesFrom != "" && !slices.Contains(a.mounted[act.Repeats], instance) {
		r := refusal(ReasonStillMounting)
		r.Retriable = true
		return r
	}
	return FireResult{OK: true}
}
