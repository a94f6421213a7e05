//go:build !js && !wasip1

// Tool discovery: lazy and cached passes, the tool policy, runtime tools
// winning name collisions, a failing, silent or hung MCP server, a pass
// overtaken by Reconnect, DisableToolDiscovery, and the draft binding on
// composition calls.

package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentwasm/agentwasm/session"
	"github.com/agentwasm/agentwasm/session/mcpclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeMCP is an MCPClient scripted by functions, counting what it is asked.
type fakeMCP struct {
	mu     sync.Mutex
	list   func(ctx context.Context) ([]mcpclient.Tool, error)
	call   func(ctx context.Context, name string, args json.RawMessage) (mcpclient.ToolResult, error)
	lists  int
	calls  []mcpCall
	closes int
}

type mcpCall struct {
	Name string
	Args string
}

func (f *fakeMCP) ListTools(ctx context.Context) ([]mcpclient.Tool, error) {
	f.mu.Lock()
	f.lists++
	f.mu.Unlock()
	return f.list(ctx)
}

func (f *fakeMCP) CallTool(ctx context.Context, name string, args json.RawMessage) (mcpclient.ToolResult, error) {
	f.mu.Lock()
	f.calls = append(f.calls, mcpCall{name, string(args)})
	f.mu.Unlock()
	return f.call(ctx, name, args)
}

func (f *fakeMCP) Close() error {
	f.mu.Lock()
	f.closes++
	f.mu.Unlock()
	return nil
}

func (f *fakeMCP) listCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lists
}

func (f *fakeMCP) callLog() []mcpCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]mcpCall(nil), f.calls...)
}

// studio makes a classified composition tool.
func studio(name, family, view string) mcpclient.Tool {
	meta := `{"honua.studio":{"family":"` + family + `"`
	if view != "" {
		meta += `,"view":"` + view + `"`
	}
	meta += `,"revision":3}}`
	return mcpclient.Tool{Name: name, Description: name + " tool", InputSchema: json.RawMessage(`{"type":"object"}`), Meta: json.RawMessage(meta)}
}

const composition = "honua.studio.composition"

func staticList(tools ...mcpclient.Tool) func(context.Context) ([]mcpclient.Tool, error) {
	return func(context.Context) ([]mcpclient.Tool, error) { return tools, nil }
}

func okResult(structured string) func(context.Context, string, json.RawMessage) (mcpclient.ToolResult, error) {
	return func(context.Context, string, json.RawMessage) (mcpclient.ToolResult, error) {
		return mcpclient.ToolResult{StructuredContent: json.RawMessage(structured)}, nil
	}
}

func TestDiscoveryIsLazyAndCached(t *testing.T) {
	mcp := &fakeMCP{list: staticList(studio("honua_studio_set_view", composition, ""))}
	var reports []session.ToolDiscoveryReport
	tr := session.NewScriptedTransport(session.TextRound("hi"))
	s := newScripted(t, tr, func(o *session.Options) {
		o.MCPClient = mcp
		o.OnEvent = func(e session.Event) {
			if e.Type == session.EventTypeToolDiscovery {
				reports = append(reports, *e.Discovery)
			}
		}
	})
	assert.Equal(t, 0, mcp.listCount(), "nothing is discovered before the first chat")
	s.Chat(context.Background(), "one")
	s.Chat(context.Background(), "two")
	assert.Equal(t, 1, mcp.listCount(), "a successful pass is cached")
	require.Len(t, reports, 1)
	assert.Equal(t, []string{"honua_studio_set_view"}, reports[0].Routed)
	assert.Equal(t, []string{"honua_studio_set_view"}, toolNames(tr.Requests()[0].Tools))

	_, err := s.RefreshTools(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 2, mcp.listCount())
}

func TestPolicyDecisions(t *testing.T) {
	list := []mcpclient.Tool{
		studio("a_composition", composition, "setup"),
		studio("b_other_family", "honua.studio.admin", "setup"),
		studio("c_wrong_view", composition, "publish"),
		studio("d_no_view", composition, ""),
		{Name: "e_unclassified"},
		{Name: "f_allowlisted"},
		{Name: ""},
		{Name: "a_composition", Description: "a repeat keeps the first"},
		{Name: "g_annotated", Annotations: json.RawMessage(`{"honua.studio":{"family":"honua.studio.composition","view":"setup"}}`)},
		studio("h_vetoed", composition, "setup"),
	}
	mcp := &fakeMCP{list: staticList(list...)}
	s := newScripted(t, session.NewScriptedTransport(session.TextRound("x")), func(o *session.Options) {
		o.MCPClient = mcp
		o.StudioTools = &session.ToolPolicy{
			Views:     []string{"setup"},
			Allowlist: []string{"f_allowlisted"},
			Approve:   func(e session.ToolCatalogEntry) bool { return e.Name != "h_vetoed" },
			Required:  []string{"a_composition", "c_wrong_view", "z_missing"},
		}
	})
	rep, err := s.RefreshTools(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 10, rep.Discovered)
	assert.Equal(t, []string{"a_composition", "f_allowlisted", "g_annotated"}, rep.Routed)
	reasons := map[string]string{}
	for _, r := range rep.Rejected {
		reasons[r.Name] = r.Reason
	}
	assert.Equal(t, map[string]string{
		"b_other_family": session.RejectFamily,
		"c_wrong_view":   session.RejectView,
		"d_no_view":      session.RejectView,
		"e_unclassified": session.RejectUnclassified,
		"h_vetoed":       session.RejectPolicy,
		"":               session.RejectName, // a nameless descriptor is refused, and reported
	}, reasons)
	assert.Equal(t, []string{"c_wrong_view", "z_missing"}, rep.MissingRequired)
	require.Len(t, rep.Diagnostics, 2)
	assert.Contains(t, rep.Diagnostics[0], "c_wrong_view: discovered but not routed: view \"publish\"")
	assert.Equal(t, "z_missing: not advertised by the server's tools/list catalog", rep.Diagnostics[1])
	assert.Equal(t, 5, rep.Classification.Families[composition])
	assert.Equal(t, 1, rep.Classification.Families["honua.studio.admin"])
	assert.Equal(t, 5, rep.Classification.Revisions["3"])
	assert.Equal(t, rep, s.ToolDiscovery())

	// A refused tool called anyway is rejected on the composition plane; nothing is sent.
	tr := session.NewScriptedTransport(session.ToolCallRound(call("1", "c_wrong_view", `{}`)), session.TextRound("ok"))
	s2 := newScripted(t, tr, func(o *session.Options) {
		o.MCPClient = mcp
		o.StudioTools = &session.ToolPolicy{Views: []string{"setup"}}
	})
	turn := s2.Chat(context.Background(), "go")
	require.Len(t, turn.ToolCalls, 1)
	rec := turn.ToolCalls[0]
	assert.Equal(t, session.PlaneComposition, rec.Plane)
	assert.Equal(t, session.CodeNotRoutable, rec.ErrorCode)
	assert.Contains(t, rec.ErrorMessage, "not routable by this session: view")
	assert.Empty(t, mcp.callLog())
}

func TestRuntimeToolsWinCollisions(t *testing.T) {
	mcp := &fakeMCP{list: staticList(studio("setFilter", composition, ""), studio("honua_studio_add_layer", composition, "")),
		call: okResult(`{"added":true}`)}
	exec := &recordingExec{}
	tr := session.NewScriptedTransport(session.ToolCallRound(call("1", "setFilter", `{}`), call("2", "honua_studio_add_layer", `{}`)), session.TextRound("done"))
	s := newScripted(t, tr, func(o *session.Options) {
		o.MCPClient = mcp
		o.Tools = []session.ToolDefinition{{Name: "setFilter", Description: "the page's own"}}
		o.Execute = exec
	})
	turn := s.Chat(context.Background(), "go")
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	advertised := tr.Requests()[0].Tools
	assert.Equal(t, []string{"setFilter", "honua_studio_add_layer"}, toolNames(advertised))
	assert.Equal(t, "the page's own", advertised[0].Description)
	assert.Equal(t, []string{"setFilter"}, exec.names(), "the runtime executor ran the shadowed name")
	assert.Equal(t, []mcpCall{{"honua_studio_add_layer", `{}`}}, mcp.callLog(), "the server's setFilter was never called")
	assert.Equal(t, []session.Plane{session.PlaneRuntime, session.PlaneComposition}, []session.Plane{turn.ToolCalls[0].Plane, turn.ToolCalls[1].Plane})
	assert.Equal(t, `{"status":"ok","result":{"added":true}}`, turn.ToolCalls[1].Content)
}

// A failed pass degrades discovery: the turn goes on with the runtime
// tools, the next turn does not ask again, and the retry in the
// background, on the session's clock, brings the catalog in.
func TestMCPDownDegradesAndRetries(t *testing.T) {
	var down atomic.Bool
	down.Store(true)
	mcp := &fakeMCP{list: func(context.Context) ([]mcpclient.Tool, error) {
		if down.Load() {
			return nil, errors.New("connection refused")
		}
		return []mcpclient.Tool{studio("honua_studio_set_view", composition, "")}, nil
	}}
	clock := newManualClock()
	var log eventLog
	tr := session.NewScriptedTransport(session.TextRound("still here"))
	s := newScripted(t, tr, func(o *session.Options) {
		o.MCPClient = mcp
		o.Tools = []session.ToolDefinition{tool("setFilter")}
		o.Clock = clock
		o.OnEvent = log.add
	})
	t.Cleanup(func() { _ = s.Close() })
	turn := chatWith(t, context.Background(), s, "one", session.ChatOptions{})
	assert.Equal(t, session.StatusCompleted, turn.Status)
	assert.Equal(t, []string{"setFilter"}, toolNames(tr.Requests()[0].Tools), "runtime tools only")
	assert.Equal(t, session.ToolDiscoveryReport{ErrorMessage: "connection refused", Degraded: true}, s.ToolDiscovery())

	down.Store(false)
	chatWith(t, context.Background(), s, "two", session.ChatOptions{})
	assert.Equal(t, 1, mcp.listCount(), "a degraded session's turn does not ask again")
	assert.Equal(t, []string{"setFilter"}, toolNames(tr.Requests()[1].Tools))

	require.Equal(t, 15*time.Second, <-clock.added, "the first pass's bound")
	require.Equal(t, time.Second, <-clock.added, "the retry, a second after the failure")
	clock.Advance(time.Second)
	require.Eventually(t, func() bool { return len(log.discoveries()) == 2 }, waitBound, time.Millisecond)
	assert.Equal(t, []string{"honua_studio_set_view"}, s.ToolDiscovery().Routed)
	assert.False(t, s.ToolDiscovery().Degraded)
	chatWith(t, context.Background(), s, "three", session.ChatOptions{})
	assert.Equal(t, 2, mcp.listCount())
	assert.Equal(t, []string{"setFilter", "honua_studio_set_view"}, toolNames(tr.Requests()[2].Tools))
}

func TestSilentToolsListTimesOut(t *testing.T) {
	mcp := &fakeMCP{list: func(ctx context.Context) ([]mcpclient.Tool, error) {
		<-ctx.Done() // accepts and never answers
		return nil, ctx.Err()
	}}
	tr := session.NewScriptedTransport(session.TextRound("degraded"))
	s := newScripted(t, tr, func(o *session.Options) { o.MCPClient = mcp; o.ToolDiscoveryTimeout = 60 * time.Millisecond })
	turn := chatWith(t, context.Background(), s, "hi", session.ChatOptions{})
	assert.Equal(t, session.StatusCompleted, turn.Status)
	assert.Equal(t, "degraded", turn.Text)
	assert.Equal(t, "tools/list did not respond within 60ms.", s.ToolDiscovery().ErrorMessage)
	assert.True(t, s.ToolDiscovery().Degraded)
}

func TestHungDiscoveryAndCallerAbort(t *testing.T) {
	release := make(chan struct{})
	mcp := &fakeMCP{list: func(ctx context.Context) ([]mcpclient.Tool, error) {
		<-release
		return []mcpclient.Tool{studio("honua_studio_set_view", composition, "")}, nil
	}}
	tr := session.NewScriptedTransport(session.TextRound("x"))
	s := newScripted(t, tr, func(o *session.Options) { o.MCPClient = mcp; o.ToolDiscoveryTimeout = -1 })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	turn := chatWith(t, ctx, s, "hi", session.ChatOptions{})
	assert.Equal(t, session.StatusCancelled, turn.Status)
	assert.Empty(t, tr.Requests(), "no chat request")
	assert.Empty(t, s.Messages())

	// The pass goes on for the next turn, which shares it.
	close(release)
	turn = chatWith(t, context.Background(), s, "again", session.ChatOptions{})
	assert.Equal(t, session.StatusCompleted, turn.Status)
	assert.Equal(t, 1, mcp.listCount())
	assert.Equal(t, []string{"honua_studio_set_view"}, toolNames(tr.Requests()[0].Tools))
}

func TestPassOvertakenByReconnectChangesNothing(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 4)
	mcp := &fakeMCP{list: func(ctx context.Context) ([]mcpclient.Tool, error) {
		started <- struct{}{}
		<-release
		return []mcpclient.Tool{studio("honua_studio_set_view", composition, "")}, nil
	}}
	s := newScripted(t, session.NewScriptedTransport(session.TextRound("x")), func(o *session.Options) { o.MCPClient = mcp })
	done := make(chan session.ToolDiscoveryReport, 1)
	go func() {
		rep, _ := s.RefreshTools(context.Background())
		done <- rep
	}()
	<-started
	require.NoError(t, s.Reconnect(context.Background()))
	close(release)
	rep := <-done
	assert.Equal(t, []string{"honua_studio_set_view"}, rep.Routed, "the overtaken pass reports to its caller")
	assert.Empty(t, s.Tools(), "but changes nothing")
	assert.Equal(t, session.ToolDiscoveryReport{}, s.ToolDiscovery())
	assert.Equal(t, 1, mcp.closes, "Reconnect ends the MCP session")
}

func TestDisableToolDiscovery(t *testing.T) {
	mcp := &fakeMCP{list: staticList(studio("honua_studio_set_view", composition, ""))}
	var events int
	s := newScripted(t, session.NewScriptedTransport(session.TextRound("x")), func(o *session.Options) {
		o.MCPClient = mcp
		o.DisableToolDiscovery = true
		o.OnEvent = func(e session.Event) {
			if e.Type == session.EventTypeToolDiscovery {
				events++
				assert.Equal(t, session.ToolDiscoveryReport{}, *e.Discovery)
			}
		}
	})
	s.Chat(context.Background(), "one")
	s.Chat(context.Background(), "two")
	assert.Equal(t, 0, mcp.listCount())
	assert.Equal(t, 1, events, "one empty report, once")
}

func TestDraftBindingOnCompositionCalls(t *testing.T) {
	type step struct {
		name string
		args string
		res  mcpclient.ToolResult
		err  error
	}
	conflict := &mcpclient.ToolError{Tool: "honua_studio_add_layer", Code: session.CodeFailedPrecondition, Message: "stale generation"}
	cases := []struct {
		name      string
		modelArgs string
		script    []step
		wantOK    bool
		wantCode  string
		retried   bool
		wantDraft session.DraftBinding
		content   string
		message   string
	}{
		{
			name: "draftId and generation bound", modelArgs: `{"layer":"roads"}`,
			script: []step{{name: "honua_studio_add_layer", args: `{"layer":"roads","draftId":"d1","generation":4}`, res: mcpclient.ToolResult{StructuredContent: json.RawMessage(`{"draft":{"draftId":"d1","generation":5}}`)}}},
			wantOK: true, wantDraft: session.DraftBinding{DraftID: "d1", Generation: 5},
			content: `{"status":"ok","draft":{"draftId":"d1","generation":5}}`,
		},
		{
			name: "the model's draftId wins, generation never", modelArgs: `{"draftId":"d9","generation":99}`,
			script: []step{{name: "honua_studio_add_layer", args: `{"draftId":"d9","generation":4}`, res: mcpclient.ToolResult{Content: json.RawMessage(`[{"type":"text","text":"{\"ok\":true}"}]`)}}},
			wantOK: true, wantDraft: session.DraftBinding{DraftID: "d1", Generation: 4},
			content: `{"status":"ok","result":[{"type":"text","text":"{\"ok\":true}"}]}`,
		},
		{
			name: "conflict, reload, retry", modelArgs: `{}`,
			script: []step{
				{name: "honua_studio_add_layer", args: `{"draftId":"d1","generation":4}`, err: conflict},
				{name: "honua_studio_get_draft", args: `{"draftId":"d1"}`, res: mcpclient.ToolResult{Content: json.RawMessage(`[{"type":"text","text":"{\"draftId\":\"d1\",\"generation\":7}"}]`)}},
				{name: "honua_studio_add_layer", args: `{"draftId":"d1","generation":7}`, res: mcpclient.ToolResult{StructuredContent: json.RawMessage(`{"draftId":"d1","generation":8}`)}},
			},
			wantOK: true, retried: true, wantDraft: session.DraftBinding{DraftID: "d1", Generation: 8},
			content: `{"status":"ok","draft":{"draftId":"d1","generation":8}}`,
		},
		{
			name: "a second conflict is reported", modelArgs: `{}`,
			script: []step{
				{name: "honua_studio_add_layer", args: `{"draftId":"d1","generation":4}`, err: conflict},
				{name: "honua_studio_get_draft", args: `{"draftId":"d1"}`, res: mcpclient.ToolResult{StructuredContent: json.RawMessage(`{"draft":{"draftId":"d1","generation":7}}`)}},
				{name: "honua_studio_add_layer", args: `{"draftId":"d1","generation":7}`, err: conflict},
			},
			wantCode: session.CodeFailedPrecondition, retried: true, wantDraft: session.DraftBinding{DraftID: "d1", Generation: 7},
			message: "stale generation (after reloading the draft once)",
		},
		{
			name: "no draft returned by the reload", modelArgs: `{}`,
			script: []step{
				{name: "honua_studio_add_layer", args: `{"draftId":"d1","generation":4}`, err: conflict},
				{name: "honua_studio_get_draft", args: `{"draftId":"d1"}`, res: mcpclient.ToolResult{StructuredContent: json.RawMessage(`{}`)}},
			},
			wantCode: session.CodeFailedPrecondition, retried: true, wantDraft: session.DraftBinding{DraftID: "d1", Generation: 4},
			message: "stale generation; reloading the draft failed: honua_studio_get_draft returned no draft",
		},
		{
			name: "a non-conflict error is not retried", modelArgs: `{}`,
			script:   []step{{name: "honua_studio_add_layer", args: `{"draftId":"d1","generation":4},`, err: &mcpclient.ToolError{Code: "invalid_argument", Message: "no such layer"}}},
			wantCode: "invalid_argument", wantDraft: session.DraftBinding{DraftID: "d1", Generation: 4},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := 0
			mcp := &fakeMCP{list: staticList(studio("honua_studio_add_layer", composition, "")),
				call: func(_ context.Context, name string, args json.RawMessage) (mcpclient.ToolResult, error) {
					require.Less(t, n, len(c.script), "an unexpected call to %s", name)
					st := c.script[n]
					n++
					return st.res, st.err
				}}
			tr := session.NewScriptedTransport(session.ToolCallRound(call("1", "honua_studio_add_layer", c.modelArgs)), session.TextRound("ok"))
			s := newScripted(t, tr, func(o *session.Options) {
				o.MCPClient = mcp
				o.Draft = &session.DraftBinding{DraftID: "d1", Generation: 4}
			})
			turn := s.Chat(context.Background(), "go")
			require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
			require.Len(t, turn.ToolCalls, 1)
			rec := turn.ToolCalls[0]
			assert.Equal(t, c.wantOK, rec.OK, rec.ErrorMessage)
			assert.Equal(t, c.wantCode, rec.ErrorCode)
			assert.Equal(t, c.retried, rec.RetriedAfterConflict)
			assert.Equal(t, c.wantDraft, *s.Draft())
			if c.content != "" {
				assert.Equal(t, c.content, rec.Content)
			}
			if c.message != "" {
				assert.Equal(t, c.message, rec.ErrorMessage)
			}
			log := mcp.callLog()
			require.Len(t, log, len(c.script))
			for i, st := range c.script {
				assert.Equal(t, st.name, log[i].Name)
				assert.JSONEq(t, strings.TrimSuffix(st.args, ","), log[i].Args)
			}
		})
	}
}
