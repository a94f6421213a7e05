// The OpenAI model's redirect policy: the API key goes to the upstream's
// origin and nowhere else.

package studioproxy

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// oaMaxRedirects bounds the same-origin redirects followed when the
// caller's client has no CheckRedirect of its own (as net/http's default).
const oaMaxRedirects = 10

// oaRedirectError is a redirect to another origin, refused before any
// request went there.
type oaRedirectError struct {
	status int    // the redirecting response's status
	from   string // the origin the key is meant for
	to     string // the origin the redirect named
}

// Error says which redirect was refused and why.
func (e *oaRedirectError) Error() string {
	return "the upstream answered " + strconv.Itoa(e.status) + " " + http.StatusText(e.status) +
		" with a redirect to " + e.to + ", another origin than " + e.from +
		"; the API key is sent to " + e.from + " only, so the redirect was not followed"
}

// oaOrigin returns u's origin: scheme://host:port, scheme and host lower
// case, the scheme's default port written out.
func oaOrigin(u *url.URL) string {
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

// oaSameOriginClient returns a client that sends as c does (c nil means a
// client with net/http's defaults) but follows a redirect only to the
// origin of the first request; one to any other origin is refused with an
// *oaRedirectError, so no request, key or body reaches it. c itself is not
// changed. A same-origin redirect is then checked by c's own CheckRedirect,
// if any, else followed up to oaMaxRedirects times.
func oaSameOriginClient(c *http.Client) *http.Client {
	var out http.Client
	if c != nil {
		out = *c
	}
	next := out.CheckRedirect
	out.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > 0 {
			from, to := oaOrigin(via[0].URL), oaOrigin(req.URL)
			if from != to {
				status := 0
				if req.Response != nil {
					status = req.Response.StatusCode
				}
				return &oaRedirectError{status: status, from: from, to: to}
			}
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= oaMaxRedirects {
			return errors.New("stopped after " + strconv.Itoa(oaMaxRedirects) + " redirects")
		}
		return nil
	}
	return &out
}
