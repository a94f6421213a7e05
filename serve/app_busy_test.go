// Tests of the second version's busy labels: SetBusy on an action, an area
// or a page (trimmed, capped at 200 bytes, cleared by an empty label), the
// busy field of whats_here rows, ready steps and refusals (with one
// sentence more in why), and that busy never gates.

package serve

import (
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const busyGraph = `{"id":"b",
 "pages":[{"id":"p","areas":[{"id":"panel","areas":[{"id":"inner"}]},{"id":"side"}]},{"id":"q"}],
 "actions":[
  {"id":"p.go","does":"Go.","on":"p"},
  {"id":"p.panel.save","does":"Save.","on":"p","enabledWhen":{"key":"ready","op":"truthy"}},
  {"id":"p.panel.inner.tick","does":"Tick.","on":"p"},
  {"id":"p.side.look","does":"Look.","on":"p","confirm":true},
  {"id":"q.x","does":"X.","on":"q"}
 ],
 "journeys":[{"id":"j","does":"Tick then go.","steps":["p.panel.inner.tick","p.go"]}]}`

func TestSetBusyErrors(t *testing.T) {
	v := newV2(t, busyGraph, AppOptions{}, nil)
	for _, id := range []string{"", "nope", "p.nope", "p.panel.nope", "p.panel.inner.tick.x", "b", "P"} {
		err := v.app.SetBusy(id, "working")
		require.Error(t, err, id)
		assert.Equal(t, `serve: SetBusy: "`+id+`" is not an action, area or page of graph "b"`, err.Error())
	}
	// Clearing an unknown id is an error too.
	require.Error(t, v.app.SetBusy("nope", ""))
	for _, id := range []string{"p", "q", "p.panel", "p.panel.inner", "p.side", "p.go", "p.panel.inner.tick", "q.x"} {
		assert.NoError(t, v.app.SetBusy(id, "working"), id)
	}
	// Clearing what is not busy is fine.
	require.NoError(t, v.app.SetBusy("p.go", ""))
	require.NoError(t, v.app.SetBusy("p.go", ""))
}

func TestBusyLabelText(t *testing.T) {
	long := strings.Repeat("x", 300)
	multi := "a" + strings.Repeat("é", 150) // 301 bytes; byte 200 falls inside an é
	cases := []struct {
		name, label, want string
	}{
		{"kept", "Saving your draft", "Saving your draft"},
		{"trimmed", "  \t Saving\n ", "Saving"},
		{"capped at 200 bytes", long, long[:200]},
		{"exactly 200", long[:200], long[:200]},
		{"trimmed then capped", "   " + long, long[:200]},
		{"never splits a character", multi, multi[:199]},
		{"only spaces clears", "   ", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := newV2(t, busyGraph, AppOptions{}, nil)
			require.NoError(t, v.app.SetBusy("p.go", c.label))
			p := v.port(t, PortOptions{})
			_, m := pcall(t, p, "b.whats_here", `{}`)
			row := rowOf(t, m, "actions", "p.go")
			if c.want == "" {
				assert.NotContains(t, row, "busy")
				return
			}
			assert.Equal(t, c.want, row["busy"])
			assert.LessOrEqual(t, len(row["busy"].(string)), 200)
			assert.True(t, utf8.ValidString(row["busy"].(string)))
		})
	}
}

func TestBusyResolution(t *testing.T) {
	type set struct{ id, label string }
	cases := []struct {
		name string
		sets []set
		want map[string]string // action → busy ("" = absent)
	}{
		{"nothing busy", nil, map[string]string{"p.go": "", "p.panel.save": "", "p.panel.inner.tick": "", "p.side.look": ""}},
		{"the page covers every action on it", []set{{"p", "Loading the page"}},
			map[string]string{"p.go": "Loading the page", "p.panel.save": "Loading the page", "p.panel.inner.tick": "Loading the page", "p.side.look": "Loading the page"}},
		{"an area covers its actions and nested areas", []set{{"p.panel", "Saving"}},
			map[string]string{"p.go": "", "p.panel.save": "Saving", "p.panel.inner.tick": "Saving", "p.side.look": ""}},
		{"a nested area covers only its own", []set{{"p.panel.inner", "Ticking"}},
			map[string]string{"p.go": "", "p.panel.save": "", "p.panel.inner.tick": "Ticking", "p.side.look": ""}},
		{"the nearest busy area wins", []set{{"p", "Page"}, {"p.panel", "Panel"}, {"p.panel.inner", "Inner"}},
			map[string]string{"p.go": "Page", "p.panel.save": "Panel", "p.panel.inner.tick": "Inner", "p.side.look": "Page"}},
		{"the action's own label wins", []set{{"p", "Page"}, {"p.panel", "Panel"}, {"p.panel.save", "Own"}},
			map[string]string{"p.go": "Page", "p.panel.save": "Own", "p.panel.inner.tick": "Panel"}},
		{"clearing an inner label shows the outer one", []set{{"p", "Page"}, {"p.panel", "Panel"}, {"p.panel", ""}},
			map[string]string{"p.panel.save": "Page", "p.panel.inner.tick": "Page"}},
		{"a label replaced", []set{{"p.go", "One"}, {"p.go", "Two"}}, map[string]string{"p.go": "Two"}},
		{"another page's label does not leak", []set{{"q", "Elsewhere"}, {"q.x", "X"}},
			map[string]string{"p.go": "", "p.panel.save": ""}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := newV2(t, busyGraph, AppOptions{}, nil)
			for _, s := range c.sets {
				require.NoError(t, v.app.SetBusy(s.id, s.label))
			}
			p := v.port(t, PortOptions{})
			_, m := pcall(t, p, "b.whats_here", `{}`)
			for action, want := range c.want {
				row := rowOf(t, m, "actions", action)
				if want == "" {
					assert.NotContains(t, row, "busy", action)
				} else {
					assert.Equal(t, want, row["busy"], action)
				}
			}
		})
	}
}

func TestBusyRowsStepsAndRefusals(t *testing.T) {
	v := newV2(t, busyGraph, AppOptions{}, nil)
	p := v.port(t, PortOptions{})
	var changed atomic.Int32
	v.app.OnChange(func() { changed.Add(1) })
	require.NoError(t, v.app.SetBusy("p.panel", "Saving your draft"))
	assert.Equal(t, int32(1), changed.Load(), "SetBusy tells OnChange")

	// A ready step carries it.
	_, m := pcall(t, p, "b.journey.j", `{}`)
	step := rowOf(t, m, "readySteps", "p.panel.inner.tick")
	assert.Equal(t, "Saving your draft", step["busy"])

	// A refusal of a busy action carries busy, and why says one sentence
	// more: work in progress, not a failure.
	r, m := pcall(t, p, "b.do_action", `{"action":"save"}`)
	assert.Equal(t, ReasonToolDisabled, m["reason"], "%s", r.JSON())
	assert.Equal(t, "Saving your draft", m["busy"])
	assert.Equal(t, whyOf(ReasonToolDisabled)+" The app is busy with it (Saving your draft): that is work in progress, not a failure.", m["why"])
	assert.Equal(t, true, m["retriable"])
	keys := r.Keys()
	assert.Less(t, slices.Index(keys, "retriable"), slices.Index(keys, "busy"))
	assert.Less(t, slices.Index(keys, "busy"), slices.Index(keys, "youAreOn"))

	// A refusal of an action that is not busy carries neither.
	require.NoError(t, v.app.Navigate("q", PrincipalUser))
	_, m = pcall(t, p, "b.do_action", `{"action":"p.go"}`)
	assert.Equal(t, ReasonNotOnPage, m["reason"])
	assert.NotContains(t, m, "busy")
	assert.Equal(t, whyOf(ReasonNotOnPage), m["why"])
	// Busy on another page: NOT_ON_PAGE of a busy action still says so.
	_, m = pcall(t, p, "b.do_action", `{"action":"p.panel.inner.tick"}`)
	assert.Equal(t, ReasonNotOnPage, m["reason"])
	assert.Equal(t, "Saving your draft", m["busy"])
	assert.True(t, strings.HasPrefix(m["why"].(string), whyOf(ReasonNotOnPage)+" The app is busy with it"))
	require.NoError(t, v.app.Navigate("p", PrincipalUser))

	// A journey refusal (STEP_NOT_READY) of a busy step says so too.
	_, m = pcall(t, p, "b.journey.j", `{"step":"p.go"}`)
	assert.Equal(t, ReasonStepNotReady, m["reason"])
	assert.NotContains(t, m, "busy")
	require.NoError(t, v.app.SetBusy("p", "Loading"))
	_, m = pcall(t, p, "b.journey.j", `{"step":"p.go"}`)
	assert.Equal(t, ReasonStepNotReady, m["reason"])
	assert.Equal(t, "Loading", m["busy"])
}

func TestBusyNeverGates(t *testing.T) {
	v := newV2(t, busyGraph, AppOptions{State: State{"ready": true}, RequireHumanApproval: ptrBool(false)}, nil)
	for _, id := range []string{"p", "p.panel", "p.panel.save", "p.side.look"} {
		require.NoError(t, v.app.SetBusy(id, "Busy"))
	}
	p := v.port(t, PortOptions{})
	r, m := pcall(t, p, "b.do_action", `{"action":"save"}`)
	require.Equal(t, true, m["ok"], "%s", r.JSON())
	assert.NotContains(t, m, "busy", "a fire that went through is not a refusal")
	assert.Equal(t, "performed", waitSettled(t, v.app, r.TransitionID()).Status)
	// A high-effect busy action still asks and fires.
	_, m = pcall(t, p, "b.do_action", `{"action":"look"}`)
	assert.Equal(t, "needs-confirm", m["judgment"])
	r, m = pcall(t, p, "b.do_action", `{"action":"look","confirm":true}`)
	require.Equal(t, true, m["ok"], "%s", r.JSON())
	waitSettled(t, v.app, r.TransitionID())
	// At the app level too.
	fr := v.fire("p.go", FireOptions{})
	assert.True(t, fr.OK)
	waitSettled(t, v.app, fr.TransitionID)
	assert.Equal(t, int64(6), v.app.Version(), "SetBusy bumps no version: three fires, three settlements")
}

func TestBusyInGraphWithoutOtherV2Fields(t *testing.T) {
	// Busy works on the shop (a first-version graph) and leaves its tools
	// alone.
	s := newShop(t, AppOptions{Page: "cart"})
	p := s.port(t, PortOptions{})
	before := string(p.ToolsJSON())
	require.NoError(t, s.app.SetBusy("cart.summary", "Recalculating"))
	_, m := pcall(t, p, "shop.whats_here", `{}`)
	assert.Equal(t, "Recalculating", rowOf(t, m, "actions", "cart.summary.apply_coupon")["busy"])
	assert.NotContains(t, rowOf(t, m, "actions", "cart.checkout"), "busy")
	assert.Equal(t, before, string(s.port(t, PortOptions{}).ToolsJSON()))
}

func TestBusyOnAPageIDWithDots(t *testing.T) {
	// Ids may hold dots: the area of page "shop.cart" is "shop.cart.summary".
	v := newV2(t, `{"id":"g","pages":[{"id":"shop.cart","areas":[{"id":"summary"}]},{"id":"shop"}],
	 "actions":[{"id":"shop.cart.summary.apply","does":"Apply.","on":"shop.cart"},{"id":"shop.cart.go","does":"Go.","on":"shop.cart"}]}`, AppOptions{}, nil)
	require.NoError(t, v.app.SetBusy("shop.cart.summary", "Recalculating"))
	require.Error(t, v.app.SetBusy("shop.summary", "x"), "not an area of page shop")
	p := v.port(t, PortOptions{})
	_, m := pcall(t, p, "g.whats_here", `{}`)
	assert.Equal(t, "Recalculating", rowOf(t, m, "actions", "shop.cart.summary.apply")["busy"])
	assert.NotContains(t, rowOf(t, m, "actions", "shop.cart.go"), "busy")
	// The page "shop" is a prefix of "shop.cart" but not around it: its
	// label covers only its own actions.
	require.NoError(t, v.app.SetBusy("shop", "Elsewhere"))
	_, m = pcall(t, p, "g.whats_here", `{}`)
	assert.NotContains(t, rowOf(t, m, "actions", "shop.cart.go"), "busy")
	require.NoError(t, v.app.SetBusy("shop.cart", "Loading"))
	_, m = pcall(t, p, "g.whats_here", `{}`)
	assert.Equal(t, "Loading", rowOf(t, m, "actions", "shop.cart.go")["busy"])
	assert.Equal(t, "Recalculating", rowOf(t, m, "actions", "shop.cart.summary.apply")["busy"])
}
