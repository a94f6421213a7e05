// verify: the guard an action declares should hold once it is performed,
// evaluated on the state after the settlement applied its writes.

package serve

// verifyHeld evaluates an action's verify guard after it performed:
// "true", "false" with the conditions that failed, or "unevaluable" when
// it failed on a key the state does not have (nothing says whether the
// effect happened).
func verifyHeld(g *Guard, st State) (string, []Condition) {
	ok, _, failed := g.Eval(st)
	if ok {
		return "true", nil
	}
	for _, c := range failed {
		if _, present := st.Lookup(c.Key); !present && c.Op != "exists" && !c.Negated {
			return "unevaluable", failed
		}
	}
	return "false", failed
}
