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

// ErrorCodePortClosed is the Turn.ErrorCode of a Session.Resume whose kit's
// port was closed (serve.Port.Close): the ask was neither approved nor
// declined, nothing ran, and nothing was added to the history.
const ErrorCodePortClosed = "port_closed"

// PortClosedError is AnswerAsk's error once the kit's port is closed. It is
// a session.AskError with code ErrorCodePortClosed.
type PortClosedError struct {
	AskID string // the ask that was being answered
}

// Error says that nothing was approved or performed, and what to do.
func (e *PortClosedError) Error() string {
	return "the app's port is closed, so ask " + strconv.Quote(e.AskID) +
		" was neither approved nor declined and nothing was performed; create a new port (and a session on it) to go on"
}

// ErrorCode is ErrorCodePortClosed.
func (e *PortClosedError) ErrorCode() string { return ErrorCodePortClosed }

var _ session.AskError = (*PortClosedError)(nil)

// AnswerAsk is the session's approval door (session.ApprovalDoors): it
// approves or declines askID through the port's human doors
// (App.ApproveAsk, App.DeclineAsk) by answeredBy, and returns the note the
// model reads. An ask the person already answered the same way (approved,
// or approved and used, for an approval; declined or revoked, for a
// decline) counts as done. Any other state is an error that says what the
// ask is; an unknown ask is an error too. Once the port is closed every
// answer is a *PortClosedError and the app is not touched: an approval
// could never be used through the closed port, so no note may say it was
// given. (A port closed while the door answers gets a *PortClosedError
// too, though the app may by then hold the answer.)
func (k *Kit) AnswerAsk(_ context.Context, askID string, approve bool) (string, error) {
	if k.port.Closed() {
		return "", &PortClosedError{AskID: askID}
	}
	app := k.port.App()
	var err error
	if approve {
		err = app.ApproveAsk(askID, answeredBy)
	} else {
		err = app.DeclineAsk(askID, answeredBy)
	}
	if k.port.Closed() {
		// Closed while the door answered: no note may say the approval
		// can be used (only this kit's fires could use it, and none can
		// come through a closed port).
		return "", &PortClosedError{AskID: askID}
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
