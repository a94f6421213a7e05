// Command wire types: the JSON commands a host sends to the wasm module's
// command layer, the replies it gets back, and the events streamed to it.
// The same shapes serve the js build (through web/agentwasm.mjs) and the
// wasip1 build (through the ABI in wasm/README.md).

package wire

// Command is one request from the host to the module.
//
//easyjson:json
type Command struct {
	Op        string     `json:"op"`
	Session   int        `json:"session,omitempty"`
	Text      string     `json:"text,omitempty"`
	Options   RawMessage `json:"options,omitempty"`
	TimeoutMs int64      `json:"timeoutMs,omitempty"`
}

// Reply is the module's answer to one Command.
//
//easyjson:json
type Reply struct {
	OK        bool       `json:"ok"`
	Version   string     `json:"version,omitempty"`
	ABI       int        `json:"abi,omitempty"`
	GoVersion string     `json:"goVersion,omitempty"`
	Session   int        `json:"session,omitempty"`
	Turn      *Turn      `json:"turn,omitempty"`
	Error     *ErrorBody `json:"error,omitempty"`
}

// ErrorBody describes why a command failed. Code is stable and machine
// readable; Message says what failed and what to do.
//
//easyjson:json
type ErrorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// SessionOptions is the JSON-expressible part of a session's options.
// Callbacks (fetch, events) are supplied per host, outside this object.
//
//easyjson:json
type SessionOptions struct {
	BaseURL       string      `json:"baseUrl,omitempty"`
	Model         string      `json:"model,omitempty"`
	Provider      string      `json:"provider,omitempty"`
	System        string      `json:"system,omitempty"`
	MaxTokens     int         `json:"maxTokens,omitempty"`
	Temperature   *float64    `json:"temperature,omitempty"`
	ToolChoice    *ToolChoice `json:"toolChoice,omitempty"`
	MaxFrameBytes int         `json:"maxFrameBytes,omitempty"`
}

// Turn is the record of one chat() call.
//
//easyjson:json
type Turn struct {
	Status       string           `json:"status"`
	Text         string           `json:"text"`
	ToolCalls    []DispatchRecord `json:"toolCalls"`
	Events       []StreamEvent    `json:"events"`
	StopReason   string           `json:"stopReason,omitempty"`
	ErrorMessage string           `json:"errorMessage,omitempty"`
	ErrorCode    string           `json:"errorCode,omitempty"`
	Rounds       int              `json:"rounds"`
}

// DispatchRecord is the record of one tool call the session dispatched.
//
//easyjson:json
type DispatchRecord struct {
	ToolCallID           string     `json:"toolCallId"`
	ToolName             string     `json:"toolName"`
	Plane                string     `json:"plane"`
	OK                   bool       `json:"ok"`
	ErrorCode            string     `json:"errorCode,omitempty"`
	ErrorMessage         string     `json:"errorMessage,omitempty"`
	Content              string     `json:"content"`
	Draft                RawMessage `json:"draft,omitempty"`
	RetriedAfterConflict bool       `json:"retriedAfterConflict,omitempty"`
}

// SessionEvent is one event streamed to the host while a session works:
// {"type":"chat","event":{…}} for every streamed event.
//
//easyjson:json
type SessionEvent struct {
	Type  string       `json:"type"`
	Event *StreamEvent `json:"event,omitempty"`
}
