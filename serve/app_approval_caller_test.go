// An approval backs one fire by the caller that asked: another port,
// another caller on the same port, another MCP session and a stateless
// MCP call that does not cite the ask's id are refused without using it;
// the asker still can, once, within the TTL, unless the person revoked it.

package serve

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentwasm/agentwasm/serve/mcpserver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// approvalCaller calls do_action as one caller and returns the result
// object.
type approvalCaller func(t *testing.T, args string) map[string]any

// portAs calls the port in ctx (a WithCaller context, or none: the port's
// own caller).
func portAs(p *Port, ctx context.Context) approvalCaller {
	return func(t *testing.T, args string) map[string]any {
		t.Helper()
		return checkResult(t, CallSettled(ctx, p, "shop.do_action", []byte(args), time.Second))
	}
}

// mcpAs calls do_action over d in MCP session sid, or in the stateless era
// when sid is "".
func mcpAs(d *mcpserver.Dispatcher, sid string) approvalCaller {
	return func(t *testing.T, args string) map[string]any {
		t.Helper()
		req := mcpserver.Request{SessionID: sid}
		if sid == "" {
			req.Body = []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"shop.do_action","arguments":` + args + `,` + statelessMeta + `}}`)
		} else {
			req.Body = []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"shop.do_action","arguments":` + args + `}}`)
		}
		resp := d.Handle(context.Background(), req)
		require.Equal(t, 200, resp.Status, "answer: %s", resp.Body)
		var env struct {
			Result struct {
				StructuredContent map[string]any `json:"structuredContent"`
			} `json:"result"`
		}
		require.NoError(t, json.Unmarshal(resp.Body, &env), "answer: %s", resp.Body)
		require.NotNil(t, env.Result.StructuredContent, "answer: %s", resp.Body)
		return env.Result.StructuredContent
	}
}

// newMCPSession initializes a session on d and returns its id.
func newMCPSession(t *testing.T, d *mcpserver.Dispatcher) string {
	t.Helper()
	resp := d.Handle(context.Background(), mcpserver.Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`)})
	require.Equal(t, 200, resp.Status, "answer: %s", resp.Body)
	require.NotEmpty(t, resp.SessionID)
	return resp.SessionID
}

// gatedCheckout is an app that requires approval, on the checkout page,
// with two ports and an MCP server with sessions over the first.
type gatedCheckout struct {
	s      *shop
	p1, p2 *Port
	d      *mcpserver.Dispatcher
}

func newGatedCheckout(t *testing.T) gatedCheckout {
	s := newShop(t, AppOptions{Page: "checkout", RequireHumanApproval: ptrBool(true)})
	p1 := s.port(t, PortOptions{})
	d := mcpserver.New(NewPortToolServer(p1, time.Second), mcpserver.Options{Sessions: true})
	return gatedCheckout{s: s, p1: p1, p2: s.port(t, PortOptions{}), d: d}
}

const (
	pay12 = `{"action":"checkout.pay","input":{"amount":12}}`
	// confirm12 confirms pay12; cite adds an askId.
	confirm12 = `{"action":"checkout.pay","input":{"amount":12},"confirm":true}`
)

func cite(args, askID string) string {
	return strings.TrimSuffix(args, "}") + `,"askId":"` + askID + `"}`
}

// askFor asks for pay12 as c and the person approves it.
func (g gatedCheckout) askFor(t *testing.T, c approvalCaller) string {
	t.Helper()
	m := c(t, pay12)
	require.Equal(t, JudgmentNeedsConfirm, m["judgment"], "%v", m)
	askID, _ := m["askId"].(string)
	require.NotEmpty(t, askID)
	require.NoError(t, g.s.app.ApproveAsk(askID, "pat"))
	return askID
}

func TestApprovalRefusedToAnotherCaller(t *testing.T) {
	for _, tc := range []struct {
		name string
		// asker and thief are the two callers; thiefArgs is what the thief
		// sends, given the ask's id.
		asker, thief func(t *testing.T, g gatedCheckout) approvalCaller
		thiefArgs    func(askID string) string
		reason       string
		// askerCites: the asker has no identity and must cite its ask.
		askerCites bool
	}{
		{
			name:      "another port on the app, the same input",
			asker:     func(t *testing.T, g gatedCheckout) approvalCaller { return portAs(g.p1, context.Background()) },
			thief:     func(t *testing.T, g gatedCheckout) approvalCaller { return portAs(g.p2, context.Background()) },
			thiefArgs: func(string) string { return confirm12 },
			reason:    ReasonApprovalNotYours,
		},
		{
			name:      "another port citing the ask's id",
			asker:     func(t *testing.T, g gatedCheckout) approvalCaller { return portAs(g.p1, context.Background()) },
			thief:     func(t *testing.T, g gatedCheckout) approvalCaller { return portAs(g.p2, context.Background()) },
			thiefArgs: func(id string) string { return cite(confirm12, id) },
			reason:    ReasonApprovalNotYours,
		},
		{
			name: "another session on the same port",
			asker: func(t *testing.T, g gatedCheckout) approvalCaller {
				return portAs(g.p1, WithCaller(context.Background(), "session A"))
			},
			thief: func(t *testing.T, g gatedCheckout) approvalCaller {
				return portAs(g.p1, WithCaller(context.Background(), "session B"))
			},
			thiefArgs: func(string) string { return confirm12 },
			reason:    ReasonApprovalNotYours,
		},
		{
			name: "the port's own calls are not a session's",
			asker: func(t *testing.T, g gatedCheckout) approvalCaller {
				return portAs(g.p1, WithCaller(context.Background(), "A"))
			},
			thief:     func(t *testing.T, g gatedCheckout) approvalCaller { return portAs(g.p1, context.Background()) },
			thiefArgs: func(string) string { return confirm12 },
			reason:    ReasonApprovalNotYours,
		},
		{
			name:      "another MCP session",
			asker:     func(t *testing.T, g gatedCheckout) approvalCaller { return mcpAs(g.d, newMCPSession(t, g.d)) },
			thief:     func(t *testing.T, g gatedCheckout) approvalCaller { return mcpAs(g.d, newMCPSession(t, g.d)) },
			thiefArgs: func(string) string { return confirm12 },
			reason:    ReasonApprovalNotYours,
		},
		{
			name:      "a stateless call citing another session's ask",
			asker:     func(t *testing.T, g gatedCheckout) approvalCaller { return mcpAs(g.d, newMCPSession(t, g.d)) },
			thief:     func(t *testing.T, g gatedCheckout) approvalCaller { return mcpAs(g.d, "") },
			thiefArgs: func(id string) string { return cite(confirm12, id) },
			reason:    ReasonApprovalNotYours,
		},
		{
			name:       "a stateless call without the askId",
			asker:      func(t *testing.T, g gatedCheckout) approvalCaller { return mcpAs(g.d, "") },
			thief:      func(t *testing.T, g gatedCheckout) approvalCaller { return mcpAs(g.d, "") },
			thiefArgs:  func(string) string { return confirm12 },
			reason:     ReasonAskIDRequired,
			askerCites: true,
		},
		{
			name:       "a stateless call with a guessed id",
			asker:      func(t *testing.T, g gatedCheckout) approvalCaller { return mcpAs(g.d, "") },
			thief:      func(t *testing.T, g gatedCheckout) approvalCaller { return mcpAs(g.d, "") },
			thiefArgs:  func(string) string { return cite(confirm12, "ask_aaaaaaaaaaaaaaaaaaaaaaaaaa") },
			reason:     ReasonAskUnknown,
			askerCites: true,
		},
		{
			name:       "a stateless call with the old numbered id",
			asker:      func(t *testing.T, g gatedCheckout) approvalCaller { return mcpAs(g.d, "") },
			thief:      func(t *testing.T, g gatedCheckout) approvalCaller { return mcpAs(g.d, "") },
			thiefArgs:  func(string) string { return cite(confirm12, "ask#1") },
			reason:     ReasonAskUnknown,
			askerCites: true,
		},
		{
			name:      "an MCP session whose ask a stateless call raised, without the id",
			asker:     func(t *testing.T, g gatedCheckout) approvalCaller { return mcpAs(g.d, "") },
			thief:     func(t *testing.T, g gatedCheckout) approvalCaller { return mcpAs(g.d, newMCPSession(t, g.d)) },
			thiefArgs: func(string) string { return confirm12 },
			reason:    ReasonAskIDRequired, askerCites: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGatedCheckout(t)
			asker, thief := tc.asker(t, g), tc.thief(t, g)
			askID := g.askFor(t, asker)

			m := thief(t, tc.thiefArgs(askID))
			assert.Equal(t, JudgmentRejected, m["judgment"], "%v", m)
			assert.Equal(t, tc.reason, m["reason"])
			assert.Equal(t, false, m["performed"])
			assert.Equal(t, whyOf(tc.reason), m["why"])
			assert.Empty(t, g.s.app.Transitions(), "nothing fired")
			info, _ := g.s.app.Ask(askID)
			assert.Equal(t, "approved", info.State, "the refusal did not use the approval")

			// The caller that asked still can, once.
			args := confirm12
			if tc.askerCites {
				args = cite(args, askID)
			}
			m = asker(t, args)
			require.Equal(t, "performed", m["effectStatus"], "%v", m)
			assert.Equal(t, askID, m["askId"])
			info, _ = g.s.app.Ask(askID)
			assert.Equal(t, "used", info.State)
			require.NoError(t, g.s.app.Navigate("checkout", PrincipalUser)) // where it could pay again
			m = thief(t, tc.thiefArgs(askID))
			assert.NotEqual(t, "performed", m["effectStatus"], "%v", m)
			assert.Len(t, g.s.app.Transitions(), 1, "one fire for one approval")
		})
	}
}

func TestAnotherCallerRaisesItsOwnAsk(t *testing.T) {
	g := newGatedCheckout(t)
	a := portAs(g.p1, WithCaller(context.Background(), "A"))
	b := portAs(g.p1, WithCaller(context.Background(), "B"))
	askA := g.askFor(t, a)

	m := b(t, pay12)
	require.Equal(t, JudgmentNeedsConfirm, m["judgment"])
	askB := m["askId"].(string)
	assert.NotEqual(t, askA, askB, "the same action and input, another caller: its own ask")
	assert.Equal(t, true, m["awaitingHuman"], "B's ask waits for the person, whatever A's holds")
	assert.Equal(t, askB, b(t, pay12)["askId"], "asking again reuses B's own ask")

	// B's decline closes B's ask, never A's.
	m = b(t, `{"action":"checkout.pay","input":{"amount":12},"decline":true}`)
	assert.Equal(t, askB, m["askId"])
	info, _ := g.s.app.Ask(askA)
	assert.Equal(t, "approved", info.State)
	m = b(t, cite(`{"action":"checkout.pay","decline":true}`, askA))
	assert.Equal(t, ReasonApprovalNotYours, m["reason"], "declining another caller's ask by id is refused")
	info, _ = g.s.app.Ask(askA)
	assert.Equal(t, "approved", info.State)

	// B sees its own asks only; A sees its own.
	wh := checkResult(t, g.p1.Call(WithCaller(context.Background(), "B"), "shop.whats_here", nil))
	assert.NotContains(t, jsonText(t, wh["facts"]), askA)
	assert.Contains(t, jsonText(t, wh["facts"]), askB)
	wh = checkResult(t, g.p1.Call(WithCaller(context.Background(), "A"), "shop.whats_here", nil))
	assert.Contains(t, jsonText(t, wh["facts"]), askA)
	wh = checkResult(t, g.p1.Call(WithCaller(context.Background(), ""), "shop.whats_here", nil))
	assert.NotContains(t, jsonText(t, wh["facts"]), "ask_", "a caller with no identity is shown no ask ids")
	dw := checkResult(t, g.p1.Call(WithCaller(context.Background(), "B"), "shop.did_it_work", []byte(`{"transitionId":"nope"}`)))
	assert.NotContains(t, jsonText(t, dw), askA, "the pending list holds the caller's own asks only")
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func TestApprovalUsedOnceWithinItsTTL(t *testing.T) {
	for _, tc := range []struct {
		name    string
		between func(g gatedCheckout, askID string)
		cited   bool // the asker cites the ask (otherwise it confirms by input)
		reason  string
		state   string // the ask's state then
	}{
		{"used: cited again", func(g gatedCheckout, askID string) { g.confirmed(askID) }, true, ReasonApprovalSpent, "used"},
		{"past the default TTL, cited", func(g gatedCheckout, _ string) { g.s.advance(DefaultApprovalTTL) }, true, ReasonApprovalStale, "expired"},
		{"revoked, cited", func(g gatedCheckout, askID string) { _ = g.s.app.RevokeAsk(askID, "pat") }, true, ReasonApprovalRevoked, "revoked"},
		{"declined by the person, cited", func(g gatedCheckout, askID string) { _ = g.s.app.DeclineAsk(askID, "pat") }, true, ReasonApprovalDeclined, "declined"},
		// Confirming by input finds no open ask of the caller's: a fresh
		// ask is raised, which waits for the person.
		{"used: confirmed again", func(g gatedCheckout, askID string) { g.confirmed(askID) }, false, "", "used"},
		{"past the default TTL", func(g gatedCheckout, _ string) { g.s.advance(DefaultApprovalTTL) }, false, "", "expired"},
		{"revoked", func(g gatedCheckout, askID string) { _ = g.s.app.RevokeAsk(askID, "pat") }, false, "", "revoked"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGatedCheckout(t)
			a := portAs(g.p1, context.Background())
			askID := g.askFor(t, a)
			fires := len(g.s.app.Transitions())
			tc.between(g, askID)
			fires = len(g.s.app.Transitions()) - fires
			args := confirm12
			if tc.cited {
				args = cite(args, askID)
			}
			m := a(t, args)
			if tc.reason != "" {
				assert.Equal(t, JudgmentRejected, m["judgment"], "%v", m)
				assert.Equal(t, tc.reason, m["reason"])
			} else {
				assert.Equal(t, JudgmentNeedsConfirm, m["judgment"], "%v", m)
				assert.NotEqual(t, askID, m["askId"], "a fresh ask")
				assert.Equal(t, true, m["awaitingHuman"])
			}
			assert.Len(t, g.s.app.Transitions(), fires, "nothing more fired")
			info, _ := g.s.app.Ask(askID)
			assert.Equal(t, tc.state, info.State)
		})
	}
	t.Run("just inside the TTL it works", func(t *testing.T) {
		g := newGatedCheckout(t)
		a := portAs(g.p1, context.Background())
		askID := g.askFor(t, a)
		g.s.advance(DefaultApprovalTTL - time.Second)
		m := a(t, confirm12)
		assert.Equal(t, "performed", m["effectStatus"], "%v", m)
		assert.Equal(t, askID, m["askId"])
	})
}

// confirmed fires the approved ask as its own port.
func (g gatedCheckout) confirmed(askID string) {
	r := CallSettled(context.Background(), g.p1, "shop.do_action", []byte(cite(confirm12, askID)), time.Second)
	if st, _ := r.Get("effectStatus"); st != "performed" {
		panic("the asker's confirm did not fire: " + string(r.JSON()))
	}
	_ = g.s.app.Navigate("checkout", PrincipalUser) // paying moved the app on; back to where it can pay again
}

func TestApprovalTTLDefaultAndOption(t *testing.T) {
	assert.Equal(t, 2*time.Minute, DefaultApprovalTTL)
	s := newShop(t, AppOptions{Page: "checkout", RequireHumanApproval: ptrBool(true)})
	assert.Equal(t, DefaultApprovalTTL, s.app.opts.ApprovalTTL, "unset: the default")

	s = newShop(t, AppOptions{Page: "checkout", RequireHumanApproval: ptrBool(true), ApprovalTTL: 10 * time.Second})
	p := s.port(t, PortOptions{})
	_, m := pcall(t, p, "shop.do_action", pay12)
	askID := m["askId"].(string)
	require.NoError(t, s.app.ApproveAsk(askID, "pat"))
	info, _ := s.app.Ask(askID)
	assert.Equal(t, "approved", info.State, "approved and unused: what the page shows with a revoke button")
	s.advance(10 * time.Second)
	info, _ = s.app.Ask(askID)
	assert.Equal(t, "expired", info.State)
	_, m = pcall(t, p, "shop.do_action", cite(confirm12, askID))
	assert.Equal(t, ReasonApprovalStale, m["reason"])
	assert.Error(t, s.app.ApproveAsk(askID, "pat"), "an expired ask is not approved again")
	assert.NoError(t, s.app.RevokeAsk(askID, "pat"), "an expired approval can still be withdrawn")
}

func TestOutsideEnforcementAnotherCallersAskIsNotUsed(t *testing.T) {
	s := newShop(t, AppOptions{Page: "checkout", RequireHumanApproval: ptrBool(false)})
	p := s.port(t, PortOptions{})
	a := portAs(p, WithCaller(context.Background(), "A"))
	b := portAs(p, WithCaller(context.Background(), "B"))
	askA := a(t, pay12)["askId"].(string)
	m := b(t, confirm12)
	require.Equal(t, "performed", m["effectStatus"], "outside enforcement confirm:true is the relayed yes: %v", m)
	assert.NotContains(t, m, "askId", "B's fire is backed by no ask of A's")
	info, _ := s.app.Ask(askA)
	assert.Equal(t, "pending", info.State, "A's ask is neither approved nor used by B's confirm")
	require.NoError(t, s.app.Navigate("checkout", PrincipalUser))
	m = b(t, cite(confirm12, askA))
	assert.Equal(t, ReasonApprovalNotYours, m["reason"], "citing another caller's ask is refused in any mode")
}

func TestAskIDsAreUnguessable(t *testing.T) {
	re := regexp.MustCompile(`^ask_[a-z2-7]{26}$`)
	seen := map[string]bool{}
	for i := 0; i < 2000; i++ {
		id := newAskID()
		require.Regexp(t, re, id)
		require.False(t, seen[id], "ids do not repeat")
		seen[id] = true
	}
	assert.Equal(t, "mzxw6ytboi", base32Lower([]byte("foobar")), "RFC 4648 base32, lower case, no padding")
	assert.Equal(t, "", base32Lower(nil))
}

func TestGatedToolsOfferAskID(t *testing.T) {
	gated := newShop(t, AppOptions{RequireHumanApproval: ptrBool(true)}).port(t, PortOptions{})
	plain := newShop(t, AppOptions{}).port(t, PortOptions{})
	for _, tc := range []struct {
		name string
		p    *Port
		want bool
	}{{"gated", gated, true}, {"not gated", plain, false}} {
		t.Run(tc.name, func(t *testing.T) {
			for _, tool := range tc.p.Tools() {
				fires := strings.HasSuffix(tool.Name, ".do_action") || strings.Contains(tool.Name, ".journey.")
				assert.Equal(t, tc.want && fires, strings.Contains(string(tool.InputSchema), `"askId"`), tool.Name)
			}
		})
	}
}

func TestApprovalIsTheCallersOnEveryRoute(t *testing.T) {
	t.Run("a journey step", func(t *testing.T) {
		s := newShop(t, AppOptions{Page: "cart", RequireHumanApproval: ptrBool(true)})
		p := s.port(t, PortOptions{})
		ctxA, ctxB := WithCaller(context.Background(), "A"), WithCaller(context.Background(), "B")
		call := func(ctx context.Context, args string) map[string]any {
			return checkResult(t, CallSettled(ctx, p, "shop.journey.buy", []byte(args), time.Second))
		}
		call(ctxA, `{}`)
		require.Equal(t, "performed", call(ctxA, `{"step":"checkout"}`)["effectStatus"])
		m := call(ctxA, `{"step":"pay","input":{"amount":12}}`)
		require.Equal(t, JudgmentNeedsConfirm, m["judgment"], "%v", m)
		askA := m["askId"].(string)
		require.NoError(t, s.app.ApproveAsk(askA, "pat"))

		m = call(ctxB, `{"step":"pay","input":{"amount":12},"confirm":true}`)
		assert.Equal(t, ReasonApprovalNotYours, m["reason"], "%v", m)
		assert.Equal(t, "checkout.pay", m["step"], "the refusal names the step")
		m = call(ctxA, `{"step":"pay","input":{"amount":12},"confirm":true}`)
		assert.Equal(t, "performed", m["effectStatus"], "%v", m)
		assert.Equal(t, askA, m["askId"])
	})
	t.Run("a card of a repeating action", func(t *testing.T) {
		v := newV2(t, cardsGraph, AppOptions{State: cardsState(), RequireHumanApproval: ptrBool(true)}, nil)
		p := v.port(t, PortOptions{})
		ctxA, ctxB := WithCaller(context.Background(), "A"), WithCaller(context.Background(), "B")
		call := func(ctx context.Context, args string) map[string]any {
			return checkResult(t, CallSettled(ctx, p, "crm.do_action", []byte(args), time.Second))
		}
		m := call(ctxA, `{"action":"cancel","instance":"o-1"}`)
		require.Equal(t, JudgmentNeedsConfirm, m["judgment"], "%v", m)
		askA := m["askId"].(string)
		require.NoError(t, v.app.ApproveAsk(askA, "pat"))

		m = call(ctxB, `{"action":"cancel","instance":"o-1","confirm":true}`)
		assert.Equal(t, ReasonApprovalNotYours, m["reason"], "%v", m)
		m = call(ctxA, cite(`{"action":"cancel","instance":"o-2","confirm":true}`, askA))
		assert.Equal(t, ReasonApprovalMismatch, m["reason"], "%v", m)
		assert.Equal(t, "instance", m["differs"], "the approval covers its card only")
		m = call(ctxA, `{"action":"cancel","instance":"o-1","confirm":true}`)
		assert.Equal(t, "performed", m["effectStatus"], "%v", m)
		assert.Equal(t, askA, m["askId"])
		info, _ := v.app.Ask(askA)
		assert.Equal(t, "used", info.State)
	})
}

// A standing grant allows any caller's fire without an ask: another
// caller's approved, unused ask for the same step does not turn that into
// APPROVAL_NOT_YOURS or ASK_ID_REQUIRED, and is left for its own caller.
func TestAGrantIsNotBlockedByAnotherCallersApproval(t *testing.T) {
	for _, tc := range []struct {
		name  string
		thief func(g gatedCheckout) approvalCaller
	}{
		{"another session on the port", func(g gatedCheckout) approvalCaller {
			return portAs(g.p1, WithCaller(context.Background(), "B"))
		}},
		{"a stateless call", func(g gatedCheckout) approvalCaller { return mcpAs(g.d, "") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGatedCheckout(t)
			askA := g.askFor(t, portAs(g.p1, WithCaller(context.Background(), "A")))
			require.NoError(t, g.s.app.AlwaysApprove("checkout.pay", "pat", 0))

			m := tc.thief(g)(t, confirm12)
			assert.Equal(t, "performed", m["effectStatus"], "the grant allows the fire: %v", m)
			assert.NotContains(t, m, "askId", "backed by the grant, not by A's ask")
			info, _ := g.s.app.Ask(askA)
			assert.Equal(t, "approved", info.State, "A's approval is not used")
		})
	}
}
