//go:build !js && !wasip1

// The native fetcher's redirect policy: a request that carries credentials
// is never redirected to another origin.

package bridge

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// maxRedirects bounds the redirects HTTPFetcher follows when its client has
// no CheckRedirect of its own (as net/http's default).
const maxRedirects = 10

// plainHeaders are the request headers that carry no credential. A request
// with any other header (Authorization above all, Cookie, a session id, an
// API-key header, MCP parameter headers) is tied to the origin of its URL.
var plainHeaders = map[string]bool{
	"accept":               true,
	"accept-language":      true,
	"cache-control":        true,
	"content-language":     true,
	"content-type":         true,
	"last-event-id":        true,
	"mcp-method":           true,
	"mcp-name":             true,
	"mcp-protocol-version": true,
	"user-agent":           true,
}

// redirectError is a redirect to another origin refused because the
// request carries credentials.
type redirectError struct {
	status  int      // the redirecting response's status
	from    string   // the origin of the request's URL
	to      string   // the origin the redirect named
	headers []string // the credential headers' names, sorted, lower case
}

// Error says which redirect was refused and why, naming the headers but
// never their values.
func (e *redirectError) Error() string {
	return "the server answered " + strconv.Itoa(e.status) + " " + http.StatusText(e.status) +
		" with a redirect to " + e.to + ", another origin than " + e.from +
		"; the request carries credentials (" + strings.Join(e.headers, ", ") + ") that are sent to " + e.from +
		" only, so the redirect was not followed; use the URL it names if that server is meant"
}

// originOf returns u's origin: scheme://host:port, scheme and host lower
// case, the scheme's default port written out.
func originOf(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// credentialHeaders returns the names, sorted and lower case, of h's
// headers outside plainHeaders.
func credentialHeaders(h http.Header) []string {
	var out []string
	for k := range h {
		if k := strings.ToLower(k); !plainHeaders[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// sameOriginClient returns a copy of c (not changed) whose redirects are
// checked: one to another origin than the first request's is refused with a
// *redirectError when that request carried credentials, and followed (as a
// browser's fetch would) when it did not. Every redirect then passes c's own
// CheckRedirect, if any, else the bound of maxRedirects.
func sameOriginClient(c *http.Client) *http.Client {
	out := *c
	next := c.CheckRedirect
	out.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > 0 {
			// via[0] is the request as sent: net/http may already have
			// dropped Authorization from req for another host.
			first := via[0]
			from, to := originOf(first.URL), originOf(req.URL)
			if from != to {
				if creds := credentialHeaders(first.Header); len(creds) > 0 {
					status := 0
					if req.Response != nil {
						status = req.Response.StatusCode
					}
					return &redirectError{status: status, from: from, to: to, headers: creds}
				}
			}
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= maxRedirects {
			return errors.New("stopped after " + strconv.Itoa(maxRedirects) + " redirects")
		}
		return nil
	}
	return &out
}
