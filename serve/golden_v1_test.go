// The first version's answers, kept byte for byte: a graph that uses none
// of the second version's fields (repeats, instancesFrom, verify,
// concurrency, freshness, routeTo) must give the same tool arrays and the
// same results, in the same bytes, as before those fields existed. The
// transcripts in testdata/golden_v1 were written by the first version;
// run with -update-golden only when a change to the first version's
// answers is meant.

package serve

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite serve/testdata/golden_v1 from this build")

// goldenStep is one step of a scripted run: a tool call (tool is the name
// after "shop."), or a host action (host).
type goldenStep struct {
	tool, args string
	host       func(s *shop)
}

// goldenScript drives every tool through openings, refusals, confirm
// gates, approvals, settlements, reports, patches and navigation.
func goldenScript(single bool) []goldenStep {
	j := func(id, rest string) goldenStep {
		if single {
			if rest == "" {
				return goldenStep{tool: "journey", args: `{"journey":"` + id + `"}`}
			}
			return goldenStep{tool: "journey", args: `{"journey":"` + id + `",` + rest + `}`}
		}
		return goldenStep{tool: "journey." + id, args: "{" + rest + "}"}
	}
	approve := func(id string) goldenStep {
		return goldenStep{host: func(s *shop) { _ = s.app.ApproveAsk(id, "pat") }}
	}
	return []goldenStep{
		{tool: "whats_here", args: `{}`},
		{tool: "nope", args: `{}`},
		{tool: "why", args: `{}`},
		{tool: "why", args: `{"key":"cart.items"}`},
		{tool: "do_action", args: `{}`},
		{tool: "do_action", args: `{"action":"search","input":{"q":""}}`},
		{tool: "do_action", args: `{"action":"home.admin"}`},
		{tool: "do_action", args: `{"action":"home.search","input":{"q":"pears"}}`},
		{tool: "did_it_work", args: `{"transitionId":"home.search#1"}`},
		{tool: "did_it_work", args: `{"transitionId":"nope#9"}`},
		j("vip", ""),
		j("browse", ""),
		j("browse", `"step":"browse"`),
		{tool: "whats_here", args: `{"sinceVersion":1}`},
		{host: func(s *shop) { _ = s.app.Patch(State{"cart.locked": true}, PrincipalUser) }},
		{tool: "do_action", args: `{"action":"cart.clear"}`},
		{host: func(s *shop) { _ = s.app.Patch(State{"cart.locked": false}, PrincipalUser) }},
		{tool: "do_action", args: `{"action":"cart.clear"}`},
		{tool: "do_action", args: `{"action":"cart.clear","decline":true}`},
		{tool: "do_action", args: `{"action":"cart.clear"}`},
		approve("ask#2"),
		{tool: "did_it_work", args: `{"askId":"ask#2"}`},
		{tool: "do_action", args: `{"action":"cart.clear","confirm":true}`},
		{tool: "why", args: `{"key":"cart.items"}`},
		{host: func(s *shop) { _ = s.app.Patch(State{"cart.items": []any{"pear"}}, PrincipalUser) }},
		j("buy", ""),
		j("buy", `"step":"checkout"`),
		j("buy", `"step":"pay","input":{"amount":"x"}`),
		j("buy", `"step":"pay","input":{"amount":12}`),
		approve("ask#3"),
		j("buy", `"step":"pay","input":{"amount":13},"confirm":true`),
		j("buy", `"step":"pay","input":{"amount":12},"confirm":true`),
		{tool: "did_it_work", args: `{"transitionId":"checkout.pay#1"}`},
		{tool: "whats_here", args: `{}`},
		{host: func(s *shop) { _, _ = s.app.Report("done.home", nil, nil) }},
		{host: func(s *shop) { _ = s.app.Navigate("done", PrincipalUser) }},
		{tool: "do_action", args: `{"action":"unwired"}`},
		{tool: "do_action", args: `{"action":"home"}`},
		{tool: "whats_here", args: `{"sinceVersion":3}`},
		{tool: "why", args: `{"key":"order.id"}`},
	}
}

// goldenConfigs are the port set-ups the transcripts cover.
var goldenConfigs = []struct {
	name string
	app  AppOptions
	port PortOptions
}{
	{"per-journey", AppOptions{}, PortOptions{}},
	{"single", AppOptions{}, PortOptions{JourneyTools: JourneyToolsSingle}},
	{"gated", AppOptions{RequireHumanApproval: ptrBool(true)}, PortOptions{}},
	{"no-confirm", AppOptions{RequireHumanApproval: ptrBool(false)}, PortOptions{ConfirmHighEffect: ptrBool(false), Separator: "__"}},
}

// goldenTranscript runs the script on one configuration: the tool array,
// then one line per call: the call and its result's bytes.
func goldenTranscript(t *testing.T, app AppOptions, opts PortOptions) []byte {
	s := newShop(t, app)
	p := s.port(t, opts)
	sep := opts.Separator
	if sep == "" {
		sep = "."
	}
	var out bytes.Buffer
	out.Write(p.ToolsJSON())
	out.WriteByte('\n')
	ctx := context.Background()
	for i, st := range goldenScript(opts.JourneyTools == JourneyToolsSingle) {
		if st.host != nil {
			st.host(s)
			continue
		}
		name := "shop" + sep + st.tool
		if sep != "." {
			name = "shop" + sep + string(bytes.ReplaceAll([]byte(st.tool), []byte("."), []byte(sep)))
		}
		// Every call folds its settlement in, as the MCP server does: a
		// fire's position is then read after it settled, not racing it.
		r := CallSettled(ctx, p, name, []byte(st.args), DefaultSettleWithin*40)
		checkResult(t, r)
		if id := r.TransitionID(); id != "" {
			waitSettled(t, s.app, id) // the next step sees a settled app
		}
		out.WriteString(strconv.Itoa(i) + " " + name + " " + st.args + "\n")
		out.Write(r.JSON())
		out.WriteByte('\n')
	}
	return out.Bytes()
}

func TestGoldenFirstVersionAnswers(t *testing.T) {
	for _, c := range goldenConfigs {
		t.Run(c.name, func(t *testing.T) {
			got := goldenTranscript(t, c.app, c.port)
			path := filepath.Join("testdata", "golden_v1", c.name+".txt")
			if *updateGolden {
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, got, 0o644))
				return
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run go test ./serve -run TestGoldenFirstVersionAnswers -update-golden to write it")
			require.Equal(t, string(want), string(got), "a graph without the second version's fields answers as the first version did")
		})
	}
}
