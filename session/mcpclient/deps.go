// What the client takes from its user besides the Fetcher: the bearer
// token (TokenSource) and the time the ResumingFetcher waits on (Clock).
// Both are small interfaces of the package's own, which session's
// TokenSource and Clock satisfy, so that session imports mcpclient and not
// the other way round.

package mcpclient

import (
	"context"
	"time"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/internal/errs"
)

// A TokenSource supplies the bearer token sent with every request. It is
// asked afresh for every request; forceRefresh is true once after the
// server answered 401, and the request is then retried once. An empty
// token sends no authorization header. session.TokenSource is the same
// interface.
type TokenSource interface {
	AccessToken(ctx context.Context, forceRefresh bool) (string, error)
}

// Clock is the time a ResumingFetcher waits on. Implementations must be
// safe for concurrent use. session.Clock satisfies it.
type Clock interface {
	// AfterFunc calls f on its own goroutine once d has passed, unless the
	// returned stop is called first; stop reports whether it prevented
	// the call.
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// systemClock is the Clock of the time package.
type systemClock struct{}

func (systemClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}

// unwrapFetch drops the bridge's own prefix, which repeats the URL.
func unwrapFetch(err error) error {
	var fe *bridge.FetchError
	if errs.As(err, &fe) {
		return fe.Err
	}
	return err
}
