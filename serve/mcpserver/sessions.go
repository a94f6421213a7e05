// The session era's session table: initialize records a session under a
// fresh id, each request naming it counts as a use, a full table evicts only
// sessions idle for SessionIdle, and a session-era request is checked
// against its session and the MCP-Protocol-Version header.

package mcpserver

import (
	"time"

	"github.com/agentwasm/agentwasm/internal/mcp"
	"github.com/agentwasm/agentwasm/internal/wire"
)

// Session table defaults (Options.MaxSessions, SessionIdle).
const (
	defaultMaxSessions = 4096
	defaultSessionIdle = 10 * time.Minute
)

// liveSession is one live session of the table.
type liveSession struct {
	version  string    // the negotiated protocol version
	lastUsed time.Time // the last request that named it
}

// EndSession ends a session (an HTTP DELETE) and its notification streams.
// It reports whether the id was a live session.
func (d *Dispatcher) EndSession(id string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.sessions[id]; !ok {
		return false
	}
	delete(d.sessions, id)
	d.endListenersLocked(id)
	return true
}

// SessionsEnabled reports whether initialize issues session ids.
func (d *Dispatcher) SessionsEnabled() bool { return d.opts.Sessions }

// sessionVersion returns the version a live session negotiated, and counts
// the lookup as a use of the session.
func (d *Dispatcher) sessionVersion(id string) (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	s, ok := d.sessions[id]
	if !ok {
		return "", false
	}
	s.lastUsed = d.opts.Now()
	return s.version, true
}

// newSession records a session and returns its id. When the table is full
// and no session has been idle long enough to go, it records nothing and
// returns how long until one may.
func (d *Dispatcher) newSession(version string) (string, time.Duration) {
	id := newSessionID()
	if id == "" {
		return "", 0
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.opts.Now()
	if len(d.sessions) >= d.opts.MaxSessions {
		if wait := d.evictIdleLocked(now); wait > 0 {
			return "", wait
		}
	}
	d.sessions[id] = &liveSession{version: version, lastUsed: now}
	return id, 0
}

// evictIdleLocked ends every session idle for SessionIdle or longer, and
// their streams. When none was, it returns how long until one may be (at
// least a second); d.mu is held. evictAt remembers the earliest time a scan
// can free a session, so a flood of initialize calls refused before then
// costs no scan.
func (d *Dispatcher) evictIdleLocked(now time.Time) time.Duration {
	if now.Before(d.evictAt) {
		return atLeastSecond(d.evictAt.Sub(now))
	}
	ended := map[string]struct{}{}
	var next time.Time
	for id, s := range d.sessions {
		at := s.lastUsed.Add(d.opts.SessionIdle)
		if !now.Before(at) {
			delete(d.sessions, id)
			ended[id] = struct{}{}
			continue
		}
		if next.IsZero() || at.Before(next) {
			next = at
		}
	}
	d.evictAt = next
	if len(ended) > 0 {
		for l := range d.subs {
			if _, ok := ended[l.session]; ok {
				delete(d.subs, l)
				l.end()
			}
		}
		return 0
	}
	if next.IsZero() { // MaxSessions sessions, none of them: cannot happen
		return d.opts.SessionIdle
	}
	return atLeastSecond(next.Sub(now))
}

// atLeastSecond rounds a wait up to whole seconds, at least one.
func atLeastSecond(w time.Duration) time.Duration {
	if w < time.Second {
		return time.Second
	}
	return (w + time.Second - 1).Truncate(time.Second)
}

// sessionGone reports whether a session-era request carries a session id
// this dispatcher does not know (it ended, or never existed).
func (d *Dispatcher) sessionGone(req Request) bool {
	if req.SessionID == "" || !d.opts.Sessions {
		return false
	}
	_, ok := d.sessionVersion(req.SessionID)
	return !ok
}

// sessionNotFound is the message of a request of an unknown or ended
// session.
const sessionNotFound = "session not found: it ended or never existed; send initialize without " + mcp.HeaderSessionID + " to start a new one"

// checkSession checks a session-era request other than initialize against
// the session table and the MCP-Protocol-Version header: an unknown or
// ended session id (404), a missing one when sessions are on (400), and a
// header that names no session-era revision, or another than the session
// negotiated (400, UnsupportedProtocolVersion). An absent header is fine:
// the negotiated (or default) version is assumed. It returns the version
// the session negotiated ("" without sessions).
func (d *Dispatcher) checkSession(req Request) (string, *Error) {
	negotiated, known := "", false
	if d.opts.Sessions {
		if req.SessionID == "" {
			return "", &Error{Code: InvalidRequest, Message: "bad request: this request needs the " + mcp.HeaderSessionID + " header that initialize issued; send initialize first, then echo its " + mcp.HeaderSessionID + " on every request"}
		}
		if negotiated, known = d.sessionVersion(req.SessionID); !known {
			return "", &Error{Code: SessionNotFound, Message: sessionNotFound}
		}
	}
	if req.Header == nil {
		return negotiated, nil
	}
	v, ok := req.Header(mcp.HeaderProtocolVersion)
	if !ok {
		return negotiated, nil
	}
	v = trimOWS(v)
	if !mcp.IsSessionVersion(v) {
		return "", unsupportedVersion(v, d.servedVersions())
	}
	if known && v != negotiated {
		return "", &Error{Code: UnsupportedProtocol,
			Message: "unsupported protocol version " + quote(v) + " for this session: it negotiated " + quote(negotiated) + "; send " + mcp.HeaderProtocolVersion + ": " + negotiated + ", or initialize a new session",
			Data:    buildObject("supported", mcp.AppendStrings(nil, d.servedVersions()), "requested", wire.EncodeString(v), "negotiated", wire.EncodeString(negotiated))}
	}
	return negotiated, nil
}
