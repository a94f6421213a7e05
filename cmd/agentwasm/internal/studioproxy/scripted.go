// The scripted model: deterministic and offline, rich enough to show every
// feature of a session — streamed text, a page tool, a journey through a
// serving port with a human approval, an MCP composition tool with a draft,
// and an error — chosen by keywords in the person's last message.

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
// graph id works, with the separator "." or "__".
const (
	PageToolName      = "set_basemap"
	CreateDraftTool   = "honua_studio_create_draft"
	AddLayerTool      = "honua_studio_add_layer"
	PublishJourneyEnd = "journey.publish"
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
	return a.say("Added the " + layer + " layer to draft " + str(draft["draftId"]) + ", which is now at generation " + str(draft["generation"]) + ".")
}

// publish: open the app's publish journey and walk its ready steps; a
// high-effect step waits for the person.
func (a *answer) publish(results []toolResult) error {
	tool := a.journeyTool()
	if tool == "" {
		return a.say("This page offers no publish journey, so there is nothing I can publish here.")
	}
	if len(results) == 0 {
		return a.call(tool, map[string]any{})
	}
	return a.journeyNext(tool, results[len(results)-1])
}

// journeyNext reads a journey result and takes the next step.
func (a *answer) journeyNext(tool string, r toolResult) error {
	data, _ := r.content["data"].(map[string]any)
	if data == nil {
		return a.say("The app answered the journey with " + describe(r.content) + ".")
	}
	judgment := str(data["judgment"])
	switch {
	case judgment == "needs-confirm":
		return a.say("Publishing is a high-effect step, so it waits for you: approve or decline the card in the page.")
	case judgment == "declined":
		return a.say("Understood: the map stays unpublished.")
	case judgment == "done" || data["effectStatus"] == "performed" && len(steps(data)) == 0:
		return a.say("Published: the map is live.")
	case data["ok"] == false || judgment == "rejected" || judgment == "blocked" || judgment == "error":
		return a.say("The app refused: " + firstNonEmpty(str(data["why"]), str(data["reason"]), judgment) + ".")
	}
	if s := steps(data); len(s) > 0 && r.args["step"] != s[0] {
		return a.call(tool, map[string]any{"step": s[0]})
	}
	return a.say("The journey stands at " + firstNonEmpty(judgment, "an unknown point") + ".")
}

// afterApproval repeats the call that met needs-confirm, confirmed or
// declined, then reports.
func (a *answer) afterApproval(approved bool, results []toolResult) error {
	tool := a.journeyTool()
	if len(results) > 0 {
		return a.journeyNext(tool, results[len(results)-1])
	}
	args := a.pendingConfirm()
	if tool == "" || args == nil {
		return a.say("There is nothing waiting for an approval.")
	}
	if approved {
		args["confirm"] = true
	} else {
		args["decline"] = true
	}
	return a.call(tool, args)
}

// pendingConfirm returns a copy of the arguments of the latest call whose
// result was needs-confirm, or nil.
func (a *answer) pendingConfirm() map[string]any {
	calls := map[string]ToolCall{}
	var found map[string]any
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
			found = args
		}
	}
	return found
}

// journeyTool returns the advertised tool that ends in PublishJourneyEnd
// (with any separator), or "".
func (a *answer) journeyTool() string {
	for _, t := range a.req.Tools {
		n := strings.ReplaceAll(t.Name, "__", ".")
		if strings.HasSuffix(n, PublishJourneyEnd) {
			return t.Name
		}
	}
	return ""
}

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
