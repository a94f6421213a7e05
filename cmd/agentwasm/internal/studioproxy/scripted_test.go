// The scripted model's scenarios through the proxy's HTTP handler: each
// answer obeys the grammar and says or calls what the scenario promises.

package studioproxy

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentwasm/agentwasm/internal/rawjson"
	"github.com/agentwasm/agentwasm/serve"
)

// conv builds a conversation: user texts, assistant calls and tool results.
type conv struct {
	msgs  []Message
	tools []Tool
}

func newConv(tools ...string) *conv {
	c := &conv{}
	for _, n := range tools {
		c.tools = append(c.tools, Tool{Name: n})
	}
	return c
}

func (c *conv) user(text string) *conv {
	c.msgs = append(c.msgs, Message{Role: "user", Content: text})
	return c
}

// result adds an assistant call of name with args and the tool's answer.
func (c *conv) result(name, args, content string) *conv {
	id := "c" + string(rune('a'+len(c.msgs)))
	c.msgs = append(c.msgs,
		Message{Role: "assistant", ToolCalls: []ToolCall{{ID: id, Name: name, Arguments: rawjson.Message(args)}}},
		Message{Role: "tool", Content: content, ToolCallID: id, ToolName: name})
	return c
}

// ask posts the conversation to a proxy over m and returns the answer.
func ask(t *testing.T, m Model, c *conv) []frame {
	t.Helper()
	body, err := json.Marshal(ChatRequest{Messages: c.msgs, Tools: c.tools})
	require.NoError(t, err)
	rec := httptest.NewRecorder()
	New(Options{Model: m}).ServeHTTP(rec, httptest.NewRequest(http.MethodPost, ChatPath, strings.NewReader(string(body))))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.Equal(t, "text/event-stream", rec.Header().Get("Content-Type"))
	return readGrammar(t, rec.Body.String())
}

const (
	journey     = "studio.journey.publish"
	portResult  = `{"status":"ok","data":%s}`
	readyReview = `{"ok":true,"judgment":"one-ready-step","readySteps":[{"step":"edit.open_review","does":"Open the review"}]}`
	readyPub    = `{"ok":true,"judgment":"one-ready-step","did":"edit.open_review","effectStatus":"performed","readySteps":[{"step":"review.publish","does":"Publish"}]}`
	needsOK     = `{"ok":true,"judgment":"needs-confirm","askId":"ask#1","performed":false}`
	doneResult  = `{"ok":true,"judgment":"done","did":"review.publish","effectStatus":"performed"}`
	// The map published already: the journey's first step is on another page.
	elsewhereResult = `{"ok":true,"judgment":"navigate-or-wait","frame":"opened","readySteps":[],"laterSteps":[{"step":"edit.open_review","status":"on-another-page","on":"edit"},{"step":"review.publish","status":"waiting-for-first-step"}],"youAreOn":"published"}`
	routeResult     = `{"ok":true,"route":{"to":"edit","hops":[{"action":"published.new_version","to":"edit"}]},"youAreOn":"published"}`
	route2Result    = `{"ok":true,"route":{"to":"edit","hops":[{"action":"a.one","to":"b"},{"action":"b.two","to":"edit"}]},"youAreOn":"a"}`
	noRouteResult   = `{"ok":true,"route":{"to":"edit","why":"No declared goTo path leads from page published to page edit."},"youAreOn":"published"}`
	hopResult       = `{"ok":true,"did":"published.new_version","effectStatus":"performed","youAreOn":"edit"}`
	needsHuman      = `{"ok":true,"judgment":"needs-confirm","askId":"ask#1","performed":false,"awaitingHuman":true}`
	doneV2          = `{"ok":true,"judgment":"done","frame":"completed","did":"review.publish","effectStatus":"performed","data":{"version":2}}`
	whatsHere       = "studio.whats_here"
	doAction        = "studio.do_action"
)

func port(data string) string { return strings.Replace(portResult, "%s", data, 1) }

func TestScriptedScenarios(t *testing.T) {
	comp := []string{CreateDraftTool, AddLayerTool}
	cases := []struct {
		name     string
		conv     *conv
		text     string         // the whole text, when the answer is text
		contains string         // a part of the text
		call     string         // the tool called, when the answer is a call
		args     map[string]any // its arguments
		errCode  string         // the error event's code
	}{
		{name: "help", conv: newConv().user("hello"), text: scriptedHelp},
		{name: "error", conv: newConv().user("Fail please"), errCode: "scripted_error"},
		{name: "story", conv: newConv().user("tell me a long story"), text: scriptedStory},
		{name: "basemap without the page tool", conv: newConv().user("make the map dark"), contains: "offers no set_basemap tool"},
		{name: "basemap", conv: newConv(PageToolName).user("Make the map satellite"), call: PageToolName, args: map[string]any{"style": "satellite"}},
		{name: "basemap done", conv: newConv(PageToolName).user("make it light").result(PageToolName, `{"style":"light"}`, `{"status":"ok","data":{"basemap":"light"}}`),
			text: "Done: the basemap is now light."},
		{name: "basemap refused", conv: newConv(PageToolName).user("dark please").result(PageToolName, `{"style":"dark"}`, `{"status":"error","deniedReason":"the map is locked"}`),
			text: "The page did not change the basemap: the map is locked."},
		{name: "compose without MCP tools", conv: newConv().user("add a schools layer"), contains: "not available to this session"},
		{name: "compose creates a draft first", conv: newConv(comp...).user("add a parks layer"), call: CreateDraftTool, args: map[string]any{"title": "Demo map"}},
		{name: "compose adds the layer", conv: newConv(comp...).user("add a parks layer").result(CreateDraftTool, `{"title":"Demo map"}`, `{"status":"ok","draft":{"draftId":"d-1","generation":1}}`),
			call: AddLayerTool, args: map[string]any{"layer": "parks"}},
		{name: "compose reuses the draft of an earlier turn",
			conv: newConv(comp...).user("add rivers").result(CreateDraftTool, `{}`, `{"status":"ok","draft":{"draftId":"d-1","generation":1}}`).user("now a river layer"),
			call: AddLayerTool, args: map[string]any{"layer": "rivers"}},
		{name: "compose reports", conv: newConv(comp...).user("add a schools layer").result(AddLayerTool, `{"layer":"schools"}`, `{"status":"ok","draft":{"draftId":"d-4","generation":3}}`),
			text: "Added the schools layer to draft d-4, which is now at generation 3."},
		{name: "compose failed", conv: newConv(comp...).user("add a schools layer").result(AddLayerTool, `{"layer":"schools"}`, `{"status":"error","code":"not_found","message":"no draft"}`),
			text: "The composition tool honua_studio_add_layer failed: no draft."},
		{name: "publish without a journey", conv: newConv().user("publish the map"), contains: "no publish journey"},
		{name: "publish opens the journey", conv: newConv(journey).user("Publish the map"), call: journey, args: map[string]any{}},
		{name: "publish takes the ready step", conv: newConv(journey).user("publish").result(journey, `{}`, port(readyReview)),
			call: journey, args: map[string]any{"step": "edit.open_review"}},
		{name: "publish takes the next step", conv: newConv(journey).user("publish").result(journey, `{}`, port(readyReview)).result(journey, `{"step":"edit.open_review"}`, port(readyPub)),
			call: journey, args: map[string]any{"step": "review.publish"}},
		{name: "publish waits for the person", conv: newConv(journey).user("publish").result(journey, `{"step":"review.publish"}`, port(needsOK)),
			contains: "approve or decline the card"},
		{name: "approved confirms the paused call", conv: newConv(journey).user("publish").result(journey, `{"step":"review.publish"}`, port(needsOK)).user("Approved: Publish the map"),
			call: journey, args: map[string]any{"step": "review.publish", "confirm": true}},
		{name: "declined declines it", conv: newConv(journey).user("publish").result(journey, `{"step":"review.publish"}`, port(needsOK)).user("Declined: Publish the map"),
			call: journey, args: map[string]any{"step": "review.publish", "decline": true}},
		{name: "approved with nothing pending", conv: newConv(journey).user("Approved"), text: "There is nothing waiting for an approval."},
		{name: "published", conv: newConv(journey).user("Approved: publish").result(journey, `{"step":"review.publish","confirm":true}`, port(doneResult)),
			text: "Published: the map is live."},
		{name: "refused", conv: newConv(journey).user("publish").result(journey, `{}`, port(`{"ok":false,"judgment":"blocked","why":"the map has no layers."}`)),
			text: "The app refused: the map has no layers."},
		{name: "another separator", conv: newConv("studio__journey__publish").user("publish"), call: "studio__journey__publish", args: map[string]any{}},

		// Asked again.
		{name: "basemap already so", conv: newConv(PageToolName).user("make the map dark").result(PageToolName, `{"style":"dark"}`, `{"status":"ok","data":{"basemap":"dark","changed":false}}`),
			text: "The basemap is already dark; nothing changed."},
		{name: "a layer the draft has", conv: newConv(comp...).user("add a schools layer").result(AddLayerTool, `{"layer":"schools"}`, `{"status":"ok","draft":{"draftId":"d-1","generation":3}}`).
			user("add a schools layer").result(AddLayerTool, `{"layer":"schools"}`, `{"status":"ok","draft":{"draftId":"d-1","generation":3}}`),
			text: "Draft d-1 already has the schools layer, so nothing changed; it is still at generation 3."},
		{name: "a layer added to the draft of an earlier turn", conv: newConv(comp...).user("add a schools layer").result(AddLayerTool, `{"layer":"schools"}`, `{"status":"ok","draft":{"draftId":"d-1","generation":3}}`).
			user("add a parks layer").result(AddLayerTool, `{"layer":"parks"}`, `{"status":"ok","draft":{"draftId":"d-1","generation":4}}`),
			text: "Added the parks layer to draft d-1, which is now at generation 4."},
		{name: "publish again asks the way back", conv: newConv(journey, whatsHere, doAction).user("publish the map").result(journey, `{}`, port(elsewhereResult)),
			call: whatsHere, args: map[string]any{"routeTo": "edit"}},
		{name: "publish again takes the hop", conv: newConv(journey, whatsHere, doAction).user("publish the map").result(journey, `{}`, port(elsewhereResult)).
			result(whatsHere, `{"routeTo":"edit"}`, port(routeResult)),
			call: doAction, args: map[string]any{"action": "published.new_version"}},
		{name: "publish again takes the next hop", conv: newConv(journey, whatsHere, doAction).user("publish the map").result(journey, `{}`, port(elsewhereResult)).
			result(whatsHere, `{"routeTo":"edit"}`, port(route2Result)).result(doAction, `{"action":"a.one"}`, port(`{"ok":true,"did":"a.one","youAreOn":"b"}`)),
			call: doAction, args: map[string]any{"action": "b.two"}},
		{name: "publish again, there, takes the waiting step", conv: newConv(journey, whatsHere, doAction).user("publish the map").result(journey, `{}`, port(elsewhereResult)).
			result(whatsHere, `{"routeTo":"edit"}`, port(routeResult)).result(doAction, `{"action":"published.new_version"}`, port(hopResult)),
			call: journey, args: map[string]any{"step": "edit.open_review"}},
		{name: "publish again, already there", conv: newConv(journey, whatsHere, doAction).user("publish the map").result(journey, `{}`, port(elsewhereResult)).
			result(whatsHere, `{"routeTo":"edit"}`, port(`{"ok":true,"route":{"to":"edit","alreadyHere":true}}`)),
			call: journey, args: map[string]any{"step": "edit.open_review"}},
		{name: "publish again with no way back", conv: newConv(journey, whatsHere, doAction).user("publish the map").result(journey, `{}`, port(elsewhereResult)).
			result(whatsHere, `{"routeTo":"edit"}`, port(noRouteResult)),
			text: "Publishing starts on the edit page, and the app offers no way to get there from the published page, so I cannot publish from here."},
		{name: "publish again, the hop refused", conv: newConv(journey, whatsHere, doAction).user("publish the map").result(journey, `{}`, port(elsewhereResult)).
			result(whatsHere, `{"routeTo":"edit"}`, port(routeResult)).
			result(doAction, `{"action":"published.new_version"}`, port(`{"ok":false,"judgment":"rejected","why":"The control is greyed out right now."}`)),
			text: "I could not get the app to the page where publishing starts: The control is greyed out right now."},
		{name: "publish again without whats_here", conv: newConv(journey).user("publish the map").result(journey, `{}`, port(elsewhereResult)),
			text: "Publishing cannot go on from here: its next step is on the edit page, and I found no way there from the published page."},
		{name: "publish again, routed once already", conv: newConv(journey, whatsHere, doAction).user("publish the map").result(journey, `{}`, port(elsewhereResult)).
			result(whatsHere, `{"routeTo":"edit"}`, port(routeResult)).result(doAction, `{"action":"published.new_version"}`, port(hopResult)).
			result(journey, `{"step":"edit.open_review"}`, port(elsewhereResult)),
			text: "Publishing cannot go on from here: its next step is on the edit page, and I found no way there from the published page."},
		{name: "a step held back", conv: newConv(journey).user("publish").result(journey, `{}`,
			port(`{"ok":true,"judgment":"navigate-or-wait","readySteps":[],"laterSteps":[{"step":"review.publish","status":"disabled","blockedBecause":["map.layers nonEmpty"]}]}`)),
			text: "Publishing cannot go on right now: the app holds its next step back until map.layers nonEmpty."},
		{name: "a step still running", conv: newConv(journey).user("publish").result(journey, `{}`,
			port(`{"ok":true,"judgment":"navigate-or-wait","readySteps":[],"laterSteps":[{"step":"review.publish","status":"in-flight"}]}`)),
			text: "The app is still working on the last step of publishing; ask me again in a moment."},
		{name: "a judgment it has no words for", conv: newConv(journey).user("publish").result(journey, `{}`, port(`{"ok":true,"judgment":"approval-withdrawn"}`)),
			text: "Publishing did not go on, and the app did not say why."},
		{name: "declined in the app: nothing to relay", conv: newConv(journey).user("publish").result(journey, `{"step":"review.publish"}`, port(needsHuman)).
			user(`Declined: the person declined "ask#1" (review.publish: Publish the map) in the app. Do not perform it.`),
			text: "Understood: the map stays unpublished."},
		{name: "approved in the app confirms", conv: newConv(journey).user("publish").result(journey, `{"step":"review.publish"}`, port(needsHuman)).
			user(`Approved: the person approved "ask#1" (review.publish: Publish the map) in the app.`),
			call: journey, args: map[string]any{"step": "review.publish", "confirm": true}},
		{name: "a second version published", conv: newConv(journey).user("Approved: publish").result(journey, `{"step":"review.publish","confirm":true}`, port(doneV2)),
			text: "Published: version 2 of the map is live."},
		{name: "declined after starting from the published page", conv: newConv(journey, whatsHere, doAction).user("publish").result(journey, `{}`, port(elsewhereResult)).
			result(whatsHere, `{"routeTo":"edit"}`, port(routeResult)).result(doAction, `{"action":"published.new_version"}`, port(hopResult)).
			result(journey, `{"step":"review.publish"}`, port(needsHuman)).user(`Declined: the person declined "ask#2" in the app.`),
			text: "Understood: nothing new was published; the version already live stays as it is."},
		{name: "a second version declined", conv: newConv(journey).user("publish").result(journey, `{"step":"review.publish","confirm":true}`, port(doneV2)).
			user("publish again").result(journey, `{"step":"review.publish"}`, port(needsHuman)).user(`Declined: the person declined "ask#2" in the app.`),
			text: "Understood: nothing new was published; the version already live stays as it is."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			frames := ask(t, Scripted{}, c.conv)
			assert.Equal(t, ScriptedModelName, frames[0].Ev.Model)
			last := frames[len(frames)-1]
			switch {
			case c.errCode != "":
				require.Equal(t, EventError, last.Name)
				assert.Equal(t, c.errCode, last.Ev.ErrorCode)
			case c.call != "":
				name, args := callOf(t, frames)
				assert.Equal(t, c.call, name)
				assert.Equal(t, c.args, args)
				assert.Equal(t, StopToolCall, last.Ev.StopReason)
			default:
				require.Equal(t, EventMessageStop, last.Name)
				assert.Equal(t, StopEndTurn, last.Ev.StopReason)
				assert.Greater(t, last.Ev.CompletionTokens, int64(0))
				if c.text != "" {
					assert.Equal(t, c.text, textOf(frames))
				}
				assert.Contains(t, textOf(frames), c.contains)
			}
		})
	}
}

// TestScriptedSaysNoJudgment: what the scripted model says is for a
// person: none of the port's judgments of more than one word
// (navigate-or-wait, one-ready-step, …: serve's closed vocabulary, not
// English) is quoted, whatever the journey result it reads.
func TestScriptedSaysNoJudgment(t *testing.T) {
	judgments := []string{serve.JudgmentNavigateOrWait, serve.JudgmentOneReadyStep, serve.JudgmentNeedsChoice, serve.JudgmentDone,
		serve.JudgmentBlocked, serve.JudgmentError, serve.JudgmentRejected, serve.JudgmentNeedsConfirm, serve.JudgmentDeclined,
		serve.JudgmentStillPending, serve.JudgmentAwaitingHuman, serve.JudgmentApprovedNotDone, serve.JudgmentApprovalInvalid,
		serve.JudgmentApprovalWithdrawn}
	for _, j := range judgments {
		for _, later := range []string{`[]`, `[{"step":"review.publish","status":"waiting-for-first-step"}]`} {
			c := newConv(journey).user("publish the map").
				result(journey, `{}`, port(`{"ok":true,"judgment":"`+j+`","readySteps":[],"laterSteps":`+later+`}`))
			frames := ask(t, Scripted{}, c)
			if frames[len(frames)-1].Ev.StopReason == StopToolCall {
				continue
			}
			text := textOf(frames)
			for _, quoted := range judgments {
				if strings.Contains(quoted, "-") {
					assert.NotContains(t, text, quoted, "the answer to %s", j)
				}
			}
		}
	}
}

func TestScriptedIsDeterministic(t *testing.T) {
	c := newConv(AddLayerTool, CreateDraftTool).user("add a schools layer")
	assert.Equal(t, ask(t, Scripted{}, c), ask(t, Scripted{}, c))
}

func TestScriptedStopsWhenTheClientGoes(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	sent := 0
	sink := SinkFunc(func(name string, ev Event) error {
		if sent++; sent == 2 { // message_start, then the first word
			cancel()
		}
		return nil
	})
	done := make(chan error, 1)
	go func() {
		done <- Scripted{Pace: time.Hour}.Stream(ctx, &ChatRequest{Messages: []Message{{Role: "user", Content: "a long story"}}}, sink)
	}()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("the scripted model did not stop when its context ended")
	}
}
