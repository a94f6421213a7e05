//go:build !js && !wasip1

// The bearer token: one refresh after a 401 (chat and capabilities), the
// authorization header, a failing token source, and no token in events or
// errors.

package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/session"
	"github.com/agentwasm/agentwasm/testing/fakeproxy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// refresher is a TokenSource that hands out stale until asked to refresh,
// and fresh from then on. It records every forceRefresh it was asked with.
type refresher struct {
	stale, fresh string

	mu        sync.Mutex
	refreshed bool
	asks      []bool
}

func (r *refresher) AccessToken(_ context.Context, forceRefresh bool) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asks = append(r.asks, forceRefresh)
	if forceRefresh {
		r.refreshed = true
	}
	if r.refreshed {
		return r.fresh, nil
	}
	return r.stale, nil
}

func (r *refresher) Asks() []bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]bool(nil), r.asks...)
}

func TestRefreshAfter401(t *testing.T) {
	proxy := fakeproxy.New(fakeproxy.Reply{Body: fakeproxy.TextStream("ok")})
	gate := fakeproxy.RequireToken(proxy, "fresh-token-2")
	base := startHandler(t, gate)
	auth := &refresher{stale: "stale-token-1", fresh: "fresh-token-2"}
	s := newSession(t, base, func(o *session.Options) { o.Auth = auth; o.DisableToolDiscovery = true })

	turn := chat(t, context.Background(), s, "hi")
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	assert.Equal(t, []bool{false, true}, auth.Asks(), "asked once more with forceRefresh after the 401")
	rejected := gate.Rejected()
	require.Len(t, rejected, 1)
	assert.Equal(t, "Bearer stale-token-1", rejected[0].Header.Get("authorization"))
	reqs := chatRequests(proxy)
	require.Len(t, reqs, 1)
	assert.Equal(t, "Bearer fresh-token-2", reqs[0].Header.Get("authorization"), "the retry carries the new token")
	assert.Equal(t, rejected[0].Body, reqs[0].Body, "the retry sends the same body")

	// The token is read afresh for the next request, without forcing.
	require.Equal(t, session.StatusCompleted, chat(t, context.Background(), s, "again").Status)
	assert.Equal(t, []bool{false, true, false}, auth.Asks())
	assert.Len(t, gate.Rejected(), 1)
}

func TestSecond401IsAnError(t *testing.T) {
	proxy := fakeproxy.New(fakeproxy.Reply{Body: fakeproxy.TextStream("never")})
	gate := fakeproxy.RequireToken(proxy, "the-only-good-token")
	base := startHandler(t, gate)
	auth := &refresher{stale: "stale-token-1", fresh: "still-bad-token"}
	s := newSession(t, base, func(o *session.Options) { o.Auth = auth; o.DisableToolDiscovery = true })
	turn := chat(t, context.Background(), s, "hi")
	assert.Equal(t, session.StatusError, turn.Status)
	assert.Equal(t, "Studio AI proxy responded 401 for the chat request.", turn.ErrorMessage)
	assert.Equal(t, []bool{false, true}, auth.Asks(), "one refresh, one retry, no more")
	assert.Len(t, gate.Rejected(), 2)
	assert.Empty(t, proxy.Requests())
}

func TestRefreshAfter401OnCapabilities(t *testing.T) {
	proxy := fakeproxy.New(fakeproxy.Reply{Body: fakeproxy.TextStream("ok")})
	caps := fakeproxy.WithCapabilities(proxy, fakeproxy.Reply{Body: `{"enabled":false}`})
	gate := fakeproxy.RequireToken(caps, "fresh-token-2")
	base := startHandler(t, gate)
	auth := &refresher{stale: "stale-token-1", fresh: "fresh-token-2"}
	s := newSession(t, base, func(o *session.Options) {
		withTool(&recordingExec{})(o)
		o.Auth = auth
		o.DisableToolDiscovery = true // the token asks counted here are the chat and capabilities reads only
	})
	turn := chat(t, context.Background(), s, "hi")
	assert.Equal(t, session.StatusRefused, turn.Status, "the refreshed capabilities read says enabled:false")
	assert.Equal(t, []bool{false, true}, auth.Asks())
	require.Len(t, caps.Requests(), 1)
	assert.Equal(t, "Bearer fresh-token-2", caps.Requests()[0].Header.Get("authorization"))
}

func TestAuthorizationHeader(t *testing.T) {
	for _, tc := range []struct {
		name string
		auth session.TokenSource
		want string
	}{
		{"no token source", nil, ""},
		{"empty token", session.StaticToken(""), ""},
		{"a token", session.StaticToken("tok-123"), "Bearer tok-123"},
		{"a token func", session.TokenFunc(func(context.Context, bool) (string, error) { return "fn-token", nil }), "Bearer fn-token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proxy, base := startProxy(t, fakeproxy.Reply{Body: fakeproxy.TextStream("ok")})
			s := newSession(t, base, func(o *session.Options) { o.Auth = tc.auth })
			require.Equal(t, session.StatusCompleted, chat(t, context.Background(), s, "hi").Status)
			reqs := chatRequests(proxy)
			require.Len(t, reqs, 1)
			assert.Equal(t, tc.want, reqs[0].Header.Get("authorization"))
			_, present := reqs[0].Header["Authorization"]
			assert.Equal(t, tc.want != "", present, "no authorization header at all without a token")
		})
	}
}

func TestTokenSourceFailure(t *testing.T) {
	proxy, base := startProxy(t, fakeproxy.Reply{Body: fakeproxy.TextStream("never")})
	for _, tc := range []struct {
		name string
		src  session.TokenFunc
		want string
	}{
		{"error", func(context.Context, bool) (string, error) { return "", errors.New("signed out") },
			"Could not get an access token: signed out"},
		{"panic", func(context.Context, bool) (string, error) { panic("auth bug") },
			"Could not get an access token: the token source panicked: auth bug"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t, base, func(o *session.Options) { o.Auth = tc.src })
			turn := chat(t, context.Background(), s, "hi")
			assert.Equal(t, session.StatusError, turn.Status)
			assert.Equal(t, tc.want, turn.ErrorMessage)
		})
	}
	assert.Empty(t, proxy.Requests(), "no request without a token")
}

const secretToken = "sk-live-0123456789abcdef"

// leakCheck gathers every text a session produced: the turn, the observer's
// events, the history and the request bodies.
type leakCheck struct {
	mu     sync.Mutex
	events []string
}

func (l *leakCheck) observe(ev session.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, fmt.Sprintf("%+v %+v", ev.Chat, ev.Result))
	if ev.Chat != nil {
		l.events = append(l.events, string(ev.Chat.ToolArguments))
	}
}

func (l *leakCheck) texts(turn session.Turn, s *session.Session) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%+v\n", turn)
	for _, ev := range turn.Events {
		fmt.Fprintf(&b, "%s %s\n", ev.ErrorMessage, ev.Text)
	}
	for _, r := range turn.ToolCalls {
		fmt.Fprintf(&b, "%s %s\n", r.ErrorMessage, r.Content)
	}
	for _, m := range s.Messages() {
		fmt.Fprintf(&b, "%s\n", m.Content)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b.WriteString(strings.Join(l.events, "\n"))
	return b.String()
}

// TestTokenNeverInEventsOrErrors: wherever a token comes back (a proxy
// error event, a fetcher error, a tool's error, reason or data), the session
// writes [redacted] in its place.
func TestTokenNeverInEventsOrErrors(t *testing.T) {
	echo := func(ctx context.Context, c session.ToolCall) (session.ToolResult, error) {
		switch c.Name {
		case "fails":
			return session.ToolResult{}, errors.New("upstream rejected Bearer " + secretToken)
		case "denies":
			return session.ToolResult{Status: session.ToolDenied, DeniedReason: "token " + secretToken + " lacks scope"}, nil
		default:
			return session.ToolResult{Status: session.ToolOK, Data: json.RawMessage(`{"echo":"` + secretToken + `"}`)}, nil
		}
	}
	toolRound := sseToolRound("", sseToolCall("c1", "fails"), sseToolCall("c2", "denies"), sseToolCall("c3", "echoes"))
	errorFrame := fakeproxy.Frame("error", `{"errorMessage":"invalid token `+secretToken+`","errorCode":"auth"}`)
	cases := []struct {
		name    string
		replies []fakeproxy.Reply
		fetch   func(next bridge.Fetcher) bridge.Fetcher
		status  session.Status
	}{
		{name: "proxy error event echoes the token", replies: []fakeproxy.Reply{{Body: errorFrame}}, status: session.StatusError},
		{name: "fetcher error echoes the token", replies: []fakeproxy.Reply{{Body: fakeproxy.TextStream("x")}},
			fetch: func(next bridge.Fetcher) bridge.Fetcher {
				return bridge.FetcherFunc(func(ctx context.Context, req *bridge.Request) (*bridge.Response, error) {
					return nil, &bridge.FetchError{URL: req.URL, Err: errors.New("refused " + req.Header.Get("authorization"))}
				})
			}, status: session.StatusError},
		{name: "stream error echoes the token", replies: []fakeproxy.Reply{{Body: fakeproxy.TextStream("x")}},
			fetch: func(next bridge.Fetcher) bridge.Fetcher {
				return bridge.FetcherFunc(func(ctx context.Context, req *bridge.Request) (*bridge.Response, error) {
					resp, err := next.Fetch(ctx, req)
					if err != nil || strings.HasSuffix(req.URL, "/capabilities") {
						return resp, err
					}
					resp.Body.Close()
					r := strings.NewReader(fakeproxy.Frame("text_delta", `{"text":"a"}`))
					return &bridge.Response{Status: 200, Header: bridge.Header{}, Body: closeFunc{&failAfter{r: r, err: errors.New("reset by " + secretToken)}, func() {}}}, nil
				})
			}, status: session.StatusError},
		{name: "tool errors, reasons and data echo the token",
			replies: []fakeproxy.Reply{{Body: toolRound}, {Body: errorFrame}}, status: session.StatusError},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			proxy, base := startProxy(t, tc.replies...)
			var leaks leakCheck
			s := newSession(t, base, func(o *session.Options) {
				o.Auth = session.StaticToken(secretToken)
				o.Tools = []session.ToolDefinition{tool("fails"), tool("denies"), tool("echoes")}
				o.Execute = session.ExecutorFunc(echo)
				o.OnEvent = leaks.observe
				if tc.fetch != nil {
					o.Fetcher = tc.fetch(o.Fetcher)
				}
			})
			turn := chat(t, context.Background(), s, "hi")
			assert.Equal(t, tc.status, turn.Status, turn.ErrorMessage)
			all := leaks.texts(turn, s)
			assert.NotContains(t, all, secretToken)
			assert.Contains(t, all, "[redacted]", "the echo is there, scrubbed")
			assert.NotContains(t, turn.ErrorMessage, secretToken)
			for _, r := range chatRequests(proxy) {
				assert.NotContains(t, string(r.Body), secretToken, "the model never sees the token")
			}
			_, err := s.Capabilities(context.Background())
			if err != nil {
				assert.NotContains(t, err.Error(), secretToken)
			}
		})
	}
}

// TestCapabilitiesErrorNeverHoldsTheToken: the error Capabilities returns is
// scrubbed too, and still says it was a cancellation when it was one.
func TestCapabilitiesErrorNeverHoldsTheToken(t *testing.T) {
	var cancelNext bool
	s := newSession(t, "", func(o *session.Options) {
		o.Auth = session.StaticToken(secretToken)
		o.Fetcher = bridge.FetcherFunc(func(ctx context.Context, req *bridge.Request) (*bridge.Response, error) {
			err := errors.New("proxy said: bad " + req.Header.Get("authorization"))
			if cancelNext {
				return nil, errors.Join(context.Canceled, err)
			}
			return nil, &bridge.FetchError{URL: req.URL, Err: err}
		})
	})
	_, err := s.Capabilities(context.Background())
	require.Error(t, err)
	assert.NotContains(t, err.Error(), secretToken)
	assert.Contains(t, err.Error(), "[redacted]")
	for e := errors.Unwrap(err); e != nil; e = errors.Unwrap(e) {
		assert.NotContains(t, e.Error(), secretToken, "nor does any error it wraps")
	}

	cancelNext = true
	_, err = s.Capabilities(context.Background())
	require.Error(t, err)
	assert.NotContains(t, err.Error(), secretToken)
	assert.ErrorIs(t, err, context.Canceled)
}

// failAfter reads r, then fails with err.
type failAfter struct {
	r   *strings.Reader
	err error
}

func (f *failAfter) Read(p []byte) (int, error) {
	if f.r.Len() == 0 {
		return 0, f.err
	}
	return f.r.Read(p)
}
