// Tests of the port: the fixed tool set in both journeyTools modes, names
// and annotations, the journey frame, confirm and decline, approval through
// the port, the source option, whats_here, why, did_it_work, do_action, and
// bad input of every kind.

package serve

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func toolNames(p *Port) []string {
	var out []string
	for _, t := range p.Tools() {
		out = append(out, t.Name)
	}
	return out
}

func TestToolNamesInFixedOrder(t *testing.T) {
	s := newShop(t, AppOptions{})
	per := s.port(t, PortOptions{})
	assert.Equal(t, []string{"shop.journey.buy", "shop.journey.browse", "shop.journey.find", "shop.journey.admin",
		"shop.journey.vip", "shop.whats_here", "shop.why", "shop.do_action", "shop.did_it_work"}, toolNames(per))
	single := s.port(t, PortOptions{JourneyTools: "single"})
	assert.Equal(t, []string{"shop.journey", "shop.whats_here", "shop.why", "shop.do_action", "shop.did_it_work"}, toolNames(single))
	under := s.port(t, PortOptions{Separator: "__"})
	assert.Equal(t, "shop__journey__buy", toolNames(under)[0])
	assert.Equal(t, "shop__did_it_work", toolNames(under)[8])
	_, err := NewPort(s.app, PortOptions{JourneyTools: "many"})
	assert.ErrorContains(t, err, `journeyTools "many"`)
	_, err = NewPort(s.app, PortOptions{Source: "robot"})
	assert.ErrorContains(t, err, `source "robot"`)
	_, err = NewPort(nil, PortOptions{})
	assert.Error(t, err)
}

func TestToolsByteIdenticalAcrossChanges(t *testing.T) {
	for _, mode := range []string{"per-journey", "single"} {
		t.Run(mode, func(t *testing.T) {
			s := newShop(t, AppOptions{Page: "cart"}, "checkout.pay")
			p := s.port(t, PortOptions{JourneyTools: mode})
			before := p.ToolsJSON()
			require.True(t, json.Valid(before))
			jt := "shop.journey.buy"
			args := `{}`
			if mode == "single" {
				jt, args = "shop.journey", `{"journey":"buy"}`
			}
			pcall(t, p, jt, args) // frame opens
			require.NoError(t, s.app.Patch(State{"role": "admin"}, PrincipalUser))
			require.NoError(t, s.app.Navigate("home", PrincipalUser))
			require.NoError(t, s.app.Navigate("cart", PrincipalUser))
			pcall(t, p, "shop.do_action", `{"action":"cart.checkout"}`)
			assert.Equal(t, string(before), string(p.ToolsJSON()))
			b := p.ToolsJSON()
			b[0] = 'X'
			assert.Equal(t, string(before), string(p.ToolsJSON()), "callers get a copy")
		})
	}
}

func TestJourneySchemaKeysExact(t *testing.T) {
	s := newShop(t, AppOptions{})
	type schema struct {
		Properties           map[string]any `json:"properties"`
		Required             []string       `json:"required"`
		AdditionalProperties bool           `json:"additionalProperties"`
	}
	keys := func(m map[string]any) []string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		return out
	}
	var sc schema
	require.NoError(t, json.Unmarshal(s.port(t, PortOptions{}).Tools()[0].InputSchema, &sc))
	assert.ElementsMatch(t, []string{"step", "input", "confirm", "decline"}, keys(sc.Properties))
	assert.Empty(t, sc.Required)
	sc = schema{}
	require.NoError(t, json.Unmarshal(s.port(t, PortOptions{JourneyTools: "single"}).Tools()[0].InputSchema, &sc))
	assert.ElementsMatch(t, []string{"journey", "step", "input", "confirm", "decline"}, keys(sc.Properties))
	assert.Equal(t, []string{"journey"}, sc.Required)
}

func TestToolsJSONShapeAndAnnotations(t *testing.T) {
	s := newShop(t, AppOptions{})
	p := s.port(t, PortOptions{})
	var tools []struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		InputSchema map[string]any `json:"inputSchema"`
		Annotations map[string]any `json:"annotations"`
	}
	require.NoError(t, json.Unmarshal(p.ToolsJSON(), &tools))
	require.Len(t, tools, 9)
	for _, tl := range tools {
		assert.Equal(t, "object", tl.InputSchema["type"], tl.Name)
		assert.NotEmpty(t, tl.Annotations["title"], tl.Name)
		switch {
		case strings.HasSuffix(tl.Name, "whats_here"), strings.HasSuffix(tl.Name, "why"), strings.HasSuffix(tl.Name, "did_it_work"):
			assert.Equal(t, true, tl.Annotations["readOnlyHint"], tl.Name)
			assert.NotContains(t, tl.Annotations, "destructiveHint")
		default:
			assert.NotContains(t, tl.Annotations, "readOnlyHint", "%s: false is MCP's default", tl.Name)
			assert.Equal(t, true, tl.Annotations["destructiveHint"], tl.Name)
		}
	}
	assert.True(t, strings.HasPrefix(tools[0].Description, "Check out and pay for the cart.\n"), "journey does first")
}

// The rules every firing tool shares are stated once, on do_action, in the
// variant the port's options call for; every journey tool says how to call
// it and points its confirm and decline there; every argument of every
// tool is described; every schema stands alone.
func TestToolTextsStateTheRulesOnce(t *testing.T) {
	type schema struct {
		Type       string `json:"type"`
		Properties map[string]struct {
			Type        string `json:"type"`
			Description string `json:"description"`
		} `json:"properties"`
	}
	type tool struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		InputSchema schema `json:"inputSchema"`
	}
	cases := []struct {
		name    string
		app     AppOptions
		port    PortOptions
		rule    string // on do_action; "" when nothing answers needs-confirm
		confirm string // do_action's confirm
	}{
		{"asks", AppOptions{}, PortOptions{}, ruleConfirm, confirmAsks},
		{"gated", AppOptions{RequireHumanApproval: ptrBool(true)}, PortOptions{}, ruleGated, confirmGated},
		{"gated without confirm", AppOptions{RequireHumanApproval: ptrBool(true)}, PortOptions{ConfirmHighEffect: ptrBool(false)}, ruleGated, confirmGated},
		{"not gated", AppOptions{RequireHumanApproval: ptrBool(true)}, PortOptions{Source: PrincipalUser}, ruleConfirm, confirmNotGated},
		{"not needed", AppOptions{}, PortOptions{ConfirmHighEffect: ptrBool(false)}, "", confirmNotNeeded},
	}
	for _, c := range cases {
		for _, mode := range []string{JourneyToolsPerJourney, JourneyToolsSingle} {
			t.Run(c.name+"/"+mode, func(t *testing.T) {
				s := newShop(t, c.app)
				opts := c.port
				opts.JourneyTools = mode
				p := s.port(t, opts)
				array := string(p.ToolsJSON())
				var tools []tool
				require.NoError(t, json.Unmarshal(p.ToolsJSON(), &tools))
				assert.NotContains(t, array, `"$ref"`, "each tool's schema stands alone")
				journeys := 0
				for i, tl := range tools {
					assert.Equal(t, "object", tl.InputSchema.Type, tl.Name)
					for k, prop := range tl.InputSchema.Properties {
						assert.NotEmpty(t, prop.Type, "%s.%s", tl.Name, k)
						assert.NotEmpty(t, prop.Description, "%s.%s is described", tl.Name, k)
					}
					switch {
					case strings.Contains(tl.Name, ".journey"):
						journeys++
						assert.Equal(t, descAsDo, tl.InputSchema.Properties["confirm"].Description, tl.Name)
						assert.Equal(t, descAsDo, tl.InputSchema.Properties["decline"].Description, tl.Name)
						if mode == JourneyToolsSingle {
							assert.Equal(t, singleUsage, tl.Description)
							continue
						}
						j := s.app.Graph().Journeys[i]
						assert.Equal(t, j.Does+"\n"+journeyUsage, tl.Description, "the journey's does, then how to call it")
					case strings.HasSuffix(tl.Name, ".do_action"):
						assert.Equal(t, descDo+c.rule, tl.Description)
						assert.Equal(t, c.confirm, tl.InputSchema.Properties["confirm"].Description)
						assert.Equal(t, descDecline, tl.InputSchema.Properties["decline"].Description)
					}
				}
				assert.Equal(t, map[bool]int{true: 1, false: len(s.app.Graph().Journeys)}[mode == JourneyToolsSingle], journeys)
				wantRules := 1
				if c.rule == "" {
					wantRules = 0
				}
				assert.Equal(t, wantRules, strings.Count(array, "returns needs-confirm"), "the rule is stated once, not per journey")
			})
		}
	}
}

func TestEncodeToolName(t *testing.T) {
	cases := []struct{ in, want string }{
		{"shop.journey.buy", "shop.journey.buy"},
		{"a-b_c.D9", "a-b_c.D9"},
		{"shop/journey", "_enc_shop_2fjourney"},
		{"a b", "_enc_a_20b"},
		{"a_2fb", "a_2fb"},
		{"_enc_x", "_enc__5fenc_5fx"},
		{"", "_enc_"},
		{"é", "_enc__c3_a9"},
	}
	seen := map[string]string{}
	for _, c := range cases {
		got := EncodeToolName(c.in)
		assert.Equal(t, c.want, got, c.in)
		assert.True(t, plainName(got) || got == "_enc_", got)
		if prev, dup := seen[got]; dup {
			t.Errorf("%q and %q both encode to %q", prev, c.in, got)
		}
		seen[got] = c.in
	}
	s := newShop(t, AppOptions{})
	p := s.port(t, PortOptions{Separator: "/"})
	assert.Equal(t, "_enc_shop_2fwhats_5fhere", toolNames(p)[5])
	_, m := pcall(t, p, "_enc_shop_2fwhats_5fhere", `{}`)
	assert.Equal(t, true, m["ok"])
}

func TestOpenJourneyShowsReadySteps(t *testing.T) {
	s := newShop(t, AppOptions{})
	p := s.port(t, PortOptions{})
	_, m := pcall(t, p, "shop.journey.browse", ``)
	assert.Equal(t, "one-ready-step", m["judgment"])
	assert.Equal(t, "opened", m["frame"])
	assert.Equal(t, "Open the cart and go to checkout.", m["does"])
	ready := m["readySteps"].([]any)
	require.Len(t, ready, 1)
	assert.Equal(t, map[string]any{"step": "home.browse", "does": "Open the cart.", "goesTo": "cart"}, ready[0])
	later := m["laterSteps"].([]any)
	require.Len(t, later, 1)
	assert.Equal(t, "cart.checkout", later[0].(map[string]any)["step"])
	assert.Equal(t, "waiting-for-first-step", later[0].(map[string]any)["status"])
	assert.Equal(t, "home", m["youAreOn"])
	assert.NotContains(t, m, "transitionId")

	_, m = pcall(t, p, "shop.journey.browse", `{}`)
	assert.Equal(t, "open", m["frame"], "calling again shows the same frame")

	// A journey whose entry is on another page: navigate-or-wait.
	_, m = pcall(t, p, "shop.journey.buy", `{}`)
	assert.Equal(t, "navigate-or-wait", m["judgment"])
	assert.Equal(t, "browse", m["cancelled"])
	assert.Equal(t, "cart", m["laterSteps"].([]any)[0].(map[string]any)["on"])
}

func TestStepBySuffixAndCompletion(t *testing.T) {
	s := newShop(t, AppOptions{}, "cart.checkout")
	p := s.port(t, PortOptions{})
	r, m := pcall(t, p, "shop.journey.browse", `{"step":"browse"}`)
	require.Equal(t, true, m["ok"], "%s", r.JSON())
	assert.Equal(t, "home.browse", m["did"])
	assert.Equal(t, "home.browse#1", m["transitionId"])
	assert.Equal(t, "pending", m["effectStatus"])
	assert.Equal(t, map[string]any{"tool": "shop.did_it_work", "arg": "transitionId"}, m["settleWith"])
	waitSettled(t, s.app, "home.browse#1")
	assert.Equal(t, "cart", s.app.Page())

	_, m = pcall(t, p, "shop.journey.browse", `{"step":"browse"}`)
	assert.Equal(t, ReasonStepDone, m["reason"])

	_, m = pcall(t, p, "shop.journey.browse", `{"step":"checkout"}`)
	require.Equal(t, true, m["ok"])
	assert.Equal(t, "navigate-or-wait", m["judgment"], "the last step is in flight")
	s.release("cart.checkout")
	waitSettled(t, s.app, m["transitionId"].(string))
	_, m = pcall(t, p, "shop.journey.browse", `{}`)
	assert.Equal(t, "done", m["judgment"])
	assert.Equal(t, "completed", m["frame"])
	assert.Equal(t, []any{"home.browse", "cart.checkout"}, m["doneSteps"])
	_, m = pcall(t, p, "shop.journey.browse", `{}`)
	assert.Equal(t, "opened", m["frame"], "a completed frame closed; calling again opens a new one")
}

func TestHighEffectStepConfirm(t *testing.T) {
	s := newShop(t, AppOptions{Page: "cart"}, "checkout.pay")
	p := s.port(t, PortOptions{})
	_, m := pcall(t, p, "shop.journey.buy", `{"step":"checkout"}`)
	waitSettled(t, s.app, m["transitionId"].(string))

	r, m := pcall(t, p, "shop.journey.buy", `{"step":"pay","input":{"amount":12}}`)
	assert.Equal(t, "needs-confirm", m["judgment"], "%s", r.JSON())
	assert.Equal(t, false, m["performed"])
	askID, _ := m["askId"].(string)
	assert.Regexp(t, `^ask_[a-z2-7]{26}$`, askID, "an unguessable id")
	assert.Equal(t, map[string]any{"does": "Pay for the order.", "writes": []any{"order.id"}, "navigatesTo": "done"}, m["willDo"])
	assert.Equal(t, map[string]any{"input": map[string]any{"amount": 12.0}}, m["willUse"])
	assert.Equal(t, []any{map[string]any{"step": "cart.checkout", "effectStatus": "performed"}}, m["recentSteps"])
	assert.Contains(t, m, "because")
	assert.Equal(t, "checkout", m["youAreOn"])
	assert.Empty(t, s.handlerCalls()[1:], "nothing was done")

	// Asking again for the same thing reuses the ask.
	_, m = pcall(t, p, "shop.journey.buy", `{"step":"pay","input":{"amount":12}}`)
	assert.Equal(t, askID, m["askId"])

	_, m = pcall(t, p, "shop.journey.buy", `{"step":"pay","input":{"amount":12},"confirm":true}`)
	require.Equal(t, true, m["ok"])
	assert.Equal(t, "checkout.pay#1", m["transitionId"])
	assert.Equal(t, askID, m["askId"], "the port found the open ask itself")
	s.release("checkout.pay")
	info := waitSettled(t, s.app, "checkout.pay#1")
	assert.Equal(t, "performed", info.Status)
	assert.Equal(t, "o-1", s.app.State()["order.id"])
	ak, _ := s.app.Ask(askID)
	assert.Equal(t, "used", ak.State)
	assert.Equal(t, "relayed by agent", ak.AnsweredBy, "a confirm outside enforcement is the person's relayed yes")
	_, m = pcall(t, p, "shop.journey.buy", `{}`)
	assert.Equal(t, "done", m["judgment"])
}

func TestDecline(t *testing.T) {
	s := newShop(t, AppOptions{Page: "cart"})
	p := s.port(t, PortOptions{})
	_, m := pcall(t, p, "shop.do_action", `{"action":"clear"}`)
	require.Equal(t, "needs-confirm", m["judgment"])
	askID := m["askId"].(string)
	_, m = pcall(t, p, "shop.do_action", `{"action":"clear","decline":true}`)
	assert.Equal(t, "declined", m["judgment"])
	assert.Equal(t, askID, m["askId"])
	assert.Equal(t, false, m["performed"])
	ak, _ := s.app.Ask(askID)
	assert.Equal(t, "declined", ak.State)
	_, m = pcall(t, p, "shop.did_it_work", `{"transitionId":"`+askID+`"}`)
	assert.Equal(t, "declined", m["judgment"])
	_, m = pcall(t, p, "shop.do_action", `{"action":"clear","decline":true}`)
	assert.Equal(t, "declined", m["judgment"])
	assert.NotContains(t, m, "askId", "nothing was open")
	assert.Empty(t, s.app.Transitions())
}

// A decline that finds no open ask says why when the caller's newest ask
// for the action was already answered no — the page's card declined it
// before the model relayed the same no (a person reads this result), the
// model declined it before, or the person withdrew the approval — and
// still says there was no ask when there was none. Nothing is performed
// either way, and no askId is named: nothing was open.
func TestDeclineOfAClosedAsk(t *testing.T) {
	cases := []struct {
		name  string
		gated bool
		close func(t *testing.T, a *App, askID string, p *Port) // "" askID: no ask was made
		why   string
	}{
		{"never asked", false, nil, "There was no open ask for this; nothing was performed and nothing is pending."},
		{"the person declined it on the card", true, func(t *testing.T, a *App, id string, _ *Port) {
			require.NoError(t, a.DeclineAsk(id, "person"))
		}, "The person already declined this; nothing was performed and nothing is pending."},
		{"declined by the model before", false, func(t *testing.T, _ *App, _ string, p *Port) {
			_, m := pcall(t, p, "shop.do_action", `{"action":"clear","decline":true}`)
			require.Equal(t, "The ask is closed as declined; nothing was performed.", m["why"])
		}, "This was already declined; nothing was performed and nothing is pending."},
		{"the person withdrew the approval", true, func(t *testing.T, a *App, id string, _ *Port) {
			require.NoError(t, a.ApproveAsk(id, "person"))
			require.NoError(t, a.RevokeAsk(id, "person"))
		}, "The person withdrew their approval of this; nothing was performed and nothing is pending."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newShop(t, AppOptions{Page: "cart", RequireHumanApproval: ptrBool(c.gated)})
			p := s.port(t, PortOptions{})
			if c.close != nil {
				_, m := pcall(t, p, "shop.do_action", `{"action":"clear"}`)
				require.Equal(t, "needs-confirm", m["judgment"])
				c.close(t, s.app, m["askId"].(string), p)
			}
			_, m := pcall(t, p, "shop.do_action", `{"action":"clear","decline":true}`)
			assert.Equal(t, "declined", m["judgment"])
			assert.Equal(t, false, m["performed"])
			assert.Equal(t, c.why, m["why"])
			assert.NotContains(t, m, "askId", "nothing was open")
			assert.Empty(t, s.app.Transitions())
		})
	}
}

func TestSwitchingJourneys(t *testing.T) {
	s := newShop(t, AppOptions{})
	p := s.port(t, PortOptions{JourneyTools: "single"})
	_, m := pcall(t, p, "shop.journey", `{"journey":"browse"}`)
	require.Equal(t, "opened", m["frame"])
	_, m = pcall(t, p, "shop.journey", `{"journey":"vip"}`)
	assert.Equal(t, "blocked", m["judgment"])
	assert.Equal(t, ReasonPreconditionFailed, m["reason"])
	assert.Equal(t, "vip", m["evidence"].([]any)[0].(map[string]any)["key"])
	assert.Equal(t, false, m["ok"])
	_, m = pcall(t, p, "shop.journey", `{"journey":"browse"}`)
	assert.Equal(t, "open", m["frame"], "a blocked target leaves the old frame open")
	_, m = pcall(t, p, "shop.journey", `{"journey":"find"}`)
	assert.Equal(t, "opened", m["frame"])
	assert.Equal(t, "browse", m["cancelled"])
	_, m = pcall(t, p, "shop.whats_here", `{}`)
	var open []string
	for _, j := range m["journeys"].([]any) {
		if j.(map[string]any)["standing"] == "open" {
			open = append(open, j.(map[string]any)["journey"].(string))
		}
	}
	assert.Equal(t, []string{"find"}, open)
}

func TestPortErrors(t *testing.T) {
	s := newShop(t, AppOptions{Page: "cart"})
	per := s.port(t, PortOptions{})
	single := s.port(t, PortOptions{JourneyTools: "single"})
	cases := []struct {
		name   string
		p      *Port
		tool   string
		args   string
		reason string
		list   string // key of the list of valid names
	}{
		{"unknown tool", per, "shop.nope", `{}`, ReasonUnknownTool, "tools"},
		{"single name in per-journey mode", per, "shop.journey", `{"journey":"buy"}`, ReasonUnknownTool, "tools"},
		{"per-journey name in single mode", single, "shop.journey.buy", `{}`, ReasonUnknownTool, "tools"},
		{"journey required", single, "shop.journey", `{}`, ReasonJourneyRequired, "journeys"},
		{"journey empty", single, "shop.journey", `{"journey":""}`, ReasonJourneyRequired, "journeys"},
		{"unknown journey", single, "shop.journey", `{"journey":"nope"}`, ReasonUnknownJourney, "journeys"},
		{"unknown step", per, "shop.journey.buy", `{"step":"nope"}`, ReasonUnknownStep, "steps"},
		{"action required", per, "shop.do_action", `{}`, ReasonActionRequired, "actions"},
		{"unknown action", per, "shop.do_action", `{"action":"fly"}`, ReasonUnknownAction, "actions"},
		{"ambiguous action", per, "shop.do_action", `{"action":"home"}`, ReasonAmbiguousAction, "candidates"},
		{"key required", per, "shop.why", `{"key":""}`, ReasonKeyRequired, ""},
		{"transition id required", per, "shop.did_it_work", `{}`, ReasonTransitionIDRequired, ""},
		{"unknown transition", per, "shop.did_it_work", `{"transitionId":"x#1"}`, ReasonUnknownTransition, "asks"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, m := pcall(t, c.p, c.tool, c.args)
			assert.Equal(t, c.reason, m["reason"], "%s", r.JSON())
			assert.Equal(t, "error", m["judgment"])
			assert.Equal(t, false, m["ok"])
			assert.Contains(t, m["why"], "nothing was performed")
			if c.list != "" {
				assert.NotEmpty(t, m[c.list])
			}
			assert.Equal(t, c.reason == ReasonUnknownTool, r.IsError())
		})
	}
	assert.Empty(t, s.app.Transitions())
	assert.Empty(t, s.app.Asks())
}

func TestBadArgumentsNeverPanic(t *testing.T) {
	s := newShop(t, AppOptions{Page: "checkout"})
	p := s.port(t, PortOptions{})
	huge := `{"action":"pay","input":{"amount":1,"pad":"` + strings.Repeat("x", 1<<20) + `"}}`
	cases := []struct {
		tool, args, reason string
	}{
		{"shop.do_action", `{"action":5}`, ReasonInvalidArguments},
		{"shop.do_action", `{"action":"pay","confirm":"yes"}`, ReasonInvalidArguments},
		{"shop.do_action", `{"action":"pay","confirm":true,"decline":true}`, ReasonInvalidArguments},
		{"shop.do_action", `[1,2]`, ReasonInvalidArguments},
		{"shop.do_action", `{"action":`, ReasonInvalidArguments},
		{"shop.do_action", "\xff\xfe", ReasonInvalidArguments},
		{"shop.do_action", huge, ReasonArgumentsTooLarge},
		{"shop.whats_here", `{"sinceVersion":"3"}`, ReasonInvalidArguments},
		{"shop.whats_here", `{"sinceVersion":-1}`, ReasonInvalidArguments},
		{"shop.whats_here", `{"sinceVersion":1.5}`, ReasonInvalidArguments},
		{"shop.why", `{"key":["a"]}`, ReasonInvalidArguments},
		{"shop.did_it_work", `{"transitionId":{}}`, ReasonInvalidArguments},
		{"shop.journey.buy", `{"step":true}`, ReasonInvalidArguments},
		{"shop.journey.buy", `{"decline":1}`, ReasonInvalidArguments},
		{"shop.do_action", `{"action":"pay","input":{"amount":"lots"}}`, ReasonPayloadInvalid},
		{"shop.do_action", `{"action":"pay","input":"x"}`, ReasonPayloadInvalid},
	}
	for _, c := range cases {
		r, m := pcall(t, p, c.tool, c.args)
		assert.Equal(t, c.reason, m["reason"], "%s %.80s: %.300s", c.tool, c.args, r.JSON())
		assert.False(t, r.IsError())
	}
	// Empty and null arguments are {}.
	for _, a := range []string{"", "null", " \n", "{}"} {
		_, m := pcall(t, p, "shop.whats_here", a)
		assert.Equal(t, true, m["ok"], "%q", a)
	}
	_, m := pcall(t, p, "shop.do_action", `{"action":"pay","input":{"amount":"lots"}}`)
	assert.Equal(t, "rejected", m["judgment"])
	assert.NotNil(t, m["expects"])
	assert.Empty(t, s.app.Transitions())
}

func TestGreyedHighEffectRefusedBeforeAsk(t *testing.T) {
	s := newShop(t, AppOptions{Page: "cart", State: State{"cart.items": []any{"a"}, "cart.locked": true}})
	p := s.port(t, PortOptions{})
	_, m := pcall(t, p, "shop.do_action", `{"action":"cart.clear"}`)
	assert.Equal(t, "rejected", m["judgment"])
	assert.Equal(t, ReasonToolDisabled, m["reason"])
	assert.Equal(t, true, m["retriable"])
	assert.Equal(t, []any{`cart.locked ne true`}, m["blockedBecause"])
	assert.Empty(t, s.app.Asks(), "no ask was minted")
	_, m = pcall(t, p, "shop.whats_here", `{}`)
	for _, a := range m["actions"].([]any) {
		row := a.(map[string]any)
		if row["action"] == "cart.clear" {
			assert.Equal(t, false, row["enabled"])
			assert.Equal(t, true, row["highEffect"])
			assert.NotEmpty(t, row["blockedBecause"])
		}
	}
}

func TestRequireHumanApprovalThroughPort(t *testing.T) {
	s := newShop(t, AppOptions{Page: "checkout", RequireHumanApproval: ptrBool(true)}, "checkout.pay")
	p := s.port(t, PortOptions{})

	// A bare confirm is refused: it becomes a needs-confirm awaiting a human.
	_, m := pcall(t, p, "shop.do_action", `{"action":"pay","input":{"amount":5},"confirm":true}`)
	assert.Equal(t, "needs-confirm", m["judgment"])
	assert.Equal(t, true, m["awaitingHuman"])
	askID := m["askId"].(string)
	assert.Empty(t, s.app.Transitions())
	_, m = pcall(t, p, "shop.did_it_work", `{"transitionId":"`+askID+`"}`)
	assert.Equal(t, "awaiting-human", m["judgment"])

	// The human approves 5; the model fires 6: mismatch? No — the port looks
	// for an ask with input 6, finds none and asks afresh.
	require.NoError(t, s.app.ApproveAsk(askID, "ann"))
	_, m = pcall(t, p, "shop.did_it_work", `{"transitionId":"`+askID+`"}`)
	assert.Equal(t, "approved-not-yet-done", m["judgment"])
	_, m = pcall(t, p, "shop.do_action", `{"action":"pay","input":{"amount":6},"confirm":true}`)
	assert.Equal(t, "needs-confirm", m["judgment"])
	assert.NotEqual(t, askID, m["askId"])

	// The approved input fires once.
	_, m = pcall(t, p, "shop.do_action", `{"action":"pay","input":{"amount":5},"confirm":true}`)
	require.Equal(t, true, m["ok"])
	tid := m["transitionId"].(string)
	_, m = pcall(t, p, "shop.did_it_work", `{"transitionId":"`+tid+`"}`)
	assert.Equal(t, "still-pending", m["judgment"])
	assert.Equal(t, false, m["settled"])
	_, m = pcall(t, p, "shop.did_it_work", `{"transitionId":"`+askID+`"}`)
	assert.Equal(t, "still-pending", m["judgment"], "a used ask forwards to its fire")
	assert.Equal(t, askID, m["askId"])
	s.release("checkout.pay")
	waitSettled(t, s.app, tid)
	_, m = pcall(t, p, "shop.did_it_work", `{"transitionId":"`+tid+`"}`)
	assert.Equal(t, true, m["settled"])
	assert.Equal(t, "performed", m["effectStatus"])
	assert.Equal(t, map[string]any{"order": map[string]any{"id": "o-1"}}, m["data"])

	// Spent at the gate (directly: through the port a used ask is not open).
	require.NoError(t, s.app.Navigate("checkout", PrincipalUser))
	r := s.app.Fire(context.Background(), "checkout.pay", FireOptions{Source: PrincipalAgent, AskID: askID, Input: map[string]any{"amount": 5.0}})
	assert.Equal(t, ReasonApprovalSpent, r.Reason)
}

func TestApprovalRefusalsThroughPort(t *testing.T) {
	s := newShop(t, AppOptions{Page: "checkout", RequireHumanApproval: ptrBool(true)})
	p := s.port(t, PortOptions{ConfirmHighEffect: ptrBool(false)})
	// confirmHighEffect:false under enforcement still asks…
	_, m := pcall(t, p, "shop.do_action", `{"action":"pay","input":{"amount":5}}`)
	assert.Equal(t, "needs-confirm", m["judgment"])
	askID := m["askId"].(string)
	// …and still refuses: the human declined.
	require.NoError(t, s.app.DeclineAsk(askID, "ann"))
	s.app.mu.Lock()
	s.app.asks[askID].state = askDeclined
	s.app.mu.Unlock()
	r := s.app.Fire(context.Background(), "checkout.pay", FireOptions{Source: PrincipalAgent, AskID: askID, Input: map[string]any{"amount": 5.0}})
	assert.Equal(t, ReasonApprovalDeclined, r.Reason)
	// A revoked approval: the port finds no open ask and asks afresh.
	_, m = pcall(t, p, "shop.do_action", `{"action":"pay","input":{"amount":7}}`)
	id2 := m["askId"].(string)
	require.NoError(t, s.app.ApproveAsk(id2, "ann"))
	require.NoError(t, s.app.RevokeAsk(id2, "ann"))
	_, m = pcall(t, p, "shop.did_it_work", `{"transitionId":"`+id2+`"}`)
	assert.Equal(t, "approval-withdrawn", m["judgment"])
	_, m = pcall(t, p, "shop.do_action", `{"action":"pay","input":{"amount":7}}`)
	assert.Equal(t, "needs-confirm", m["judgment"])
	assert.NotEqual(t, id2, m["askId"])
	// Expiry.
	id3 := m["askId"].(string)
	require.NoError(t, s.app.ApproveAsk(id3, "ann"))
	s.advance(20 * 60e9)
	_, m = pcall(t, p, "shop.did_it_work", `{"transitionId":"`+id3+`"}`)
	assert.Equal(t, "approval-no-longer-valid", m["judgment"])
	assert.Empty(t, s.app.Transitions())
}

func TestSourceUserPortWarnsOnceAndIsUngated(t *testing.T) {
	s := newShop(t, AppOptions{Page: "checkout", RequireHumanApproval: ptrBool(true)})
	gated := s.port(t, PortOptions{})
	p := s.port(t, PortOptions{Source: PrincipalUser})
	s.port(t, PortOptions{Source: PrincipalSystem})
	w := s.warns()
	require.Len(t, w, 1, "warned once")
	assert.Equal(t, WarnUngatedPort, w[0].Code)
	_, m := pcall(t, p, "shop.do_action", `{"action":"pay","input":{"amount":5},"confirm":true}`)
	require.Equal(t, true, m["ok"], "no human approval needed")
	info := waitSettled(t, s.app, m["transitionId"].(string))
	assert.Equal(t, PrincipalUser, info.Source)
	assert.NotEqual(t, string(gated.ToolsJSON()), string(p.ToolsJSON()), "the confirm field stops claiming a gate")
	assert.Contains(t, string(p.ToolsJSON()), "not gated")
	assert.Contains(t, string(gated.ToolsJSON()), "requires a person's approval")
}

func TestUnguardedFireWarningThroughPort(t *testing.T) {
	s := newShop(t, AppOptions{Page: "cart"})
	p := s.port(t, PortOptions{ConfirmHighEffect: ptrBool(false)})
	for i := 0; i < 2; i++ {
		_, m := pcall(t, p, "shop.do_action", `{"action":"clear"}`)
		require.Equal(t, true, m["ok"])
		waitSettled(t, s.app, m["transitionId"].(string))
		require.NoError(t, s.app.Patch(State{"cart.items": []any{"b"}}, PrincipalUser))
	}
	assert.Len(t, s.warns(), 1)
	// A confirm backed by an ask does not warn.
	s2 := newShop(t, AppOptions{Page: "cart"})
	p2 := s2.port(t, PortOptions{})
	pcall(t, p2, "shop.do_action", `{"action":"clear"}`)
	_, m := pcall(t, p2, "shop.do_action", `{"action":"clear","confirm":true}`)
	require.Equal(t, true, m["ok"])
	assert.Empty(t, s2.warns())
}

func TestWhatsHereJourneysAndElsewhere(t *testing.T) {
	s := newShop(t, AppOptions{})
	p := s.port(t, PortOptions{JourneyTools: "single"})
	_, m := pcall(t, p, "shop.whats_here", `{}`)
	var listed []string
	for _, j := range m["journeys"].([]any) {
		row := j.(map[string]any)
		listed = append(listed, row["journey"].(string))
		if row["journey"] == "vip" {
			assert.Equal(t, false, row["feasible"], "precondition fails")
		} else {
			assert.Equal(t, true, row["feasible"])
		}
		assert.Equal(t, "can-start", row["standing"])
	}
	// admin's entry fails its guard; buy's entry is on the cart page.
	assert.Equal(t, []string{"browse", "find", "vip"}, listed)
	assert.Equal(t, 2.0, m["journeysElsewhere"])
	var actions []string
	for _, a := range m["actions"].([]any) {
		actions = append(actions, a.(map[string]any)["action"].(string))
	}
	assert.Equal(t, []string{"home.browse", "home.search"}, actions)
	search := m["actions"].([]any)[1].(map[string]any)
	assert.NotNil(t, search["expects"])

	require.NoError(t, s.app.Patch(State{"role": "admin", "vip": true}, PrincipalUser))
	_, m = pcall(t, p, "shop.whats_here", `{}`)
	assert.Len(t, m["journeys"], 4)
	assert.Equal(t, 1.0, m["journeysElsewhere"])
	require.NoError(t, s.app.Navigate("checkout", PrincipalUser))
	_, m = pcall(t, p, "shop.whats_here", `{}`)
	assert.Empty(t, m["journeys"])
	assert.Equal(t, 5.0, m["journeysElsewhere"])
}

func TestWhatsHereSinceVersionDelta(t *testing.T) {
	s := newShop(t, AppOptions{})
	p := s.port(t, PortOptions{})
	_, m := pcall(t, p, "shop.do_action", `{"action":"browse"}`)
	waitSettled(t, s.app, m["transitionId"].(string))
	require.NoError(t, s.app.Patch(State{"role": "x"}, PrincipalUser))
	_, m = pcall(t, p, "shop.whats_here", `{}`)
	v := m["version"].(float64)
	assert.Equal(t, 3.0, v)
	assert.Len(t, m["brief"].(map[string]any)["happened"], 3)
	assert.Len(t, m["facts"].(map[string]any)["fires"], 1)

	_, m = pcall(t, p, "shop.whats_here", `{"sinceVersion":3}`)
	assert.Empty(t, m["brief"].(map[string]any)["happened"], "nothing since")
	assert.Empty(t, m["facts"].(map[string]any)["fires"])

	require.NoError(t, s.app.Navigate("home", PrincipalUser))
	_, m = pcall(t, p, "shop.whats_here", `{"sinceVersion":3}`)
	happened := m["brief"].(map[string]any)["happened"].([]any)
	assert.Equal(t, []any{"v4 user moved to page home"}, happened)
	_, m = pcall(t, p, "shop.whats_here", `{"sinceVersion":1}`)
	happened = m["brief"].(map[string]any)["happened"].([]any)
	require.Len(t, happened, 3)
	assert.Contains(t, happened[0], "home.browse#1 performed, now on cart")
	assert.Len(t, m["facts"].(map[string]any)["fires"], 1, "the fire settled after v1")
}

func TestWhy(t *testing.T) {
	s := newShop(t, AppOptions{Page: "cart"})
	p := s.port(t, PortOptions{})
	_, m := pcall(t, p, "shop.do_action", `{"action":"checkout"}`)
	waitSettled(t, s.app, m["transitionId"].(string))
	require.NoError(t, s.app.Patch(State{"order.draft": false}, PrincipalUser))
	_, m = pcall(t, p, "shop.why", `{"key":"order.draft"}`)
	assert.Equal(t, false, m["value"])
	chain := m["chain"].([]any)
	require.Len(t, chain, 2)
	assert.Equal(t, map[string]any{"version": 2.0, "via": "fire", "by": "agent", "action": "cart.checkout", "transition": "cart.checkout#1"}, chain[0])
	assert.Equal(t, map[string]any{"version": 3.0, "via": "patch", "by": "user"}, chain[1])
	_, m = pcall(t, p, "shop.why", `{"key":"nothing"}`)
	assert.Empty(t, m["chain"])
	assert.NotContains(t, m, "value")
	assert.NotEmpty(t, m["why"])
}

func TestDidItWorkRefused(t *testing.T) {
	s := newShop(t, AppOptions{Handlers: map[string]Handler{
		"home.browse": func(context.Context, HandlerCall) (any, error) { return nil, errBoom },
	}})
	p := s.port(t, PortOptions{})
	_, m := pcall(t, p, "shop.do_action", `{"action":"home.browse"}`)
	tid := m["transitionId"].(string)
	waitSettled(t, s.app, tid)
	_, m = pcall(t, p, "shop.did_it_work", `{"transitionId":"`+tid+`"}`)
	assert.Equal(t, true, m["settled"])
	assert.Equal(t, "refused", m["effectStatus"])
	assert.Equal(t, "boom", m["error"])
	assert.Contains(t, m["outcome"], "did not happen")
	_, m = pcall(t, p, "shop.did_it_work", `{"transitionId":"nope"}`)
	assert.Equal(t, ReasonUnknownTransition, m["reason"])
	assert.Equal(t, []any{}, m["pending"])
}

func TestDoActionRejections(t *testing.T) {
	s := newShop(t, AppOptions{})
	p := s.port(t, PortOptions{})
	cases := []struct{ args, reason string }{
		{`{"action":"checkout.cancel"}`, ReasonNotOnPage},
		{`{"action":"home.admin"}`, ReasonNotOffered},
		{`{"action":"home.search","input":{}}`, ReasonPayloadInvalid},
	}
	for _, c := range cases {
		_, m := pcall(t, p, "shop.do_action", c.args)
		assert.Equal(t, c.reason, m["reason"], c.args)
		assert.Equal(t, "rejected", m["judgment"])
	}
	require.NoError(t, s.app.Navigate("done", PrincipalUser))
	_, m := pcall(t, p, "shop.do_action", `{"action":"unwired"}`)
	assert.Equal(t, ReasonNotMaterialized, m["reason"])
}

func TestCallRecoversPanics(t *testing.T) {
	s := newShop(t, AppOptions{})
	p := s.port(t, PortOptions{})
	p.app.g = nil // sabotage: every lookup panics
	r := p.Call(context.Background(), "shop.do_action", []byte(`{"action":"browse"}`))
	assert.Equal(t, ReasonInternal, r.Reason())
	assert.True(t, r.IsError())
	assert.Equal(t, "error", r.Judgment())
}

func TestConcurrentCalls(t *testing.T) {
	s := newShop(t, AppOptions{})
	p := s.port(t, PortOptions{})
	done := make(chan struct{})
	for i := 0; i < 8; i++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for k := 0; k < 20; k++ {
				p.Call(context.Background(), "shop.whats_here", nil)
				p.Call(context.Background(), "shop.journey.browse", []byte(`{"step":"browse"}`))
				_ = s.app.Navigate("home", PrincipalUser)
				_, _ = s.app.Report("home.browse", nil, nil)
			}
		}()
	}
	for i := 0; i < 8; i++ {
		<-done
	}
}

func TestOnChangeMayCallThePort(t *testing.T) {
	s := newShop(t, AppOptions{Page: "cart"})
	p := s.port(t, PortOptions{})
	seen := make(chan string, 64)
	s.app.OnChange(func() {
		r := p.Call(context.Background(), "shop.whats_here", nil)
		select {
		case seen <- r.Judgment():
		default:
		}
	})
	done := make(chan struct{})
	go func() {
		defer close(done)
		pcall(t, p, "shop.journey.buy", `{"step":"checkout"}`)
		pcall(t, p, "shop.do_action", `{"action":"clear"}`)
		pcall(t, p, "shop.do_action", `{"action":"clear","decline":true}`)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("an OnChange callback that calls the port deadlocked")
	}
	assert.NotEmpty(t, seen)
}
