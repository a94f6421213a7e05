// The first version's answers, kept byte for byte: a graph that uses none
// of the second version's fields (repeats, instancesFrom, verify,
// concurrency, freshness, routeTo) must give the same tool arrays and the
// same results, in the same bytes, as before those fields existed. The
// transcripts in testdata/golden_v1 were written by the first version;
// run with -update-golden only when a change to the first version's
// answers is meant (the gated transcript changed once so: its tools offer
// askId and its needs-confirm says to cite it). Ask ids, random in every
// run, are written ask#1, ask#2 … in the order a run shows them.

package serve

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite serve/testdata/golden_v1 from this build")

// goldenStep is one step of a scripted run: a tool call (tool is the name
// after "shop."), a host action (host), or the person's approval of an ask
// (approve, an ask's transcript name).
type goldenStep struct {
	tool, args string
	host       func(s *shop)
	approve    string
}

// askNames gives the unguessable ask ids of a run the stable names the
// transcripts use: ask#1 for the first id the run shows, and so on, as the
// first version numbered them. Everything else in a transcript is compared
// byte for byte.
type askNames struct {
	names map[string]string // real id → ask#N
	ids   map[string]string // ask#N → real id
}

var askIDPattern = regexp.MustCompile(`ask_[a-z2-7]{26}`)

// name replaces every ask id in b by its transcript name.
func (n *askNames) name(b []byte) []byte {
	return askIDPattern.ReplaceAllFunc(b, func(id []byte) []byte {
		nm, ok := n.names[string(id)]
		if !ok {
			nm = "ask#" + strconv.Itoa(len(n.names)+1)
			n.names[string(id)] = nm
			n.ids[nm] = string(id)
		}
		return []byte(nm)
	})
}

// real replaces every transcript name in s by the run's id.
func (n *askNames) real(s string) string {
	return regexp.MustCompile(`ask#[0-9]+`).ReplaceAllStringFunc(s, func(nm string) string {
		if id, ok := n.ids[nm]; ok {
			return id
		}
		return nm
	})
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
	approve := func(name string) goldenStep { return goldenStep{approve: name} }
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
	asks := askNames{names: map[string]string{}, ids: map[string]string{}}
	for i, st := range goldenScript(opts.JourneyTools == JourneyToolsSingle) {
		if st.host != nil {
			st.host(s)
			continue
		}
		if st.approve != "" {
			_ = s.app.ApproveAsk(asks.real(st.approve), "pat")
			continue
		}
		name := "shop" + sep + st.tool
		if sep != "." {
			name = "shop" + sep + string(bytes.ReplaceAll([]byte(st.tool), []byte("."), []byte(sep)))
		}
		// Every call folds its settlement in, as the MCP server does: a
		// fire's position is then read after it settled, not racing it.
		r := CallSettled(ctx, p, name, []byte(asks.real(st.args)), DefaultSettleWithin*40)
		checkResult(t, r)
		if id := r.TransitionID(); id != "" {
			waitSettled(t, s.app, id) // the next step sees a settled app
		}
		out.WriteString(strconv.Itoa(i) + " " + name + " " + st.args + "\n")
		out.Write(asks.name(r.JSON()))
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
