// Package mcpclient is an MCP client over Streamable HTTP: the transport
// that session's tool discovery, tool calls and list-changed watch use by
// default, and that a program may use on its own.
//
// Client speaks both eras of the protocol — the session era (2025-03-26 …
// 2025-11-25: initialize, Mcp-Session-Id, notifications/initialized,
// DELETE on Close) and the stateless era (2026-07-28: per-request _meta,
// the Mcp-Method, Mcp-Name and Mcp-Param-* headers, subscriptions/listen)
// — and negotiates between them (EraAuto probes server/discover and falls
// back to initialize). It walks tools/list (ListTools, ListToolPages),
// calls tools (CallTool), opens the notification stream of tool-list
// changes (ListenToolListChanged, Listen), answers the requests a
// session-era server sends it on a stream (ping; anything else with
// MethodNotFound), and ends its MCP session (Close, CloseContext).
// ResumingFetcher resumes a request's event stream that dropped before the
// answer (GET with Last-Event-ID).
//
// Every request goes through a bridge.Fetcher (the host's fetch in the
// wasm builds, net/http natively), with a bearer token from a TokenSource
// asked afresh for every request. A failed request gives one of three
// kinds of error: *TransportError (no usable answer), *ProtocolError (a
// JSON-RPC error, or a breach of the protocol reported with a JSON-RPC
// code) and *ToolError (a tools/call result with isError). Besides these,
// a call cut short by its ctx returns an error matching ctx.Err(), CallTool
// refuses an empty name or arguments that are not a JSON object before
// sending anything, and an endpoint that answers nothing but 404 or 405
// gives a *session.EndpointAbsentError (matching session.ErrEndpointAbsent).
//
// Config.Tracer makes a span of each request and notification and writes
// the W3C trace context into its headers and its params._meta (native
// builds only; package tracing implements it with OpenTelemetry).
//
// The package does not import session: session imports it, builds the
// default Client on {BaseURL}/mcp (or session.Options.MCPURL) with its
// Fetcher wrapped in a ResumingFetcher, and takes any client through its
// own small interfaces (session.MCPClient and its optional companions
// MCPPageLister, MCPListener and MCPContextCloser, whose docs say what the
// session calls when). The wire format of MCP — message bodies, headers,
// versions, error codes — is internal/mcp's. A raw JSON value
// (rawjson.Message in the signatures) is json.RawMessage in native builds
// and []byte in the wasm builds: the same type as session.RawJSON.
package mcpclient
