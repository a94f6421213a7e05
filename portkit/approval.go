// The kit's approval doors: a result that waits for a person becomes the
// session's ApprovalRequest, and Resume's answers go through the port's
// human doors, never through a tool the model can call.

package portkit

import (
	"context"
	"strconv"

	"github.com/agentwasm/agentwasm/serve"
	"github.com/agentwasm/agentwasm/session"
)

// answeredBy is who the kit's AnswerAsk says answered an ask: the port's
// human doors record the person.
const answeredBy = "person"

// approvalOf returns the approval a port result waits for: a needs-confirm
// result with awaitingHuman and an askId; nil for any other.
func approvalOf(r serve.Result) *session.ApprovalRequest {
	if r.Judgment() != serve.JudgmentNeedsConfirm {
		return nil
	}
	if v, _ := r.Get("awaitingHuman"); v != true {
		return nil
	}
	id, _ := r.Get("askId")
	askID, _ := id.(string)
	if askID == "" {
		return nil
	}
	act, _ := r.Get("action")
	action, _ := act.(string)
	return &session.ApprovalRequest{AskID: askID, Action: action}
}

// AnswerAsk is the session's approval door (session.ApprovalDoors): it
// approves or declines askID through the port's human doors
// (App.ApproveAsk, App.DeclineAsk) by answeredBy, and returns the note the
// model reads. An ask the person already answered the same way (approved,
// or approved and used, for an approval; declined or revoked, for a
// decline) counts as done. Any other state is an error that says what the
// ask is; an unknown ask is an error too.
func (k *Kit) AnswerAsk(_ context.Context, askID string, approve bool) (string, error) {
	app := k.port.App()
	var err error
	if approve {
		err = app.ApproveAsk(askID, answeredBy)
	} else {
		err = app.DeclineAsk(askID, answeredBy)
	}
	info, known := app.Ask(askID)
	if err != nil && (!known || !sameAnswer(info.State, approve)) {
		return "", err
	}
	what := strconv.Quote(askID)
	if info.Action != "" {
		what += " (" + info.Action
		if info.Does != "" {
			what += ": " + info.Does
		}
		what += ")"
	}
	switch {
	case !approve:
		return "Declined: the person declined " + what + " in the app. Do not perform it, and do not ask for it again unless the person asks you to.", nil
	case info.State == "used":
		return "Approved: the person approved " + what + " in the app, and it has already been performed; do not perform it again.", nil
	}
	return "Approved: the person approved " + what + " in the app. Call the same step again with confirm:true (the same input) to perform it.", nil
}

// sameAnswer reports whether an ask in state already holds the answer.
func sameAnswer(state string, approve bool) bool {
	if approve {
		return state == "approved" || state == "used"
	}
	return state == "declined" || state == "revoked"
}
