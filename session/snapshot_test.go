//go:build !js && !wasip1

// Snapshots: a session restored from its snapshot sends the very next
// request the original would have, answers the asks its last turn stopped
// on, holds no token, records a turn in flight as interrupted, and refuses
// a snapshot that is not one (nothing half-restored).

package session_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentwasm/agentwasm/session"
	"github.com/agentwasm/agentwasm/testing/fakeproxy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// twoTurns is the script of a conversation: a tool round and its answer,
// then a text turn.
func twoTurns() [][]session.StreamEvent {
	return [][]session.StreamEvent{
		session.ToolCallRound(call("c1", "plain", `{"x": 1}`)),
		session.TextRound("Done."),
		session.TextRound("Second."),
		session.TextRound("Next."),
	}
}

func TestSnapshotRestoreSendsTheSameNextRequest(t *testing.T) {
	kit := &askKit{}
	orig := session.NewScriptedTransport(twoTurns()...)
	temp := 0.2
	a := newScripted(t, orig, func(o *session.Options) {
		o.Kit = kit
		o.System = "Be brief."
		o.Model = "m-1"
		o.Temperature = &temp
		o.ToolChoice = &session.ToolChoice{Mode: "auto"}
		o.Draft = &session.DraftBinding{DraftID: "d-1", Generation: 3}
	})
	ctx := context.Background()
	require.Equal(t, session.StatusCompleted, chatWith(t, ctx, a, "first", session.ChatOptions{}).Status)
	require.Equal(t, session.StatusCompleted, chatWith(t, ctx, a, "second", session.ChatOptions{}).Status)
	snap, err := a.Snapshot()
	require.NoError(t, err)

	var doc map[string]any
	require.NoError(t, json.Unmarshal(snap, &doc))
	assert.Equal(t, session.SnapshotFormat, doc["format"])
	assert.Equal(t, map[string]any{"baseUrl": "/api", "model": "m-1", "system": "Be brief.", "temperature": 0.2,
		"toolChoice": map[string]any{"mode": "auto"}, "maxToolRounds": float64(8)}, doc["options"], "the data options, no function, no credential")
	assert.EqualValues(t, session.SnapshotVersion, doc["version"])

	restoredTr := session.NewScriptedTransport(session.TextRound("Next."))
	// Only what a snapshot cannot hold is given again (the kit, a function);
	// the system prompt, the model, the temperature and the tool choice
	// come from the snapshot.
	b := newScripted(t, restoredTr, func(o *session.Options) {
		o.Kit = kit
		o.Restore = snap
	})
	assert.Equal(t, a.Messages(), b.Messages())
	assert.Equal(t, a.Usage(), b.Usage())

	require.Equal(t, session.StatusCompleted, chatWith(t, ctx, a, "third", session.ChatOptions{}).Status)
	require.Equal(t, session.StatusCompleted, chatWith(t, ctx, b, "third", session.ChatOptions{}).Status)
	ra, rb := orig.Requests(), restoredTr.Requests()
	wantBody, err := session.EncodeChatRequest(&ra[len(ra)-1])
	require.NoError(t, err)
	gotBody, err := session.EncodeChatRequest(&rb[0])
	require.NoError(t, err)
	assert.Equal(t, string(wantBody), string(gotBody), "the restored session's next request is the original's, byte for byte")

	// The caller's own options win over the snapshot's.
	ownTr := session.NewScriptedTransport(session.TextRound("Next."))
	c := newScripted(t, ownTr, func(o *session.Options) { o.Kit = kit; o.Restore = snap; o.System = "Be verbose." })
	require.Equal(t, session.StatusCompleted, chatWith(t, ctx, c, "third", session.ChatOptions{}).Status)
	assert.Equal(t, "Be verbose.", ownTr.Requests()[0].System)
	assert.Equal(t, "m-1", ownTr.Requests()[0].Model)

	again, err := b.Snapshot()
	require.NoError(t, err)
	var b2 map[string]any
	require.NoError(t, json.Unmarshal(again, &b2))
	assert.Equal(t, map[string]any{"draftId": "d-1", "generation": float64(3)}, b2["draft"], "the draft binding carries on")
}

func TestSnapshotPendingAsksAreAnsweredAfterRestore(t *testing.T) {
	kit := &askKit{}
	a, _ := askSession(t, kit, nil, "ask#1")
	turn := chatWith(t, context.Background(), a, "do it", session.ChatOptions{})
	require.Len(t, turn.PendingApprovals, 1)
	snap, err := a.Snapshot()
	require.NoError(t, err)

	tr := session.NewScriptedTransport(session.TextRound("Done, approved."))
	b := newScripted(t, tr, func(o *session.Options) { o.Kit = kit; o.Restore = snap })
	require.Len(t, b.PendingApprovals(), 1)
	assert.Equal(t, "ask#1", b.PendingApprovals()[0].AskID)
	resumed := b.Resume(context.Background(), session.Resolution{Approve: []string{"ask#1"}})
	require.Equal(t, session.StatusCompleted, resumed.Status, resumed.ErrorMessage)
	assert.Equal(t, "Done, approved.", resumed.Text)
	assert.Equal(t, []string{"approve ask#1"}, kit.log())
	reqs := tr.Requests()
	require.Len(t, reqs, 1)
	last := reqs[0].Messages[len(reqs[0].Messages)-1]
	assert.Equal(t, "user", last.Role)
	assert.Contains(t, last.Content, "note: approve ask#1", "the doors' note reaches the model")
}

// TestSnapshotHoldsNoToken: the tokens the session learned never land in a
// snapshot, not even where the model echoed one into the history.
func TestSnapshotHoldsNoToken(t *testing.T) {
	const token = "tok-SECRET-0123456789"
	base := startHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, fakeproxy.TextStream("your token is "+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")))
	}))
	s, err := session.New(session.Options{BaseURL: base, Auth: session.StaticToken(token), DisableToolDiscovery: true})
	require.NoError(t, err)
	turn := chatWith(t, context.Background(), s, "tell me "+token, session.ChatOptions{})
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	snap, err := s.Snapshot()
	require.NoError(t, err)
	assert.NotContains(t, string(snap), "SECRET")
	assert.Contains(t, string(snap), "your token is [redacted]")
}

func TestSnapshotDuringATurnIsInterrupted(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{})
	var s *session.Session
	var snap []byte
	kit := &funcKit{tools: []session.ToolDefinition{tool("slow")}, exec: func(ctx context.Context, c session.ToolCall) (session.ToolResult, error) {
		var err error
		snap, err = s.Snapshot() // the page goes away while a tool runs
		require.NoError(t, err)
		close(entered)
		<-release
		return session.ToolResult{Status: session.ToolOK}, nil
	}}
	tr := session.NewScriptedTransport(session.TextRound("Hello."), session.ToolCallRound(call("c9", "slow", `{}`)), session.TextRound("ok"))
	s = newScripted(t, tr, func(o *session.Options) { o.Kit = kit })
	require.Equal(t, session.StatusCompleted, chatWith(t, context.Background(), s, "hi", session.ChatOptions{}).Status)
	go func() { <-entered; close(release) }()
	require.Equal(t, session.StatusCompleted, chatWith(t, context.Background(), s, "run the slow tool", session.ChatOptions{}).Status)

	var doc struct {
		History     []map[string]any
		Interrupted struct{ Text string }
	}
	require.NoError(t, json.Unmarshal(snap, &doc))
	assert.Len(t, doc.History, 2, "the history as the interrupted turn found it: hi and Hello.")
	assert.Equal(t, "run the slow tool", doc.Interrupted.Text)

	next := session.NewScriptedTransport(session.TextRound("Again."))
	b := newScripted(t, next, func(o *session.Options) { o.Kit = kit; o.Restore = snap })
	require.Equal(t, session.StatusCompleted, chatWith(t, context.Background(), b, "run the slow tool", session.ChatOptions{}).Status)
	msgs := next.Requests()[0].Messages
	assert.Equal(t, []string{"user: hi", "assistant: Hello.", "user: run the slow tool"}, roles(msgs), "no dangling tool call in the restored session's request")
}

// funcKit is a Kit whose tools run exec.
type funcKit struct {
	tools []session.ToolDefinition
	exec  func(context.Context, session.ToolCall) (session.ToolResult, error)
}

func (k *funcKit) Tools() []session.ToolDefinition { return k.tools }
func (k *funcKit) Execute(ctx context.Context, c session.ToolCall) (session.ToolResult, error) {
	return k.exec(ctx, c)
}

// TestSnapshotRefusals: what Restore refuses, each with ErrBadSnapshot and
// a message saying what is wrong; no session is made.
func TestSnapshotRefusals(t *testing.T) {
	good := `{"format":"agentwasm.session","version":1,"history":[{"role":"user","content":"hi"}]}`
	tests := []struct {
		name, snap, want string
	}{
		{"corrupt JSON", `{"format":"agentwasm.session","version":1,"history":[`, "not a snapshot's JSON"},
		{"not an object", `[1,2]`, "not a snapshot's JSON"},
		{"another format", strings.Replace(good, "agentwasm.session", "other.app", 1), `format is "other.app"`},
		{"no format", `{"version":1,"history":[]}`, `format is ""`},
		{"a newer version", strings.Replace(good, `"version":1`, `"version":2`, 1), "version is 2; this agentwasm reads versions 1 to 1"},
		{"version 0", strings.Replace(good, `"version":1`, `"version":0`, 1), "version is 0"},
		{"an unknown role", strings.Replace(good, `"user"`, `"system"`, 1), `role "system"`},
		{"a dangling tool call", `{"format":"agentwasm.session","version":1,"history":[{"role":"user","content":"x"},{"role":"assistant","content":"","toolCalls":[{"id":"c1","name":"t","arguments":{}}]}]}`, "ends with a tool call that has no answer"},
		{"an answer to nothing", `{"format":"agentwasm.session","version":1,"history":[{"role":"tool","content":"x","toolCallId":"c1"}]}`, "answers no open tool call"},
		{"arguments not an object", `{"format":"agentwasm.session","version":1,"history":[{"role":"assistant","content":"","toolCalls":[{"id":"c1","name":"t","arguments":[1]}]},{"role":"tool","content":"x","toolCallId":"c1"}]}`, "not a JSON object"},
		{"an ask for no call", `{"format":"agentwasm.session","version":1,"history":[],"pending":[{"askId":"a1","toolCallId":"c1","toolName":"t","action":"x"}]}`, "pending ask 0"},
		{"oversize", `{"format":"agentwasm.session","version":1,"history":[{"role":"user","content":"` + strings.Repeat("x", 3<<20) + `"}]}`, "past the"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := session.New(session.Options{DisableToolDiscovery: true, Restore: json.RawMessage(tt.snap), MaxRequestBytes: 1 << 20})
			assert.Nil(t, s)
			require.ErrorIs(t, err, session.ErrBadSnapshot)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	s, err := session.New(session.Options{DisableToolDiscovery: true, Restore: json.RawMessage(good)})
	require.NoError(t, err)
	assert.Len(t, s.Messages(), 1)
}

// TestSnapshotFixturesStayReadable: every released version's fixture
// (testdata/snapshots/v<N>.json) restores, with the history it holds.
// Regenerate none of them: a fixture is what that version wrote.
func TestSnapshotFixturesStayReadable(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "snapshots", "v*.json"))
	require.NoError(t, err)
	require.Len(t, files, session.SnapshotVersion, "one fixture per released version")
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		s, err := session.New(session.Options{DisableToolDiscovery: true, Restore: data})
		require.NoError(t, err, f)
		assert.NotEmpty(t, s.Messages(), f)
		assert.NotEmpty(t, s.PendingApprovals(), f)
	}
}
