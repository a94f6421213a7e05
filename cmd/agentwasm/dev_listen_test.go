// Tests of agentwasm dev when it cannot listen: a port already taken makes
// it exit 1 without serving, with a message that names both ways to pick
// another address (--addr, and ADDR= under make run).

package main

import (
	"bytes"
	"net"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDevPortTaken(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { taken.Close() })
	addr := taken.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	n, _ := strconv.Atoi(port)
	next := "127.0.0.1:" + strconv.Itoa(n+1)

	var out, errb bytes.Buffer
	code := runDev([]string{"--addr", addr, "--web", t.TempDir(), "--dist", t.TempDir()}, &out, &errb)
	assert.Equal(t, 1, code, errb.String())
	assert.NotContains(t, out.String(), "open http", "nothing is served")
	msg := errb.String()
	assert.Contains(t, msg, "agentwasm dev: cannot listen on "+addr+": ")
	assert.Contains(t, msg, "address already in use")
	assert.Contains(t, msg, "--addr "+next, "the flag, with an address to try")
	assert.Contains(t, msg, "make run ADDR="+next, "the make variable")
}

func TestListenFix(t *testing.T) {
	cases := []struct{ addr, alt string }{
		{"127.0.0.1:8080", "127.0.0.1:8081"},
		{"[::1]:3000", "[::1]:3001"},
		{"0.0.0.0:8080", "0.0.0.0:8081"},
		{"localhost:65535", "127.0.0.1:8081"},
		{"not an address", "127.0.0.1:8081"},
	}
	for _, c := range cases {
		got := listenFix(c.addr)
		assert.Equal(t, "pick another with --addr "+c.alt+"; under make run: make run ADDR="+c.alt, got, c.addr)
	}
}
