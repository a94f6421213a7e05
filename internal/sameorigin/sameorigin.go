// Package sameorigin keeps a request's credentials with the origin they are
// meant for. Go's http.Client keeps an Authorization header on a redirect to
// the same host name on another port, and re-sends the body on a 307 or 308;
// Client returns a client whose redirects to another origin (scheme, host
// and port) are refused before any request goes there, for the requests
// that must stay with theirs. The dev server's upstream client (which
// carries the API key) and the native fetcher (which carries a session's
// token), and agentwasm chat --wasm's forwarder (which carries the
// module's key and token), all send through it.
package sameorigin

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// plainHeaders are the request headers that carry no credential. A request
// with any other header (Authorization above all, Cookie, a session id, an
// API-key header, MCP parameter headers) is tied to the origin of its URL.
var plainHeaders = map[string]bool{
	"accept":               true,
	"accept-language":      true,
	"cache-control":        true,
	"content-language":     true,
	"content-length":       true,
	"content-type":         true,
	"last-event-id":        true,
	"mcp-method":           true,
	"mcp-name":             true,
	"mcp-protocol-version": true,
	"user-agent":           true,
}

// CredentialHeaders returns the names, sorted and lower case, of h's
// headers that may carry a credential: all but a few plain ones.
func CredentialHeaders(h http.Header) []string {
	var out []string
	for k := range h {
		if k := strings.ToLower(k); !plainHeaders[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// Credentialed says first carries a header of CredentialHeaders: Client's
// tied function for a fetcher, whose requests without credentials follow a
// redirect anywhere, as a browser's fetch would.
func Credentialed(first *http.Request) bool { return len(CredentialHeaders(first.Header)) > 0 }

// MaxRedirects bounds the redirects a Client follows when the client it
// copies has no CheckRedirect of its own (net/http's default bound).
const MaxRedirects = 10

// RedirectError is a redirect to another origin, refused before any
// request went there. Client's Do returns it wrapped in a *url.Error.
type RedirectError struct {
	Status int           // the redirecting answer's status (0 when unknown)
	From   string        // the origin of the first request (Origin's form)
	To     string        // the origin the redirect named
	First  *http.Request // the request as first sent
}

// Error says which redirect was refused.
func (e *RedirectError) Error() string {
	return "the server answered " + strconv.Itoa(e.Status) + " " + http.StatusText(e.Status) +
		" with a redirect to " + e.To + ", another origin than " + e.From + ", and the redirect was not followed"
}

// Origin returns u's origin as scheme://host:port: scheme and host in lower
// case, the scheme's default port written out, so two URLs are of one
// origin exactly when their Origins are equal.
func Origin(u *url.URL) string {
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

// Client returns a copy of c (nil means a client with net/http's defaults)
// whose redirects are checked: a redirect to another origin than the first
// request's is refused with a *RedirectError when tied(first) is true (nil
// tied: for every request), and followed otherwise. Every redirect it does
// not refuse then passes c's own CheckRedirect, if any, else the bound of
// MaxRedirects. c itself is not changed.
func Client(c *http.Client, tied func(first *http.Request) bool) *http.Client {
	var out http.Client
	if c != nil {
		out = *c
	}
	next := out.CheckRedirect
	out.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > 0 {
			// via[0] is the request as sent: net/http may already have
			// dropped some of its headers from req.
			first := via[0]
			if from, to := Origin(first.URL), Origin(req.URL); from != to && (tied == nil || tied(first)) {
				status := 0
				if req.Response != nil {
					status = req.Response.StatusCode
				}
				return &RedirectError{Status: status, From: from, To: to, First: first}
			}
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= MaxRedirects {
			return errors.New("stopped after " + strconv.Itoa(MaxRedirects) + " redirects")
		}
		return nil
	}
	return &out
}
