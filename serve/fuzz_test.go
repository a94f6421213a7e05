// Fuzz tests for the parsers of this package: ParseValue (with the
// AppendValue round trip), ParseGraph, CompileSchema with Validate, and
// ParseGuard with Eval.

package serve

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

var fuzzValueSeeds = []string{
	`null`, `true`, `-0`, `1e21`, `1e-7`, `123456789012345678901234567890`, `0.1`,
	`"a\"\\\/\b\f\n\r\t\u0000\u2028\ud83d\ude00\ud800"`, "\"\xff\"", `[]`, `{}`,
	`{"a":[1,{"b":null}],"a":"dup"}`, `[1,]`, `{"a" 1}`, `01`, `1e400`, "\"\x01\"",
	`[[[[[[[[[[]]]]]]]]]]`, ` {"key":"x","op":"eq","value":[1,"2"]} `,
}

func FuzzParseValue(f *testing.F) {
	for _, s := range fuzzValueSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ParseValue(data)
		var std any
		stdErr := json.Unmarshal(data, &std)
		if err != nil {
			require.Nil(t, v)
			require.True(t, strings.HasPrefix(err.Error(), "serve: json: at byte "), err.Error())
			// Every document we reject is also rejected by encoding/json,
			// except numbers out of float64 range, which it rejects too.
			if stdErr == nil {
				t.Fatalf("rejected %q that encoding/json accepts: %v", data, err)
			}
			return
		}
		if utf8.Valid(data) {
			// On valid UTF-8 input, we agree with encoding/json.
			require.NoError(t, stdErr, "accepted %q that encoding/json rejects", data)
			require.True(t, EqualValues(v, std), "%q: %#v vs %#v", data, v, std)
		}
		out := AppendValue(nil, v)
		require.True(t, utf8.Valid(out), "output is not UTF-8: %q", out)
		require.True(t, json.Valid(out), "output is not JSON: %q", out)
		v2, err := ParseValue(out)
		require.NoError(t, err, "re-parse of %q", out)
		require.True(t, EqualValues(v, v2), "round trip of %q through %q", data, out)
		require.Equal(t, string(out), string(AppendValue(nil, v2)), "encoding is not stable")
		require.True(t, EqualValues(v, CloneValue(v)))
	})
}

func FuzzParseGraph(f *testing.F) {
	f.Add([]byte(shopGraph))
	f.Add([]byte(`{"id":"g"}`))
	f.Add([]byte(`{"id":"g","pages":[{"id":"a","areas":[{"id":"b","areas":[{"id":"c"}]}]}],"actions":[{"id":"a.b.c.x","on":"a","input":{"$ref":"#"}}],"journeys":[{"id":"j","steps":["a.b.c.x"]}]}`))
	f.Add([]byte(`{"id":"g","pages":[{"id":"p"}],"actions":[{"id":"p.x","on":"p","when":{"not":{"any":[]}}}]}`))
	f.Add([]byte(secondVersionGraph))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := ParseGraph(data)
		if err != nil {
			require.Nil(t, g)
			require.True(t, strings.HasPrefix(err.Error(), "serve: "), err.Error())
			return
		}
		require.True(t, ValidID(g.ID))
		for _, p := range g.Pages {
			require.Same(t, g.Page(p.ID), g.Page(p.ID))
			require.Equal(t, p.ID, g.Page(p.ID).ID)
			for _, a := range p.Areas {
				require.True(t, strings.HasPrefix(a, p.ID+"."))
			}
		}
		for _, a := range g.Actions {
			require.NotNil(t, g.Page(a.On), a.ID)
			require.True(t, strings.HasPrefix(a.ID, a.On+"."), a.ID)
			if a.GoTo != "" {
				require.NotNil(t, g.Page(a.GoTo))
			}
			a.When.Eval(State{})
			a.EnabledWhen.Eval(State{"x": 1.0})
			a.Input.Validate(map[string]any{})
			a.Verify.Eval(State{})
			if a.Repeats != "" {
				require.NotNil(t, g.Repeat(a.Repeats), a.ID)
				require.True(t, strings.HasPrefix(a.ID, a.Repeats+"."), a.ID)
			}
		}
		for _, j := range g.Journeys {
			require.NotEmpty(t, j.Steps)
			for _, s := range j.Steps {
				require.NotNil(t, g.Action(s))
			}
			j.Precondition.Eval(nil)
		}
		// Parsing is deterministic.
		g2, err := ParseGraph(data)
		require.NoError(t, err)
		require.Equal(t, len(g.Actions), len(g2.Actions))
		for i := range g.Actions {
			require.Equal(t, g.Actions[i].ID, g2.Actions[i].ID)
		}
	})
}

func FuzzSchema(f *testing.F) {
	f.Add([]byte(`{"type":"object","required":["a"],"properties":{"a":{"type":["integer","null"],"minimum":1}},"additionalProperties":false}`), []byte(`{"a":1.5,"b":2}`))
	f.Add([]byte(`{"$defs":{"t":{"anyOf":[{"$ref":"#/$defs/t"},{"type":"array","items":{"$ref":"#/$defs/t"}}]}},"$ref":"#/$defs/t"}`), []byte(`[[[]]]`))
	f.Add([]byte(`{"oneOf":[{"enum":[1,"a"]},{"const":{"x":[1]}}],"allOf":[{"maxLength":2,"minItems":1}]}`), []byte(`"ab"`))
	f.Add([]byte(`false`), []byte(`null`))
	f.Add([]byte(`{"$ref":"#"}`), []byte(`{}`))
	f.Fuzz(func(t *testing.T, schemaDoc, valueDoc []byte) {
		sv, err := ParseValue(schemaDoc)
		if err != nil {
			return
		}
		s, err := CompileSchema(sv)
		if err != nil {
			require.Nil(t, s)
			require.True(t, strings.HasPrefix(err.Error(), "serve: schema: "), err.Error())
			return
		}
		v, err := ParseValue(valueDoc)
		if err != nil {
			return
		}
		errs := s.Validate(v)
		for _, e := range errs {
			require.NotEmpty(t, e.Message)
			require.True(t, e.Path == "" || strings.HasPrefix(e.Path, "/"), e.Path)
		}
		// Deterministic.
		require.Equal(t, errs, s.Validate(v))
	})
}

func FuzzParseGuard(f *testing.F) {
	f.Add([]byte(`{"key":"cart.items","op":"nonEmpty"}`), []byte(`{"cart":{"items":[1]}}`))
	f.Add([]byte(`{"all":[{"key":"a","op":"gt","value":1},{"not":{"key":"b","op":"in","value":[1,"x"]}}]}`), []byte(`{"a":2,"b":"x"}`))
	f.Add([]byte(`{"any":[{"key":"r","op":"eq","value":"admin"},{"key":"r","op":"ne","value":null}]}`), []byte(`{"r":null}`))
	f.Add([]byte(`{"key":"x","op":"bogus"}`), []byte(`{}`))
	f.Fuzz(func(t *testing.T, guardDoc, stateDoc []byte) {
		gv, err := ParseValue(guardDoc)
		if err != nil {
			return
		}
		g, err := ParseGuard(gv)
		if err != nil {
			require.Nil(t, g)
			require.True(t, strings.HasPrefix(err.Error(), "serve: guard: "), err.Error())
			return
		}
		sv, _ := ParseValue(stateDoc)
		state, _ := sv.(map[string]any)
		ok, held, failed := g.Eval(state)
		if ok {
			require.Nil(t, failed)
		} else {
			require.Nil(t, held)
		}
		for _, c := range append(held, failed...) {
			require.NotEmpty(t, c.Key)
			require.True(t, guardOps[c.Op], c.Op)
			require.NotEmpty(t, c.String())
			_, err := ParseValue(c.AppendJSON(nil))
			require.NoError(t, err)
		}
		ok2, _, _ := g.Eval(state)
		require.Equal(t, ok, ok2)
	})
}

// secondVersionGraph uses every field of the port's second version.
const secondVersionGraph = `{"id":"ops","routeTo":true,
 "pages":[{"id":"orders","areas":[{"id":"list","repeats":true,"instancesFrom":"orders.ids"}]},{"id":"help"}],
 "actions":[
  {"id":"orders.list.cancel","does":"Cancel it.","on":"orders","confirm":true,"writes":["orders.cancelled"],
   "verify":{"key":"orders.cancelled","op":"nonEmpty"},"concurrency":"single-flight"},
  {"id":"orders.refund","does":"Refund.","on":"orders","concurrency":"once","freshness":"track","reads":["orders.total"]},
  {"id":"orders.note","does":"Note.","on":"orders","freshness":"cite","reads":["orders.note"],
   "input":{"type":"object","properties":{"text":{"type":"string"}}}},
  {"id":"orders.help","does":"Help.","on":"orders","goTo":"help"},
  {"id":"help.back","does":"Back.","on":"help","goTo":"orders"}],
 "journeys":[{"id":"tidy","does":"Cancel and note.","steps":["orders.list.cancel","orders.note"]}]}`

// FuzzPortCallSecondVersion calls every tool of a port over a graph that
// uses the second version's fields with arbitrary arguments: every result
// keeps the invariants, nothing panics, and the app stays usable.
func FuzzPortCallSecondVersion(f *testing.F) {
	for _, s := range []string{`{}`, `{"action":"cancel","instance":"o-1"}`, `{"action":"cancel","instance":7,"confirm":true}`,
		`{"action":"note","offerId":"offer#1","input":{"text":"x"}}`, `{"routeTo":"help"}`, `{"routeTo":"nowhere"}`,
		`{"routeTo":5}`, `{"step":"cancel","instance":["x"]}`, `{"action":"refund"}`, `{"offerId":null}`} {
		for _, tool := range []string{"ops.journey.tidy", "ops.whats_here", "ops.do_action", "ops.did_it_work"} {
			f.Add(tool, s)
		}
	}
	g, err := ParseGraph([]byte(secondVersionGraph))
	require.NoError(f, err)
	handlers := map[string]Handler{}
	for _, a := range g.Actions {
		handlers[a.ID] = func(ctx context.Context, c HandlerCall) (any, error) {
			return map[string]any{"orders": map[string]any{"cancelled": []any{c.Instance}}}, nil
		}
	}
	app, err := NewApp(g, AppOptions{Handlers: handlers, RequireHumanApproval: ptrBool(false),
		State: State{"orders": map[string]any{"ids": []any{"o-1", 7.0, map[string]any{"id": "o-3"}}}}})
	require.NoError(f, err)
	require.NoError(f, app.SetInstances("orders.list", []string{"o-1", "7"}))
	require.NoError(f, app.SetBusy("orders.list", "Loading"))
	p, err := NewPort(app, PortOptions{OfferLedger: 4})
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, tool, args string) {
		r := p.Call(context.Background(), tool, []byte(args))
		checkResult(t, r)
		if id := r.TransitionID(); id != "" {
			waitSettled(t, app, id)
		}
		require.NoError(t, app.Navigate("orders", PrincipalUser))
	})
}
