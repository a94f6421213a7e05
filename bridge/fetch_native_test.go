//go:build !js && !wasip1

package bridge_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// waitBound is how long a test waits for something that should happen
// promptly before it gives up; it never decides a test's outcome by itself.
const waitBound = 30 * time.Second

// within runs f on its own goroutine and fails the test if it does not
// return within waitBound.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	bound, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	select {
	case <-done:
	case <-bound.Done():
		t.Fatalf("%s did not return", what)
	}
}

func TestHTTPFetcherResponseHead(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("X-Multi", "a")
		w.Header().Add("X-Multi", "b")
		w.Header().Set("Content-Type", "text/plain")
		w.Header()["X-Raw-Case"] = []string{"kept"} // not canonicalized by the server
		w.WriteHeader(http.StatusTeapot)
		io.WriteString(w, "body")
	}))
	defer srv.Close()

	resp, err := (&bridge.HTTPFetcher{}).Fetch(context.Background(), &bridge.Request{URL: srv.URL})
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, http.StatusTeapot, resp.Status, "a non-2xx status is not an error")
	for name := range resp.Header {
		assert.Equal(t, strings.ToLower(name), name, "header names are lower case")
	}
	assert.Equal(t, "a, b", resp.Header["x-multi"], "repeated fields are joined with \", \"")
	assert.Equal(t, "text/plain", resp.Header["content-type"])
	assert.Equal(t, "kept", resp.Header["x-raw-case"])
	assert.Equal(t, "a, b", resp.Header.Get("X-Multi"))
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, "body", string(b))
}

func TestHTTPFetcherRequest(t *testing.T) {
	type seen struct {
		method string
		header http.Header
		body   string
	}
	cases := []struct {
		name       string
		req        bridge.Request
		wantMethod string
		wantBody   string
	}{
		{"empty method is GET", bridge.Request{}, "GET", ""},
		{"POST with body and headers", bridge.Request{
			Method: "POST",
			Header: bridge.Header{"content-type": "application/json", "accept": "text/event-stream", "authorization": "Bearer t0k"},
			Body:   []byte(`{"messages":[]}`),
		}, "POST", `{"messages":[]}`},
		{"DELETE", bridge.Request{Method: "DELETE", Header: bridge.Header{"mcp-session-id": "s1"}}, "DELETE", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := make(chan seen, 1)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				got <- seen{r.Method, r.Header.Clone(), string(b)}
			}))
			defer srv.Close()
			req := tc.req
			req.URL = srv.URL + "/some/path?q=1"
			resp, err := (&bridge.HTTPFetcher{}).Fetch(context.Background(), &req)
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, http.StatusOK, resp.Status)
			s := <-got
			assert.Equal(t, tc.wantMethod, s.method)
			assert.Equal(t, tc.wantBody, s.body)
			for k, v := range tc.req.Header {
				assert.Equal(t, v, s.header.Get(k), "header %s", k)
			}
		})
	}
}

func TestHTTPFetcherUsesItsClient(t *testing.T) {
	var used bool
	client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		used = true
		return &http.Response{StatusCode: 204, Header: http.Header{"X-From": {"client"}}, Body: io.NopCloser(strings.NewReader(""))}, nil
	})}
	resp, err := (&bridge.HTTPFetcher{Client: client}).Fetch(context.Background(), &bridge.Request{URL: "http://nowhere.invalid/"})
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.True(t, used)
	assert.Equal(t, 204, resp.Status)
	assert.Equal(t, "client", resp.Header["x-from"])
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestHTTPFetcherStreamsTheBody reads the first part of a body while the
// server has not written the rest yet.
func TestHTTPFetcherStreamsTheBody(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "first")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, "second")
	}))
	defer srv.Close()

	resp, err := (&bridge.HTTPFetcher{}).Fetch(context.Background(), &bridge.Request{URL: srv.URL})
	require.NoError(t, err)
	defer resp.Body.Close()
	buf := make([]byte, 5)
	within(t, "reading the first part", func() { _, err = io.ReadFull(resp.Body, buf) })
	require.NoError(t, err)
	assert.Equal(t, "first", string(buf), "the first part arrives before the server finished")
	close(release)
	var rest []byte
	within(t, "reading the rest", func() { rest, err = io.ReadAll(resp.Body) })
	require.NoError(t, err)
	assert.Equal(t, "second", string(rest))
}

// hangingServer writes "partial" and holds the response open until the
// request ends.
func hangingServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "partial")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestHTTPFetcherCancelMidBody(t *testing.T) {
	srv := hangingServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp, err := (&bridge.HTTPFetcher{}).Fetch(ctx, &bridge.Request{URL: srv.URL})
	require.NoError(t, err)
	defer resp.Body.Close()
	buf := make([]byte, 7)
	_, err = io.ReadFull(resp.Body, buf)
	require.NoError(t, err)
	assert.Equal(t, "partial", string(buf))

	// A Read blocked on the silent stream returns once ctx is cancelled.
	var n int
	within(t, "Read after cancel", func() {
		go cancel()
		n, err = resp.Body.Read(make([]byte, 16))
	})
	assert.Equal(t, 0, n)
	require.Error(t, err)
	assert.ErrorIs(t, err, context.Canceled)
	assert.NotErrorIs(t, err, io.EOF)
}

// TestHTTPFetcherCancelCauseMidBody: a cancel cause is reported along with,
// not instead of, the context's own error.
func TestHTTPFetcherCancelCauseMidBody(t *testing.T) {
	srv := hangingServer(t)
	cctx, ccancel := context.WithCancelCause(context.Background())
	defer ccancel(nil)
	resp, err := (&bridge.HTTPFetcher{}).Fetch(cctx, &bridge.Request{URL: srv.URL})
	require.NoError(t, err)
	defer resp.Body.Close()
	_, err = io.ReadFull(resp.Body, make([]byte, 7))
	require.NoError(t, err)
	cause := errors.New("the user pressed stop")
	ccancel(cause)
	within(t, "Read after cancel", func() { _, err = io.ReadAll(resp.Body) })
	assert.ErrorIs(t, err, context.Canceled)
	assert.ErrorIs(t, err, cause)
}

func TestHTTPFetcherCloseUnblocksRead(t *testing.T) {
	srv := hangingServer(t)
	resp, err := (&bridge.HTTPFetcher{}).Fetch(context.Background(), &bridge.Request{URL: srv.URL})
	require.NoError(t, err)
	_, err = io.ReadFull(resp.Body, make([]byte, 7))
	require.NoError(t, err)
	within(t, "Read after Close", func() {
		go resp.Body.Close()
		_, err = io.ReadAll(resp.Body)
	})
	assert.Error(t, err, "a Read cut short by Close is not a clean end of stream")
}

func TestHTTPFetcherCancelledBeforeHead(t *testing.T) {
	arrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-r.Context().Done()
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-arrived
		cancel()
	}()
	var (
		resp *bridge.Response
		err  error
	)
	within(t, "Fetch after cancel", func() {
		resp, err = (&bridge.HTTPFetcher{}).Fetch(ctx, &bridge.Request{URL: srv.URL})
	})
	assert.Nil(t, resp)
	assert.ErrorIs(t, err, context.Canceled)
	var fe *bridge.FetchError
	assert.False(t, errors.As(err, &fe), "a cancelled fetch is not a *FetchError: %v", err)
}

func TestHTTPFetcherFailures(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL + "/api/v1/studio/ai/chat"
	closed.Close()
	cases := []struct{ name, url string }{
		{"unreachable", closedURL},
		{"malformed URL", "http://[::1"},
		{"unsupported scheme", "gopher://example.invalid/"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := (&bridge.HTTPFetcher{}).Fetch(context.Background(), &bridge.Request{URL: tc.url})
			assert.Nil(t, resp)
			var fe *bridge.FetchError
			require.True(t, errors.As(err, &fe), "want a *bridge.FetchError, got %T: %v", err, err)
			assert.Equal(t, tc.url, fe.URL)
			assert.Error(t, fe.Err)
			assert.Equal(t, fe.Err, errors.Unwrap(fe))
			assert.Equal(t, "bridge: fetch "+tc.url+": "+fe.Err.Error(), err.Error())
			assert.NotErrorIs(t, err, context.Canceled)
		})
	}
}

func TestDefaultFetcherIsNative(t *testing.T) {
	assert.IsType(t, &bridge.HTTPFetcher{}, bridge.DefaultFetcher())
}

func TestFetcherFunc(t *testing.T) {
	want := &bridge.Response{Status: 201}
	var got *bridge.Request
	f := bridge.FetcherFunc(func(ctx context.Context, req *bridge.Request) (*bridge.Response, error) {
		got = req
		return want, nil
	})
	req := &bridge.Request{URL: "/x"}
	resp, err := f.Fetch(context.Background(), req)
	require.NoError(t, err)
	assert.Same(t, want, resp)
	assert.Same(t, req, got)
}

func TestHeaderGetIgnoresCase(t *testing.T) {
	h := bridge.Header{"content-type": "text/event-stream", "mcp-session-id": "abc"}
	cases := []struct{ name, want string }{
		{"content-type", "text/event-stream"},
		{"Content-Type", "text/event-stream"},
		{"CONTENT-TYPE", "text/event-stream"},
		{"Mcp-Session-Id", "abc"},
		{"mcp-session-ID", "abc"},
		{"accept", ""},
		{"", ""},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, h.Get(tc.name), "Get(%q)", tc.name)
	}
	var nilHeader bridge.Header
	assert.Equal(t, "", nilHeader.Get("Accept"), "Get on a nil Header")
}

func TestHeaderSetLowersTheName(t *testing.T) {
	h := bridge.Header{}
	h.Set("Authorization", "Bearer a")
	h.Set("AUTHORIZATION", "Bearer b")
	assert.Equal(t, bridge.Header{"authorization": "Bearer b"}, h)
	assert.Equal(t, "Bearer b", h.Get("Authorization"))
}
