// Tool names an OpenAI-compatible endpoint accepts: the mapping from the
// session's names (studio.journey.publish_map) and back.

package openai

import (
	"strconv"
	"strings"

	"github.com/agentwasm/agentwasm/internal/wire"
)

// ToolNames maps the session's tool names to names an OpenAI-compatible
// endpoint accepts, and back.
//
// Many such endpoints accept only names matching ^[a-zA-Z0-9_-]{1,64}$,
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
// mapped name in it is rewritten to the upstream name (Rewrite); the
// conversation's messages are left as they were written.
type ToolNames struct {
	up   map[string]string // session name → upstream name
	down map[string]string // upstream name → session name
	// mapped are the session names whose upstream name differs, longest
	// first (Rewrite tries a longer name before a shorter one at the same
	// place).
	mapped []string
}

// NewToolNames builds the mapping for the names req mentions.
func NewToolNames(req *wire.ChatRequest) *ToolNames {
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
	all = sortedSet(all)

	n := &ToolNames{up: make(map[string]string, len(all)), down: make(map[string]string, len(all))}
	for _, name := range all {
		if safeName(name) {
			n.up[name], n.down[name] = name, name
		}
	}
	for _, name := range all {
		if _, done := n.up[name]; done {
			continue
		}
		up := sanitize(name, 64)
		if _, taken := n.down[up]; up == "" || taken {
			base := sanitize(name, 55) + "_" + strconv.FormatUint(uint64(fnv1a(name))|1<<32, 16)[1:]
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
	// Longest first; among equals, sorted order (the order of all).
	for i := 1; i < len(n.mapped); i++ {
		for j := i; j > 0 && len(n.mapped[j]) > len(n.mapped[j-1]); j-- {
			n.mapped[j], n.mapped[j-1] = n.mapped[j-1], n.mapped[j]
		}
	}
	return n
}

// fnv1a returns the 32-bit FNV-1a hash of s.
func fnv1a(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

// sortedSet returns names sorted, each once. (An insertion sort: a request
// names few tools, and the sort package's would add kilobytes to the wasm
// modules.)
func sortedSet(names []string) []string {
	out := names[:0]
	for _, name := range names {
		i := len(out)
		for i > 0 && out[i-1] > name {
			i--
		}
		if i > 0 && out[i-1] == name {
			continue
		}
		out = append(out, "")
		copy(out[i+1:], out[i:])
		out[i] = name
	}
	return out
}

// Rewrite returns text with every whole mention of a mapped session name
// replaced by its upstream name. A mention is whole when the bytes around
// it cannot continue a tool name: the byte before is not a name byte
// (A–Z a–z 0–9 _ . -), and the byte after is not one either, or is a '.'
// or '-' that ends the sentence (followed by a byte that is not a name
// byte, or by the end). So in a prompt naming studio.journey.publish and
// studio.journey.publish_map, each is rewritten where it is meant, and
// x.studio.journey.publish, a longer name, is left alone. A pattern such
// as studio.* names no tool and is left as it is.
func (n *ToolNames) Rewrite(text string) string {
	if len(n.mapped) == 0 {
		return text
	}
	var b strings.Builder
	done := 0 // text[:done] is written to b
	for i := 0; i < len(text); {
		if i > 0 && nameByte(text[i-1]) {
			i++
			continue
		}
		hit := ""
		for _, name := range n.mapped {
			if strings.HasPrefix(text[i:], name) && mentionEnds(text, i+len(name)) {
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

// nameByte reports whether c may appear in a session tool name as Rewrite
// sees one: the upstream bytes and '.'.
func nameByte(c byte) bool { return safeByte(c) || c == '.' }

// mentionEnds reports whether a mention ending at text[end] is whole (see
// Rewrite).
func mentionEnds(text string, end int) bool {
	if end == len(text) || !nameByte(text[end]) {
		return true
	}
	if c := text[end]; c == '.' || c == '-' {
		return end+1 == len(text) || !nameByte(text[end+1])
	}
	return false
}

// ToUpstream returns the upstream name of a session tool name.
func (n *ToolNames) ToUpstream(name string) string {
	if up, ok := n.up[name]; ok {
		return up
	}
	return name
}

// FromUpstream returns the session name of an upstream tool name; n may be
// nil (no mapping).
func (n *ToolNames) FromUpstream(name string) string {
	if n != nil {
		if s, ok := n.down[name]; ok {
			return s
		}
	}
	return name
}

// safeName reports whether name matches ^[a-zA-Z0-9_-]{1,64}$.
func safeName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !safeByte(name[i]) {
			return false
		}
	}
	return true
}

// safeByte reports whether c may appear in an upstream tool name.
func safeByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// sanitize replaces each character of name outside [a-zA-Z0-9_-] with '_'
// and cuts the result to at most n bytes.
func sanitize(name string, n int) string {
	var b strings.Builder
	for _, r := range name {
		if b.Len() == n {
			break
		}
		if r < 0x80 && safeByte(byte(r)) {
			b.WriteByte(byte(r))
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}
