// The scripted model: deterministic and offline, rich enough to show every
// feature of a session — streamed text, a page tool, a journey through a
// serving port with a human approval, an MCP composition tool with a draft,
// and an error — chosen by keywords in the person's last message. Each
// scenario can be asked again: a second basemap or layer that changes
// nothing says so, and a second publish finds the way back to the
// journey's first page (whats_here's routeTo, then do_action) and asks for
// the approval again. What it says is for a person: the port's judgments
// (navigate-or-wait, …) are put in words, never quoted.

package studioproxy

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// ScriptedModelName is the model name the scripted model reports.
const ScriptedModelName = "scripted-model"

// Names of the tools the scripted scenarios use. The page tool and the
// composition tools are matched exactly; the journey tool by suffix, so any
// graph id works, with the separator ".", "__" or "_" (as an OpenAI-compatible
// endpoint sees the names); and the port's
// whats_here and do_action (the way back to the journey's first page) by
// suffix under the journey tool's graph id.
const (
	PageToolName      = "set_basemap"
	CreateDraftTool   = "honua_studio_create_draft"
	AddLayerTool      = "honua_studio_add_layer"
	PublishJourneyEnd = "journey.publish"
	WhatsHereEnd      = "whats_here"
	DoActionEnd       = "do_action"
)

// Scripted is the deterministic model. Its zero value streams without
// pauses; Pace sets the pause between two text deltas, so a person sees
// the text arrive.
type Scripted struct {
	Pace time.Duration
}

// scriptedHelp is the answer to anything no scenario matches: what to try.
const scriptedHelp = "I am the scripted model of agentwasm dev: no network, no key, the same answer every time. " +
	"Try one of these: \"make the map dark\" (a page tool), \"add a schools layer\" (an MCP composition tool with a draft), " +
	"\"publish the map\" (a journey through the app's port, with your approval), " +
	"\"tell me a long story\" (then press Stop), or \"fail please\" (an error)."

const scriptedStory = "Once upon a time a map lived inside a web page. Every morning it asked the agent beside it what the day would bring, " +
	"and every morning the agent answered in small pieces, one word after another, so that the person reading could stop it at any moment. " +
	"The map liked that. It had seen agents that could not be stopped, and it remembered how long those days were. " +
	"So it kept a stop button close, and a person closer, and the story went on and on, word after patient word, " +
	"through layers and drafts and journeys, until someone decided it had gone on long enough."

// Stream answers one request by the scenario the last user message picks
// (see this file's opening comment and plan).
func (m Scripted) Stream(ctx context.Context, req *ChatRequest, sink Sink) error {
	a := &answer{ctx: ctx, sink: sink, pace: m.Pace, req: req}
	if err := a.send(EventMessageStart, Event{Model: ScriptedModelName}); err != nil {
		return err
	}
	return a.plan()
}

// answer is one answer being written.
type answer struct {
	ctx   context.Context
	sink  Sink
	pace  time.Duration
	req   *ChatRequest
	words int
	calls int
}

// toolResult is a tool message of the current turn, with its call.
type toolResult struct {
	name    string
	args    map[string]any
	content map[string]any // the tool message's JSON, when it is an object
}

// plan picks the scenario from the last user message and the step from
// the tool results since it.
func (a *answer) plan() error {
	text := strings.ToLower(lastUser(a.req))
	results := a.turnResults()
	switch {
	case hasAny(text, "fail", "error"):
		return a.send(EventError, Event{ErrorMessage: "The scripted model was asked to fail: this is how an error from the model looks.", ErrorCode: "scripted_error"})
	case strings.HasPrefix(text, "approved") || strings.HasPrefix(text, "declined"):
		return a.afterApproval(strings.HasPrefix(text, "approved"), results)
	case hasAny(text, "publish"):
		return a.publish(results)
	case hasAny(text, "layer", "draft", "school", "park", "river"):
		return a.compose(text, results)
	case hasAny(text, "dark", "light", "satellite", "basemap"):
		return a.basemap(text, results)
	case hasAny(text, "story", "long", "slow"):
		return a.say(scriptedStory)
	default:
		return a.say(scriptedHelp)
	}
}

// basemap: the page tool, then a sentence about its result.
func (a *answer) basemap(text string, results []toolResult) error {
	style := "dark"
	for _, s := range []string{"light", "satellite", "dark"} {
		if strings.Contains(text, s) {
			style = s
		}
	}
	if len(results) == 0 {
		if !hasTool(a.req, PageToolName) {
			return a.say("The page offers no " + PageToolName + " tool to this session, so I cannot change the basemap.")
		}
		return a.call(PageToolName, map[string]any{"style": style})
	}
	r := results[len(results)-1]
	if r.content["status"] == "ok" {
		if data, _ := r.content["data"].(map[string]any); data != nil && data["changed"] == false {
			return a.say("The basemap is already " + style + "; nothing changed.")
		}
		return a.say("Done: the basemap is now " + style + ".")
	}
	return a.say("The page did not change the basemap: " + describe(r.content) + ".")
}

// compose: a draft (created when the conversation has none), then a layer.
func (a *answer) compose(text string, results []toolResult) error {
	layer := "schools"
	for _, l := range []string{"parks", "rivers", "schools"} {
		if strings.Contains(text, strings.TrimSuffix(l, "s")) {
			layer = l
		}
	}
	if !hasTool(a.req, AddLayerTool) {
		return a.say("The MCP composition tools are not available to this session right now (the discovery panel says why), so I cannot add the " + layer + " layer.")
	}
	if len(results) == 0 {
		if a.draftInHistory() {
			return a.call(AddLayerTool, map[string]any{"layer": layer})
		}
		return a.call(CreateDraftTool, map[string]any{"title": "Demo map"})
	}
	r := results[len(results)-1]
	if r.content["status"] != "ok" {
		return a.say("The composition tool " + r.name + " failed: " + describe(r.content) + ".")
	}
	if r.name == CreateDraftTool {
		return a.call(AddLayerTool, map[string]any{"layer": layer})
	}
	draft, _ := r.content["draft"].(map[string]any)
	id, gen := str(draft["draftId"]), str(draft["generation"])
	if before := a.generationBefore(id); before != "" && before == gen {
		// The server moves a draft to its next generation on every change,
		// and an edit that changes nothing leaves it where it was.
		return a.say("Draft " + id + " already has the " + layer + " layer, so nothing changed; it is still at generation " + gen + ".")
	}
	return a.say("Added the " + layer + " layer to draft " + id + ", which is now at generation " + gen + ".")
}

// generationBefore returns the generation of draft id in the latest tool
// result before the last message (the call being reported), or "".
func (a *answer) generationBefore(id string) string {
	msgs := a.req.Messages
	for i := len(msgs) - 2; i >= 0; i-- {
		if msgs[i].Role != "tool" || !strings.Contains(msgs[i].Content, `"draftId"`) {
			continue
		}
		var content struct {
			Draft struct {
				DraftID    string `json:"draftId"`
				Generation any    `json:"generation"`
			} `json:"draft"`
		}
		if json.Unmarshal([]byte(msgs[i].Content), &content) == nil && content.Draft.DraftID == id {
			return str(content.Draft.Generation)
		}
	}
	return ""
}

// publish: open the app's publish journey and walk its ready steps; a
// high-effect step waits for the person. When the journey's first step is
// on another page (the map was published already, say), it asks the port
// for the way there (whats_here with routeTo), takes the hops (do_action)
// and goes on with that step.
func (a *answer) publish(results []toolResult) error {
	tool := a.journeyTool()
	if tool == "" {
		return a.say("This session offers no publish journey (the demo page's app does: try it there), so there is nothing I can publish here.")
	}
	if len(results) == 0 {
		return a.call(tool, map[string]any{})
	}
	return a.publishNext(tool, results)
}

// publishNext takes the publish journey's next step after the turn's
// latest tool result.
func (a *answer) publishNext(tool string, results []toolResult) error {
	r := results[len(results)-1]
	data, _ := r.content["data"].(map[string]any)
	switch {
	case sameTool(r.name, a.portTool(WhatsHereEnd)) && data != nil:
		return a.followRoute(tool, data, results)
	case sameTool(r.name, a.portTool(DoActionEnd)) && data != nil:
		if data["ok"] != true {
			return a.say("I could not get the app to the page where publishing starts: " + clause(firstNonEmpty(str(data["why"]), "the app did not say why")) + ".")
		}
		return a.nextHop(tool, results)
	}
	return a.journeyNext(tool, r, results)
}

// journeyNext reads a journey result and takes the next step.
func (a *answer) journeyNext(tool string, r toolResult, results []toolResult) error {
	data, _ := r.content["data"].(map[string]any)
	if data == nil {
		return a.say("The app answered the journey with " + describe(r.content) + ".")
	}
	judgment := str(data["judgment"])
	switch {
	case judgment == "needs-confirm":
		return a.say("Publishing puts the map on the public site, so it waits for you: approve or decline the card in the page.")
	case judgment == "declined":
		return a.say(a.declinedWords())
	case judgment == "done" || data["effectStatus"] == "performed" && len(steps(data)) == 0:
		inner, _ := data["data"].(map[string]any)
		if v := str(inner["version"]); v != "" && v != "1" {
			return a.say("Published: version " + v + " of the map is live.")
		}
		return a.say("Published: the map is live.")
	case data["ok"] == false || judgment == "rejected" || judgment == "blocked" || judgment == "error":
		return a.say("The app refused: " + clause(firstNonEmpty(str(data["why"]), "it did not say why")) + ".")
	}
	if s := steps(data); len(s) > 0 && r.args["step"] != s[0] {
		return a.call(tool, map[string]any{"step": s[0]})
	}
	if step, page := elsewhere(data); step != "" && a.portTool(WhatsHereEnd) != "" && !a.called(results, WhatsHereEnd) {
		return a.call(a.portTool(WhatsHereEnd), map[string]any{"routeTo": page})
	}
	return a.say(standsWords(data))
}

// followRoute reads whats_here's route to the page of the journey's
// waiting step: the first hop, or the step itself when the app is there.
func (a *answer) followRoute(tool string, data map[string]any, results []toolResult) error {
	route, _ := data["route"].(map[string]any)
	hops, _ := route["hops"].([]any)
	switch {
	case len(hops) > 0:
		hop, _ := hops[0].(map[string]any)
		return a.call(a.portTool(DoActionEnd), map[string]any{"action": str(hop["action"])})
	case route["alreadyHere"] == true:
		return a.nextHop(tool, results)
	}
	where := firstNonEmpty(str(route["to"]), "another")
	return a.say("Publishing starts on the " + where + " page, and the app offers no way to get there from the " +
		firstNonEmpty(str(data["youAreOn"]), "current") + " page, so I cannot publish from here.")
}

// nextHop takes the route's next hop after the turn's latest do_action,
// or, the route walked, the journey step that waited on that page.
func (a *answer) nextHop(tool string, results []toolResult) error {
	var route []any
	step := ""
	for _, r := range results {
		data, _ := r.content["data"].(map[string]any)
		switch {
		case sameTool(r.name, tool) && data != nil:
			if s, _ := elsewhere(data); s != "" {
				step = s
			}
		case sameTool(r.name, a.portTool(WhatsHereEnd)) && data != nil:
			rt, _ := data["route"].(map[string]any)
			route, _ = rt["hops"].([]any)
		}
	}
	last := results[len(results)-1]
	if sameTool(last.name, a.portTool(DoActionEnd)) {
		for i, h := range route {
			if hop, _ := h.(map[string]any); str(hop["action"]) == str(last.args["action"]) && i+1 < len(route) {
				next, _ := route[i+1].(map[string]any)
				return a.call(a.portTool(DoActionEnd), map[string]any{"action": str(next["action"])})
			}
		}
	}
	if step == "" {
		return a.call(tool, map[string]any{})
	}
	return a.call(tool, map[string]any{"step": step})
}

// elsewhere returns the first later step of a journey result that waits
// on another page, and that page; "" when none does.
func elsewhere(data map[string]any) (step, page string) {
	later, _ := data["laterSteps"].([]any)
	for _, l := range later {
		if m, _ := l.(map[string]any); m != nil && m["status"] == "on-another-page" && str(m["on"]) != "" {
			return str(m["step"]), str(m["on"])
		}
	}
	return "", ""
}

// standsWords says, for a person, why a journey cannot go on: its judgment
// and its later steps put in words.
func standsWords(data map[string]any) string {
	if _, page := elsewhere(data); page != "" {
		return "Publishing cannot go on from here: its next step is on the " + page + " page, and I found no way there from the " +
			firstNonEmpty(str(data["youAreOn"]), "current") + " page."
	}
	later, _ := data["laterSteps"].([]any)
	for _, l := range later {
		m, _ := l.(map[string]any)
		switch m["status"] {
		case "in-flight":
			return "The app is still working on the last step of publishing; ask me again in a moment."
		case "disabled", "not-offered":
			because, _ := m["blockedBecause"].([]any)
			var why []string
			for _, b := range because {
				why = append(why, str(b))
			}
			if len(why) > 0 {
				return "Publishing cannot go on right now: the app holds its next step back until " + strings.Join(why, " and ") + "."
			}
			return "Publishing cannot go on right now: the app holds its next step back."
		}
	}
	switch str(data["judgment"]) {
	case "still-pending":
		return "The app is still working on it; ask me again in a moment."
	case "needs-choice":
		return "Publishing can go on in more than one way here, and I would rather you chose: tell me which."
	}
	return "Publishing did not go on, and the app did not say why."
}

// declinedWords is the answer to a declined publish: the map stays as it
// was, unpublished or at the version already live.
func (a *answer) declinedWords() string {
	if a.publishedBefore() {
		return "Understood: nothing new was published; the version already live stays as it is."
	}
	return "Understood: the map stays unpublished."
}

// publishedBefore reports whether the map was on the public site before:
// an earlier journey result of the conversation published it, or a port
// result found the app on its published page (a conversation started
// afresh after publishing sees only that).
func (a *answer) publishedBefore() bool {
	tool, whats, do := a.journeyTool(), a.portTool(WhatsHereEnd), a.portTool(DoActionEnd)
	for _, m := range a.req.Messages {
		if m.Role != "tool" || !(sameTool(m.ToolName, tool) || sameTool(m.ToolName, whats) || sameTool(m.ToolName, do)) {
			continue
		}
		var content struct {
			Data struct {
				Frame        string `json:"frame"`
				EffectStatus string `json:"effectStatus"`
				YouAreOn     string `json:"youAreOn"`
			} `json:"data"`
		}
		if json.Unmarshal([]byte(m.Content), &content) != nil {
			continue
		}
		d := content.Data
		if d.YouAreOn == "published" || sameTool(m.ToolName, tool) && d.Frame == "completed" && d.EffectStatus == "performed" {
			return true
		}
	}
	return false
}

// afterApproval goes on after the person's answer to the card. An
// approval repeats the call that met needs-confirm with confirm:true. A
// decline made in the app (an ask that awaited a person) is already
// recorded by the port, so it only reports; a decline the person typed is
// relayed with decline:true.
func (a *answer) afterApproval(approved bool, results []toolResult) error {
	tool := a.journeyTool()
	if len(results) > 0 && tool != "" {
		return a.publishNext(tool, results)
	}
	args, inApp := a.pendingConfirm()
	if tool == "" || args == nil {
		return a.say("There is nothing waiting for an approval.")
	}
	switch {
	case approved:
		args["confirm"] = true
	case inApp:
		return a.say(a.declinedWords())
	default:
		args["decline"] = true
	}
	return a.call(tool, args)
}

// pendingConfirm returns a copy of the arguments of the latest call whose
// result was needs-confirm, or nil, and whether that ask awaited a person
// in the app (awaitingHuman: the page's card answers it).
func (a *answer) pendingConfirm() (found map[string]any, inApp bool) {
	calls := map[string]ToolCall{}
	for _, m := range a.req.Messages {
		for _, c := range m.ToolCalls {
			calls[c.ID] = c
		}
		if m.Role != "tool" || !strings.Contains(m.Content, "needs-confirm") {
			continue
		}
		var content map[string]any
		if json.Unmarshal([]byte(m.Content), &content) != nil {
			continue
		}
		if data, _ := content["data"].(map[string]any); data != nil && data["judgment"] == "needs-confirm" {
			var args map[string]any
			_ = json.Unmarshal(calls[m.ToolCallID].Arguments, &args)
			if args == nil {
				args = map[string]any{}
			}
			found, inApp = args, data["awaitingHuman"] == true
		}
	}
	return found, inApp
}

// journeyTool returns the advertised tool that ends in PublishJourneyEnd
// (with any separator), or "".
func (a *answer) journeyTool() string {
	for _, t := range a.req.Tools {
		if strings.HasSuffix(dotted(t.Name), dotted(PublishJourneyEnd)) {
			return t.Name
		}
	}
	return ""
}

// portTool returns the advertised tool of the publish journey's port that
// ends in end (with any separator), or "".
func (a *answer) portTool(end string) string {
	j := dotted(a.journeyTool())
	prefix, _, ok := strings.Cut(j, ".")
	if !ok {
		return ""
	}
	for _, t := range a.req.Tools {
		if dotted(t.Name) == prefix+"."+dotted(end) {
			return t.Name
		}
	}
	return ""
}

// called reports whether the turn's results include a call of the port
// tool ending in end.
func (a *answer) called(results []toolResult, end string) bool {
	name := a.portTool(end)
	for _, r := range results {
		if sameTool(r.name, name) {
			return true
		}
	}
	return false
}

// sameTool reports whether a tool message's name is the tool want ("" is
// no tool).
func sameTool(name, want string) bool { return want != "" && name == want }

// draftInHistory reports whether an earlier tool result carried a draft.
func (a *answer) draftInHistory() bool {
	for _, m := range a.req.Messages {
		if m.Role == "tool" && strings.Contains(m.Content, `"draftId"`) {
			return true
		}
	}
	return false
}

// turnResults returns the tool messages after the last user message, each
// with the call it answers.
func (a *answer) turnResults() []toolResult {
	last := -1
	for i, m := range a.req.Messages {
		if m.Role == "user" {
			last = i
		}
	}
	calls := map[string]ToolCall{}
	var out []toolResult
	for _, m := range a.req.Messages[last+1:] {
		for _, c := range m.ToolCalls {
			calls[c.ID] = c
		}
		if m.Role != "tool" {
			continue
		}
		r := toolResult{name: m.ToolName}
		_ = json.Unmarshal([]byte(m.Content), &r.content)
		if r.content == nil {
			r.content = map[string]any{"raw": m.Content}
		}
		_ = json.Unmarshal(calls[m.ToolCallID].Arguments, &r.args)
		out = append(out, r)
	}
	return out
}

// call sends one tool call (its arguments in two deltas) and ends the
// answer with stopReason toolCall.
func (a *answer) call(name string, args map[string]any) error {
	a.calls++
	id := "call-" + strconv.Itoa(len(a.req.Messages)) + "-" + strconv.Itoa(a.calls)
	raw, _ := json.Marshal(args)
	if err := a.send(EventToolCallStart, Event{ToolCallID: id, ToolName: name}); err != nil {
		return err
	}
	half := len(raw) / 2
	for _, part := range []string{string(raw[:half]), string(raw[half:])} {
		if err := a.send(EventToolCallDelta, Event{ToolCallID: id, ToolArgumentsDelta: part}); err != nil {
			return err
		}
	}
	if err := a.send(EventToolCallStop, Event{ToolCallID: id, ToolArguments: raw}); err != nil {
		return err
	}
	return a.stop(StopToolCall)
}

// say streams text word by word and ends the turn.
func (a *answer) say(text string) error {
	for i, w := range strings.SplitAfter(text, " ") {
		if i > 0 && a.pace > 0 {
			t := time.NewTimer(a.pace)
			select {
			case <-a.ctx.Done():
				t.Stop()
				return a.ctx.Err()
			case <-t.C:
			}
		}
		a.words++
		if err := a.send(EventTextDelta, Event{Text: w}); err != nil {
			return err
		}
	}
	return a.stop(StopEndTurn)
}

// stop sends message_stop with deterministic token counts.
func (a *answer) stop(reason string) error {
	prompt := 0
	for _, m := range a.req.Messages {
		prompt += len(m.Content)/4 + 1
	}
	return a.send(EventMessageStop, Event{StopReason: reason, PromptTokens: int64(prompt), CompletionTokens: int64(a.words + 8*a.calls)})
}

// send passes one event on, unless the client has gone.
func (a *answer) send(name string, ev Event) error {
	if err := a.ctx.Err(); err != nil {
		return err
	}
	return a.sink.Send(name, ev)
}

// steps returns the ids of a journey result's ready steps.
func steps(data map[string]any) []string {
	var out []string
	list, _ := data["readySteps"].([]any)
	for _, s := range list {
		if m, ok := s.(map[string]any); ok && str(m["step"]) != "" {
			out = append(out, str(m["step"]))
		}
	}
	return out
}

// describe says what a failed tool result says.
func describe(content map[string]any) string {
	return firstNonEmpty(str(content["message"]), str(content["deniedReason"]), str(content["status"]), "no details")
}

// clause is a sentence without its final full stop, to end another one.
func clause(s string) string { return strings.TrimRight(strings.TrimSpace(s), ".") }

func hasAny(s string, words ...string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// str renders a JSON value briefly: strings as they are, numbers plainly.
func str(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	default:
		b, _ := json.Marshal(v)
		return string(b)
	}
}

// dotted returns a tool name with its separators as dots: "__" (an older
// mapping) and "_" (the OpenAI-compatible endpoint's, studio_journey_publish)
// alike, so a name is recognized however it was mapped.
func dotted(name string) string {
	return strings.ReplaceAll(strings.ReplaceAll(name, "__", "."), "_", ".")
}
