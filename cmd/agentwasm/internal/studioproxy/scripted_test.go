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
		{name: "refused", conv: newConv(journey).user("publish").result(journey, `{}`, port(`{"ok":false,"judgment":"blocked","why":"the map has no layers"}`)),
			text: "The app refused: the map has no layers."},
		{name: "another separator", conv: newConv("studio__journey__publish").user("publish"), call: "studio__journey__publish", args: map[string]any{}},
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
