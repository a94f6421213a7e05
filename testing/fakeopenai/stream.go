// The answer: proxy-grammar events encoded as OpenAI chat.completion.chunk
// data lines in one of the shapes, or, for a request that did not ask to
// stream, gathered into one chat.completion object.

package fakeopenai

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/agentwasm/agentwasm/internal/wire"
)

// eventNames maps the camelCase event types to the grammar's names.
var eventNames = map[string]string{
	"messageStart":  EventMessageStart,
	"textDelta":     EventTextDelta,
	"toolCallStart": EventToolCallStart,
	"toolCallDelta": EventToolCallDelta,
	"toolCallStop":  EventToolCallStop,
	"messageStop":   EventMessageStop,
}

// eventName is name as one of the grammar's names.
func eventName(name string) string {
	if n, ok := eventNames[name]; ok {
		return n
	}
	return name
}

// FinishReason is the OpenAI finish_reason for a proxy stop reason:
// toolCall is tool_calls, maxTokens length, contentFilter content_filter,
// anything else stop.
func FinishReason(stopReason string) string {
	switch stopReason {
	case "toolCall":
		return "tool_calls"
	case "maxTokens":
		return "length"
	case "contentFilter":
		return "content_filter"
	}
	return "stop"
}

// chunk is one chat.completion.chunk.
type chunk struct {
	ID      string   `json:"id"`
	Object  string   `json:"object"`
	Created int64    `json:"created"`
	Model   string   `json:"model"`
	Choices []choice `json:"choices"`
	Usage   *usage   `json:"usage,omitempty"`
}

// choice is the one choice of a chunk.
type choice struct {
	Index        int     `json:"index"`
	Delta        delta   `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

// delta is what a chunk adds to the message.
type delta struct {
	Role      string          `json:"role,omitempty"`
	Content   *string         `json:"content,omitempty"`
	ToolCalls []toolCallDelta `json:"tool_calls,omitempty"`
}

// toolCallDelta is one part of a tool call.
type toolCallDelta struct {
	Index    int           `json:"index"`
	ID       string        `json:"id,omitempty"`
	Type     string        `json:"type,omitempty"`
	Function functionDelta `json:"function"`
}

// functionDelta is the function part of a tool call's part.
type functionDelta struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

// usage is the token usage.
type usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	TotalTokens      int64 `json:"total_tokens"`
}

// call is a tool call being streamed.
type call struct {
	index    int
	id, name string
	args     string // the argument fragments so far
}

// errCut is what emit returns once an injected cut stopped the stream.
var errCut = errors.New("fakeopenai: the stream was cut (an injected failure)")

// errEnded is what emit returns after the terminal event.
var errEnded = errors.New("fakeopenai: the answer already ended with message_stop or error")

// encoder turns one answer's events into data lines.
type encoder struct {
	shape        Shape
	id, model    string
	created      int64
	includeUsage bool
	write        func(data []byte) error // one data line's payload

	started bool
	ended   bool
	calls   map[string]*call
}

// chunk is a chunk of this answer with d and finish.
func (e *encoder) chunk(d delta, finish string) chunk {
	c := chunk{ID: e.id, Object: "chat.completion.chunk", Created: e.created, Model: e.model, Choices: []choice{{Delta: d}}}
	if finish != "" {
		c.Choices[0].FinishReason = &finish
	}
	return c
}

// send writes one chunk.
func (e *encoder) send(c chunk) error {
	b, _ := json.Marshal(c) // a chunk always marshals
	return e.write(b)
}

// start sends the first chunk, with the role, once.
func (e *encoder) start() error {
	if e.started {
		return nil
	}
	e.started = true
	empty := ""
	return e.send(e.chunk(delta{Role: "assistant", Content: &empty}, ""))
}

// emit encodes one event.
func (e *encoder) emit(name string, ev wire.StreamEvent) error {
	if e.ended {
		return errEnded
	}
	name = eventName(name)
	if name == EventError {
		e.ended = true
		code := ev.ErrorCode
		if code == "" {
			code = "server_error"
		}
		b, _ := json.Marshal(map[string]apiError{"error": {Message: ev.ErrorMessage, Type: "server_error", Code: code}})
		return e.write(b)
	}
	if name == EventMessageStart && ev.Model != "" && !e.started {
		e.model = ev.Model
	}
	if err := e.start(); err != nil {
		return err
	}
	whole := e.shape == ShapeWholeCalls
	switch name {
	case EventMessageStart:
		return nil
	case EventTextDelta:
		if ev.Text == "" {
			return nil
		}
		text := ev.Text
		return e.send(e.chunk(delta{Content: &text}, ""))
	case EventToolCallStart:
		if e.calls == nil {
			e.calls = map[string]*call{}
		}
		c := &call{index: len(e.calls), id: ev.ToolCallID, name: ev.ToolName}
		e.calls[ev.ToolCallID] = c
		if whole {
			return nil
		}
		return e.send(e.chunk(delta{ToolCalls: []toolCallDelta{{Index: c.index, ID: c.id, Type: "function", Function: functionDelta{Name: c.name}}}}, ""))
	case EventToolCallDelta:
		c, ok := e.calls[ev.ToolCallID]
		if !ok {
			return errors.New("fakeopenai: tool_call_delta for " + strconv.Quote(ev.ToolCallID) + ", which did not start")
		}
		c.args += ev.ToolArgumentsDelta
		if whole || ev.ToolArgumentsDelta == "" {
			return nil
		}
		return e.send(e.chunk(delta{ToolCalls: []toolCallDelta{{Index: c.index, Function: functionDelta{Arguments: ev.ToolArgumentsDelta}}}}, ""))
	case EventToolCallStop:
		c, ok := e.calls[ev.ToolCallID]
		if !ok {
			return errors.New("fakeopenai: tool_call_stop for " + strconv.Quote(ev.ToolCallID) + ", which did not start")
		}
		full := c.args
		if len(ev.ToolArguments) > 0 {
			full = string(ev.ToolArguments)
		}
		if full == "" {
			full = "{}"
		}
		if whole {
			return e.send(e.chunk(delta{ToolCalls: []toolCallDelta{{Index: c.index, ID: c.id, Type: "function", Function: functionDelta{Name: c.name, Arguments: full}}}}, ""))
		}
		if c.args != "" {
			return nil // the fragments carried the arguments
		}
		return e.send(e.chunk(delta{ToolCalls: []toolCallDelta{{Index: c.index, Function: functionDelta{Arguments: full}}}}, ""))
	case EventMessageStop:
		e.ended = true
		u := &usage{PromptTokens: ev.PromptTokens, CompletionTokens: ev.CompletionTokens, TotalTokens: ev.PromptTokens + ev.CompletionTokens}
		last := e.chunk(delta{}, FinishReason(ev.StopReason))
		if whole && e.includeUsage {
			last.Usage = u
		}
		if err := e.send(last); err != nil {
			return err
		}
		if !whole && e.includeUsage {
			c := chunk{ID: e.id, Object: "chat.completion.chunk", Created: e.created, Model: e.model, Choices: []choice{}, Usage: u}
			if err := e.send(c); err != nil {
				return err
			}
		}
		if e.shape == ShapeNoDone {
			return nil
		}
		return e.write([]byte("[DONE]"))
	}
	return errors.New("fakeopenai: unknown event " + strconv.Quote(name))
}

// stream answers a streaming request.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, in decoded, n int, answer Answer, fail *Failure) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	lines, cut := 0, false
	e := &encoder{shape: s.opts.Shape, id: "chatcmpl-fake-" + strconv.Itoa(n), model: in.chat.Model, created: s.opts.Created, includeUsage: in.includeUsage}
	if e.model == "" {
		e.model = "fake-model"
	}
	e.write = func(data []byte) error {
		if cut {
			return errCut
		}
		if _, err := w.Write(append(append([]byte("data: "), data...), "\n\n"...)); err != nil {
			return err
		}
		_ = rc.Flush()
		lines++
		if fail != nil && lines >= fail.CutAfter {
			cut = true
		}
		return nil
	}
	err := answer(r.Context(), in.chat, e.emit)
	if cut {
		if fail.Abort {
			panic(http.ErrAbortHandler)
		}
		return
	}
	if e.ended || r.Context().Err() != nil {
		return
	}
	msg := "the model ended its answer without message_stop or error"
	if err != nil {
		msg = err.Error()
	}
	_ = e.emit(EventError, wire.StreamEvent{ErrorMessage: msg, ErrorCode: "server_error"})
}

// completion is a chat.completion, the answer to a request that did not
// ask to stream.
type completion struct {
	ID      string             `json:"id"`
	Object  string             `json:"object"`
	Created int64              `json:"created"`
	Model   string             `json:"model"`
	Choices []completionChoice `json:"choices"`
	Usage   usage              `json:"usage"`
}

// completionChoice is the one choice of a completion.
type completionChoice struct {
	Index        int               `json:"index"`
	Message      completionMessage `json:"message"`
	FinishReason string            `json:"finish_reason"`
}

// completionMessage is the assistant's whole message.
type completionMessage struct {
	Role      string           `json:"role"`
	Content   *string          `json:"content"`
	ToolCalls []completionCall `json:"tool_calls,omitempty"`
}

// completionCall is one whole tool call of a completion.
type completionCall struct {
	ID       string        `json:"id"`
	Type     string        `json:"type"`
	Function functionDelta `json:"function"`
}

// complete answers a request that did not ask to stream: the whole answer
// in one chat.completion, or an error status when the model failed.
func (s *Server) complete(w http.ResponseWriter, r *http.Request, in decoded, n int, answer Answer) {
	// The stream's chunks, gathered.
	var chunks []chunk
	var failed *apiError
	e := &encoder{shape: ShapeWholeCalls, id: "chatcmpl-fake-" + strconv.Itoa(n), model: in.chat.Model, created: s.opts.Created, includeUsage: true}
	if e.model == "" {
		e.model = "fake-model"
	}
	e.write = func(data []byte) error {
		var c struct {
			chunk
			Error *apiError `json:"error"`
		}
		if string(data) == "[DONE]" {
			return nil
		}
		_ = json.Unmarshal(data, &c)
		if c.Error != nil {
			failed = c.Error
			return nil
		}
		chunks = append(chunks, c.chunk)
		return nil
	}
	err := answer(r.Context(), in.chat, e.emit)
	if failed == nil && !e.ended {
		msg := "the model ended its answer without message_stop or error"
		if err != nil {
			msg = err.Error()
		}
		failed = &apiError{Message: msg, Type: "server_error", Code: "server_error"}
	}
	if failed != nil {
		writeError(w, http.StatusInternalServerError, failed.Type, failed.Code, failed.Message)
		return
	}
	out := completion{ID: e.id, Object: "chat.completion", Created: e.created, Model: e.model}
	msg := completionMessage{Role: "assistant"}
	text, finish := "", "stop"
	for _, c := range chunks {
		if c.Usage != nil {
			out.Usage = *c.Usage
		}
		for _, ch := range c.Choices {
			if ch.Delta.Content != nil {
				text += *ch.Delta.Content
			}
			for _, tc := range ch.Delta.ToolCalls { // whole calls: the shape gathered
				msg.ToolCalls = append(msg.ToolCalls, completionCall{ID: tc.ID, Type: tc.Type, Function: tc.Function})
			}
			if ch.FinishReason != nil {
				finish = *ch.FinishReason
			}
		}
	}
	if text != "" || len(msg.ToolCalls) == 0 {
		msg.Content = &text
	}
	out.Choices = []completionChoice{{Message: msg, FinishReason: finish}}
	b, _ := json.Marshal(out)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}
