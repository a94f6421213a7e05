// A reload in the middle of an approval: the session and the port are
// snapshotted while the turn waits on the ask, made anew from the
// snapshots, and the person's answer after the reload is honoured — the
// step runs once when approved, never when declined — while a kit that
// does not hold the ask cannot use it.

package portkit_test

import (
	"context"
	"testing"

	"github.com/agentwasm/agentwasm/portkit"
	"github.com/agentwasm/agentwasm/serve"
	"github.com/agentwasm/agentwasm/session"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reload makes the checkout app and port anew from the port's snapshot and
// a session from the session's, its kit adopting adopt; the session's
// model then answers rounds.
func reload(t *testing.T, s *session.Session, port *serve.Port, log *handlerLog, adopt []string, rounds ...[]session.StreamEvent) (*session.Session, *serve.Port) {
	t.Helper()
	portSnap, err := port.Snapshot()
	require.NoError(t, err)
	sessSnap, err := s.Snapshot()
	require.NoError(t, err)
	g, err := serve.ParseGraph([]byte(shopGraph))
	require.NoError(t, err)
	yes := true
	app, err := serve.NewApp(g, serve.AppOptions{
		RequireHumanApproval: &yes, Page: "checkout", Restore: portSnap,
		Handlers: map[string]serve.Handler{"checkout.pay": log.handler(map[string]any{"orderId": "o-1"})},
	})
	require.NoError(t, err)
	p, err := serve.NewPort(app, serve.PortOptions{Restore: portSnap})
	require.NoError(t, err)
	tr := session.NewScriptedTransport(rounds...)
	s2, err := session.New(session.Options{Transport: tr, Kit: portkit.New(p, portkit.Options{Adopt: adopt}),
		DisableToolDiscovery: true, Restore: sessSnap})
	require.NoError(t, err)
	return s2, p
}

func TestApprovalAcrossReload(t *testing.T) {
	for _, tc := range []struct {
		name    string
		adopt   bool // the new kit adopts the session's pending asks
		approve bool
		ran     []string
		reason  string // the confirm's refusal, if refused
		state   string // the ask's state after
	}{
		{name: "approved after the reload, it runs once", adopt: true, approve: true, ran: []string{"checkout.pay/agent"}, state: "used"},
		{name: "declined after the reload, it never runs", adopt: true, approve: false, state: "declined"},
		{name: "a kit that does not adopt the ask cannot use it", adopt: false, approve: true, reason: "APPROVAL_NOT_YOURS", state: "approved"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := &handlerLog{}
			port := newCheckout(t, log)
			s, _, ask := payTurn(t, port, nil)
			var adopt []string
			if tc.adopt {
				adopt = []string{ask.AskID}
			}
			s2, p := reload(t, s, port, log, adopt, session.ToolCallRound(confirmCall), session.TextRound("Done."))
			res := session.Resolution{Decline: []string{ask.AskID}}
			if tc.approve {
				res = session.Resolution{Approve: []string{ask.AskID}}
			}
			turn := s2.Resume(context.Background(), res)
			require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
			assert.Equal(t, tc.ran, log.actions())
			if tc.reason != "" {
				require.NotEmpty(t, turn.ToolCalls)
				assert.Equal(t, tc.reason, result(t, turn.ToolCalls[len(turn.ToolCalls)-1])["reason"])
			}
			info, ok := p.App().Ask(ask.AskID)
			require.True(t, ok)
			assert.Equal(t, tc.state, info.State)
		})
	}
}
