// The request: an OpenAI chat completions body decoded into the proxy's
// wire.ChatRequest.

package fakeopenai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentwasm/agentwasm/internal/wire"
)

// oaRequest is the part of an OpenAI chat completions request the server
// reads.
type oaRequest struct {
	Model               string          `json:"model"`
	Messages            []oaMessage     `json:"messages"`
	Tools               []oaTool        `json:"tools"`
	ToolChoice          json.RawMessage `json:"tool_choice"`
	MaxTokens           int             `json:"max_tokens"`
	MaxCompletionTokens int             `json:"max_completion_tokens"`
	Temperature         *float64        `json:"temperature"`
	Stream              bool            `json:"stream"`
	StreamOptions       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

// oaMessage is one message of the request.
type oaMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"` // a string, null, or an array of parts
	ToolCalls  []oaToolCall    `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
	Name       string          `json:"name"`
}

// oaToolCall is a tool call of an assistant message.
type oaToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// oaTool is one advertised tool.
type oaTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// decoded is a decoded request with what wire.ChatRequest does not hold.
type decoded struct {
	chat         *wire.ChatRequest
	stream       bool
	includeUsage bool
}

// DecodeRequest decodes an OpenAI chat completions body into the proxy's
// chat request: the system messages (and developer ones) joined as System,
// tool calls' arguments as raw JSON, tool messages with the name of the call
// they answer, tools as ToolSpec with InputSchema = parameters, and
// tool_choice as a ToolChoice (auto, none, required, or specific with the
// function's name).
func DecodeRequest(body []byte) (*wire.ChatRequest, error) {
	d, err := decodeRequest(body)
	if err != nil {
		return nil, err
	}
	return d.chat, nil
}

func decodeRequest(body []byte) (decoded, error) {
	var in oaRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return decoded{}, fmt.Errorf("the body is not an OpenAI chat completions request: %v", err)
	}
	if len(in.Messages) == 0 {
		return decoded{}, errors.New("messages is empty: send at least one message")
	}
	out := &wire.ChatRequest{Model: in.Model, MaxTokens: in.MaxTokens, Temperature: in.Temperature, Messages: []wire.ChatMessage{}}
	if out.MaxTokens == 0 {
		out.MaxTokens = in.MaxCompletionTokens
	}
	var system []string
	names := map[string]string{} // tool call id -> tool name
	for i, m := range in.Messages {
		text, err := contentText(m.Content)
		if err != nil {
			return decoded{}, fmt.Errorf("messages[%d].content: %v", i, err)
		}
		switch m.Role {
		case "system", "developer":
			system = append(system, text)
		case "user":
			out.Messages = append(out.Messages, wire.ChatMessage{Role: "user", Content: text})
		case "assistant":
			msg := wire.ChatMessage{Role: "assistant", Content: text}
			for j, tc := range m.ToolCalls {
				args := strings.TrimSpace(tc.Function.Arguments)
				if args == "" {
					args = "{}"
				}
				if !json.Valid([]byte(args)) {
					return decoded{}, fmt.Errorf("messages[%d].tool_calls[%d].function.arguments is not JSON: %q", i, j, tc.Function.Arguments)
				}
				names[tc.ID] = tc.Function.Name
				msg.ToolCalls = append(msg.ToolCalls, wire.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: json.RawMessage(args)})
			}
			out.Messages = append(out.Messages, msg)
		case "tool":
			name := names[m.ToolCallID]
			if name == "" {
				name = m.Name
			}
			out.Messages = append(out.Messages, wire.ChatMessage{Role: "tool", Content: text, ToolCallID: m.ToolCallID, ToolName: name})
		default:
			return decoded{}, fmt.Errorf("messages[%d].role %q is not system, developer, user, assistant or tool", i, m.Role)
		}
	}
	out.System = strings.Join(system, "\n\n")
	for i, t := range in.Tools {
		if t.Type != "" && t.Type != "function" {
			return decoded{}, fmt.Errorf("tools[%d].type %q is not function", i, t.Type)
		}
		if t.Function.Name == "" {
			return decoded{}, fmt.Errorf("tools[%d].function.name is empty", i)
		}
		out.Tools = append(out.Tools, wire.ToolSpec{Name: t.Function.Name, Description: t.Function.Description, InputSchema: t.Function.Parameters})
	}
	if tc := bytes.TrimSpace(in.ToolChoice); len(tc) > 0 && string(tc) != "null" {
		var mode string
		if json.Unmarshal(tc, &mode) == nil {
			switch mode {
			case "auto", "none", "required":
				out.ToolChoice = &wire.ToolChoice{Mode: mode}
			default:
				return decoded{}, fmt.Errorf("tool_choice %q is not auto, none or required", mode)
			}
		} else {
			var named struct {
				Function struct{ Name string } `json:"function"`
			}
			if err := json.Unmarshal(tc, &named); err != nil || named.Function.Name == "" {
				return decoded{}, fmt.Errorf("tool_choice is neither a mode nor {\"type\":\"function\",\"function\":{\"name\":…}}: %s", tc)
			}
			out.ToolChoice = &wire.ToolChoice{Mode: "specific", ToolName: named.Function.Name}
		}
	}
	d := decoded{chat: out, stream: in.Stream}
	if in.StreamOptions != nil {
		d.includeUsage = in.StreamOptions.IncludeUsage
	}
	return d, nil
}

// contentText is a message's text: a string, null, or the text parts of an
// array of parts joined.
func contentText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("neither a string nor an array of parts")
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String(), nil
}
