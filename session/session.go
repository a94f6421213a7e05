// Session: the chat loop's entry points and the state a session keeps.

package session

import (
	"context"
	"sync"
	"sync/atomic"
)

// Session is one agent conversation. Its methods are safe for concurrent
// use, but only one Chat runs at a time: an overlapping Chat returns at once
// with StatusError and ErrorCodeBusy, touching nothing.
type Session struct {
	opts    Options
	busy    atomic.Bool
	mu      sync.Mutex // guards history
	history []Message
}

// New returns a session configured by opts, or an error naming the option
// that is out of range.
func New(opts Options) (*Session, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Session{opts: o}, nil
}

// Chat sends text as the person's next message and streams the model's
// answer. It returns when the turn ends; the Turn's Status says how.
// Cancelling ctx ends the turn with StatusCancelled and aborts the request.
func (s *Session) Chat(ctx context.Context, text string) Turn {
	if err := ctx.Err(); err != nil {
		return Turn{Status: StatusCancelled, ErrorMessage: "The chat was cancelled before it started."}
	}
	if !s.busy.CompareAndSwap(false, true) {
		return Turn{Status: StatusError, ErrorCode: ErrorCodeBusy,
			ErrorMessage: "Another chat is still running on this session; wait for it to finish or cancel it."}
	}
	defer s.busy.Store(false)

	t := &turnState{s: s}
	s.mu.Lock()
	s.history = append(s.history, Message{Role: "user", Content: text})
	s.mu.Unlock()

	t.turn.Rounds++
	r := t.runRound(ctx)
	if r.status != "" {
		t.turn.Status = r.status
		t.turn.ErrorMessage = r.errorMessage
		t.turn.ErrorCode = r.errorCode
	} else {
		t.turn.Status = StatusCompleted
	}
	if r.status == "" {
		s.mu.Lock()
		s.history = append(s.history, Message{Role: "assistant", Content: r.text})
		s.mu.Unlock()
	}
	return t.turn
}

// Messages returns a copy of the conversation history.
func (s *Session) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.history...)
}

// Reset clears the conversation history.
func (s *Session) Reset() {
	s.mu.Lock()
	s.history = nil
	s.mu.Unlock()
}

// emit hands ev to the observer, recovering from any panic in it.
func (s *Session) emit(ev Event) {
	if s.opts.OnEvent == nil {
		return
	}
	defer func() { _ = recover() }()
	s.opts.OnEvent(ev)
}
