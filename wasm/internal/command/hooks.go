// Hook adapters: the session's callbacks (TokenSource, Executor, Kit,
// system prompt, Transport) implemented by calling the host's hooks with
// JSON payloads.

package command

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"strconv"

	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/internal/jsonr"
	"github.com/agentwasm/agentwasm/internal/limits"
	"github.com/agentwasm/agentwasm/internal/wire"
	"github.com/agentwasm/agentwasm/session"
)

// maxHookAnswer bounds a hook's whole answer (and one transport event
// line): limits.MaxHookAnswerBytes, twice the chat request bound, so that a
// tool result too large for a request is read and failed as
// result_too_large by the session (Options.MaxToolResultBytes). A tool's
// answer past it fails the call with the same code, unread.
const maxHookAnswer = limits.MaxHookAnswerBytes

// hookTooLarge is the error of a hook whose answer passed maxHookAnswer;
// for a tool's execute hook it is a session.ErrResultTooLarge.
type hookTooLarge struct {
	hook string
}

func (e *hookTooLarge) Error() string {
	return "the " + e.hook + " callback answered more than " + strconv.Itoa(maxHookAnswer) + " bytes"
}

// Is makes the answer of a tool's hook a session.ErrResultTooLarge.
func (e *hookTooLarge) Is(target error) bool {
	return target == session.ErrResultTooLarge && (e.hook == "execute" || e.hook == "kit.execute")
}

// hostHooks calls the hooks of one session.
type hostHooks struct {
	call    func(ctx context.Context, session int, hook string, payload []byte) (io.ReadCloser, error)
	session int
}

// answer calls hook and reads its whole answer.
func (h hostHooks) answer(ctx context.Context, hook string, payload []byte) ([]byte, error) {
	rc, err := h.call(ctx, h.session, hook, payload)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxHookAnswer+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxHookAnswer {
		return nil, &hookTooLarge{hook: hook}
	}
	return b, nil
}

// AccessToken asks the auth hook; it answers a JSON string, or null for none.
func (h hostHooks) AccessToken(ctx context.Context, forceRefresh bool) (string, error) {
	p, _ := wire.Marshal(&wire.HookAuth{ForceRefresh: forceRefresh})
	b, err := h.answer(ctx, "auth", p)
	if err != nil {
		return "", err
	}
	return jsonString(b, "auth")
}

// hookKey asks the apiKey hook for an OpenAI-compatible endpoint's key: the
// auth hook's payload and answer (a JSON string, or null for none).
type hookKey struct{ h hostHooks }

// AccessToken asks the apiKey hook.
func (k hookKey) AccessToken(ctx context.Context, forceRefresh bool) (string, error) {
	p, _ := wire.Marshal(&wire.HookAuth{ForceRefresh: forceRefresh})
	b, err := k.h.answer(ctx, "apiKey", p)
	if err != nil {
		return "", err
	}
	return jsonString(b, "apiKey")
}

// system asks the system hook for the turn's system prompt (a JSON string).
func (h hostHooks) system(ctx context.Context) (string, error) {
	b, err := h.answer(ctx, "system", []byte("{}"))
	if err != nil {
		return "", err
	}
	return jsonString(b, "system")
}

// jsonString decodes a hook's answer that must be a JSON string or null.
func jsonString(b []byte, hook string) (string, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || (b[0] != '"' && string(b) != "null") {
		return "", errs.New("the ", hook, " callback must answer a string, not ", errs.Trunc(string(b), 40))
	}
	s, err := wire.DecodeString(b)
	if err != nil {
		return "", errs.New("the ", hook, " callback must answer a string: ", err.Error())
	}
	return s, nil
}

// hookExecutor runs tools through the named hook.
type hookExecutor struct {
	h    hostHooks
	hook string
}

func (e hookExecutor) Execute(ctx context.Context, call session.ToolCall) (session.ToolResult, error) {
	p, _ := wire.Marshal(&wire.HookToolCall{ToolCallID: call.ID, Name: call.Name, Args: call.Args})
	b, err := e.h.answer(ctx, e.hook, p)
	if err != nil {
		return session.ToolResult{}, err
	}
	var c wire.ToolContent
	t := bytes.TrimSpace(b)
	if len(t) == 0 || t[0] != '{' || wire.Unmarshal(t, &c) != nil {
		return session.ToolResult{}, errs.New("the ", e.hook, " callback answered ", errs.Trunc(string(b), 60), ", not a result object {status, data?, deniedReason?}")
	}
	data := c.Data
	if data == nil && nullData(t) {
		data = session.RawJSON("null") // a tool that gave null gives the model data null, as the loader's types say
	}
	return session.ToolResult{Status: session.ToolStatus(c.Status), Data: data, DeniedReason: c.DeniedReason}, nil
}

// nullData reports whether the result object t has a data member that is
// null, which the decoder leaves unset as it does an absent one.
func nullData(t []byte) bool {
	l := jsonr.Lexer{Data: t}
	found := false
	l.Delim('{')
	for !l.IsDelim('}') {
		key := l.UnsafeFieldName(false)
		l.WantColon()
		isData := key == "data"
		if isData {
			found = l.IsNull()
		}
		l.SkipRecursive()
		l.WantComma()
	}
	return found && l.Ok()
}

// hookKit is a host's kit: its tools, and its execute method as a hook.
type hookKit struct {
	h       hostHooks
	tools   []session.ToolDefinition
	execute bool
}

func (k hookKit) Tools() []session.ToolDefinition { return k.tools }

func (k hookKit) Execute(ctx context.Context, call session.ToolCall) (session.ToolResult, error) {
	if !k.execute {
		return session.ToolResult{}, errors.New("the kit has no execute method; give the kit one, or give the session an execute function")
	}
	return hookExecutor{k.h, "kit.execute"}.Execute(ctx, call)
}

// hookKitWithPrompt is a kit whose systemPrompt method exists.
type hookKitWithPrompt struct{ hookKit }

func (k hookKitWithPrompt) SystemPrompt(ctx context.Context) (string, error) {
	b, err := k.h.answer(ctx, "kit.systemPrompt", []byte("{}"))
	if err != nil {
		return "", err
	}
	return jsonString(b, "kit.systemPrompt")
}

// hookTransport streams chat answers from the transport hook: the payload is
// the chat request's JSON, the answer one event JSON object per line.
type hookTransport struct{ h hostHooks }

func (t hookTransport) Stream(ctx context.Context, req *session.ChatRequest) (session.EventStream, error) {
	body, err := session.EncodeChatRequest(req)
	if err != nil {
		return nil, err
	}
	rc, err := t.h.call(ctx, t.h.session, "transport", body)
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(rc)
	sc.Buffer(make([]byte, 0, 4096), maxHookAnswer)
	return &lineStream{rc: rc, sc: sc}, nil
}

// streamEventTypes are the event types a transport may send.
var streamEventTypes = map[string]bool{
	session.EventMessageStart: true, session.EventTextDelta: true, session.EventToolCallStart: true,
	session.EventToolCallDelta: true, session.EventToolCallStop: true, session.EventMessageStop: true,
	session.EventError: true,
}

// lineStream reads one event per line.
type lineStream struct {
	rc   io.ReadCloser
	sc   *bufio.Scanner
	done bool
}

func (l *lineStream) Next() (session.StreamEvent, error) {
	for !l.done && l.sc.Scan() {
		line := bytes.TrimSpace(l.sc.Bytes())
		if len(line) == 0 {
			continue
		}
		ev, ok := session.DecodeStreamEvent(line)
		if !ok {
			l.done = true
		} else if !streamEventTypes[ev.Type] {
			continue // unknown types are ignored, as unknown SSE event names are
		}
		return ev, nil
	}
	if err := l.sc.Err(); err != nil {
		return session.StreamEvent{}, errs.Wrap(err, "the transport callback's stream failed")
	}
	return session.StreamEvent{}, io.EOF
}

func (l *lineStream) Close() error { return l.rc.Close() }
