//go:build !js && !wasip1

// session.snapshot and session.create's restore option through the command
// layer: the reply carries the snapshot as a JSON object; a session
// restored from it sends the very request the snapshotted one sends next;
// a snapshot taken from inside a tool's execute hook is interrupted and
// restores to the request of that turn's start; a refused snapshot answers
// bad_snapshot and makes no session. (snapshot_port_test.go has the turn
// stopped on an approval; these tests also run in the session-only build.)

package command_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/agentwasm/agentwasm/wasm/internal/command"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scriptHost answers a session's transport hook with scripted rounds (one
// JSON event per line) and its execute hook with one result, and records
// the chat requests. onExecute, when set, runs inside each execute.
type scriptHost struct {
	rounds    []string
	onExecute func()

	mu       sync.Mutex
	next     int
	requests []string
}

func (h *scriptHost) hooks() command.Hooks {
	return command.Hooks{Call: func(_ context.Context, _ int, hook string, payload []byte) (io.ReadCloser, error) {
		switch hook {
		case "transport":
			h.mu.Lock()
			defer h.mu.Unlock()
			h.requests = append(h.requests, string(payload))
			if h.next >= len(h.rounds) {
				return nil, errors.New("the script ran out")
			}
			h.next++
			return io.NopCloser(strings.NewReader(h.rounds[h.next-1])), nil
		case "execute":
			if h.onExecute != nil {
				h.onExecute()
			}
			return io.NopCloser(strings.NewReader(`{"status":"success","data":{"tempC":21}}`)), nil
		}
		return nil, errors.New("unexpected hook " + hook)
	}}
}

// sent returns the recorded chat requests.
func (h *scriptHost) sent() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.requests...)
}

const (
	weatherCallRound = `{"type":"messageStart","model":"m"}
{"type":"toolCallStart","toolCallId":"w1","toolName":"weather"}
{"type":"toolCallStop","toolCallId":"w1","toolArguments":{"city":"Oslo"}}
{"type":"messageStop","stopReason":"toolCall","promptTokens":40,"completionTokens":5}`
	weatherTextRound = `{"type":"textDelta","text":"21 degrees in Oslo."}
{"type":"messageStop","stopReason":"endTurn","promptTokens":60,"completionTokens":6}`
	okRound = `{"type":"textDelta","text":"OK."}
{"type":"messageStop","stopReason":"endTurn"}`
)

// weatherOptions are the options of every session of these tests; restore,
// when not nil, is added.
func weatherOptions(restore json.RawMessage) map[string]any {
	o := map[string]any{
		"transport": true, "execute": true, "disableToolDiscovery": true, "system": "Be brief.",
		"tools": []map[string]any{{"name": "weather", "description": "The weather of a city",
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}},
	}
	if restore != nil {
		o["restore"] = restore
	}
	return o
}

// snapshotOf takes session id's snapshot and checks the reply carries it as
// a JSON object.
func snapshotOf(t *testing.T, rt *command.Runtime, id int) json.RawMessage {
	t.Helper()
	r, raw := call(t, context.Background(), rt, map[string]any{"op": "session.snapshot", "session": id}, command.Hooks{})
	require.True(t, r.OK, raw)
	require.True(t, strings.HasPrefix(raw, `{"ok":true,"snapshot":{"format":"agentwasm.session","version":1,`),
		"the snapshot travels as an object, not as a string: %s", raw)
	var out struct {
		Snapshot json.RawMessage `json:"snapshot"`
	}
	require.NoError(t, json.Unmarshal([]byte(raw), &out))
	return out.Snapshot
}

func TestSnapshotRestoresTheNextRequest(t *testing.T) {
	first := &scriptHost{rounds: []string{weatherCallRound, weatherTextRound, okRound}}
	rt := command.New(false)
	a := create(t, rt, weatherOptions(nil), first.hooks())
	_, raw := call(t, context.Background(), rt, chatCmd(a, "Weather in Oslo?"), command.Hooks{})
	require.Equal(t, "completed", turnOf(t, raw).Status, raw)
	snap := snapshotOf(t, rt, a)

	var doc struct {
		History []struct {
			Role string `json:"role"`
		} `json:"history"`
		Usage       json.RawMessage `json:"usage"`
		Interrupted json.RawMessage `json:"interrupted"`
	}
	require.NoError(t, json.Unmarshal(snap, &doc))
	var roles []string
	for _, m := range doc.History {
		roles = append(roles, m.Role)
	}
	assert.Equal(t, []string{"user", "assistant", "tool", "assistant"}, roles)
	assert.JSONEq(t, `{"inputTokens":100,"outputTokens":11}`, string(doc.Usage))
	assert.Nil(t, doc.Interrupted, "no turn was running")

	// The restore goes to another runtime, as a reloaded page's would.
	second := &scriptHost{rounds: []string{okRound}}
	rt2 := command.New(false)
	b := create(t, rt2, weatherOptions(snap), second.hooks())
	r, raw := call(t, context.Background(), rt2, map[string]any{"op": "session.messages", "session": b}, command.Hooks{})
	require.True(t, r.OK, raw)
	assert.Contains(t, raw, `"21 degrees in Oslo."`)

	_, raw = call(t, context.Background(), rt, chatCmd(a, "And tomorrow?"), command.Hooks{})
	require.Equal(t, "completed", turnOf(t, raw).Status, raw)
	_, raw = call(t, context.Background(), rt2, chatCmd(b, "And tomorrow?"), command.Hooks{})
	require.Equal(t, "completed", turnOf(t, raw).Status, raw)
	want, got := first.sent(), second.sent()
	require.Len(t, want, 3)
	require.Len(t, got, 1)
	assert.Equal(t, want[2], got[0], "the restored session sends the original's next request, byte for byte")
	assert.Equal(t, snapshotOf(t, rt, a), snapshotOf(t, rt2, b), "and both then snapshot alike")
}

func TestSnapshotDuringATurnIsInterrupted(t *testing.T) {
	rt := command.New(false)
	var snap json.RawMessage
	var a int
	first := &scriptHost{rounds: []string{okRound, weatherCallRound, weatherTextRound}}
	first.onExecute = func() {
		// A page going away mid-turn: the hook, inside the running turn,
		// takes the snapshot (a sync command, as the js loader's callSync).
		r, raw := call(t, context.Background(), rt, map[string]any{"op": "session.snapshot", "session": a}, command.Hooks{})
		if assert.True(t, r.OK, raw) {
			var out struct{ Snapshot json.RawMessage }
			assert.NoError(t, json.Unmarshal([]byte(raw), &out))
			snap = out.Snapshot
		}
	}
	a = create(t, rt, weatherOptions(nil), first.hooks())
	_, raw := call(t, context.Background(), rt, chatCmd(a, "Hello."), command.Hooks{})
	require.Equal(t, "completed", turnOf(t, raw).Status, raw)
	_, raw = call(t, context.Background(), rt, chatCmd(a, "Weather in Oslo?"), command.Hooks{})
	require.Equal(t, "completed", turnOf(t, raw).Status, raw)
	require.NotNil(t, snap, "the execute hook ran")

	var doc struct {
		History     []json.RawMessage `json:"history"`
		Interrupted struct {
			Text string `json:"text"`
		} `json:"interrupted"`
	}
	require.NoError(t, json.Unmarshal(snap, &doc))
	assert.Equal(t, "Weather in Oslo?", doc.Interrupted.Text)
	assert.Len(t, doc.History, 2, "the state at the turn's start: the first exchange only")

	second := &scriptHost{rounds: []string{okRound}}
	rt2 := command.New(false)
	b := create(t, rt2, weatherOptions(snap), second.hooks())
	_, raw = call(t, context.Background(), rt2, chatCmd(b, doc.Interrupted.Text), command.Hooks{})
	require.Equal(t, "completed", turnOf(t, raw).Status, raw)
	want, got := first.sent(), second.sent()
	require.Len(t, want, 3)
	require.Len(t, got, 1)
	assert.Equal(t, want[1], got[0], "offering the interrupted message again sends the request the interrupted turn began with")
}

// oversizeSnapshot is a well-formed snapshot past the bound of a session
// whose maxRequestBytes is 1024 (twice that, and 1 MiB).
func oversizeSnapshot() json.RawMessage {
	b, _ := json.Marshal(map[string]any{"format": "agentwasm.session", "version": 1,
		"history": []map[string]any{{"role": "user", "content": strings.Repeat("x", 1<<20+4096)}}})
	return b
}

func TestRefusedSnapshotMakesNoSession(t *testing.T) {
	cases := []struct {
		name    string
		restore json.RawMessage
		max     int    // maxRequestBytes, when not 0
		reason  string // in the message
	}{
		{"not a snapshot: an array", json.RawMessage(`[1,2]`), 0, "not a snapshot's JSON"},
		{"not a snapshot: a string", json.RawMessage(`"{\"format\":\"agentwasm.session\"}"`), 0, "not a snapshot's JSON"},
		{"corrupt: history of the wrong type", json.RawMessage(`{"format":"agentwasm.session","version":1,"history":"lost"}`), 0, "not a snapshot's JSON"},
		{"corrupt: a tool message answering nothing", json.RawMessage(`{"format":"agentwasm.session","version":1,"history":[{"role":"tool","content":"x","toolCallId":"nope"}]}`), 0, "answers no open tool call"},
		{"an unknown version", json.RawMessage(`{"format":"agentwasm.session","version":99,"history":[]}`), 0, "version is 99"},
		{"version 0", json.RawMessage(`{"format":"agentwasm.session","version":0,"history":[]}`), 0, "version is 0"},
		{"another format", json.RawMessage(`{"format":"agentwasm.port","version":1,"graph":"g","asks":[]}`), 0, `format is "agentwasm.port"`},
		{"oversize", oversizeSnapshot(), 1024, "past the"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			host := &scriptHost{}
			rt := command.New(false)
			o := weatherOptions(tc.restore)
			if tc.max != 0 {
				o["maxRequestBytes"] = tc.max
			}
			r, raw := call(t, context.Background(), rt, map[string]any{"op": "session.create", "options": o}, host.hooks())
			require.False(t, r.OK, raw)
			assert.Equal(t, command.CodeBadSnapshot, r.Error.Code, raw)
			assert.Contains(t, r.Error.Message, tc.reason)
			assert.Contains(t, r.Error.Message, "no session was made")
			assert.Zero(t, r.Session, "no id is answered")
			// The id the refused create drew answers no session.
			r, raw = call(t, context.Background(), rt, map[string]any{"op": "session.messages", "session": 1}, command.Hooks{})
			require.False(t, r.OK, raw)
			assert.Equal(t, command.CodeUnknownSession, r.Error.Code)
		})
	}
}

func TestSnapshotOfNoSession(t *testing.T) {
	rt := command.New(false)
	r, raw := call(t, context.Background(), rt, map[string]any{"op": "session.snapshot", "session": 7}, command.Hooks{})
	require.False(t, r.OK, raw)
	assert.Equal(t, command.CodeUnknownSession, r.Error.Code)
}
