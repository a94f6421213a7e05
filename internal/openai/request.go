// The request half: a chat request in the proxy's terms as the body of an
// OpenAI chat completions request.

package openai

import (
	"strconv"
	"strings"

	"github.com/agentwasm/agentwasm/internal/jsonr"
	"github.com/agentwasm/agentwasm/internal/rawjson"
	"github.com/agentwasm/agentwasm/internal/wire"
)

// emptySchema is the parameters of a tool without an input schema.
const emptySchema = `{"type":"object","properties":{}}`

// BuildRequest translates req into the JSON body of POST
// …/v1/chat/completions, streamed, with the usage chunk asked for
// (stream_options.include_usage). defaultModel is sent when req names no
// model. It returns the body and the tool name mapping the answer is read
// back with, or a CodeBadRequest *Error.
//
// The system prompt becomes the first message (its mentions of mapped tool
// names rewritten, see ToolNames); an assistant message that only calls
// tools has null content; a history call's arguments are sent as the JSON
// text of an object ("{}" when absent); a tool result is a "tool" message
// with its tool_call_id.
func BuildRequest(req *wire.ChatRequest, defaultModel string) ([]byte, *ToolNames, error) {
	names := NewToolNames(req)
	out := wire.OpenAIRequest{
		Model:         req.Model,
		MaxTokens:     max(req.MaxTokens, 0),
		Temperature:   req.Temperature,
		Stream:        true,
		StreamOptions: &wire.OpenAIStreamOptions{IncludeUsage: true},
		Messages:      make([]wire.OpenAIMessage, 0, len(req.Messages)+1),
	}
	if out.Model == "" {
		out.Model = defaultModel
	}
	if req.System != "" {
		out.Messages = append(out.Messages, wire.OpenAIMessage{Role: "system", Content: text(names.Rewrite(req.System))})
	}
	for i, msg := range req.Messages {
		m := wire.OpenAIMessage{Role: msg.Role, Content: text(msg.Content)}
		switch msg.Role {
		case "user":
		case "assistant":
			for _, tc := range msg.ToolCalls {
				m.ToolCalls = append(m.ToolCalls, wire.OpenAIToolCall{
					ID:       tc.ID,
					Type:     "function",
					Function: wire.OpenAIFunctionCall{Name: names.ToUpstream(tc.Name), Arguments: argumentsText(tc.Arguments)},
				})
			}
			if msg.Content == "" && len(m.ToolCalls) > 0 {
				m.Content = rawjson.Message("null")
			}
		case "tool":
			m.ToolCallID = msg.ToolCallID
		default:
			return nil, nil, &Error{Code: CodeBadRequest, Message: "message " + strconv.Itoa(i) + " has role " + strconv.Quote(msg.Role) + "; want user, assistant or tool"}
		}
		out.Messages = append(out.Messages, m)
	}
	for _, t := range req.Tools {
		params := rawjson.Message(jsonr.TrimSpace(t.InputSchema))
		if len(params) == 0 || string(params) == "null" {
			params = rawjson.Message(emptySchema)
		}
		out.Tools = append(out.Tools, wire.OpenAITool{
			Type:     "function",
			Function: wire.OpenAIFunction{Name: names.ToUpstream(t.Name), Description: t.Description, Parameters: params},
		})
	}
	if tc := req.ToolChoice; tc != nil {
		switch tc.Mode {
		case "":
		case "auto", "none", "required":
			out.ToolChoice = rawjson.Message(`"` + tc.Mode + `"`)
		case "specific":
			if tc.ToolName == "" {
				return nil, nil, &Error{Code: CodeBadRequest, Message: "the tool choice is specific but names no tool; set toolChoice.toolName"}
			}
			out.ToolChoice = rawjson.Message(`{"type":"function","function":{"name":` + string(wire.EncodeString(names.ToUpstream(tc.ToolName))) + `}}`)
		default:
			return nil, nil, &Error{Code: CodeBadRequest, Message: "the tool choice mode " + strconv.Quote(tc.Mode) + " is not auto, none, required or specific"}
		}
	}
	body, err := wire.Marshal(out)
	if err != nil {
		return nil, nil, &Error{Code: CodeBadRequest, Message: "the chat request could not be encoded: " + err.Error()}
	}
	return body, names, nil
}

// text returns s as a JSON string.
func text(s string) rawjson.Message { return wire.EncodeString(s) }

// argumentsText returns a history tool call's arguments as the JSON text
// an endpoint wants: compacted, "{}" when absent or null, and unquoted when
// they were stored as a JSON string.
func argumentsText(raw []byte) string {
	raw = jsonr.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "{}"
	}
	if raw[0] == '"' {
		if s, err := wire.DecodeString(raw); err == nil {
			return s
		}
	}
	if !wire.Valid(raw) {
		return string(raw)
	}
	return string(compact(raw))
}

// compact returns valid JSON text without the whitespace between its
// tokens.
func compact(raw []byte) []byte {
	out := make([]byte, 0, len(raw))
	in := false // inside a string
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case in && c == '\\':
			out = append(out, c, raw[i+1])
			i++
			continue
		case c == '"':
			in = !in
		case !in && (c == ' ' || c == '\t' || c == '\r' || c == '\n'):
			continue
		}
		out = append(out, c)
	}
	return out
}

// ChatPath returns the path of the chat completions endpoint under a base
// path: "/v1/chat/completions" appended, except that a path already ending
// in /chat/completions is kept and one ending in /v1 only gets
// "/chat/completions". Trailing slashes are dropped first.
func ChatPath(base string) string {
	p := strings.TrimRight(base, "/")
	switch {
	case strings.HasSuffix(p, "/chat/completions"):
		return p
	case strings.HasSuffix(p, "/v1"):
		return p + "/chat/completions"
	}
	return p + "/v1/chat/completions"
}
