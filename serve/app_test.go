// Tests of the app session: construction, page/state/version, fires and
// their gates in order, settlement (first wins, goTo, writes), reports,
// handler failures and panics, the human approval doors and verdicts, and
// the once-only warnings.

package serve

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewAppErrors(t *testing.T) {
	g := mustGraph(t, appShopGraph)
	cases := []struct {
		name string
		g    *Graph
		opts AppOptions
		want string
	}{
		{"nil graph", nil, AppOptions{}, "graph is nil"},
		{"unknown page", g, AppOptions{Page: "nope"}, `start page "nope"`},
		{"handler for unknown action", g, AppOptions{Handlers: map[string]Handler{"x.y": nil}}, `handler for "x.y"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewApp(c.g, c.opts)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

func TestAppPositionAndVersion(t *testing.T) {
	s := newShop(t, AppOptions{})
	app := s.app
	assert.Equal(t, "home", app.Page(), "first declared page")
	assert.Equal(t, int64(0), app.Version())
	require.NoError(t, app.Navigate("cart", PrincipalUser))
	assert.Equal(t, "cart", app.Page())
	assert.Equal(t, int64(1), app.Version())
	require.Error(t, app.Navigate("nope", PrincipalUser))
	require.NoError(t, app.Patch(State{"role": "admin", "cart.items": nil}, PrincipalSystem))
	assert.Equal(t, int64(2), app.Version())
	st := app.State()
	assert.Equal(t, "admin", st["role"])
	assert.NotContains(t, st, "cart.items", "nil deletes")
	st["role"] = "mutated"
	assert.Equal(t, "admin", app.State()["role"], "State returns a copy")
	require.Error(t, app.Patch(nil, PrincipalUser))
}

func TestFireGatesInOrder(t *testing.T) {
	cases := []struct {
		name   string
		page   string
		state  State
		action string
		input  any
		reason string
	}{
		{"unknown action", "home", nil, "home.nope", nil, ReasonUnknownAction},
		{"not on this page beats the schema", "home", nil, "checkout.pay", "garbage", ReasonNotOnPage},
		{"guard fails", "cart", State{"cart.items": []any{}}, "cart.checkout", nil, ReasonNotOffered},
		{"guard before schema", "home", State{}, "home.admin", nil, ReasonNotOffered},
		{"schema", "home", nil, "home.search", map[string]any{"q": ""}, ReasonPayloadInvalid},
		{"disabled", "cart", State{"cart.items": []any{"a"}, "cart.locked": true}, "cart.clear", nil, ReasonToolDisabled},
		{"no handler", "done", nil, "done.unwired", nil, ReasonNotMaterialized},
		{"approval last", "checkout", nil, "checkout.pay", map[string]any{"amount": 3.0}, ReasonApprovalRequired},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newShop(t, AppOptions{Page: c.page, State: c.state, RequireHumanApproval: ptrBool(true)})
			r := s.app.Fire(context.Background(), c.action, FireOptions{Source: PrincipalAgent, Input: c.input})
			assert.False(t, r.OK)
			assert.Equal(t, c.reason, r.Reason)
			assert.NotEmpty(t, r.Why)
			assert.Empty(t, r.TransitionID, "a refusal records no transition")
			switch c.reason {
			case ReasonToolDisabled:
				assert.True(t, r.Retriable)
				require.Len(t, r.Evidence, 1)
				assert.Equal(t, "cart.locked", r.Evidence[0].Key)
			case ReasonPayloadInvalid:
				assert.NotNil(t, r.Expects)
				assert.NotEmpty(t, r.Errors)
			case ReasonNotOffered:
				assert.NotEmpty(t, r.Evidence)
			}
			assert.Empty(t, s.app.Transitions())
		})
	}
}

func TestFireSettlesAndMovesPage(t *testing.T) {
	s := newShop(t, AppOptions{Page: "cart"}, "cart.checkout")
	r := s.app.Fire(context.Background(), "cart.checkout", FireOptions{Source: PrincipalAgent})
	require.True(t, r.OK, r.Reason)
	assert.Equal(t, "cart.checkout#1", r.TransitionID)
	assert.Equal(t, "pending", r.EffectStatus)
	info, ok := s.app.Transition(r.TransitionID)
	require.True(t, ok)
	assert.Equal(t, "pending", info.Status)
	assert.Equal(t, "cart", s.app.Page(), "the page moves only when it settles")
	s.release("cart.checkout")
	info = waitSettled(t, s.app, r.TransitionID)
	assert.Equal(t, "performed", info.Status)
	assert.Equal(t, "checkout", s.app.Page(), "a performed goTo moves the page")
	assert.Equal(t, true, s.app.State()["order.draft"], "declared writes found in data are applied")
	assert.False(t, s.app.Settle(r.TransitionID, false, nil, "late"), "first settlement wins")
	info, _ = s.app.Transition(r.TransitionID)
	assert.Equal(t, "performed", info.Status)
	calls := s.handlerCalls()
	require.Len(t, calls, 1)
	assert.Equal(t, PrincipalAgent, calls[0].Source)
	assert.Equal(t, "cart.checkout#1", calls[0].TransitionID)

	r2 := s.app.Fire(context.Background(), "checkout.cancel", FireOptions{Source: PrincipalAgent})
	assert.Equal(t, "checkout.cancel#1", r2.TransitionID, "numbered per action")
}

func TestHandlerFailures(t *testing.T) {
	long := strings.Repeat("é", 300)
	cases := []struct {
		name    string
		h       Handler
		wantErr string
	}{
		{"error", func(context.Context, HandlerCall) (any, error) { return nil, errBoom }, "boom"},
		{"panic", func(context.Context, HandlerCall) (any, error) { panic("kaput") }, "handler panicked: kaput"},
		{"long error capped", func(context.Context, HandlerCall) (any, error) { return nil, &textErr{long} }, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newShop(t, AppOptions{Handlers: map[string]Handler{"home.browse": c.h}})
			r := s.app.Fire(context.Background(), "home.browse", FireOptions{Source: PrincipalAgent})
			require.True(t, r.OK)
			info := waitSettled(t, s.app, r.TransitionID)
			assert.Equal(t, "refused", info.Status)
			assert.LessOrEqual(t, len(info.Error), 200)
			if c.wantErr != "" {
				assert.Equal(t, c.wantErr, info.Error)
			} else {
				assert.True(t, strings.HasPrefix(long, info.Error), "cut on a rune boundary")
			}
			assert.Equal(t, "home", s.app.Page(), "a refused goTo does not move the page")
		})
	}
}

type textErr struct{ s string }

func (e *textErr) Error() string { return e.s }

func TestHandlerNeverSettles(t *testing.T) {
	s := newShop(t, AppOptions{}, "home.browse")
	done := make(chan FireResult)
	go func() { done <- s.app.Fire(context.Background(), "home.browse", FireOptions{Source: PrincipalAgent}) }()
	var r FireResult
	select {
	case r = <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("Fire blocked on a handler that never settles")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	info, err := s.app.WaitSettled(ctx, r.TransitionID)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, "pending", info.Status)
	_, err = s.app.WaitSettled(context.Background(), "nope#1")
	assert.Error(t, err)
	s.release("home.browse")
}

func TestReportIsUserAndSettled(t *testing.T) {
	s := newShop(t, AppOptions{})
	v := s.app.Version()
	id, err := s.app.Report("home.browse", nil, nil)
	require.NoError(t, err)
	info, _ := s.app.Transition(id)
	assert.Equal(t, PrincipalUser, info.Source)
	assert.Equal(t, "performed", info.Status)
	assert.Equal(t, "cart", s.app.Page())
	assert.Greater(t, s.app.Version(), v)
	assert.Empty(t, s.handlerCalls(), "a report runs no handler")
	_, err = s.app.Report("nope.x", nil, nil)
	assert.Error(t, err)
}

func TestOnChangeUnderRecover(t *testing.T) {
	s := newShop(t, AppOptions{})
	n := 0
	s.app.OnChange(func() { n++; panic("ui bug") })
	require.NoError(t, s.app.Navigate("cart", PrincipalUser))
	require.NoError(t, s.app.Navigate("home", PrincipalUser))
	assert.Equal(t, 2, n)
}

// approvalFire fires checkout.pay as the agent with askID and amount.
func approvalFire(s *shop, askID string, amount float64) FireResult {
	return s.app.Fire(context.Background(), "checkout.pay", FireOptions{
		Source: PrincipalAgent, AskID: askID, Input: map[string]any{"amount": amount}})
}

func mintPay(s *shop, amount float64) string {
	s.app.mu.Lock()
	defer s.app.mu.Unlock()
	return s.app.mintAsk("checkout.pay", "", map[string]any{"amount": amount}, PrincipalAgent, "").id
}

func TestApprovalVerdicts(t *testing.T) {
	cases := []struct {
		name    string
		setup   func(s *shop) string // returns the ask id to fire with
		amount  float64
		reason  string // "" = allowed
		differs string
	}{
		{"no pointer", func(s *shop) string { return "" }, 1, ReasonApprovalRequired, ""},
		{"unknown pointer", func(s *shop) string { return "ask#99" }, 1, ReasonApprovalRequired, ""},
		{"unanswered", func(s *shop) string { return mintPay(s, 1) }, 1, ReasonApprovalRequired, ""},
		{"approved", func(s *shop) string {
			id := mintPay(s, 1)
			require.NoError(t, s.app.ApproveAsk(id, "ann"))
			return id
		}, 1, "", ""},
		{"approved another input", func(s *shop) string {
			id := mintPay(s, 1)
			require.NoError(t, s.app.ApproveAsk(id, "ann"))
			return id
		}, 999, ReasonApprovalMismatch, "input"},
		{"another action", func(s *shop) string {
			s.app.mu.Lock()
			id := s.app.mintAsk("cart.clear", "", nil, PrincipalAgent, "").id
			s.app.mu.Unlock()
			require.NoError(t, s.app.ApproveAsk(id, "ann"))
			return id
		}, 1, ReasonApprovalMismatch, "action"},
		{"declined", func(s *shop) string {
			id := mintPay(s, 1)
			require.NoError(t, s.app.DeclineAsk(id, "ann"))
			return id
		}, 1, ReasonApprovalDeclined, ""},
		{"decline beats a grant", func(s *shop) string {
			require.NoError(t, s.app.AlwaysApprove("checkout.pay", "ann", 0))
			id := mintPay(s, 1)
			require.NoError(t, s.app.DeclineAsk(id, "ann"))
			return id
		}, 1, ReasonApprovalDeclined, ""},
		{"a later no withdraws the grant", func(s *shop) string {
			require.NoError(t, s.app.AlwaysApprove("checkout.pay", "ann", 0))
			require.NoError(t, s.app.DeclineAsk(mintPay(s, 2), "ann"))
			return ""
		}, 1, ReasonApprovalRequired, ""},
		{"live grant allows without a pointer", func(s *shop) string {
			require.NoError(t, s.app.AlwaysApprove("checkout.pay", "ann", time.Hour))
			return ""
		}, 5, "", ""},
		{"expired grant", func(s *shop) string {
			require.NoError(t, s.app.AlwaysApprove("checkout.pay", "ann", time.Minute))
			s.advance(2 * time.Minute)
			return ""
		}, 5, ReasonApprovalRequired, ""},
		{"revoked", func(s *shop) string {
			id := mintPay(s, 1)
			require.NoError(t, s.app.ApproveAsk(id, "ann"))
			require.NoError(t, s.app.RevokeAsk(id, "ann"))
			return id
		}, 1, ReasonApprovalRevoked, ""},
		{"expired approval", func(s *shop) string {
			id := mintPay(s, 1)
			require.NoError(t, s.app.ApproveAsk(id, "ann"))
			s.advance(16 * time.Minute)
			return id
		}, 1, ReasonApprovalStale, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newShop(t, AppOptions{Page: "checkout", RequireHumanApproval: ptrBool(true)})
			id := c.setup(s)
			r := approvalFire(s, id, c.amount)
			if c.reason == "" {
				require.True(t, r.OK, "%s: %s", r.Reason, r.Why)
				return
			}
			assert.False(t, r.OK)
			assert.Equal(t, c.reason, r.Reason)
			assert.Equal(t, c.differs, r.Differs)
		})
	}
}

func TestApprovalWorksOnceThenSpent(t *testing.T) {
	s := newShop(t, AppOptions{Page: "checkout", RequireHumanApproval: ptrBool(true)}, "checkout.pay")
	id := mintPay(s, 7)
	require.NoError(t, s.app.ApproveAsk(id, "ann"))
	r := approvalFire(s, id, 7)
	require.True(t, r.OK, r.Reason)
	assert.Equal(t, id, r.UsedAsk)
	r2 := approvalFire(s, id, 7)
	assert.Equal(t, ReasonApprovalSpent, r2.Reason)
	s.release("checkout.pay")
	waitSettled(t, s.app, r.TransitionID)
	ak, _ := s.app.Ask(id)
	assert.Equal(t, "used", ak.State)
	assert.Equal(t, r.TransitionID, ak.Transition)
}

func TestApprovedInputCopiedAtGate(t *testing.T) {
	s := newShop(t, AppOptions{Page: "checkout", RequireHumanApproval: ptrBool(true)})
	id := mintPay(s, 7)
	require.NoError(t, s.app.ApproveAsk(id, "ann"))
	in := map[string]any{"amount": 7.0}
	r := s.app.Fire(context.Background(), "checkout.pay", FireOptions{Source: PrincipalAgent, AskID: id, Input: in})
	require.True(t, r.OK)
	in["amount"] = 1e9 // the caller mutates its input after the gate
	info := waitSettled(t, s.app, r.TransitionID)
	assert.Equal(t, map[string]any{"amount": 7.0}, info.Input)
	assert.Equal(t, map[string]any{"amount": 7.0}, s.handlerCalls()[0].Input)
}

func TestOnlyAgentFiresAreGated(t *testing.T) {
	for _, src := range []Principal{PrincipalUser, PrincipalSystem} {
		s := newShop(t, AppOptions{Page: "checkout", RequireHumanApproval: ptrBool(true)})
		r := s.app.Fire(context.Background(), "checkout.pay", FireOptions{Source: src, Input: map[string]any{"amount": 1.0}})
		assert.True(t, r.OK, "%s: %s", src, r.Reason)
	}
}

func TestHumanDoorErrors(t *testing.T) {
	s := newShop(t, AppOptions{Page: "checkout", RequireHumanApproval: ptrBool(true)})
	assert.Error(t, s.app.ApproveAsk("ask#9", "ann"))
	assert.Error(t, s.app.DeclineAsk("ask#9", "ann"))
	assert.Error(t, s.app.RevokeAsk("ask#9", "ann"))
	assert.Error(t, s.app.AlwaysApprove("nope.x", "ann", 0))
	assert.Error(t, s.app.AlwaysApprove("checkout.pay", "ann", -time.Second))
	id := mintPay(s, 1)
	assert.Error(t, s.app.RevokeAsk(id, "ann"), "a pending ask is declined, not revoked")
	require.NoError(t, s.app.DeclineAsk(id, "ann"))
	assert.Error(t, s.app.ApproveAsk(id, "ann"), "a declined ask cannot be approved")
	asks := s.app.Asks()
	require.Len(t, asks, 1)
	assert.Equal(t, "declined", asks[0].State)
	assert.Equal(t, "Pay for the order.", asks[0].Does)
}

func TestUnguardedWarningOnce(t *testing.T) {
	s := newShop(t, AppOptions{Page: "cart"})
	for i := 0; i < 3; i++ {
		r := s.app.Fire(context.Background(), "cart.clear", FireOptions{Source: PrincipalAgent})
		require.True(t, r.OK, "the fire still happens")
		waitSettled(t, s.app, r.TransitionID)
	}
	w := s.warns()
	require.Len(t, w, 1)
	assert.Equal(t, WarnUnguardedFire, w[0].Code)
	assert.Equal(t, "cart.clear", w[0].Action)
	assert.Contains(t, w[0].Message, "RequireHumanApproval")

	// A session that said either way never warns.
	s2 := newShop(t, AppOptions{Page: "cart", RequireHumanApproval: ptrBool(false)})
	s2.app.Fire(context.Background(), "cart.clear", FireOptions{Source: PrincipalAgent})
	assert.Empty(t, s2.warns())
	// A user fire is not an agent fire.
	s3 := newShop(t, AppOptions{Page: "cart"})
	s3.app.Fire(context.Background(), "cart.clear", FireOptions{Source: PrincipalUser})
	assert.Empty(t, s3.warns())
}

func TestOnWarnPanicIsRecovered(t *testing.T) {
	s := newShop(t, AppOptions{Page: "cart", OnWarn: func(Warning) { panic("host bug") }})
	r := s.app.Fire(context.Background(), "cart.clear", FireOptions{Source: PrincipalAgent})
	assert.True(t, r.OK)
}

func TestFireOutlivesItsCallUntilClose(t *testing.T) {
	s := newShop(t, AppOptions{}, "home.browse")
	ctx, cancel := context.WithCancel(context.Background())
	r := s.app.Fire(ctx, "home.browse", FireOptions{Source: PrincipalAgent})
	require.True(t, r.OK)
	cancel()
	wctx, wcancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer wcancel()
	_, err := s.app.WaitSettled(wctx, r.TransitionID)
	assert.ErrorIs(t, err, context.DeadlineExceeded, "the caller's cancellation does not reach the handler")
	s.app.Close()
	info := waitSettled(t, s.app, r.TransitionID)
	assert.Equal(t, "refused", info.Status)
	assert.Equal(t, "context canceled", info.Error)
}
