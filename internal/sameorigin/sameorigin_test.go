package sameorigin_test

import (
	"errors"
	"net/http"
	"net/url"
	"testing"

	"github.com/agentwasm/agentwasm/internal/sameorigin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOrigin(t *testing.T) {
	tests := []struct {
		a, b string
		same bool
	}{
		{"http://127.0.0.1:8080/a", "http://127.0.0.1:8080/b?q=1", true},
		{"http://example.com/", "http://example.com:80/x", true},
		{"https://example.com/", "https://EXAMPLE.com:443/", true},
		{"HTTP://example.com/", "http://example.com/", true},
		{"http://[::1]:8080/", "http://[::1]:8080/x", true},
		{"http://127.0.0.1:8080/", "http://127.0.0.1:8081/", false},
		{"http://127.0.0.1:8080/", "http://localhost:8080/", false},
		{"http://example.com:443/", "https://example.com:443/", false},
		{"https://example.com/", "http://example.com/", false},
		{"http://example.com/", "http://api.example.com/", false},
	}
	for _, tt := range tests {
		a, err := url.Parse(tt.a)
		require.NoError(t, err)
		b, err := url.Parse(tt.b)
		require.NoError(t, err)
		assert.Equal(t, tt.same, sameorigin.Origin(a) == sameorigin.Origin(b), "%s and %s", tt.a, tt.b)
	}
	u, _ := url.Parse("HTTPS://Example.COM/x")
	assert.Equal(t, "https://example.com:443", sameorigin.Origin(u))
}

// redirect asks c's policy about a redirect from one URL to another, as
// net/http would after a 308.
func redirect(c *http.Client, from *http.Request, to string) error {
	next, _ := http.NewRequest(from.Method, to, nil)
	next.Response = &http.Response{StatusCode: http.StatusPermanentRedirect}
	return c.CheckRedirect(next, []*http.Request{from})
}

// TestClientPolicy checks the policy on changes of origin that two test
// servers cannot show (a scheme alone), the tied predicate, the caller's
// own CheckRedirect and the bound; the packages that send through Client
// test it against real servers.
func TestClientPolicy(t *testing.T) {
	from, _ := http.NewRequest(http.MethodPost, "https://127.0.0.1:8443/v1/chat/completions", nil)
	from.Header.Set("Authorization", "Bearer k")
	tests := []struct {
		name   string
		tied   func(*http.Request) bool
		to     string
		refuse bool
	}{
		{"another scheme, every request tied", nil, "http://127.0.0.1:8443/v1/chat/completions", true},
		{"another port", nil, "https://127.0.0.1:8444/v1/chat/completions", true},
		{"the same origin", nil, "https://127.0.0.1:8443/v2/chat/completions", false},
		{"another origin, this request not tied", func(*http.Request) bool { return false }, "http://evil.example/", false},
		{"another origin, tied by its header", func(r *http.Request) bool { return r.Header.Get("Authorization") != "" }, "http://evil.example/", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := redirect(sameorigin.Client(nil, tt.tied), from, tt.to)
			var re *sameorigin.RedirectError
			if !tt.refuse {
				assert.NoError(t, err)
				return
			}
			require.True(t, errors.As(err, &re), "got %v", err)
			assert.Equal(t, "https://127.0.0.1:8443", re.From)
			assert.Equal(t, http.StatusPermanentRedirect, re.Status)
			assert.Same(t, from, re.First)
			assert.Contains(t, err.Error(), "308 Permanent Redirect")
			assert.Contains(t, err.Error(), re.To+", another origin than "+re.From)
		})
	}

	// The caller's client is copied, not changed, and its own policy still
	// decides same-origin redirects.
	own := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return errors.New("no redirects here") }}
	c := sameorigin.Client(own, nil)
	assert.EqualError(t, redirect(c, from, "https://127.0.0.1:8443/elsewhere"), "no redirects here")
	assert.NotNil(t, own.CheckRedirect)
	var re *sameorigin.RedirectError
	assert.True(t, errors.As(redirect(c, from, "http://127.0.0.1:8443/"), &re), "another origin is refused before the caller's policy")

	// Without a policy of the caller's, MaxRedirects bounds them.
	via := make([]*http.Request, sameorigin.MaxRedirects)
	for i := range via {
		via[i] = from
	}
	next, _ := http.NewRequest(http.MethodPost, "https://127.0.0.1:8443/again", nil)
	assert.ErrorContains(t, sameorigin.Client(nil, nil).CheckRedirect(next, via), "stopped after 10 redirects")
	assert.NoError(t, sameorigin.Client(nil, nil).CheckRedirect(next, via[:sameorigin.MaxRedirects-1]))
}
