//go:build !js && !wasip1

// Package tracing makes OpenTelemetry spans of agentwasm's sessions and of
// its MCP server, in native builds (the wasm modules never link it: a page
// traces a turn in the JS loader instead).
//
// The spans follow the OpenTelemetry GenAI semantic conventions and their
// MCP conventions, as published in the semantic-conventions-genai
// repository at v0.1.0 (status: Development): attribute names are theirs,
// and agentwasm.* names are ours, for what the conventions do not name.
// One turn is this tree:
//
//	invoke_agent                     INTERNAL  one per Chat or Resume
//	├── discover_tools               INTERNAL  a discovery pass the turn waits for
//	│   ├── initialize               CLIENT    (MCP client spans)
//	│   ├── notifications/initialized CLIENT
//	│   └── tools/list               CLIENT    one per page
//	├── chat {model}                 CLIENT    one per model request
//	├── execute_tool {tool}          INTERNAL  one per dispatched call, in order
//	│   └── tools/call {tool}        CLIENT    the composition plane's MCP calls
//	└── await_approval {action}      INTERNAL  one per ask the turn stopped on
//	    └── invoke_agent             INTERNAL  the Resume that answers it
//
// Session adapts a trace.Tracer to session.Tracer (Options.Tracer), and
// MCPServer to mcpserver.Tracer (the port's MCP server: a SERVER span per
// request, continuing the trace the client sent in params._meta or the
// traceparent header). The session sends the W3C trace context
// (traceparent, tracestate) of each chat span on its chat request, and of
// each MCP client span on its MCP request, as headers and in
// params._meta.
//
// Content — the person's message, the turn's text, tool arguments and
// results — is left out unless WithContent is given; a credential never
// appears in any attribute, event or status (the session redacts every
// token it knows from every text it hands on, and URLs carry none).
package tracing
