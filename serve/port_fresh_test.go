// Tests of the second version's freshness: staleReads and staleWrites on
// the rows of "track" and "cite" actions, their acknowledgement by the
// port's fire, and the offers a "cite" action's fires cite (OFFER_REQUIRED,
// OFFER_UNKNOWN, STALE_OFFER with moved, the bounded ledger).

package serve

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// freshGraph: save cites an offer over the body it reads and the saved
// flag it writes; title tracks the title it reads and writes; publish
// cites too (another action's offers); plain has no freshness.
const freshGraph = `{"id":"doc",
 "pages":[{"id":"edit"},{"id":"view"}],
 "actions":[
  {"id":"edit.save","does":"Save the draft.","on":"edit","reads":["draft.body"],"writes":["draft.saved"],"freshness":"cite"},
  {"id":"edit.title","does":"Set the title.","on":"edit","reads":["draft.title","draft.lang"],"writes":["draft.title"],"freshness":"track"},
  {"id":"edit.publish","does":"Publish the draft.","on":"edit","reads":["draft"],"freshness":"cite","confirm":true},
  {"id":"edit.plain","does":"Nothing fresh.","on":"edit","reads":["draft.body"],"writes":["draft.saved"]},
  {"id":"edit.view","does":"View it.","on":"edit","goTo":"view"}
 ],
 "journeys":[{"id":"write","does":"Save then publish.","steps":["edit.save","edit.publish"]}]}`

func freshState() State {
	return State{"draft": map[string]any{"body": "hi", "title": "T", "lang": "en"}}
}

func freshApp(t *testing.T, results map[string]func(HandlerCall) (any, error)) *v2app {
	t.Helper()
	return newV2(t, freshGraph, AppOptions{State: freshState(), RequireHumanApproval: ptrBool(false)}, results)
}

func TestParseGraphFreshness(t *testing.T) {
	g := mustGraph(t, freshGraph)
	assert.Equal(t, FreshnessCite, g.Action("edit.save").Freshness)
	assert.Equal(t, FreshnessTrack, g.Action("edit.title").Freshness)
	assert.Equal(t, "", g.Action("edit.plain").Freshness)
	assert.True(t, g.usesOffers())
	assert.False(t, mustGraph(t, appShopGraph).usesOffers())
	for _, c := range []struct{ field, want string }{
		{`"freshness":"always"`, `serve: action "p.a": freshness "always" is not a mode; use "track" or "cite"`},
		{`"freshness":true`, `serve: action "p.a": "freshness" must be a string, got`},
		{`"freshness":"Track"`, `freshness "Track" is not a mode`},
	} {
		_, err := ParseGraph([]byte(`{"id":"g","pages":[{"id":"p"}],"actions":[{"id":"p.a","on":"p",` + c.field + `}]}`))
		require.Error(t, err, c.field)
		assert.Contains(t, err.Error(), c.want)
	}
	// Track alone does not add offerId to the tools.
	g = mustGraph(t, `{"id":"g","pages":[{"id":"p"}],"actions":[{"id":"p.a","on":"p","freshness":"track"}]}`)
	assert.False(t, g.usesOffers())
}

func TestStaleReadsAndWrites(t *testing.T) {
	type change func(t *testing.T, v *v2app)
	patch := func(by Principal, st State) change {
		return func(t *testing.T, v *v2app) { require.NoError(t, v.app.Patch(st, by)) }
	}
	cases := []struct {
		name                    string
		change                  change
		action                  string
		staleReads, staleWrites []string
	}{
		{"nothing changed", func(*testing.T, *v2app) {}, "edit.title", nil, nil},
		{"the user edits a key it reads", patch(PrincipalUser, State{"draft.lang": "fr"}), "edit.title", []string{"draft.lang"}, nil},
		{"a key both read and written", patch(PrincipalUser, State{"draft.title": "U"}), "edit.title", []string{"draft.title"}, []string{"draft.title"}},
		{"a key around it", patch(PrincipalUser, State{"draft": map[string]any{}}), "edit.title", []string{"draft.title", "draft.lang"}, []string{"draft.title"}},
		{"a key inside it", patch(PrincipalUser, State{"draft.title.font": "x"}), "edit.title", []string{"draft.title"}, []string{"draft.title"}},
		{"an unrelated key", patch(PrincipalUser, State{"other": 1.0, "draft.titles": "no"}), "edit.title", nil, nil},
		{"the system counts as another", patch(PrincipalSystem, State{"draft.body": "x"}), "edit.save", []string{"draft.body"}, nil},
		{"unknown counts as another", patch(PrincipalUnknown, State{"draft.saved": true}), "edit.save", nil, []string{"draft.saved"}},
		{"the port's own principal does not", patch(PrincipalAgent, State{"draft.body": "x", "draft.saved": true}), "edit.save", nil, nil},
		{"a deletion counts", func(t *testing.T, v *v2app) {
			require.NoError(t, v.app.Patch(State{"draft.saved": true}, PrincipalAgent))
			require.NoError(t, v.app.Patch(State{"draft.saved": nil}, PrincipalUser))
		}, "edit.save", nil, []string{"draft.saved"}},
		{"the person's report writes", func(t *testing.T, v *v2app) {
			_, err := v.app.Report("edit.title", nil, map[string]any{"draft.title": "by hand"})
			require.NoError(t, err)
		}, "edit.title", []string{"draft.title"}, []string{"draft.title"}},
		{"a report that writes nothing", func(t *testing.T, v *v2app) {
			_, err := v.app.Report("edit.title", nil, map[string]any{"unrelated": 1.0})
			require.NoError(t, err)
		}, "edit.title", nil, nil},
		{"a user's performed fire writes", func(t *testing.T, v *v2app) {
			r := v.fire("edit.plain", FireOptions{Source: PrincipalUser})
			require.True(t, r.OK)
			waitSettled(t, v.app, r.TransitionID)
		}, "edit.save", nil, []string{"draft.saved"}},
		{"a refused fire writes nothing", func(t *testing.T, v *v2app) {
			v.setResult("edit.plain", func(HandlerCall) (any, error) { return nil, errBoom })
			r := v.fire("edit.plain", FireOptions{Source: PrincipalUser})
			require.True(t, r.OK)
			assert.Equal(t, "refused", waitSettled(t, v.app, r.TransitionID).Status)
		}, "edit.save", nil, nil},
		{"navigation is not a commit", func(t *testing.T, v *v2app) {
			require.NoError(t, v.app.Navigate("view", PrincipalUser))
			require.NoError(t, v.app.Navigate("edit", PrincipalUser))
		}, "edit.title", nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := freshApp(t, map[string]func(HandlerCall) (any, error){
				"edit.plain": func(HandlerCall) (any, error) { return map[string]any{"draft.saved": true}, nil },
			})
			p := v.port(t, PortOptions{})
			c.change(t, v)
			_, m := pcall(t, p, "doc.whats_here", `{}`)
			row := rowOf(t, m, "actions", c.action)
			if c.staleReads == nil {
				assert.NotContains(t, row, "staleReads")
			} else {
				assert.Equal(t, c.staleReads, strs(row["staleReads"]))
			}
			if c.staleWrites == nil {
				assert.NotContains(t, row, "staleWrites")
			} else {
				assert.Equal(t, c.staleWrites, strs(row["staleWrites"]))
			}
			// A row without freshness never carries them.
			plain := rowOf(t, m, "actions", "edit.plain")
			for _, k := range []string{"staleReads", "staleWrites", "offerId"} {
				assert.NotContains(t, plain, k)
			}
		})
	}
}

func TestStaleKeysCountFromThePortsBirth(t *testing.T) {
	v := freshApp(t, nil)
	require.NoError(t, v.app.Patch(State{"draft.lang": "de"}, PrincipalUser))
	p := v.port(t, PortOptions{})
	_, m := pcall(t, p, "doc.whats_here", `{}`)
	assert.NotContains(t, rowOf(t, m, "actions", "edit.title"), "staleReads", "a change before the port was built is not news")
	// A second port built later sees the same; one built earlier saw it.
	early := freshApp(t, nil)
	ep := early.port(t, PortOptions{})
	require.NoError(t, early.app.Patch(State{"draft.lang": "de"}, PrincipalUser))
	_, m = pcall(t, ep, "doc.whats_here", `{}`)
	assert.Equal(t, []string{"draft.lang"}, strs(rowOf(t, m, "actions", "edit.title")["staleReads"]))
	// A port stamping user sees the agent's changes and not the user's.
	up := early.port(t, PortOptions{Source: PrincipalUser})
	require.NoError(t, early.app.Patch(State{"draft.title": "X"}, PrincipalUser))
	require.NoError(t, early.app.Patch(State{"draft.lang": "it"}, PrincipalAgent))
	_, m = pcall(t, up, "doc.whats_here", `{}`)
	row := rowOf(t, m, "actions", "edit.title")
	assert.Equal(t, []string{"draft.lang"}, strs(row["staleReads"]))
	assert.NotContains(t, row, "staleWrites")
}

func TestTheFireAcknowledgesStaleKeys(t *testing.T) {
	v := freshApp(t, nil)
	p := v.port(t, PortOptions{})
	require.NoError(t, v.app.Patch(State{"draft.title": "U", "draft.body": "b"}, PrincipalUser))
	_, m := pcall(t, p, "doc.whats_here", `{}`)
	assert.Equal(t, []string{"draft.title"}, strs(rowOf(t, m, "actions", "edit.title")["staleReads"]))
	assert.Equal(t, []string{"draft.body"}, strs(rowOf(t, m, "actions", "edit.save")["staleReads"]))

	// Reading is no acknowledgement: the keys stay stale.
	_, m = pcall(t, p, "doc.whats_here", `{}`)
	assert.Contains(t, rowOf(t, m, "actions", "edit.title"), "staleReads")

	// Firing title through the port clears its own row only.
	r, m := pcall(t, p, "doc.do_action", `{"action":"title"}`)
	require.Equal(t, true, m["ok"], "%s", r.JSON())
	waitSettled(t, v.app, r.TransitionID())
	_, m = pcall(t, p, "doc.whats_here", `{}`)
	title := rowOf(t, m, "actions", "edit.title")
	assert.NotContains(t, title, "staleReads")
	assert.NotContains(t, title, "staleWrites")
	assert.Equal(t, []string{"draft.body"}, strs(rowOf(t, m, "actions", "edit.save")["staleReads"]), "another action's row is unchanged")

	// A change after the fire is news again.
	require.NoError(t, v.app.Patch(State{"draft.lang": "fr"}, PrincipalUser))
	_, m = pcall(t, p, "doc.whats_here", `{}`)
	assert.Equal(t, []string{"draft.lang"}, strs(rowOf(t, m, "actions", "edit.title")["staleReads"]))

	// A fire of the same action through the app session (not the port)
	// acknowledges nothing for the port.
	fr := v.fire("edit.title", FireOptions{})
	require.True(t, fr.OK)
	waitSettled(t, v.app, fr.TransitionID)
	_, m = pcall(t, p, "doc.whats_here", `{}`)
	assert.Equal(t, []string{"draft.lang"}, strs(rowOf(t, m, "actions", "edit.title")["staleReads"]))

	// Each port keeps its own acknowledgement.
	other := v.port(t, PortOptions{})
	_, m = pcall(t, other, "doc.whats_here", `{}`)
	assert.NotContains(t, rowOf(t, m, "actions", "edit.title"), "staleReads")
}

func TestOffersAreReusedUntilAKeyMoves(t *testing.T) {
	v := freshApp(t, nil)
	p := v.port(t, PortOptions{})
	offerOf := func(action string) string {
		t.Helper()
		_, m := pcall(t, p, "doc.whats_here", `{}`)
		id, _ := rowOf(t, m, "actions", action)["offerId"].(string)
		require.NotEmpty(t, id, "a cite row carries an offerId")
		assert.NotContains(t, rowOf(t, m, "actions", "edit.title"), "offerId", "a track row carries none")
		return id
	}
	save := offerOf("edit.save")
	assert.Equal(t, "offer#1", save)
	publish := offerOf("edit.publish")
	assert.Equal(t, "offer#2", publish)
	assert.Equal(t, save, offerOf("edit.save"), "reused while nothing moved")

	require.NoError(t, v.app.Patch(State{"unrelated": 1.0}, PrincipalUser))
	assert.Equal(t, save, offerOf("edit.save"), "an unrelated key does not retire it")
	require.NoError(t, v.app.Navigate("view", PrincipalUser))
	require.NoError(t, v.app.Navigate("edit", PrincipalUser))
	assert.Equal(t, save, offerOf("edit.save"), "navigation does not retire it")

	// Anyone moving a key it covers retires it, even the port's principal.
	require.NoError(t, v.app.Patch(State{"draft.saved": false}, PrincipalAgent))
	fresh := offerOf("edit.save")
	assert.Equal(t, "offer#3", fresh)
	assert.Equal(t, "offer#4", offerOf("edit.publish"), "publish reads draft, and draft.saved is inside it: retired too")
	assert.NotEqual(t, publish, "offer#4")
	assert.Equal(t, fresh, offerOf("edit.save"), "the fresh one is reused in turn")
}

func TestOfferGate(t *testing.T) {
	cases := []struct {
		name   string
		setup  func(t *testing.T, v *v2app, p *Port) string // returns the args' offer part
		reason string                                       // "" = fires
		moved  []string
	}{
		{"no offerId", func(*testing.T, *v2app, *Port) string { return `` }, ReasonOfferRequired, nil},
		{"empty offerId", func(*testing.T, *v2app, *Port) string { return `,"offerId":""` }, ReasonOfferRequired, nil},
		{"null offerId", func(*testing.T, *v2app, *Port) string { return `,"offerId":null` }, ReasonOfferRequired, nil},
		{"made up", func(*testing.T, *v2app, *Port) string { return `,"offerId":"offer#99"` }, ReasonOfferUnknown, nil},
		{"made up before any whats_here", func(*testing.T, *v2app, *Port) string { return `,"offerId":"offer#1"` }, ReasonOfferUnknown, nil},
		{"another action's", func(t *testing.T, v *v2app, p *Port) string {
			_, m := pcall(t, p, "doc.whats_here", `{}`)
			return `,"offerId":"` + rowOf(t, m, "actions", "edit.publish")["offerId"].(string) + `"`
		}, ReasonOfferUnknown, nil},
		{"live", func(t *testing.T, v *v2app, p *Port) string {
			_, m := pcall(t, p, "doc.whats_here", `{}`)
			return `,"offerId":"` + rowOf(t, m, "actions", "edit.save")["offerId"].(string) + `"`
		}, "", nil},
		{"stale: the person edited a key it reads", func(t *testing.T, v *v2app, p *Port) string {
			_, m := pcall(t, p, "doc.whats_here", `{}`)
			id := rowOf(t, m, "actions", "edit.save")["offerId"].(string)
			require.NoError(t, v.app.Patch(State{"draft.body": "edited"}, PrincipalUser))
			return `,"offerId":"` + id + `"`
		}, ReasonStaleOffer, []string{"draft.body"}},
		{"stale: a key it writes, by anyone", func(t *testing.T, v *v2app, p *Port) string {
			_, m := pcall(t, p, "doc.whats_here", `{}`)
			id := rowOf(t, m, "actions", "edit.save")["offerId"].(string)
			require.NoError(t, v.app.Patch(State{"draft.saved": true, "draft": map[string]any{"body": "x"}}, PrincipalAgent))
			return `,"offerId":"` + id + `"`
		}, ReasonStaleOffer, []string{"draft.body", "draft.saved"}},
		{"not stale: an unrelated key", func(t *testing.T, v *v2app, p *Port) string {
			_, m := pcall(t, p, "doc.whats_here", `{}`)
			id := rowOf(t, m, "actions", "edit.save")["offerId"].(string)
			require.NoError(t, v.app.Patch(State{"draft.title": "new"}, PrincipalUser))
			return `,"offerId":"` + id + `"`
		}, "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := freshApp(t, nil)
			p := v.port(t, PortOptions{})
			args := `{"action":"edit.save"` + c.setup(t, v, p) + `}`
			r, m := pcall(t, p, "doc.do_action", args)
			if c.reason == "" {
				require.Equal(t, true, m["ok"], "%s", r.JSON())
				waitSettled(t, v.app, r.TransitionID())
				return
			}
			assert.Equal(t, "rejected", m["judgment"], "%s", r.JSON())
			assert.Equal(t, c.reason, m["reason"])
			assert.Equal(t, whyOf(c.reason), m["why"])
			assert.Equal(t, "edit.save", m["action"])
			if c.moved != nil {
				assert.Equal(t, c.moved, strs(m["moved"]))
			} else {
				assert.NotContains(t, m, "moved")
			}
			assert.Empty(t, v.app.Transitions())
		})
	}
}

// The test: a stale offer after the person edits a key the action
// reads; the next whats_here carries a fresh offerId that then works.
func TestStaleOfferAfterThePersonEditsAKeyTheActionReads(t *testing.T) {
	v := freshApp(t, nil)
	p := v.port(t, PortOptions{})
	_, m := pcall(t, p, "doc.whats_here", `{}`)
	old := rowOf(t, m, "actions", "edit.save")["offerId"].(string)

	require.NoError(t, v.app.Patch(State{"draft.body": "the person's words"}, PrincipalUser))
	_, m = pcall(t, p, "doc.do_action", `{"action":"edit.save","offerId":"`+old+`"}`)
	assert.Equal(t, ReasonStaleOffer, m["reason"])
	assert.Equal(t, []any{"draft.body"}, m["moved"])
	assert.Equal(t, false, m["performed"])
	assert.NotContains(t, m, "retriable")
	assert.Empty(t, v.handlerCalls())

	_, m = pcall(t, p, "doc.whats_here", `{}`)
	row := rowOf(t, m, "actions", "edit.save")
	fresh := row["offerId"].(string)
	assert.NotEqual(t, old, fresh)
	assert.Equal(t, []string{"draft.body"}, strs(row["staleReads"]), "what moved is shown on the row")
	// The old one stays stale; the fresh one works and acknowledges.
	_, m = pcall(t, p, "doc.do_action", `{"action":"edit.save","offerId":"`+old+`"}`)
	assert.Equal(t, ReasonStaleOffer, m["reason"])
	r, m := pcall(t, p, "doc.do_action", `{"action":"edit.save","offerId":"`+fresh+`"}`)
	require.Equal(t, true, m["ok"], "%s", r.JSON())
	assert.Equal(t, "performed", waitSettled(t, v.app, r.TransitionID()).Status)
	_, m = pcall(t, p, "doc.whats_here", `{}`)
	assert.NotContains(t, rowOf(t, m, "actions", "edit.save"), "staleReads")
}

func TestAnOwnWriteRetiresTheOffer(t *testing.T) {
	v := freshApp(t, map[string]func(HandlerCall) (any, error){
		"edit.save": func(HandlerCall) (any, error) { return map[string]any{"draft.saved": true}, nil },
	})
	p := v.port(t, PortOptions{})
	_, m := pcall(t, p, "doc.whats_here", `{}`)
	id := rowOf(t, m, "actions", "edit.save")["offerId"].(string)
	r, m := pcall(t, p, "doc.do_action", `{"action":"edit.save","offerId":"`+id+`"}`)
	require.Equal(t, true, m["ok"], "%s", r.JSON())
	waitSettled(t, v.app, r.TransitionID())
	// Its own write moved draft.saved: citing the same offer again is stale,
	// though the row shows no staleWrites (the port's own doing).
	_, m = pcall(t, p, "doc.do_action", `{"action":"edit.save","offerId":"`+id+`"}`)
	assert.Equal(t, ReasonStaleOffer, m["reason"])
	assert.Equal(t, []any{"draft.saved"}, m["moved"])
	_, m = pcall(t, p, "doc.whats_here", `{}`)
	row := rowOf(t, m, "actions", "edit.save")
	assert.NotEqual(t, id, row["offerId"])
	assert.NotContains(t, row, "staleWrites")
}

func TestOfferWithConfirmAndJourney(t *testing.T) {
	v := freshApp(t, nil)
	p := v.port(t, PortOptions{})
	// The offer gate runs before the confirm gate: no ask without an offer.
	_, m := pcall(t, p, "doc.do_action", `{"action":"edit.publish"}`)
	assert.Equal(t, ReasonOfferRequired, m["reason"])
	assert.Empty(t, v.app.Asks())
	_, m = pcall(t, p, "doc.whats_here", `{}`)
	pub := rowOf(t, m, "actions", "edit.publish")["offerId"].(string)
	_, m = pcall(t, p, "doc.do_action", `{"action":"edit.publish","offerId":"`+pub+`"}`)
	require.Equal(t, "needs-confirm", m["judgment"])
	// The needs-confirm did not use the offer up.
	r, m := pcall(t, p, "doc.do_action", `{"action":"edit.publish","offerId":"`+pub+`","confirm":true}`)
	require.Equal(t, true, m["ok"], "%s", r.JSON())
	waitSettled(t, v.app, r.TransitionID())

	// A journey's ready step carries its offer, and the step must cite it.
	_, m = pcall(t, p, "doc.journey.write", `{}`)
	step := rowOf(t, m, "readySteps", "edit.save")
	id, _ := step["offerId"].(string)
	require.NotEmpty(t, id, "%v", step)
	_, m = pcall(t, p, "doc.journey.write", `{"step":"save"}`)
	assert.Equal(t, ReasonOfferRequired, m["reason"])
	assert.Equal(t, "edit.save", m["step"])
	assert.Equal(t, "write", m["journey"])
	r, m = pcall(t, p, "doc.journey.write", `{"step":"save","offerId":"`+id+`"}`)
	require.Equal(t, true, m["ok"], "%s", r.JSON())

	// offerId must be a string.
	_, m = pcall(t, p, "doc.do_action", `{"action":"edit.save","offerId":1}`)
	assert.Equal(t, ReasonInvalidArguments, m["reason"])
	assert.Contains(t, m["error"], "offerId must be a string")
	// An action without cite ignores an offerId.
	r, m = pcall(t, p, "doc.do_action", `{"action":"edit.plain","offerId":"offer#77"}`)
	require.Equal(t, true, m["ok"], "%s", r.JSON())
}

func TestOfferLedgerIsBounded(t *testing.T) {
	v := freshApp(t, nil)
	_, err := NewPort(v.app, PortOptions{OfferLedger: -1})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "serve: NewPort: offerLedger -1 is negative")

	p := v.port(t, PortOptions{OfferLedger: 2})
	_, m := pcall(t, p, "doc.whats_here", `{}`)
	first := rowOf(t, m, "actions", "edit.save")["offerId"].(string) // offer#1
	assert.Equal(t, "offer#2", rowOf(t, m, "actions", "edit.publish")["offerId"])
	// Retire save's offer three times; each whats_here mints one more.
	ids := []string{first}
	for i := range 3 {
		require.NoError(t, v.app.Patch(State{"draft.saved": float64(i)}, PrincipalUser))
		_, m = pcall(t, p, "doc.whats_here", `{}`)
		ids = append(ids, rowOf(t, m, "actions", "edit.save")["offerId"].(string))
	}
	// offer#2 (publish's) still covers only draft… and draft.saved is in it:
	// it is retired too, so each whats_here mints two.
	assert.Equal(t, []string{"offer#1", "offer#3", "offer#5", "offer#7"}, ids)
	p.mu.Lock()
	assert.Len(t, p.offers, 2, "the ledger holds two")
	assert.Equal(t, []string{"offer#7", "offer#8"}, p.offerOrder)
	p.mu.Unlock()
	// The evicted offer is unknown, however fresh its keys would be.
	_, m = pcall(t, p, "doc.do_action", `{"action":"edit.save","offerId":"offer#5"}`)
	assert.Equal(t, ReasonOfferUnknown, m["reason"])
	r, m := pcall(t, p, "doc.do_action", `{"action":"edit.save","offerId":"offer#7"}`)
	require.Equal(t, true, m["ok"], "%s", r.JSON())

	// Evicted but still the action's newest: the row mints a fresh one.
	p2 := v.port(t, PortOptions{OfferLedger: 1})
	_, m = pcall(t, p2, "doc.whats_here", `{}`)
	assert.Equal(t, "offer#2", rowOf(t, m, "actions", "edit.publish")["offerId"])
	_, m = pcall(t, p2, "doc.do_action", `{"action":"edit.save","offerId":"offer#1"}`)
	assert.Equal(t, ReasonOfferUnknown, m["reason"], "offer#1 was evicted by offer#2")
	_, m = pcall(t, p2, "doc.whats_here", `{}`)
	assert.Equal(t, "offer#3", rowOf(t, m, "actions", "edit.save")["offerId"])

	// The default is 500.
	p3 := v.port(t, PortOptions{})
	assert.Equal(t, DefaultOfferLedger, p3.offerCap)
	assert.Equal(t, 500, DefaultOfferLedger)
}

func TestToolSchemasTakeOfferID(t *testing.T) {
	v := freshApp(t, nil)
	p := v.port(t, PortOptions{})
	assert.Equal(t, []string{"step", "input", "confirm", "decline", "offerId"}, schemaProps(t, p, "doc.journey.write"))
	assert.Equal(t, []string{"action", "input", "confirm", "decline", "offerId"}, schemaProps(t, p, "doc.do_action"))
	assert.Equal(t, []string{"sinceVersion"}, schemaProps(t, p, "doc.whats_here"))
	assert.NotContains(t, string(p.ToolsJSON()), `"instance"`)
	// Both: instance before offerId.
	both := newV2(t, `{"id":"g","pages":[{"id":"p","areas":[{"id":"r","repeats":true}]}],
	 "actions":[{"id":"p.r.x","on":"p","freshness":"cite"}],"journeys":[{"id":"j","steps":["p.r.x"]}]}`, AppOptions{}, nil)
	bp := both.port(t, PortOptions{JourneyTools: JourneyToolsSingle})
	assert.Equal(t, []string{"journey", "step", "input", "confirm", "decline", "instance", "offerId"}, schemaProps(t, bp, "g.journey"))
	assert.Equal(t, []string{"action", "input", "confirm", "decline", "instance", "offerId"}, schemaProps(t, bp, "g.do_action"))
	// A track-only graph takes no offerId.
	track := newV2(t, `{"id":"g","pages":[{"id":"p"}],"actions":[{"id":"p.x","on":"p","freshness":"track","reads":["k"]}]}`, AppOptions{}, nil)
	tp := track.port(t, PortOptions{})
	assert.Equal(t, []string{"action", "input", "confirm", "decline"}, schemaProps(t, tp, "g.do_action"))
}

func TestAnOfferOlderThanTheLogIsUnknown(t *testing.T) {
	// The log keeps the last maxLog events at least: an offer from before
	// what it holds cannot be checked, so it is refused, not trusted.
	v := freshApp(t, nil)
	p := v.port(t, PortOptions{})
	_, m := pcall(t, p, "doc.whats_here", `{}`)
	old := rowOf(t, m, "actions", "edit.save")["offerId"].(string)
	require.NoError(t, v.app.Patch(State{"draft.body": "edited"}, PrincipalUser)) // moves it…
	for i := range 2 * maxLog {
		require.NoError(t, v.app.Patch(State{"noise": float64(i)}, PrincipalSystem)) // …then falls out of the log
	}
	v.app.mu.Lock()
	require.Greater(t, v.app.log[0].version, int64(2), "the edit was trimmed away")
	v.app.mu.Unlock()
	_, m = pcall(t, p, "doc.do_action", `{"action":"edit.save","offerId":"`+old+`"}`)
	assert.Equal(t, ReasonOfferUnknown, m["reason"])
	// whats_here hands out a fresh one that works.
	_, m = pcall(t, p, "doc.whats_here", `{}`)
	fresh := rowOf(t, m, "actions", "edit.save")["offerId"].(string)
	assert.NotEqual(t, old, fresh)
	r, m := pcall(t, p, "doc.do_action", `{"action":"edit.save","offerId":"`+fresh+`"}`)
	require.Equal(t, true, m["ok"], "%s", r.JSON())
	waitSettled(t, v.app, r.TransitionID())
}

func TestAFullLedgerForgetsRetiredOffersFirst(t *testing.T) {
	v := freshApp(t, nil)
	p := v.port(t, PortOptions{OfferLedger: 2})
	_, m := pcall(t, p, "doc.whats_here", `{}`)
	require.Equal(t, "offer#1", rowOf(t, m, "actions", "edit.save")["offerId"])
	require.Equal(t, "offer#2", rowOf(t, m, "actions", "edit.publish")["offerId"])
	// The title moves: publish (which reads all of draft) gets offer#3; save's
	// offer#1 still stands. The ledger is over its bound by one, and it forgets
	// publish's retired offer#2, not save's offer#1, the older one.
	require.NoError(t, v.app.Patch(State{"draft.title": "U"}, PrincipalUser))
	_, m = pcall(t, p, "doc.whats_here", `{}`)
	assert.Equal(t, "offer#1", rowOf(t, m, "actions", "edit.save")["offerId"])
	assert.Equal(t, "offer#3", rowOf(t, m, "actions", "edit.publish")["offerId"])
	p.mu.Lock()
	assert.Equal(t, []string{"offer#1", "offer#3"}, p.offerOrder)
	p.mu.Unlock()
	r, m := pcall(t, p, "doc.do_action", `{"action":"edit.save","offerId":"offer#1"}`)
	require.Equal(t, true, m["ok"], "%s", r.JSON())
}
