// The terminal printer of agentwasm chat: text as it streams, each round's
// text on lines of its own, one line per tool call with its arguments,
// excerpts of results.

package main

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/agentwasm/agentwasm/session"
)

// chatPrinter writes a turn to a terminal as it happens. Events can come
// from the discovery pass's goroutine too, so it locks.
type chatPrinter struct {
	mu       sync.Mutex
	w        io.Writer
	midLine  bool              // the last write did not end a line
	rounds   int               // messageStart events seen: the model rounds begun
	newRound bool              // a round began and has written no text yet
	args     map[string]string // a call's arguments by tool call id, until its result is printed
	// key is the --openai-url endpoint's key, which the printed text never
	// shows; held is the end of the text so far that could be the start of
	// it, written once the next text shows it is not.
	key, held string
}

// stream takes one streamed event of the chat: a round's start, a text
// delta, or a tool call's arguments (the fragments of its toolCallDelta
// events, or its toolCallStop's parsed arguments, which win).
func (p *chatPrinter) stream(typ, text, toolCallID, argsDelta string, args []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch typ {
	case session.EventMessageStart:
		p.flushHeld()
		p.rounds++
		p.newRound = p.rounds > 1
	case session.EventTextDelta:
		if text = p.redactText(text); text == "" {
			return
		}
		p.writeText(text)
	case session.EventToolCallDelta, session.EventToolCallStop:
		if toolCallID == "" {
			return
		}
		if p.args == nil {
			p.args = map[string]string{}
		}
		if typ == session.EventToolCallDelta {
			p.args[toolCallID] += argsDelta
		} else if len(args) > 0 {
			p.args[toolCallID] = string(args)
		}
	}
}

// planeLabel names a dispatch record's plane as the demo page does: MCP
// for a tool discovered on the MCP server, page for the session's own
// (runtime) tools; the CLI's session has no serving port, so no call is
// the page's "app port".
func planeLabel(plane string) string {
	switch plane {
	case string(session.PlaneComposition):
		return "MCP"
	case string(session.PlaneRuntime):
		return "page"
	}
	return plane
}

// writeText writes a round's text; p.mu is held.
func (p *chatPrinter) writeText(text string) {
	if p.newRound && p.midLine {
		p.write("\n") // the last round's text ends its line: rounds never run together
	}
	p.newRound = false
	p.write(text)
}

// redactText returns what of the streamed text can be written now, with
// every whole key replaced by [redacted], and holds back an end that could
// be the start of the key: the session redacts the key within each text
// event, and this catches one split across events. p.mu is held.
func (p *chatPrinter) redactText(text string) string {
	if len(p.key) < minRedactedKey {
		return text
	}
	s := redactKey(p.held+text, p.key)
	p.held = ""
	for n := min(len(p.key)-1, len(s)); n > 0; n-- {
		if strings.HasSuffix(s, p.key[:n]) {
			p.held, s = s[len(s)-n:], s[:len(s)-n]
			break
		}
	}
	return s
}

// flushHeld writes the text held back by redactText: what follows it is
// not text, so it was not the key. p.mu is held.
func (p *chatPrinter) flushHeld() {
	if p.held != "" {
		s := p.held
		p.held = ""
		p.writeText(s)
	}
}

// tool writes one tool call on its own line: its name, its arguments
// (shortened when long), its plane and its outcome.
func (p *chatPrinter) tool(d chatDispatch) {
	p.mu.Lock()
	args, ok := p.args[d.ToolCallID]
	delete(p.args, d.ToolCallID)
	p.mu.Unlock()
	if args = compactJSON([]byte(args)); !ok || args == "" {
		args = "{}"
	}
	var b strings.Builder
	b.WriteString("[tool] " + d.ToolName + " " + excerpt(args, excerptRunes) + " (" + planeLabel(d.Plane) + ") ")
	if d.OK {
		b.WriteString("ok")
	} else {
		b.WriteString("failed")
		if d.ErrorCode != "" {
			b.WriteString(" [" + d.ErrorCode + "]")
		}
	}
	if d.Draft != nil {
		b.WriteString(", draft " + d.Draft.DraftID + " at generation " + strconv.FormatInt(d.Draft.Generation, 10))
	}
	if d.RetriedAfterConflict {
		b.WriteString(", retried after a conflict")
	}
	if !d.OK && d.ErrorMessage != "" {
		b.WriteString(": " + d.ErrorMessage)
	} else if d.Content != "" {
		b.WriteString(": " + excerpt(d.Content, excerptRunes))
	}
	p.line(b.String())
}

// discovery writes a failed discovery pass on its own line.
func (p *chatPrinter) discovery(errorMessage string) {
	if errorMessage != "" {
		p.line("[discovery] failed: " + errorMessage)
	}
}

// line writes s on a line of its own.
func (p *chatPrinter) line(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flushHeld()
	if p.midLine {
		p.write("\n")
	}
	p.write(s + "\n")
}

// endLine ends the current line, if the text left one open.
func (p *chatPrinter) endLine() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flushHeld()
	if p.midLine {
		p.write("\n")
	}
}

// write writes s and flushes the writer when it buffers; p.mu is held.
func (p *chatPrinter) write(s string) {
	_, _ = io.WriteString(p.w, s)
	p.midLine = !strings.HasSuffix(s, "\n")
	if f, ok := p.w.(interface{ Flush() error }); ok {
		_ = f.Flush()
	}
}

// compactJSON returns JSON text without insignificant white space, or the
// text as it is when it is not JSON.
func compactJSON(b []byte) string {
	var out bytes.Buffer
	if json.Compact(&out, b) != nil {
		return string(b)
	}
	return out.String()
}

// excerpt returns s on one line, cut to at most n runes.
func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// plural says "1 round", "2 rounds".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// redactingWriter returns w with every occurrence of key in what is
// written replaced by [redacted]; w itself when key is too short to be a
// secret (the session's scrubber ignores such keys too). It works write by
// write: the session has already redacted its streamed text as a whole,
// and this catches a key in any line the command writes itself.
func redactingWriter(w io.Writer, key string) io.Writer {
	if len(key) < minRedactedKey {
		return w
	}
	return &redactor{w: w, key: key}
}

// minRedactedKey is the shortest key redactingWriter replaces.
const minRedactedKey = 4

// redactor is redactingWriter's writer.
type redactor struct {
	w   io.Writer
	key string
}

// Write writes p with the key replaced, and reports p as written whole.
func (r *redactor) Write(p []byte) (int, error) {
	if _, err := io.WriteString(r.w, redactKey(string(p), r.key)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush flushes the underlying writer when it buffers.
func (r *redactor) Flush() error {
	if f, ok := r.w.(interface{ Flush() error }); ok {
		return f.Flush()
	}
	return nil
}

// redactKey returns s with every occurrence of key replaced by [redacted].
func redactKey(s, key string) string {
	if len(key) < minRedactedKey {
		return s
	}
	return strings.ReplaceAll(s, key, "[redacted]")
}
