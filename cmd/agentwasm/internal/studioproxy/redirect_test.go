// Tests that the OpenAI model sends its key to the upstream's origin only:
// a redirect to another port, host or scheme is refused before any request
// goes there, and a redirect within the origin still works.

package studioproxy

import (
	"context"
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

// oaAnswer writes a short streamed answer.
func oaAnswer(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	_, _ = io.WriteString(w, `data: {"model":"m","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
}

func TestOpenAIRefusesCrossOriginRedirects(t *testing.T) {
	const key = "sk-redirect-Secret9"
	type target struct {
		name string
		// start returns the URL to redirect to, what saw requests there,
		// and the client the model should use (one that trusts the target).
		start func(t *testing.T, origin *httptest.Server, hostSeen *sameorigintest.Seen) (string, *sameorigintest.Seen, *http.Client)
	}
	targets := []target{
		{"another port", func(t *testing.T, _ *httptest.Server, _ *sameorigintest.Seen) (string, *sameorigintest.Seen, *http.Client) {
			srv, seen := sameorigintest.Server(t, nil, false, oaAnswer)
			return srv.URL + "/v1/chat/completions", seen, nil
		}},
		{"another host, same port", func(t *testing.T, origin *httptest.Server, hostSeen *sameorigintest.Seen) (string, *sameorigintest.Seen, *http.Client) {
			// localhost is another host than 127.0.0.1 though it reaches the
			// same server, which records requests for it in hostSeen.
			_, port, _ := net.SplitHostPort(origin.Listener.Addr().String())
			return "http://localhost:" + port + "/v1/chat/completions", hostSeen, nil
		}},
		{"another address", func(t *testing.T, _ *httptest.Server, _ *sameorigintest.Seen) (string, *sameorigintest.Seen, *http.Client) {
			ln, err := net.Listen("tcp", "127.0.0.2:0")
			if err != nil {
				t.Skip("cannot listen on 127.0.0.2:", err)
			}
			srv, seen := sameorigintest.Server(t, ln, false, oaAnswer)
			return srv.URL + "/v1/chat/completions", seen, nil
		}},
		{"another scheme (https)", func(t *testing.T, _ *httptest.Server, _ *sameorigintest.Seen) (string, *sameorigintest.Seen, *http.Client) {
			srv, seen := sameorigintest.Server(t, nil, true, oaAnswer)
			return srv.URL + "/v1/chat/completions", seen, srv.Client()
		}},
		{"the key in the location", func(t *testing.T, _ *httptest.Server, _ *sameorigintest.Seen) (string, *sameorigintest.Seen, *http.Client) {
			srv, seen := sameorigintest.Server(t, nil, false, oaAnswer)
			u, _ := url.Parse(srv.URL)
			u.User = url.UserPassword("u", key)
			return u.String() + "/v1/chat/completions?key=" + key, seen, nil
		}},
	}
	for _, status := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		for _, tg := range targets {
			t.Run(strconv.Itoa(status)+"/"+tg.name, func(t *testing.T) {
				var (
					location   string
					originSeen = &sameorigintest.Seen{}
					hostSeen   = &sameorigintest.Seen{} // requests to the origin's server under another host name
				)
				origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if !strings.HasPrefix(r.Host, "127.0.0.1:") {
						hostSeen.Add(r)
						oaAnswer(w)
						return
					}
					originSeen.Add(r)
					http.Redirect(w, r, location, status)
				}))
				defer origin.Close()
				var (
					seen   *sameorigintest.Seen
					client *http.Client
				)
				location, seen, client = tg.start(t, origin, hostSeen)

				rec := &oaRecorder{}
				m := NewOpenAI(OpenAIOptions{URL: origin.URL, APIKey: key, Client: client})
				require.NoError(t, m.Stream(context.Background(), oaStreamReq(), rec))

				got := rec.got(t)
				require.Len(t, got, 1, "one error event: %+v", got)
				assert.Equal(t, EventError, got[0].Name)
				assert.Equal(t, "upstream_redirected", got[0].Ev.ErrorCode)
				msg := got[0].Ev.ErrorMessage
				assert.Contains(t, msg, strconv.Itoa(status))
				to, _ := url.Parse(location)
				assert.Contains(t, msg, sameorigin.Origin(to), "the message names the other origin")
				assert.NotContains(t, msg, key)
				oaAssertNoKey(t, key, got)

				n, auth, _ := originSeen.Get()
				assert.Equal(t, 1, n, "the origin got the request")
				assert.Equal(t, []string{"Bearer " + key}, auth)
				n, auth, body := seen.Get()
				assert.Zero(t, n, "no request reached the other origin (authorization %q, body %q)", auth, body)
				if client != nil {
					assert.Nil(t, client.CheckRedirect, "the caller's client is not changed")
				}
			})
		}
	}
}

func TestOpenAIFollowsSameOriginRedirects(t *testing.T) {
	const key = "sk-same-origin-7"
	for _, status := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			moved := &sameorigintest.Seen{}
			var redirected int
			var mu sync.Mutex
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasPrefix(r.URL.Path, "/moved/") {
					moved.Add(r)
					oaAnswer(w)
					return
				}
				mu.Lock()
				redirected++
				mu.Unlock()
				http.Redirect(w, r, "/moved"+r.URL.Path, status)
			}))
			defer srv.Close()

			// An explicit default port and upper-case host are the same origin.
			callerCalls := 0
			client := &http.Client{CheckRedirect: func(req *http.Request, via []*http.Request) error {
				callerCalls++
				return nil
			}}
			rec := &oaRecorder{}
			m := NewOpenAI(OpenAIOptions{URL: srv.URL, APIKey: key, Client: client})
			require.NoError(t, m.Stream(context.Background(), oaStreamReq(), rec))
			assert.Equal(t, []oaRec{
				{EventMessageStart, Event{Model: "m"}},
				{EventTextDelta, Event{Text: "ok"}},
				{EventMessageStop, Event{StopReason: StopEndTurn}},
			}, rec.got(t))
			n, auth, body := moved.Get()
			require.Equal(t, 1, n)
			assert.Equal(t, []string{"Bearer " + key}, auth, "the key follows a redirect within its origin")
			assert.Contains(t, body[0], `"messages"`, "307 and 308 keep the body")
			assert.Equal(t, 1, callerCalls, "the caller's own redirect policy is still asked")
		})
	}
}

func TestOpenAICallerRedirectPolicyStillApplies(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			t.Errorf("the caller's policy stops redirects, yet %s was requested", r.URL.Path)
		}
		http.Redirect(w, r, "/elsewhere", http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	rec := &oaRecorder{}
	require.NoError(t, NewOpenAI(OpenAIOptions{URL: srv.URL, Client: client}).Stream(context.Background(), oaStreamReq(), rec))
	got := rec.got(t)
	require.Len(t, got, 1)
	assert.Equal(t, "upstream_rejected", got[0].Ev.ErrorCode, "the redirect itself is the answer: %+v", got)
}

func TestOpenAIRedirectLimit(t *testing.T) {
	hops := 0
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hops++
		mu.Unlock()
		http.Redirect(w, r, r.URL.Path+"x", http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	rec := &oaRecorder{}
	require.NoError(t, NewOpenAI(OpenAIOptions{URL: srv.URL}).Stream(context.Background(), oaStreamReq(), rec))
	got := rec.got(t)
	require.Len(t, got, 1)
	assert.Equal(t, "upstream_unreachable", got[0].Ev.ErrorCode)
	assert.Contains(t, got[0].Ev.ErrorMessage, "stopped after 10 redirects")
	mu.Lock()
	assert.Equal(t, sameorigin.MaxRedirects, hops)
	mu.Unlock()
}
