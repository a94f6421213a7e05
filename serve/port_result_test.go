// Tests of results (fixed key order, With, the encoder) and of the reason
// vocabulary, plus the fuzz test of call()'s argument parsing.

package serve

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResultOrderAndWith(t *testing.T) {
	r := newResult("version", int64(3), "transitionId", "a.b#1", "ok", true, "zzz", "x", "did", "a.b")
	assert.Equal(t, `{"ok":true,"did":"a.b","transitionId":"a.b#1","zzz":"x","version":3}`, r.String())
	r2 := r.With("effectStatus", "performed").With("settleWith", Obj{{"tool", "t"}}).With("zzz", nil)
	assert.Equal(t, `{"ok":true,"did":"a.b","transitionId":"a.b#1","effectStatus":"performed","settleWith":{"tool":"t"},"version":3}`, r2.String())
	assert.Equal(t, `{"ok":true,"did":"a.b","transitionId":"a.b#1","zzz":"x","version":3}`, r.String(), "With copies")
	r3 := r2.With("settleWith", nil)
	assert.Equal(t, []string{"ok", "did", "transitionId", "effectStatus", "version"}, r3.Keys())
	assert.True(t, r3.OK())
	assert.Equal(t, "a.b#1", r3.TransitionID())
	assert.Empty(t, r3.Reason())
	v, ok := r3.Get("version")
	assert.True(t, ok)
	assert.Equal(t, int64(3), v)
	assert.False(t, Result{}.OK())
	assert.Equal(t, "{}", Result{}.String())
}

func TestAppendAnyTypes(t *testing.T) {
	v := Obj{
		{"objs", []Obj{{{"a", 1}}, {}}},
		{"any", []any{Obj{{"b", true}}, "s", nil}},
		{"strs", []string{"x", "y\"z"}},
		{"cond", Condition{Key: "k", Op: "truthy"}},
		{"conds", []Condition{{Key: "k", Op: "eq", Value: 1.0}}},
		{"i64", int64(-7)},
		{"nan", math.NaN()},
		{"inf", math.Inf(1)},
		{"raw", json.RawMessage(`{"r":1}`)},
		{"emptyraw", json.RawMessage(nil)},
		{"who", PrincipalAgent},
		{"map", map[string]any{"b": 1.0, "a": []any{2.5}}},
	}
	out := v.AppendJSON(nil)
	require.True(t, json.Valid(out), "%s", out)
	var m map[string]any
	require.NoError(t, json.Unmarshal(out, &m))
	assert.Equal(t, []any{map[string]any{"a": 1.0}, map[string]any{}}, m["objs"])
	assert.Nil(t, m["nan"])
	assert.Nil(t, m["inf"])
	assert.Equal(t, "agent", m["who"])
	assert.Equal(t, map[string]any{"a": []any{2.5}, "b": 1.0}, m["map"])
	o := Obj{}.Set("a", 1).Set("b", 2).Set("a", nil).Set("c", nil)
	assert.Equal(t, `{"b":2}`, string(o.AppendJSON(nil)))
}

func TestEveryReasonHasAWhy(t *testing.T) {
	reasons := []string{
		ReasonUnknownTool, ReasonJourneyRequired, ReasonUnknownJourney, ReasonUnknownStep, ReasonActionRequired,
		ReasonUnknownAction, ReasonAmbiguousAction, ReasonKeyRequired, ReasonTransitionIDRequired,
		ReasonUnknownTransition, ReasonInvalidArguments, ReasonArgumentsTooLarge, ReasonInternal, ReasonPortClosed,
		ReasonPreconditionFailed, ReasonNotOnPage, ReasonNotOffered, ReasonPayloadInvalid, ReasonToolDisabled,
		ReasonNotMaterialized, ReasonStepDone, ReasonStepInFlight, ReasonStepNotReady, ReasonApprovalDeclined,
		ReasonApprovalRequired, ReasonApprovalMismatch, ReasonApprovalSpent, ReasonApprovalRevoked, ReasonApprovalStale,
		ReasonInstanceRequired, ReasonInstanceUnknown, ReasonStillMounting, ReasonOfferRequired, ReasonOfferUnknown,
		ReasonStaleOffer, ReasonDuplicateExecution, ReasonPriorFirePending, ReasonUnknownPage,
		ReasonApprovalNotYours, ReasonAskIDRequired, ReasonAskUnknown,
	}
	assert.Len(t, whys, len(reasons))
	for _, r := range reasons {
		w, ok := whys[r]
		assert.True(t, ok, r)
		assert.Contains(t, strings.ToLower(w), "nothing was performed", r)
	}
	assert.Equal(t, "Nothing was performed.", whyOf("NOPE"))
}

func TestPrincipalOr(t *testing.T) {
	assert.Equal(t, PrincipalUser, principalOr("", PrincipalUser))
	assert.Equal(t, PrincipalSystem, principalOr(PrincipalSystem, PrincipalUser))
	assert.Equal(t, PrincipalUnknown, principalOr("robot", PrincipalUser))
}

func FuzzPortCall(f *testing.F) {
	for _, s := range []string{``, `{}`, `null`, `{"step":"pay","confirm":true}`, `{"journey":"buy"}`,
		`{"action":"clear","decline":true}`, `{"sinceVersion":1e300}`, `{"transitionId":"ask#1"}`,
		`{"key":"cart.items"}`, `[`, `{"input":{"amount":[1,{"x":null}]}}`, "\x00"} {
		for _, tool := range []string{"shop.journey.buy", "shop.journey", "shop.whats_here", "shop.why", "shop.do_action", "shop.did_it_work"} {
			f.Add(tool, s)
		}
	}
	s := newShop(f, AppOptions{Page: "cart"})
	per := s.port(f, PortOptions{})
	single := s.port(f, PortOptions{JourneyTools: "single"})
	f.Fuzz(func(t *testing.T, tool, args string) {
		for _, p := range []*Port{per, single} {
			r := p.Call(context.Background(), tool, []byte(args))
			checkResult(t, r)
			if id := r.TransitionID(); id != "" {
				waitSettled(t, s.app, id)
			}
		}
	})
}
