// Capabilities wire types: the answer of GET {baseUrl}/v1/studio/ai/capabilities.

package wire

// Capabilities says whether the proxy serves this account and which
// providers it offers.
//
//easyjson:json
//agentwasm:decode-only
type Capabilities struct {
	Enabled         *bool          `json:"enabled,omitempty"`
	DefaultProvider string         `json:"defaultProvider,omitempty"`
	Providers       []ProviderInfo `json:"providers,omitempty"`
}

// ProviderInfo describes one model provider. Either `default` or `isDefault`
// marks the default entry.
//
//easyjson:json
//agentwasm:decode-only
type ProviderInfo struct {
	Name         string   `json:"name"`
	Default      bool     `json:"default,omitempty"`
	IsDefault    bool     `json:"isDefault,omitempty"`
	ToolSupport  *bool    `json:"toolSupport,omitempty"`
	DefaultModel string   `json:"defaultModel,omitempty"`
	Models       []string `json:"models,omitempty"`
}
