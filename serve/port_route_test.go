// Tests of the second version's routeTo: whats_here {routeTo} answers the
// way to a page along declared goTo edges (fewest hops, ties broken by
// declaration order), alreadyHere, why there is none, UNKNOWN_PAGE, the
// journeysElsewhereHint, and the schema property only a routeTo graph has.

package serve

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// routeGraph: a → b → c → d is the shortest way to d (three hops). To e
// there are two ways of two hops, a.toX → x → e and a.toY → y → e; y's edge
// to e is declared before x's, but a.toX is declared before a.toY, so the
// way through x wins. A three-hop way to c (a.long1 → l1 → l2 → c) is
// declared first and loses to the two-hop way. island has no way in; sink
// has no way out.
const routeGraph = `{"id":"nav","routeTo":true,
 "pages":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"},{"id":"e"},{"id":"x"},{"id":"y"},
          {"id":"l1"},{"id":"l2"},{"id":"island"},{"id":"sink"}],
 "actions":[
  {"id":"y.toE","does":"y to e.","on":"y","goTo":"e"},
  {"id":"a.long1","does":"a to l1.","on":"a","goTo":"l1"},
  {"id":"l1.toL2","does":"l1 to l2.","on":"l1","goTo":"l2"},
  {"id":"l2.toC","does":"l2 to c.","on":"l2","goTo":"c"},
  {"id":"a.self","does":"a to a.","on":"a","goTo":"a"},
  {"id":"a.stay","does":"Stays on a.","on":"a"},
  {"id":"a.toB","does":"a to b.","on":"a","goTo":"b"},
  {"id":"a.toX","does":"a to x.","on":"a","goTo":"x"},
  {"id":"a.toY","does":"a to y.","on":"a","goTo":"y"},
  {"id":"b.toC","does":"b to c.","on":"b","goTo":"c"},
  {"id":"c.toD","does":"c to d.","on":"c","goTo":"d"},
  {"id":"x.toE","does":"x to e.","on":"x","goTo":"e"},
  {"id":"island.toA","does":"island to a.","on":"island","goTo":"a"},
  {"id":"d.toSink","does":"d to sink.","on":"d","goTo":"sink","when":{"key":"never","op":"truthy"}}
 ],
 "journeys":[
  {"id":"here","does":"Starts on a.","steps":["a.stay"]},
  {"id":"atD","does":"Starts on d.","steps":["d.toSink"]},
  {"id":"atB","does":"Starts on b.","steps":["b.toC"]},
  {"id":"atB2","does":"Also on b.","steps":["b.toC","c.toD"]}
 ]}`

func TestRouteFewestHopsAndTies(t *testing.T) {
	g := mustGraph(t, routeGraph)
	assert.True(t, g.RouteTo)
	cases := []struct {
		from, to string
		want     []hop
		ok       bool
	}{
		{"a", "a", nil, true},
		{"a", "b", []hop{{"a.toB", "b"}}, true},
		// Two hops beat the three-hop way declared first.
		{"a", "c", []hop{{"a.toB", "b"}, {"b.toC", "c"}}, true},
		{"a", "d", []hop{{"a.toB", "b"}, {"b.toC", "c"}, {"c.toD", "d"}}, true},
		// A tie of two hops: the first hop declared first wins, even though
		// the other way's second hop is declared earlier.
		{"a", "e", []hop{{"a.toX", "x"}, {"x.toE", "e"}}, true},
		{"l1", "d", []hop{{"l1.toL2", "l2"}, {"l2.toC", "c"}, {"c.toD", "d"}}, true},
		{"island", "e", []hop{{"island.toA", "a"}, {"a.toX", "x"}, {"x.toE", "e"}}, true},
		// A guard does not hide a declared edge.
		{"c", "sink", []hop{{"c.toD", "d"}, {"d.toSink", "sink"}}, true},
		{"a", "island", nil, false},
		{"sink", "a", nil, false},
		{"e", "a", nil, false},
	}
	for _, c := range cases {
		hops, ok := g.route(c.from, c.to)
		assert.Equal(t, c.ok, ok, "%s→%s", c.from, c.to)
		assert.Equal(t, c.want, hops, "%s→%s", c.from, c.to)
	}
}

// The test: a route of three hops, and a tie broken by
// declaration order, through whats_here.
func TestWhatsHereRouteToThreeHopsAndTie(t *testing.T) {
	v := newV2(t, routeGraph, AppOptions{}, nil)
	p := v.port(t, PortOptions{})

	r, m := pcall(t, p, "nav.whats_here", `{"routeTo":"d"}`)
	assert.Equal(t, []string{"ok", "route", "youAreOn", "version"}, r.Keys())
	assert.Equal(t, true, m["ok"])
	assert.Equal(t, "a", m["youAreOn"])
	route := m["route"].(map[string]any)
	assert.Equal(t, "d", route["to"])
	assert.Equal(t, []any{
		map[string]any{"action": "a.toB", "to": "b"},
		map[string]any{"action": "b.toC", "to": "c"},
		map[string]any{"action": "c.toD", "to": "d"},
	}, route["hops"])
	assert.Equal(t, "3 hops from a: a.toB (to b), then b.toC (to c), then c.toD (to d). "+
		"Each hop is an action on the page it leaves, done with do_action; the guards of each page still apply when you get there.", route["means"])
	assert.NotContains(t, route, "alreadyHere")
	assert.NotContains(t, route, "why")
	assert.Contains(t, r.String(), `"route":{"to":"d","hops":[{"action":"a.toB","to":"b"},`)

	_, m = pcall(t, p, "nav.whats_here", `{"routeTo":"e"}`)
	route = m["route"].(map[string]any)
	assert.Equal(t, []any{
		map[string]any{"action": "a.toX", "to": "x"},
		map[string]any{"action": "x.toE", "to": "e"},
	}, route["hops"], "a.toX is declared before a.toY")
	assert.Contains(t, route["means"], "2 hops from a: a.toX (to x), then x.toE (to e).")

	_, m = pcall(t, p, "nav.whats_here", `{"routeTo":"b"}`)
	route = m["route"].(map[string]any)
	assert.Len(t, route["hops"], 1)
	assert.Contains(t, route["means"], "1 hop from a: a.toB (to b).")

	// Following the route moves the start of the next one.
	for _, hop := range []string{"a.toB", "b.toC"} {
		r, m := pcall(t, p, "nav.do_action", `{"action":"`+hop+`"}`)
		require.Equal(t, true, m["ok"], "%s", r.JSON())
		waitSettled(t, v.app, r.TransitionID())
	}
	_, m = pcall(t, p, "nav.whats_here", `{"routeTo":"d"}`)
	route = m["route"].(map[string]any)
	assert.Equal(t, []any{map[string]any{"action": "c.toD", "to": "d"}}, route["hops"])
	assert.Equal(t, "c", m["youAreOn"])
}

func TestWhatsHereRouteToAnswers(t *testing.T) {
	v := newV2(t, routeGraph, AppOptions{}, nil)
	p := v.port(t, PortOptions{})
	allPages := []string{"a", "b", "c", "d", "e", "x", "y", "l1", "l2", "island", "sink"}
	cases := []struct {
		name, args string
		check      func(t *testing.T, r Result, m map[string]any)
	}{
		{"already here", `{"routeTo":"a"}`, func(t *testing.T, r Result, m map[string]any) {
			assert.Equal(t, true, m["ok"])
			assert.Equal(t, map[string]any{"to": "a", "alreadyHere": true}, m["route"])
		}},
		{"no declared path", `{"routeTo":"island"}`, func(t *testing.T, r Result, m map[string]any) {
			assert.Equal(t, true, m["ok"])
			route := m["route"].(map[string]any)
			assert.Equal(t, "island", route["to"])
			assert.Equal(t, "No declared goTo path leads from page a to page island; the app may get there in a way it does not declare, or not at all.", route["why"])
			assert.NotContains(t, route, "hops")
		}},
		{"undeclared page", `{"routeTo":"nowhere"}`, func(t *testing.T, r Result, m map[string]any) {
			assert.Equal(t, false, m["ok"])
			assert.Equal(t, "error", m["judgment"])
			assert.Equal(t, ReasonUnknownPage, m["reason"])
			assert.Equal(t, whyOf(ReasonUnknownPage), m["why"])
			assert.Equal(t, allPages, strs(m["pages"]))
			assert.Equal(t, "nowhere", m["routeTo"])
			assert.NotContains(t, m, "route")
			assert.False(t, r.IsError(), "a refusal, not a tool failure")
		}},
		{"an action id is not a page", `{"routeTo":"a.toB"}`, func(t *testing.T, r Result, m map[string]any) {
			assert.Equal(t, ReasonUnknownPage, m["reason"])
		}},
		{"a long name is echoed capped", `{"routeTo":"` + strings.Repeat("z", 500) + `"}`, func(t *testing.T, r Result, m map[string]any) {
			assert.Equal(t, ReasonUnknownPage, m["reason"])
			assert.Len(t, m["routeTo"], maxEchoText)
		}},
		{"not a string", `{"routeTo":3}`, func(t *testing.T, r Result, m map[string]any) {
			assert.Equal(t, ReasonInvalidArguments, m["reason"])
			assert.Contains(t, m["error"], "routeTo must be a string")
		}},
		{"empty is the overview", `{"routeTo":""}`, func(t *testing.T, r Result, m map[string]any) {
			assert.Contains(t, m, "actions")
			assert.NotContains(t, m, "route")
		}},
		{"null is the overview", `{"routeTo":null}`, func(t *testing.T, r Result, m map[string]any) {
			assert.Contains(t, m, "actions")
		}},
		{"sinceVersion is still checked", `{"routeTo":"d","sinceVersion":-1}`, func(t *testing.T, r Result, m map[string]any) {
			assert.Equal(t, ReasonInvalidArguments, m["reason"])
		}},
		{"with a sinceVersion the route wins", `{"routeTo":"b","sinceVersion":0}`, func(t *testing.T, r Result, m map[string]any) {
			assert.Contains(t, m, "route")
			assert.NotContains(t, m, "actions")
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, m := pcall(t, p, "nav.whats_here", c.args)
			c.check(t, r, m)
		})
	}
	assert.Empty(t, v.app.Transitions(), "routeTo performs nothing")
	assert.Equal(t, int64(0), v.app.Version())
}

func TestRouteToNeedsTheGraphFlag(t *testing.T) {
	// The same graph without "routeTo": true ignores the argument.
	src := `{"id":"nav","pages":[{"id":"a"},{"id":"b"}],
	 "actions":[{"id":"a.toB","does":"a to b.","on":"a","goTo":"b"},{"id":"b.stay","does":"Stay.","on":"b"}],
	 "journeys":[{"id":"atB","does":"On b.","steps":["b.stay"]}]}`
	v := newV2(t, src, AppOptions{}, nil)
	assert.False(t, v.app.Graph().RouteTo)
	p := v.port(t, PortOptions{})
	for _, args := range []string{`{"routeTo":"b"}`, `{"routeTo":"nowhere"}`, `{"routeTo":3}`} {
		_, m := pcall(t, p, "nav.whats_here", args)
		assert.Equal(t, true, m["ok"], args)
		assert.Contains(t, m, "actions", args)
		assert.NotContains(t, m, "route", args)
		assert.Equal(t, 1.0, m["journeysElsewhere"])
		assert.NotContains(t, m, "journeysElsewhereHint", "only a routeTo graph hints")
	}
	assert.Equal(t, []string{"sinceVersion"}, schemaProps(t, p, "nav.whats_here"))
	assert.NotContains(t, string(p.ToolsJSON()), "routeTo")

	// "routeTo" must be a boolean in the graph.
	_, err := ParseGraph([]byte(`{"id":"g","routeTo":"yes","pages":[{"id":"p"}]}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `serve: graph: "routeTo" must be true or false`)
	g := mustGraph(t, `{"id":"g","routeTo":false,"pages":[{"id":"p"}]}`)
	assert.False(t, g.RouteTo)
}

func TestRouteToSchemaAndHint(t *testing.T) {
	v := newV2(t, routeGraph, AppOptions{}, nil)
	p := v.port(t, PortOptions{})
	assert.Equal(t, []string{"sinceVersion", "routeTo"}, schemaProps(t, p, "nav.whats_here"))
	assert.Contains(t, string(p.ToolsJSON()), `"routeTo":{"type":"string","description":"`+descRouteTo+`"}`)
	// No repeating or citing action: the firing tools are unchanged.
	assert.Equal(t, []string{"action", "input", "confirm", "decline"}, schemaProps(t, p, "nav.do_action"))
	assert.Equal(t, []string{"step", "input", "confirm", "decline"}, schemaProps(t, p, "nav.journey.here"))

	// On a: "here" starts here; atD, atB and atB2 start elsewhere.
	_, m := pcall(t, p, "nav.whats_here", `{}`)
	assert.Equal(t, 3.0, m["journeysElsewhere"])
	assert.Equal(t, "3 more journeys start elsewhere (on d, b); whats_here with routeTo and one of those pages gives the way there.", m["journeysElsewhereHint"])

	// On d the entry of atD is not offered (its guard fails): it is not
	// elsewhere, so it is not named among the pages to go to.
	require.NoError(t, v.app.Navigate("d", PrincipalUser))
	_, m = pcall(t, p, "nav.whats_here", `{}`)
	assert.Equal(t, 4.0, m["journeysElsewhere"])
	hint, _ := m["journeysElsewhereHint"].(string)
	assert.Equal(t, "3 more journeys start elsewhere (on a, b); whats_here with routeTo and one of those pages gives the way there.", hint)

	// On b every journey but two is elsewhere.
	require.NoError(t, v.app.Navigate("b", PrincipalUser))
	_, m = pcall(t, p, "nav.whats_here", `{}`)
	assert.Equal(t, 2.0, m["journeysElsewhere"])
	assert.Equal(t, "2 more journeys start elsewhere (on a, d); whats_here with routeTo and one of those pages gives the way there.", m["journeysElsewhereHint"])
}

func TestRouteToHintAbsentWhenAllJourneysAreHere(t *testing.T) {
	src := `{"id":"nav","routeTo":true,"pages":[{"id":"a"},{"id":"b"}],
	 "actions":[{"id":"a.go","does":"Go.","on":"a","goTo":"b"},
	            {"id":"a.hidden","does":"Hidden.","on":"a","when":{"key":"k","op":"truthy"}}],
	 "journeys":[{"id":"j","does":"J.","steps":["a.go"]},{"id":"h","does":"H.","steps":["a.hidden"]}]}`
	v := newV2(t, src, AppOptions{}, nil)
	p := v.port(t, PortOptions{})
	_, m := pcall(t, p, "nav.whats_here", `{}`)
	assert.Equal(t, 1.0, m["journeysElsewhere"], "h is left out: its entry is not offered")
	assert.NotContains(t, m, "journeysElsewhereHint", "but it starts here, so there is no page to route to")
	// On b, both start elsewhere: one page, one sentence per count.
	require.NoError(t, v.app.Navigate("b", PrincipalUser))
	_, m = pcall(t, p, "nav.whats_here", `{}`)
	assert.Equal(t, "2 more journeys start elsewhere (on a); whats_here with routeTo and one of those pages gives the way there.", m["journeysElsewhereHint"])
	require.NoError(t, v.app.Patch(State{"k": true}, PrincipalUser))
	_, m = pcall(t, p, "nav.whats_here", `{}`)
	assert.Equal(t, "2 more journeys start elsewhere (on a); whats_here with routeTo and one of those pages gives the way there.", m["journeysElsewhereHint"])
	require.NoError(t, v.app.Navigate("a", PrincipalUser))
	require.NoError(t, v.app.Patch(State{"k": true}, PrincipalUser))
	_, m = pcall(t, p, "nav.whats_here", `{}`)
	assert.NotContains(t, m, "journeysElsewhere")
	assert.NotContains(t, m, "journeysElsewhereHint")
}

func TestFieldsWithoutArgumentsLeaveToolsAndAnswersAlone(t *testing.T) {
	// verify, concurrency, freshness "track" and busy take no argument: a
	// graph using only those has the tools of the same graph without them,
	// and while nothing is stale or busy, the same answers.
	plain := `{"id":"g","pages":[{"id":"p","areas":[{"id":"a"}]}],
	 "actions":[{"id":"p.a.x","does":"X.","on":"p","reads":["k"]},{"id":"p.y","does":"Y.","on":"p"}],
	 "journeys":[{"id":"j","does":"J.","steps":["p.a.x","p.y"]}]}`
	v2 := `{"id":"g","routeTo":false,"pages":[{"id":"p","areas":[{"id":"a","repeats":false}]}],
	 "actions":[{"id":"p.a.x","does":"X.","on":"p","reads":["k"],"freshness":"track","verify":{"key":"k","op":"exists"}},
	            {"id":"p.y","does":"Y.","on":"p","concurrency":"single-flight"}],
	 "journeys":[{"id":"j","does":"J.","steps":["p.a.x","p.y"]}]}`
	for _, mode := range []string{JourneyToolsPerJourney, JourneyToolsSingle} {
		a := newV2(t, plain, AppOptions{State: State{"k": 1.0}}, nil)
		b := newV2(t, v2, AppOptions{State: State{"k": 1.0}}, nil)
		a.hold("p.a.x") // pending in both, so the versions agree
		b.hold("p.a.x")
		pa, pb := a.port(t, PortOptions{JourneyTools: mode}), b.port(t, PortOptions{JourneyTools: mode})
		assert.Equal(t, string(pa.ToolsJSON()), string(pb.ToolsJSON()), mode)
		for _, call := range [][2]string{{"g.whats_here", `{}`}, {"g.do_action", `{"action":"x","instance":"i","offerId":"o"}`}} {
			ra, _ := pcall(t, pa, call[0], call[1])
			rb, _ := pcall(t, pb, call[0], call[1])
			assert.Equal(t, ra.String(), rb.String(), "%s %s", mode, call[0])
		}
		a.release("p.a.x")
		b.release("p.a.x")
	}
}

func TestRouteToHintForOneJourney(t *testing.T) {
	v := newV2(t, `{"id":"nav","routeTo":true,"pages":[{"id":"a"},{"id":"b"}],
	 "actions":[{"id":"a.go","does":"Go.","on":"a","goTo":"b"},{"id":"b.do","does":"Do.","on":"b"}],
	 "journeys":[{"id":"j","does":"J.","steps":["b.do"]}]}`, AppOptions{}, nil)
	_, m := pcall(t, v.port(t, PortOptions{}), "nav.whats_here", `{}`)
	assert.Equal(t, "1 more journey starts elsewhere (on b); whats_here with routeTo and one of those pages gives the way there.", m["journeysElsewhereHint"])
}
