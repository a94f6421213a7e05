// A turn's lifecycle against the session's: one turn at a time (begin,
// finish), Close cancelling the turn in progress, Reset refused while one
// runs, a refused request restoring the history (snapshot, restore), and
// the request's messages always well formed (requestMessages).

package session

import (
	"context"
	"errors"
)

// ErrBusy is Reset's error while a Chat or Resume runs on the session: the
// history is left as it is. Wait for the turn to end (or cancel it), then
// reset.
var ErrBusy = errors.New("session: a chat (or resume) is running on this session; wait for it to end, or cancel it, then reset")

// begin takes the session for one turn whose context cancel ends, or says
// false when another turn holds it. Close cancels the turn that holds it.
func (s *Session) begin(cancel context.CancelFunc) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busy.Load() {
		return false
	}
	s.busy.Store(true)
	s.cancelTurn = cancel
	// What a snapshot taken while the turn runs holds (snapshot.go).
	s.turnStart, s.turnPending = len(s.history), clonePending(s.pending)
	return true
}

// finish releases the session that begin took.
func (s *Session) finish() {
	s.mu.Lock()
	s.cancelTurn = nil
	s.busy.Store(false)
	s.mu.Unlock()
}

// snapshot is what a refused request restores: the history's length and
// the pending asks. (The turn only appends to the history, and Reset is
// refused while it runs, so the length names the state.)
type snapshot struct {
	history int
	pending []PendingApproval
}

// snapshot returns the session's history and pending asks as they are.
func (s *Session) snapshot() snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return snapshot{history: len(s.history), pending: clonePending(s.pending)}
}

// restore puts the history and pending asks back as snap recorded them.
func (s *Session) restore(snap *snapshot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if snap.history < len(s.history) {
		clear(s.history[snap.history:]) // drop the references the tail held
		s.history = s.history[:snap.history]
	}
	s.pending = clonePending(snap.pending)
}

// refused marks o, a failure of a model request before its answer started,
// as one that restores the history; a cancellation is kept as it is (the
// turn keeps what it added, every call answered).
func refused(o *outcome) *outcome {
	if o.status == StatusCancelled {
		return o
	}
	c := *o
	c.refused = true
	return &c
}

// requestMessages is the history as a request carries it: a copy (Messages)
// in which every tool message answers a call of the assistant message
// before it. A tool message whose call is not there is dropped, so no
// request ever carries an orphaned tool message, which strict providers
// reject. (The session never writes one — Reset waits for no turn, it is
// refused while one runs — so this is a guard, not a repair.)
func (s *Session) requestMessages() []Message {
	msgs := s.Messages()
	out := msgs[:0]
	var calls []ToolCall // the calls of the last assistant message, while tool messages follow it
	for _, m := range msgs {
		switch m.Role {
		case "assistant":
			calls = m.ToolCalls
		case "tool":
			if !answers(calls, m.ToolCallID) {
				continue
			}
		default:
			calls = nil
		}
		out = append(out, m)
	}
	return out
}

// answers reports whether id is the id of one of calls.
func answers(calls []ToolCall, id string) bool {
	for i := range calls {
		if calls[i].ID == id {
			return true
		}
	}
	return false
}
