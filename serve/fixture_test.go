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
	t.Logf("57-journey fixture tool array: per-journey %d bytes (reference %d), single %d bytes (reference %d)",
		len(perJSON), refPerJourneyBytes, len(singleJSON), refSingleBytes)
	assert.LessOrEqual(t, len(perJSON), refPerJourneyBytes)
	assert.LessOrEqual(t, len(singleJSON), refSingleBytes)
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
