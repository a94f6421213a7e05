//go:build !js && !wasip1

// The mirror types of types.go against the session types whose JSON the
// module sends: the same JSON names, recursively.

package wazerotest

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentwasm/agentwasm/session"
	"github.com/stretchr/testify/require"
)

// mirrorExtras are the members a mirror has beyond its session type:
// Event is a port's event too.
var mirrorExtras = map[reflect.Type][]string{
	reflect.TypeOf(Event{}): {"version", "warning"},
}

// jsonMembers returns a struct type's JSON names and their field types.
func jsonMembers(rt reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range rt.NumField() {
		f := rt.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// structOf returns the struct a field type holds (itself, through a pointer
// or as a slice's element), or nil.
func structOf(rt reflect.Type) reflect.Type {
	for rt.Kind() == reflect.Pointer || rt.Kind() == reflect.Slice {
		if rt == reflect.TypeOf(json.RawMessage(nil)) {
			return nil
		}
		rt = rt.Elem()
	}
	if rt.Kind() == reflect.Struct {
		return rt
	}
	return nil
}

// sameMembers requires mirror to have the JSON names of want (and its
// extras), and each member holding a struct in both to match too.
func sameMembers(t *testing.T, path string, mirror, want reflect.Type) {
	t.Helper()
	m, w := jsonMembers(mirror), jsonMembers(want)
	names := func(x map[string]reflect.Type) []string {
		var out []string
		for k := range x {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	wantNames := append(names(w), mirrorExtras[mirror]...)
	slices.Sort(wantNames)
	require.Equal(t, wantNames, names(m), "%s: wazerotest.%s has the JSON names of session.%s", path, mirror.Name(), want.Name())
	for name, wt := range w {
		ms, ws := structOf(m[name]), structOf(wt)
		if ms != nil && ws != nil {
			sameMembers(t, path+"."+name, ms, ws)
		}
	}
}

// TestMirrorsMatchSession holds the mirrors of the turn, its parts and the
// events to session's types: a member added to one and not the other fails.
func TestMirrorsMatchSession(t *testing.T) {
	for _, c := range []struct {
		mirror, want any
	}{
		{Turn{}, session.Turn{}},
		{Event{}, session.Event{}},
		{Report{}, session.ToolDiscoveryReport{}},
		{Draft{}, session.DraftBinding{}},
	} {
		mirror, want := reflect.TypeOf(c.mirror), reflect.TypeOf(c.want)
		t.Run(mirror.Name(), func(t *testing.T) { sameMembers(t, mirror.Name(), mirror, want) })
	}
}
