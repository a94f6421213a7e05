// Edge cases of the port and the app session that a spec review turned up:
// the settlement fold and the journey frame, ungated sources, standing
// grants never swapping the caller's input, the confirm field of an ungated
// port, receipts that always carry recent steps, a host clock that panics,
// and bounded echoes.

package serve

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stepIDs lists the "step" of each row of a frame view list.
func stepIDs(t *testing.T, v any) []string {
	t.Helper()
	rows, ok := v.([]any)
	require.True(t, ok, "a list of rows: %v", v)
	var out []string
	for _, r := range rows {
		out = append(out, r.(map[string]any)["step"].(string))
	}
	return out
}

func TestSettlementFoldRefreshesJourneyFrame(t *testing.T) {
	s := newShop(t, AppOptions{Page: "cart"})
	p := s.port(t, PortOptions{})
	r := CallSettled(context.Background(), p, "shop.journey.buy", []byte(`{"step":"checkout"}`), 5*time.Second)
	m := checkResult(t, r)
	require.Equal(t, "performed", m["effectStatus"], "%s", r)
	assert.Equal(t, "one-ready-step", m["judgment"], "the view is the one after the step settled: %s", r)
	assert.Equal(t, []string{"checkout.pay"}, stepIDs(t, m["readySteps"]), "%s", r)
	assert.Empty(t, m["laterSteps"], "no step is shown in flight once it settled: %s", r)
	assert.Equal(t, []any{"cart.checkout"}, m["doneSteps"], "%s", r)

	r = CallSettled(context.Background(), p, "shop.journey.buy", []byte(`{"step":"pay","input":{"amount":2},"confirm":true}`), 5*time.Second)
	m = checkResult(t, r)
	require.Equal(t, "performed", m["effectStatus"], "%s", r)
	assert.Equal(t, "done", m["judgment"], "%s", r)
	assert.Equal(t, "completed", m["frame"], "%s", r)
	assert.NotContains(t, m, "readySteps", "%s", r)
	assert.NotContains(t, m, "laterSteps", "%s", r)
	assert.NotContains(t, m, "settleWith", "%s", r)

	// The frame closed: calling the journey again opens it afresh.
	_, m = pcall(t, p, "shop.journey.buy", "")
	assert.Equal(t, "opened", m["frame"])
}

func TestSettlementFoldMissKeepsPendingView(t *testing.T) {
	s := newShop(t, AppOptions{Page: "cart"}, "cart.checkout")
	defer s.release("cart.checkout")
	p := s.port(t, PortOptions{})
	r := CallSettled(context.Background(), p, "shop.journey.buy", []byte(`{"step":"checkout"}`), 20*time.Millisecond)
	m := checkResult(t, r)
	assert.Equal(t, "pending", m["effectStatus"])
	assert.Contains(t, m, "settleWith")
	assert.Equal(t, []string{"cart.checkout", "checkout.pay"}, stepIDs(t, m["laterSteps"]))
}

func TestUnknownSourcePortWarnsUngated(t *testing.T) {
	s := newShop(t, AppOptions{Page: "cart", RequireHumanApproval: ptrBool(true)})
	p := s.port(t, PortOptions{Source: PrincipalUnknown})
	w := s.warns()
	require.Len(t, w, 1, "a port whose fires the gate lets through is announced")
	assert.Equal(t, WarnUngatedPort, w[0].Code)
	assert.Contains(t, w[0].Message, `"unknown"`)
	js := string(p.ToolsJSON())
	assert.NotContains(t, js, "requires a person's approval", "its confirm field claims no gate")
	assert.Contains(t, js, "not gated")
	// And it is in fact ungated.
	_, m := pcall(t, p, "shop.do_action", `{"action":"clear","confirm":true}`)
	require.Equal(t, true, m["ok"], "%v", m)
	require.Contains(t, m, "transitionId")
}

func TestConfirmFieldOfUngatedPortThatDoesNotAsk(t *testing.T) {
	s := newShop(t, AppOptions{Page: "cart", RequireHumanApproval: ptrBool(true)})
	p := s.port(t, PortOptions{Source: PrincipalUser, ConfirmHighEffect: ptrBool(false)})
	js := string(p.ToolsJSON())
	assert.Contains(t, js, confirmNotNeeded)
	assert.NotContains(t, js, confirmNotGated, "confirm is not needed at all, so it does not say to set it")
	_, m := pcall(t, p, "shop.do_action", `{"action":"clear"}`)
	require.Equal(t, true, m["ok"], "%v", m)
}

func TestStandingGrantKeepsCallersInput(t *testing.T) {
	s := newShop(t, AppOptions{Page: "checkout", RequireHumanApproval: ptrBool(true)})
	p := s.port(t, PortOptions{})
	_, m := pcall(t, p, "shop.do_action", `{"action":"pay","input":{"amount":5}}`)
	require.Equal(t, "needs-confirm", m["judgment"])
	askID := m["askId"].(string)
	require.NoError(t, s.app.AlwaysApprove("checkout.pay", "ann", 0))

	fr := s.app.Fire(context.Background(), "checkout.pay", FireOptions{Source: PrincipalAgent, Input: map[string]any{"amount": 9.0}, AskID: askID})
	require.True(t, fr.OK, "%+v", fr)
	assert.Empty(t, fr.UsedAsk, "an ask for another input is not used up")
	info := waitSettled(t, s.app, fr.TransitionID)
	assert.Equal(t, map[string]any{"amount": 9.0}, info.Input, "the grant runs what was called, not the ask's input")
	k, _ := s.app.Ask(askID)
	assert.Equal(t, "pending", k.State)

	// The same input does use the ask up.
	s.app.mu.Lock()
	s.app.page = "checkout"
	s.app.mu.Unlock()
	fr = s.app.Fire(context.Background(), "checkout.pay", FireOptions{Source: PrincipalAgent, Input: map[string]any{"amount": 5.0}, AskID: askID})
	require.True(t, fr.OK, "%+v", fr)
	assert.Equal(t, askID, fr.UsedAsk)
}

func TestNeedsConfirmAlwaysCarriesRecentSteps(t *testing.T) {
	s := newShop(t, AppOptions{Page: "cart"})
	p := s.port(t, PortOptions{})
	_, m := pcall(t, p, "shop.do_action", `{"action":"clear"}`)
	require.Equal(t, "needs-confirm", m["judgment"])
	assert.Equal(t, []any{}, m["recentSteps"], "present, and empty before anything was fired")
	_, m = pcall(t, p, "shop.do_action", `{"action":"apply_coupon","input":{"code":"X"}}`)
	require.Equal(t, true, m["ok"])
	waitSettled(t, s.app, m["transitionId"].(string))
	_, m = pcall(t, p, "shop.do_action", `{"action":"clear"}`)
	require.Equal(t, "needs-confirm", m["judgment"], "%v", m)
	assert.Equal(t, []string{"cart.summary.apply_coupon"}, stepIDs(t, m["recentSteps"]), "do_action's receipts show the session's last fires")

	// In a journey they are the journey's steps, not the session's fires.
	s2 := newShop(t, AppOptions{Page: "cart"})
	p2 := s2.port(t, PortOptions{})
	_, m = pcall(t, p2, "shop.do_action", `{"action":"apply_coupon","input":{"code":"X"}}`)
	waitSettled(t, s2.app, m["transitionId"].(string))
	_, m = pcall(t, p2, "shop.journey.buy", `{"step":"checkout"}`)
	waitSettled(t, s2.app, m["transitionId"].(string))
	_, m = pcall(t, p2, "shop.journey.buy", `{"step":"pay","input":{"amount":1}}`)
	require.Equal(t, "needs-confirm", m["judgment"], "%v", m)
	assert.Equal(t, []string{"cart.checkout"}, stepIDs(t, m["recentSteps"]))
}

func TestPanickingClockNeitherEscapesNorLocks(t *testing.T) {
	var panicNow atomic.Bool
	s := newShop(t, AppOptions{Page: "cart", Now: func() time.Time {
		if panicNow.Load() {
			panic("clock broke")
		}
		return time.Unix(1, 0)
	}})
	p := s.port(t, PortOptions{})
	panicNow.Store(true)
	done := make(chan Result, 1)
	go func() {
		r := p.Call(context.Background(), "shop.do_action", []byte(`{"action":"apply_coupon","input":{"code":"X"}}`))
		r2 := p.Call(context.Background(), "shop.whats_here", nil)
		done <- r.With("next", r2.JSON())
	}()
	select {
	case r := <-done:
		assert.True(t, r.OK(), "%s", r)
		assert.NotEmpty(t, r.TransitionID(), "%s", r)
		assert.True(t, strings.Contains(r.String(), `"youAreOn"`))
	case <-time.After(5 * time.Second):
		t.Fatal("the session stayed locked after the clock panicked")
	}
}

// A refusal echoes what the model sent, but never more than maxEchoText
// bytes of it.
func TestErrorResultEchoIsCapped(t *testing.T) {
	huge := strings.Repeat("é", 100_000)
	r := errorResult(ReasonUnknownAction, "action", huge, "actions", []string{"a.b"})
	v, _ := r.Get("action")
	s, _ := v.(string)
	assert.LessOrEqual(t, len(s), maxEchoText)
	assert.True(t, utf8.ValidString(s), "cut on a rune boundary")
	assert.Less(t, len(r.JSON()), 2_000)
}

// A model that asks in a loop (a new input each time) cannot grow the ask
// journal without bound: the oldest asks are forgotten, the newest kept.
func TestAskJournalIsBounded(t *testing.T) {
	pay := func(context.Context, HandlerCall) (any, error) { return nil, nil }
	app, err := NewApp(mustGraph(t, appShopGraph), AppOptions{Page: "checkout", RequireHumanApproval: ptrBool(true),
		Handlers: map[string]Handler{"checkout.pay": pay}})
	require.NoError(t, err)
	p, err := NewPort(app, PortOptions{})
	require.NoError(t, err)
	var last string
	for i := 0; i < 5*maxAsks; i++ {
		r := p.Call(context.Background(), "shop.do_action", []byte(`{"action":"checkout.pay","input":{"amount":`+strconv.Itoa(i)+`}}`))
		require.Equal(t, JudgmentNeedsConfirm, r.Judgment(), r.String())
		v, _ := r.Get("askId")
		last, _ = v.(string)
	}
	asks := app.Asks()
	assert.LessOrEqual(t, len(asks), 2*maxAsks)
	assert.GreaterOrEqual(t, len(asks), maxAsks)
	assert.Equal(t, last, asks[len(asks)-1].ID, "the newest ask is kept")
	require.NoError(t, app.ApproveAsk(last, "ana"), "and can still be answered")
}

// A closed port performs nothing more and says so as an error result; a
// fire already running still settles truthfully when its handler answers.
func TestClosedPort(t *testing.T) {
	release := make(chan struct{})
	slow := func(context.Context, HandlerCall) (any, error) {
		<-release
		return map[string]any{"charged": true}, nil
	}
	app, err := NewApp(mustGraph(t, appShopGraph), AppOptions{Page: "home", Handlers: map[string]Handler{"home.browse": slow}})
	require.NoError(t, err)
	p, err := NewPort(app, PortOptions{})
	require.NoError(t, err)
	fired := p.Call(context.Background(), "shop.do_action", []byte(`{"action":"home.browse"}`))
	require.True(t, fired.OK(), fired.String())
	p.Close()
	p.Close() // idempotent
	assert.True(t, p.Closed())
	for _, name := range []string{"shop.whats_here", "shop.do_action", "shop.nope"} {
		r := p.Call(context.Background(), name, []byte(`{"action":"home.search","input":{"q":"x"}}`))
		assert.Equal(t, ReasonPortClosed, r.Reason(), name)
		assert.True(t, r.IsError(), name)
		assert.Empty(t, r.TransitionID(), name)
	}
	close(release)
	info, err := app.WaitSettled(context.Background(), fired.TransitionID())
	require.NoError(t, err)
	assert.Equal(t, "performed", info.Status, "the running fire settled as it really ended")
	assert.Equal(t, map[string]any{"charged": true}, info.Data)
}
