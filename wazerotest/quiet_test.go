package wazerotest_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentwasm/agentwasm/testing/fakeproxy"
	"github.com/agentwasm/agentwasm/wazerotest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The module against a proxy with no MCP endpoint and no capabilities
// endpoint (both 404): three chats complete, each optional endpoint is
// contacted once, on the first chat, and one discovery report is published.
func TestAbsentEndpointsAreAskedOnceThroughTheModule(t *testing.T) {
	proxy := fakeproxy.New(fakeproxy.Reply{Body: fakeproxy.TextStream("ok")})
	rec := &recorder{exec: func(context.Context, wazerotest.HookCall) ([]byte, error) { return []byte(`{"status":"ok"}`), nil }}
	inst := wazerotest.New(t, wazerotest.Options{Handler: proxy, Hook: rec.hook})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := inst.CreateSession(ctx, map[string]any{"tools": []any{filterTool}, "execute": true})
	for _, text := range []string{"one", "two", "three"} {
		turn := inst.Chat(ctx, id, text)
		require.Equal(t, "completed", turn.Status, turn.ErrorMessage)
	}
	counts := map[string]int{}
	for _, r := range proxy.Requests() {
		counts[r.Path]++
	}
	assert.Equal(t, map[string]int{
		fakeproxy.MCPPath:          2, // the era probe and initialize, on the first chat
		fakeproxy.CapabilitiesPath: 1,
		fakeproxy.ChatPath:         3,
	}, counts)

	var reports []*wazerotest.Report
	for _, ev := range inst.Events(id) {
		if ev.Type == "toolDiscovery" {
			reports = append(reports, ev.Report)
		}
	}
	require.Len(t, reports, 1)
	require.NotNil(t, reports[0])
	assert.Contains(t, reports[0].ErrorMessage, "has no MCP endpoint at /api/mcp (HTTP 404)")
	assert.Empty(t, reports[0].Routed)
}
