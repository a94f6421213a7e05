// The answer half: the chunks of a streamed chat completion (or a whole
// completion) as the proxy grammar's events.

package openai

import (
	"strconv"
	"strings"

	"github.com/agentwasm/agentwasm/internal/jsonr"
	"github.com/agentwasm/agentwasm/internal/rawjson"
	"github.com/agentwasm/agentwasm/internal/wire"
)

// Bounds of one answer, so that a hostile endpoint cannot exhaust memory.
const (
	// MaxToolCalls bounds the tool calls of one answer.
	MaxToolCalls = 128
	// MaxArgumentBytes bounds the arguments of all the tool calls of one
	// answer together.
	MaxArgumentBytes = 4 << 20
	// MaxMessageChars is about how many characters of an endpoint's own
	// error message an error quotes.
	MaxMessageChars = 300
)

// Event types of the proxy grammar, as the Type of the events a Translator
// emits (the session's StreamEvent types; the dev proxy names its frames
// after them).
const (
	EventMessageStart  = "messageStart"
	EventTextDelta     = "textDelta"
	EventToolCallStart = "toolCallStart"
	EventToolCallDelta = "toolCallDelta"
	EventToolCallStop  = "toolCallStop"
	EventMessageStop   = "messageStop"
)

// Stop reasons of messageStop.
const (
	StopEndTurn       = "endTurn"
	StopToolCall      = "toolCall"
	StopMaxTokens     = "maxTokens"
	StopContentFilter = "contentFilter"
)

// A Redactor hides a secret in everything a Translator emits: whole strings
// (model names, tool names and ids, error messages) through String, and
// text that arrives in pieces (the answer's text, each call's arguments)
// through a TextStream, which may hold back the end of a piece that could
// be the start of the secret until the next piece or Flush decides. A nil
// TextStream passes the pieces as they come.
type Redactor interface {
	String(s string) string
	NewStream() TextStream
}

// TextStream redacts one run of streamed text: Write returns what of the
// text so far can be emitted, Flush the rest.
type TextStream interface {
	Write(s string) string
	Flush() string
}

// plainText is the TextStream of a Translator without a Redactor.
type plainText struct{}

func (plainText) Write(s string) string { return s }
func (plainText) Flush() string         { return "" }

// TranslatorOptions configures a Translator.
type TranslatorOptions struct {
	// Names maps the answer's tool names back (BuildRequest's); nil maps
	// none.
	Names *ToolNames
	// Model is the requested model, named by messageStart when no chunk
	// names one.
	Model string
	// Redact, when not nil, hides a secret in everything emitted.
	Redact Redactor
	// Emit receives each event, in order, its Type one of the Event…
	// constants. An error it returns ends the translation and is returned
	// as it is.
	Emit func(ev wire.StreamEvent) error
	// Advice names the caller's settings in error messages.
	Advice Advice
}

// call is one tool call of the answer being built.
type call struct {
	key     int        // the endpoint's index
	upID    string     // the id the endpoint gave, "" while none
	id      string     // the id emitted, once started
	name    string     // the session's name of the tool
	started bool       // toolCallStart was emitted
	red     TextStream // the arguments' fragments, redacted as they come
	out     []byte     // the arguments redacted so far, emitted or (before the start) to be emitted
}

// A Translator turns one answer into events: messageStart first, then text
// deltas and tool calls as the chunks bring them, and on End each call's
// toolCallStop (its arguments whole, in index order) and messageStop with
// the stop reason and usage. Tool calls are read however the endpoint sends
// them: split across chunks, several in parallel, sent whole in one chunk,
// without index or id, or as the legacy function_call. Only the first
// choice (index 0) is read. Reasoning text, which llama.cpp, vLLM and Ollama
// send apart (reasoning_content or reasoning in the delta), is not part of
// the answer: it is left out, as is every field the chunk types do not name
// (vLLM's stop_reason, llama.cpp's timings). It is used by one goroutine.
type Translator struct {
	o        TranslatorOptions
	begun    bool       // messageStart was emitted
	text     TextStream // the answer's text, content and refusal
	finish   string     // the finish_reason, "" while none
	usage    wire.OpenAIUsage
	calls    []*call
	argBytes int // the arguments of every call so far, bounded by MaxArgumentBytes
	usedIDs  map[string]bool
	nextAuto int // the next key for a call the endpoint gave no index
}

// NewTranslator returns a Translator for one answer.
func NewTranslator(o TranslatorOptions) *Translator {
	t := &Translator{o: o}
	t.text = t.stream()
	return t
}

// stream returns a fresh TextStream.
func (t *Translator) stream() TextStream {
	if t.o.Redact != nil {
		if ts := t.o.Redact.NewStream(); ts != nil {
			return ts
		}
	}
	return plainText{}
}

// redact hides the secret in a whole string.
func (t *Translator) redact(s string) string {
	if t.o.Redact == nil {
		return s
	}
	return t.o.Redact.String(s)
}

// Finished reports whether the answer's finish_reason came: a stream that
// ends after it (without [DONE], or before the usage chunk) is complete,
// and its caller calls End.
func (t *Translator) Finished() bool { return t.finish != "" }

// Event handles the data of one server-sent event named name ("" for an
// unnamed one). done reports [DONE]: the caller then calls End.
func (t *Translator) Event(name, data string) (done bool, err error) {
	d := strings.TrimSpace(data)
	switch {
	case d == "":
		return false, nil
	case d == "[DONE]":
		return true, nil
	case name == "error":
		var c wire.OpenAIChunk
		if wire.Unmarshal([]byte(d), &c) == nil && len(c.Error) > 0 {
			return false, t.upstreamError(c.Error)
		}
		return false, t.upstreamError(rawjson.Message(d))
	case name != "" && name != "message" && !t.begun:
		return false, &Error{Code: CodeNotOpenAI, Message: "the answer is a stream of " + strconv.Quote(clean(t.redact(name), 40)) +
			" events, not of chat completion chunks; check that " + t.o.Advice.Endpoint + " names an OpenAI-compatible endpoint (its base, such as http://127.0.0.1:11434/v1)"}
	}
	var c wire.OpenAIChunk
	if err := wire.Unmarshal([]byte(d), &c); err != nil {
		if strings.IndexByte(d, '\n') < 0 {
			return false, t.malformed(err)
		}
		// Some endpoints put several chunks in one event, one per data
		// line, not separated by blank lines.
		for _, line := range strings.Split(d, "\n") {
			if done, err := t.Event("", line); done || err != nil {
				return done, err
			}
		}
		return false, nil
	}
	return false, t.chunk(&c)
}

// Whole handles a whole JSON chat completion, which an endpoint that
// ignores stream: true sends instead of events; the caller then calls End.
func (t *Translator) Whole(body []byte) error {
	var c wire.OpenAIChunk
	if err := wire.Unmarshal(body, &c); err != nil {
		return t.malformed(err)
	}
	for i := range c.Choices {
		if m := c.Choices[i].Message; m != nil {
			c.Choices[i].Delta = m
		}
	}
	return t.chunk(&c)
}

// malformed returns the error for a chunk that is not the expected JSON:
// CodeNotOpenAI for the first, CodeMalformed for a later one. The decoder's
// reason is kept, not the text it quotes ("… near offset 9 of 'sk-proj-…'"):
// that is the endpoint's own, and may begin a key it echoes, which no
// redaction of whole keys would catch.
func (t *Translator) malformed(err error) error {
	reason := err.Error()
	if i := strings.Index(reason, " of '"); i >= 0 {
		reason = reason[:i]
	}
	reason = clean(t.redact(reason), MaxMessageChars)
	if !t.begun {
		return &Error{Code: CodeNotOpenAI, Message: "the answer is not a chat completion (" + reason + "); check that " + t.o.Advice.Endpoint + " names an OpenAI-compatible endpoint"}
	}
	return &Error{Code: CodeMalformed, Message: "the endpoint sent a chunk that is not the expected JSON (" + reason + "); retry, and if it persists, the endpoint is not fully OpenAI-compatible"}
}

// upstreamError returns the error for an error object in the stream.
func (t *Translator) upstreamError(e rawjson.Message) error {
	msg := clean(t.redact(ErrorText(e)), MaxMessageChars)
	if msg == "" {
		msg = "no message"
	}
	return &Error{Code: CodeError, Message: "the upstream reported an error during the answer: " + msg}
}

// chunk applies one chunk.
func (t *Translator) chunk(c *wire.OpenAIChunk) error {
	if e := jsonr.TrimSpace(c.Error); len(e) > 0 && string(e) != "null" {
		return t.upstreamError(e)
	}
	if err := t.begin(c.Model); err != nil {
		return err
	}
	if c.Usage != nil {
		t.usage = *c.Usage
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			continue
		}
		d := ch.Delta
		if d == nil {
			d = &wire.OpenAIDelta{}
		}
		for _, s := range [2]string{d.Content, d.Refusal} {
			if err := t.sendText(t.text.Write(s)); err != nil {
				return err
			}
		}
		calls := d.ToolCalls
		if fc := d.FunctionCall; fc != nil && len(calls) == 0 {
			zero := 0
			calls = []wire.OpenAIToolCallDelta{{Index: &zero, Function: fc}}
		}
		if len(calls) > 0 {
			// The text before a tool call is emitted before it: what
			// redaction held back goes now, so text and calls keep the
			// endpoint's order. A secret is found within one run of text
			// (between tool calls), not across a call.
			if err := t.sendText(t.text.Flush()); err != nil {
				return err
			}
		}
		for pos, d := range calls {
			if err := t.toolCall(pos, d); err != nil {
				return err
			}
		}
		if ch.FinishReason != "" {
			t.finish = ch.FinishReason
		}
	}
	return nil
}

// begin emits messageStart unless it was emitted.
func (t *Translator) begin(model string) error {
	if t.begun {
		return nil
	}
	t.begun = true
	if model == "" {
		model = t.o.Model
	}
	return t.o.Emit(wire.StreamEvent{Type: EventMessageStart, Model: t.redact(model)})
}

// sendText emits text as a text delta unless it is empty.
func (t *Translator) sendText(text string) error {
	if text == "" {
		return nil
	}
	return t.o.Emit(wire.StreamEvent{Type: EventTextDelta, Text: text})
}

// toolCall applies one part of a tool call, the pos-th of its chunk.
func (t *Translator) toolCall(pos int, d wire.OpenAIToolCallDelta) error {
	c, err := t.callFor(pos, d)
	if err != nil {
		return err
	}
	if c.upID == "" && d.ID != "" {
		c.upID = d.ID
	}
	f := d.Function
	if f == nil {
		f = &wire.OpenAIFunctionDelta{}
	}
	frag := fragment(f.Arguments)
	if t.argBytes+len(frag) > MaxArgumentBytes {
		return &Error{Code: CodeMalformed, Message: "the endpoint sent tool call arguments larger than " + strconv.Itoa(MaxArgumentBytes>>20) + " MiB in all"}
	}
	t.argBytes += len(frag)
	frag = c.red.Write(frag)
	c.out = append(c.out, frag...)
	if !c.started {
		if f.Name == "" {
			return nil // wait for the name; the fragments so far follow the start
		}
		c.name = t.redact(t.o.Names.FromUpstream(f.Name))
		c.id = t.uniqueID(c)
		c.started = true
		if err := t.o.Emit(wire.StreamEvent{Type: EventToolCallStart, ToolCallID: c.id, ToolName: c.name}); err != nil {
			return err
		}
		frag = string(c.out)
	}
	return t.sendArgs(c, frag)
}

// sendArgs emits frag, a redacted part of a started call's arguments, as a
// tool call delta unless it is empty.
func (t *Translator) sendArgs(c *call, frag string) error {
	if frag == "" {
		return nil
	}
	return t.o.Emit(wire.StreamEvent{Type: EventToolCallDelta, ToolCallID: c.id, ToolArgumentsDelta: frag})
}

// callFor finds or makes the call a part belongs to: by its index; without
// one, by its id, else (a new id) the next free key; with neither, by its
// position in the chunk.
func (t *Translator) callFor(pos int, d wire.OpenAIToolCallDelta) (*call, error) {
	key := pos
	switch {
	case d.Index != nil:
		key = *d.Index
	case d.ID != "":
		for _, c := range t.calls {
			if c.upID == d.ID {
				return c, nil
			}
		}
		for t.find(t.nextAuto) != nil {
			t.nextAuto++
		}
		key = t.nextAuto
	}
	if c := t.find(key); c != nil {
		return c, nil
	}
	if len(t.calls) == MaxToolCalls {
		return nil, &Error{Code: CodeMalformed, Message: "the endpoint sent more than " + strconv.Itoa(MaxToolCalls) + " tool calls in one answer"}
	}
	c := &call{key: key, red: t.stream()}
	t.calls = append(t.calls, c)
	return c, nil
}

// find returns the call of key, or nil.
func (t *Translator) find(key int) *call {
	for _, c := range t.calls {
		if c.key == key {
			return c
		}
	}
	return nil
}

// uniqueID returns the id to emit for a call being started: the
// endpoint's, or call_<index> when it gave none; when that is the id of a
// call started before, <id>_<index>, then <id>_<index>_2, _3, ….
func (t *Translator) uniqueID(c *call) string {
	if t.usedIDs == nil {
		t.usedIDs = make(map[string]bool)
	}
	id := t.redact(c.upID)
	if id == "" {
		id = "call"
	}
	if c.upID == "" || t.usedIDs[id] {
		id += "_" + strconv.Itoa(c.key)
	}
	for i, base := 2, id; t.usedIDs[id]; i++ {
		id = base + "_" + strconv.Itoa(i)
	}
	t.usedIDs[id] = true
	return id
}

// fragment returns a part's arguments fragment as text: a JSON string
// unquoted, null as "", anything else (an object) as its JSON text.
func fragment(raw rawjson.Message) string {
	raw = jsonr.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] == '"' {
		if s, err := wire.DecodeString(raw); err == nil {
			return s
		}
	}
	return string(raw)
}

// End finishes the answer: the text held back for redaction, then for
// each started call in index order its held-back arguments and
// toolCallStop, then messageStop (LatencyMs is the caller's to set: End
// leaves it zero, and Emit may fill it in). A call that never got a name
// fails the answer with CodeMalformed.
func (t *Translator) End() error {
	if err := t.begin(""); err != nil {
		return err
	}
	calls := t.byIndex()
	for _, c := range calls {
		if !c.started {
			return &Error{Code: CodeMalformed, Message: "the endpoint sent tool call " + strconv.Itoa(c.key) + " without a function name"}
		}
	}
	if err := t.sendText(t.text.Flush()); err != nil {
		return err
	}
	for _, c := range calls {
		tail := c.red.Flush()
		c.out = append(c.out, tail...)
		if err := t.sendArgs(c, tail); err != nil {
			return err
		}
		if err := t.o.Emit(wire.StreamEvent{Type: EventToolCallStop, ToolCallID: c.id, ToolArguments: arguments(c.out)}); err != nil {
			return err
		}
	}
	return t.o.Emit(wire.StreamEvent{
		Type:             EventMessageStop,
		StopReason:       t.stopReason(len(calls) > 0),
		PromptTokens:     t.usage.PromptTokens,
		CompletionTokens: t.usage.CompletionTokens,
	})
}

// Flush emits what redaction still holds back, the text and the arguments
// of started calls, before the caller ends the answer with an error: no
// text the endpoint sent is lost, and none of it was the secret.
func (t *Translator) Flush() error {
	if !t.begun {
		return nil
	}
	if err := t.sendText(t.text.Flush()); err != nil {
		return err
	}
	for _, c := range t.byIndex() {
		if c.started {
			if err := t.sendArgs(c, c.red.Flush()); err != nil {
				return err
			}
		}
	}
	return nil
}

// byIndex returns the calls in the order of their index. (An insertion
// sort: there are few, and the sort package's would add kilobytes to the
// wasm modules.)
func (t *Translator) byIndex() []*call {
	out := append([]*call(nil), t.calls...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].key < out[j-1].key; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// stopReason maps the finish_reason. The grammar says toolCall exactly
// when the answer has tool calls, so an answer with calls stops with
// toolCall whatever the endpoint said (some say stop after tool calls; one
// that says length may have cut the last call's arguments, which then
// arrive without toolArguments), and one without calls never does.
func (t *Translator) stopReason(calls bool) string {
	switch {
	case calls:
		return StopToolCall
	case t.finish == "length":
		return StopMaxTokens
	case t.finish == "content_filter":
		return StopContentFilter
	}
	return StopEndTurn
}

// arguments returns a call's joined fragments when they are a JSON object,
// {} when they are empty, and nil (left out) otherwise.
func arguments(args []byte) rawjson.Message {
	args = jsonr.TrimSpace(args)
	if len(args) == 0 {
		return rawjson.Message("{}")
	}
	if args[0] != '{' || !wire.Valid(args) {
		return nil
	}
	return args
}
