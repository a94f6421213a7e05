//go:build !js && !wasip1

// The turn's bounds as command options (the wasip1 and js session options):
// out-of-range values are refused, the others reach the session.

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

func TestBoundOptionsRefused(t *testing.T) {
	cases := []struct {
		name     string
		options  string
		contains string
	}{
		{"negative maxTurnEvents", `{"maxTurnEvents":-1}`, "MaxTurnEvents is -1"},
		{"negative maxTurnTextBytes", `{"maxTurnTextBytes":-2}`, "MaxTurnTextBytes is -2"},
		{"negative streamFirstByteTimeoutMs", `{"streamFirstByteTimeoutMs":-1}`, "streamFirstByteTimeoutMs is -1; give 0 (no bound) or more"},
		{"negative streamIdleTimeoutMs", `{"streamIdleTimeoutMs":-5}`, "streamIdleTimeoutMs is -5"},
		{"negative capabilitiesTimeoutMs", `{"capabilitiesTimeoutMs":-1}`, "capabilitiesTimeoutMs is -1"},
		{"negative toolDiscoveryTimeoutMs", `{"toolDiscoveryTimeoutMs":-1}`, "toolDiscoveryTimeoutMs is -1; give 0 (no bound) or more"},
		{"a timeout that is not a number", `{"streamIdleTimeoutMs":"soon"}`, "malformed"},
		{"negative maxRequestBytes", `{"maxRequestBytes":-1}`, "MaxRequestBytes is -1"},
		{"negative maxToolResultBytes", `{"maxToolResultBytes":-3}`, "MaxToolResultBytes is -3"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, raw := call(t, context.Background(), command.New(false), `{"op":"session.create","options":`+tc.options+`}`, command.Hooks{})
			require.False(t, r.OK, raw)
			assert.Equal(t, command.CodeBadOptions, r.Error.Code)
			assert.Contains(t, r.Error.Message, tc.contains)
		})
	}
}

func TestBoundOptionsReachTheSession(t *testing.T) {
	long := fakeproxy.TextStream(strings.Repeat("x", 100), strings.Repeat("y", 100))
	cases := []struct {
		name    string
		options map[string]any
		status  string
		code    string
		text    string
	}{
		{"the defaults", nil, "completed", "", strings.Repeat("x", 100) + strings.Repeat("y", 100)},
		{"maxTurnTextBytes", map[string]any{"maxTurnTextBytes": 150}, "error", "turn_too_large", strings.Repeat("x", 100)},
		{"maxTurnEvents", map[string]any{"maxTurnEvents": 2}, "error", "turn_too_large", strings.Repeat("x", 100) + strings.Repeat("y", 100)},
		{"maxRequestBytes: a request past it is not sent", map[string]any{"maxRequestBytes": 64}, "error", "request_too_large", ""},
		{"timeouts of 0 disable the bounds", map[string]any{"streamFirstByteTimeoutMs": 0, "streamIdleTimeoutMs": 0, "capabilitiesTimeoutMs": 0},
			"completed", "", strings.Repeat("x", 100) + strings.Repeat("y", 100)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, hooks, base := proxyHooks(t, fakeproxy.Reply{Body: long})
			options := map[string]any{"baseUrl": base, "disableToolDiscovery": true}
			for k, v := range tc.options {
				options[k] = v
			}
			rt := command.New(false)
			id := create(t, rt, options, hooks)
			r, raw := call(t, context.Background(), rt, chatCmd(id, "hi"), hooks)
			require.True(t, r.OK, raw)
			assert.Equal(t, tc.status, r.Turn.Status, r.Turn.ErrorMessage)
			assert.Equal(t, tc.code, r.Turn.ErrorCode)
			assert.Equal(t, tc.text, r.Turn.Text)
		})
	}
}
