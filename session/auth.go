// Auth: where the bearer token comes from, and keeping it out of every text
// the session produces.

package session

import (
	"context"
	"strings"
)

// A TokenSource supplies the bearer token sent with every request. It is
// asked afresh for every request; forceRefresh is true once after the proxy
// answered 401, and the request is then retried once. An empty token sends
// no authorization header.
type TokenSource interface {
	AccessToken(ctx context.Context, forceRefresh bool) (string, error)
}

// TokenFunc adapts a function to the TokenSource interface.
type TokenFunc func(ctx context.Context, forceRefresh bool) (string, error)

// AccessToken calls f(ctx, forceRefresh).
func (f TokenFunc) AccessToken(ctx context.Context, forceRefresh bool) (string, error) {
	return f(ctx, forceRefresh)
}

// StaticToken is a TokenSource that always returns the same token.
type StaticToken string

// AccessToken returns t.
func (t StaticToken) AccessToken(context.Context, bool) (string, error) { return string(t), nil }

// secrets remembers the tokens a session has used, so that no error or
// event text it produces ever contains one.
type secrets struct {
	tokens []string
}

func (s *secrets) add(tok string) {
	if len(tok) < 4 {
		return // too short to scrub without mangling ordinary text
	}
	for _, t := range s.tokens {
		if t == tok {
			return
		}
	}
	s.tokens = append(s.tokens, tok)
}

// scrub replaces every known token in text.
func (s *secrets) scrub(text string) string {
	for _, t := range s.tokens {
		text = strings.ReplaceAll(text, t, "[redacted]")
	}
	return text
}
