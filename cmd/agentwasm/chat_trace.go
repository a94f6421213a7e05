// The trace printer of agentwasm chat --trace: a turn's OpenTelemetry spans
// as a text tree, one line per span with its duration and the attributes a
// developer reads at a glance, and the turn's approval events under it.

package main

import (
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Event names of the span contract that the tree shows under their span.
const (
	eventApprovalRequested = "agentwasm.approval.requested"
	eventApprovalAnswered  = "agentwasm.approval.answered"
)

// spanKey identifies a span among the spans given.
type spanKey struct {
	trace trace.TraceID
	span  trace.SpanID
}

// traceNode is one line of the tree: a span, or an event of its parent.
type traceNode struct {
	span     sdktrace.ReadOnlySpan // nil for an event
	event    sdktrace.Event        // when span is nil
	at       time.Time             // when the span started or the event happened
	children []*traceNode
}

// writeTraceTree writes spans as a text tree: one line per span, under its
// parent, children in the order they started; a span whose parent is not
// among spans is a root, and roots come in the order they started. Each
// line has the span's name, its duration in milliseconds (one decimal;
// "unfinished" for a span not ended) and, after a colon, what the span
// contract's attributes say of it:
//
//   - invoke_agent: the turn's status (and error.type, when it says more),
//     its rounds;
//   - chat: the response model, the finish reason, the tokens in and out,
//     the time to the first chunk in milliseconds, error.type;
//   - execute_tool: the plane as the demo names it ("page" for runtime,
//     "MCP" for composition), the outcome with error.type, "retried after
//     conflict";
//   - an MCP span: its method when the name does not show it, error.type;
//   - await_approval: its action when the name does not show it, its
//     outcome;
//   - discover_tools: the tools discovered and routed, "degraded",
//     error.type;
//   - any other: error.type.
//
// A span's approval events (agentwasm.approval.requested and .answered)
// are lines under it, among its children in time order, with their moment
// since the span started.
func writeTraceTree(w io.Writer, spans []sdktrace.ReadOnlySpan) {
	index := make(map[spanKey]int, len(spans))
	for i, s := range spans {
		k := keyOf(s.SpanContext())
		if _, dup := index[k]; !dup {
			index[k] = i
		}
	}
	nodes := make([]*traceNode, len(spans))
	for i, s := range spans {
		nodes[i] = &traceNode{span: s, at: s.StartTime()}
	}
	var roots []*traceNode
	for i, s := range spans {
		p, ok := index[keyOf(s.Parent())]
		if !s.Parent().IsValid() || !ok || p == i {
			roots = append(roots, nodes[i])
			continue
		}
		nodes[p].children = append(nodes[p].children, nodes[i])
	}
	for _, n := range nodes {
		for _, ev := range n.span.Events() {
			if ev.Name == eventApprovalRequested || ev.Name == eventApprovalAnswered {
				n.children = append(n.children, &traceNode{event: ev, at: ev.Time})
			}
		}
	}
	byTime := func(a, b *traceNode) int { return a.at.Compare(b.at) }
	for _, n := range nodes {
		// Stable: a span before an event of the same moment, and spans of
		// the same moment in the order given.
		slices.SortStableFunc(n.children, byTime)
	}
	slices.SortStableFunc(roots, byTime)

	var b strings.Builder
	seen := make(map[*traceNode]bool, len(nodes))
	for _, r := range roots {
		writeTraceNode(&b, r, nil, "", "", seen)
	}
	// Spans whose parents form a loop reach no root: each loop is written
	// from its earliest span.
	rest := slices.Clone(nodes)
	slices.SortStableFunc(rest, byTime)
	for _, n := range rest {
		if !seen[n] {
			writeTraceNode(&b, n, nil, "", "", seen)
		}
	}
	_, _ = io.WriteString(w, b.String())
}

// keyOf returns the key of a span context.
func keyOf(sc trace.SpanContext) spanKey {
	return spanKey{trace: sc.TraceID(), span: sc.SpanID()}
}

// writeTraceNode writes n's line after lead and its children under it,
// their glyphs after indent; parent is n's parent span, nil for a root.
func writeTraceNode(b *strings.Builder, n *traceNode, parent sdktrace.ReadOnlySpan, lead, indent string, seen map[*traceNode]bool) {
	b.WriteString(lead)
	if n.span == nil {
		b.WriteString(oneLine(eventLine(n.event, parent)))
		b.WriteByte('\n')
		return
	}
	seen[n] = true
	b.WriteString(oneLine(spanLine(n.span)))
	b.WriteByte('\n')
	var children []*traceNode
	for _, c := range n.children {
		if c.span == nil || !seen[c] {
			children = append(children, c)
		}
	}
	for i, c := range children {
		if i == len(children)-1 {
			writeTraceNode(b, c, n.span, indent+"└─ ", indent+"   ", seen)
		} else {
			writeTraceNode(b, c, n.span, indent+"├─ ", indent+"│  ", seen)
		}
	}
}

// spanLine is a span's line: its name, its duration and what it says.
func spanLine(s sdktrace.ReadOnlySpan) string {
	line := s.Name() + " "
	if end := s.EndTime(); end.IsZero() {
		line += "unfinished"
	} else {
		line += millis(end.Sub(s.StartTime()).Seconds())
	}
	if parts := spanParts(s); len(parts) > 0 {
		line += ": " + strings.Join(parts, ", ")
	}
	return line
}

// spanParts is what a span's attributes say, by its kind in the contract.
func spanParts(s sdktrace.ReadOnlySpan) []string {
	a := attrsOf(s.Attributes())
	name := s.Name()
	errType := a.str("error.type")
	failed := errType != "" || s.Status().Code == codes.Error
	var parts []string
	switch method := a.str("mcp.method.name"); {
	case method != "":
		if name != method && !strings.HasPrefix(name, method+" ") {
			parts = append(parts, method)
		}
		if failed {
			parts = append(parts, withCode("error", errType))
		}
	case a.str("gen_ai.operation.name") == "invoke_agent":
		if status := a.str("agentwasm.turn.status"); status != "" {
			if errType == status {
				errType = ""
			}
			parts = append(parts, withCode(status, errType))
		} else if failed {
			parts = append(parts, withCode("error", errType))
		}
		if rounds, ok := a.integer("agentwasm.turn.rounds"); ok {
			parts = append(parts, plural(int(rounds), "round"))
		}
	case a.str("gen_ai.operation.name") == "chat":
		if m := a.str("gen_ai.response.model"); m != "" {
			parts = append(parts, "model "+m)
		}
		if f := a.strs("gen_ai.response.finish_reasons"); len(f) > 0 {
			parts = append(parts, "finish "+strings.Join(f, ","))
		}
		in, okIn := a.integer("gen_ai.usage.input_tokens")
		out, okOut := a.integer("gen_ai.usage.output_tokens")
		if okIn || okOut {
			parts = append(parts, "tokens "+strconv.FormatInt(in, 10)+" in / "+strconv.FormatInt(out, 10)+" out")
		}
		if ttfc, ok := a.number("gen_ai.response.time_to_first_chunk"); ok {
			parts = append(parts, "first chunk "+millis(ttfc))
		}
		if failed {
			parts = append(parts, withCode("error", errType))
		}
	case a.str("gen_ai.operation.name") == "execute_tool":
		if plane := a.str("agentwasm.tool.plane"); plane != "" {
			parts = append(parts, planeLabel(plane))
		}
		if outcome := a.str("agentwasm.tool.outcome"); outcome != "" {
			parts = append(parts, withCode(outcome, errType))
		} else if failed {
			parts = append(parts, withCode("error", errType))
		}
		if retried, _ := a.boolean("agentwasm.tool.retried_after_conflict"); retried {
			parts = append(parts, "retried after conflict")
		}
	case name == "await_approval" || strings.HasPrefix(name, "await_approval "):
		if action := a.str("agentwasm.approval.action"); action != "" && name != "await_approval "+action {
			parts = append(parts, action)
		}
		if outcome := a.str("agentwasm.approval.outcome"); outcome != "" {
			parts = append(parts, outcome)
		}
	case name == "discover_tools":
		if n, ok := a.integer("agentwasm.discovery.discovered"); ok {
			parts = append(parts, strconv.FormatInt(n, 10)+" discovered")
		}
		if n, ok := a.integer("agentwasm.discovery.routed"); ok {
			parts = append(parts, strconv.FormatInt(n, 10)+" routed")
		}
		if degraded, _ := a.boolean("agentwasm.discovery.degraded"); degraded {
			parts = append(parts, "degraded")
		}
		if failed {
			parts = append(parts, withCode("error", errType))
		}
	default:
		if failed {
			parts = append(parts, withCode("error", errType))
		}
	}
	return parts
}

// eventLine is an approval event's line, its moment counted from the start
// of the span it is on.
func eventLine(ev sdktrace.Event, on sdktrace.ReadOnlySpan) string {
	a := attrsOf(ev.Attributes)
	at := ""
	if on != nil {
		at = " at " + millis(ev.Time.Sub(on.StartTime()).Seconds())
	}
	var parts []string
	what := "approval answered"
	if ev.Name == eventApprovalRequested {
		what = "approval requested"
		if action := a.str("agentwasm.approval.action"); action != "" {
			parts = append(parts, action)
		}
	}
	if id := a.str("agentwasm.approval.ask_id"); id != "" {
		parts = append(parts, "ask "+id)
	}
	if tool := a.str("gen_ai.tool.name"); tool != "" {
		parts = append(parts, "tool "+tool)
	}
	if approved, ok := a.boolean("agentwasm.approval.approved"); ok && approved {
		parts = append(parts, "approved")
	} else if ok {
		parts = append(parts, "declined")
	}
	line := what + at
	if len(parts) > 0 {
		line += ": " + strings.Join(parts, ", ")
	}
	return line
}

// millis writes seconds as milliseconds with one decimal: "12.5 ms".
func millis(seconds float64) string {
	return strconv.FormatFloat(seconds*1000, 'f', 1, 64) + " ms"
}

// withCode is what, followed by "[code]" when there is a code.
func withCode(what, code string) string {
	if code == "" {
		return what
	}
	return what + " [" + code + "]"
}

// spanAttrs reads a span's or an event's attributes by name.
type spanAttrs map[attribute.Key]attribute.Value

// attrsOf indexes kvs.
func attrsOf(kvs []attribute.KeyValue) spanAttrs {
	a := make(spanAttrs, len(kvs))
	for _, kv := range kvs {
		a[kv.Key] = kv.Value
	}
	return a
}

// str is a string attribute ("" when absent; another type as it prints).
func (a spanAttrs) str(k string) string {
	v, ok := a[attribute.Key(k)]
	if !ok {
		return ""
	}
	if v.Type() == attribute.STRING {
		return v.AsString()
	}
	return v.String()
}

// strs is a string slice attribute (a string alone is one element).
func (a spanAttrs) strs(k string) []string {
	v, ok := a[attribute.Key(k)]
	switch {
	case !ok:
		return nil
	case v.Type() == attribute.STRINGSLICE:
		return v.AsStringSlice()
	default:
		return []string{v.String()}
	}
}

// integer is an integer attribute.
func (a spanAttrs) integer(k string) (int64, bool) {
	v, ok := a[attribute.Key(k)]
	if !ok || v.Type() != attribute.INT64 {
		return 0, false
	}
	return v.AsInt64(), true
}

// number is a number attribute (an integer one too).
func (a spanAttrs) number(k string) (float64, bool) {
	v, ok := a[attribute.Key(k)]
	switch {
	case !ok:
		return 0, false
	case v.Type() == attribute.FLOAT64:
		return v.AsFloat64(), true
	case v.Type() == attribute.INT64:
		return float64(v.AsInt64()), true
	}
	return 0, false
}

// boolean is a boolean attribute.
func (a spanAttrs) boolean(k string) (bool, bool) {
	v, ok := a[attribute.Key(k)]
	if !ok || v.Type() != attribute.BOOL {
		return false, false
	}
	return v.AsBool(), true
}
