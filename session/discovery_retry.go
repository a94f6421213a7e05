// Degraded discovery: after a failed pass, turns no longer wait for
// discovery; passes are retried in the background on the session's clock,
// with backoff, until one succeeds (or RefreshTools, Reconnect or Close
// takes over). And the trace that names the MCP request a pass was waiting
// on when its bound passed.

package session

import (
	"context"
	"time"
)

// Backoff of the background discovery retry: the first retry waits
// discoveryRetryInitial, each later one twice the one before, at most
// discoveryRetryMax.
const (
	discoveryRetryInitial = time.Second
	discoveryRetryMax     = time.Minute
)

// retryDelay is the wait before the retry that follows failures failed
// passes in a row (1 s, 2 s, 4 s … 60 s).
func retryDelay(failures int) time.Duration {
	d := discoveryRetryInitial
	for i := 1; i < failures && d < discoveryRetryMax; i++ {
		d *= 2
	}
	return min(d, discoveryRetryMax)
}

// retryTimer is one scheduled background retry; stop is set once the
// clock has taken it.
type retryTimer struct {
	stop func() bool
}

// reserveRetryLocked reserves the next background retry of the current
// generation, unless discovery is not degraded, a retry is already due, or
// Close stopped retries; armRetry then sets it on the clock. Reserving
// under the same lock that made discovery degraded leaves no moment in
// which a turn finds neither a pass nor a retry under way. s.mu is held.
func (s *Session) reserveRetryLocked() (r *retryTimer, d time.Duration) {
	if !s.disc.degraded || s.disc.retry != nil || s.disc.retryOnReturn || s.disc.stopped {
		return nil, 0
	}
	r = &retryTimer{}
	s.disc.retry = r
	return r, retryDelay(s.disc.failures)
}

// armRetry sets reserved retry r of generation gen on the session's clock,
// to come due after d. The clock is called without s.mu held; a retry
// dropped meanwhile is stopped at once.
func (s *Session) armRetry(gen int, r *retryTimer, d time.Duration) {
	if r == nil {
		return
	}
	// Detached: a degraded session left open must not keep its host alive.
	stop := afterFuncDetached(s.opts.Clock, d, func() { s.retryDue(gen, r) })
	s.mu.Lock()
	if s.disc.retry == r {
		r.stop = stop
		stop = nil
	}
	s.mu.Unlock()
	if stop != nil {
		stop() // dropped (or already run) while the clock took it
	}
}

// retryDue runs when retry r of generation gen comes due: it starts a
// background pass, which nobody waits for, unless r was dropped meanwhile
// or nothing is left to retry. While a listing that a pass stopped waiting
// for has not returned, the retry waits for it instead (so that calls do
// not pile up on a client that ignores cancellation).
func (s *Session) retryDue(gen int, r *retryTimer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.disc.retry != r {
		return
	}
	s.disc.retry = nil
	if gen != s.disc.gen {
		return
	}
	if s.disc.abandoned > 0 {
		s.disc.retryOnReturn = true
		return
	}
	s.retryNowLocked()
}

// retryNowLocked starts a background pass if discovery is still degraded
// and nothing else looks already. s.mu is held.
func (s *Session) retryNowLocked() {
	if s.disc.degraded && !s.disc.cached && !s.disc.stopped && s.disc.pass == nil {
		s.startPassLocked(context.Background())
	}
}

// listingReturnedLocked notes that an abandoned listing returned, and runs
// the retry that waited for it, if any. s.mu is held.
func (s *Session) listingReturnedLocked() {
	s.disc.abandoned--
	if s.disc.abandoned == 0 && s.disc.retryOnReturn {
		s.disc.retryOnReturn = false
		s.retryNowLocked()
	}
}

// stopRetryLocked drops the background retry waiting on the clock (or on
// an abandoned listing), if any. s.mu is held.
func (s *Session) stopRetryLocked() {
	s.disc.retryOnReturn = false
	if r := s.disc.retry; r != nil {
		s.disc.retry = nil
		if r.stop != nil {
			r.stop()
		}
	}
}

// stopDiscoveryRetries drops the waiting background retry and schedules no
// more (Close).
func (s *Session) stopDiscoveryRetries() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.disc.stopped = true
	s.stopRetryLocked()
}
