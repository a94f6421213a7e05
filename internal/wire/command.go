// Command wire types: the JSON commands a host sends to the wasm module's
// command layer and the replies it gets back. The turns, reports and events
// streamed to it are session's own types (session.Turn, session.Event), with
// their own codecs.
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
	Serve   bool `json:"serve,omitempty"`
	Session int  `json:"session,omitempty"`
	// Turn, Report and Draft are a session.Turn, a session.ToolDiscoveryReport
	// and a session.DraftBinding as their own codecs write them (session's
	// json tags): wire cannot name session's types, which import wire.
	Turn     rawjson.Message `json:"turn,omitempty"`
	Messages []ChatMessage   `json:"messages,omitempty"`
	Report   rawjson.Message `json:"report,omitempty"`
	Draft    rawjson.Message `json:"draft,omitempty"`
	Tools    []ToolSpec      `json:"tools,omitempty"`
	// Port is a new port's id (port.create).
	Port int `json:"port,omitempty"`
	// Value is a port command's answer, as JSON.
	Value rawjson.Message `json:"value,omitempty"`
	// Snapshot is a snapshot document, as its writer wrote it:
	// session.snapshot's (session.Session.Snapshot, wire.SessionSnapshot)
	// or port.snapshot's (serve's port snapshot).
	Snapshot rawjson.Message `json:"snapshot,omitempty"`
	Error    *ErrorBody      `json:"error,omitempty"`
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
	Port          int    `json:"port,omitempty"`
	MaxTokens     int    `json:"maxTokens,omitempty"`
	MaxToolRounds *int   `json:"maxToolRounds,omitempty"`
	MCPClient     bool   `json:"mcpClient,omitempty"`
	MCPURL        string `json:"mcpUrl,omitempty"`
	Model         string `json:"model,omitempty"`
	// OpenAI sends chat requests straight to an OpenAI-compatible
	// endpoint (session.Options.OpenAI).
	OpenAI   *OpenAIEndpoint `json:"openai,omitempty"`
	Provider string          `json:"provider,omitempty"`
	// Restore is a snapshot (session.snapshot's object) the new session
	// starts from (session.Options.Restore); a refused one fails
	// session.create with bad_snapshot.
	Restore                rawjson.Message `json:"restore,omitempty"`
	StudioTools            *ToolPolicy     `json:"studioTools,omitempty"`
	System                 string          `json:"system,omitempty"`
	SystemFunction         bool            `json:"systemFunction,omitempty"`
	Temperature            *float64        `json:"temperature,omitempty"`
	ToolChoice             *ToolChoice     `json:"toolChoice,omitempty"`
	ToolDiscoveryTimeoutMs *int64          `json:"toolDiscoveryTimeoutMs,omitempty"`
	ToolListChangedWatch   *WatchOptions   `json:"toolListChangedWatch,omitempty"`
	Tools                  []ToolSpec      `json:"tools,omitempty"`
	Transport              bool            `json:"transport,omitempty"`
	WatchToolListChanged   bool            `json:"watchToolListChanged,omitempty"`
	MaxFrameBytes          int             `json:"maxFrameBytes,omitempty"`
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

// OpenAIEndpoint is an OpenAI-compatible endpoint a session talks to
// directly. The key never crosses as data: APIKey says that the host
// supplies the apiKey hook, asked for every request.
//
//easyjson:json
//agentwasm:decode-only
type OpenAIEndpoint struct {
	BaseURL string `json:"baseUrl"`
	APIKey  bool   `json:"apiKey,omitempty"`
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
