//go:build !js && !wasip1

// The capabilities endpoint: refusals, the request and its cache, failures
// that are neither refusals nor cached, provider resolution, and a broken
// fetcher.

package session_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/session"
	"github.com/agentwasm/agentwasm/testing/fakeproxy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startCaps serves a fake proxy answering chat requests with chat and
// capabilities requests with caps.
func startCaps(t *testing.T, caps []fakeproxy.Reply, chat ...fakeproxy.Reply) (*fakeproxy.Proxy, *fakeproxy.Capabilities, string) {
	t.Helper()
	proxy := fakeproxy.New(chat...)
	c := fakeproxy.WithCapabilities(proxy, caps...)
	return proxy, c, startHandler(t, c)
}

func capsReply(body string) fakeproxy.Reply { return fakeproxy.Reply{Body: body} }

// withTool advertises one runtime tool, with an executor that counts calls.
func withTool(exec *recordingExec) func(*session.Options) {
	return func(o *session.Options) {
		o.Tools = []session.ToolDefinition{tool("setFilter")}
		o.Execute = exec
	}
}

func TestRefusal(t *testing.T) {
	anthropicNoTools := `{"enabled":true,"defaultProvider":"anthropic","providers":[` +
		`{"name":"openai","toolSupport":true,"defaultModel":"gpt-x"},` +
		`{"name":"anthropic","toolSupport":false,"defaultModel":"claude-y"}]}`
	cases := []struct {
		name     string
		caps     string
		provider string
		model    string
		refused  bool
		contains []string
	}{
		{name: "disabled", caps: `{"enabled":false,"providers":[{"name":"p","toolSupport":true,"default":true}]}`,
			refused: true, contains: []string{"not enabled", "enabled:false"}},
		{name: "defaultProvider without tool support", caps: anthropicNoTools,
			refused: true, contains: []string{"anthropic", "claude-y", "does not support tool calls"}},
		{name: "the model option is named", caps: anthropicNoTools, model: "claude-z",
			refused: true, contains: []string{"anthropic", "claude-z"}},
		{name: "provider option without tool support", caps: anthropicNoTools, provider: "anthropic",
			refused: true, contains: []string{"anthropic"}},
		{name: "provider option with tool support", caps: anthropicNoTools, provider: "openai"},
		{name: "provider option unknown", caps: anthropicNoTools, provider: "mistral"},
		{name: "entry marked default without tool support",
			caps:    `{"providers":[{"name":"a","toolSupport":true},{"name":"b","default":true,"toolSupport":false,"defaultModel":"bm"}]}`,
			refused: true, contains: []string{"b", "bm"}},
		{name: "entry marked isDefault without tool support",
			caps:    `{"enabled":true,"providers":[{"name":"a","toolSupport":true},{"name":"b","isDefault":true,"toolSupport":false}]}`,
			refused: true, contains: []string{"Provider b "}},
		{name: "tool support not said", caps: `{"enabled":true,"providers":[{"name":"a","default":true}]}`},
		{name: "no providers", caps: `{"enabled":true}`},
		{name: "enabled not said", caps: `{}`},
		{name: "not JSON", caps: `<html>`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			proxy, caps, base := startCaps(t, []fakeproxy.Reply{capsReply(tc.caps)}, fakeproxy.Reply{Body: fakeproxy.TextStream("ok")})
			exec := &recordingExec{}
			var systems atomic.Int32
			var events []session.Event
			s := newSession(t, base, func(o *session.Options) {
				withTool(exec)(o)
				o.Provider = tc.provider
				o.Model = tc.model
				o.SystemFunc = func(context.Context) (string, error) { systems.Add(1); return "", nil }
				o.OnEvent = func(ev session.Event) { events = append(events, ev) }
			})
			turn := chat(t, context.Background(), s, "hi")
			require.Len(t, caps.Requests(), 1)
			if !tc.refused {
				assert.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
				assert.Len(t, chatRequests(proxy), 1)
				return
			}
			assert.Equal(t, session.StatusRefused, turn.Status)
			for _, c := range tc.contains {
				assert.Contains(t, turn.ErrorMessage, c)
			}
			assert.Empty(t, chatRequests(proxy), "no chat request is sent")
			assert.Empty(t, s.Messages(), "a refused turn adds nothing to history")
			assert.Equal(t, 0, turn.Rounds)
			assert.Empty(t, turn.Events)
			assert.Empty(t, withoutDiscovery(events), "only the (failed) discovery report is published")
			assert.Zero(t, systems.Load(), "the system prompt is not built")
		})
	}
}

func TestRefusalScripted(t *testing.T) {
	no := false
	tr := session.NewScriptedTransport(session.TextRound("never"))
	tr.Caps = &session.Capabilities{Enabled: true, Providers: []session.ProviderInfo{{Name: "local", Default: true, ToolSupport: &no}}}
	s := newScripted(t, tr, func(o *session.Options) { withTool(&recordingExec{})(o); o.Model = "tiny" })
	turn := chat(t, context.Background(), s, "hi")
	assert.Equal(t, session.StatusRefused, turn.Status)
	assert.Equal(t, "Provider local with model tiny does not support tool calls, and this session advertises tools; no chat request was sent.", turn.ErrorMessage)
	assert.Empty(t, tr.Requests())
	assert.Empty(t, s.Messages())

	tr.Caps = &session.Capabilities{Enabled: false}
	s = newScripted(t, tr, withTool(&recordingExec{}))
	assert.Equal(t, session.StatusRefused, chat(t, context.Background(), s, "hi").Status)
	assert.Empty(t, tr.Requests())

	// Without scripted capabilities the turn goes on.
	tr.Caps = nil
	s = newScripted(t, tr, withTool(&recordingExec{}))
	assert.Equal(t, session.StatusCompleted, chat(t, context.Background(), s, "hi").Status)
	assert.Len(t, tr.Requests(), 1)
}

func TestNoToolsNoCapabilitiesRequest(t *testing.T) {
	proxy, caps, base := startCaps(t, []fakeproxy.Reply{capsReply(`{"enabled":false}`)}, fakeproxy.Reply{Body: fakeproxy.TextStream("ok")})
	s := newSession(t, base, nil)
	turn := chat(t, context.Background(), s, "hi")
	assert.Equal(t, session.StatusCompleted, turn.Status, "with no tools advertised there is no refusal check")
	assert.Empty(t, caps.Requests(), "no capabilities request at all")
	assert.Len(t, chatRequests(proxy), 1)

	// A kit that offers no tools advertises none either.
	s = newSession(t, base, func(o *session.Options) { o.Kit = &testKit{exec: &recordingExec{}} })
	assert.Equal(t, session.StatusCompleted, chat(t, context.Background(), s, "hi").Status)
	assert.Empty(t, caps.Requests())
}

func TestCapabilitiesUnreachableIsNotARefusal(t *testing.T) {
	t.Run("500", func(t *testing.T) {
		proxy, caps, base := startCaps(t, []fakeproxy.Reply{{Status: 500, Body: `{"enabled":false}`}}, fakeproxy.Reply{Body: fakeproxy.TextStream("ok")})
		s := newSession(t, base, withTool(&recordingExec{}))
		turn := chat(t, context.Background(), s, "hi")
		assert.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
		assert.Len(t, caps.Requests(), 1)
		assert.Len(t, chatRequests(proxy), 1)
		_, err := s.Capabilities(context.Background())
		if assert.Error(t, err) {
			assert.Contains(t, err.Error(), "500")
		}
	})
	t.Run("network error", func(t *testing.T) {
		proxy, base := startProxy(t, fakeproxy.Reply{Body: fakeproxy.TextStream("ok")})
		var capsTries atomic.Int32
		s := newSession(t, base, func(o *session.Options) {
			withTool(&recordingExec{})(o)
			o.Fetcher = bridge.FetcherFunc(func(ctx context.Context, req *bridge.Request) (*bridge.Response, error) {
				if strings.HasSuffix(req.URL, "/capabilities") {
					capsTries.Add(1)
					return nil, &bridge.FetchError{URL: req.URL, Err: errors.New("connection reset")}
				}
				return (&bridge.HTTPFetcher{}).Fetch(ctx, req)
			})
		})
		turn := chat(t, context.Background(), s, "hi")
		assert.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
		assert.Equal(t, int32(1), capsTries.Load())
		assert.Len(t, chatRequests(proxy), 1)
	})
	t.Run("hanging capabilities end with the turn's context", func(t *testing.T) {
		proxy, caps, base := startCaps(t, []fakeproxy.Reply{{Hang: true}}, fakeproxy.Reply{Body: fakeproxy.TextStream("ok")})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		asked := make(chan struct{}, 1)
		s := newSession(t, base, func(o *session.Options) {
			withTool(&recordingExec{})(o)
			o.Fetcher = bridge.FetcherFunc(func(fctx context.Context, req *bridge.Request) (*bridge.Response, error) {
				if strings.HasSuffix(req.URL, "/capabilities") {
					asked <- struct{}{}
				}
				return (&bridge.HTTPFetcher{}).Fetch(fctx, req)
			})
		})
		go func() {
			<-asked
			cancel()
		}()
		turn := chat(t, ctx, s, "hi")
		assert.Equal(t, session.StatusCancelled, turn.Status)
		assert.Empty(t, chatRequests(proxy))
		assert.Empty(t, s.Messages())
		assert.LessOrEqual(t, len(caps.Requests()), 1)
	})
}

func TestCapabilitiesCache(t *testing.T) {
	proxy, caps, base := startCaps(t, []fakeproxy.Reply{capsReply(`{"enabled":true}`), capsReply(`{"enabled":false}`)},
		fakeproxy.Reply{Body: fakeproxy.TextStream("ok")})
	s := newSession(t, base, withTool(&recordingExec{}))
	assert.Equal(t, session.StatusCompleted, chat(t, context.Background(), s, "one").Status)
	assert.Equal(t, session.StatusCompleted, chat(t, context.Background(), s, "two").Status,
		"the second turn uses the cached answer, not the proxy's later enabled:false")
	assert.Len(t, caps.Requests(), 1, "one capabilities request across two turns")
	s.Reset()
	assert.Equal(t, session.StatusCompleted, chat(t, context.Background(), s, "three").Status)
	assert.Len(t, caps.Requests(), 1, "Reset keeps the cache")
	c, err := s.Capabilities(context.Background())
	require.NoError(t, err)
	assert.True(t, c.Enabled)
	assert.Len(t, caps.Requests(), 1)
	assert.Len(t, chatRequests(proxy), 3)
}

func TestCapabilitiesFailureNotCached(t *testing.T) {
	proxy, caps, base := startCaps(t,
		[]fakeproxy.Reply{{Status: 503}, capsReply(`{"enabled":false}`), capsReply(`{"enabled":true}`)},
		fakeproxy.Reply{Body: fakeproxy.TextStream("ok")})
	s := newSession(t, base, withTool(&recordingExec{}))
	assert.Equal(t, session.StatusCompleted, chat(t, context.Background(), s, "one").Status, "a failed read goes on")
	assert.Equal(t, session.StatusRefused, chat(t, context.Background(), s, "two").Status, "the next turn reads again")
	assert.Equal(t, session.StatusRefused, chat(t, context.Background(), s, "three").Status, "and then caches")
	assert.Len(t, caps.Requests(), 2)
	assert.Len(t, chatRequests(proxy), 1)
	assert.Equal(t, []string{"user: one", "assistant: ok"}, roles(s.Messages()))
}

func TestCapabilitiesRequest(t *testing.T) {
	_, caps, base := startCaps(t, []fakeproxy.Reply{capsReply(`{"enabled":true,"providers":[{"name":"p","isDefault":true,"toolSupport":true,"defaultModel":"m","models":["m","n"]}]}`)})
	s := newSession(t, base, func(o *session.Options) { o.Auth = session.StaticToken("tok-abc") })
	c, err := s.Capabilities(context.Background())
	require.NoError(t, err)
	yes := true
	assert.Equal(t, session.Capabilities{Enabled: true, Providers: []session.ProviderInfo{
		{Name: "p", Default: true, ToolSupport: &yes, DefaultModel: "m", Models: []string{"m", "n"}},
	}}, c)
	reqs := caps.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "GET", reqs[0].Method)
	assert.Equal(t, "application/json", reqs[0].Header.Get("accept"))
	assert.Equal(t, "Bearer tok-abc", reqs[0].Header.Get("authorization"))
	assert.Empty(t, reqs[0].Body)
}

func TestResolveProvider(t *testing.T) {
	cases := []struct {
		name     string
		caps     string
		provider string
		want     string // "" means none resolved
	}{
		{"provider option by name", `{"defaultProvider":"a","providers":[{"name":"a"},{"name":"b"}]}`, "b", "b"},
		{"provider option unknown", `{"defaultProvider":"a","providers":[{"name":"a","default":true}]}`, "zz", ""},
		{"defaultProvider by name", `{"defaultProvider":"b","providers":[{"name":"a","default":true},{"name":"b"}]}`, "", "b"},
		{"entry marked default", `{"providers":[{"name":"a"},{"name":"b","default":true}]}`, "", "b"},
		{"entry marked isDefault", `{"providers":[{"name":"a"},{"name":"b","isDefault":true}]}`, "", "b"},
		{"first marked entry", `{"providers":[{"name":"a","isDefault":true},{"name":"b","default":true}]}`, "", "a"},
		{"none marked", `{"providers":[{"name":"a"},{"name":"b"}]}`, "", ""},
		{"no providers", `{"enabled":true}`, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, base := startCaps(t, []fakeproxy.Reply{capsReply(tc.caps)})
			s := newSession(t, base, func(o *session.Options) { o.Provider = tc.provider })
			p, ok, err := s.ResolveProvider(context.Background())
			require.NoError(t, err)
			assert.Equal(t, tc.want != "", ok)
			assert.Equal(t, tc.want, p.Name)
		})
	}
	t.Run("unreachable", func(t *testing.T) {
		_, _, base := startCaps(t, []fakeproxy.Reply{{Status: 502}})
		s := newSession(t, base, nil)
		_, ok, err := s.ResolveProvider(context.Background())
		assert.Error(t, err)
		assert.False(t, ok)
	})
}

// A fetcher that returns neither a response nor an error, or panics, on the
// capabilities request must not crash the turn.
func TestCapabilitiesWithABrokenFetcher(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fetch  bridge.FetcherFunc
		status session.Status // of the chat that follows
	}{
		{"nil response", func(ctx context.Context, req *bridge.Request) (*bridge.Response, error) { return nil, nil }, session.StatusError},
		// A body-less 200 is an answer without message_stop: truncated.
		{"nil body", func(ctx context.Context, req *bridge.Request) (*bridge.Response, error) {
			return &bridge.Response{Status: 200}, nil
		}, session.StatusError},
		{"panic", func(ctx context.Context, req *bridge.Request) (*bridge.Response, error) { panic("fetcher bug") }, session.StatusError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t, "", func(o *session.Options) { withTool(&recordingExec{})(o); o.Fetcher = tc.fetch })
			turn := chat(t, context.Background(), s, "hi")
			assert.Equal(t, tc.status, turn.Status, "nothing panics: %s", turn.ErrorMessage)
			_, err := s.Capabilities(context.Background())
			assert.Error(t, err)
		})
	}
}
