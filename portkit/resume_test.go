// Approval as an interruption, end to end on a real app that requires a
// person's approval: the turn stops on the ask, Resume answers it through
// the port's human doors, and the action's handler runs exactly once (or,
// declined, never).

package portkit_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentwasm/agentwasm/portkit"
	"github.com/agentwasm/agentwasm/serve"
	"github.com/agentwasm/agentwasm/session"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newCheckout is the shop, requiring human approval, with the person at
// checkout: paying is one high-effect call away.
func newCheckout(t *testing.T, log *handlerLog) *serve.Port {
	t.Helper()
	g, err := serve.ParseGraph([]byte(shopGraph))
	require.NoError(t, err)
	yes := true
	app, err := serve.NewApp(g, serve.AppOptions{
		RequireHumanApproval: &yes,
		Page:                 "checkout",
		Handlers:             map[string]serve.Handler{"checkout.pay": log.handler(map[string]any{"orderId": "o-1"})},
	})
	require.NoError(t, err)
	p, err := serve.NewPort(app, serve.PortOptions{})
	require.NoError(t, err)
	return p
}

var (
	payCall     = call("c1", "shop.do_action", `{"action":"checkout.pay"}`)
	confirmCall = call("c2", "shop.do_action", `{"action":"checkout.pay","confirm":true}`)
)

// stepLog records the stepFinish events of a session.
type stepLog struct{ steps []session.Step }

func (l *stepLog) observe(ev session.Event) {
	if ev.Type == session.EventTypeStepFinish {
		l.steps = append(l.steps, *ev.Step)
	}
}

func (l *stepLog) rounds() []int {
	var out []int
	for _, s := range l.steps {
		out = append(out, s.Round)
	}
	return out
}

// payTurn starts a session on the checkout port whose model calls pay, and
// returns it stopped on the ask.
func payTurn(t *testing.T, port *serve.Port, steps *stepLog, rounds ...[]session.StreamEvent) (*session.Session, *session.ScriptedTransport, session.PendingApproval) {
	t.Helper()
	tr := session.NewScriptedTransport(append([][]session.StreamEvent{session.ToolCallRound(payCall)}, rounds...)...)
	opts := session.Options{Transport: tr, Kit: portkit.New(port, portkit.Options{}), DisableToolDiscovery: true}
	if steps != nil {
		opts.OnEvent = steps.observe
	}
	s, err := session.New(opts)
	require.NoError(t, err)
	turn := s.Chat(context.Background(), "Pay for my order.")
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	require.Equal(t, 1, turn.Rounds, "one model round: the turn stops on the ask")
	require.Len(t, tr.Requests(), 1)
	require.Len(t, turn.PendingApprovals, 1)
	return s, tr, turn.PendingApprovals[0]
}

// Approved through Resume, the model's confirm fires the action: its
// handler runs exactly once, the ask is used, and resuming again is an
// unknown ask.
func TestResumeApprovalRunsTheHandlerOnce(t *testing.T) {
	log := &handlerLog{}
	port := newCheckout(t, log)
	steps := &stepLog{}
	s, tr, ask := payTurn(t, port, steps, session.ToolCallRound(confirmCall), session.TextRound("Paid."))

	assert.Equal(t, "c1", ask.ToolCallID)
	assert.Equal(t, "shop.do_action", ask.ToolName)
	assert.Equal(t, "checkout.pay", ask.Action)
	var detail map[string]any
	require.NoError(t, json.Unmarshal(ask.Detail, &detail), string(ask.Detail))
	assert.Equal(t, "needs-confirm", detail["judgment"])
	assert.Equal(t, true, detail["awaitingHuman"])
	assert.Equal(t, ask.AskID, detail["askId"])
	assert.Contains(t, detail, "willDo")
	assert.Equal(t, []session.PendingApproval{ask}, s.PendingApprovals())
	assert.Empty(t, log.actions(), "nothing ran while the ask waits")

	turn := s.Resume(context.Background(), session.Resolution{Approve: []string{ask.AskID}})
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	assert.Equal(t, "Paid.", turn.Text)
	assert.Equal(t, 2, turn.Rounds)
	assert.Empty(t, turn.PendingApprovals)
	assert.Empty(t, s.PendingApprovals(), "the answered ask left the pending set")
	require.Len(t, turn.ToolCalls, 1)
	paid := result(t, turn.ToolCalls[0])
	assert.Equal(t, "performed", paid["effectStatus"], "%v", paid)
	assert.Equal(t, ask.AskID, paid["askId"], "the fire used the person's approval")
	assert.Equal(t, []string{"checkout.pay/agent"}, log.actions(), "the handler ran exactly once")
	info, ok := port.App().Ask(ask.AskID)
	require.True(t, ok)
	assert.Equal(t, "used", info.State)
	assert.Equal(t, "person", info.AnsweredBy)

	// The note is one user message after the tool message, and the model
	// read it in its next request.
	msgs := s.Messages()
	require.Len(t, msgs, 7)
	note := msgs[3]
	assert.Equal(t, "user", note.Role)
	assert.Contains(t, note.Content, "Approved")
	assert.Contains(t, note.Content, ask.AskID)
	assert.Contains(t, note.Content, "checkout.pay")
	assert.Contains(t, note.Content, "confirm:true")
	reqs := tr.Requests()
	require.Len(t, reqs, 3)
	assert.Equal(t, note, reqs[1].Messages[len(reqs[1].Messages)-1])
	assert.Equal(t, []int{1, 1, 2}, steps.rounds(), "a step per round: the chat's one, the resumed turn's two")

	again := s.Resume(context.Background(), session.Resolution{Approve: []string{ask.AskID}})
	assert.Equal(t, session.StatusError, again.Status)
	assert.Equal(t, session.ErrorCodeUnknownAsk, again.ErrorCode, again.ErrorMessage)
	assert.Len(t, tr.Requests(), 3, "resuming twice asks the model nothing")
	assert.Equal(t, []string{"checkout.pay/agent"}, log.actions(), "and runs nothing")
}

// Declined through Resume, the action never runs: the model is told not to
// perform it, and a confirm it sends anyway only raises a new ask.
func TestResumeDeclineNeverRunsTheHandler(t *testing.T) {
	log := &handlerLog{}
	port := newCheckout(t, log)
	s, tr, ask := payTurn(t, port, nil, session.ToolCallRound(confirmCall), session.TextRound("Not paid."))

	turn := s.Resume(context.Background(), session.Resolution{Decline: []string{ask.AskID}})
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	require.Len(t, turn.ToolCalls, 1)
	tried := result(t, turn.ToolCalls[0])
	assert.Equal(t, "needs-confirm", tried["judgment"], "a confirm after the person's no fires nothing: %v", tried)
	assert.NotContains(t, tried, "transitionId")
	require.Len(t, turn.PendingApprovals, 1, "the new ask waits for the person")
	assert.NotEqual(t, ask.AskID, turn.PendingApprovals[0].AskID)
	assert.Empty(t, log.actions(), "the handler never ran")
	info, _ := port.App().Ask(ask.AskID)
	assert.Equal(t, "declined", info.State)
	assert.Equal(t, "person", info.AnsweredBy)
	note := tr.Requests()[1].Messages
	assert.Contains(t, note[len(note)-1].Content, "Declined")
	assert.Contains(t, note[len(note)-1].Content, "Do not perform it")
}

// The model cannot approve: a confirm:true on its very first call waits
// for the person like any other, and nothing runs.
func TestModelConfirmWithoutApprovalIsRefused(t *testing.T) {
	log := &handlerLog{}
	port := newCheckout(t, log)
	tr := session.NewScriptedTransport(session.ToolCallRound(confirmCall), session.TextRound("unreachable"))
	s, err := session.New(session.Options{Transport: tr, Kit: portkit.New(port, portkit.Options{}), DisableToolDiscovery: true})
	require.NoError(t, err)
	turn := s.Chat(context.Background(), "Pay, I said yes.")
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	assert.Equal(t, 1, turn.Rounds)
	assert.Equal(t, "needs-confirm", result(t, turn.ToolCalls[0])["judgment"])
	require.Len(t, turn.PendingApprovals, 1)
	assert.Empty(t, log.actions())
	info, _ := port.App().Ask(turn.PendingApprovals[0].AskID)
	assert.Equal(t, "pending", info.State, "only the person's door approves")
}

// Resolutions the session or the port refuse, and answers the person
// already gave on the card.
func TestResumeResolutions(t *testing.T) {
	cases := []struct {
		name     string
		card     func(app *serve.App, askID string) error // what the person did on the card first
		approve  []string                                 // "$" is the pending ask's id
		decline  []string
		code     string // "" for a turn that went on
		pending  bool   // the ask is still pending afterwards
		handlers int    // how many times pay ran
		declined bool   // after the resolution the model answers with text instead of confirming
	}{
		{name: "unknown id", approve: []string{"ask#99"}, code: session.ErrorCodeUnknownAsk, pending: true},
		{name: "a pending id and an unknown one", approve: []string{"$", "ask#99"}, code: session.ErrorCodeUnknownAsk, pending: true},
		{name: "no id", code: session.ErrorCodeBadResolution, pending: true},
		{name: "approved and declined", approve: []string{"$"}, decline: []string{"$"}, code: session.ErrorCodeBadResolution, pending: true},
		{name: "approved on the card, then here", card: func(a *serve.App, id string) error { return a.ApproveAsk(id, "ana") },
			approve: []string{"$"}, handlers: 1},
		{name: "declined on the card, then here", card: func(a *serve.App, id string) error { return a.DeclineAsk(id, "ana") },
			decline: []string{"$"}, declined: true},
		{name: "declined on the card, approved here", card: func(a *serve.App, id string) error { return a.DeclineAsk(id, "ana") },
			approve: []string{"$"}, code: session.ErrorCodeAskRefused, pending: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			log := &handlerLog{}
			port := newCheckout(t, log)
			next := session.ToolCallRound(confirmCall)
			if tc.declined {
				next = session.TextRound("Understood.")
			}
			s, tr, ask := payTurn(t, port, nil, next, session.TextRound("Done."))
			if tc.card != nil {
				require.NoError(t, tc.card(port.App(), ask.AskID))
			}
			ids := func(list []string) []string {
				var out []string
				for _, id := range list {
					if id == "$" {
						id = ask.AskID
					}
					out = append(out, id)
				}
				return out
			}
			before := s.Messages()
			turn := s.Resume(context.Background(), session.Resolution{Approve: ids(tc.approve), Decline: ids(tc.decline)})
			if tc.code == "" {
				assert.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
			} else {
				assert.Equal(t, session.StatusError, turn.Status)
				assert.Equal(t, tc.code, turn.ErrorCode, turn.ErrorMessage)
				assert.NotEmpty(t, turn.ErrorMessage)
				assert.Len(t, tr.Requests(), 1, "no model request")
				assert.Equal(t, before, s.Messages(), "the history is unchanged")
			}
			if tc.pending {
				assert.Equal(t, []session.PendingApproval{ask}, s.PendingApprovals())
			} else {
				assert.Empty(t, s.PendingApprovals())
			}
			assert.Len(t, log.actions(), tc.handlers)
		})
	}
}

// A later Chat forgets the pending asks: resuming one is then unknown.
func TestChatClearsPendingApprovals(t *testing.T) {
	port := newCheckout(t, &handlerLog{})
	s, _, ask := payTurn(t, port, nil, session.TextRound("Never mind."))
	turn := s.Chat(context.Background(), "Never mind.")
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	assert.Empty(t, turn.PendingApprovals)
	assert.Empty(t, s.PendingApprovals())
	turn = s.Resume(context.Background(), session.Resolution{Approve: []string{ask.AskID}})
	assert.Equal(t, session.ErrorCodeUnknownAsk, turn.ErrorCode)
}

// The kit's door by itself: an unknown ask is an error, an approval already
// used is done (and the note says so).
func TestKitAnswerAsk(t *testing.T) {
	log := &handlerLog{}
	port := newCheckout(t, log)
	k := portkit.New(port, portkit.Options{})
	_, err := k.AnswerAsk(context.Background(), "ask#404", true)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ask#404")

	asked, err := k.Execute(context.Background(), payCall)
	require.NoError(t, err)
	require.NotNil(t, asked.Approval)
	assert.Equal(t, "checkout.pay", asked.Approval.Action)
	id := asked.Approval.AskID
	note, err := k.AnswerAsk(context.Background(), id, true)
	require.NoError(t, err)
	assert.Contains(t, note, "confirm:true")
	fired, err := k.Execute(context.Background(), confirmCall)
	require.NoError(t, err)
	assert.Nil(t, fired.Approval)
	assert.Contains(t, string(fired.Data), `"effectStatus":"performed"`)
	note, err = k.AnswerAsk(context.Background(), id, true)
	require.NoError(t, err, "approving a used approval again counts as done")
	assert.Contains(t, note, "already been performed")
	_, err = k.AnswerAsk(context.Background(), id, false)
	require.Error(t, err, "a used approval cannot be declined")
	assert.Equal(t, []string{"checkout.pay/agent"}, log.actions())
}

// Resume after the port is closed answers port_closed: the ask is neither
// approved nor declined in the app, nothing runs, no model request is made
// and nothing is added to the history — the model is told nothing.
func TestResumeAfterThePortClosed(t *testing.T) {
	for _, approve := range []bool{true, false} {
		name := "decline"
		if approve {
			name = "approve"
		}
		t.Run(name, func(t *testing.T) {
			log := &handlerLog{}
			port := newCheckout(t, log)
			s, tr, ask := payTurn(t, port, nil, session.ToolCallRound(confirmCall), session.TextRound("Paid."))
			before := s.Messages()
			port.Close()

			res := session.Resolution{Decline: []string{ask.AskID}}
			if approve {
				res = session.Resolution{Approve: []string{ask.AskID}}
			}
			turn := s.Resume(context.Background(), res)
			assert.Equal(t, session.StatusError, turn.Status)
			assert.Equal(t, portkit.ErrorCodePortClosed, turn.ErrorCode)
			assert.Contains(t, turn.ErrorMessage, "port is closed")
			assert.Contains(t, turn.ErrorMessage, "nothing was performed")
			assert.Zero(t, turn.Rounds)
			assert.Len(t, tr.Requests(), 1, "no model request after the refusal")
			assert.Equal(t, before, s.Messages(), "nothing was added to the history")
			assert.Empty(t, log.actions(), "nothing ran")
			info, ok := port.App().Ask(ask.AskID)
			require.True(t, ok)
			assert.Equal(t, "pending", info.State, "the app's ask was not answered")
			assert.Equal(t, []session.PendingApproval{ask}, s.PendingApprovals(), "the ask stays pending")
		})
	}
}

// PortClosedError is a session.AskError with the port_closed code.
func TestPortClosedErrorIsCoded(t *testing.T) {
	var err error = &portkit.PortClosedError{AskID: "ask-1"}
	var coded session.AskError
	require.ErrorAs(t, err, &coded)
	assert.Equal(t, "port_closed", coded.ErrorCode())
	assert.Contains(t, err.Error(), `"ask-1"`)
}

// Two sessions share one port, each through its own kit: the person
// approves the first session's ask, the second session's model confirms
// the same step with the same input and is refused (APPROVAL_NOT_YOURS)
// without using the approval; the first session's resume then fires it,
// once.
func TestAnotherKitCannotUseTheApproval(t *testing.T) {
	log := &handlerLog{}
	port := newCheckout(t, log)
	a, _, ask := payTurn(t, port, nil, session.ToolCallRound(confirmCall), session.TextRound("Paid."))
	require.NoError(t, port.App().ApproveAsk(ask.AskID, "person"))

	trB := session.NewScriptedTransport(session.ToolCallRound(confirmCall), session.TextRound("Tried."))
	b, err := session.New(session.Options{Transport: trB, Kit: portkit.New(port, portkit.Options{}), DisableToolDiscovery: true})
	require.NoError(t, err)
	turnB := b.Chat(context.Background(), "Pay for it.")
	require.Equal(t, session.StatusCompleted, turnB.Status, turnB.ErrorMessage)
	require.Len(t, turnB.ToolCalls, 1)
	refused := result(t, turnB.ToolCalls[0])
	assert.Equal(t, "APPROVAL_NOT_YOURS", refused["reason"], "%v", refused)
	assert.Empty(t, log.actions(), "the second session's confirm ran nothing")
	info, ok := port.App().Ask(ask.AskID)
	require.True(t, ok)
	assert.Equal(t, "approved", info.State, "and did not use the first session's approval")

	turnA := a.Resume(context.Background(), session.Resolution{Approve: []string{ask.AskID}})
	require.Equal(t, session.StatusCompleted, turnA.Status, turnA.ErrorMessage)
	assert.Equal(t, []string{"checkout.pay/agent"}, log.actions(), "the asker's confirm fired it once")
}
