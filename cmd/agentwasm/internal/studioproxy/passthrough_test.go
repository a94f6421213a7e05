// Tests of the pass-through: what reaches the upstream (the page's body and
// the server's key, nothing else of the page's), what comes back (status,
// headers, the body as it came, flushed as it comes), and its refusals.

package studioproxy

import (
	"bufio"
	"encoding/json"
	"github.com/agentwasm/agentwasm/internal/openai"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentwasm/agentwasm/testing/sameorigintest"
)

// ptKey is the server's key in the pass-through tests.
const ptKey = "sk-pass-Through77"

// ptUpstream records what one upstream request carried.
type ptUpstream struct {
	mu      sync.Mutex
	n       int
	path    string
	query   string
	body    string
	headers http.Header
}

func (u *ptUpstream) record(r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	u.mu.Lock()
	defer u.mu.Unlock()
	u.n++
	u.path, u.query, u.body, u.headers = r.URL.Path, r.URL.RawQuery, string(b), r.Header.Clone()
}

func (u *ptUpstream) get() (n int, body string, h http.Header) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.n, u.body, u.headers
}

// ptServe starts an upstream that records each request and answers with
// answer.
func ptServe(t *testing.T, answer http.HandlerFunc) (*httptest.Server, *ptUpstream) {
	t.Helper()
	u := &ptUpstream{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.record(r)
		answer(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, u
}

// ptPost posts body to a pass-through for opts, mounted on a test server as
// the page's origin, and returns the answer.
func ptPost(t *testing.T, opts PassthroughOptions, path, body string, header http.Header) *http.Response {
	t.Helper()
	page := httptest.NewServer(NewPassthrough(opts))
	t.Cleanup(page.Close)
	req, err := http.NewRequest(http.MethodPost, page.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// ptError decodes an OpenAI-style error answer.
func ptError(t *testing.T, resp *http.Response) (typ, code, message string) {
	t.Helper()
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	var e struct {
		Error struct {
			Message string `json:"message"`
			Type    string `json:"type"`
			Code    string `json:"code"`
		} `json:"error"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&e))
	return e.Error.Type, e.Error.Code, e.Error.Message
}

const ptStream = "data: {\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"

func TestPassthroughForwards(t *testing.T) {
	srv, up := ptServe(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Retry-After", "3")
		w.Header().Set("Set-Cookie", "upstream=1")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, ptStream)
	})
	body := `{"model":"m-default","messages":[{"role":"user","content":"hi <b>"}],"stream":true}`
	page := http.Header{
		"Authorization": {"Bearer page-token"},
		"Cookie":        {"session=page-cookie"},
		"Accept":        {"text/event-stream"},
		"X-Custom":      {"page"},
	}
	resp := ptPost(t, PassthroughOptions{URL: srv.URL + "/v1?api-version=2", APIKey: ptKey, Model: "m-default"}, "/api/openai/v1/chat/completions", body, page)

	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	assert.Equal(t, "3", resp.Header.Get("Retry-After"))
	assert.Empty(t, resp.Header.Get("Set-Cookie"), "only status, Content-Type and Retry-After come back")
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, ptStream, string(got), "the answer byte for byte")

	n, sent, h := up.get()
	require.Equal(t, 1, n)
	assert.Equal(t, body, sent, "the page's body byte for byte")
	assert.Equal(t, "/v1/chat/completions", up.path)
	assert.Equal(t, "api-version=2", up.query, "the upstream URL's query is kept")
	assert.Equal(t, "Bearer "+ptKey, h.Get("Authorization"), "the server's key, not the page's token")
	assert.Empty(t, h.Values("Cookie"), "the page's cookies stay")
	assert.Empty(t, h.Get("X-Custom"), "the page's other headers stay")
	assert.Equal(t, "application/json", h.Get("Content-Type"))
	assert.Equal(t, "text/event-stream", h.Get("Accept"))

	t.Run("no key: no Authorization at all", func(t *testing.T) {
		srv, up := ptServe(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, ptStream) })
		resp := ptPost(t, PassthroughOptions{URL: srv.URL}, "/v1/chat/completions", `{"messages":[]}`, http.Header{"Authorization": {"Bearer page-token"}})
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		_, _, h := up.get()
		assert.Empty(t, h.Values("Authorization"))
	})
}

// TestPassthroughFlushes proves the answer reaches the page as it comes:
// the upstream sends its second event only once the page has read the
// first.
func TestPassthroughFlushes(t *testing.T) {
	first := "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n"
	read := make(chan struct{})
	srv, _ := ptServe(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, first)
		w.(http.Flusher).Flush()
		select {
		case <-read:
		case <-r.Context().Done():
			return
		}
		_, _ = io.WriteString(w, "data: [DONE]\n\n")
	})
	resp := ptPost(t, PassthroughOptions{URL: srv.URL}, "/v1/chat/completions", `{}`, nil)
	br := bufio.NewReader(resp.Body)
	var got strings.Builder
	for got.Len() < len(first) {
		line, err := br.ReadString('\n')
		require.NoError(t, err, "the first event must arrive before the upstream sends more")
		got.WriteString(line)
	}
	assert.Equal(t, first, got.String())
	close(read)
	rest, err := io.ReadAll(br)
	require.NoError(t, err)
	assert.Equal(t, "data: [DONE]\n\n", string(rest))
}

func TestPassthroughModelPolicy(t *testing.T) {
	tests := []struct {
		name     string
		opts     PassthroughOptions
		body     string
		wantSent string // the body the upstream saw; "-" when it saw no request
		wantCode string // the refusal's code, "" when forwarded
		wantMsg  []string
	}{
		{name: "Model itself", opts: PassthroughOptions{Model: "m-default"}, body: `{"model":"m-default","messages":[]}`, wantSent: `{"model":"m-default","messages":[]}`},
		{name: "one of Models", opts: PassthroughOptions{Model: "m-default", Models: []string{"m-small"}}, body: `{"messages":[], "model" : "m-small"}`, wantSent: `{"messages":[], "model" : "m-small"}`},
		{name: "none gets Model", opts: PassthroughOptions{Model: "m-default"}, body: `{"messages":[],"stream":true}`, wantSent: `{"messages":[],"model":"m-default","stream":true}`},
		{name: "null gets Model", opts: PassthroughOptions{Model: "m-default"}, body: `{"model":null,"messages":[]}`, wantSent: `{"messages":[],"model":"m-default"}`},
		{name: "none and no Model", opts: PassthroughOptions{}, body: `{"messages":[]}`, wantSent: `{"messages":[]}`},
		{name: "outside Model", opts: PassthroughOptions{Model: "m-default"}, body: `{"model":"gpt-expensive","messages":[]}`, wantSent: "-",
			wantCode: "model_not_allowed", wantMsg: []string{`"gpt-expensive"`, `may pick only "m-default"`}},
		{name: "server picks alone", opts: PassthroughOptions{}, body: `{"model":"gpt-expensive"}`, wantSent: "-",
			wantCode: "model_not_allowed", wantMsg: []string{"may name none"}},
		{name: "model not a string", opts: PassthroughOptions{Model: "m"}, body: `{"model":7}`, wantSent: "-", wantCode: "bad_request", wantMsg: []string{"not a string"}},
		{name: "not JSON", opts: PassthroughOptions{}, body: `model=x`, wantSent: "-", wantCode: "bad_request", wantMsg: []string{"not a JSON object"}},
		{name: "not an object", opts: PassthroughOptions{}, body: `null`, wantSent: "-", wantCode: "bad_request", wantMsg: []string{"not a JSON object"}},
		{name: "empty", opts: PassthroughOptions{}, body: ``, wantSent: "-", wantCode: "bad_request", wantMsg: []string{"not a JSON object"}},
		{name: "model twice", opts: PassthroughOptions{Model: "m-default"}, body: `{"model":"gpt-expensive","messages":[],"model":"m-default"}`, wantSent: "-",
			wantCode: "bad_request", wantMsg: []string{`"model" more than once`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, up := ptServe(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, ptStream) })
			opts := tt.opts
			opts.URL, opts.APIKey = srv.URL, ptKey
			resp := ptPost(t, opts, "/v1/chat/completions", tt.body, nil)
			n, sent, _ := up.get()
			if tt.wantCode == "" {
				assert.Equal(t, http.StatusOK, resp.StatusCode)
				require.Equal(t, 1, n)
				if strings.Contains(tt.name, "gets Model") {
					assert.JSONEq(t, tt.wantSent, sent)
				} else {
					assert.Equal(t, tt.wantSent, sent, "forwarded as it is")
				}
				return
			}
			assert.Zero(t, n, "nothing reached the upstream")
			assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
			typ, code, msg := ptError(t, resp)
			assert.Equal(t, "invalid_request_error", typ)
			assert.Equal(t, tt.wantCode, code)
			for _, part := range tt.wantMsg {
				assert.Contains(t, msg, part)
			}
		})
	}
}

func TestPassthroughRefusals(t *testing.T) {
	srv, up := ptServe(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, ptStream) })
	opts := PassthroughOptions{URL: srv.URL, APIKey: ptKey}
	page := httptest.NewServer(NewPassthrough(opts))
	defer page.Close()

	t.Run("oversize body", func(t *testing.T) {
		body := `{"messages":[{"role":"user","content":"` + strings.Repeat("x", maxRequestBytes) + `"}]}`
		resp := ptPost(t, opts, "/v1/chat/completions", body, nil)
		assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
		typ, code, msg := ptError(t, resp)
		assert.Equal(t, "invalid_request_error", typ)
		assert.Equal(t, "request_too_large", code)
		assert.Contains(t, msg, "8 MiB")
	})
	t.Run("a body at the bound is forwarded", func(t *testing.T) {
		pad := maxRequestBytes - len(`{"messages":[],"x":""}`)
		resp := ptPost(t, opts, "/v1/chat/completions", `{"messages":[],"x":"`+strings.Repeat("y", pad)+`"}`, nil)
		assert.Equal(t, http.StatusOK, resp.StatusCode)
	})
	t.Run("another method", func(t *testing.T) {
		resp, err := http.Get(page.URL + "/v1/chat/completions")
		require.NoError(t, err)
		defer resp.Body.Close()
		assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
		assert.Equal(t, "POST", resp.Header.Get("Allow"))
		_, code, _ := ptError(t, resp)
		assert.Equal(t, "method_not_allowed", code)
	})
	t.Run("another path", func(t *testing.T) {
		resp := ptPost(t, opts, "/v1/models", `{}`, nil)
		assert.Equal(t, http.StatusNotFound, resp.StatusCode)
		_, code, _ := ptError(t, resp)
		assert.Equal(t, "not_found", code)
	})
	n, _, _ := up.get()
	assert.Equal(t, 1, n, "only the request at the bound reached the upstream")
}

func TestPassthroughUpstreamErrors(t *testing.T) {
	tests := []struct {
		name   string
		status int
		ct     string
		retry  string
		body   string
		want   string
	}{
		{"401 echoing the key", http.StatusUnauthorized, "application/json", "",
			`{"error":{"message":"Incorrect API key provided: ` + ptKey + `.","type":"invalid_request_error","code":"invalid_api_key"}}`,
			`{"error":{"message":"Incorrect API key provided: [redacted].","type":"invalid_request_error","code":"invalid_api_key"}}`},
		{"429 with Retry-After", http.StatusTooManyRequests, "application/json", "20",
			`{"error":{"message":"Rate limit reached"}}`, `{"error":{"message":"Rate limit reached"}}`},
		{"500 with the key wrapped across lines", http.StatusInternalServerError, "text/plain; charset=utf-8", "",
			"bad key " + ptKey[:6] + "\n  " + ptKey[6:] + "\n", "bad key [redacted]\n"},
		{"404 without a body", http.StatusNotFound, "", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := ptServe(t, func(w http.ResponseWriter, r *http.Request) {
				if tt.ct != "" {
					w.Header().Set("Content-Type", tt.ct)
				}
				if tt.retry != "" {
					w.Header().Set("Retry-After", tt.retry)
				}
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, tt.body)
			})
			resp := ptPost(t, PassthroughOptions{URL: srv.URL, APIKey: ptKey}, "/v1/chat/completions", `{}`, nil)
			assert.Equal(t, tt.status, resp.StatusCode)
			if tt.ct != "" {
				assert.Equal(t, tt.ct, resp.Header.Get("Content-Type"))
			}
			assert.Equal(t, tt.retry, resp.Header.Get("Retry-After"))
			got, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
			assert.False(t, redactOracle(ptKey, string(got)), "the key leaked: %q", got)
		})
	}

	t.Run("a long error body is cut at the bound", func(t *testing.T) {
		srv, _ := ptServe(t, func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, strings.Repeat("e", 200<<10))
		})
		resp := ptPost(t, PassthroughOptions{URL: srv.URL}, "/v1/chat/completions", `{}`, nil)
		got, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
		assert.Len(t, got, 64<<10)
	})

	t.Run("a key cut by the bound leaves no part of it", func(t *testing.T) {
		// The key begins 8 bytes before the bound: a redaction of whole
		// keys in the cut body would pass its first 8 bytes on.
		pad := strings.Repeat("e", openai.MaxErrorBodyBytes-8)
		srv, _ := ptServe(t, func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, pad+ptKey+" and more")
		})
		resp := ptPost(t, PassthroughOptions{URL: srv.URL, APIKey: ptKey}, "/v1/chat/completions", `{}`, nil)
		got, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
		assert.Equal(t, pad, string(got), "the body up to where the key begins")
	})
}

func TestPassthroughRedirects(t *testing.T) {
	t.Run("to another origin: refused", func(t *testing.T) {
		other, seen := sameorigintest.Server(t, nil, false, oaAnswer)
		origin, up := ptServe(t, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+"/v1/chat/completions", http.StatusTemporaryRedirect)
		})
		resp := ptPost(t, PassthroughOptions{URL: origin.URL, APIKey: ptKey}, "/v1/chat/completions", `{"messages":[]}`, nil)
		assert.Equal(t, http.StatusBadGateway, resp.StatusCode)
		typ, code, msg := ptError(t, resp)
		assert.Equal(t, "api_error", typ)
		assert.Equal(t, "upstream_redirected", code)
		assert.Contains(t, msg, "307")
		assert.Contains(t, msg, strings.TrimPrefix(other.URL, "http://"))
		n, _, h := up.get()
		assert.Equal(t, 1, n)
		assert.Equal(t, "Bearer "+ptKey, h.Get("Authorization"))
		n, auth, body := seen.Get()
		assert.Zero(t, n, "no request reached the other origin (authorization %q, body %q)", auth, body)
	})
	t.Run("within the origin: followed with the body and key", func(t *testing.T) {
		moved := &sameorigintest.Seen{}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.URL.Path, "/moved/") {
				moved.Add(r)
				oaAnswer(w)
				return
			}
			http.Redirect(w, r, "/moved"+r.URL.Path, http.StatusPermanentRedirect)
		}))
		defer srv.Close()
		resp := ptPost(t, PassthroughOptions{URL: srv.URL, APIKey: ptKey}, "/v1/chat/completions", `{"messages":[]}`, nil)
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		n, auth, body := moved.Get()
		require.Equal(t, 1, n)
		assert.Equal(t, []string{"Bearer " + ptKey}, auth)
		assert.Equal(t, []string{`{"messages":[]}`}, body)
	})
}

func TestPassthroughUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := "http://" + ln.Addr().String()
	require.NoError(t, ln.Close())

	resp := ptPost(t, PassthroughOptions{URL: closed, APIKey: ptKey}, "/v1/chat/completions", `{}`, nil)
	assert.Equal(t, http.StatusBadGateway, resp.StatusCode)
	_, code, msg := ptError(t, resp)
	assert.Equal(t, "upstream_unreachable", code)
	assert.Contains(t, msg, "could not reach the upstream at "+closed+"/v1/chat/completions")

	resp = ptPost(t, PassthroughOptions{URL: "ftp://x"}, "/v1/chat/completions", `{}`, nil)
	assert.Equal(t, http.StatusBadGateway, resp.StatusCode)
	_, code, _ = ptError(t, resp)
	assert.Equal(t, "upstream_unreachable", code)

	t.Run("no headers in time", func(t *testing.T) {
		srv, _ := ptServe(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
		resp := ptPost(t, PassthroughOptions{URL: srv.URL, HeaderTimeout: 50 * time.Millisecond}, "/v1/chat/completions", `{}`, nil)
		assert.Equal(t, http.StatusGatewayTimeout, resp.StatusCode)
		_, code, msg := ptError(t, resp)
		assert.Equal(t, "upstream_stalled", code)
		assert.Contains(t, msg, "50ms")
	})
}
