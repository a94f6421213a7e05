package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestForwarderRedirectKeepsKey checks that the forwarder of agentwasm chat
// --wasm, like the native fetcher, never sends a request's credentials to
// another origin than its target's on a redirect: net/http alone keeps
// Authorization for another port of the same host, an http:// downgrade or a
// subdomain, all of them other origins. (A 307 of a POST is not followed
// by net/http at all, its body being read once; a 302 is, as a GET.)
func TestForwarderRedirectKeepsKey(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		header string // the credential the module's request carries, "" none
		follow bool   // the redirect is followed
	}{
		{"a keyed request is not redirected to another port", http.StatusFound, "Authorization", false},
		{"nor with a 307", http.StatusTemporaryRedirect, "Authorization", false},
		{"a request with a cookie is not either", http.StatusFound, "Cookie", false},
		{"a request without credentials is", http.StatusFound, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := make(chan http.Header, 1)
			other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got <- r.Header.Clone()
				w.WriteHeader(http.StatusOK)
			}))
			defer other.Close()
			endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, other.URL+r.URL.Path, tc.status)
			}))
			defer endpoint.Close()
			// Both are 127.0.0.1: the same host name, another port.
			target, err := url.Parse(endpoint.URL)
			require.NoError(t, err)
			front := httptest.NewServer(newForwarder(http.DefaultClient, target))
			defer front.Close()

			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, "POST", front.URL+"/v1/chat/completions", strings.NewReader("{}"))
			require.NoError(t, err)
			if tc.header != "" {
				req.Header.Set(tc.header, "Bearer sk-secret")
			}
			// The module's fetch follows no redirect: it sees the 3xx.
			// (Its requests carry no Accept-Encoding either.)
			noFollow := &http.Client{
				Transport:     &http.Transport{DisableCompression: true},
				CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
			}
			resp, err := noFollow.Do(req)
			if err == nil {
				resp.Body.Close()
			}
			select {
			case h := <-got:
				assert.True(t, tc.follow, "the redirect to %s was followed", other.URL)
				assert.NotContains(t, h.Get("Authorization")+h.Get("Cookie"), "sk-secret", "the credential reached another origin")
			default:
				assert.False(t, tc.follow, "the redirect was not followed")
			}
		})
	}
}
