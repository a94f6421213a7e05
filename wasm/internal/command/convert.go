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

// turnReply answers ok with t as the reply's turn member.
func turnReply(t session.Turn) *wire.Reply {
	b, err := wire.Marshal(t)
	return encoded(b, err, func(r *wire.Reply, b rawjson.Message) { r.Turn = b })
}

// reportReply answers ok with rep as the reply's report member.
func reportReply(rep session.ToolDiscoveryReport) *wire.Reply {
	b, err := wire.Marshal(rep)
	return encoded(b, err, func(r *wire.Reply, b rawjson.Message) { r.Report = b })
}

// draftReply answers ok with d as the reply's draft member; nil leaves the
// member out.
func draftReply(d *session.DraftBinding) *wire.Reply {
	if d == nil {
		return &wire.Reply{OK: true}
	}
	b, err := wire.Marshal(*d)
	return encoded(b, err, func(r *wire.Reply, b rawjson.Message) { r.Draft = b })
}

// encoded answers ok with the member fill sets to b, or, when the value
// could not be encoded (only a non-finite number can make it fail), the
// same internal failure encode answers for a reply that cannot be encoded.
func encoded(b rawjson.Message, err error, fill func(*wire.Reply, rawjson.Message)) *wire.Reply {
	if err != nil {
		return failure(CodeInternal, "agentwasm: could not encode the reply: "+err.Error())
	}
	r := &wire.Reply{OK: true}
	fill(r, b)
	return r
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
