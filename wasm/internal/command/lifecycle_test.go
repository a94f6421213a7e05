//go:build !js && !wasip1

package command_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/agentwasm/agentwasm/internal/limits"
	"github.com/agentwasm/agentwasm/wasm/internal/command"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pageHost is a page with one tool, "page", and a transport hook: the
// model's first round calls the tool, every later round answers "done".
// execute answers the tool's call.
type pageHost struct {
	execute func(ctx context.Context) (io.ReadCloser, error)

	mu       sync.Mutex
	requests []string
}

const (
	pageCallRound = `{"type":"messageStart"}` + "\n" +
		`{"type":"toolCallStart","toolCallId":"c1","toolName":"page"}` + "\n" +
		`{"type":"toolCallStop","toolCallId":"c1","toolArguments":{}}` + "\n" +
		`{"type":"messageStop","stopReason":"toolCall"}` + "\n"
	doneRound = `{"type":"messageStart"}` + "\n" + `{"type":"textDelta","text":"done"}` + "\n" +
		`{"type":"messageStop","stopReason":"endTurn"}` + "\n"
)

func (h *pageHost) hooks() command.Hooks {
	return command.Hooks{Call: func(ctx context.Context, _ int, hook string, payload []byte) (io.ReadCloser, error) {
		switch hook {
		case "transport":
			h.mu.Lock()
			h.requests = append(h.requests, string(payload))
			n := len(h.requests)
			h.mu.Unlock()
			if n == 1 {
				return io.NopCloser(strings.NewReader(pageCallRound)), nil
			}
			return io.NopCloser(strings.NewReader(doneRound)), nil
		case "execute":
			return h.execute(ctx)
		}
		return nil, errors.New("unexpected hook " + hook)
	}}
}

func (h *pageHost) sent() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.requests...)
}

func pageSession(t *testing.T, rt *command.Runtime, h *pageHost) int {
	t.Helper()
	return create(t, rt, map[string]any{"transport": true, "disableToolDiscovery": true, "execute": true,
		"tools": []any{map[string]any{"name": "page", "inputSchema": map[string]any{"type": "object"}}}}, h.hooks())
}

// blockingPage answers the page tool only when released, or fails with its
// context; started and ended report both.
func blockingPage(started chan<- struct{}, release <-chan struct{}, ended chan<- error) func(ctx context.Context) (io.ReadCloser, error) {
	return func(ctx context.Context) (io.ReadCloser, error) {
		started <- struct{}{}
		select {
		case <-release:
			ended <- nil
			return io.NopCloser(strings.NewReader(`{"status":"ok","data":"read"}`)), nil
		case <-ctx.Done():
			ended <- ctx.Err()
			return nil, ctx.Err()
		}
	}
}

// session.close cancels the turn running on the session: the tool's
// context ends and the chat answers a cancelled turn, not a completed one.
func TestSessionCloseCancelsTheRunningTurn(t *testing.T) {
	started, ended := make(chan struct{}, 1), make(chan error, 1)
	h := &pageHost{execute: blockingPage(started, make(chan struct{}), ended)}
	rt := command.New(false)
	id := pageSession(t, rt, h)
	done := make(chan string, 1)
	go func() {
		_, raw := call(t, context.Background(), rt, chatCmd(id, "read the page"), command.Hooks{})
		done <- raw
	}()
	<-started
	r, raw := call(t, context.Background(), rt, map[string]any{"op": "session.close", "session": id}, command.Hooks{})
	require.True(t, r.OK, raw)
	assert.ErrorIs(t, <-ended, context.Canceled, "the tool's signal is aborted")
	turn := turnOf(t, <-done)
	assert.Equal(t, "cancelled", turn.Status, turn.ErrorMessage)
	assert.Len(t, h.sent(), 1, "no request after the close")
}

// session.reset while a turn runs is refused with busy and changes nothing;
// the turn then ends normally, and its requests are well formed.
func TestSessionResetDuringATurnIsBusy(t *testing.T) {
	started, release, ended := make(chan struct{}, 1), make(chan struct{}), make(chan error, 1)
	h := &pageHost{execute: blockingPage(started, release, ended)}
	rt := command.New(false)
	id := pageSession(t, rt, h)
	done := make(chan string, 1)
	go func() {
		_, raw := call(t, context.Background(), rt, chatCmd(id, "read the page"), command.Hooks{})
		done <- raw
	}()
	<-started
	r, raw := call(t, context.Background(), rt, map[string]any{"op": "session.reset", "session": id}, command.Hooks{})
	require.False(t, r.OK, raw)
	assert.Equal(t, command.CodeBusy, r.Error.Code)
	assert.Contains(t, r.Error.Message, "nothing changed")
	close(release)
	require.NoError(t, <-ended)
	turn := turnOf(t, <-done)
	require.Equal(t, "completed", turn.Status, turn.ErrorMessage)
	sent := h.sent()
	require.Len(t, sent, 2)
	assert.Contains(t, sent[1], `"role":"assistant","content":"","toolCalls":[{"id":"c1"`, "the tool message's call is there")
	r, raw = call(t, context.Background(), rt, map[string]any{"op": "session.reset", "session": id}, command.Hooks{})
	require.True(t, r.OK, raw, "between turns reset clears")
}

// What a page tool answers reaches the model as the loader's types say:
// null as data null, nothing as no data; a result too large for the next
// request (or past the hooks' read bound) fails its call with
// result_too_large, and the next turn completes with requests under the
// proxy's bound.
func TestPageToolResults(t *testing.T) {
	cases := []struct {
		name     string
		answer   func() string
		content  string // the tool message's content, or "" to check the code only
		wantCode string
	}{
		{"null", func() string { return `{"status":"ok","data":null}` }, `{"status":"ok","data":null}`, ""},
		{"nothing", func() string { return `{"status":"ok"}` }, `{"status":"ok"}`, ""},
		{"a string", func() string { return `{"status":"ok","data":"x"}` }, `{"status":"ok","data":"x"}`, ""},
		{"12 MB", func() string { return `{"status":"ok","data":"` + strings.Repeat("x", 12<<20) + `"}` }, "", "result_too_large"},
		{"past the hooks' bound", func() string {
			return `{"status":"ok","data":"` + strings.Repeat("x", limits.MaxHookAnswerBytes) + `"}`
		}, "", "result_too_large"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := &pageHost{execute: func(context.Context) (io.ReadCloser, error) {
				return io.NopCloser(strings.NewReader(tc.answer())), nil
			}}
			rt := command.New(false)
			id := pageSession(t, rt, h)
			_, raw := call(t, context.Background(), rt, chatCmd(id, "read the page"), command.Hooks{})
			turn := turnOf(t, raw)
			require.Equal(t, "completed", turn.Status, turn.ErrorMessage)
			require.Len(t, turn.ToolCalls, 1)
			var rec struct {
				OK        bool   `json:"ok"`
				ErrorCode string `json:"errorCode"`
				Content   string `json:"content"`
			}
			require.NoError(t, json.Unmarshal(turn.ToolCalls[0], &rec))
			assert.Equal(t, tc.wantCode, rec.ErrorCode)
			if tc.content != "" {
				assert.Equal(t, tc.content, rec.Content)
			} else {
				assert.Contains(t, rec.Content, `"code":"`+tc.wantCode+`"`, "the model is told")
			}
			_, raw = call(t, context.Background(), rt, chatCmd(id, "and now?"), command.Hooks{})
			next := turnOf(t, raw)
			assert.Equal(t, "completed", next.Status, "the session is not poisoned: %s", next.ErrorMessage)
			for i, req := range h.sent() {
				assert.LessOrEqual(t, len(req), limits.MaxChatRequestBytes, "request %d", i)
			}
		})
	}
}
