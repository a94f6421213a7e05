// Command wire types: the JSON commands a host sends to the wasm module's
// command layer, the replies it gets back, and the events streamed to it.
// The same shapes serve the js build (through web/agentwasm.mjs) and the
// wasip1 build (through the ABI in wasm/README.md).

package wire

import "github.com/agentwasm/agentwasm/internal/rawjson"

// Command is one request from the host to the module.
//
//easyjson:json
//agentwasm:decode-only
type Command struct {
	Op      string          `json:"op"`
	Session int             `json:"session,omitempty"`
	Text    string          `json:"text,omitempty"`
	Options rawjson.Message `json:"options,omitempty"`
	// Draft is the binding session.attachDraft binds (absent: unbind).
	Draft *Draft `json:"draft,omitempty"`
	// ToolChoice overrides the session's toolChoice for one chat.
	ToolChoice *ToolChoice `json:"toolChoice,omitempty"`
	TimeoutMs  int64       `json:"timeoutMs,omitempty"`
	// Approve and Decline are session.resume's answers: ask ids.
	Approve []string `json:"approve,omitempty"`
	Decline []string `json:"decline,omitempty"`

	// The serving port's commands (port.*; wasm/README.md).
	Port        int             `json:"port,omitempty"`
	Graph       rawjson.Message `json:"graph,omitempty"`
	Name        string          `json:"name,omitempty"`
	Args        rawjson.Message `json:"args,omitempty"`
	AskID       string          `json:"askId,omitempty"`
	By          string          `json:"by,omitempty"`
	Action      string          `json:"action,omitempty"`
	ExpiresInMs int64           `json:"expiresInMs,omitempty"`
	Page        string          `json:"page,omitempty"`
	State       rawjson.Message `json:"state,omitempty"`
	Input       rawjson.Message `json:"input,omitempty"`
	Data        rawjson.Message `json:"data,omitempty"`
	ID          string          `json:"id,omitempty"`
	// Message is one JSON-RPC message for port.mcp.
	Message rawjson.Message `json:"message,omitempty"`
	// SettleWithinMs makes port.call wait up to this long for a fire to
	// settle and fold the settled facts into the result (absent or 0:
	// answer at once).
	SettleWithinMs int64 `json:"settleWithinMs,omitempty"`
	// Area and Keys are port.setInstances's repeating area and the cards
	// mounted in it; Label is port.setBusy's label (empty clears it);
	// Instance is the card of port.report's repeating action.
	Area     string   `json:"area,omitempty"`
	Keys     []string `json:"keys,omitempty"`
	Label    string   `json:"label,omitempty"`
	Instance string   `json:"instance,omitempty"`
}

// Reply is the module's answer to one Command.
//
//easyjson:json
//agentwasm:encode-only
type Reply struct {
	OK        bool   `json:"ok"`
	Version   string `json:"version,omitempty"`
	ABI       int    `json:"abi,omitempty"`
	GoVersion string `json:"goVersion,omitempty"`
	// Serve is true in the version op's reply when the module has the
	// serving port (the full build; the session-only build has none).
	Serve    bool             `json:"serve,omitempty"`
	Session  int              `json:"session,omitempty"`
	Turn     *Turn            `json:"turn,omitempty"`
	Messages []ChatMessage    `json:"messages,omitempty"`
	Report   *DiscoveryReport `json:"report,omitempty"`
	Draft    *Draft           `json:"draft,omitempty"`
	Tools    []ToolSpec       `json:"tools,omitempty"`
	// Port is a new port's id (port.create).
	Port int `json:"port,omitempty"`
	// Value is a port command's answer, as JSON.
	Value rawjson.Message `json:"value,omitempty"`
	Error *ErrorBody      `json:"error,omitempty"`
}

// ErrorBody describes why a command failed. Code is stable and machine
// readable; Message says what failed and what to do.
//
//easyjson:json
//agentwasm:encode-only
type ErrorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// SessionOptions is the JSON-expressible part of a session's options, named
// as in the seed. Callbacks are supplied per host as hooks; a boolean here
// says that the host supplies that hook (see wasm/README.md).
//
//easyjson:json
//agentwasm:decode-only
type SessionOptions struct {
	Auth                 bool   `json:"auth,omitempty"`
	BaseURL              string `json:"baseUrl,omitempty"`
	DisableToolDiscovery bool   `json:"disableToolDiscovery,omitempty"`
	Draft                *Draft `json:"draft,omitempty"`
	Execute              bool   `json:"execute,omitempty"`
	Kit                  *Kit   `json:"kit,omitempty"`
	// Port makes an open port (port.create) the session's kit.
	Port                   int           `json:"port,omitempty"`
	MaxTokens              int           `json:"maxTokens,omitempty"`
	MaxToolRounds          *int          `json:"maxToolRounds,omitempty"`
	MCPClient              bool          `json:"mcpClient,omitempty"`
	MCPURL                 string        `json:"mcpUrl,omitempty"`
	Model                  string        `json:"model,omitempty"`
	Provider               string        `json:"provider,omitempty"`
	StudioTools            *ToolPolicy   `json:"studioTools,omitempty"`
	System                 string        `json:"system,omitempty"`
	SystemFunction         bool          `json:"systemFunction,omitempty"`
	Temperature            *float64      `json:"temperature,omitempty"`
	ToolChoice             *ToolChoice   `json:"toolChoice,omitempty"`
	ToolDiscoveryTimeoutMs *int64        `json:"toolDiscoveryTimeoutMs,omitempty"`
	ToolListChangedWatch   *WatchOptions `json:"toolListChangedWatch,omitempty"`
	Tools                  []ToolSpec    `json:"tools,omitempty"`
	Transport              bool          `json:"transport,omitempty"`
	WatchToolListChanged   bool          `json:"watchToolListChanged,omitempty"`
	MaxFrameBytes          int           `json:"maxFrameBytes,omitempty"`
	// The turn's bounds (session.Options): absent or 0 is the default, a
	// negative value is refused.
	MaxTurnEvents    int `json:"maxTurnEvents,omitempty"`
	MaxTurnTextBytes int `json:"maxTurnTextBytes,omitempty"`
	// The request's bounds (session.Options): the largest chat request the
	// session sends, and the largest tool message it keeps; absent or 0 is
	// the default, a negative value is refused.
	MaxRequestBytes    int `json:"maxRequestBytes,omitempty"`
	MaxToolResultBytes int `json:"maxToolResultBytes,omitempty"`
	// The chat stream's and the capabilities request's timeouts, in
	// milliseconds: absent is the default, 0 disables, a negative value is
	// refused.
	StreamFirstByteTimeoutMs *int64 `json:"streamFirstByteTimeoutMs,omitempty"`
	StreamIdleTimeoutMs      *int64 `json:"streamIdleTimeoutMs,omitempty"`
	CapabilitiesTimeoutMs    *int64 `json:"capabilitiesTimeoutMs,omitempty"`
}

// Kit describes a host's kit: its tools, and which of its methods exist.
//
//easyjson:json
//agentwasm:decode-only
type Kit struct {
	Tools        []ToolSpec `json:"tools,omitempty"`
	Execute      bool       `json:"execute,omitempty"`
	SystemPrompt bool       `json:"systemPrompt,omitempty"`
}

// Draft is a composition draft binding.
//
//easyjson:json
type Draft struct {
	DraftID    string `json:"draftId"`
	Generation int64  `json:"generation"`
}

// ToolPolicy is the studioTools option; Approve says the host supplies the
// studioTools.approve hook.
//
//easyjson:json
//agentwasm:decode-only
type ToolPolicy struct {
	Families  []string `json:"families,omitempty"`
	Views     []string `json:"views,omitempty"`
	Allowlist []string `json:"allowlist,omitempty"`
	Required  []string `json:"required,omitempty"`
	Approve   bool     `json:"approve,omitempty"`
}

// WatchOptions is the toolListChangedWatch option's backoff and budget (a
// host's status observer stays with the host: the module always sends
// toolWatch events).
//
//easyjson:json
//agentwasm:decode-only
type WatchOptions struct {
	InitialDelayMs       int64   `json:"initialDelayMs,omitempty"`
	Factor               float64 `json:"factor,omitempty"`
	MaxDelayMs           int64   `json:"maxDelayMs,omitempty"`
	MaxReconnectAttempts *int    `json:"maxReconnectAttempts,omitempty"`
	StableStreamMs       int64   `json:"stableStreamMs,omitempty"`
}

// Turn is the record of one chat() call.
//
//easyjson:json
//agentwasm:encode-only
type Turn struct {
	Status       string           `json:"status"`
	Text         string           `json:"text"`
	ToolCalls    []DispatchRecord `json:"toolCalls"`
	Events       []StreamEvent    `json:"events"`
	StopReason   string           `json:"stopReason,omitempty"`
	ErrorMessage string           `json:"errorMessage,omitempty"`
	ErrorCode    string           `json:"errorCode,omitempty"`
	Rounds       int              `json:"rounds"`
	// Usage is omitted when no round reported token counts;
	// PendingApprovals when no ask awaits a person.
	Usage            *Usage            `json:"usage,omitempty"`
	PendingApprovals []PendingApproval `json:"pendingApprovals,omitempty"`
}

// Usage is a turn's (or a step's) token counts.
//
//easyjson:json
//agentwasm:encode-only
type Usage struct {
	InputTokens  int64 `json:"inputTokens"`
	OutputTokens int64 `json:"outputTokens"`
}

// PendingApproval is an ask a turn stopped on. Detail is the tool result's
// data (null when it had none).
//
//easyjson:json
//agentwasm:encode-only
type PendingApproval struct {
	AskID      string          `json:"askId"`
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Action     string          `json:"action"`
	Detail     rawjson.Message `json:"detail"`
}

// Step is what one model round did: the payload of a stepFinish event.
// ToolCalls is always an array.
//
//easyjson:json
//agentwasm:encode-only
type Step struct {
	Round      int              `json:"round"`
	Text       string           `json:"text"`
	ToolCalls  []DispatchRecord `json:"toolCalls"`
	StopReason string           `json:"stopReason,omitempty"`
	Usage      *Usage           `json:"usage,omitempty"`
}

// DispatchRecord is the record of one tool call the session dispatched.
//
//easyjson:json
//agentwasm:encode-only
type DispatchRecord struct {
	ToolCallID           string `json:"toolCallId"`
	ToolName             string `json:"toolName"`
	Plane                string `json:"plane"`
	OK                   bool   `json:"ok"`
	ErrorCode            string `json:"errorCode,omitempty"`
	ErrorMessage         string `json:"errorMessage,omitempty"`
	Content              string `json:"content"`
	Draft                *Draft `json:"draft,omitempty"`
	RetriedAfterConflict bool   `json:"retriedAfterConflict,omitempty"`
}

// SessionEvent is one event streamed to the host while a session works:
// {"type":"chat","event":{…}} for every streamed event,
// {"type":"toolResult","result":{…}} for every dispatch,
// {"type":"stepFinish","step":{…}} after every finished model round.
//
//easyjson:json
//agentwasm:encode-only
type SessionEvent struct {
	Type   string           `json:"type"`
	Event  *StreamEvent     `json:"event,omitempty"`
	Result *DispatchRecord  `json:"result,omitempty"`
	Step   *Step            `json:"step,omitempty"`
	Report *DiscoveryReport `json:"report,omitempty"`
	Status string           `json:"status,omitempty"`
	Detail string           `json:"detail,omitempty"`
}

// DiscoveryReport is what one tool discovery pass found and decided.
//
//easyjson:json
//agentwasm:encode-only
type DiscoveryReport struct {
	Discovered      int                  `json:"discovered"`
	Pages           int                  `json:"pages"`
	Routed          []string             `json:"routed"`
	Classification  DiscoveryClassCounts `json:"classification"`
	Rejected        []DiscoveryRejection `json:"rejected"`
	MissingRequired []string             `json:"missingRequired"`
	Diagnostics     []string             `json:"diagnostics"`
	ErrorMessage    string               `json:"errorMessage,omitempty"`
	Degraded        bool                 `json:"degraded,omitempty"`
}

// DiscoveryClassCounts counts the discovered tools' classifications.
//
//easyjson:json
//agentwasm:encode-only
type DiscoveryClassCounts struct {
	Families  map[string]int `json:"families"`
	Views     map[string]int `json:"views"`
	Revisions map[string]int `json:"revisions"`
}

// DiscoveryRejection is one discovered tool the policy did not route.
//
//easyjson:json
//agentwasm:encode-only
type DiscoveryRejection struct {
	Name           string                `json:"name"`
	Reason         string                `json:"reason"`
	Classification *StudioClassification `json:"classification,omitempty"`
	Detail         string                `json:"detail"`
}
