// Serving-port wire types: the options of port.create, the payload of the
// handler hook, and the events a port streams to its host.

package wire

import "github.com/agentwasm/agentwasm/internal/rawjson"

// PortOptions is the JSON part of port.create's options: the seed's port
// options (confirmHighEffect, journeyTools, source), the separator, and
// the app session's own options. Handlers lists the action ids the host
// has a handler for; they are called through the "handler" hook.
//
//easyjson:json
//agentwasm:decode-only
type PortOptions struct {
	ConfirmHighEffect    *bool           `json:"confirmHighEffect,omitempty"`
	JourneyTools         string          `json:"journeyTools,omitempty"`
	Source               string          `json:"source,omitempty"`
	Separator            string          `json:"separator,omitempty"`
	RequireHumanApproval *bool           `json:"requireHumanApproval,omitempty"`
	Page                 string          `json:"page,omitempty"`
	State                rawjson.Message `json:"state,omitempty"`
	Handlers             []string        `json:"handlers,omitempty"`
	// MCP server options (port.mcp): name, version, settleWithinMs.
	Name           string `json:"name,omitempty"`
	Version        string `json:"version,omitempty"`
	SettleWithinMs *int64 `json:"settleWithinMs,omitempty"`
	// OfferLedgerSize is how many freshness offers the port remembers
	// [500].
	OfferLedgerSize int `json:"offerLedgerSize,omitempty"`
	// Restore is a port snapshot (port.snapshot's) to start the port's
	// ask journal from; refused, port.create answers bad_snapshot.
	Restore rawjson.Message `json:"restore,omitempty"`
}

// HookHandler is the payload of the "handler" hook: run the host's handler
// for one fire. The host answers the handler's result as JSON (any value),
// or fails the hook with the error.
//
//easyjson:json
//agentwasm:encode-only
type HookHandler struct {
	Action       string          `json:"action"`
	Input        rawjson.Message `json:"input,omitempty"`
	Source       string          `json:"source"`
	TransitionID string          `json:"transitionId"`
	// Instance is the card a repeating action acts on.
	Instance string `json:"instance,omitempty"`
}

// PortEvent is one event a port streams to its host: {"type":"warning",
// "warning":{…}} for each once-only warning, {"type":"change","version":n}
// after every change of the app session (a fire, a settlement, an ask, an
// approval, a navigation, a state patch). A change event always carries its
// version, 0 included; a warning carries none.
//
//easyjson:json
//agentwasm:encode-only
type PortEvent struct {
	Type    string       `json:"type"`
	Warning *PortWarning `json:"warning,omitempty"`
	Version *int64       `json:"version,omitempty"`
}

// PortWarning is one of the port's once-only warnings.
//
//easyjson:json
//agentwasm:encode-only
type PortWarning struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Action  string `json:"action,omitempty"`
}
