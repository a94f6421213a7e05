// The package comment of serve: what the package is for and how its parts
// fit together.

// Package serve is the serving port: an app declares its pages, actions
// and journeys as a graph (ParseGraph), runs them as an app session with
// guards, input schemas, confirm gates, human approval and settled
// transitions, and offers them to a model as a small, byte-stable set of
// tools (a port), also served over MCP (NewMCPServer adapts a port to the
// server in serve/mcpserver). In per-journey mode each journey is a tool
// of its own, carrying its does, one line of use and a compact schema;
// the rules every firing tool shares (needs-confirm, confirm, decline, a
// person's approval) are stated once, on do_action.
//
// An ask belongs to the caller whose fire raised it (caller.go): a port,
// a conversation named with WithCaller, or an MCP session. A person's
// approval backs one fire by that caller, within AppOptions.ApprovalTTL
// [DefaultApprovalTTL]; another caller is refused (APPROVAL_NOT_YOURS)
// without using it. A call with no identity (a stateless MCP request)
// uses an approval only by citing the ask's unguessable askId.
//
// The second version adds what real pages need, each opt-in in the graph
// so a graph without it is served byte for byte as before: repeating
// cards named by an instance (app_instances.go), busy labels
// (app_busy.go), "once" and "single-flight" actions (app_concurrency.go),
// a verify guard checked after a fire performs (app_verify.go), stale
// keys and cited offers (port_fresh.go), and routeTo (port_route.go).
//
// The leaf layer has no dependencies beyond the standard library and no
// encoding/json codec or reflect (they cost hundreds of KB in the wasm
// module): ParseValue and AppendValue handle dynamic JSON values, Guard
// evaluates declarative conditions over a State with evidence of which
// conditions held or failed, and Schema validates action inputs against
// the subset of JSON Schema that tool inputs use.
package serve
