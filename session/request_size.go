// The size of a chat request, counted before it is sent: a turn never
// sends a request past Options.MaxRequestBytes (the proxy would refuse it,
// and every later turn with it), and a tool result that would take the
// next request past it, or passes Options.MaxToolResultBytes, is failed as
// its call's result instead of being kept (docs/PROTOCOL.md, Limits).

package session

import (
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/agentwasm/agentwasm/internal/limits"
)

// The defaults of the request bounds: the limits the dev proxy shares.
const (
	// DefaultMaxRequestBytes is Options.MaxRequestBytes when zero: 8 MiB,
	// the body bound of the dev server's Studio AI proxy.
	DefaultMaxRequestBytes = limits.MaxChatRequestBytes
	// DefaultMaxToolResultBytes is Options.MaxToolResultBytes when zero:
	// 2 MiB (capped at MaxRequestBytes).
	DefaultMaxToolResultBytes = limits.MaxToolResultBytes
)

// The error codes of the request bounds.
const (
	// ErrorCodeRequestTooLarge (Turn.ErrorCode): the turn's next chat
	// request would pass Options.MaxRequestBytes, so it was not sent; the
	// history is as it was before the turn.
	ErrorCodeRequestTooLarge = "request_too_large"
	// CodeResultTooLarge (DispatchRecord.ErrorCode, and the code of the
	// tool message the model reads): the tool ran, but its result passes
	// Options.MaxToolResultBytes or would take the next request past
	// Options.MaxRequestBytes, so it was not kept.
	CodeResultTooLarge = "result_too_large"
)

// ErrResultTooLarge, returned by an Executor (or matched by its error
// through errors.Is), says that the tool ran but its result was too large
// to take in at all: the call fails with CodeResultTooLarge, as a result
// past MaxToolResultBytes does. (The module's hooks return it for a page
// tool whose answer passes their read bound.)
var ErrResultTooLarge = errors.New("the tool's result is too large to send to the model")

// The fixed JSON a request, a message, a tool call and a tool spec add
// around their strings, counted high (every optional member present, a
// comma after each entry, numbers at their longest).
const (
	requestOverhead  = 256
	messageOverhead  = 64
	toolCallOverhead = 32
	toolSpecOverhead = 80
)

// stringBytes is what s takes as a JSON string as the wire encoder writes
// it (jsonw.AppendString), quotes included, counted high: an invalid byte
// counts as the six bytes of \ufffd.
func stringBytes(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
				n += 2
			case c < 0x20:
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1, r == '\u2028', r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}

// messageBytes is what m takes in a request's messages array.
func messageBytes(m *Message) int {
	n := messageOverhead + stringBytes(m.Role) + stringBytes(m.Content) + stringBytes(m.ToolCallID) + stringBytes(m.ToolName)
	for i := range m.ToolCalls {
		c := &m.ToolCalls[i]
		n += toolCallOverhead + stringBytes(c.ID) + stringBytes(c.Name) + len(objectOrEmpty(c.Args))
	}
	return n
}

// requestBytes is what req takes as the JSON body the default transport
// sends (EncodeChatRequest), counted high.
func requestBytes(req *ChatRequest) int {
	n := requestOverhead + stringBytes(req.Provider) + stringBytes(req.Model) + stringBytes(req.System)
	for i := range req.Messages {
		n += messageBytes(&req.Messages[i])
	}
	for i := range req.Tools {
		t := &req.Tools[i]
		n += toolSpecOverhead + stringBytes(t.Name) + stringBytes(t.Description) +
			len(t.InputSchema) + len(t.Annotations) + len(t.OutputSchema)
	}
	if tc := req.ToolChoice; tc != nil {
		n += stringBytes(tc.Mode) + stringBytes(tc.ToolName)
	}
	return n
}

// requestTooLarge is the outcome of a turn whose next request would pass
// MaxRequestBytes: nothing was sent.
func (s *Session) requestTooLarge(size int) *outcome {
	return &outcome{status: StatusError, code: ErrorCodeRequestTooLarge, refused: true,
		msg: "The next chat request would be about " + strconv.Itoa(size) + " bytes, over the session's bound of " +
			strconv.Itoa(s.opts.MaxRequestBytes) + " (maxRequestBytes, the proxy's own bound), so it was not sent and the " +
			"history is as it was before this turn. Send a shorter message, or reset() the conversation if it has grown this long."}
}

// fitResult returns rec as the history may keep it: unchanged when its tool
// message fits both bounds given used, the bytes the next request takes
// without it; else failed with CodeResultTooLarge, whose small rejection
// the model reads in its place. It also returns the bytes the kept message
// takes.
func (s *Session) fitResult(rec DispatchRecord, used int) (DispatchRecord, int) {
	m := Message{Role: "tool", Content: rec.Content, ToolCallID: rec.ToolCallID, ToolName: rec.ToolName}
	size := messageBytes(&m)
	content := stringBytes(rec.Content)
	o := &s.opts
	var why string
	switch {
	case content > o.MaxToolResultBytes:
		why = "over the session's bound of " + strconv.Itoa(o.MaxToolResultBytes) + " bytes for one tool result (maxToolResultBytes)"
	case used+size > o.MaxRequestBytes:
		why = "too large for the next chat request, which would pass its bound of " + strconv.Itoa(o.MaxRequestBytes) +
			" bytes (maxRequestBytes) with the conversation so far"
	default:
		return rec, size
	}
	rec = s.reject(rec, CodeResultTooLarge, "The tool "+rec.ToolName+" ran, but its result ("+strconv.Itoa(content)+
		" bytes as sent) is "+why+", so it was not kept. Ask the tool for less (a page, a filter, a summary).")
	m.Content = rec.Content
	return rec, messageBytes(&m)
}
