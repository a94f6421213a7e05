// Resume: the host answers the asks a turn stopped on, through the kit's
// human doors, and the loop goes on as Chat's does.

package session

import (
	"context"
	"strconv"
	"strings"

	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/internal/jsonw"
)

// Resolution is a person's answers to pending asks: the ids to approve and
// the ids to decline. Together they name at least one ask, each once.
type Resolution struct {
	Approve []string
	Decline []string
}

// Resume answers pending asks (Session.PendingApprovals, from the last turn
// that stopped on them) and continues the conversation. For each ask, in
// the order the asks arose, it calls the doors (the Kit's, or
// Options.Execute's, ApprovalDoors) and adds their notes to the history as
// one user message; then the loop runs exactly as in Chat (the same rounds,
// bounds and events), and the resulting Turn is returned. It may itself
// stop on new asks. Answered asks leave the pending set; the others stay.
//
// Resume is host API: no tool reaches it, so the model cannot approve.
// Close cancels a Resume in progress as it does a Chat; a model request
// refused before its answer starts restores the history as it was once the
// asks' notes were added (they answer calls of an earlier turn).
// It never returns a Go error; a Turn with StatusError carries the code:
// ErrorCodeBadResolution (no id, an empty id, an id named twice),
// ErrorCodeBusy (a Chat or Resume is running), ErrorCodeNoApprovalDoors,
// ErrorCodeUnknownAsk (an id that is not pending) — in those cases nothing
// changed — or ErrorCodeAskRefused (the doors refused an answer: the asks
// answered before it leave the pending set and their notes are in the
// history, the refused one and the rest stay pending, and no model request
// is made; doors whose error is an AskError give its code instead, on the
// same terms).
func (s *Session) Resume(ctx context.Context, r Resolution) Turn {
	if !traced {
		return s.resume(ctx, r, nil)
	}
	ctx, tt := startTurnTrace(s, ctx, "", &r)
	return tt.ended(s.resume(ctx, r, tt))
}

// resume is Resume, traced by tt (nil: untraced).
func (s *Session) resume(ctx context.Context, r Resolution, tt *turnTrace) Turn {
	if ctx.Err() != nil {
		return Turn{Status: StatusCancelled, ErrorMessage: "The resume was cancelled before it started."}
	}
	answers, err := r.answers()
	if err != nil {
		return Turn{Status: StatusError, ErrorCode: ErrorCodeBadResolution, ErrorMessage: err.Error()}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if !s.begin(cancel) {
		return busyTurn
	}
	defer s.finish()
	doors := s.approvalDoors()
	if doors == nil {
		return Turn{Status: StatusError, ErrorCode: ErrorCodeNoApprovalDoors,
			ErrorMessage: "session: Resume needs approval doors, and neither the session's kit nor its executor implements ApprovalDoors; " +
				"give the session a kit that does (a port kit, portkit.Kit), or answer the asks in the app and Chat."}
	}
	order, msg := s.orderAnswers(answers)
	if msg != "" {
		return Turn{Status: StatusError, ErrorCode: ErrorCodeUnknownAsk, ErrorMessage: msg}
	}
	// A refused request restores the history with the asks' answers in it:
	// they answer calls of an earlier turn, and the steps they approved may
	// have run.
	var before snapshot
	return s.runTurn(ctx, ChatOptions{}, &before, tt, func(ctx context.Context) *outcome {
		o := s.answerAsks(ctx, doors, order, answers, tt)
		before = s.snapshot()
		return o
	})
}

// answers maps each id of r to its answer (true: approve), or says what is
// wrong with r.
func (r Resolution) answers() (map[string]bool, error) {
	out := make(map[string]bool, len(r.Approve)+len(r.Decline))
	for _, list := range []struct {
		ids     []string
		approve bool
	}{{r.Approve, true}, {r.Decline, false}} {
		for _, id := range list.ids {
			if id == "" {
				return nil, errs.New("session: the resolution has an empty ask id; give the askId of each pending approval")
			}
			if _, dup := out[id]; dup {
				return nil, errs.New("session: the resolution names ask ", strconv.Quote(id), " twice; approve or decline each ask once")
			}
			out[id] = list.approve
		}
	}
	if len(out) == 0 {
		return nil, errs.New("session: the resolution answers no ask; list ask ids to approve or decline (Turn.PendingApprovals)")
	}
	return out, nil
}

// orderAnswers returns the answered asks in the order they arose, or a
// message naming the ids that are not pending.
func (s *Session) orderAnswers(answers map[string]bool) ([]PendingApproval, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var order []PendingApproval
	pending := make([]string, 0, len(s.pending))
	for _, p := range s.pending {
		pending = append(pending, strconv.Quote(p.AskID))
		if _, ok := answers[p.AskID]; ok {
			order = append(order, p)
		}
	}
	if len(order) == len(answers) {
		return order, ""
	}
	var unknown []string
	for id := range answers {
		found := false
		for _, p := range order {
			found = found || p.AskID == id
		}
		if !found {
			unknown = append(unknown, strconv.Quote(id))
		}
	}
	jsonw.SortStrings(unknown)
	which := "none is pending"
	if len(pending) > 0 {
		which = "the pending ones are " + strings.Join(pending, ", ")
	}
	return nil, "session: " + strings.Join(unknown, ", ") + " is not a pending ask of this session (" + which +
		"); resolve only the asks of the last turn's PendingApprovals, which a later Chat clears"
}

// answerAsks calls the doors for each ask in order, then adds their notes
// to the history as one user message and drops the answered asks from the
// pending set. A refusal (or the turn's cancellation) stops at that ask.
// tt hears of each answer the doors took.
func (s *Session) answerAsks(ctx context.Context, doors ApprovalDoors, order []PendingApproval, answers map[string]bool, tt *turnTrace) *outcome {
	var notes []string
	done := map[string]bool{}
	var stop *outcome
	for _, p := range order {
		approve := answers[p.AskID]
		note, err := answerAsk(ctx, doors, p.AskID, approve)
		if err != nil {
			if ctx.Err() != nil {
				stop = cancelledOutcome
				break
			}
			verb := "decline"
			if approve {
				verb = "approve"
			}
			s.mu.Lock()
			msg := s.secrets.scrub(err.Error())
			s.mu.Unlock()
			code, advice := ErrorCodeAskRefused, "check its state in the app, then Resume again or Chat."
			var coded AskError
			if errs.As(err, &coded) && coded.ErrorCode() != "" {
				code, advice = coded.ErrorCode(), "nothing was said to the model about it."
			}
			stop = &outcome{status: StatusError, code: code,
				msg: "Could not " + verb + " ask " + strconv.Quote(p.AskID) + ": " + msg +
					". The asks answered before it are recorded; this one and the rest are still pending: " + advice}
			break
		}
		if strings.TrimSpace(note) == "" {
			note = defaultNote(p, approve)
		}
		notes = append(notes, note)
		done[p.AskID] = true
		if traced {
			tt.answered(p.AskID, approve)
		}
	}
	if len(notes) > 0 {
		s.appendHistory(Message{Role: "user", Content: strings.Join(notes, "\n")})
	}
	s.mu.Lock()
	kept := s.pending[:0:0]
	for _, p := range s.pending {
		if !done[p.AskID] {
			kept = append(kept, p)
		}
	}
	s.pending = kept
	s.mu.Unlock()
	return stop
}

// answerAsk calls the doors, recovering from a panic in them.
func answerAsk(ctx context.Context, doors ApprovalDoors, id string, approve bool) (note string, err error) {
	defer func() {
		if p := recover(); p != nil {
			note, err = "", errs.New("the approval doors panicked: ", errs.Text(p))
		}
	}()
	return doors.AnswerAsk(ctx, id, approve)
}

// defaultNote is the note for doors that gave none.
func defaultNote(p PendingApproval, approve bool) string {
	what := "ask " + strconv.Quote(p.AskID)
	if p.Action != "" {
		what += " (" + p.Action + ")"
	}
	if approve {
		return "Approved: the person approved " + what + "."
	}
	return "Declined: the person declined " + what + "; do not perform it."
}
