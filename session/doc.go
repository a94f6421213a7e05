// Package session is the agent session: a person types, the session streams
// the conversation to the Studio AI proxy over server-sent events, and
// assembles what the model says into a Turn.
//
// A Session runs the page's own tools (a Kit, or Tools with an Executor)
// between model rounds, up to Options.MaxToolRounds requests per Chat.
// A Session is created with New and driven with Chat. Chat never returns a
// Go error: the Turn's Status says what happened (completed, cancelled,
// error, refused) and ErrorMessage says why. After each finished round the
// observer gets a stepFinish event (a Step), and the Turn sums the rounds'
// token counts in Usage.
//
// A tool result can wait for a person (ToolResult.Approval; a port kit sets
// it when the app requires a person's approval): the turn then stops after
// that round with the asks in Turn.PendingApprovals, and the host answers
// them with Resume, through the kit's ApprovalDoors, which continues the
// loop. The model has no way to resume. Close cancels the turn that is
// running and ends the session's background work and its MCP session;
// Reset is refused (ErrBusy) while a turn runs. Everything that touches the
// network goes through a bridge.Fetcher, so the same code runs natively, in
// the browser (GOOS=js) and under a WebAssembly host (GOOS=wasip1).
//
// The tools of an MCP server join the page's own: the session discovers
// them, applies the tool policy (Options.StudioTools), routes calls and
// watches for list changes. The MCP transport itself is session/mcpclient,
// whose Client New builds on {BaseURL}/mcp; Options.MCPClient takes any
// other client through the MCPClient interface.
//
// Options.Tracer is told of every turn, model request, tool call,
// discovery pass, MCP request and wait for a person, in native builds only
// (see Tracer; package tracing makes OpenTelemetry spans of them), and the
// chat and MCP requests carry its W3C trace context.
//
// The wire contract with the Studio AI proxy is written out in
// docs/PROTOCOL.md.
package session

// The *_easyjson.go files hold the JSON encoders of the types the wasm
// modules send (Turn, Event and their parts; their json tags say the keys),
// generated as internal/wire's are: run `make generate` after changing one.
//go:generate go run ../internal/wire/internal/codecgen
