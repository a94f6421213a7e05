// Tests of how the port reads a tool call's arguments: every refusal a
// parser can produce, pinned byte for byte as the result the model sees,
// and the parsers' values and errors one by one.

package serve

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// argsGraph has every argument a parser reads: a repeating area (instance),
// a "cite" action (offerId), routeTo, and a journey.
const argsGraph = `{"id":"args","routeTo":true,
 "pages":[{"id":"list","areas":[{"id":"orders","repeats":true,"instancesFrom":"orders"}]},{"id":"other"}],
 "actions":[
  {"id":"list.orders.open","does":"Open one order.","on":"list"},
  {"id":"list.save","does":"Save the draft.","on":"list","reads":["draft"],"freshness":"cite"},
  {"id":"list.away","does":"Go to the other page.","on":"list","goTo":"other"}
 ],
 "journeys":[{"id":"work","does":"Open an order, then save.","steps":["list.orders.open","list.save"]}]}`

// TestArgumentRefusals pins the whole result of every refusal a parser
// can produce, through Port.Call, in each tool that reads the argument.
func TestArgumentRefusals(t *testing.T) {
	v := newV2(t, argsGraph, AppOptions{Page: "list", State: State{"orders": []any{"o-1"}, "draft": "hi"}}, nil)
	per := v.port(t, PortOptions{})
	single := v.port(t, PortOptions{JourneyTools: JourneyToolsSingle})
	huge := `{"action":"` + strings.Repeat("x", maxArgs) + `"}`
	const pos = `,"youAreOn":"list","version":0}`
	invalid := func(msg string) string {
		return `{"ok":false,"judgment":"error","reason":"INVALID_ARGUMENTS","why":"` + whyOf(ReasonInvalidArguments) + `","error":"` + msg + `"` + pos
	}
	cases := []struct {
		name string
		p    *Port
		tool string
		args string
		want string
	}{
		{"too large", per, "args.do_action", huge,
			`{"ok":false,"judgment":"error","reason":"ARGUMENTS_TOO_LARGE","why":"` + whyOf(ReasonArgumentsTooLarge) +
				`","error":"the arguments are ` + strconv.Itoa(len(huge)) + ` bytes; the limit is 1048576"` + pos},
		{"cut short", per, "args.do_action", `{"action":`, invalid("the arguments are not valid JSON: serve: json: at byte 10: unexpected end of input, want a value")},
		{"not UTF-8", per, "args.whats_here", "\xff\xfe", invalid("the arguments are not valid JSON: serve: json: at byte 0: unexpected byte 0xff, want a value")},
		{"an array", per, "args.why", `[1,2]`, invalid("the arguments must be a JSON object")},
		{"a string", per, "args.did_it_work", `"x"`, invalid("the arguments must be a JSON object")},
		{"a number", per, "args.journey.work", `3`, invalid("the arguments must be a JSON object")},

		{"action a number", per, "args.do_action", `{"action":5}`, invalid("action must be a string, not a number")},
		{"action a boolean", per, "args.do_action", `{"action":true}`, invalid("action must be a string, not a boolean")},
		{"action an array", per, "args.do_action", `{"action":["a"]}`, invalid("action must be a string, not an array")},
		{"action an object", per, "args.do_action", `{"action":{}}`, invalid("action must be a string, not an object")},
		{"confirm a string", per, "args.do_action", `{"action":"list.away","confirm":"yes"}`, invalid("confirm must be true or false, not a string")},
		{"decline a number", per, "args.do_action", `{"action":"list.away","decline":1}`, invalid("decline must be true or false, not a number")},
		{"confirm and decline", per, "args.do_action", `{"action":"list.away","confirm":true,"decline":true}`,
			invalid("confirm and decline cannot both be true; pass the person's one answer")},
		{"askId a boolean", per, "args.do_action", `{"action":"list.away","askId":false}`, invalid("askId must be a string, not a boolean")},
		{"instance a boolean", per, "args.do_action", `{"action":"list.orders.open","instance":true}`, invalid("instance must be a string, not a boolean")},
		{"offerId a number", per, "args.do_action", `{"action":"list.save","offerId":1}`, invalid("offerId must be a string, not a number")},
		{"a bad argument before an unknown action", per, "args.do_action", `{"action":"nope","confirm":0}`,
			invalid("confirm must be true or false, not a number")},

		{"step a boolean", per, "args.journey.work", `{"step":true}`, invalid("step must be a string, not a boolean")},
		{"journey step's decline", per, "args.journey.work", `{"step":"open","decline":[]}`, invalid("decline must be true or false, not an array")},
		{"journey step's instance", per, "args.journey.work", `{"step":"open","instance":{}}`, invalid("instance must be a string, not an object")},
		{"journey a number", single, "args.journey", `{"journey":3}`, invalid("journey must be a string, not a number")},
		{"single mode's step", single, "args.journey", `{"journey":"work","step":1}`, invalid("step must be a string, not a number")},

		{"sinceVersion a string", per, "args.whats_here", `{"sinceVersion":"3"}`, invalid("sinceVersion must be a whole number ≥ 0, a version from an earlier result")},
		{"sinceVersion negative", per, "args.whats_here", `{"sinceVersion":-1}`, invalid("sinceVersion must be a whole number ≥ 0, a version from an earlier result")},
		{"sinceVersion a fraction", per, "args.whats_here", `{"sinceVersion":1.5}`, invalid("sinceVersion must be a whole number ≥ 0, a version from an earlier result")},
		{"sinceVersion too big", per, "args.whats_here", `{"sinceVersion":1e16}`, invalid("sinceVersion must be a whole number ≥ 0, a version from an earlier result")},
		{"routeTo a number", per, "args.whats_here", `{"routeTo":3}`, invalid("routeTo must be a string, not a number")},

		{"key an array", per, "args.why", `{"key":["a"]}`, invalid("key must be a string, not an array")},
		{"transitionId an object", per, "args.did_it_work", `{"transitionId":{}}`, invalid("transitionId must be a string, not an object")},
		{"askId a number", per, "args.did_it_work", `{"askId":2}`, invalid("askId must be a string, not a number")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := c.p.Call(context.Background(), c.tool, []byte(c.args))
			assert.Equal(t, c.want, r.String())
			assert.False(t, r.IsError(), "a refusal, not a tool failure")
		})
	}
	assert.Empty(t, v.app.Transitions())
	assert.Empty(t, v.app.Asks())
}

// TestArgReaders checks each reader's value for an argument it accepts and
// its argError (reason and text) for one it refuses.
func TestArgReaders(t *testing.T) {
	plain := &Port{}
	full := &Port{instances: true, citing: true}
	obj := func(raw string) argMap {
		t.Helper()
		a, err := parseArgs([]byte(raw))
		require.NoError(t, err, raw)
		return a
	}
	value := func(v any, err error) (any, error) { return v, err }
	tooBig := strings.Repeat(" ", maxArgs+1)
	cases := []struct {
		name   string
		read   func() (any, error)
		want   any
		reason string // "" when the reader accepts the argument
		text   string
	}{
		{"empty arguments", func() (any, error) { return value(parseArgs(nil)) }, argMap{}, "", ""},
		{"blank arguments", func() (any, error) { return value(parseArgs([]byte(" \t\r\n"))) }, argMap{}, "", ""},
		{"null arguments", func() (any, error) { return value(parseArgs([]byte("null"))) }, argMap{}, "", ""},
		{"an object", func() (any, error) { return value(parseArgs([]byte(`{"a":1}`))) }, argMap{"a": 1.0}, "", ""},
		{"blank but too large", func() (any, error) { return value(parseArgs([]byte(tooBig))) }, argMap(nil),
			ReasonArgumentsTooLarge, "the arguments are 1048577 bytes; the limit is 1048576"},
		{"not JSON", func() (any, error) { return value(parseArgs([]byte(`{`))) }, argMap(nil),
			ReasonInvalidArguments, "the arguments are not valid JSON: serve: json: at byte 1: unexpected end of input, want an object key"},
		{"not an object", func() (any, error) { return value(parseArgs([]byte(`true`))) }, argMap(nil),
			ReasonInvalidArguments, "the arguments must be a JSON object"},

		{"str absent", func() (any, error) { return value(obj(`{}`).str("k")) }, "", "", ""},
		{"str null", func() (any, error) { return value(obj(`{"k":null}`).str("k")) }, "", "", ""},
		{"str a string", func() (any, error) { return value(obj(`{"k":"v"}`).str("k")) }, "v", "", ""},
		{"str a number", func() (any, error) { return value(obj(`{"k":1}`).str("k")) }, "",
			ReasonInvalidArguments, "k must be a string, not a number"},
		{"flag absent", func() (any, error) { return value(obj(`{}`).flag("k")) }, false, "", ""},
		{"flag null", func() (any, error) { return value(obj(`{"k":null}`).flag("k")) }, false, "", ""},
		{"flag true", func() (any, error) { return value(obj(`{"k":true}`).flag("k")) }, true, "", ""},
		{"flag a string", func() (any, error) { return value(obj(`{"k":"true"}`).flag("k")) }, false,
			ReasonInvalidArguments, "k must be true or false, not a string"},

		{"sinceVersion absent", func() (any, error) { return value(obj(`{}`).sinceVersion()) }, int64(-1), "", ""},
		{"sinceVersion null", func() (any, error) { return value(obj(`{"sinceVersion":null}`).sinceVersion()) }, int64(-1), "", ""},
		{"sinceVersion 0", func() (any, error) { return value(obj(`{"sinceVersion":0}`).sinceVersion()) }, int64(0), "", ""},
		{"sinceVersion 10^15", func() (any, error) { return value(obj(`{"sinceVersion":1e15}`).sinceVersion()) }, int64(1e15), "", ""},
		{"sinceVersion a boolean", func() (any, error) { return value(obj(`{"sinceVersion":true}`).sinceVersion()) }, int64(-1),
			ReasonInvalidArguments, "sinceVersion must be a whole number ≥ 0, a version from an earlier result"},

		{"fire arguments", func() (any, error) {
			return value(full.fireArgs(obj(`{"confirm":true,"askId":"ask#1","input":{"n":1},"instance":7,"offerId":"offer#2"}`)))
		}, fireArgs{input: map[string]any{"n": 1.0}, hasInput: true, confirm: true, instance: "7", askID: "ask#1", offerID: "offer#2"}, "", ""},
		{"a graph without cards or cites ignores their names", func() (any, error) {
			return value(plain.fireArgs(obj(`{"decline":true,"instance":false,"offerId":1}`)))
		}, fireArgs{refuse: true}, "", ""},
		{"confirm and decline", func() (any, error) { return value(plain.fireArgs(obj(`{"confirm":true,"decline":true}`))) }, fireArgs{},
			ReasonInvalidArguments, "confirm and decline cannot both be true; pass the person's one answer"},
		{"confirm and decline false", func() (any, error) { return value(plain.fireArgs(obj(`{"confirm":false,"decline":false}`))) }, fireArgs{}, "", ""},
		{"instance an array", func() (any, error) { return value(full.fireArgs(obj(`{"instance":[]}`))) }, fireArgs{},
			ReasonInvalidArguments, "instance must be a string, not an array"},
		{"offerId an object", func() (any, error) { return value(full.fireArgs(obj(`{"offerId":{}}`))) }, fireArgs{},
			ReasonInvalidArguments, "offerId must be a string, not an object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.read()
			assert.Equal(t, c.want, got)
			if c.reason == "" {
				require.NoError(t, err)
				return
			}
			var ae *argError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, c.reason, ae.reason)
			assert.Equal(t, c.text, ae.text)
			assert.Equal(t, c.text, err.Error())
		})
	}
}

// TestArgRefusal checks the result made of an argError, of one wrapped,
// and of an error of another type, and that a long text is capped.
func TestArgRefusal(t *testing.T) {
	long := strings.Repeat("x", 300)
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"an argError", &argError{reason: ReasonArgumentsTooLarge, text: "too big"},
			`{"ok":false,"judgment":"error","reason":"ARGUMENTS_TOO_LARGE","why":"` + whyOf(ReasonArgumentsTooLarge) + `","error":"too big"}`},
		{"a wrapped argError", errs.Wrap(invalidArgument("k must be a string, not a number"), "reading"),
			`{"ok":false,"judgment":"error","reason":"INVALID_ARGUMENTS","why":"` + whyOf(ReasonInvalidArguments) + `","error":"k must be a string, not a number"}`},
		{"another error", errors.New("odd"),
			`{"ok":false,"judgment":"error","reason":"INVALID_ARGUMENTS","why":"` + whyOf(ReasonInvalidArguments) + `","error":"odd"}`},
		{"a long text", invalidArgument(long),
			`{"ok":false,"judgment":"error","reason":"INVALID_ARGUMENTS","why":"` + whyOf(ReasonInvalidArguments) + `","error":"` + capText(long, maxEchoText) + `"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := argRefusal(c.err)
			assert.Equal(t, c.want, r.String())
			assert.False(t, r.IsError())
		})
	}
	assert.Less(t, len(capText(long, maxEchoText)), len(long))
}
