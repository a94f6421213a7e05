// Package mcpserver is agentwasm's MCP server, generic over a ToolServer
// that speaks JSON bytes: a transport-free JSON-RPC Dispatcher (one body in,
// one answer out) for both eras of MCP — the session era (2025-03-26 …
// 2025-11-25: initialize, optional Mcp-Session-Id sessions, batches in
// 2025-03-26) and the stateless era (2026-07-28: server/discover,
// per-request _meta, the Mcp-Method, Mcp-Name and Mcp-Param-* headers) —
// with tool-list change notifications, progress notifications and a bounded
// session table; and, in native builds only, NewHandler, the Streamable
// HTTP transport over a Dispatcher with DNS-rebinding protection.
//
// The package knows nothing of ports: serve's adapter (serve.NewMCPServer,
// serve.NewPortToolServer) serves a port's tools through it, and the wasm
// module's port.mcp hands it one message at a time. The protocol's
// constants, version lists and envelopes live in internal/mcp; this package
// holds the server's behaviour. The wasm builds leave the HTTP handler out
// (net/http costs megabytes there) and make session ids from the runtime's
// generator rather than crypto/rand.
//
// Files: dispatcher.go (Dispatcher, Options, Request, Response, routing),
// toolserver.go (ToolServer, CallHandler, ToolCall, Method), errors.go
// (Error, the codes and their HTTP statuses), stateless.go (the 2026-07-28
// era's checks), sessions.go (the session table), session_id*.go (session
// ids per build), notify.go (Listen streams, ToolsChanged), progress.go
// (notifications/progress), json.go (JSON helpers), handler.go (the HTTP
// transport, native only), trace.go and trace_native.go (Options.Tracer:
// a server span per message, native only; trace_wasm.go is their empty
// wasm twin).
package mcpserver
