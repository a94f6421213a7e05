// Conversions from the session's API types to what hosts receive. A turn, a
// discovery report, a draft binding and a streamed event are session's own
// types, written by their own codecs (session's json tags); the history and
// the tool list are converted to the wire's chat shapes (wire.ChatMessage,
// wire.ToolSpec), which the chat request to the proxy uses too.

package command

import (
	"github.com/agentwasm/agentwasm/internal/rawjson"
	"github.com/agentwasm/agentwasm/internal/wire"
	"github.com/agentwasm/agentwasm/session"
)

// turnJSON is t as the reply's turn member.
func turnJSON(t session.Turn) rawjson.Message {
	b, _ := wire.Marshal(t)
	return b
}

// reportJSON is r as the reply's report member.
func reportJSON(r session.ToolDiscoveryReport) rawjson.Message {
	b, _ := wire.Marshal(r)
	return b
}

// draftJSON is d as the reply's draft member; nil leaves the member out.
func draftJSON(d *session.DraftBinding) rawjson.Message {
	if d == nil {
		return nil
	}
	b, _ := wire.Marshal(*d)
	return b
}

// messagesWire is the history as the reply's messages member.
func messagesWire(ms []session.Message) []wire.ChatMessage {
	out := make([]wire.ChatMessage, len(ms))
	for i, m := range ms {
		wm := wire.ChatMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID, ToolName: m.ToolName}
		for _, c := range m.ToolCalls {
			wm.ToolCalls = append(wm.ToolCalls, wire.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Args})
		}
		out[i] = wm
	}
	return out
}

// toolsWire is the tool list as the reply's tools member.
func toolsWire(ts []session.ToolDefinition) []wire.ToolSpec {
	out := make([]wire.ToolSpec, len(ts))
	for i, t := range ts {
		out[i] = wire.ToolSpec{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema,
			Annotations: t.Annotations, OutputSchema: t.OutputSchema}
	}
	return out
}
