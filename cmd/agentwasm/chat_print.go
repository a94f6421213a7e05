// The terminal printer of agentwasm chat: text as it streams, one line per
// tool call, excerpts of results.

package main

import (
	"io"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// chatPrinter writes a turn to a terminal as it happens. Events can come
// from the discovery pass's goroutine too, so it locks.
type chatPrinter struct {
	mu      sync.Mutex
	w       io.Writer
	midLine bool // the last write did not end a line
}

// text writes one text delta and flushes it.
func (p *chatPrinter) text(s string) {
	if s == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.write(s)
}

// tool writes one tool call on its own line.
func (p *chatPrinter) tool(d chatDispatch) {
	var b strings.Builder
	b.WriteString("[tool] " + d.ToolName + " (" + d.Plane + ") ")
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
	if p.midLine {
		p.write("\n")
	}
	p.write(s + "\n")
}

// endLine ends the current line, if the text left one open.
func (p *chatPrinter) endLine() {
	p.mu.Lock()
	defer p.mu.Unlock()
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
