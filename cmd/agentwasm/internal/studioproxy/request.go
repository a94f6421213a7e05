// Package studioproxy is a Studio AI proxy: the two endpoints a session
// talks to (GET {base}/v1/studio/ai/capabilities and
// POST {base}/v1/studio/ai/chat, answered as server-sent events in the
// grammar docs/PROTOCOL.md writes down), over a Model that produces the
// answer. Two models ship with it: Scripted, deterministic and offline, and
// OpenAI, which forwards to an OpenAI-compatible /v1/chat/completions
// endpoint and translates its stream. `agentwasm dev` serves it; it is
// native code (net/http) and never compiled into the module.
package studioproxy

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/agentwasm/agentwasm/internal/limits"
	"github.com/agentwasm/agentwasm/internal/wire"
)

// The wire types are the session's own (internal/wire), so what the proxy
// reads and writes cannot drift from what the session sends and reads.
type (
	// ChatRequest is the body of POST {base}/v1/studio/ai/chat, as the
	// session sends it (camelCase, unset fields omitted).
	ChatRequest = wire.ChatRequest
	// Message is one entry of the conversation: role user, assistant or
	// tool. An assistant message carries the tool calls of its round; a
	// tool message names the call it answers.
	Message = wire.ChatMessage
	// ToolCall is a call an assistant message made.
	ToolCall = wire.ToolCall
	// Tool is a tool advertised to the model.
	Tool = wire.ToolSpec
	// ToolChoice is auto, none, required, or specific (with ToolName).
	ToolChoice = wire.ToolChoice
)

// maxRequestBytes bounds a chat request body: the limit sessions share
// (limits.MaxChatRequestBytes, session.Options.MaxRequestBytes's default),
// so a session never sends a body this proxy refuses.
const maxRequestBytes = limits.MaxChatRequestBytes

// ParseChatRequest decodes and checks a chat request body: it must be a JSON
// object with a messages array whose entries have a known role.
func ParseChatRequest(body []byte) (*ChatRequest, error) {
	var req ChatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, errors.New("the chat request is not the expected JSON: " + err.Error())
	}
	if req.Messages == nil {
		return nil, errors.New("the chat request has no messages array")
	}
	for i, m := range req.Messages {
		switch m.Role {
		case "user", "assistant", "tool":
		default:
			return nil, errors.New("message " + strconv.Itoa(i) + " has role " + quote(m.Role) + "; want user, assistant or tool")
		}
	}
	return &req, nil
}

// lastUser returns the text of the last user message ("" when none).
func lastUser(r *ChatRequest) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

// hasTool reports whether a tool of that name is advertised.
func hasTool(r *ChatRequest, name string) bool {
	for _, t := range r.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return strings.TrimSpace(string(b))
}
