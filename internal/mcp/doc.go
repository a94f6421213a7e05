// Package mcp is the one definition of the Model Context Protocol that
// agentwasm's client (session/mcpclient), its server (serve's
// dispatcher and HTTP handler), the test fake (testing/fakemcp) and the
// conformance commands share: the protocol revisions and how a version is
// negotiated (version.go), the JSON-RPC error codes (codes.go), the method,
// notification and _meta names (names.go), the header names and the
// encoding of header values (header.go), the x-mcp-header annotations of a
// tool's inputSchema (paramheader.go), the JSON-RPC envelopes
// (envelope.go), the messages of a list-changed subscription
// (subscription.go), the results both sides write (result.go) and the
// Streamable HTTP framing (stream.go).
//
// It holds no transport and no state. It is compiled into the wasm
// modules, so it uses neither fmt nor reflect nor encoding/json: messages
// are written with internal/jsonw and read with internal/wire's codecs.
package mcp
