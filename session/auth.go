// Auth: where the bearer token comes from, and learning every token the
// session obtains so that the scrubber (scrub.go) keeps it out of every text
// the session emits or forwards.

package session

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentwasm/agentwasm/internal/wire"
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

// learningTokens wraps the session's TokenSource: every token it hands out
// (to the chat transport, the capabilities read, the default MCP client and
// its list-changed watch; first tokens and refreshes alike) is learned by
// the session's scrubber before anyone can send it.
type learningTokens struct {
	src     TokenSource
	secrets *secrets
}

// AccessToken asks the wrapped source and learns what it gave, even when it
// also returned an error.
func (l learningTokens) AccessToken(ctx context.Context, forceRefresh bool) (string, error) {
	tok, err := l.src.AccessToken(ctx, forceRefresh)
	l.secrets.add(tok)
	return tok, err
}

// redacted replaces a known token in every text.
const redacted = "[redacted]"

// Bounds of the scrubber: tokens shorter than minSecretLen are not learned
// (scrubbing them would mangle ordinary text), and only the maxSecrets
// tokens learned last are kept, so that a source minting a new token for
// every request cannot grow the list, and the cost of every scrub, without
// end. A token still in use is learned again at its next use.
const (
	minSecretLen = 4
	maxSecrets   = 64
)

// secrets remembers the tokens a session obtained, so that no text it emits
// or forwards ever contains one. Safe for concurrent use: scrubbing reads an
// immutable snapshot, and never takes a lock.
type secrets struct {
	mu     sync.Mutex // serializes add
	tokens []string   // learned, oldest first
	// forms is the snapshot scrub reads: each token and, where it differs,
	// its JSON-escaped form (as it appears inside the JSON of a tool
	// message), longest first so that a token containing another is
	// replaced whole.
	forms atomic.Pointer[[]string]
}

func (s *secrets) add(tok string) {
	if s == nil || len(tok) < minSecretLen {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.tokens {
		if t == tok {
			return
		}
	}
	s.tokens = append(s.tokens, tok)
	if len(s.tokens) > maxSecrets {
		s.tokens = s.tokens[1:]
	}
	var forms []string // longest first
	for _, t := range s.tokens {
		q := wire.EncodeString(t)
		for k, f := range [2]string{t, string(q[1 : len(q)-1])} {
			if k == 1 && f == t {
				break
			}
			n := len(forms)
			forms = append(forms, f)
			for ; n > 0 && len(forms[n-1]) < len(f); n-- {
				forms[n] = forms[n-1]
			}
			forms[n] = f
		}
	}
	s.forms.Store(&forms)
}

// known reports whether any token has been learned.
func (s *secrets) known() bool { return s != nil && s.forms.Load() != nil }

// scrub replaces every known token in text.
func (s *secrets) scrub(text string) string {
	if s == nil {
		return text
	}
	if forms := s.forms.Load(); forms != nil {
		for _, t := range *forms {
			text = strings.ReplaceAll(text, t, redacted)
		}
	}
	return text
}
