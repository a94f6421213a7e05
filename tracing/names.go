//go:build !js && !wasip1

// The span names, attribute keys, event names and values of the span
// contract: the GenAI and MCP semantic conventions' (v0.1.0), and
// agentwasm.* keys of our own.

package tracing

// Span names (a span's name may add the model, the tool or the action).
const (
	spanInvokeAgent   = "invoke_agent"
	spanChat          = "chat"
	spanExecuteTool   = "execute_tool"
	spanDiscoverTools = "discover_tools"
	spanAwaitApproval = "await_approval"
)

// Attribute keys of the conventions.
const (
	keyOperationName    = "gen_ai.operation.name"
	keyProviderName     = "gen_ai.provider.name"
	keyRequestModel     = "gen_ai.request.model"
	keyRequestStream    = "gen_ai.request.stream"
	keyResponseModel    = "gen_ai.response.model"
	keyTimeToFirstChunk = "gen_ai.response.time_to_first_chunk"
	keyFinishReasons    = "gen_ai.response.finish_reasons"
	keyInputTokens      = "gen_ai.usage.input_tokens"
	keyOutputTokens     = "gen_ai.usage.output_tokens"
	keyInputMessages    = "gen_ai.input.messages"
	keyOutputMessages   = "gen_ai.output.messages"
	keyToolName         = "gen_ai.tool.name"
	keyToolCallID       = "gen_ai.tool.call.id"
	keyToolType         = "gen_ai.tool.type"
	keyToolArguments    = "gen_ai.tool.call.arguments"
	keyToolResult       = "gen_ai.tool.call.result"
	keyErrorType        = "error.type"
	keyServerAddress    = "server.address"
	keyServerPort       = "server.port"
	keyMCPMethod        = "mcp.method.name"
	keyMCPSessionID     = "mcp.session.id"
	keyMCPProtocol      = "mcp.protocol.version"
	keyRequestID        = "jsonrpc.request.id"
	keyRPCStatusCode    = "rpc.response.status_code"
	keyNetworkProtocol  = "network.protocol.name"
)

// Attribute keys of our own.
const (
	keyTurnKind          = "agentwasm.turn.kind"
	keyTurnStatus        = "agentwasm.turn.status"
	keyTurnRounds        = "agentwasm.turn.rounds"
	keyRound             = "agentwasm.round"
	keyToolPlane         = "agentwasm.tool.plane"
	keyToolOutcome       = "agentwasm.tool.outcome"
	keyRetriedAfter      = "agentwasm.tool.retried_after_conflict"
	keyAskID             = "agentwasm.approval.ask_id"
	keyAskAction         = "agentwasm.approval.action"
	keyAskApproved       = "agentwasm.approval.approved"
	keyAskOutcome        = "agentwasm.approval.outcome"
	keyDiscovered        = "agentwasm.discovery.discovered"
	keyDiscoveryRouted   = "agentwasm.discovery.routed"
	keyDiscoveryPages    = "agentwasm.discovery.pages"
	keyDiscoveryDegraded = "agentwasm.discovery.degraded"
)

// Event names.
const (
	eventApprovalRequested = "agentwasm.approval.requested"
	eventApprovalAnswered  = "agentwasm.approval.answered"
	eventConflictRetry     = "agentwasm.tool.conflict_retry"
)

// Values.
const (
	providerStudioProxy = "agentwasm.studio_proxy"
	providerOpenAI      = "openai"
	errorTypeOther      = "_OTHER" // the conventions' error.type when no code names the error
)
