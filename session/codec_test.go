//go:build !js && !wasip1

// The generated JSON encoders of the types the wasm modules send (Turn,
// Event and their parts): what they write for empty values, and that they
// agree with encoding/json over the json tags when every field is set.

package session_test

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"

	"github.com/agentwasm/agentwasm/internal/wire"
	"github.com/agentwasm/agentwasm/session"
	"github.com/stretchr/testify/require"
)

// TestEncodeEmpty: the members that are always arrays or objects
// (jsonw:"nonnil") are [] and {} when nil, omitempty members are left out.
func TestEncodeEmpty(t *testing.T) {
	for _, c := range []struct {
		v    wire.Marshaler
		want string
	}{
		{session.Turn{}, `{"status":"","text":"","toolCalls":[],"events":[],"rounds":0}`},
		{session.Step{}, `{"round":0,"text":"","toolCalls":[]}`},
		{session.Event{}, `{"type":""}`},
		{session.ToolDiscoveryReport{}, `{"discovered":0,"pages":0,"routed":[],"classification":{"families":{},"views":{},"revisions":{}},` +
			`"rejected":[],"missingRequired":[],"diagnostics":[]}`},
		{session.DispatchRecord{}, `{"toolCallId":"","toolName":"","plane":"","ok":false,"content":""}`},
		{session.PendingApproval{}, `{"askId":"","toolCallId":"","toolName":"","action":"","detail":null}`},
		{session.StreamEvent{}, `{"type":""}`},
		{session.ToolRejection{}, `{"name":"","reason":"","detail":""}`},
		{session.ToolClassification{Revision: "r\"1"}, `{"revision":"r\"1"}`},
	} {
		t.Run(reflect.TypeOf(c.v).Name(), func(t *testing.T) {
			got, err := wire.Marshal(c.v)
			require.NoError(t, err)
			require.Equal(t, c.want, string(got))
		})
	}
}

// fill sets every exported field of the value at v, recursively, to a
// different non-zero value.
func fill(v reflect.Value, n *int, depth int) {
	*n++
	switch v.Kind() {
	case reflect.String:
		v.SetString("s" + strconv.Itoa(*n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Float64:
		v.SetFloat(float64(*n) + 0.5)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), n, depth)
	case reflect.Slice:
		if v.Type() == reflect.TypeOf(session.RawJSON(nil)) {
			v.SetBytes([]byte(`{"raw":[1,null]}`))
			return
		}
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		fill(v.Index(0), n, depth)
		fill(v.Index(1), n, depth)
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		e := reflect.New(v.Type().Elem()).Elem()
		fill(e, n, depth)
		v.SetMapIndex(reflect.ValueOf("k"), e)
	case reflect.Struct:
		if depth > 4 {
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), n, depth+1)
			}
		}
	}
}

// TestEncodeMatchesEncodingJSON: with every field set, each encoder writes
// what encoding/json writes from the json tags (a table entry with a wrong
// key, offset or kind fails here).
func TestEncodeMatchesEncodingJSON(t *testing.T) {
	for _, zero := range []wire.Marshaler{
		session.Turn{}, session.Event{}, session.Step{}, session.StreamEvent{}, session.DispatchRecord{},
		session.Usage{}, session.PendingApproval{}, session.DraftBinding{}, session.ToolDiscoveryReport{},
		session.ToolRejection{}, session.ToolClassificationSummary{}, session.ToolClassification{},
	} {
		typ := reflect.TypeOf(zero)
		t.Run(typ.Name(), func(t *testing.T) {
			v := reflect.New(typ).Elem()
			n := 0
			fill(v, &n, 0)
			got, err := wire.Marshal(v.Interface().(wire.Marshaler))
			require.NoError(t, err)
			want, err := json.Marshal(v.Interface())
			require.NoError(t, err)
			require.JSONEq(t, string(want), string(got))
		})
	}
}

// jsonNames returns a struct type's JSON member names and options, in order.
func jsonNames(v any) []string {
	rt := reflect.TypeOf(v)
	var out []string
	for i := range rt.NumField() {
		out = append(out, rt.Field(i).Tag.Get("json"))
	}
	return out
}

// TestStreamEventMatchesTheFrame: the event hosts receive and the chat
// stream's frame (wire.StreamEvent) have the same members, in the same
// order, with the same omitempty rules.
func TestStreamEventMatchesTheFrame(t *testing.T) {
	require.Equal(t, jsonNames(wire.StreamEvent{}), jsonNames(session.StreamEvent{}))
}
