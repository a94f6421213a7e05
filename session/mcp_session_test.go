//go:build !js && !wasip1

package session_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/session"
	"github.com/agentwasm/agentwasm/testing/fakemcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The session over the real HTTP MCP client and a fake MCP server, in both
// eras: discovery under the default policy, a composition call with the
// draft bound, and the list-changed watch refreshing the catalog.
func TestSessionOverHTTPMCP(t *testing.T) {
	for _, era := range []struct {
		name string
		era  fakemcp.Era
	}{{"session era", fakemcp.Session}, {"stateless era", fakemcp.Stateless}} {
		t.Run(era.name, func(t *testing.T) {
			var version atomic.Int32
			version.Store(1)
			tools := func() []json.RawMessage {
				return []json.RawMessage{
					json.RawMessage(fmt.Sprintf(`{"name":"honua_studio_set_view","description":"v%d","inputSchema":{"type":"object"},"_meta":{"honua.studio":{"family":"honua.studio.composition","view":"setup"}}}`, version.Load())),
					json.RawMessage(`{"name":"unclassified_tool","inputSchema":{"type":"object"}}`),
				}
			}
			var gotArgs atomic.Value
			srv := &fakemcp.Server{Era: era.era, Tools: tools(), Call: func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, *fakemcp.RPCError) {
				gotArgs.Store(string(args))
				return json.RawMessage(`{"content":[{"type":"text","text":"ok"}],"structuredContent":{"draftId":"d1","generation":6}}`), nil
			}}
			base := startHandler(t, srv)
			client, err := session.NewHTTPMCPClient(session.HTTPMCPConfig{URL: base + "/mcp", Fetcher: &bridge.HTTPFetcher{}})
			require.NoError(t, err)
			tr := session.NewScriptedTransport(session.ToolCallRound(call("1", "honua_studio_set_view", `{"zoom":4}`)), session.TextRound("zoomed"))
			statuses := newStatusLog()
			s := newScripted(t, tr, func(o *session.Options) {
				o.MCPClient = client
				o.Draft = &session.DraftBinding{DraftID: "d1", Generation: 5}
				o.WatchToolListChanged = true
				o.ToolListChangedWatch = &session.WatchOptions{InitialDelay: time.Millisecond, OnStatus: statuses.add}
			})
			t.Cleanup(func() { _ = s.Close() })

			turn := s.Chat(context.Background(), "zoom in")
			require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
			require.Len(t, turn.ToolCalls, 1)
			rec := turn.ToolCalls[0]
			assert.True(t, rec.OK, rec.ErrorMessage)
			assert.Equal(t, session.PlaneComposition, rec.Plane)
			assert.JSONEq(t, `{"zoom":4,"draftId":"d1","generation":5}`, gotArgs.Load().(string))
			assert.Equal(t, &session.DraftBinding{DraftID: "d1", Generation: 6}, s.Draft())
			rep := s.ToolDiscovery()
			assert.Equal(t, []string{"honua_studio_set_view"}, rep.Routed)
			assert.Equal(t, 1, rep.Pages)
			require.Len(t, rep.Rejected, 1)
			assert.Equal(t, session.RejectUnclassified, rep.Rejected[0].Reason)

			// The watch is open; a list change brings the new catalog in.
			statuses.waitStatus(t, session.WatchOpen)
			require.Eventually(t, func() bool { return srv.OpenStreams() == 1 }, waitBound, time.Millisecond)
			version.Store(2)
			srv.Tools = tools()
			srv.NotifyToolsChanged()
			require.Eventually(t, func() bool {
				ts := s.Tools()
				return len(ts) == 1 && ts[0].Description == "v2"
			}, waitBound, 2*time.Millisecond)
			assert.Equal(t, 1, srv.OpenStreams(), "still one stream")
		})
	}
}

func TestWatchUnsupportedOverHTTP(t *testing.T) {
	for _, era := range []fakemcp.Era{fakemcp.Session, fakemcp.Stateless} {
		srv := &fakemcp.Server{Era: era, NoStream: true, Tools: []json.RawMessage{json.RawMessage(`{"name":"honua_studio_set_view","_meta":{"honua.studio":{"family":"honua.studio.composition"}}}`)}}
		base := startHandler(t, srv)
		client, err := session.NewHTTPMCPClient(session.HTTPMCPConfig{URL: base + "/mcp", Fetcher: &bridge.HTTPFetcher{}})
		require.NoError(t, err)
		statuses := newStatusLog()
		s := newScripted(t, session.NewScriptedTransport(session.TextRound("x")), func(o *session.Options) {
			o.MCPClient = client
			o.WatchToolListChanged = true
			o.ToolListChangedWatch = &session.WatchOptions{InitialDelay: time.Millisecond, OnStatus: statuses.add}
		})
		t.Cleanup(func() { _ = s.Close() })
		s.Chat(context.Background(), "hi")
		statuses.waitStatus(t, session.WatchUnsupported)
		assert.Equal(t, []string{"honua_studio_set_view"}, toolNames(s.Tools()), "the catalog is kept")
	}
}
