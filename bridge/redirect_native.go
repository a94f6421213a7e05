//go:build !js && !wasip1

// The native fetcher's redirect policy: a request that carries credentials
// is never redirected to another origin.

package bridge

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/agentwasm/agentwasm/internal/sameorigin"
)

// credentialHeaders returns the names, sorted and lower case, of h's
// headers that may carry a credential (sameorigin.CredentialHeaders).
func credentialHeaders(h http.Header) []string { return sameorigin.CredentialHeaders(h) }

// sameOriginClient returns a copy of c (not changed) whose redirects are
// checked by sameorigin.Client: one to another origin than the first
// request's is refused with a *sameorigin.RedirectError when that request
// carried credentials, and followed (as a browser's fetch would) when it
// did not.
func sameOriginClient(c *http.Client) *http.Client {
	return sameorigin.Client(c, sameorigin.Credentialed)
}

// refusedRedirect is the error of a fetch whose redirect to another origin
// was refused: it names the credential headers but never their values.
type refusedRedirect struct{ *sameorigin.RedirectError }

// redirectRefused returns the fetch error for re.
func redirectRefused(re *sameorigin.RedirectError) error { return refusedRedirect{re} }

// Error says which redirect was refused, why, and what to do.
func (e refusedRedirect) Error() string {
	return "the server answered " + strconv.Itoa(e.Status) + " " + http.StatusText(e.Status) +
		" with a redirect to " + e.To + ", another origin than " + e.From +
		"; the request carries credentials (" + strings.Join(credentialHeaders(e.First.Header), ", ") + ") that are sent to " + e.From +
		" only, so the redirect was not followed; use the URL it names if that server is meant"
}

// Unwrap gives errors.As the *sameorigin.RedirectError.
func (e refusedRedirect) Unwrap() error { return e.RedirectError }
