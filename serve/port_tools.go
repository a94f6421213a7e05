// The fixed tool set of a port: names, descriptions, input schemas and MCP
// annotations, built once at NewPort so the array is byte-identical for
// the port's life.

package serve

// Tool is one tool a port offers.
type Tool struct {
	Name        string
	Description string
	InputSchema RawJSON
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
		// readOnlyHint is false by default; destructiveHint, true by
		// default, is stated either way.
		dst = append(dst, `,"destructiveHint":`...)
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
//
// The rules every firing tool shares (needs-confirm, confirm, decline, a
// person's approval) are stated once, on do_action, which every port has:
// a journey tool (one per journey in per-journey mode) carries its
// journey's does, one line of use and a compact schema whose confirm and
// decline say "As in do_action". A model reads the whole array at once, so
// nothing it needs is lost, and an app's journeys do not repeat the rules
// (fixture_test.go pins what that saves on the 57-journey fixture).
const (
	journeyUsage = "Call with {} to open it and see its ready steps, then with step (and input) to perform one."
	singleUsage  = "Open or continue a journey, a multi-step task of the app (whats_here lists those you can start here): " +
		"call with journey to open it and see its ready steps; add step (and input) to perform one."
	descStep      = "A step's id or a unique suffix of it."
	descInput     = "The step's input, per its expects."
	descAsDo      = "As in do_action."
	descJourney   = "A journey id from whats_here."
	descWhatsHere = "Where the app is and what can be done here: facts (the app's own record of what did and did not happen; it outranks the conversation), " +
		"a brief of what happened, this page's actions and the journeys you can start here."
	descSince   = "A version from an earlier result: then only what changed after it."
	descWhy     = "Why a state key has its value: the chain of fires, reports and patches behind it, and who made each."
	descKey     = "The state key, e.g. cart.items."
	descDo      = "Perform one action offered on this page, outside a journey."
	ruleConfirm = " A high-effect action or journey step first returns needs-confirm with receipts and does nothing: " +
		"ask the person, then call again with confirm:true, or decline:true if they say no."
	ruleGated = " A high-effect action or journey step first returns needs-confirm with receipts and does nothing: " +
		"the person approves or declines it in the app, then call again with confirm:true and its askId."
	descAction  = "An action id from whats_here, or a unique suffix of it."
	descAInput  = "The action's input, per its expects."
	descDecline = "Set true if the person said no to a needs-confirm: closes the ask, does nothing."
	descAskID   = "The askId of the needs-confirm this call answers, with confirm or decline. A person's approval backs one fire by the conversation that asked; a call without a session counts only when it cites the askId."
	descDid     = "The settled facts of a fire (did it happen, with what data or error) or where an ask stands. Fires settle after they return: check here before saying one happened."
	descTransID = "The transitionId a fire returned, or an askId."

	// The second version's arguments, offered only by a graph that uses
	// them.
	descInstance = "The card to act on, for an action whose whats_here row lists instances: one of its keys."
	descOfferID  = "For an action whose whats_here row carries an offerId: that offerId, citing what you saw."
	descRouteTo  = "A page id: then the answer is the way there along the app's declared navigation, not the usual overview."

	confirmAsks      = "Set true once the person said yes to a needs-confirm."
	confirmGated     = "Set true once the person approved the ask in the app: this app requires a person's approval for high-effect fires and refuses without it."
	confirmNotGated  = "Set true to go ahead with a high-effect step or action. Fires through this port are not gated by a person's approval."
	confirmNotNeeded = "Not needed: this port does not ask for confirmation before high-effect fires."
)

// schemaJSON builds an object schema with string-keyed properties in order.
func schemaJSON(required string, props ...[3]string) RawJSON {
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
	// The journey tools' schema: confirm and decline work as in do_action,
	// whose schema and description state them in full.
	stepProps := [][3]string{
		{"step", "string", descStep},
		{"input", "object", descInput},
		{"confirm", "boolean", descAsDo},
		{"decline", "boolean", descAsDo},
	}
	// Arguments only a graph with repeating or citing actions takes; the
	// tools of any other graph stay as they were.
	var v2Props [][3]string
	if p.instances {
		v2Props = append(v2Props, [3]string{"instance", "string", descInstance})
	}
	if p.citing {
		v2Props = append(v2Props, [3]string{"offerId", "string", descOfferID})
	}
	// askId, offered where an approval gates fires: a gated port over a
	// graph with a high-effect action. (Elsewhere confirm:true needs no
	// person's approval, so no ask is ever cited.)
	askProp := p.gated && hasConfirm(g)
	if askProp {
		stepProps = append(stepProps, [3]string{"askId", "string", descAsDo})
	}
	stepProps = append(stepProps, v2Props...)
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
	routeProp := ""
	if g.RouteTo {
		routeProp = `,"routeTo":{"type":"string","description":` + string(AppendValue(nil, descRouteTo)) + `}`
	}
	sinceSchema := RawJSON(`{"type":"object","properties":{"sinceVersion":{"type":"integer","minimum":0,"description":` +
		string(AppendValue(nil, descSince)) + `}` + routeProp + `},"additionalProperties":false}`)
	add(Tool{Name: p.names.whatsHere, Description: descWhatsHere, InputSchema: sinceSchema,
		Annotations: ToolAnnotations{Title: "What's here", ReadOnlyHint: true}}, route{kind: routeWhatsHere})
	add(Tool{Name: p.names.why, Description: descWhy, InputSchema: schemaJSON("key", [3]string{"key", "string", descKey}),
		Annotations: ToolAnnotations{Title: "Why", ReadOnlyHint: true}}, route{kind: routeWhy})
	doDesc := descDo // the rules of every firing tool, stated once
	switch {
	case p.gated:
		doDesc += ruleGated
	case p.confirm:
		doDesc += ruleConfirm
	}
	doProps := [][3]string{{"action", "string", descAction}, {"input", "object", descAInput},
		{"confirm", "boolean", confirm}, {"decline", "boolean", descDecline}}
	if askProp {
		doProps = append(doProps, [3]string{"askId", "string", descAskID})
	}
	doProps = append(doProps, v2Props...)
	add(Tool{Name: p.names.doAction, Description: doDesc, InputSchema: schemaJSON("action", doProps...),
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

// hasConfirm reports whether any action of g is high-effect (confirm).
func hasConfirm(g *Graph) bool {
	for i := range g.Actions {
		if g.Actions[i].Confirm {
			return true
		}
	}
	return false
}
