// Conversions from the session's API types to the wire types hosts receive.

package command

import (
	"github.com/agentwasm/agentwasm/internal/wire"
	"github.com/agentwasm/agentwasm/session"
)

func streamEventWire(e session.StreamEvent) wire.StreamEvent {
	return wire.StreamEvent{
		Type:               e.Type,
		Model:              e.Model,
		Text:               e.Text,
		ToolCallID:         e.ToolCallID,
		ToolName:           e.ToolName,
		ToolArgumentsDelta: e.ToolArgumentsDelta,
		ToolArguments:      []byte(e.ToolArguments),
		StopReason:         e.StopReason,
		PromptTokens:       e.PromptTokens,
		CompletionTokens:   e.CompletionTokens,
		LatencyMs:          e.LatencyMs,
		ErrorMessage:       e.ErrorMessage,
		ErrorCode:          e.ErrorCode,
	}
}

func eventWire(ev session.Event) *wire.SessionEvent {
	out := &wire.SessionEvent{Type: string(ev.Type)}
	if ev.Chat != nil {
		se := streamEventWire(*ev.Chat)
		out.Event = &se
	}
	if ev.Result != nil {
		r := dispatchWire(*ev.Result)
		out.Result = &r
	}
	if ev.Discovery != nil {
		out.Report = reportWire(*ev.Discovery)
	}
	if st := ev.Step; st != nil {
		out.Step = &wire.Step{Round: st.Round, Text: st.Text, ToolCalls: make([]wire.DispatchRecord, len(st.ToolCalls)),
			StopReason: st.StopReason, Usage: usageWire(st.Usage)}
		for i, r := range st.ToolCalls {
			out.Step.ToolCalls[i] = dispatchWire(r)
		}
	}
	out.Status, out.Detail = ev.WatchStatus, ev.WatchDetail
	return out
}

func draftWire(d *session.DraftBinding) *wire.Draft {
	if d == nil {
		return nil
	}
	return &wire.Draft{DraftID: d.DraftID, Generation: d.Generation}
}

func reportWire(r session.ToolDiscoveryReport) *wire.DiscoveryReport {
	out := &wire.DiscoveryReport{
		Discovered: r.Discovered, Pages: r.Pages, Routed: orEmpty(r.Routed),
		Classification: wire.DiscoveryClassCounts{Families: mapOrEmpty(r.Classification.Families),
			Views: mapOrEmpty(r.Classification.Views), Revisions: mapOrEmpty(r.Classification.Revisions)},
		Rejected:        []wire.DiscoveryRejection{},
		MissingRequired: orEmpty(r.MissingRequired), Diagnostics: orEmpty(r.Diagnostics),
		ErrorMessage: r.ErrorMessage, Degraded: r.Degraded,
	}
	for _, j := range r.Rejected {
		wr := wire.DiscoveryRejection{Name: j.Name, Reason: j.Reason, Detail: j.Detail}
		if c := j.Classification; c != nil {
			wr.Classification = &wire.StudioClassification{Family: c.Family, View: c.View}
			if c.Revision != "" {
				wr.Classification.Revision = wire.EncodeString(c.Revision)
			}
		}
		out.Rejected = append(out.Rejected, wr)
	}
	return out
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func mapOrEmpty(m map[string]int) map[string]int {
	if m == nil {
		return map[string]int{}
	}
	return m
}

func dispatchWire(r session.DispatchRecord) wire.DispatchRecord {
	out := wire.DispatchRecord{
		ToolCallID: r.ToolCallID, ToolName: r.ToolName, Plane: string(r.Plane), OK: r.OK,
		ErrorCode: r.ErrorCode, ErrorMessage: r.ErrorMessage, Content: r.Content,
		RetriedAfterConflict: r.RetriedAfterConflict,
	}
	out.Draft = draftWire(r.Draft)
	return out
}

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

func toolsWire(ts []session.ToolDefinition) []wire.ToolSpec {
	out := make([]wire.ToolSpec, len(ts))
	for i, t := range ts {
		out[i] = wire.ToolSpec{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema,
			Annotations: t.Annotations, OutputSchema: t.OutputSchema}
	}
	return out
}

func turnWire(t session.Turn) *wire.Turn {
	out := &wire.Turn{
		Status:       string(t.Status),
		Text:         t.Text,
		ToolCalls:    make([]wire.DispatchRecord, len(t.ToolCalls)),
		Events:       make([]wire.StreamEvent, len(t.Events)),
		StopReason:   t.StopReason,
		ErrorMessage: t.ErrorMessage,
		ErrorCode:    t.ErrorCode,
		Rounds:       t.Rounds,
	}
	for i, e := range t.Events {
		out.Events[i] = streamEventWire(e)
	}
	for i, r := range t.ToolCalls {
		out.ToolCalls[i] = dispatchWire(r)
	}
	out.Usage = usageWire(t.Usage)
	for _, p := range t.PendingApprovals {
		out.PendingApprovals = append(out.PendingApprovals, wire.PendingApproval{AskID: p.AskID, ToolCallID: p.ToolCallID,
			ToolName: p.ToolName, Action: p.Action, Detail: p.Detail})
	}
	return out
}

func usageWire(u *session.Usage) *wire.Usage {
	if u == nil {
		return nil
	}
	return &wire.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens}
}
