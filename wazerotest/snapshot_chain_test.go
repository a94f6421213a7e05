// The cross-host chain of a session snapshot (issue 29): a snapshot taken
// in one host goes on in the wasip1 module under wazero and natively, and
// each sends the very request — byte for byte — the original session would
// have sent next.
//
// web/browser/snapshot_chain.browser.test.mjs drives the whole chain: it
// takes the snapshot in a Chromium page, restores it in Node, then runs
// this test with AGENTWASM_SNAPSHOT_CHAIN naming a directory that holds the
// page's snapshot.json and next.json (the body of the chat request the
// page sent after it, for the same next message). Without that variable
// the test takes its own snapshot natively, so `go test ./...` proves the
// Go half on its own. The scenario (options, replies, messages) is the one
// of web/testing/snapshot_chain.mjs; the two must stay the same, which the
// chain checks: any difference changes the request.

package wazerotest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentwasm/agentwasm/session"
	"github.com/agentwasm/agentwasm/testing/fakeproxy"
	"github.com/agentwasm/agentwasm/wazerotest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// envSnapshotChain names the directory of a snapshot taken elsewhere
// (snapshot.json) and the request its session sent next (next.json).
const envSnapshotChain = "AGENTWASM_SNAPSHOT_CHAIN"

// The chain's scenario, as web/testing/snapshot_chain.mjs has it.
const (
	chainModel    = "chain-model"
	chainSystem   = "You are the assistant of a map page."
	chainTool     = "set_basemap"
	chainToolDesc = "Sets the map's basemap"
	chainSchema   = `{"type":"object","properties":{"style":{"type":"string"}},"required":["style"]}`
	chainNext     = "now zoom in on the harbour"
)

// chainTurns are the two turns before the snapshot: a text answer, then a
// turn that calls the page tool and answers after its result.
var chainTurns = []string{"hello there", "make the map dark"}

// chainReplies are the model's answers to the turns' requests, in order.
var chainReplies = []fakeproxy.Reply{
	{Body: fakeproxy.TextStream("Hello! ", "What shall we change?")},
	{Body: fakeproxy.ToolCallStream(fakeproxy.Call{ID: "call_1", Name: chainTool, Args: `{"style":"dark"}`})},
	{Body: fakeproxy.TextStream("The map is dark now.")},
}

// chainAfter is the answer to the request after the snapshot.
var chainAfter = fakeproxy.Reply{Body: fakeproxy.TextStream("Zoomed in.")}

// nativeChainOptions are the scenario's session options for a native
// session on the proxy at base.
func nativeChainOptions(base string) session.Options {
	return session.Options{
		BaseURL: base + "/api", Model: chainModel, System: chainSystem, DisableToolDiscovery: true,
		Tools: []session.ToolDefinition{{Name: chainTool, Description: chainToolDesc, InputSchema: session.RawJSON(chainSchema)}},
		Execute: session.ExecutorFunc(func(_ context.Context, call session.ToolCall) (session.ToolResult, error) {
			var args struct{ Style string }
			if err := json.Unmarshal(call.Args, &args); err != nil {
				return session.ToolResult{}, err
			}
			data, _ := json.Marshal(map[string]string{"basemap": args.Style})
			return session.ToolResult{Status: session.ToolOK, Data: data}, nil
		}),
	}
}

// onlyChat returns the single chat request proxy received, failing when
// there is not exactly one.
func onlyChat(t *testing.T, proxy *fakeproxy.Proxy) []byte {
	t.Helper()
	chats := proxy.ChatRequests()
	require.Len(t, chats, 1, "one chat request after the restore")
	return chats[0].Body
}

// chainSource returns the snapshot and the request body its session sent
// next: the ones of AGENTWASM_SNAPSHOT_CHAIN's directory, or when it is
// unset ones taken natively here.
func chainSource(t *testing.T) (snapshot, next []byte) {
	t.Helper()
	if dir := os.Getenv(envSnapshotChain); dir != "" {
		var err error
		snapshot, err = os.ReadFile(filepath.Join(dir, "snapshot.json"))
		require.NoError(t, err)
		next, err = os.ReadFile(filepath.Join(dir, "next.json"))
		require.NoError(t, err)
		return snapshot, next
	}
	proxy := fakeproxy.New(append(append([]fakeproxy.Reply(nil), chainReplies...), chainAfter)...)
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	s, err := session.New(nativeChainOptions(srv.URL))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	ctx := context.Background()
	for _, text := range chainTurns {
		turn := s.Chat(ctx, text)
		require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	}
	snapshot, err = s.Snapshot()
	require.NoError(t, err)
	before := len(proxy.ChatRequests())
	turn := s.Chat(ctx, chainNext)
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	chats := proxy.ChatRequests()
	require.Len(t, chats, before+1)
	return snapshot, chats[before].Body
}

func TestSnapshotChainContinuesUnderWazeroAndNatively(t *testing.T) {
	snapshot, want := chainSource(t)
	var snap struct {
		Format  string            `json:"format"`
		Version int               `json:"version"`
		History []json.RawMessage `json:"history"`
	}
	require.NoError(t, json.Unmarshal(snapshot, &snap))
	require.Equal(t, session.SnapshotFormat, snap.Format)
	// Two turns: user, assistant; user, assistant calling, tool, assistant.
	require.Len(t, snap.History, 6, "the snapshot holds both turns: %s", snapshot)
	ctx := context.Background()

	t.Run("wazero", func(t *testing.T) {
		proxy := fakeproxy.New(chainAfter)
		inst := wazerotest.New(t, wazerotest.Options{Handler: proxy})
		id := inst.CreateSession(ctx, map[string]any{
			"baseUrl": "/api", "model": chainModel, "system": chainSystem, "disableToolDiscovery": true,
			"tools":   []any{map[string]any{"name": chainTool, "description": chainToolDesc, "inputSchema": json.RawMessage(chainSchema)}},
			"restore": json.RawMessage(snapshot),
		})
		turn := inst.Chat(ctx, id, chainNext)
		require.Equal(t, "completed", turn.Status, turn.ErrorMessage)
		assert.Equal(t, "Zoomed in.", turn.Text)
		got := onlyChat(t, proxy)
		assert.True(t, bytes.Equal(want, got), "the module's request differs from the original's:\nwant %s\ngot  %s", want, got)
	})

	t.Run("native", func(t *testing.T) {
		proxy := fakeproxy.New(chainAfter)
		srv := httptest.NewServer(proxy)
		t.Cleanup(srv.Close)
		opts := nativeChainOptions(srv.URL)
		opts.Restore = session.RawJSON(snapshot)
		s, err := session.New(opts)
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		turn := s.Chat(ctx, chainNext)
		require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
		assert.Equal(t, "Zoomed in.", turn.Text)
		got := onlyChat(t, proxy)
		assert.True(t, bytes.Equal(want, got), "the native request differs from the original's:\nwant %s\ngot  %s", want, got)
	})
}
