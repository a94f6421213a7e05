// The port snapshot: the ask journal taken and restored into an app over
// the same graph keeps each ask's id, card, caller and expiry, so the
// trust rules hold across the restore; a snapshot that does not belong is
// refused before anything is made.

package serve

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// restored is a shop made anew from a snapshot, with the port restored
// from it (own) and a port that is a new caller (fresh).
type restored struct {
	s          *shop
	own, fresh *Port
}

func restoreShop(t *testing.T, snap []byte) restored {
	t.Helper()
	s := newShop(t, AppOptions{Page: "checkout", RequireHumanApproval: ptrBool(true), Restore: snap})
	return restored{s: s, own: s.port(t, PortOptions{Restore: snap}), fresh: s.port(t, PortOptions{})}
}

func callerA(p *Port) approvalCaller { return portAs(p, WithCaller(context.Background(), "A")) }

func TestSnapshotTrustAcrossRestore(t *testing.T) {
	for _, tc := range []struct {
		name string
		// before raises the ask on the old app (p1 is its port) and
		// returns its id.
		before func(t *testing.T, g gatedCheckout) string
		// state is the ask's state right after the restore.
		state string
		after func(t *testing.T, r restored, askID string)
	}{
		{
			name:   "a pending ask approved after the restore backs its caller's fire once",
			before: func(t *testing.T, g gatedCheckout) string { return callerA(g.p1)(t, pay12)["askId"].(string) },
			state:  "pending",
			after: func(t *testing.T, r restored, askID string) {
				require.NoError(t, r.s.app.ApproveAsk(askID, "pat"))
				m := callerA(r.own)(t, confirm12)
				require.Equal(t, "performed", m["effectStatus"], "%v", m)
				assert.Equal(t, askID, m["askId"])
				require.NoError(t, r.s.app.Navigate("checkout", PrincipalUser))
				m = callerA(r.own)(t, cite(confirm12, askID))
				assert.Equal(t, ReasonApprovalSpent, m["reason"], "%v", m)
				assert.Len(t, r.s.app.Transitions(), 1, "one fire for one approval")
			},
		},
		{
			name:   "another caller may not use it",
			before: func(t *testing.T, g gatedCheckout) string { return callerA(g.p1)(t, pay12)["askId"].(string) },
			state:  "pending",
			after: func(t *testing.T, r restored, askID string) {
				require.NoError(t, r.s.app.ApproveAsk(askID, "pat"))
				b := portAs(r.own, WithCaller(context.Background(), "B"))
				m := b(t, cite(confirm12, askID))
				assert.Equal(t, ReasonApprovalNotYours, m["reason"], "%v", m)
				m = callerA(r.fresh)(t, confirm12) // the same name on another port is the same caller
				require.Equal(t, "performed", m["effectStatus"], "%v", m)
			},
		},
		{
			name: "the port's own ask is the restored port's",
			before: func(t *testing.T, g gatedCheckout) string {
				return portAs(g.p1, context.Background())(t, pay12)["askId"].(string)
			},
			state: "pending",
			after: func(t *testing.T, r restored, askID string) {
				require.NoError(t, r.s.app.ApproveAsk(askID, "pat"))
				m := portAs(r.fresh, context.Background())(t, cite(confirm12, askID))
				assert.Equal(t, ReasonApprovalNotYours, m["reason"], "a new port is another caller: %v", m)
				m = portAs(r.own, context.Background())(t, confirm12)
				require.Equal(t, "performed", m["effectStatus"], "%v", m)
				assert.Equal(t, askID, m["askId"])
			},
		},
		{
			name: "an approved ask stays approved until it lapses",
			before: func(t *testing.T, g gatedCheckout) string {
				return g.askFor(t, callerA(g.p1))
			},
			state: "approved",
			after: func(t *testing.T, r restored, askID string) {
				r.s.advance(DefaultApprovalTTL - time.Second)
				m := callerA(r.own)(t, cite(confirm12, askID))
				require.Equal(t, "performed", m["effectStatus"], "%v", m)
			},
		},
		{
			name: "an approved ask past its expiry is expired",
			before: func(t *testing.T, g gatedCheckout) string {
				return g.askFor(t, callerA(g.p1))
			},
			state: "approved",
			after: func(t *testing.T, r restored, askID string) {
				r.s.advance(DefaultApprovalTTL)
				info, _ := r.s.app.Ask(askID)
				assert.Equal(t, "expired", info.State)
				assert.Error(t, r.s.app.ApproveAsk(askID, "pat"), "approving fails as it would have")
				m := callerA(r.own)(t, cite(confirm12, askID))
				assert.Equal(t, ReasonApprovalStale, m["reason"], "%v", m)
				assert.Empty(t, r.s.app.Transitions())
			},
		},
		{
			name: "an approval used before the snapshot is not usable after",
			before: func(t *testing.T, g gatedCheckout) string {
				id := g.askFor(t, callerA(g.p1))
				require.Equal(t, "performed", callerA(g.p1)(t, confirm12)["effectStatus"])
				return id
			},
			state: "used",
			after: func(t *testing.T, r restored, askID string) {
				m := callerA(r.own)(t, cite(confirm12, askID))
				assert.Equal(t, ReasonApprovalSpent, m["reason"], "%v", m)
				assert.Error(t, r.s.app.ApproveAsk(askID, "pat"))
				assert.Empty(t, r.s.app.Transitions())
			},
		},
		{
			name: "a declined ask stays declined",
			before: func(t *testing.T, g gatedCheckout) string {
				id := callerA(g.p1)(t, pay12)["askId"].(string)
				require.NoError(t, g.s.app.DeclineAsk(id, "pat"))
				return id
			},
			state: "declined",
			after: func(t *testing.T, r restored, askID string) {
				assert.Error(t, r.s.app.ApproveAsk(askID, "pat"))
				m := callerA(r.own)(t, cite(confirm12, askID))
				assert.Equal(t, ReasonApprovalDeclined, m["reason"], "%v", m)
				m = callerA(r.own)(t, `{"action":"checkout.pay","decline":true}`)
				assert.Contains(t, m["why"], "The person already declined this", "%v", m)
				assert.Empty(t, r.s.app.Transitions())
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGatedCheckout(t)
			askID := tc.before(t, g)
			snap, err := g.p1.Snapshot()
			require.NoError(t, err)
			r := restoreShop(t, snap)
			before, _ := g.s.app.Ask(askID)
			after, ok := r.s.app.Ask(askID)
			require.True(t, ok, "the ask keeps its id")
			assert.Equal(t, tc.state, after.State)
			assert.Equal(t, before.Caller, after.Caller, "the ask keeps its caller")
			assert.Equal(t, before.Action, after.Action)
			assert.Equal(t, before.Does, after.Does)
			assert.Equal(t, before.Input, after.Input)
			assert.Equal(t, before.AnsweredBy, after.AnsweredBy)
			assert.True(t, before.CreatedAt.Equal(after.CreatedAt))
			tc.after(t, r, askID)
		})
	}
}

func TestSnapshotDocument(t *testing.T) {
	g := newGatedCheckout(t)
	id := callerA(g.p1)(t, pay12)["askId"].(string)
	snap, err := g.p1.Snapshot()
	require.NoError(t, err)
	doc, err := ParseValue(snap)
	require.NoError(t, err)
	m := doc.(map[string]any)
	assert.Equal(t, PortSnapshotFormat, m["format"])
	assert.Equal(t, float64(1), m["version"])
	assert.Equal(t, g.s.app.Graph().Digest(), m["graph"])
	assert.True(t, strings.HasPrefix(m["graph"].(string), "fnv1a128:"))
	assert.Equal(t, map[string]any{
		"id": id, "action": "checkout.pay", "does": "Pay for the order.", "input": map[string]any{"amount": float64(12)},
		"state": "pending", "caller": "caller:A", "askedBy": "agent", "createdAt": float64(g.s.now().UnixMilli()),
	}, m["asks"].([]any)[0])
	appSnap, err := g.s.app.Snapshot()
	require.NoError(t, err)
	assert.NotContains(t, string(appSnap), `"caller":"port:`, "the app's snapshot names no port")
	assert.NotContains(t, string(snap), "cart.items", "the app's own state is not in it")
}

func TestGraphDigest(t *testing.T) {
	a := mustGraph(t, `{"id":"g","pages":[{"id":"p"}],"actions":[{"id":"p.a","does":"A.","on":"p"}]}`)
	b := mustGraph(t, "{ \"actions\":[{\"on\":\"p\",\"does\":\"A.\",\"id\":\"p.a\"}],\n \"pages\":[{\"id\":\"p\"}], \"id\":\"g\"}")
	c := mustGraph(t, `{"id":"g","pages":[{"id":"p"}],"actions":[{"id":"p.a","does":"B.","on":"p"}]}`)
	assert.Equal(t, a.Digest(), b.Digest(), "whitespace and key order do not change it")
	assert.NotEqual(t, a.Digest(), c.Digest())
	assert.Len(t, a.Digest(), len("fnv1a128:")+32)
}

func TestSnapshotRefused(t *testing.T) {
	g := newGatedCheckout(t)
	callerA(g.p1)(t, pay12)
	snap, err := g.p1.Snapshot()
	require.NoError(t, err)
	good := string(snap)
	other, err := NewApp(mustGraph(t, strings.Replace(appShopGraph, "Pay for the order.", "Pay.", 1)), AppOptions{})
	require.NoError(t, err)
	otherSnap, err := other.Snapshot()
	require.NoError(t, err)
	for _, tc := range []struct {
		name, snap, says string
	}{
		{"another format", strings.Replace(good, PortSnapshotFormat, "agentwasm.session", 1), `format is "agentwasm.session"`},
		{"no format", `{"version":1}`, "format is missing"},
		{"an unknown version", strings.Replace(good, `"version":1`, `"version":2`, 1), "version 2 is unknown"},
		{"version zero", strings.Replace(good, `"version":1`, `"version":0`, 1), "version 0 is unknown"},
		{"a version that is a string", strings.Replace(good, `"version":1`, `"version":"1"`, 1), `version "1" is unknown`},
		{"corrupt JSON", good[:len(good)-3], "not JSON"},
		{"not an object", `[1]`, "must be a JSON object"},
		{"a different graph", string(otherSnap), "another graph"},
		{"an ask whose action the graph lacks", strings.Replace(good, `"action":"checkout.pay"`, `"action":"checkout.refund"`, 1), `action "checkout.refund" is not declared`},
		{"an unknown state", strings.Replace(good, `"state":"pending"`, `"state":"granted"`, 1), `state "granted"`},
		{"not an ask id", strings.Replace(good, `"id":"ask_`, `"id":"t_`, 1), "is not an ask id"},
		{"an approved ask without its expiry", strings.Replace(good, `"state":"pending"`, `"state":"approved"`, 1), "expiresAt must be an integer"},
		{"asks missing", strings.Replace(good, `"asks":`, `"asks_":`, 1), "asks must be an array"},
		{"an ask twice", strings.Replace(good, `"asks":[{`, `"asks":[`+askOf(good)+`,{`, 1), "appears twice"},
		{"oversize", good[:len(good)-1] + `,"pad":"` + strings.Repeat("x", MaxSnapshotSize) + `"}`, "more than the"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &shop{clock: time.Now()}
			app, err := NewApp(mustGraph(t, appShopGraph), AppOptions{Restore: []byte(tc.snap), Now: s.now})
			require.Error(t, err)
			assert.Nil(t, app, "nothing is made")
			assert.True(t, errors.Is(err, ErrBadSnapshot), "%v", err)
			assert.Contains(t, err.Error(), tc.says)
			assert.True(t, strings.HasPrefix(err.Error(), "serve: bad port snapshot: "), err.Error())
		})
	}
	t.Run("a port restored from another graph's snapshot", func(t *testing.T) {
		_, err := NewPort(g.s.app, PortOptions{Restore: otherSnap})
		assert.ErrorIs(t, err, ErrBadSnapshot)
	})
}

// askOf returns the ask object of a snapshot's text holding one ask.
func askOf(snap string) string {
	i := strings.Index(snap, `"asks":[`) + len(`"asks":[`)
	return snap[i:strings.LastIndex(snap, "]")]
}

// journeyGraph is a journey whose second step needs confirming.
const journeyGraph = `{"id":"pub","pages":[{"id":"edit"}],
 "actions":[{"id":"edit.open","does":"Open the review.","on":"edit"},{"id":"edit.publish","does":"Publish.","on":"edit","confirm":true}],
 "journeys":[{"id":"go","does":"Open the review, then publish.","steps":["edit.open","edit.publish"]}]}`

// TestSnapshotKeepsTheOpenJourney: a port restored from a snapshot taken
// after a journey's first step has that journey open with the step done, so
// its second step is ready (here: it asks to be confirmed) where a port
// without the snapshot answers STEP_NOT_READY.
func TestSnapshotKeepsTheOpenJourney(t *testing.T) {
	noApproval := AppOptions{RequireHumanApproval: ptrBool(false)}
	v := newV2(t, journeyGraph, noApproval, nil)
	p, err := NewPort(v.app, PortOptions{})
	require.NoError(t, err)
	r, m := pcall(t, p, "pub.journey.go", `{"step":"open"}`)
	require.Equal(t, true, m["ok"], "%s", r.JSON())
	waitSettled(t, v.app, r.TransitionID())
	snap, err := p.Snapshot()
	require.NoError(t, err)
	assert.Contains(t, string(snap), `"journey":{"id":"go","done":[true,false]}`)

	restoredOpts := noApproval
	restoredOpts.Restore = snap
	w := newV2(t, journeyGraph, restoredOpts, nil)
	own, err := NewPort(w.app, PortOptions{Restore: snap})
	require.NoError(t, err)
	_, m = pcall(t, own, "pub.journey.go", `{"step":"publish"}`)
	assert.Equal(t, JudgmentNeedsConfirm, m["judgment"], "the step is ready: it asks to be confirmed")
	_, m = pcall(t, own, "pub.journey.go", `{"step":"open"}`)
	assert.Equal(t, ReasonStepDone, m["reason"], "the first step stays done")

	fresh, err := NewPort(w.app, PortOptions{})
	require.NoError(t, err)
	_, m = pcall(t, fresh, "pub.journey.go", `{"step":"publish"}`)
	assert.Equal(t, ReasonStepNotReady, m["reason"], "without the snapshot the journey starts over")

	for _, bad := range []string{
		`"journey":{"id":"nope","done":[true]}`,
		`"journey":{"id":"go","done":[true]}`,
		`"journey":{"id":"go","done":[true,"no"]}`,
		`"journey":[1]`,
	} {
		doc := strings.Replace(string(snap), `"journey":{"id":"go","done":[true,false]}`, bad, 1)
		_, err := NewPort(w.app, PortOptions{Restore: []byte(doc)})
		assert.ErrorIs(t, err, ErrBadSnapshot, bad)
	}
}
