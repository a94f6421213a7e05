//go:build !js && !wasip1

// The calls into Config.Tracer, native builds only (trace_wasm.go holds
// their empty wasm twins): the span of each request, its trace context in
// the headers and in params._meta, and how it ended.

package mcpclient

import (
	"context"
	"errors"
	"strconv"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/internal/jsonr"
	"github.com/agentwasm/agentwasm/internal/mcp"
	"github.com/agentwasm/agentwasm/internal/rawjson"
	"github.com/agentwasm/agentwasm/internal/wire"
)

// traced is true in native builds: the calls into a tracer are compiled
// (trace_wasm.go has the wasm builds' false).
const traced = true

// reqTrace is the span of one request; nil when the client has no Tracer.
type reqTrace struct {
	span RequestSpan
}

// traceRequest starts the span of request id (0: a notification) calling
// method (name: the tool of a tools/call), whose headers are hdr, writes
// its trace context into hdr and into body's params._meta, and returns
// the context to send the request with, the body to send, and the span.
// Without a Tracer it returns ctx and body as they are, and nil.
func (c *Client) traceRequest(ctx context.Context, method, name string, id int64, hdr bridge.Header, body []byte) (context.Context, []byte, *reqTrace) {
	tr := c.cfg.Tracer
	if tr == nil {
		return ctx, body, nil
	}
	req := TracedRequest{Method: method, ToolName: name, URL: c.cfg.URL,
		SessionID: hdr.Get(mcp.HeaderSessionID), ProtocolVersion: hdr.Get(mcp.HeaderProtocolVersion)}
	if id > 0 {
		req.ID = strconv.FormatInt(id, 10)
	}
	sctx, span := startRequest(tr, ctx, req)
	kv := injectTrace(tr, sctx)
	if len(kv) == 0 {
		return sctx, body, &reqTrace{span: span}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		hdr.Set(kv[i], kv[i+1])
	}
	return sctx, withTraceMeta(body, kv...), &reqTrace{span: span}
}

// startRequest asks tr for the request's span, recovering from a panic in
// it (then the request goes on untraced, with ctx).
func startRequest(tr Tracer, ctx context.Context, req TracedRequest) (sctx context.Context, span RequestSpan) {
	defer func() {
		if recover() != nil {
			sctx, span = ctx, nil
		}
	}()
	sctx, span = tr.StartRequest(ctx, req)
	if sctx == nil {
		sctx = ctx
	}
	return sctx, span
}

// injectTrace returns the trace context tr writes for ctx, as key, value
// pairs; none after a panic in tr.
func injectTrace(tr Tracer, ctx context.Context) (kv []string) {
	defer func() {
		if recover() != nil {
			kv = nil
		}
	}()
	tr.Inject(ctx, func(key, value string) {
		if key != "" && value != "" {
			kv = append(kv, key, value)
		}
	})
	return kv
}

// withTraceMeta returns body, a JSON-RPC request or notification, with the
// key, value pairs kv (traceparent, tracestate) set in its params._meta:
// merged into an existing _meta (its other keys, a progressToken say, are
// kept), params created when the message has none. A body that is not a
// JSON object, or whose params or _meta is not one, comes back unchanged.
func withTraceMeta(body []byte, kv ...string) []byte {
	if len(kv) < 2 {
		return body
	}
	msg, err := wire.ObjectFields(body)
	if err != nil {
		return body
	}
	var params []wire.Field
	if p := jsonr.TrimSpace(wire.GetField(msg, "params")); len(p) > 0 && string(p) != "null" {
		if params, err = wire.ObjectFields(p); err != nil {
			return body
		}
	}
	var meta []wire.Field
	if m := jsonr.TrimSpace(wire.GetField(params, mcp.KeyMeta)); len(m) > 0 && string(m) != "null" {
		if meta, err = wire.ObjectFields(m); err != nil {
			return body
		}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		meta = wire.SetField(meta, kv[i], wire.EncodeString(kv[i+1]))
	}
	params = wire.SetField(params, mcp.KeyMeta, wire.BuildObject(meta))
	return wire.BuildObject(wire.SetField(msg, "params", wire.BuildObject(params)))
}

// end ends the span of a request that answered raw (its result) or failed
// with err; sid is the session id the answer set (initialize). A
// tools/call result with isError ends as a "tool_error".
func (t *reqTrace) end(method string, raw rawjson.Message, sid string, err error) {
	if t == nil || t.span == nil {
		return
	}
	e := RequestEnd{SessionID: sid}
	switch {
	case err != nil:
		e.ErrorType, e.RPCError, e.ErrorMessage = errorType(err), isRPCError(err), err.Error()
	case method == mcp.MethodToolsCall && len(raw) > 0:
		var r wire.MCPCallToolResult
		if wire.Unmarshal(raw, &r) == nil && r.IsError {
			te := toolError("", ToolResult{Content: rawjson.Message(r.Content), StructuredContent: rawjson.Message(r.StructuredContent)})
			e.ErrorType, e.ErrorMessage = "tool_error", te.Code+": "+te.Message
		}
	}
	defer func() { _ = recover() }()
	t.span.End(e)
}

// errorType classifies a request's error for RequestEnd.ErrorType.
func errorType(err error) string {
	var pe *ProtocolError
	var te *TransportError
	switch {
	case errs.As(err, &pe):
		return strconv.Itoa(pe.Code)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "cancelled"
	case errs.As(err, &te) && te.Status != 0:
		return strconv.Itoa(te.Status)
	}
	return "transport_error"
}

// isRPCError reports whether err is a JSON-RPC error answer.
func isRPCError(err error) bool {
	var pe *ProtocolError
	return errs.As(err, &pe)
}
