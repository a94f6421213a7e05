// Method, notification and _meta names.

package mcp

// Methods.
const (
	MethodInitialize             = "initialize"               // the session era's handshake
	MethodPing                   = "ping"                     // session era only
	MethodToolsList              = "tools/list"               // both eras
	MethodToolsCall              = "tools/call"               // both eras
	MethodServerDiscover         = "server/discover"          // stateless era only
	MethodSubscriptionsListen    = "subscriptions/listen"     // stateless era only
	MethodPromptsList            = "prompts/list"             // cacheable in the stateless era
	MethodPromptsGet             = "prompts/get"              // named by Mcp-Name in the stateless era
	MethodResourcesList          = "resources/list"           // cacheable in the stateless era
	MethodResourcesTemplatesList = "resources/templates/list" // cacheable in the stateless era
	MethodResourcesRead          = "resources/read"           // cacheable, and named (its uri) by Mcp-Name, in the stateless era
)

// Notifications.
const (
	NotificationInitialized      = "notifications/initialized"        // the session era's handshake, after initialize
	NotificationProgress         = "notifications/progress"           // a request's progress, before its answer (MetaProgressToken)
	NotificationCancelled        = "notifications/cancelled"          // the client gave a request up
	NotificationToolsListChanged = "notifications/tools/list_changed" // the tool list changed: list it again
	// NotificationSubscriptionsAcknowledged opens a subscriptions/listen
	// stream (stateless era).
	NotificationSubscriptionsAcknowledged = "notifications/subscriptions/acknowledged"
)

// Members of params and results.
const (
	// KeyMeta is the _meta member of params and results.
	KeyMeta = "_meta"
	// KeyResultType is the stateless era's resultType member of a result.
	KeyResultType = "resultType"
)

// The values of resultType.
const (
	ResultComplete      = "complete"       // the result is final
	ResultInputRequired = "input_required" // the server asks the client for input first
)

// Keys of _meta.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"    // stateless era, every request
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities" // stateless era, every request
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"         // stateless era, optional
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"         // server/discover's result
	MetaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"     // a subscriptions/listen stream's messages
	MetaProgressToken      = "progressToken"                              // a request asking for notifications/progress
)
