// The request half of the OpenAI-compatible model: a chat request in the
// shape of an OpenAI chat completions request, and the tool name mapping.

package studioproxy

import (
	"bytes"
	"encoding/json"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
)

// oaRequest is the body of POST …/v1/chat/completions.
type oaRequest struct {
	Model         string           `json:"model,omitempty"`
	Messages      []oaMessage      `json:"messages"`
	Tools         []oaTool         `json:"tools,omitempty"`
	ToolChoice    any              `json:"tool_choice,omitempty"`
	MaxTokens     int              `json:"max_tokens,omitempty"`
	Temperature   *float64         `json:"temperature,omitempty"`
	Stream        bool             `json:"stream"`
	StreamOptions *oaStreamOptions `json:"stream_options,omitempty"`
}

// oaStreamOptions asks for the usage chunk at the end of the stream.
type oaStreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// oaMessage is one message of the upstream conversation. Content is null
// for an assistant message that only calls tools.
type oaMessage struct {
	Role       string       `json:"role"`
	Content    *string      `json:"content"`
	ToolCalls  []oaToolCall `json:"tool_calls,omitempty"`
	ToolCallID string       `json:"tool_call_id,omitempty"`
}

// oaToolCall is a tool call of an assistant message in the history.
type oaToolCall struct {
	ID       string         `json:"id"`
	Type     string         `json:"type"`
	Function oaFunctionCall `json:"function"`
}

// oaFunctionCall names the function a history tool call called; Arguments
// is JSON text, as a string.
type oaFunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// oaTool is an advertised tool.
type oaTool struct {
	Type     string     `json:"type"`
	Function oaFunction `json:"function"`
}

// oaFunction describes an advertised function; Parameters is its JSON
// schema.
type oaFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// oaNamedToolChoice forces one function.
type oaNamedToolChoice struct {
	Type     string           `json:"type"`
	Function oaToolChoiceName `json:"function"`
}

// oaToolChoiceName names the forced function.
type oaToolChoiceName struct {
	Name string `json:"name"`
}

// oaEmptySchema is the parameters of a tool without an input schema.
var oaEmptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// oaBuildRequest translates req for the upstream. defaultModel is used when
// req names no model. It returns the body and the tool name mapping the
// answer is read back with, or a bad_request *Error.
func oaBuildRequest(req *ChatRequest, defaultModel string) (*oaRequest, *oaToolNames, error) {
	names := oaNewToolNames(req)
	out := &oaRequest{
		Model:         req.Model,
		MaxTokens:     req.MaxTokens,
		Temperature:   req.Temperature,
		Stream:        true,
		StreamOptions: &oaStreamOptions{IncludeUsage: true},
		Messages:      make([]oaMessage, 0, len(req.Messages)+1),
	}
	if out.Model == "" {
		out.Model = defaultModel
	}
	if out.MaxTokens < 0 {
		out.MaxTokens = 0
	}
	if req.System != "" {
		out.Messages = append(out.Messages, oaMessage{Role: "system", Content: oaText(names.rewrite(req.System))})
	}
	for i, msg := range req.Messages {
		switch msg.Role {
		case "user":
			out.Messages = append(out.Messages, oaMessage{Role: "user", Content: oaText(msg.Content)})
		case "assistant":
			m := oaMessage{Role: "assistant", Content: oaText(msg.Content)}
			for _, tc := range msg.ToolCalls {
				m.ToolCalls = append(m.ToolCalls, oaToolCall{
					ID:       tc.ID,
					Type:     "function",
					Function: oaFunctionCall{Name: names.toUpstream(tc.Name), Arguments: oaArgumentsText(tc.Arguments)},
				})
			}
			if msg.Content == "" && len(m.ToolCalls) > 0 {
				m.Content = nil
			}
			out.Messages = append(out.Messages, m)
		case "tool":
			out.Messages = append(out.Messages, oaMessage{Role: "tool", Content: oaText(msg.Content), ToolCallID: msg.ToolCallID})
		default:
			return nil, nil, &Error{Code: "bad_request", Message: "message " + strconv.Itoa(i) + " has role " + quote(msg.Role) + "; want user, assistant or tool"}
		}
	}
	for _, t := range req.Tools {
		params := json.RawMessage(bytes.TrimSpace(t.InputSchema))
		if len(params) == 0 || string(params) == "null" {
			params = oaEmptySchema
		}
		out.Tools = append(out.Tools, oaTool{
			Type:     "function",
			Function: oaFunction{Name: names.toUpstream(t.Name), Description: t.Description, Parameters: params},
		})
	}
	if tc := req.ToolChoice; tc != nil {
		switch tc.Mode {
		case "":
		case "auto", "none", "required":
			out.ToolChoice = tc.Mode
		case "specific":
			if tc.ToolName == "" {
				return nil, nil, &Error{Code: "bad_request", Message: "the tool choice is specific but names no tool; set toolChoice.toolName"}
			}
			out.ToolChoice = oaNamedToolChoice{Type: "function", Function: oaToolChoiceName{Name: names.toUpstream(tc.ToolName)}}
		default:
			return nil, nil, &Error{Code: "bad_request", Message: "the tool choice mode " + quote(tc.Mode) + " is not auto, none, required or specific"}
		}
	}
	return out, names, nil
}

// oaText returns a pointer to s.
func oaText(s string) *string { return &s }

// oaArgumentsText returns a history tool call's arguments as the JSON text
// the upstream wants: compacted, "{}" when absent or null, and unquoted when
// the session stored them as a JSON string.
func oaArgumentsText(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "{}"
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) == nil {
		return b.String()
	}
	return string(raw)
}

// oaToolNames maps the session's tool names to names an OpenAI-compatible
// upstream accepts, and back.
//
// Many such upstreams accept only names matching ^[a-zA-Z0-9_-]{1,64}$,
// while the session's tools may hold other characters, dots above all
// (studio.journey.publish_map). The mapping is built for each request from
// every tool name it mentions (advertised tools, the tool calls of its
// history and a specific tool choice):
//
//   - a name that already matches is sent as it is, and is reserved first;
//   - every other name, taken in sorted order, has each character outside
//     [a-zA-Z0-9_-] replaced by '_' and is cut to 64 bytes
//     (studio.journey.publish_map becomes studio_journey_publish_map);
//   - when that is empty or already taken, it is cut to 55 bytes and gets
//     '_' and the 8 hex digits of the 32-bit FNV-1a hash of the original
//     name; when even that is taken, '_' and a counter instead.
//
// No two names share an upstream name, so the mapping is injective and
// names in the answer map back through it. A name it does not know (a tool
// the model made up) comes back as it is.
//
// The system prompt names tools too ("call studio.journey.publish_map"),
// and the model sees only the upstream names, so each whole mention of a
// mapped name in it is rewritten to the upstream name (rewrite); the
// conversation's messages are left as they were written.
type oaToolNames struct {
	up   map[string]string // session name → upstream name
	down map[string]string // upstream name → session name
	// mapped are the session names whose upstream name differs, longest
	// first (rewrite tries a longer name before a shorter one at the same
	// place).
	mapped []string
}

// oaNewToolNames builds the mapping for the names req mentions.
func oaNewToolNames(req *ChatRequest) *oaToolNames {
	var all []string
	for _, t := range req.Tools {
		all = append(all, t.Name)
	}
	for _, m := range req.Messages {
		for _, tc := range m.ToolCalls {
			all = append(all, tc.Name)
		}
	}
	if req.ToolChoice != nil && req.ToolChoice.ToolName != "" {
		all = append(all, req.ToolChoice.ToolName)
	}
	slices.Sort(all)
	all = slices.Compact(all)

	n := &oaToolNames{up: make(map[string]string, len(all)), down: make(map[string]string, len(all))}
	for _, name := range all {
		if oaSafeName(name) {
			n.up[name], n.down[name] = name, name
		}
	}
	for _, name := range all {
		if _, done := n.up[name]; done {
			continue
		}
		up := oaSanitize(name, 64)
		if _, taken := n.down[up]; up == "" || taken {
			h := fnv.New32a()
			h.Write([]byte(name))
			base := oaSanitize(name, 55) + "_" + strconv.FormatUint(uint64(h.Sum32())|1<<32, 16)[1:]
			up = base
			for i := 2; ; i++ {
				if _, taken := n.down[up]; !taken {
					break
				}
				suffix := "_" + strconv.Itoa(i)
				up = base[:min(len(base), 64-len(suffix))] + suffix
			}
		}
		n.up[name], n.down[up] = up, name
		if name != "" {
			n.mapped = append(n.mapped, name)
		}
	}
	slices.SortStableFunc(n.mapped, func(a, b string) int { return len(b) - len(a) })
	return n
}

// rewrite returns text with every whole mention of a mapped session name
// replaced by its upstream name. A mention is whole when the bytes around
// it cannot continue a tool name: the byte before is not a name byte
// (A–Z a–z 0–9 _ . -), and the byte after is not one either, or is a '.'
// or '-' that ends the sentence (followed by a byte that is not a name
// byte, or by the end). So in a prompt naming studio.journey.publish and
// studio.journey.publish_map, each is rewritten where it is meant, and
// x.studio.journey.publish, a longer name, is left alone. A pattern such
// as studio.* names no tool and is left as it is.
func (n *oaToolNames) rewrite(text string) string {
	if len(n.mapped) == 0 {
		return text
	}
	var b strings.Builder
	done := 0 // text[:done] is written to b
	for i := 0; i < len(text); {
		if i > 0 && oaNameByte(text[i-1]) {
			i++
			continue
		}
		hit := ""
		for _, name := range n.mapped {
			if strings.HasPrefix(text[i:], name) && oaMentionEnds(text, i+len(name)) {
				hit = name
				break
			}
		}
		if hit == "" {
			i++
			continue
		}
		b.WriteString(text[done:i])
		b.WriteString(n.up[hit])
		i += len(hit)
		done = i
	}
	if done == 0 {
		return text
	}
	b.WriteString(text[done:])
	return b.String()
}

// oaNameByte reports whether c may appear in a session tool name as
// rewrite sees one: the upstream bytes and '.'.
func oaNameByte(c byte) bool { return oaSafeByte(c) || c == '.' }

// oaMentionEnds reports whether a mention ending at text[end] is whole
// (see rewrite).
func oaMentionEnds(text string, end int) bool {
	if end == len(text) || !oaNameByte(text[end]) {
		return true
	}
	if c := text[end]; c == '.' || c == '-' {
		return end+1 == len(text) || !oaNameByte(text[end+1])
	}
	return false
}

// toUpstream returns the upstream name of a session tool name.
func (n *oaToolNames) toUpstream(name string) string {
	if up, ok := n.up[name]; ok {
		return up
	}
	return name
}

// fromUpstream returns the session name of an upstream tool name.
func (n *oaToolNames) fromUpstream(name string) string {
	if n != nil {
		if s, ok := n.down[name]; ok {
			return s
		}
	}
	return name
}

// oaSafeName reports whether name matches ^[a-zA-Z0-9_-]{1,64}$.
func oaSafeName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !oaSafeByte(name[i]) {
			return false
		}
	}
	return true
}

// oaSafeByte reports whether c may appear in an upstream tool name.
func oaSafeByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// oaSanitize replaces each character of name outside [a-zA-Z0-9_-] with
// '_' and cuts the result to at most n bytes.
func oaSanitize(name string, n int) string {
	var b strings.Builder
	for _, r := range name {
		if b.Len() == n {
			break
		}
		if r < 0x80 && oaSafeByte(byte(r)) {
			b.WriteByte(byte(r))
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}
