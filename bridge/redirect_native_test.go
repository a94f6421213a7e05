//go:build !js && !wasip1

// Tests that the native fetcher keeps credentials with their origin: a
// redirect to another port, host or scheme is refused for a request that
// carries them, before anything is sent there, and followed for one that
// does not; a redirect within the origin keeps working.

package bridge

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/agentwasm/agentwasm/internal/sameorigin"
	"github.com/agentwasm/agentwasm/testing/sameorigintest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// landed is the answer of the servers a redirect may name.
func landed(w http.ResponseWriter) { _, _ = io.WriteString(w, "landed") }

func TestHTTPFetcherCrossOriginRedirects(t *testing.T) {
	const token = "tok-Secret-42"
	type target struct {
		name  string
		start func(t *testing.T, origin *httptest.Server, hostSeen *sameorigintest.Seen) (string, *sameorigintest.Seen, *http.Client)
	}
	targets := []target{
		{"another port", func(t *testing.T, _ *httptest.Server, _ *sameorigintest.Seen) (string, *sameorigintest.Seen, *http.Client) {
			srv, seen := sameorigintest.Server(t, nil, false, landed)
			return srv.URL + "/mcp", seen, nil
		}},
		{"another host, same port", func(t *testing.T, origin *httptest.Server, hostSeen *sameorigintest.Seen) (string, *sameorigintest.Seen, *http.Client) {
			// localhost is another host than 127.0.0.1 though it reaches the
			// same server, which records requests for it in hostSeen.
			_, port, _ := net.SplitHostPort(origin.Listener.Addr().String())
			return "http://localhost:" + port + "/mcp", hostSeen, nil
		}},
		{"another address", func(t *testing.T, _ *httptest.Server, _ *sameorigintest.Seen) (string, *sameorigintest.Seen, *http.Client) {
			ln, err := net.Listen("tcp", "127.0.0.2:0")
			if err != nil {
				t.Skip("cannot listen on 127.0.0.2:", err)
			}
			srv, seen := sameorigintest.Server(t, ln, false, landed)
			return srv.URL + "/mcp", seen, nil
		}},
		{"another scheme (https)", func(t *testing.T, _ *httptest.Server, _ *sameorigintest.Seen) (string, *sameorigintest.Seen, *http.Client) {
			srv, seen := sameorigintest.Server(t, nil, true, landed)
			return srv.URL + "/mcp", seen, srv.Client()
		}},
	}
	creds := []struct {
		name    string
		header  Header
		refused string // the header names the error lists; "" when the redirect is followed
	}{
		{"authorization", Header{"authorization": "Bearer " + token, "content-type": "application/json"}, "(authorization)"},
		{"session id and cookie", Header{"mcp-session-id": "s-" + token, "cookie": "c=" + token, "accept": "text/event-stream"}, "(cookie, mcp-session-id)"},
		{"none", Header{"content-type": "application/json", "accept": "application/json", "mcp-protocol-version": "2025-06-18"}, ""},
	}
	for _, status := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		for _, tg := range targets {
			for _, cr := range creds {
				t.Run(strconv.Itoa(status)+"/"+tg.name+"/"+cr.name, func(t *testing.T) {
					var location string
					originSeen, hostSeen := &sameorigintest.Seen{}, &sameorigintest.Seen{}
					origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						if !strings.HasPrefix(r.Host, "127.0.0.1:") {
							hostSeen.Add(r)
							io.WriteString(w, "landed")
							return
						}
						originSeen.Add(r)
						http.Redirect(w, r, location, status)
					}))
					defer origin.Close()
					var seen *sameorigintest.Seen
					var client *http.Client
					location, seen, client = tg.start(t, origin, hostSeen)

					req := &Request{Method: "POST", URL: origin.URL + "/mcp", Header: cr.header, Body: []byte(`{"secret":"` + token + `"}`)}
					resp, err := (&HTTPFetcher{Client: client}).Fetch(context.Background(), req)
					n, auth, body := seen.Get()
					if cr.refused == "" {
						require.NoError(t, err)
						b, _ := io.ReadAll(resp.Body)
						resp.Body.Close()
						assert.Equal(t, "landed", string(b), "a request without credentials follows the redirect")
						assert.Equal(t, 1, n)
						return
					}
					assert.Nil(t, resp)
					var fe *FetchError
					require.True(t, errors.As(err, &fe), "want a *FetchError, got %T: %v", err, err)
					var re *sameorigin.RedirectError
					require.True(t, errors.As(err, &re), "want a refused redirect, got %v", err)
					to, _ := url.Parse(location)
					msg := err.Error()
					assert.Contains(t, msg, strconv.Itoa(status))
					assert.Contains(t, msg, sameorigin.Origin(to), "the message names the other origin")
					assert.Contains(t, msg, cr.refused, "the message names the headers")
					assert.NotContains(t, msg, token, "never a value")
					assert.Zero(t, n, "nothing reached the other origin (authorization %q, body %q)", auth, body)
					on, _, _ := originSeen.Get()
					assert.Equal(t, 1, on)
					if client != nil {
						assert.Nil(t, client.CheckRedirect, "the caller's client is not changed")
					}
				})
			}
		}
	}
}

func TestHTTPFetcherSameOriginRedirect(t *testing.T) {
	const token = "tok-same-origin"
	for _, status := range []int{http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			moved := &sameorigintest.Seen{}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/moved" {
					moved.Add(r)
					io.WriteString(w, "landed")
					return
				}
				http.Redirect(w, r, "/moved", status)
			}))
			defer srv.Close()
			calls := 0
			client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { calls++; return nil }}
			req := &Request{Method: "POST", URL: srv.URL + "/mcp", Header: Header{"authorization": "Bearer " + token}, Body: []byte("body")}
			resp, err := (&HTTPFetcher{Client: client}).Fetch(context.Background(), req)
			require.NoError(t, err)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			assert.Equal(t, "landed", string(b))
			n, auth, body := moved.Get()
			require.Equal(t, 1, n)
			assert.Equal(t, "Bearer "+token, auth[0], "the token follows a redirect within its origin")
			if status != http.StatusFound {
				assert.Equal(t, "body", body[0], "307 and 308 keep the body")
			}
			assert.Equal(t, 1, calls, "the client's own redirect policy is still asked")
		})
	}
}

func TestHTTPFetcherRedirectLimit(t *testing.T) {
	var mu sync.Mutex
	hops := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hops++
		mu.Unlock()
		http.Redirect(w, r, r.URL.Path+"x", http.StatusFound)
	}))
	defer srv.Close()
	_, err := (&HTTPFetcher{}).Fetch(context.Background(), &Request{URL: srv.URL + "/"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "stopped after 10 redirects")
	mu.Lock()
	assert.Equal(t, sameorigin.MaxRedirects, hops)
	mu.Unlock()
}

// TestCredentialHeaders checks which headers tie a request to its origin:
// every header outside the plain list, named lower case and sorted, and
// that the refusal names them but never their values.
func TestCredentialHeaders(t *testing.T) {
	tests := []struct {
		name   string
		header map[string]string
		want   []string
	}{
		{"plain headers only", map[string]string{"Accept": "*/*", "Content-Type": "application/json", "MCP-Protocol-Version": "2025-11-25", "Mcp-Method": "tools/call", "Last-Event-ID": "7"}, nil},
		{"a bearer token", map[string]string{"Authorization": "Bearer t", "Accept": "*/*"}, []string{"authorization"}},
		{"a session id and a cookie", map[string]string{"Mcp-Session-Id": "s", "Cookie": "c=1"}, []string{"cookie", "mcp-session-id"}},
		{"an API key and a parameter header", map[string]string{"X-Api-Key": "k", "Mcp-Param-Region": "eu"}, []string{"mcp-param-region", "x-api-key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			assert.Equal(t, tt.want, credentialHeaders(h))
			first, _ := http.NewRequest(http.MethodGet, "https://127.0.0.1:8443/mcp", nil)
			first.Header = h
			err := sameOriginClient(http.DefaultClient).CheckRedirect(&http.Request{URL: &url.URL{Scheme: "http", Host: "127.0.0.1:8443", Path: "/mcp"}, Response: &http.Response{StatusCode: http.StatusPermanentRedirect}}, []*http.Request{first})
			if tt.want == nil {
				assert.NoError(t, err, "a request without credentials follows, as a browser's fetch does")
				return
			}
			var re *sameorigin.RedirectError
			require.True(t, errors.As(err, &re), "got %v", err)
			msg := redirectRefused(re).Error()
			assert.Contains(t, msg, "308 Permanent Redirect with a redirect to http://127.0.0.1:8443, another origin than https://127.0.0.1:8443")
			assert.Contains(t, msg, strings.Join(tt.want, ", "))
			for _, v := range tt.header {
				if v != "*/*" {
					assert.NotContains(t, msg, "="+v, "never a value")
				}
			}
		})
	}
	assert.Nil(t, http.DefaultClient.CheckRedirect, "the client is copied, not changed")
}
