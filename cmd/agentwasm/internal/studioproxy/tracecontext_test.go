// Tests of the trace context passed on upstream: a well-formed traceparent
// and tracestate reach the upstream unchanged, through the proxy's OpenAI
// model and through the pass-through; malformed ones are dropped, absent
// ones stay absent, and no other header of the caller's goes with them.

package studioproxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Well-formed trace context values of the tests.
const (
	tcParent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	tcState  = "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7"
)

// traceContextCases are what the caller sends (nil: the header is not
// sent; several values: several header fields) and what must reach the
// upstream ("": the header is absent there).
var traceContextCases = []struct {
	name                  string
	parents, states       []string
	wantParent, wantState string
}{
	{name: "absent stays absent"},
	{name: "traceparent alone", parents: []string{tcParent}, wantParent: tcParent},
	{name: "both", parents: []string{tcParent}, states: []string{tcState}, wantParent: tcParent, wantState: tcState},
	{name: "sampled flag off", parents: []string{"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"},
		wantParent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"},
	{name: "tracestate in two fields is one list", parents: []string{tcParent}, states: []string{"congo=t61rcWkgMzE", "rojo=00f067aa0ba902b7"},
		wantParent: tcParent, wantState: "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7"},
	{name: "tracestate of 512 bytes", parents: []string{tcParent}, states: []string{"a=" + strings.Repeat("x", 510)},
		wantParent: tcParent, wantState: "a=" + strings.Repeat("x", 510)},
	{name: "tracestate of 513 bytes dropped", parents: []string{tcParent}, states: []string{"a=" + strings.Repeat("x", 511)}, wantParent: tcParent},
	{name: "tracestate in two fields of 513 bytes dropped", parents: []string{tcParent}, states: []string{"a=" + strings.Repeat("x", 255), "b=" + strings.Repeat("y", 253)},
		wantParent: tcParent},
	{name: "tracestate beyond ASCII dropped", parents: []string{tcParent}, states: []string{"congo=caf\u00e9"}, wantParent: tcParent},
	{name: "tracestate without traceparent dropped", states: []string{tcState}},
	{name: "upper-case hex dropped", parents: []string{"00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01"}, states: []string{tcState}},
	{name: "all-zero trace id dropped", parents: []string{"00-00000000000000000000000000000000-00f067aa0ba902b7-01"}},
	{name: "all-zero span id dropped", parents: []string{"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01"}},
	{name: "another version dropped", parents: []string{"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}},
	{name: "longer than 55 dropped", parents: []string{tcParent + "-extra"}},
	{name: "shorter trace id dropped", parents: []string{"00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01"}},
	{name: "misplaced dash dropped", parents: []string{"00-4bf92f3577b34da6a3ce929d0e0e4736000f067aa0ba902b7-01"}},
	{name: "flags not hex dropped", parents: []string{"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g"}},
	{name: "two traceparents dropped", parents: []string{tcParent, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}, states: []string{tcState}},
	{name: "empty traceparent dropped", parents: []string{""}},
}

// traceContextHeader is the caller's request headers of a case, with
// headers that must not go upstream besides.
func traceContextHeader(parents, states []string) http.Header {
	h := http.Header{
		"Baggage":  {"userId=alice"},
		"Cookie":   {"session=page-cookie"},
		"X-Custom": {"page"},
	}
	if parents != nil {
		h["Traceparent"] = parents
	}
	if states != nil {
		h["Tracestate"] = states
	}
	return h
}

// assertTraceContextUpstream checks the upstream request's headers of a
// case: the trace context as wanted, nothing else of the caller's.
func assertTraceContextUpstream(t *testing.T, h http.Header, wantParent, wantState string) {
	t.Helper()
	if wantParent == "" {
		assert.Empty(t, h.Values("Traceparent"), "no traceparent upstream")
	} else {
		assert.Equal(t, []string{wantParent}, h.Values("Traceparent"), "the traceparent, exactly")
	}
	if wantState == "" {
		assert.Empty(t, h.Values("Tracestate"), "no tracestate upstream")
	} else {
		assert.Equal(t, []string{wantState}, h.Values("Tracestate"), "the tracestate, exactly")
	}
	for _, name := range []string{"Baggage", "Cookie", "X-Custom"} {
		assert.Empty(t, h.Values(name), "the caller's %s stays", name)
	}
}

func TestProxyTraceContextUpstream(t *testing.T) {
	for _, tt := range traceContextCases {
		t.Run(tt.name, func(t *testing.T) {
			var got http.Header
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got = r.Header.Clone()
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = io.WriteString(w, ptStream)
			}))
			defer up.Close()
			proxy := httptest.NewServer(New(Options{Model: NewOpenAI(OpenAIOptions{URL: up.URL, APIKey: ptKey})}))
			defer proxy.Close()

			req, err := http.NewRequest(http.MethodPost, proxy.URL+ChatPath, strings.NewReader(`{"messages":[{"role":"user","content":"hi"}]}`))
			require.NoError(t, err)
			req.Header = traceContextHeader(tt.parents, tt.states)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
			require.Contains(t, string(body), "event: "+EventMessageStop, "the answer is complete")

			require.NotNil(t, got, "the upstream was asked")
			assert.Equal(t, "Bearer "+ptKey, got.Get("Authorization"))
			assertTraceContextUpstream(t, got, tt.wantParent, tt.wantState)
		})
	}
}

func TestPassthroughTraceContextUpstream(t *testing.T) {
	for _, tt := range traceContextCases {
		t.Run(tt.name, func(t *testing.T) {
			srv, up := ptServe(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = io.WriteString(w, ptStream)
			})
			resp := ptPost(t, PassthroughOptions{URL: srv.URL, APIKey: ptKey}, "/v1/chat/completions", `{"messages":[]}`, traceContextHeader(tt.parents, tt.states))
			_, _ = io.Copy(io.Discard, resp.Body)
			require.Equal(t, http.StatusOK, resp.StatusCode)

			n, _, got := up.get()
			require.Equal(t, 1, n)
			assert.Equal(t, "Bearer "+ptKey, got.Get("Authorization"))
			assertTraceContextUpstream(t, got, tt.wantParent, tt.wantState)
		})
	}
}
