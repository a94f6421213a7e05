//go:build !js && !wasip1

// Absent optional endpoints (ErrEndpointAbsent): each is asked once and
// remembered, other failures are retried, an absent MCP endpoint is looked
// for again after RefreshTools or Reconnect, and a custom MCP client can
// report absence too.

package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/session"
	"github.com/agentwasm/agentwasm/session/mcpclient"
	"github.com/agentwasm/agentwasm/testing/fakemcp"
	"github.com/agentwasm/agentwasm/testing/fakeproxy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// optionalEndpoints is a Studio AI proxy whose optional endpoints are
// scripted and can be swapped between turns: mcp answers {BaseURL}/mcp and
// caps the capabilities endpoint (nil: 404, like a proxy without them);
// every other request goes to chat. It records the JSON-RPC method (or the
// HTTP method, for a body without one) of every MCP request and counts
// capabilities requests.
type optionalEndpoints struct {
	chat http.Handler

	mu         sync.Mutex
	mcp, caps  http.Handler
	mcpMethods []string
	capsHits   int
}

func (e *optionalEndpoints) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e.mu.Lock()
	var h http.Handler
	switch r.URL.Path {
	case fakeproxy.MCPPath:
		method := r.Header.Get("Mcp-Method")
		if method == "" {
			var body struct{ Method string }
			if r.Body != nil {
				_ = json.NewDecoder(r.Body).Decode(&body)
			}
			method = body.Method
			if method == "" {
				method = r.Method
			}
		}
		e.mcpMethods = append(e.mcpMethods, method)
		h = e.mcp
	case fakeproxy.CapabilitiesPath:
		e.capsHits++
		h = e.caps
	default:
		h = e.chat
	}
	e.mu.Unlock()
	if h == nil {
		http.NotFound(w, r)
		return
	}
	h.ServeHTTP(w, r)
}

func (e *optionalEndpoints) methods() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.mcpMethods...)
}

func (e *optionalEndpoints) capabilitiesRequests() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.capsHits
}

func (e *optionalEndpoints) setMCP(h http.Handler) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.mcp = h
}

// answer is a handler answering every request with status and body.
func answer(status int, body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if body != "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	})
}

// startOptional serves e and returns the base URL.
func startOptional(t *testing.T, e *optionalEndpoints) string {
	t.Helper()
	if e.chat == nil {
		e.chat = fakeproxy.New(fakeproxy.Reply{Body: fakeproxy.TextStream("ok")})
	}
	return startHandler(t, e)
}

// withEra gives the session an mcpclient.Client on {base}/mcp speaking era
// (auto: the default client New builds).
func withEra(base string, era mcpclient.Era) func(*session.Options) {
	return func(o *session.Options) {
		if era == mcpclient.EraAuto {
			return
		}
		c, err := mcpclient.New(mcpclient.Config{URL: base + "/mcp", Fetcher: &bridge.HTTPFetcher{}, Era: era})
		if err != nil {
			panic(err)
		}
		o.MCPClient = c
	}
}

// A proxy with no MCP endpoint and no capabilities endpoint (404 or 405):
// three turns complete on the runtime tools; the first contact of each
// endpoint happens once, on the first turn, and never again; one discovery
// report is published, saying plainly what is missing; the absence outlives
// Reset.
func TestAbsentEndpointsAreAskedOnce(t *testing.T) {
	for _, tc := range []struct {
		name    string
		era     mcpclient.Era
		mcp     http.Handler
		status  int
		methods []string // the MCP requests of the one contact
	}{
		{name: "404, auto era", era: mcpclient.EraAuto, status: 404, methods: []string{"server/discover", "initialize"}},
		{name: "405, auto era", era: mcpclient.EraAuto, mcp: answer(405, ""), status: 405, methods: []string{"server/discover", "initialize"}},
		{name: "404 with a JSON-RPC error body, auto era", era: mcpclient.EraAuto, status: 404,
			mcp:     answer(404, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`),
			methods: []string{"server/discover", "initialize"}},
		{name: "404, session era", era: mcpclient.EraSession, status: 404, methods: []string{"initialize"}},
		{name: "404, stateless era", era: mcpclient.EraStateless, status: 404, methods: []string{"tools/list"}},
		{name: "405, stateless era", era: mcpclient.EraStateless, mcp: answer(405, ""), status: 405, methods: []string{"tools/list"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &optionalEndpoints{mcp: tc.mcp, caps: answer(tc.status, "")}
			base := startOptional(t, e)
			exec := &recordingExec{}
			var log eventLog
			s := newSession(t, base, func(o *session.Options) {
				withTool(exec)(o) // tools are advertised, so capabilities are read
				withEra(base, tc.era)(o)
				o.OnEvent = log.add
			})
			for i, text := range []string{"one", "two", "three"} {
				turn := chat(t, context.Background(), s, text)
				require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
				assert.Equal(t, tc.methods, e.methods(), "turn %d: the MCP endpoint was contacted once, on the first turn", i+1)
				assert.Equal(t, 1, e.capabilitiesRequests(), "turn %d: one capabilities request", i+1)
			}
			s.Reset()
			require.Equal(t, session.StatusCompleted, chat(t, context.Background(), s, "four").Status)
			assert.Equal(t, tc.methods, e.methods(), "Reset keeps the absence")
			assert.Equal(t, 1, e.capabilitiesRequests(), "Reset keeps the absence")

			reports := log.discoveries()
			require.Len(t, reports, 1, "one published discovery report")
			rep := reports[0]
			assert.Equal(t, "The Studio AI proxy has no MCP endpoint at "+base+"/mcp (HTTP "+strconv.Itoa(tc.status)+
				"); the session goes on with its runtime tools, and does not look for MCP tools again until the tools are refreshed or the session reconnects.",
				rep.ErrorMessage)
			assert.Equal(t, session.ToolDiscoveryReport{ErrorMessage: rep.ErrorMessage}, rep, "an empty catalog")
			assert.Equal(t, rep, s.ToolDiscovery())
			assert.Equal(t, []string{"setFilter"}, toolNames(s.Tools()))

			_, err := s.Capabilities(context.Background())
			require.ErrorIs(t, err, session.ErrEndpointAbsent)
			var ae *session.EndpointAbsentError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, session.EndpointAbsentError{Endpoint: "capabilities", URL: base + "/v1/studio/ai/capabilities", Status: tc.status}, *ae)
			assert.Contains(t, err.Error(), "has no capabilities endpoint at "+base+"/v1/studio/ai/capabilities (HTTP "+strconv.Itoa(tc.status)+")")
			assert.Equal(t, 1, e.capabilitiesRequests(), "Capabilities does not ask again either")
		})
	}
}

// Failures that are not absence are not remembered: capabilities are asked
// again on each turn; a failed discovery pass makes discovery degraded, so
// later turns do not ask (or wait) again, and the pass is retried in the
// background on the session's clock, 1 s and then 2 s later, each failed
// pass published.
func TestOtherEndpointFailuresAreRetried(t *testing.T) {
	for _, tc := range []struct {
		name       string
		mcp        http.Handler
		caps       http.Handler
		perRetry   []string // the MCP requests of each background retry
		capsByTurn []int    // capabilities requests after each turn
	}{
		{name: "500 from /mcp and capabilities", mcp: answer(500, ""), caps: answer(500, ""),
			perRetry: []string{"server/discover"}, capsByTurn: []int{1, 2, 3}},
		{name: "503 from /mcp with a JSON-RPC body, 502 from capabilities",
			mcp:      answer(503, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"overloaded"}}`),
			caps:     answer(502, ""),
			perRetry: []string{"server/discover"}, capsByTurn: []int{1, 2, 3}},
		{name: "a 400 probe then a 404 initialize: something is there", caps: answer(200, `{"enabled":true}`),
			mcp: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Mcp-Method") == "server/discover" {
					w.WriteHeader(400)
					return
				}
				http.NotFound(w, r)
			}),
			// The era learnt from the 400 is remembered: retries send initialize.
			perRetry: []string{"initialize"}, capsByTurn: []int{1, 1, 1}},
		{name: "capabilities answer malformed JSON", caps: answer(200, `<html>`),
			capsByTurn: []int{1, 2, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &optionalEndpoints{mcp: tc.mcp, caps: tc.caps}
			base := startOptional(t, e)
			var log eventLog
			clock := newManualClock()
			go func() {
				for range clock.added { // the test reads the clock's schedule below, not its timers
				}
			}()
			s := newSession(t, base, func(o *session.Options) {
				withTool(&recordingExec{})(o)
				o.OnEvent = log.add
				o.Clock = clock
			})
			t.Cleanup(func() { _ = s.Close() })
			var first []string
			for i, text := range []string{"one", "two", "three"} {
				turn := chat(t, context.Background(), s, text)
				require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
				assert.Equal(t, tc.capsByTurn[i], e.capabilitiesRequests(), "turn %d", i+1)
				if i == 0 {
					first = e.methods()
					continue
				}
				assert.Equal(t, first, e.methods(), "turn %d: no MCP request (absent, or degraded)", i+1)
			}
			if tc.mcp == nil {
				assert.Len(t, log.discoveries(), 1, "absent: published once")
				return
			}
			want := append([]string(nil), first...)
			for i, wait := range []time.Duration{time.Second, 2 * time.Second} {
				clock.Advance(wait - time.Millisecond)
				assert.Equal(t, want, e.methods(), "retry %d: not before its time", i+1)
				clock.Advance(time.Millisecond)
				want = append(want, tc.perRetry...)
				require.Eventually(t, func() bool { return len(log.discoveries()) == i+2 }, 5*time.Second, time.Millisecond, "retry %d published", i+1)
				assert.Equal(t, want, e.methods(), "retry %d", i+1)
			}
			for _, r := range log.discoveries() {
				assert.NotEmpty(t, r.ErrorMessage)
				assert.NotContains(t, r.ErrorMessage, "has no MCP endpoint")
				assert.True(t, r.Degraded)
			}
		})
	}
}

// After absence, RefreshTools and Reconnect look again: the client forgets
// the era it guessed and probes afresh; once the endpoint exists, its tools
// are routed.
func TestAbsentMCPEndpointIsLookedForAgain(t *testing.T) {
	for _, how := range []string{"RefreshTools", "Reconnect"} {
		t.Run(how, func(t *testing.T) {
			e := &optionalEndpoints{caps: answer(200, `{"enabled":true}`)}
			base := startOptional(t, e)
			var log eventLog
			s := newSession(t, base, func(o *session.Options) {
				withTool(&recordingExec{})(o)
				o.OnEvent = log.add
			})
			t.Cleanup(func() { _ = s.Close() })
			require.Equal(t, session.StatusCompleted, chat(t, context.Background(), s, "one").Status)
			require.Equal(t, []string{"server/discover", "initialize"}, e.methods())

			switch how {
			case "RefreshTools":
				rep, err := s.RefreshTools(context.Background())
				require.ErrorIs(t, err, session.ErrEndpointAbsent, "still absent")
				assert.Contains(t, rep.ErrorMessage, "has no MCP endpoint at "+base+"/mcp (HTTP 404)")
			case "Reconnect":
				require.NoError(t, s.Reconnect(context.Background()))
				require.Equal(t, session.StatusCompleted, chat(t, context.Background(), s, "two").Status)
			}
			assert.Equal(t, []string{"server/discover", "initialize", "server/discover", "initialize"}, e.methods(),
				"probed again from the start")
			assert.Len(t, log.discoveries(), 2)

			// The endpoint appears.
			srv := &fakemcp.Server{Era: fakemcp.Stateless, Tools: []json.RawMessage{
				json.RawMessage(`{"name":"honua_studio_set_view","inputSchema":{"type":"object"},"_meta":{"honua.studio":{"family":"honua.studio.composition"}}}`),
			}}
			e.setMCP(srv)
			switch how {
			case "RefreshTools":
				rep, err := s.RefreshTools(context.Background())
				require.NoError(t, err)
				assert.Equal(t, []string{"honua_studio_set_view"}, rep.Routed)
			case "Reconnect":
				require.NoError(t, s.Reconnect(context.Background()))
				require.Equal(t, session.StatusCompleted, chat(t, context.Background(), s, "three").Status)
				assert.Equal(t, []string{"honua_studio_set_view"}, s.ToolDiscovery().Routed)
			}
			assert.Empty(t, s.ToolDiscovery().ErrorMessage)
			assert.Equal(t, []string{"setFilter", "honua_studio_set_view"}, toolNames(s.Tools()))
		})
	}
}

// An MCPClient of one's own may report absence with ErrEndpointAbsent.
func TestCustomMCPClientReportsAbsence(t *testing.T) {
	mcp := &fakeMCP{list: func(context.Context) ([]mcpclient.Tool, error) {
		return nil, errors.Join(errors.New("no MCP here"), session.ErrEndpointAbsent)
	}}
	var log eventLog
	tr := session.NewScriptedTransport(session.TextRound("hi"))
	s := newScripted(t, tr, func(o *session.Options) { o.MCPClient = mcp; o.OnEvent = log.add })
	for range 3 {
		require.Equal(t, session.StatusCompleted, chat(t, context.Background(), s, "x").Status)
	}
	assert.Equal(t, 1, mcp.listCount())
	reports := log.discoveries()
	require.Len(t, reports, 1)
	assert.Contains(t, reports[0].ErrorMessage, "no MCP here")
	assert.Contains(t, reports[0].ErrorMessage, "the session goes on with its runtime tools")
	_, err := s.RefreshTools(context.Background())
	assert.ErrorIs(t, err, session.ErrEndpointAbsent)
	assert.Equal(t, 2, mcp.listCount())
}
