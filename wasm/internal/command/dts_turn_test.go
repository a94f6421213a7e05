//go:build !js && !wasip1

// The declarations of the turn, its parts and the session events
// (web/agentwasm.d.ts) against the session types whose JSON the module
// sends: the same member names, nested ones too.

package command_test

import (
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentwasm/agentwasm/session"
	"github.com/stretchr/testify/require"
)

// sortedJSONFields returns jsonFields(v), sorted.
func sortedJSONFields(v any) []string {
	out := jsonFields(v)
	slices.Sort(out)
	return out
}

// inlineMembers returns the member names of the inline object type that
// follows `name: {` (or `name?: {`) in body: on one line ({ a: …; b?: … }) or over lines
// indented four spaces.
func inlineMembers(t *testing.T, body, name string) []string {
	t.Helper()
	loc := regexp.MustCompile(regexp.QuoteMeta(name) + `\??: \{`).FindStringIndex(body)
	require.NotNil(t, loc, "no inline member %s", name)
	rest := body[loc[1]:]
	var block string
	var member *regexp.Regexp
	if j := strings.Index(rest, "\n"); j >= 0 && strings.Contains(rest[:j], "}") {
		block, member = rest[:strings.Index(rest, "}")], regexp.MustCompile(`([A-Za-z_$][\w$]*)\??:`)
	} else {
		block, member = rest[:strings.Index(rest, "\n  }")], regexp.MustCompile(`(?m)^    ([A-Za-z_$][\w$]*)\??:`)
	}
	var out []string
	for _, m := range member.FindAllStringSubmatch(block, -1) {
		out = append(out, m[1])
	}
	slices.Sort(out)
	return out
}

// interfaceBody returns the text of `export interface NAME {…}`.
func interfaceBody(t *testing.T, src, name string) string {
	t.Helper()
	head := "export interface " + name + " {\n"
	i := strings.Index(src, head)
	require.GreaterOrEqual(t, i, 0, "web/agentwasm.d.ts has no interface %s", name)
	body := src[i+len(head):]
	return body[:strings.Index(body, "\n}\n")]
}

// TestTurnDeclarationsMatchSession: each interface of the turn and its
// parts declares exactly the JSON names of its session type, and the
// SessionEvent union's members are session.Event's.
func TestTurnDeclarationsMatchSession(t *testing.T) {
	src := readText(t, dtsPath)
	for _, c := range []struct {
		dts  string
		want any
	}{
		{"Turn", session.Turn{}},
		{"DispatchRecord", session.DispatchRecord{}},
		{"Usage", session.Usage{}},
		{"Step", session.Step{}},
		{"PendingApproval", session.PendingApproval{}},
		{"DraftBinding", session.DraftBinding{}},
		{"ToolDiscoveryReport", session.ToolDiscoveryReport{}},
	} {
		t.Run(c.dts, func(t *testing.T) {
			got := dtsMembers(t, src, c.dts)
			slices.Sort(got)
			require.Equal(t, sortedJSONFields(c.want), got, "%s of web/agentwasm.d.ts and session.%s have the same JSON names",
				c.dts, reflect.TypeOf(c.want).Name())
		})
	}
	report := interfaceBody(t, src, "ToolDiscoveryReport")
	require.Equal(t, sortedJSONFields(session.ToolRejection{}), inlineMembers(t, report, "rejected"),
		"ToolDiscoveryReport.rejected's members are session.ToolRejection's")
	require.Equal(t, sortedJSONFields(session.ToolClassificationSummary{}), inlineMembers(t, report, "classification"),
		"ToolDiscoveryReport.classification's members are session.ToolClassificationSummary's")
	rejected := report[strings.Index(report, "rejected: {"):]
	require.Equal(t, sortedJSONFields(session.ToolClassification{}), inlineMembers(t, rejected, "classification"),
		"a rejected tool's classification has session.ToolClassification's members")

	// StreamEvent is a union of one interface per event type: together they declare
	// session.StreamEvent's JSON names, and their types are the session's event types.
	i := strings.Index(src, "export type StreamEvent =\n")
	require.GreaterOrEqual(t, i, 0, "web/agentwasm.d.ts has no type StreamEvent")
	streamUnion := src[i+len("export type StreamEvent =\n"):]
	streamUnion = streamUnion[:strings.Index(streamUnion, ";\n")]
	var members, types []string
	for _, m := range regexp.MustCompile(`[A-Za-z]+Event`).FindAllString(streamUnion, -1) {
		members = append(members, dtsMembers(t, src, m)...)
		lit := regexp.MustCompile(`(?m)^  type: '([A-Za-z]+)';`).FindStringSubmatch(interfaceBody(t, src, m))
		require.NotNil(t, lit, "%s of web/agentwasm.d.ts has no literal type", m)
		types = append(types, lit[1])
	}
	slices.Sort(members)
	require.Equal(t, sortedJSONFields(session.StreamEvent{}), slices.Compact(members),
		"the StreamEvent union of web/agentwasm.d.ts declares session.StreamEvent's JSON names")
	slices.Sort(types)
	wantTypes := []string{session.EventMessageStart, session.EventTextDelta, session.EventToolCallStart, session.EventToolCallDelta,
		session.EventToolCallStop, session.EventMessageStop, session.EventError}
	slices.Sort(wantTypes)
	require.Equal(t, wantTypes, types, "the StreamEvent union has one interface per event type")

	i = strings.Index(src, "export type SessionEvent =\n")
	require.GreaterOrEqual(t, i, 0, "web/agentwasm.d.ts has no type SessionEvent")
	union := src[i:]
	union = union[:strings.Index(union, ";\n\n")]
	var keys []string
	for _, m := range regexp.MustCompile(`[{;] ([A-Za-z_$][\w$]*)\??:`).FindAllStringSubmatch(union, -1) {
		keys = append(keys, m[1])
	}
	slices.Sort(keys)
	require.Equal(t, sortedJSONFields(session.Event{}), slices.Compact(keys), "SessionEvent's members are session.Event's")
}

// TestPortResultDeclarationsMatchServe: PortResultBase of web/agentwasm.d.ts
// declares exactly the keys a port result is written with — the ranked keys
// of serve/result.go's resultOrder, less one ranked but never set, plus the
// two an UNKNOWN_PAGE error adds unranked — so a field the port writes is
// typed, and one it never writes at a result's top level (a row's field,
// say) is not declared there.
func TestPortResultDeclarationsMatchServe(t *testing.T) {
	src := readText(t, "../../../serve/result.go")
	i := strings.Index(src, "keys := []string{")
	require.GreaterOrEqual(t, i, 0, "serve/result.go has no resultOrder key list")
	list := src[i:]
	list = list[:strings.Index(list, "}")]
	var want []string
	for _, m := range regexp.MustCompile(`"([A-Za-z]+)"`).FindAllStringSubmatch(list, -1) {
		want = append(want, m[1])
	}
	require.Contains(t, want, "youAreOn", "the key list was read")
	want = append(want, "routeTo", "pages") // errorResult(ReasonUnknownPage, "routeTo", to, "pages", pages)
	slices.Sort(want)
	got := dtsMembers(t, readText(t, dtsPath), "PortResultBase")
	slices.Sort(got)
	require.Equal(t, want, got, "PortResultBase of web/agentwasm.d.ts declares the keys a port result is written with")
}
