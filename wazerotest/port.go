// Helpers for the module's serving port (port.* commands): build a port
// from a graph, call its tools, and use the human-side doors.

package wazerotest

import (
	"context"
	"encoding/json"
)

// CreatePort builds a port from graph (any JSON-encodable value, or a
// json.RawMessage) with the given JSON options, and returns its id and its
// tool array. Actions listed in options["handlers"] are run through the
// "handler" hook (HookCall.Session is the port's id). It fails the test if
// the module refuses.
func (i *Instance) CreatePort(ctx context.Context, graph any, options map[string]any) (int, json.RawMessage) {
	r := i.must(i.Do(ctx, map[string]any{"op": "port.create", "graph": graph, "options": options}))
	return r.Port, r.Value
}

// PortCall calls one of a port's tools and returns the port's result
// object. It fails the test if the command fails (a refusal is a result).
func (i *Instance) PortCall(ctx context.Context, port int, name string, args any) map[string]any {
	r := i.must(i.Do(ctx, map[string]any{"op": "port.call", "port": port, "name": name, "args": args}))
	var out map[string]any
	if err := json.Unmarshal(r.Value, &out); err != nil {
		i.fatalf("wazerotest: port.call answered a value that is not an object: %s", r.Value)
	}
	return out
}

// PortDo sends one port command (op with its fields) to port and returns
// the reply, failures included.
func (i *Instance) PortDo(ctx context.Context, port int, op string, fields map[string]any) (Reply, error) {
	cmd := map[string]any{"op": op, "port": port}
	for k, v := range fields {
		cmd[k] = v
	}
	return i.Do(ctx, cmd)
}

// SetInstances says which cards of a port's repeating area are mounted
// (port.setInstances). It fails the test if the module refuses.
func (i *Instance) SetInstances(ctx context.Context, port int, area string, keys []string) {
	i.must(i.PortDo(ctx, port, "port.setInstances", map[string]any{"area": area, "keys": keys}))
}

// SetBusy marks an action, area or page of a port busy with label; an
// empty label clears it (port.setBusy). It fails the test if the module
// refuses.
func (i *Instance) SetBusy(ctx context.Context, port int, id, label string) {
	i.must(i.PortDo(ctx, port, "port.setBusy", map[string]any{"id": id, "label": label}))
}
