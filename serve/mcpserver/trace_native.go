//go:build !js && !wasip1

// The calls into Options.Tracer, native builds only (trace_wasm.go holds
// their empty wasm twins): the server span of each message, its parent
// read from params._meta or the headers, and how the message was answered.

package mcpserver

import (
	"bytes"
	"context"
	"strconv"

	"github.com/agentwasm/agentwasm/internal/jsonr"
	"github.com/agentwasm/agentwasm/internal/mcp"
	"github.com/agentwasm/agentwasm/internal/wire"
)

// traced is true in native builds: the calls into a tracer are compiled
// (trace_wasm.go has the wasm builds' false).
const traced = true

// msgTrace is the span of one message; nil when the dispatcher has no
// Tracer or the message is not traced.
type msgTrace struct {
	span   RequestSpan
	method string
}

// traceMessage starts the span of raw, one JSON-RPC message of req, when
// the dispatcher has a Tracer and raw is a well-formed request or
// notification; it returns the context to answer it with.
func traceMessage(d *Dispatcher, ctx context.Context, req Request, raw []byte) (context.Context, *msgTrace) {
	tr := d.opts.Tracer
	raw = bytes.TrimSpace(raw)
	if tr == nil || len(raw) == 0 || raw[0] != '{' || checkJSON(raw) != nil {
		return ctx, nil
	}
	msg, e := decodeMessage(raw)
	if e != nil || msg.method == "" {
		return ctx, nil
	}
	t := TracedRequest{Method: msg.method, SessionID: req.SessionID}
	if msg.id != nil {
		if msg.id[0] == '"' {
			t.ID, _ = wire.DecodeString(msg.id)
		} else {
			t.ID = string(msg.id)
		}
	}
	params, _ := wire.ObjectFields(msg.params)
	if msg.method == mcp.MethodToolsCall {
		t.ToolName, _ = wire.DecodeString(jsonr.TrimSpace(wire.GetField(params, "name")))
	}
	if meta, err := wire.ObjectFields(jsonr.TrimSpace(wire.GetField(params, mcp.KeyMeta))); err == nil {
		t.MetaTraceParent, _ = wire.DecodeString(jsonr.TrimSpace(wire.GetField(meta, "traceparent")))
		t.MetaTraceState, _ = wire.DecodeString(jsonr.TrimSpace(wire.GetField(meta, "tracestate")))
	}
	if req.Header != nil {
		t.HeaderTraceParent, _ = req.Header("traceparent")
		t.HeaderTraceState, _ = req.Header("tracestate")
	}
	m := &msgTrace{method: msg.method}
	sctx := func() (c context.Context) {
		defer func() {
			if recover() != nil {
				c, m.span = ctx, nil
			}
		}()
		c, m.span = tr.StartRequest(ctx, t)
		return c
	}()
	if sctx == nil {
		sctx = ctx
	}
	return sctx, m
}

// end ends the span with the message's answer a.
func (m *msgTrace) end(req Request, a *answer) {
	if m == nil || m.span == nil {
		return
	}
	e := RequestEnd{SessionID: req.SessionID}
	if a.sid != "" {
		e.SessionID = a.sid
	}
	if msg, ok := mcp.ReadMessage(a.body); ok {
		switch {
		case msg.Error != nil:
			e.ErrorType, e.RPCError, e.ErrorMessage = strconv.Itoa(msg.Error.Code), true, msg.Error.Message
		case m.method == mcp.MethodToolsCall:
			var r wire.MCPCallToolResult
			if wire.Unmarshal(msg.Result, &r) == nil && r.IsError {
				e.ErrorType, e.ErrorMessage = "tool_error", toolErrorText(r.Content)
			}
		}
	}
	defer func() { _ = recover() }()
	m.span.End(e)
}

// toolErrorText is the text of a tool error result's first text block.
func toolErrorText(content []byte) string {
	var blocks wire.MCPContentBlocks
	if wire.Unmarshal(content, &blocks) == nil {
		for _, b := range blocks {
			if b.Type == "text" {
				return b.Text
			}
		}
	}
	return "the tool reported an error"
}
