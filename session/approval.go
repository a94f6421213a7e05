// Approval as an interruption: a tool result that waits for a person's
// answer to an ask stops the turn after its round, the session keeps the
// pending asks, and Resume (resume.go) answers them through the kit's human
// doors. The session knows nothing of what an ask is: an executor says so
// in ToolResult.Approval, and the kit's ApprovalDoors answer it.

package session

import (
	"context"
)

// ApprovalRequest, set on a ToolResult by an executor, says that the call
// is waiting for a person to answer an ask: the turn stops after the round's
// calls are all dispatched, and the ask is listed in Turn.PendingApprovals
// until the host answers it with Session.Resume. A request without an AskID
// is ignored.
type ApprovalRequest struct {
	AskID  string // the ask's id, as the kit's ApprovalDoors know it
	Action string // what the ask is for (for a port kit, the app's action id)
}

// PendingApproval is an ask a turn stopped on, for the host's approval card.
//
//easyjson:json
//agentwasm:encode-only
type PendingApproval struct {
	AskID      string `json:"askId"`
	ToolCallID string `json:"toolCallId"` // the call whose result raised it
	ToolName   string `json:"toolName"`
	Action     string `json:"action"`
	// Detail is the tool result's data (for a port kit, the port's result
	// object: judgment, willDo, willUse …), with every known token
	// redacted; nil when the result carried none.
	Detail RawJSON `json:"detail"`
}

// ApprovalDoors is implemented by a kit (or an Options.Execute executor)
// whose results can wait for a person: the human side of its asks.
// Session.Resume calls AnswerAsk once per ask it resolves, with approve
// true for an approval and false for a decline. AnswerAsk returns a note
// for the model, which Resume adds to the history (the notes of one Resume
// in one user message), or an error saying why the ask cannot take that
// answer. An ask the person already answered the same way should count as
// done, not as an error. An error with an ErrorCode() string method (an
// AskError) gives the Resume's Turn that code in place of
// ErrorCodeAskRefused. The model never reaches AnswerAsk: Resume is host
// API only.
type ApprovalDoors interface {
	AnswerAsk(ctx context.Context, askID string, approve bool) (note string, err error)
}

// The Turn.ErrorCode values of a Resume that could not start, or whose
// doors refused an answer.
const (
	// ErrorCodeBadResolution: the Resolution names no ask, names one twice,
	// or has an empty id.
	ErrorCodeBadResolution = "bad_resolution"
	// ErrorCodeUnknownAsk: an id of the Resolution is not one of the
	// session's pending asks.
	ErrorCodeUnknownAsk = "unknown_ask"
	// ErrorCodeNoApprovalDoors: neither the session's Kit nor its
	// Options.Execute implements ApprovalDoors.
	ErrorCodeNoApprovalDoors = "no_approval_doors"
	// ErrorCodeAskRefused: the doors refused to answer an ask (say, the
	// person declined on the card an ask the host now approves).
	ErrorCodeAskRefused = "ask_refused"
)

// AskError is an error of ApprovalDoors.AnswerAsk that carries its own
// Turn.ErrorCode (portkit's port_closed, say): Resume's Turn has that code
// instead of ErrorCodeAskRefused, with the error's text in its message.
type AskError interface {
	error
	ErrorCode() string
}

// PendingApprovals returns the asks that await a person's answer: those of
// the last turn that stopped on them, less those Resume answered since. A
// Chat clears them, and so does Reset.
func (s *Session) PendingApprovals() []PendingApproval {
	s.mu.Lock()
	defer s.mu.Unlock()
	return clonePending(s.pending)
}

// addPending records an ask a dispatch raised; an ask already pending (the
// model met the same ask again) takes the newer call's place.
func (s *Session) addPending(p PendingApproval) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.pending {
		if s.pending[i].AskID == p.AskID {
			s.pending[i] = p
			return
		}
	}
	s.pending = append(s.pending, p)
}

// clearPending forgets every pending ask.
func (s *Session) clearPending() {
	s.mu.Lock()
	s.pending = nil
	s.mu.Unlock()
}

func clonePending(ps []PendingApproval) []PendingApproval {
	if len(ps) == 0 {
		return nil
	}
	out := make([]PendingApproval, len(ps))
	for i, p := range ps {
		p.Detail = append(RawJSON(nil), p.Detail...)
		out[i] = p
	}
	return out
}

// pendingOf is the pending approval a runtime result raised, or nil.
func pendingOf(res ToolResult, rec DispatchRecord, detail RawJSON) *PendingApproval {
	a := res.Approval
	if a == nil || a.AskID == "" {
		return nil
	}
	return &PendingApproval{AskID: a.AskID, ToolCallID: rec.ToolCallID, ToolName: rec.ToolName, Action: a.Action, Detail: detail}
}

// approvalDoors returns the doors that answer the session's asks: the
// executor that runs runtime tools, else the Kit; nil when neither has them.
func (s *Session) approvalDoors() ApprovalDoors {
	if d, ok := s.opts.Execute.(ApprovalDoors); ok {
		return d
	}
	if d, ok := s.opts.Kit.(ApprovalDoors); ok {
		return d
	}
	return nil
}
