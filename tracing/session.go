//go:build !js && !wasip1

// Session: session.Tracer made of a trace.Tracer — the spans of a turn
// (invoke_agent, chat, execute_tool, discover_tools, await_approval) and,
// through the session's MCP client, its MCP client spans (mcp.go).

package tracing

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentwasm/agentwasm/session"
)

// Session returns a session.Tracer that makes OpenTelemetry spans with
// tracer (nil: the global provider's tracer named ScopeName), for
// session.Options.Tracer:
//
//	tp := sdktrace.NewTracerProvider(…)
//	s, err := session.New(session.Options{Tracer: tracing.Session(tp.Tracer(tracing.ScopeName))})
//
// It is safe for concurrent use, and may serve several sessions.
func Session(tracer trace.Tracer, opts ...Option) session.Tracer {
	var c config
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return &sessionTracer{mcpTracer: mcpTracer{tracer: orGlobal(tracer)}, content: c.content}
}

// sessionTracer implements session.Tracer.
type sessionTracer struct {
	mcpTracer
	content bool
}

var _ session.Tracer = (*sessionTracer)(nil)

// providerName is gen_ai.provider.name: "openai" for a session that talks
// to an OpenAI-compatible endpoint itself, else its provider option, else
// the Studio AI proxy.
func providerName(provider string, direct bool) string {
	switch {
	case direct:
		return providerOpenAI
	case provider != "":
		return provider
	}
	return providerStudioProxy
}

// StartTurn starts invoke_agent: a root, or the child of the context's
// span, or — for a Resume — the child of the first await_approval it
// answers, linked to the others.
func (t *sessionTracer) StartTurn(ctx context.Context, ts session.TurnStart) (context.Context, session.TurnSpan) {
	attrs := []attribute.KeyValue{
		attribute.String(keyOperationName, spanInvokeAgent),
		attribute.String(keyProviderName, providerName(ts.Provider, ts.Direct)),
		attribute.String(keyTurnKind, ts.Kind),
	}
	if ts.Model != "" {
		attrs = append(attrs, attribute.String(keyRequestModel, ts.Model))
	}
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindInternal)}
	parented := false
	for _, a := range ts.Answers {
		w, ok := a.Wait.(*approvalSpan)
		if !ok || w == nil {
			continue
		}
		if !parented {
			ctx, parented = trace.ContextWithSpan(ctx, w.span), true
			continue
		}
		opts = append(opts, trace.WithLinks(trace.Link{SpanContext: w.span.SpanContext()}))
	}
	ctx, span := t.tracer.Start(ctx, spanInvokeAgent, append(opts, trace.WithAttributes(attrs...))...)
	return ctx, &turnSpan{t: t, ctx: ctx, span: span}
}

// turnSpan is invoke_agent.
type turnSpan struct {
	t    *sessionTracer
	ctx  context.Context
	span trace.Span
}

// Answered adds agentwasm.approval.answered.
func (s *turnSpan) Answered(askID string, approved bool) {
	s.span.AddEvent(eventApprovalAnswered, trace.WithAttributes(
		attribute.String(keyAskID, askID), attribute.Bool(keyAskApproved, approved)))
}

// Await adds agentwasm.approval.requested and starts await_approval.
func (s *turnSpan) Await(ask session.PendingApproval) session.ApprovalSpan {
	attrs := []attribute.KeyValue{
		attribute.String(keyAskID, ask.AskID),
		attribute.String(keyAskAction, ask.Action),
		attribute.String(keyToolCallID, ask.ToolCallID),
		attribute.String(keyToolName, ask.ToolName),
	}
	s.span.AddEvent(eventApprovalRequested, trace.WithAttributes(attrs...))
	name := spanAwaitApproval
	if ask.Action != "" {
		name += " " + ask.Action
	}
	_, span := s.t.tracer.Start(s.ctx, name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	return &approvalSpan{span: span}
}

// End sets the turn's status, rounds, usage, error and (with content) its
// messages, and ends it.
func (s *turnSpan) End(end session.TurnEnd) {
	turn := end.Turn
	if s.t.content && end.Text != "" {
		s.span.SetAttributes(attribute.String(keyInputMessages, messagesJSON("user", end.Text)))
	}
	s.span.SetAttributes(
		attribute.String(keyTurnStatus, string(turn.Status)),
		attribute.Int(keyTurnRounds, turn.Rounds),
	)
	if u := turn.Usage; u != nil {
		setTokens(s.span, u.InputTokens, u.OutputTokens)
	}
	if s.t.content && turn.Text != "" {
		s.span.SetAttributes(attribute.String(keyOutputMessages, messagesJSON("assistant", turn.Text)))
	}
	switch turn.Status {
	case session.StatusError, session.StatusRefused:
		setError(s.span, orOther(turn.ErrorCode), turn.ErrorMessage)
	case session.StatusCancelled:
		setError(s.span, "cancelled", turn.ErrorMessage)
	}
	s.span.End()
}

// approvalSpan is await_approval.
type approvalSpan struct {
	span trace.Span
}

// End sets agentwasm.approval.outcome and ends the wait.
func (a *approvalSpan) End(outcome string) {
	a.span.SetAttributes(attribute.String(keyAskOutcome, outcome))
	a.span.End()
}

// StartChat starts "chat {model}".
func (t *sessionTracer) StartChat(ctx context.Context, cs session.ChatStart) (context.Context, session.ChatSpan) {
	name := spanChat
	attrs := []attribute.KeyValue{
		attribute.String(keyOperationName, spanChat),
		attribute.String(keyProviderName, providerName(cs.Provider, cs.Direct)),
		attribute.Bool(keyRequestStream, true),
		attribute.Int(keyRound, cs.Round),
	}
	if cs.Model != "" {
		name += " " + cs.Model
		attrs = append(attrs, attribute.String(keyRequestModel, cs.Model))
	}
	attrs = append(attrs, serverAttrs(cs.URL)...)
	ctx, span := t.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	return ctx, &chatSpan{span: span, start: time.Now()}
}

// chatSpan is "chat {model}".
type chatSpan struct {
	span  trace.Span
	start time.Time
}

// FirstEvent sets gen_ai.response.time_to_first_chunk.
func (c *chatSpan) FirstEvent() {
	c.span.SetAttributes(attribute.Float64(keyTimeToFirstChunk, time.Since(c.start).Seconds()))
}

// End sets what the answer said and how it ended, and ends the span.
func (c *chatSpan) End(e session.ChatEnd) {
	if e.ResponseModel != "" {
		c.span.SetAttributes(attribute.String(keyResponseModel, e.ResponseModel))
	}
	if e.StopReason != "" {
		c.span.SetAttributes(attribute.StringSlice(keyFinishReasons, []string{finishReason(e.StopReason)}))
	}
	setTokens(c.span, e.InputTokens, e.OutputTokens)
	if e.ErrorType != "" {
		setError(c.span, e.ErrorType, e.ErrorMessage)
	}
	c.span.End()
}

// finishReason maps a stopReason of the proxy's grammar to the
// conventions' finish reason.
func finishReason(stop string) string {
	switch stop {
	case "endTurn":
		return "stop"
	case "toolCall":
		return "tool_calls"
	case "maxTokens":
		return "length"
	case "contentFilter":
		return "content_filter"
	}
	return stop
}

// StartTool starts "execute_tool {tool}".
func (t *sessionTracer) StartTool(ctx context.Context, ts session.ToolStart) (context.Context, session.ToolSpan) {
	attrs := []attribute.KeyValue{
		attribute.String(keyOperationName, spanExecuteTool),
		attribute.String(keyToolName, ts.Name),
		attribute.String(keyToolCallID, ts.CallID),
	}
	if t.content {
		attrs = append(attrs, attribute.String(keyToolArguments, string(ts.Arguments)))
	}
	ctx, span := t.tracer.Start(ctx, spanExecuteTool+" "+ts.Name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	return ctx, &toolSpan{span: span, content: t.content}
}

// toolSpan is "execute_tool {tool}".
type toolSpan struct {
	span    trace.Span
	content bool
}

// ConflictRetry adds agentwasm.tool.conflict_retry.
func (x *toolSpan) ConflictRetry() { x.span.AddEvent(eventConflictRetry) }

// End sets the call's plane, outcome and error, and ends the span.
func (x *toolSpan) End(rec session.DispatchRecord, askID string) {
	switch rec.Plane {
	case session.PlaneRuntime:
		x.span.SetAttributes(attribute.String(keyToolType, "function"))
	case session.PlaneComposition:
		x.span.SetAttributes(attribute.String(keyToolType, "extension"))
	}
	outcome := "ok"
	if !rec.OK {
		outcome = "error"
	}
	x.span.SetAttributes(attribute.String(keyToolPlane, string(rec.Plane)), attribute.String(keyToolOutcome, outcome))
	if rec.RetriedAfterConflict {
		x.span.SetAttributes(attribute.Bool(keyRetriedAfter, true))
	}
	if askID != "" {
		x.span.SetAttributes(attribute.String(keyAskID, askID))
	}
	if x.content {
		x.span.SetAttributes(attribute.String(keyToolResult, rec.Content))
	}
	if !rec.OK {
		setError(x.span, orOther(rec.ErrorCode), rec.ErrorMessage)
	}
	x.span.End()
}

// StartDiscovery starts discover_tools.
func (t *sessionTracer) StartDiscovery(ctx context.Context) (context.Context, session.DiscoverySpan) {
	ctx, span := t.tracer.Start(ctx, spanDiscoverTools, trace.WithSpanKind(trace.SpanKindInternal))
	return ctx, &discoverySpan{span: span}
}

// discoverySpan is discover_tools.
type discoverySpan struct {
	span trace.Span
}

// End sets what the pass found, and ends the span.
func (d *discoverySpan) End(r session.ToolDiscoveryReport) {
	d.span.SetAttributes(
		attribute.Int(keyDiscovered, r.Discovered),
		attribute.Int(keyDiscoveryRouted, len(r.Routed)),
		attribute.Int(keyDiscoveryPages, r.Pages),
	)
	if r.Degraded {
		d.span.SetAttributes(attribute.Bool(keyDiscoveryDegraded, true))
	}
	if r.ErrorMessage != "" {
		setError(d.span, "discovery_failed", r.ErrorMessage)
	}
	d.span.End()
}

// setTokens sets the usage attributes that are not 0.
func setTokens(span trace.Span, in, out int64) {
	if in != 0 {
		span.SetAttributes(attribute.Int64(keyInputTokens, in))
	}
	if out != 0 {
		span.SetAttributes(attribute.Int64(keyOutputTokens, out))
	}
}

// setError sets error.type and the ERROR status with msg.
func setError(span trace.Span, errorType, msg string) {
	span.SetAttributes(attribute.String(keyErrorType, errorType))
	span.SetStatus(codes.Error, msg)
}

// orOther is code, or _OTHER when it is empty.
func orOther(code string) string {
	if code == "" {
		return errorTypeOther
	}
	return code
}

// serverAttrs are server.address and server.port of an absolute URL (port
// only when the URL names one); none for a path or "".
func serverAttrs(raw string) []attribute.KeyValue {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return nil
	}
	attrs := []attribute.KeyValue{attribute.String(keyServerAddress, u.Hostname())}
	if p, err := strconv.Atoi(u.Port()); err == nil {
		attrs = append(attrs, attribute.Int(keyServerPort, p))
	}
	return attrs
}

// messagesJSON is the conventions' message list of one text message by
// role: [{"role":…,"parts":[{"type":"text","content":…}]}].
func messagesJSON(role, text string) string {
	type part struct {
		Type    string `json:"type"`
		Content string `json:"content"`
	}
	type message struct {
		Role  string `json:"role"`
		Parts []part `json:"parts"`
	}
	b, _ := json.Marshal([]message{{Role: role, Parts: []part{{Type: "text", Content: text}}}})
	return string(b)
}
