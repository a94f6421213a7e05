//go:build !js && !wasip1

// Approvals: a turn that stops for a person after its round, and Resume
// answering the asks (in order, refused resolutions, refusing doors, busy
// and cancelled).

package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/agentwasm/agentwasm/session"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// askKit is a Kit with ApprovalDoors: its tool "ask" answers a result that
// waits for a person (askId from the arguments), "plain" an ordinary one.
// answer scripts the doors (nil: a note per answer).
type askKit struct {
	answer func(askID string, approve bool) (string, error)

	mu      sync.Mutex
	answers []string // "approve ask#1", "decline ask#2"
}

func (k *askKit) Tools() []session.ToolDefinition {
	return []session.ToolDefinition{tool("ask"), tool("plain")}
}

func (k *askKit) Execute(_ context.Context, call session.ToolCall) (session.ToolResult, error) {
	if call.Name != "ask" {
		return session.ToolResult{Status: session.ToolOK}, nil
	}
	var a struct{ AskID string }
	_ = json.Unmarshal(call.Args, &a)
	data, _ := json.Marshal(map[string]any{"judgment": "needs-confirm", "askId": a.AskID})
	return session.ToolResult{Status: session.ToolOK, Data: data, Approval: &session.ApprovalRequest{AskID: a.AskID, Action: "do." + a.AskID}}, nil
}

func (k *askKit) AnswerAsk(_ context.Context, askID string, approve bool) (string, error) {
	verb := map[bool]string{true: "approve", false: "decline"}[approve]
	k.mu.Lock()
	k.answers = append(k.answers, verb+" "+askID)
	k.mu.Unlock()
	if k.answer != nil {
		return k.answer(askID, approve)
	}
	return "note: " + verb + " " + askID, nil
}

func (k *askKit) log() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.answers...)
}

func askCall(id, askID string) session.ToolCall {
	return call(id, "ask", `{"askId":"`+askID+`"}`)
}

// askSession is a session on kit whose first round raises the asks given
// (with a plain call in between), then answers text.
func askSession(t *testing.T, kit session.Kit, rest [][]session.StreamEvent, asks ...string) (*session.Session, *session.ScriptedTransport) {
	t.Helper()
	var calls []session.ToolCall
	for i, a := range asks {
		calls = append(calls, askCall("c"+a, a))
		if i == 0 {
			calls = append(calls, call("cp", "plain", `{}`))
		}
	}
	tr := session.NewScriptedTransport(append([][]session.StreamEvent{session.ToolCallRound(calls...)}, rest...)...)
	return newScripted(t, tr, func(o *session.Options) { o.Kit = kit }), tr
}

// A round whose results wait for a person ends the turn once all its calls
// are dispatched: no further model request, the asks pending in order.
func TestApprovalStopsTheTurnAfterItsRound(t *testing.T) {
	kit := &askKit{}
	s, tr := askSession(t, kit, [][]session.StreamEvent{session.TextRound("unreachable")}, "ask#1", "ask#2")
	turn := chat(t, context.Background(), s, "go")
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	assert.Equal(t, 1, turn.Rounds)
	assert.Len(t, tr.Requests(), 1)
	require.Len(t, turn.ToolCalls, 3, "every call of the round was dispatched")
	require.Len(t, turn.PendingApprovals, 2)
	assert.Equal(t, session.PendingApproval{AskID: "ask#1", ToolCallID: "cask#1", ToolName: "ask", Action: "do.ask#1",
		Detail: json.RawMessage(`{"askId":"ask#1","judgment":"needs-confirm"}`)}, turn.PendingApprovals[0])
	assert.Equal(t, "ask#2", turn.PendingApprovals[1].AskID)
	assert.Equal(t, turn.PendingApprovals, s.PendingApprovals())
	roles := []string{}
	for _, m := range s.Messages() {
		roles = append(roles, m.Role)
	}
	assert.Equal(t, []string{"user", "assistant", "tool", "tool", "tool"}, roles, "the history keeps the tool messages")

	s.Reset()
	assert.Empty(t, s.PendingApprovals(), "Reset forgets the asks")
}

// Resume answers the named asks in the order they arose, as one user
// message, and goes on; the asks it did not name stay pending and are
// listed on the turn.
func TestResumeAnswersInOrderAndKeepsTheRest(t *testing.T) {
	kit := &askKit{}
	s, tr := askSession(t, kit, [][]session.StreamEvent{session.TextRound("Thanks.")}, "ask#1", "ask#2", "ask#3")
	require.Len(t, chat(t, context.Background(), s, "go").PendingApprovals, 3)

	turn := s.Resume(context.Background(), session.Resolution{Approve: []string{"ask#3"}, Decline: []string{"ask#1"}})
	require.Equal(t, session.StatusCompleted, turn.Status, turn.ErrorMessage)
	assert.Equal(t, "Thanks.", turn.Text)
	assert.Equal(t, []string{"decline ask#1", "approve ask#3"}, kit.log(), "in the order the asks arose")
	reqs := tr.Requests()
	require.Len(t, reqs, 2)
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	assert.Equal(t, session.Message{Role: "user", Content: "note: decline ask#1\nnote: approve ask#3"}, last)
	require.Len(t, turn.PendingApprovals, 1)
	assert.Equal(t, "ask#2", turn.PendingApprovals[0].AskID, "the unanswered ask still waits")
	assert.Equal(t, turn.PendingApprovals, s.PendingApprovals())
}

// Resolutions that cannot start change nothing.
func TestResumeRefusesBadResolutions(t *testing.T) {
	cases := []struct {
		name string
		kit  session.Kit
		res  session.Resolution
		code string
		text string
	}{
		{"empty", &askKit{}, session.Resolution{}, session.ErrorCodeBadResolution, "answers no ask"},
		{"an empty id", &askKit{}, session.Resolution{Approve: []string{""}}, session.ErrorCodeBadResolution, "empty ask id"},
		{"an id twice", &askKit{}, session.Resolution{Approve: []string{"ask#1"}, Decline: []string{"ask#1"}}, session.ErrorCodeBadResolution, `"ask#1" twice`},
		{"unknown ids", &askKit{}, session.Resolution{Approve: []string{"ask#9", "ask#1", "ask#8"}}, session.ErrorCodeUnknownAsk,
			`"ask#8", "ask#9" is not a pending ask of this session (the pending ones are "ask#1")`},
		{"a kit without doors", &testKit{tools: []session.ToolDefinition{tool("ask")}, exec: &recordingExec{fn: func(ctx context.Context, c session.ToolCall) (session.ToolResult, error) {
			return session.ToolResult{Status: session.ToolOK, Approval: &session.ApprovalRequest{AskID: "ask#1"}}, nil
		}}}, session.Resolution{Approve: []string{"ask#1"}}, session.ErrorCodeNoApprovalDoors, "ApprovalDoors"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, tr := askSession(t, tc.kit, nil, "ask#1")
			require.Len(t, chat(t, context.Background(), s, "go").PendingApprovals, 1)
			before := s.Messages()
			turn := s.Resume(context.Background(), tc.res)
			assert.Equal(t, session.StatusError, turn.Status)
			assert.Equal(t, tc.code, turn.ErrorCode)
			assert.Contains(t, turn.ErrorMessage, tc.text)
			assert.Empty(t, turn.PendingApprovals)
			assert.Equal(t, before, s.Messages())
			assert.Len(t, s.PendingApprovals(), 1)
			assert.Len(t, tr.Requests(), 1)
			if k, ok := tc.kit.(*askKit); ok {
				assert.Empty(t, k.log(), "no door was called")
			}
		})
	}
}

// Doors that refuse (or panic): the asks answered before are recorded,
// the rest stay pending, and the model is not asked.
func TestResumeWhenTheDoorsRefuse(t *testing.T) {
	for name, answer := range map[string]func(string, bool) (string, error){
		"an error": func(id string, _ bool) (string, error) {
			if id == "ask#2" {
				return "", errors.New("ask#2 was declined on the card")
			}
			return "", nil // no note: the session writes one
		},
		"a panic": func(id string, _ bool) (string, error) {
			if id == "ask#2" {
				panic("ask#2 was declined on the card")
			}
			return "", nil
		},
	} {
		t.Run(name, func(t *testing.T) {
			kit := &askKit{answer: answer}
			s, tr := askSession(t, kit, nil, "ask#1", "ask#2", "ask#3")
			require.Len(t, chat(t, context.Background(), s, "go").PendingApprovals, 3)
			turn := s.Resume(context.Background(), session.Resolution{Approve: []string{"ask#1", "ask#2", "ask#3"}})
			assert.Equal(t, session.StatusError, turn.Status)
			assert.Equal(t, session.ErrorCodeAskRefused, turn.ErrorCode)
			assert.Contains(t, turn.ErrorMessage, `Could not approve ask "ask#2"`)
			assert.Contains(t, turn.ErrorMessage, "declined on the card")
			assert.Equal(t, []string{"approve ask#1", "approve ask#2"}, kit.log(), "the doors stop at the refusal")
			assert.Len(t, tr.Requests(), 1, "no model request")
			msgs := s.Messages()
			assert.Equal(t, session.Message{Role: "user", Content: `Approved: the person approved ask "ask#1" (do.ask#1).`}, msgs[len(msgs)-1])
			var left []string
			for _, p := range turn.PendingApprovals {
				left = append(left, p.AskID)
			}
			assert.Equal(t, []string{"ask#2", "ask#3"}, left)
		})
	}
}

// Resume waits its turn like Chat: an overlapping one is busy and touches
// nothing; a cancelled context ends it before it starts.
func TestResumeBusyAndCancelled(t *testing.T) {
	kit := &askKit{}
	release := make(chan struct{})
	started := make(chan struct{})
	var once sync.Once
	tr := &gateTransport{first: session.ToolCallRound(askCall("c1", "ask#1")), block: func(ctx context.Context) {
		once.Do(func() { close(started) })
		select {
		case <-release:
		case <-ctx.Done():
		}
	}}
	s := newScripted(t, tr, func(o *session.Options) { o.Kit = kit })
	require.Len(t, chat(t, context.Background(), s, "go").PendingApprovals, 1)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	turn := s.Resume(ctx, session.Resolution{Approve: []string{"ask#1"}})
	assert.Equal(t, session.StatusCancelled, turn.Status)
	assert.Empty(t, kit.log())

	done := make(chan session.Turn, 1)
	go func() { done <- s.Chat(context.Background(), "again") }()
	waitFor(t, started, "the second chat's request")
	turn = s.Resume(context.Background(), session.Resolution{Approve: []string{"ask#1"}})
	assert.Equal(t, session.StatusError, turn.Status)
	assert.Equal(t, session.ErrorCodeBusy, turn.ErrorCode)
	assert.Empty(t, kit.log())
	close(release)
	<-done
}

// gateTransport answers the first request with first, and blocks every
// later one in block before answering text.
type gateTransport struct {
	first []session.StreamEvent
	block func(ctx context.Context)

	mu sync.Mutex
	n  int
}

func (b *gateTransport) Stream(ctx context.Context, req *session.ChatRequest) (session.EventStream, error) {
	b.mu.Lock()
	b.n++
	n := b.n
	b.mu.Unlock()
	if n == 1 {
		return session.NewScriptedTransport(b.first).Stream(ctx, req)
	}
	b.block(ctx)
	return session.NewScriptedTransport(session.TextRound("late")).Stream(ctx, req)
}
