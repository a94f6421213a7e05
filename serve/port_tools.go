// The fixed tool set of a port: names, descriptions, input schemas and MCP
// annotations, built once at NewPort so the array is byte-identical for
// the port's life.

package serve

import "encoding/json"

// Tool is one tool a port offers.
type Tool struct {
	Name        string
	Description string
	InputSchema json.RawMessage
	Annotations ToolAnnotations
}

// ToolAnnotations are the MCP hints of a tool.
type ToolAnnotations struct {
	ReadOnlyHint    bool
	DestructiveHint bool
	Title           string
}

// AppendJSON appends t as an MCP tool object.
func (t Tool) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"name":`...)
	dst = AppendValue(dst, t.Name)
	dst = append(dst, `,"description":`...)
	dst = AppendValue(dst, t.Description)
	dst = append(dst, `,"inputSchema":`...)
	dst = append(dst, t.InputSchema...)
	dst = append(dst, `,"annotations":{"title":`...)
	dst = AppendValue(dst, t.Annotations.Title)
	if t.Annotations.ReadOnlyHint {
		dst = append(dst, `,"readOnlyHint":true`...)
	} else {
		dst = append(dst, `,"readOnlyHint":false,"destructiveHint":`...)
		if t.Annotations.DestructiveHint {
			dst = append(dst, "true"...)
		} else {
			dst = append(dst, "false"...)
		}
	}
	return append(dst, "}}"...)
}

// The authored texts of the tools. They name no journey, action or count,
// so the single-mode array is the same for every graph with the same id.
const (
	journeyUsage = "Call with no step to open this journey and see its ready steps; call with step (and input) to perform one. " +
		"A high-effect step first returns needs-confirm with receipts and does nothing: ask the person, then call again with confirm:true, or decline:true if they say no."
	singleUsage = "Start or continue a journey, a multi-step task the app declares; whats_here lists the journeys you can start here. " +
		"Call with journey and no step to open it and see its ready steps; call with step (and input) to perform one. " +
		"A high-effect step first returns needs-confirm with receipts and does nothing: ask the person, then call again with confirm:true, or decline:true if they say no."
	descStep      = "The step to perform: its action id or a unique suffix of it. Omit to open the journey and see what is ready."
	descInput     = "The step's input, matching the expects the journey showed for it."
	descDecline   = "Set true when the person said no to a step or action that returned needs-confirm; closes the ask, does nothing."
	descJourney   = "The journey id, as listed by whats_here."
	descWhatsHere = "Where the app is and what can be done here: facts (the app's own record of what did and did not happen; it outranks the conversation), " +
		"a brief of what happened, the actions offered on this page and the journeys you can start here. Pass sinceVersion to get only what changed since then."
	descSince   = "A version from an earlier result; the brief then covers only what happened after it."
	descWhy     = "Why a state key has its value: the chain of fires, reports and patches behind it, and who made each."
	descKey     = "The state key, e.g. cart.items."
	descDo      = "Perform one action offered on this page, outside a journey, by its exact id or a unique suffix. High-effect actions first return needs-confirm and do nothing until called again with confirm:true."
	descAction  = "The action id or a unique suffix of it, as listed by whats_here."
	descAInput  = "The action's input, matching its expects."
	descDid     = "The settled facts of a fire (did it happen, with what data or error), or where an ask stands. Fires settle after they return: check here before saying anything happened."
	descTransID = "The transitionId a fire returned, or an askId."

	confirmAsks      = "Set true once the person said yes to the step or action that returned needs-confirm."
	confirmGated     = "Set true once the person approved the ask in the app: this app requires a person's approval for high-effect fires and refuses without it."
	confirmNotGated  = "Set true to go ahead with a high-effect step or action. Fires through this port are not gated by a person's approval."
	confirmNotNeeded = "Not needed: this port does not ask for confirmation before high-effect fires."
)

// schemaJSON builds an object schema with string-keyed properties in order.
func schemaJSON(required string, props ...[3]string) json.RawMessage {
	b := []byte(`{"type":"object","properties":{`)
	for i, p := range props {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendValue(b, p[0])
		b = append(b, `:{"type":`...)
		b = AppendValue(b, p[1])
		b = append(b, `,"description":`...)
		b = AppendValue(b, p[2])
		b = append(b, '}')
	}
	b = append(b, '}')
	if required != "" {
		b = append(b, `,"required":[`...)
		b = AppendValue(b, required)
		b = append(b, ']')
	}
	return append(b, `,"additionalProperties":false}`...)
}

// buildTools makes the port's tools and routes.
func (p *Port) buildTools() {
	g := p.app.g
	confirm := confirmAsks
	switch {
	case p.gated:
		confirm = confirmGated
	case !p.confirm:
		confirm = confirmNotNeeded
	case p.app.Enforcing():
		confirm = confirmNotGated
	}
	stepProps := [][3]string{
		{"step", "string", descStep},
		{"input", "object", descInput},
		{"confirm", "boolean", confirm},
		{"decline", "boolean", descDecline},
	}
	p.routes = map[string]route{}
	add := func(t Tool, r route) {
		if _, dup := p.routes[t.Name]; dup && p.dupName == "" {
			p.dupName = t.Name
		}
		p.tools = append(p.tools, t)
		p.routes[t.Name] = r
	}
	if p.single {
		name := composeName(p.sep, g.ID, "journey")
		props := append([][3]string{{"journey", "string", descJourney}}, stepProps...)
		add(Tool{Name: name, Description: singleUsage, InputSchema: schemaJSON("journey", props...),
			Annotations: ToolAnnotations{Title: "Journey", DestructiveHint: true}}, route{kind: routeJourney})
	} else {
		schema := schemaJSON("", stepProps...)
		for _, j := range g.Journeys {
			name := composeName(p.sep, g.ID, "journey", j.ID)
			desc := journeyUsage
			if j.Does != "" {
				desc = j.Does + "\n" + journeyUsage
			}
			add(Tool{Name: name, Description: desc, InputSchema: schema,
				Annotations: ToolAnnotations{Title: "Journey " + j.ID, DestructiveHint: true}}, route{kind: routeJourney, journey: j.ID})
		}
	}
	p.names.whatsHere = composeName(p.sep, g.ID, "whats_here")
	p.names.why = composeName(p.sep, g.ID, "why")
	p.names.doAction = composeName(p.sep, g.ID, "do_action")
	p.names.didItWork = composeName(p.sep, g.ID, "did_it_work")
	sinceSchema := json.RawMessage(`{"type":"object","properties":{"sinceVersion":{"type":"integer","minimum":0,"description":` +
		string(AppendValue(nil, descSince)) + `}},"additionalProperties":false}`)
	add(Tool{Name: p.names.whatsHere, Description: descWhatsHere, InputSchema: sinceSchema,
		Annotations: ToolAnnotations{Title: "What's here", ReadOnlyHint: true}}, route{kind: routeWhatsHere})
	add(Tool{Name: p.names.why, Description: descWhy, InputSchema: schemaJSON("key", [3]string{"key", "string", descKey}),
		Annotations: ToolAnnotations{Title: "Why", ReadOnlyHint: true}}, route{kind: routeWhy})
	add(Tool{Name: p.names.doAction, Description: descDo, InputSchema: schemaJSON("action",
		[3]string{"action", "string", descAction}, [3]string{"input", "object", descAInput},
		[3]string{"confirm", "boolean", confirm}, [3]string{"decline", "boolean", descDecline}),
		Annotations: ToolAnnotations{Title: "Do action", DestructiveHint: true}}, route{kind: routeDoAction})
	add(Tool{Name: p.names.didItWork, Description: descDid, InputSchema: schemaJSON("transitionId", [3]string{"transitionId", "string", descTransID}),
		Annotations: ToolAnnotations{Title: "Did it work", ReadOnlyHint: true}}, route{kind: routeDidItWork})
	b := []byte{'['}
	for i, t := range p.tools {
		if i > 0 {
			b = append(b, ',')
		}
		b = t.AppendJSON(b)
	}
	p.toolsJSON = append(b, ']')
	p.toolNames = make([]string, len(p.tools))
	for i, t := range p.tools {
		p.toolNames[i] = t.Name
	}
}
