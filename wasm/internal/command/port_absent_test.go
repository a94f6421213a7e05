//go:build agentwasm_sessiononly && !js && !wasip1

// The session-only build's tests: `go test -tags agentwasm_sessiononly -run
// SessionOnly ./internal/command/` (make test runs them). The rest of this
// package's tests expect the full build.

package command_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentwasm/agentwasm/testing/fakeproxy"
	"github.com/agentwasm/agentwasm/wasm/internal/command"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSessionOnlyBuildRefusesEveryPortCommand: every port.* op of the table
// answers port_unavailable, saying which build to load instead, and so does
// a session asking for a port as its kit; the version op reports serve
// false.
func TestSessionOnlyBuildRefusesEveryPortCommand(t *testing.T) {
	require.False(t, command.HasServe)
	rt := command.New(false)
	ctx := context.Background()

	r, raw := call(t, ctx, rt, `{"op":"version"}`, command.Hooks{})
	require.True(t, r.OK, raw)
	assert.False(t, r.Serve, "the version op says the session-only build has no port: %s", raw)

	ports := 0
	for _, op := range command.Ops() {
		if !strings.HasPrefix(op.Name, "port.") {
			continue
		}
		ports++
		t.Run(op.Name, func(t *testing.T) {
			cmd := map[string]any{"op": op.Name, "port": 1, "graph": map[string]any{"app": "a", "pages": []any{}}}
			r, raw := call(t, ctx, rt, cmd, command.Hooks{})
			require.False(t, r.OK, raw)
			assert.Equal(t, command.CodePortUnavailable, r.Error.Code)
			assert.Contains(t, r.Error.Message, "session-only build")
			assert.Contains(t, r.Error.Message, "agentwasm.wasm", "the message names the build that has ports")
		})
	}
	assert.Equal(t, 18, ports, "the table keeps every port op, so hosts get port_unavailable and not bad_command")

	_, hooks, base := proxyHooks(t, fakeproxy.Reply{Body: fakeproxy.TextStream("hi")})
	r, raw = call(t, ctx, rt, map[string]any{"op": "session.create", "options": map[string]any{"baseUrl": base, "port": 1}}, hooks)
	require.False(t, r.OK, raw)
	assert.Equal(t, command.CodePortUnavailable, r.Error.Code)
}

// TestSessionOnlyBuildChats: the session itself is whole in this build.
func TestSessionOnlyBuildChats(t *testing.T) {
	_, hooks, base := proxyHooks(t, fakeproxy.Reply{Body: fakeproxy.TextStream("Hel", "lo")})
	rt := command.New(false)
	id := create(t, rt, map[string]any{"baseUrl": base, "disableToolDiscovery": true}, hooks)
	r, raw := call(t, context.Background(), rt, chatCmd(id, "hi"), hooks)
	require.True(t, r.OK, raw)
	require.NotNil(t, r.Turn)
	assert.Equal(t, "completed", r.Turn.Status)
	assert.Equal(t, "Hello", r.Turn.Text)
}
