// The 57-journey fixture, like the reference's measurement: a synthetic
// app of 60 pages and 57 two-step journeys whose does run from 21 to 121
// characters, exactly 2 of them startable on the first page. It is
// generated here and stored in testdata/fixture57.json (go test -run
// TestFixtureUpToDate -update rewrites it); the tests measure the tool
// array in both modes and check it never changes.

package serve

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var updateFixture = flag.Bool("update", false, "rewrite serve/testdata/fixture57.json")

// The reference's own figures for the 57-journey app.
const (
	refPerJourneyBytes = 79199
	refSingleBytes     = 4428
)

// The goals for the 57-journey fixture's tool array: a model holds all of
// it in every turn, so it must stay well under the reference's.
const (
	goalPerJourneyBytes = 40000
	goalSingleBytes     = 3000
)

// The 57-journey fixture's tool array, in bytes of compact JSON: 57 journey
// tools (does, one line of use, a compact schema whose confirm and decline
// point at do_action) and the 4 shared tools in per-journey mode; the one
// journey tool and the 4 shared tools in single mode. A change of a tool's
// text or schema changes them: update them here and in docs/PORT.md.
const (
	fixturePerJourneyBytes = 38054
	fixtureSingleBytes     = 2945
)

const fixturePages = 60

// fixtureDoes is journey i's does, n journeys in all: lengths spread
// evenly from 21 to 121 characters.
func fixtureDoes(i, n int) string {
	size := 21
	if n > 1 {
		size = 21 + (100*i+(n-1)/2)/(n-1)
	}
	head := fmt.Sprintf("Journey %02d: ", i)
	filler := "move the order along, check the details and confirm what the person asked for, then report back. "
	s := head + strings.Repeat(filler, 2)
	s = s[:size-1] + "."
	return s
}

// fixtureGraph builds the synthetic app with n journeys (n ≤ 57 keeps
// exactly 2 startable on the first page).
func fixtureGraph(n int) string {
	var b strings.Builder
	b.WriteString(`{"id":"fixture","pages":[`)
	for i := 0; i < fixturePages; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"p%02d","areas":[{"id":"main"}]}`, i)
	}
	b.WriteString(`],"actions":[`)
	for i := 0; i < n; i++ {
		// Journeys 0 and 1 start on p00; the rest start on p01..p59.
		from := 0
		if i >= 2 {
			from = 1 + (i-2)%(fixturePages-1)
		}
		to := 1 + (i+7)%(fixturePages-1)
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"p%02d.main.j%02d_start","does":"Start step %02d.","on":"p%02d","goTo":"p%02d",`+
			`"input":{"type":"object","properties":{"note":{"type":"string","maxLength":200}}}},`, from, i, i, from, to)
		fmt.Fprintf(&b, `{"id":"p%02d.j%02d_finish","does":"Finish step %02d.","on":"p%02d","confirm":%v,"writes":["j%02d.done"]}`,
			to, i, i, to, i%3 == 0, i)
	}
	b.WriteString(`],"journeys":[`)
	for i := 0; i < n; i++ {
		from := 0
		if i >= 2 {
			from = 1 + (i-2)%(fixturePages-1)
		}
		to := 1 + (i+7)%(fixturePages-1)
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"j%02d","does":%q,"steps":["p%02d.main.j%02d_start","p%02d.j%02d_finish"]}`,
			i, fixtureDoes(i, n), from, i, to, i)
	}
	b.WriteString(`]}`)
	return b.String()
}

func fixtureApp(t testing.TB, src string) *App {
	t.Helper()
	g := mustGraph(t, src)
	h := map[string]Handler{}
	for _, a := range g.Actions {
		h[a.ID] = func(context.Context, HandlerCall) (any, error) { return map[string]any{"ok": true}, nil }
	}
	app, err := NewApp(g, AppOptions{Handlers: h, RequireHumanApproval: ptrBool(false)})
	require.NoError(t, err)
	return app
}

func TestFixtureUpToDate(t *testing.T) {
	want := fixtureGraph(57)
	path := filepath.Join("testdata", "fixture57.json")
	if *updateFixture {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, []byte(want+"\n"), 0o644))
	}
	got, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./serve -run TestFixtureUpToDate -update")
	assert.Equal(t, want+"\n", string(got), "testdata/fixture57.json is stale: go test ./serve -run TestFixtureUpToDate -update")
}

func TestFixtureShape(t *testing.T) {
	g := mustGraph(t, fixtureGraph(57))
	assert.Len(t, g.Pages, 60)
	require.Len(t, g.Journeys, 57)
	minLen, maxLen := 1000, 0
	for _, j := range g.Journeys {
		assert.Len(t, j.Steps, 2)
		minLen = min(minLen, len(j.Does))
		maxLen = max(maxLen, len(j.Does))
	}
	assert.Equal(t, 21, minLen)
	assert.Equal(t, 121, maxLen)
	p, err := NewPort(fixtureApp(t, fixtureGraph(57)), PortOptions{JourneyTools: "single"})
	require.NoError(t, err)
	_, m := pcall(t, p, "fixture.whats_here", `{}`)
	assert.Len(t, m["journeys"], 2, "exactly 2 journeys startable on the first page")
	assert.Equal(t, 55.0, m["journeysElsewhere"])
}

func TestFixtureToolBytes(t *testing.T) {
	app := fixtureApp(t, fixtureGraph(57))
	per, err := NewPort(app, PortOptions{})
	require.NoError(t, err)
	single, err := NewPort(app, PortOptions{JourneyTools: "single"})
	require.NoError(t, err)
	perJSON, singleJSON := per.ToolsJSON(), single.ToolsJSON()
	t.Logf("57-journey fixture tool array: per-journey %d bytes (reference %d, goal %d), single %d bytes (reference %d, goal %d)",
		len(perJSON), refPerJourneyBytes, goalPerJourneyBytes, len(singleJSON), refSingleBytes, goalSingleBytes)
	assert.Equal(t, fixturePerJourneyBytes, len(perJSON), "per-journey bytes: update fixturePerJourneyBytes and docs/PORT.md")
	assert.Equal(t, fixtureSingleBytes, len(singleJSON), "single bytes: update fixtureSingleBytes and docs/PORT.md")
	assert.Len(t, per.Tools(), 57+4)
	assert.Len(t, single.Tools(), 5)

	// Navigation, a state change and frame changes leave both arrays alone.
	pcall(t, per, "fixture.journey.j00", `{}`)
	pcall(t, single, "fixture.journey", `{"journey":"j01","step":"start"}`)
	pcall(t, per, "fixture.journey.j01", `{}`)
	require.NoError(t, app.Navigate("p30", PrincipalUser))
	require.NoError(t, app.Patch(State{"j00.done": true}, PrincipalUser))
	assert.Equal(t, string(perJSON), string(per.ToolsJSON()))
	assert.Equal(t, string(singleJSON), string(single.ToolsJSON()))

	// The single-mode array does not depend on how many journeys there are.
	small, err := NewPort(fixtureApp(t, fixtureGraph(5)), PortOptions{JourneyTools: "single"})
	require.NoError(t, err)
	assert.Equal(t, string(singleJSON), string(small.ToolsJSON()))
}

// The pinned figures are within the goals, and the goals within the
// reference's figures.
func TestFixtureToolBytesWithinGoals(t *testing.T) {
	cases := []struct {
		name           string
		got, goal, ref int
	}{
		{"per-journey", fixturePerJourneyBytes, goalPerJourneyBytes, refPerJourneyBytes},
		{"single", fixtureSingleBytes, goalSingleBytes, refSingleBytes},
	}
	for _, c := range cases {
		assert.LessOrEqual(t, c.got, c.goal, c.name)
		assert.Less(t, c.goal, c.ref, c.name)
	}
}

// The same graph gives the same bytes: in ports built again over new app
// sessions of it, and from the stored fixture file.
func TestFixtureToolBytesStable(t *testing.T) {
	for _, mode := range []string{JourneyToolsPerJourney, JourneyToolsSingle} {
		t.Run(mode, func(t *testing.T) {
			first, err := NewPort(fixtureApp(t, fixtureGraph(57)), PortOptions{JourneyTools: mode})
			require.NoError(t, err)
			for range 3 {
				again, err := NewPort(fixtureApp(t, fixtureGraph(57)), PortOptions{JourneyTools: mode})
				require.NoError(t, err)
				assert.Equal(t, string(first.ToolsJSON()), string(again.ToolsJSON()))
			}
			src, err := os.ReadFile(filepath.Join("testdata", "fixture57.json"))
			require.NoError(t, err)
			stored, err := NewPort(fixtureApp(t, string(src)), PortOptions{JourneyTools: mode})
			require.NoError(t, err)
			assert.Equal(t, string(first.ToolsJSON()), string(stored.ToolsJSON()), "the stored fixture gives the same bytes")
		})
	}
}

// docs/PORT.md states the pinned figures, and the reference's.
func TestFixtureFiguresInPortDoc(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "PORT.md"))
	require.NoError(t, err)
	doc := strings.Join(strings.Fields(string(b)), " ")
	for _, want := range []string{
		"**" + thousands(fixturePerJourneyBytes) + " bytes** in `per-journey` mode (the reference: " + thousands(refPerJourneyBytes) + ")",
		"**" + thousands(fixtureSingleBytes) + " bytes** in `single` mode (the reference: ~" + thousands(refSingleBytes) + ")",
	} {
		assert.True(t, strings.Contains(doc, want), "docs/PORT.md lacks %q", want)
	}
}

// thousands writes n with a comma between thousands, as docs/PORT.md does.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
