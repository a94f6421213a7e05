// Tests of the demo page's model path: the --direct and --direct-url flags
// (what they accept, what they refuse before serving) and GET
// /api/demo/config, which answers the page what they chose and is refused
// like the rest of /api (another origin's page, a rebound host, another
// method).

package main

import (
	"bytes"
	"flag"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentwasm/agentwasm/cmd/agentwasm/internal/studioproxy"
)

// parseDirect parses args with the dev server's model flags and the direct
// flags, as runDev does, and checks them.
func parseDirect(t *testing.T, args ...string) (devOptions, error) {
	t.Helper()
	fs := flag.NewFlagSet("agentwasm dev", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var o devOptions
	fs.StringVar(&o.Upstream, "upstream", "", "")
	fs.StringVar(&o.Model, "model", "", "")
	registerDirectFlags(fs, &o)
	require.NoError(t, fs.Parse(args))
	return o, checkDirect(&o)
}

// TestDirectFlags: each way of choosing the page's model path gives the
// config the page reads, and the line printed under the URL.
func TestDirectFlags(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string // the config as JSON
		note string // a part of the printed line; "" for none
	}{
		{"no flag: the Studio AI proxy", nil, `{}`, ""},
		{"--model alone: still the proxy", []string{"--model", "m"}, `{}`, ""},
		{"--direct: the scripted model at /openai/v1", []string{"--direct"},
			`{"model":{"baseUrl":"/openai/v1","name":"` + studioproxy.ScriptedModelName + `"},"scripted":true}`, "talks to /openai/v1 directly"},
		{"--direct with an upstream: its model at /openai/v1", []string{"--direct", "--upstream", "http://127.0.0.1:11434/v1", "--model", "llama3.2"},
			`{"model":{"baseUrl":"/openai/v1","name":"llama3.2"}}`, "model llama3.2"},
		{"--direct-url: the page calls that endpoint", []string{"--direct-url", "http://127.0.0.1:11434/v1", "--model", "llama3.2"},
			`{"model":{"baseUrl":"http://127.0.0.1:11434/v1","name":"llama3.2"}}`, "CORS"},
		{"--direct-url with a trailing slash", []string{"--direct-url", "https://llm.example/v1/", "--model", "m"},
			`{"model":{"baseUrl":"https://llm.example/v1","name":"m"}}`, "https://llm.example/v1 directly"},
		{"--direct-url and --direct", []string{"--direct", "--direct-url", "http://127.0.0.1:8000/v1", "--model", "m"},
			`{"model":{"baseUrl":"http://127.0.0.1:8000/v1","name":"m"}}`, "no key is sent"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, err := parseDirect(t, c.args...)
			require.NoError(t, err)
			rec := httptestRecord(t, demoConfigHandler(o.demoConfig()), "GET")
			assert.Equal(t, 200, rec.status)
			assert.JSONEq(t, c.want, rec.body)
			if c.note == "" {
				assert.Empty(t, o.directNote())
			} else {
				assert.Contains(t, o.directNote(), c.note)
			}
		})
	}
}

// TestDirectFlagRefusals: runDev refuses, before serving, a --direct-url
// that is not an absolute http(s) URL or carries a secret (user info, a
// query, a fragment), one without --model or with --upstream, and
// --direct with --upstream but no --model.
func TestDirectFlagRefusals(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"a relative --direct-url", []string{"--direct-url", "/v1", "--model", "m"}, "not an absolute http(s) URL"},
		{"another scheme", []string{"--direct-url", "ftp://127.0.0.1/v1", "--model", "m"}, "not an absolute http(s) URL"},
		{"no host", []string{"--direct-url", "http:///v1", "--model", "m"}, "not an absolute http(s) URL"},
		{"credentials", []string{"--direct-url", "http://user:sk-secret@127.0.0.1:11434/v1", "--model", "m"}, "credentials"},
		{"a query", []string{"--direct-url", "http://127.0.0.1:11434/v1?key=sk-secret", "--model", "m"}, "query or a fragment"},
		{"a fragment", []string{"--direct-url", "http://127.0.0.1:11434/v1#x", "--model", "m"}, "query or a fragment"},
		{"no model", []string{"--direct-url", "http://127.0.0.1:11434/v1"}, "--direct-url needs --model"},
		{"with --upstream", []string{"--direct-url", "http://127.0.0.1:11434/v1", "--model", "m", "--upstream", "http://127.0.0.1:8000/v1"}, "--direct-url and --upstream"},
		{"--direct with --upstream and no model", []string{"--direct", "--upstream", "http://127.0.0.1:8000/v1"}, "--direct with --upstream needs --model"},
		{"--direct with --openai-key", []string{"--direct", "--openai-key", "sk-secret-page"}, "the demo page has no key to send"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := runDev(append(c.args, "--web", t.TempDir(), "--dist", t.TempDir()), &out, &errb)
			assert.Equal(t, 2, code, errb.String())
			assert.Contains(t, errb.String(), c.want)
			assert.NotContains(t, out.String(), "open http")
			assert.NotContains(t, errb.String(), "sk-secret", "a refused URL's secret is not echoed")
		})
	}
}

// TestDirectFlagsAccepted: runDev takes good direct flags past its checks:
// it gets as far as listening (on an address already taken, so it exits 1
// instead of serving).
func TestDirectFlagsAccepted(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	for _, args := range [][]string{
		{"--direct"},
		{"--direct-url", "http://127.0.0.1:11434/v1", "--model", "llama3.2"},
		{"--direct", "--upstream", "http://127.0.0.1:11434/v1", "--model", "llama3.2"},
	} {
		var out, errb bytes.Buffer
		code := runDev(append(args, "--addr", ln.Addr().String(), "--web", t.TempDir(), "--dist", t.TempDir()), &out, &errb)
		assert.Equal(t, 1, code, "%v: %s", args, errb.String())
		assert.Contains(t, errb.String(), "cannot listen", args)
	}
}

// TestDemoConfigRoute: the dev server answers the page's GET with its
// config (the proxy path by default, the direct one with --direct), as JSON
// not to be cached stale; HEAD too.
func TestDemoConfigRoute(t *testing.T) {
	for _, c := range []struct {
		name string
		o    devOptions
		want string
	}{
		{"the proxy", devOptions{}, `{}`},
		{"direct", devOptions{Direct: true}, `{"model":{"baseUrl":"/openai/v1","name":"` + studioproxy.ScriptedModelName + `"},"scripted":true}`},
		{"direct to another endpoint", devOptions{Direct: true, DirectURL: "http://127.0.0.1:11434/v1", Model: "llama3.2"},
			`{"model":{"baseUrl":"http://127.0.0.1:11434/v1","name":"llama3.2"}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.o.WebDir, c.o.DistDir = t.TempDir(), t.TempDir()
			srv := devServer(t, c.o)
			resp, body := get(t, srv.URL+demoConfigPath, "Origin", srv.URL)
			require.Equal(t, 200, resp.StatusCode, string(body))
			assert.JSONEq(t, c.want, string(body))
			assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
			assert.Equal(t, "no-cache", resp.Header.Get("Cache-Control"))
			resp, body = apiRequest(t, srv, "HEAD", demoConfigPath, "", "")
			assert.Equal(t, 200, resp.StatusCode)
			assert.Empty(t, body)
		})
	}
}

// TestDemoConfigRefusals: the config is behind the /api policy — another
// origin's page and a rebound host name are refused first — and it
// answers only GET and HEAD; an allowed origin reads it with its CORS
// answer.
func TestDemoConfigRefusals(t *testing.T) {
	const allowed = "http://127.0.0.1:5173"
	srv := devServer(t, devOptions{WebDir: t.TempDir(), DistDir: t.TempDir(), Direct: true, AllowOrigins: []string{allowed}})
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	self := "http://127.0.0.1:" + port
	cases := []struct {
		name    string
		method  string
		host    string // the Host header; "" is the server's own
		headers []string
		body    string
		status  int
		code    string
	}{
		{"another origin's page", "GET", "", []string{"Origin", "http://evil.example"}, "", 403, "forbidden_origin"},
		{"another port of the same host", "GET", "", []string{"Origin", "http://127.0.0.1:1"}, "", 403, "forbidden_origin"},
		{"a null Origin (a sandboxed frame)", "GET", "", []string{"Origin", "null"}, "", 403, "forbidden_origin"},
		{"a rebound Host", "GET", "evil.example:" + port, []string{"Origin", "http://evil.example:" + port}, "", 403, "forbidden_host"},
		{"a rebound Host without Origin", "GET", "evil.example:" + port, nil, "", 403, "forbidden_host"},
		{"a POST", "POST", "", []string{"Origin", self, "Content-Type", "application/json"}, `{}`, 405, "method_not_allowed"},
		{"a text/plain POST", "POST", "", []string{"Origin", self, "Content-Type", "text/plain"}, `{}`, 415, "unsupported_media_type"},
		{"a DELETE", "DELETE", "", []string{"Origin", self}, "", 405, "method_not_allowed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, body := apiRequest(t, srv, c.method, demoConfigPath, c.host, c.body, c.headers...)
			require.Equal(t, c.status, resp.StatusCode, string(body))
			assert.Equal(t, c.code, errorCode(body), string(body))
			assert.NotContains(t, string(body), "/openai/v1", "a refusal does not answer the config")
		})
	}
	resp, body := get(t, srv.URL+demoConfigPath, "Origin", allowed)
	require.Equal(t, 200, resp.StatusCode, string(body))
	assert.Equal(t, allowed, resp.Header.Get("Access-Control-Allow-Origin"))
	assert.Contains(t, string(body), `"baseUrl":"/openai/v1"`)
}

// recorded is what a handler answered.
type recorded struct {
	status int
	body   string
}

// httptestRecord serves one request of method to h and returns its answer.
func httptestRecord(t *testing.T, h http.Handler, method string) recorded {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, demoConfigPath, nil))
	return recorded{status: rec.Code, body: rec.Body.String()}
}
