// The answer half of the OpenAI-compatible model: the upstream's streamed
// chat completion chunks as events of the proxy's grammar.

package studioproxy

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/internal/rawjson"
)

// oaMaxToolCalls bounds the tool calls of one answer.
const oaMaxToolCalls = 128

// oaChunk is one chunk of a streamed chat completion, or a whole
// non-streamed completion (whose choices carry message, not delta).
type oaChunk struct {
	Model   string          `json:"model"`
	Choices []oaChoice      `json:"choices"`
	Usage   *oaUsage        `json:"usage"`
	Error   json.RawMessage `json:"error"`
}

// oaChoice is one choice of a chunk; only index 0 is read.
type oaChoice struct {
	Index        int      `json:"index"`
	Delta        oaDelta  `json:"delta"`
	Message      *oaDelta `json:"message"`
	FinishReason *string  `json:"finish_reason"`
}

// oaDelta is what a chunk adds to the answer. FunctionCall is the legacy
// single function call, read as tool call index 0.
type oaDelta struct {
	Content      *string           `json:"content"`
	Refusal      *string           `json:"refusal"`
	ToolCalls    []oaToolCallDelta `json:"tool_calls"`
	FunctionCall *oaFunctionDelta  `json:"function_call"`
}

// oaToolCallDelta is a part of one tool call. Index keys the call; when an
// upstream leaves it out, the ID, else the position in the list, does.
type oaToolCallDelta struct {
	Index    *int            `json:"index"`
	ID       string          `json:"id"`
	Function oaFunctionDelta `json:"function"`
}

// oaFunctionDelta is a part of a called function: its name, usually whole
// in the first part, and a fragment of its arguments' JSON text (a string;
// some upstreams send an object instead).
type oaFunctionDelta struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// oaUsage is the token count of the answer.
type oaUsage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
}

// oaCall is one tool call of the answer being built.
type oaCall struct {
	key     int          // the upstream's index
	upID    string       // the id the upstream gave, "" while none
	id      string       // the id sent to the session, once started
	name    string       // the session's name of the tool
	started bool         // tool_call_start was sent
	red     redactStream // the arguments' fragments, redacted as they come
	out     []byte       // the arguments redacted so far, sent or (before the start) to be sent
}

// oaStream translates one answer. It is used by one goroutine.
type oaStream struct {
	sink  Sink
	red   *redactor // the API key's, applied to all the page is sent; nil when there is no key
	names *oaToolNames
	model string // the requested model, for a message_start no chunk names
	start time.Time

	begun    bool         // message_start was sent
	text     redactStream // the answer's text, content and refusal
	finish   string       // the finish_reason, "" while none
	usage    oaUsage
	calls    map[int]*oaCall
	argBytes int // the arguments of every call so far, bounded by oaMaxEventBytes
	usedIDs  map[string]bool
	nextAuto int // the next key for a call the upstream gave no index
}

// translate translates the upstream's answer, a whole JSON chat completion
// when whole, else an event stream, like read and readWhole; when it fails
// with an *Error, what redaction held back is sent before that error.
func (s *oaStream) translate(ctx context.Context, r io.Reader, whole bool, stall time.Duration) error {
	var err error
	if whole {
		err = s.readWhole(ctx, r, stall)
	} else {
		err = s.read(ctx, r, stall)
	}
	var e *Error
	if errors.As(err, &e) && ctx.Err() == nil {
		if ferr := s.flushHeld(); ferr != nil {
			return ferr
		}
	}
	return err
}

// read translates an event stream up to its terminal event. It returns nil
// once that was sent, an *Error for a failure, an *oaSinkError, or ctx's
// error.
func (s *oaStream) read(ctx context.Context, r io.Reader, stall time.Duration) error {
	sr := bridge.NewSSEReader(r, oaMaxEventBytes)
	for {
		ev, err := sr.Next()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if errors.Is(err, bridge.ErrFrameTooLarge) {
				return &Error{Code: "upstream_malformed", Message: "the upstream sent an event larger than " + strconv.Itoa(oaMaxEventBytes>>20) + " MiB; is --upstream an OpenAI-compatible chat completions endpoint?"}
			}
			if s.finish != "" {
				// The answer was complete; only [DONE] (and perhaps the
				// usage) did not come.
				return s.end()
			}
			if errors.Is(err, errOABodyStall) {
				return &Error{Code: "upstream_stalled", Message: "the upstream's stream was silent for " + stall.String() + " in the middle of the answer; it may be overloaded, retry"}
			}
			msg := "the upstream's stream ended before the answer was complete"
			if err != io.EOF && !errors.Is(err, io.ErrUnexpectedEOF) {
				msg += " (" + err.Error() + ")"
			}
			return &Error{Code: "upstream_cut", Message: msg + "; retry"}
		}
		done, err := s.data(ev.Event, ev.Data)
		if err != nil {
			return err
		}
		if done {
			return s.end()
		}
	}
}

// readWhole translates a whole JSON chat completion, which an upstream
// that ignores stream: true sends instead of events.
func (s *oaStream) readWhole(ctx context.Context, r io.Reader, stall time.Duration) error {
	body, err := io.ReadAll(io.LimitReader(r, oaMaxWholeBodyBytes+1))
	if ctx.Err() != nil {
		return ctx.Err()
	}
	switch {
	case errors.Is(err, errOABodyStall):
		return &Error{Code: "upstream_stalled", Message: "the upstream's answer was silent for " + stall.String() + " before it was complete; it may be overloaded, retry"}
	case err != nil:
		return &Error{Code: "upstream_cut", Message: "the upstream's answer ended before it was complete (" + err.Error() + "); retry"}
	case len(body) > oaMaxWholeBodyBytes:
		return &Error{Code: "upstream_malformed", Message: "the upstream's answer is larger than " + strconv.Itoa(oaMaxWholeBodyBytes>>20) + " MiB"}
	}
	var c oaChunk
	if err := json.Unmarshal(body, &c); err != nil {
		return s.malformed(err)
	}
	for i := range c.Choices {
		if m := c.Choices[i].Message; m != nil {
			c.Choices[i].Delta = *m
		}
	}
	if err := s.chunk(&c); err != nil {
		return err
	}
	return s.end()
}

// data handles the data of one event. done reports [DONE].
func (s *oaStream) data(event, data string) (done bool, err error) {
	t := strings.TrimSpace(data)
	switch {
	case t == "":
		return false, nil
	case t == "[DONE]":
		return true, nil
	case event == "error":
		var c oaChunk
		if json.Unmarshal([]byte(t), &c) == nil && len(c.Error) > 0 {
			return false, s.upstreamError(c.Error)
		}
		return false, s.upstreamError(json.RawMessage(t))
	}
	var c oaChunk
	if err := json.Unmarshal([]byte(t), &c); err != nil {
		if !strings.Contains(t, "\n") {
			return false, s.malformed(err)
		}
		// Some upstreams put several chunks in one event, one per data
		// line, not separated by blank lines.
		for _, line := range strings.Split(t, "\n") {
			if done, err := s.data("", line); done || err != nil {
				return done, err
			}
		}
		return false, nil
	}
	return false, s.chunk(&c)
}

// malformed returns the error for a chunk that is not the expected JSON.
func (s *oaStream) malformed(err error) error {
	return &Error{Code: "upstream_malformed", Message: "the upstream sent a chunk that is not the expected JSON (" + err.Error() + "); is --upstream an OpenAI-compatible chat completions endpoint?"}
}

// upstreamError returns the error for an error object in the stream.
func (s *oaStream) upstreamError(e json.RawMessage) error {
	msg := oaErrorText(e)
	if msg == "" {
		msg = "no message"
	}
	msg = oaTruncate(s.red.String(strings.Join(strings.Fields(msg), " ")), oaMaxMessageChars)
	return &Error{Code: "upstream_error", Message: "the upstream reported an error during the answer: " + msg}
}

// chunk applies one chunk.
func (s *oaStream) chunk(c *oaChunk) error {
	if e := bytes.TrimSpace(c.Error); len(e) > 0 && string(e) != "null" {
		return s.upstreamError(e)
	}
	if err := s.begin(c.Model); err != nil {
		return err
	}
	if c.Usage != nil {
		s.usage = *c.Usage
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			continue
		}
		for _, text := range []*string{ch.Delta.Content, ch.Delta.Refusal} {
			if text != nil && *text != "" {
				if err := s.sendText(s.text.Write(*text)); err != nil {
					return err
				}
			}
		}
		calls := ch.Delta.ToolCalls
		if fc := ch.Delta.FunctionCall; fc != nil && len(calls) == 0 {
			zero := 0
			calls = []oaToolCallDelta{{Index: &zero, Function: *fc}}
		}
		if len(calls) > 0 {
			// The text before a tool call reaches the page before it: what
			// redaction held back is sent now, so the page's text and tool
			// cards keep the upstream's order. A key is found within one run
			// of text (between tool calls), not across a call.
			if err := s.sendText(s.text.Flush()); err != nil {
				return err
			}
		}
		for pos, d := range calls {
			if err := s.toolCall(pos, d); err != nil {
				return err
			}
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			s.finish = *ch.FinishReason
		}
	}
	return nil
}

// begin sends message_start unless it was sent.
func (s *oaStream) begin(model string) error {
	if s.begun {
		return nil
	}
	s.begun = true
	if model == "" {
		model = s.model
	}
	s.text.r = s.red
	return s.send(EventMessageStart, Event{Model: s.red.String(model)})
}

// sendText sends text as a text_delta unless it is empty.
func (s *oaStream) sendText(text string) error {
	if text == "" {
		return nil
	}
	return s.send(EventTextDelta, Event{Text: text})
}

// toolCall applies one part of a tool call, the pos-th of its chunk.
func (s *oaStream) toolCall(pos int, d oaToolCallDelta) error {
	call, err := s.callFor(pos, d)
	if err != nil {
		return err
	}
	if call.upID == "" && d.ID != "" {
		call.upID = d.ID
	}
	frag := oaFragment(d.Function.Arguments)
	if s.argBytes+len(frag) > oaMaxEventBytes {
		return &Error{Code: "upstream_malformed", Message: "the upstream sent tool call arguments larger than " + strconv.Itoa(oaMaxEventBytes>>20) + " MiB in all"}
	}
	s.argBytes += len(frag)
	call.red.r = s.red
	frag = call.red.Write(frag)
	call.out = append(call.out, frag...)
	if !call.started {
		if d.Function.Name == "" {
			return nil // wait for the name; the fragments so far follow the start
		}
		call.name = s.red.String(s.names.fromUpstream(d.Function.Name))
		call.id = s.uniqueID(call)
		call.started = true
		if err := s.send(EventToolCallStart, Event{ToolCallID: call.id, ToolName: call.name}); err != nil {
			return err
		}
		frag = string(call.out)
	}
	return s.sendArgs(call, frag)
}

// sendArgs sends frag, a redacted part of a started call's arguments, as a
// tool_call_delta unless it is empty.
func (s *oaStream) sendArgs(call *oaCall, frag string) error {
	if frag == "" {
		return nil
	}
	return s.send(EventToolCallDelta, Event{ToolCallID: call.id, ToolArgumentsDelta: frag})
}

// callFor finds or makes the call a part belongs to.
func (s *oaStream) callFor(pos int, d oaToolCallDelta) (*oaCall, error) {
	if s.calls == nil {
		s.calls = make(map[int]*oaCall)
	}
	var key int
	switch {
	case d.Index != nil:
		key = *d.Index
	case d.ID != "":
		for _, c := range s.calls {
			if c.upID == d.ID {
				return c, nil
			}
		}
		for {
			key = s.nextAuto
			s.nextAuto++
			if s.calls[key] == nil {
				break
			}
		}
	default:
		key = pos
	}
	if c := s.calls[key]; c != nil {
		return c, nil
	}
	if len(s.calls) == oaMaxToolCalls {
		return nil, &Error{Code: "upstream_malformed", Message: "the upstream sent more than " + strconv.Itoa(oaMaxToolCalls) + " tool calls in one answer"}
	}
	c := &oaCall{key: key}
	s.calls[key] = c
	return c, nil
}

// uniqueID returns the id to send for a call being started: the
// upstream's, or call_<index> when it gave none; when that is the id of a
// call started before, <id>_<index>, then <id>_<index>_2, _3, ….
func (s *oaStream) uniqueID(c *oaCall) string {
	if s.usedIDs == nil {
		s.usedIDs = make(map[string]bool)
	}
	id := s.red.String(c.upID)
	if id == "" {
		id = "call"
	}
	if c.upID == "" || s.usedIDs[id] {
		id += "_" + strconv.Itoa(c.key)
	}
	for i, base := 2, id; s.usedIDs[id]; i++ {
		id = base + "_" + strconv.Itoa(i)
	}
	s.usedIDs[id] = true
	return id
}

// oaFragment returns a part's arguments fragment as text: a JSON string
// unquoted, null as "", anything else (an object) as its JSON text.
func oaFragment(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	return string(raw)
}

// end finishes the answer: the text held back for redaction, then for
// each started call in index order its arguments held back and
// tool_call_stop, then message_stop.
func (s *oaStream) end() error {
	if err := s.begin(""); err != nil {
		return err
	}
	calls := make([]*oaCall, 0, len(s.calls))
	for _, c := range s.calls {
		if !c.started {
			return &Error{Code: "upstream_malformed", Message: "the upstream sent tool call " + strconv.Itoa(c.key) + " without a function name"}
		}
		calls = append(calls, c)
	}
	slices.SortFunc(calls, func(a, b *oaCall) int { return cmp.Compare(a.key, b.key) })
	if err := s.sendText(s.text.Flush()); err != nil {
		return err
	}
	for _, c := range calls {
		tail := c.red.Flush()
		c.out = append(c.out, tail...)
		if err := s.sendArgs(c, tail); err != nil {
			return err
		}
		if err := s.send(EventToolCallStop, Event{ToolCallID: c.id, ToolArguments: oaArguments(c.out)}); err != nil {
			return err
		}
	}
	return s.send(EventMessageStop, Event{
		StopReason:       s.stopReason(len(calls) > 0),
		PromptTokens:     s.usage.PromptTokens,
		CompletionTokens: s.usage.CompletionTokens,
		LatencyMs:        ms(time.Since(s.start)),
	})
}

// flushHeld sends what redaction still holds back, the text and the
// arguments of started calls, before the answer ends with an error: no
// text the upstream sent is lost, and none of it was the key.
func (s *oaStream) flushHeld() error {
	if !s.begun {
		return nil
	}
	if err := s.sendText(s.text.Flush()); err != nil {
		return err
	}
	keys := make([]int, 0, len(s.calls))
	for k, c := range s.calls {
		if c.started {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if err := s.sendArgs(s.calls[k], s.calls[k].red.Flush()); err != nil {
			return err
		}
	}
	return nil
}

// stopReason maps the finish_reason. The grammar says toolCall exactly
// when the answer has tool calls, so an answer with calls stops with
// toolCall whatever the upstream said (some say stop after tool calls; one
// that says length may have cut the last call's arguments, which then
// arrive without toolArguments), and one without calls never does.
func (s *oaStream) stopReason(calls bool) string {
	switch {
	case calls:
		return StopToolCall
	case s.finish == "length":
		return StopMaxTokens
	case s.finish == "content_filter":
		return StopContentFilter
	}
	return StopEndTurn
}

// oaArguments returns a call's joined fragments when they are a JSON
// object, {} when they are empty, and nil (left out) otherwise.
func oaArguments(args []byte) rawjson.Message {
	args = bytes.TrimSpace(args)
	if len(args) == 0 {
		return rawjson.Message("{}")
	}
	if args[0] != '{' || !json.Valid(args) {
		return nil
	}
	return args
}

// send sends one event, marking a failure of the sink.
func (s *oaStream) send(name string, ev Event) error {
	if err := s.sink.Send(name, ev); err != nil {
		return &oaSinkError{err: err}
	}
	return nil
}
