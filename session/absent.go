// Absent endpoints: the optional endpoints of a Studio AI proxy (the MCP
// endpoint and the capabilities endpoint) may not exist. A session probes
// each once and remembers an absent one, instead of asking again on every
// turn.

package session

import (
	"errors"
	"strconv"
)

// ErrEndpointAbsent is what errors.Is finds in the error of a request to an
// optional endpoint of the Studio AI proxy that is absent: the MCP endpoint
// ({BaseURL}/mcp) or the capabilities endpoint
// ({BaseURL}/v1/studio/ai/capabilities).
//
// An endpoint is absent when it answers HTTP 404 (Not Found) or 405 (Method
// Not Allowed) to the session's first contact with it:
//
//   - capabilities: the GET answered 404 or 405;
//   - MCP (HTTPMCPClient): every answer the client got from the endpoint
//     since it was created, Reset or Closed was 404 or 405 — in the era
//     MCPEraAuto, the era probe (server/discover) and then the session-era
//     initialize; in MCPEraSession, initialize; in MCPEraStateless, the
//     first request. A 404 on a request that carried an Mcp-Session-Id is
//     not absence: the MCP session ended, and the client re-initializes once
//     as before.
//
// Other failures — no response, a timeout, a 5xx or any other status, a
// malformed answer — are not absence: a failed discovery pass makes
// discovery degraded (later turns do not wait for it, and it is retried in
// the background with backoff; see ToolDiscoveryReport.Degraded), and a
// failed capabilities read is asked again on the next turn.
//
// A session remembers an absent endpoint: an absent MCP endpoint until
// Session.RefreshTools or Session.Reconnect (discovery is published once,
// with an empty catalog, and not run again on later turns); an absent
// capabilities endpoint for the session's life, like a successful read
// (Reset keeps both). An MCPClient of one's own may return an error that
// matches ErrEndpointAbsent to get the same treatment.
var ErrEndpointAbsent = errors.New("session: the endpoint is absent")

// EndpointAbsentError reports an absent optional endpoint (see
// ErrEndpointAbsent, which errors.Is matches it to).
type EndpointAbsentError struct {
	Endpoint string // "MCP" or "capabilities"
	URL      string // the URL that answered
	Status   int    // 404 or 405
	Err      error  // the failed request's own error, if any (an *MCPTransportError or *MCPProtocolError for MCP)
}

// Error says which endpoint is missing, at which URL, and what to do.
func (e *EndpointAbsentError) Error() string {
	s := "session: the Studio AI proxy has no " + e.Endpoint + " endpoint at " + e.URL +
		" (HTTP " + strconv.Itoa(e.Status) + "); the session goes on without it and does not ask again"
	if e.Endpoint == "MCP" {
		s += " until the tools are refreshed or the session reconnects (serve MCP there, or turn tool discovery off)"
	}
	return s
}

// Is reports whether target is ErrEndpointAbsent.
func (e *EndpointAbsentError) Is(target error) bool { return target == ErrEndpointAbsent }

// Unwrap returns the failed request's own error.
func (e *EndpointAbsentError) Unwrap() error { return e.Err }

// absentStatus reports whether status says an endpoint is not there.
func absentStatus(status int) bool { return status == 404 || status == 405 }

// absentMCPMessage is the discovery report's errorMessage for an absent MCP
// endpoint.
func absentMCPMessage(err error) string {
	var ae *EndpointAbsentError
	if errors.As(err, &ae) && ae.URL != "" {
		return "The Studio AI proxy has no MCP endpoint at " + ae.URL + " (HTTP " + strconv.Itoa(ae.Status) +
			"); the session goes on with its runtime tools, and does not look for MCP tools again until the tools are refreshed or the session reconnects."
	}
	return "The MCP client reports that the Studio AI proxy has no MCP endpoint (" + err.Error() +
		"); the session goes on with its runtime tools, and does not look for MCP tools again until the tools are refreshed or the session reconnects."
}
