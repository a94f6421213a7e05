// Absent endpoints: the optional endpoints of a Studio AI proxy (the MCP
// endpoint and the capabilities endpoint) may not exist. A session probes
// each once and remembers an absent one, instead of asking again on every
// turn.

package session

import (
	"strconv"

	"github.com/agentwasm/agentwasm/internal/absent"
	"github.com/agentwasm/agentwasm/internal/errs"
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
//   - MCP (mcpclient.Client): every answer the client got from the endpoint
//     since it was created, Reset or Closed was 404 or 405 — in the era
//     mcpclient.EraAuto, the era probe (server/discover) and then the
//     session-era initialize; in mcpclient.EraSession, initialize; in
//     mcpclient.EraStateless, the first request. A 404 on a request that
//     carried an Mcp-Session-Id is not absence: the MCP session ended, and
//     the client re-initializes once as before.
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
var ErrEndpointAbsent = absent.Err

// EndpointAbsentError reports an absent optional endpoint (see
// ErrEndpointAbsent, which errors.Is matches it to). Its fields are
// Endpoint ("MCP" or "capabilities"), URL (the URL that answered), Status
// (404 or 405) and Err (the failed request's own error, if any: an
// *mcpclient.TransportError or *mcpclient.ProtocolError for MCP). It is
// defined below session so that session/mcpclient returns the same type.
type EndpointAbsentError = absent.Error

// absentMCPMessage is the discovery report's errorMessage for an absent MCP
// endpoint.
func absentMCPMessage(err error) string {
	var ae *EndpointAbsentError
	if errs.As(err, &ae) && ae.URL != "" {
		return "The Studio AI proxy has no MCP endpoint at " + ae.URL + " (HTTP " + strconv.Itoa(ae.Status) +
			"); the session goes on with its runtime tools, and does not look for MCP tools again until the tools are refreshed or the session reconnects."
	}
	return "The MCP client reports that the Studio AI proxy has no MCP endpoint (" + err.Error() +
		"); the session goes on with its runtime tools, and does not look for MCP tools again until the tools are refreshed or the session reconnects."
}
