// Package absent holds the error of an absent optional endpoint of a Studio
// AI proxy (the MCP endpoint, the capabilities endpoint), shared by session,
// which reads it and reports it as session.ErrEndpointAbsent and
// session.EndpointAbsentError, and session/mcpclient, which returns it when
// the MCP endpoint answers nothing but 404 or 405. It lives below both so
// that neither imports the other for it.
package absent

import "strconv"

// Err is what errors.Is finds in the error of a request to an absent
// optional endpoint (session.ErrEndpointAbsent documents when an endpoint
// is absent). It is a static value, set without an init function.
var Err error = &sentinel{"session: the endpoint is absent"}

// sentinel is the type of Err: an error that is its text.
type sentinel struct{ s string }

// Error returns the text.
func (e *sentinel) Error() string { return e.s }

// Error reports an absent optional endpoint; errors.Is matches it to Err.
type Error struct {
	Endpoint string // "MCP" or "capabilities"
	URL      string // the URL that answered
	Status   int    // 404 or 405
	Err      error  // the failed request's own error, if any (an *mcpclient.TransportError or *mcpclient.ProtocolError for MCP)
}

// Error says which endpoint is missing, at which URL, and what to do.
func (e *Error) Error() string {
	s := "session: the Studio AI proxy has no " + e.Endpoint + " endpoint at " + e.URL +
		" (HTTP " + strconv.Itoa(e.Status) + "); the session goes on without it and does not ask again"
	if e.Endpoint == "MCP" {
		s += " until the tools are refreshed or the session reconnects (serve MCP there, or turn tool discovery off)"
	}
	return s
}

// Is reports whether target is Err.
func (e *Error) Is(target error) bool { return target == Err }

// Unwrap returns the failed request's own error.
func (e *Error) Unwrap() error { return e.Err }

// Status reports whether status says an endpoint is not there (404 or 405).
func Status(status int) bool { return status == 404 || status == 405 }
