// Tests of the dev server's connection limits, with short limits set
// through devOptions: a slow body is cut off (and nothing reaches the
// upstream), an answer streaming longer than the body bound is not, an idle
// keep-alive connection is closed, and oversized headers are refused.
// Durations in these tests only make the limits short; every wait for an
// outcome has a generous safety net, never a timed assertion.

package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// safetyNet bounds every wait of these tests; reaching it is a failure.
const safetyNet = 30 * time.Second

// limitServer serves newDevHandler(o) through newDevServer(o) on a free
// loopback port and returns its address.
func limitServer(t *testing.T, o devOptions) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	o.Addr = ln.Addr().String()
	srv := newDevServer(context.Background(), o, newDevHandler(o))
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().String()
}

// dial opens a raw connection whose reads end at the safety net.
func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	require.NoError(t, c.SetReadDeadline(time.Now().Add(safetyNet)))
	return c
}

// closedByServer reports whether the server closed c (a read ends with EOF
// or a reset, not the safety net).
func closedByServer(t *testing.T, r io.Reader) bool {
	t.Helper()
	_, err := io.Copy(io.Discard, r)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return false
	}
	return true
}

func TestDevSlowBodyIsCutOff(t *testing.T) {
	up := newCountingUpstream(t, false)
	addr := limitServer(t, devOptions{WebDir: t.TempDir(), DistDir: t.TempDir(), Upstream: up.URL, Model: "m", BodyTimeout: 50 * time.Millisecond})
	c := dial(t, addr)
	// The headers promise 1000 bytes; ten arrive, then nothing.
	_, err := fmt.Fprintf(c, "POST /api/v1/studio/ai/chat HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"message", addr)
	require.NoError(t, err)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err, "the server answers a body that does not arrive")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, string(body))
	assert.True(t, closedByServer(t, br), "the connection is closed")
	assert.Equal(t, int64(0), up.n.Load(), "nothing reached the upstream")
}

func TestDevStreamOutlivesTheBodyBound(t *testing.T) {
	const bound = 50 * time.Millisecond
	up := newCountingUpstream(t, true)
	addr := limitServer(t, devOptions{WebDir: t.TempDir(), DistDir: t.TempDir(), Upstream: up.URL, Model: "m", BodyTimeout: bound, Log: io.Discard})
	resp, err := http.Post("http://"+addr+"/api/v1/studio/ai/chat", "application/json", strings.NewReader(chatBody))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	select {
	case <-up.entered:
	case <-time.After(safetyNet):
		t.Fatal("the chat never reached the upstream")
	}
	// The first event arrives before the answer ends: it streams.
	first := make([]byte, len("event: message_start"))
	_, err = io.ReadFull(resp.Body, first)
	require.NoError(t, err)
	assert.Equal(t, "event: message_start", string(first))
	// The answer goes on streaming well past the body's bound (a
	// connection-wide read deadline would have ended it by now).
	time.Sleep(10 * bound)
	close(up.block)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Contains(t, string(b), "Hello.")
	assert.Contains(t, string(b), "event: message_stop")
}

func TestDevIdleConnectionIsClosed(t *testing.T) {
	addr := limitServer(t, devOptions{WebDir: t.TempDir(), DistDir: t.TempDir(), IdleTimeout: 50 * time.Millisecond})
	c := dial(t, addr)
	_, err := fmt.Fprintf(c, "GET /api/v1/studio/ai/capabilities HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
	require.NoError(t, err)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	assert.False(t, resp.Close, "the connection is kept alive after the answer")
	assert.True(t, closedByServer(t, br), "the idle connection is closed by the server")
}

func TestDevHeaderCap(t *testing.T) {
	addr := limitServer(t, devOptions{WebDir: t.TempDir(), DistDir: t.TempDir(), MaxHeaderBytes: 1 << 10})
	for _, c := range []struct {
		name   string
		size   int
		status int
	}{
		{"headers within the cap", 512, 200},
		// net/http allows 4 KiB of slack over MaxHeaderBytes.
		{"headers past the cap", 16 << 10, http.StatusRequestHeaderFieldsTooLarge},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, err := http.NewRequest("GET", "http://"+addr+"/api/v1/studio/ai/capabilities", nil)
			require.NoError(t, err)
			req.Header.Set("X-Filler", strings.Repeat("a", c.size))
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, c.status, resp.StatusCode)
		})
	}
}

func TestDevServerDefaults(t *testing.T) {
	srv := newDevServer(context.Background(), devOptions{}, http.NotFoundHandler())
	assert.Equal(t, defaultIdleTimeout, srv.IdleTimeout)
	assert.Equal(t, defaultReadHeaderTimeout, srv.ReadHeaderTimeout)
	assert.Equal(t, defaultMaxHeaderBytes, srv.MaxHeaderBytes)
	assert.Zero(t, srv.ReadTimeout, "no ReadTimeout: it would end answer streams")
	assert.Zero(t, srv.WriteTimeout, "no WriteTimeout: it would end answer streams")
}
