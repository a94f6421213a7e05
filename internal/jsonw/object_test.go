// Tests of Writer.Struct and its field kinds, with a struct of every kind, against
// encoding/json where the two agree.

package jsonw_test

import (
	"encoding/json"
	"math"
	"testing"
	"unsafe"

	"github.com/agentwasm/agentwasm/internal/jsonw"
	"github.com/stretchr/testify/require"
)

type leaf struct {
	ID string `json:"id"`
	N  int    `json:"n,omitempty"`
}

type every struct {
	S    string            `json:"s"`
	SO   string            `json:"so,omitempty"`
	B    bool              `json:"b,omitempty"`
	I    int               `json:"i"`
	I64  int64             `json:"i64,omitempty"`
	F    float64           `json:"f,omitempty"`
	PI   *int64            `json:"pi"`
	PIO  *int64            `json:"pio,omitempty"`
	PF   *float64          `json:"pf,omitempty"`
	Raw  json.RawMessage   `json:"raw,omitempty"`
	SS   []string          `json:"ss"`
	SSO  []string          `json:"sso,omitempty"`
	IM   map[string]int    `json:"im,omitempty"`
	SM   map[string]string `json:"sm"`
	L    leaf              `json:"l"`
	PL   *leaf             `json:"pl"`
	PLO  *leaf             `json:"plo,omitempty"`
	LS   []leaf            `json:"ls"`
	LSO  []leaf            `json:"lso,omitempty"`
	Last string            `json:"last/x"`
}

var leafFields = []jsonw.Field{
	{Prefix: `,"id":`, Offset: unsafe.Offsetof(leaf{}.ID), Kind: jsonw.String},
	{Prefix: `,"n":`, Offset: unsafe.Offsetof(leaf{}.N), Kind: jsonw.Int, OmitEmpty: true},
}

var everyFields = []jsonw.Field{
	{Prefix: `,"s":`, Offset: unsafe.Offsetof(every{}.S), Kind: jsonw.String},
	{Prefix: `,"so":`, Offset: unsafe.Offsetof(every{}.SO), Kind: jsonw.String, OmitEmpty: true},
	{Prefix: `,"b":`, Offset: unsafe.Offsetof(every{}.B), Kind: jsonw.Bool, OmitEmpty: true},
	{Prefix: `,"i":`, Offset: unsafe.Offsetof(every{}.I), Kind: jsonw.Int},
	{Prefix: `,"i64":`, Offset: unsafe.Offsetof(every{}.I64), Kind: jsonw.Int64, OmitEmpty: true},
	{Prefix: `,"f":`, Offset: unsafe.Offsetof(every{}.F), Kind: jsonw.Float64, OmitEmpty: true},
	{Prefix: `,"pi":`, Offset: unsafe.Offsetof(every{}.PI), Kind: jsonw.PtrInt64},
	{Prefix: `,"pio":`, Offset: unsafe.Offsetof(every{}.PIO), Kind: jsonw.PtrInt64, OmitEmpty: true},
	{Prefix: `,"pf":`, Offset: unsafe.Offsetof(every{}.PF), Kind: jsonw.PtrFloat64, OmitEmpty: true},
	{Prefix: `,"raw":`, Offset: unsafe.Offsetof(every{}.Raw), Kind: jsonw.Raw, OmitEmpty: true},
	{Prefix: `,"ss":`, Offset: unsafe.Offsetof(every{}.SS), Kind: jsonw.Strings},
	{Prefix: `,"sso":`, Offset: unsafe.Offsetof(every{}.SSO), Kind: jsonw.Strings, OmitEmpty: true},
	{Prefix: `,"im":`, Offset: unsafe.Offsetof(every{}.IM), Kind: jsonw.IntMap, OmitEmpty: true},
	{Prefix: `,"sm":`, Offset: unsafe.Offsetof(every{}.SM), Kind: jsonw.StringMap},
	{Prefix: `,"l":`, Offset: unsafe.Offsetof(every{}.L), Kind: jsonw.Struct, Fields: leafFields},
	{Prefix: `,"pl":`, Offset: unsafe.Offsetof(every{}.PL), Kind: jsonw.PtrStruct, Fields: leafFields},
	{Prefix: `,"plo":`, Offset: unsafe.Offsetof(every{}.PLO), Kind: jsonw.PtrStruct, Fields: leafFields, OmitEmpty: true},
	{Prefix: `,"ls":`, Offset: unsafe.Offsetof(every{}.LS), Kind: jsonw.StructSlice, Fields: leafFields, Size: unsafe.Sizeof(leaf{})},
	{Prefix: `,"lso":`, Offset: unsafe.Offsetof(every{}.LSO), Kind: jsonw.StructSlice, Fields: leafFields, Size: unsafe.Sizeof(leaf{}), OmitEmpty: true},
	{Prefix: `,"last/x":`, Offset: unsafe.Offsetof(every{}.Last), Kind: jsonw.String},
}

func writeEvery(v every, flags jsonw.Flags) (string, error) {
	w := jsonw.Writer{Flags: flags}
	w.Struct(unsafe.Pointer(&v), everyFields)
	b, err := w.BuildBytes()
	return string(b), err
}

func TestStructMatchesEncodingJSON(t *testing.T) {
	n, f := int64(-3), 0.125
	tests := []struct {
		name string
		v    every
	}{
		{"zero", every{}},
		{"full", every{S: "a\"\u2028<", SO: "o", B: true, I: -1, I64: 1 << 60, F: 1e21, PI: &n, PIO: &n, PF: &f,
			Raw: json.RawMessage(`{"r":[1,null]}`), SS: []string{"x", ""}, SSO: []string{"y"}, IM: map[string]int{"k": 2},
			SM: map[string]string{"k": "v"}, L: leaf{ID: "l", N: 1}, PL: &leaf{ID: "p"}, PLO: &leaf{N: 3},
			LS: []leaf{{ID: "1"}, {N: 2}}, LSO: []leaf{{}}, Last: "z"}},
		{"empty containers", every{SS: []string{}, SSO: []string{}, IM: map[string]int{}, SM: map[string]string{}, LS: []leaf{}, LSO: []leaf{}}},
		{"only the last member", every{Last: "z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := json.Marshal(tt.v)
			require.NoError(t, err)
			got, err := writeEvery(tt.v, 0)
			require.NoError(t, err)
			require.JSONEq(t, string(want), got)
			var member map[string]json.RawMessage
			require.NoError(t, json.Unmarshal([]byte(got), &member))
			require.Len(t, member, len(mustMembers(t, want)), "the same members are left out")
		})
	}
}

func mustMembers(t *testing.T, b []byte) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

func TestStructBytes(t *testing.T) {
	got, err := writeEvery(every{SO: "o"}, 0)
	require.NoError(t, err)
	require.Equal(t, `{"s":"","so":"o","i":0,"pi":null,"ss":null,"sm":null,"l":{"id":""},"pl":null,"ls":null,"last/x":""}`, got)

	got, err = writeEvery(every{}, jsonw.NilSliceAsEmpty|jsonw.NilMapAsEmpty)
	require.NoError(t, err)
	require.Equal(t, `{"s":"","i":0,"pi":null,"ss":[],"sm":{},"l":{"id":""},"pl":null,"ls":[],"last/x":""}`, got)

	w := jsonw.Writer{}
	v := leaf{N: 4}
	w.Struct(unsafe.Pointer(&v), leafFields[1:])
	b, _ := w.BuildBytes()
	require.Equal(t, `{"n":4}`, string(b), "the first member written drops its comma, whichever it is")
	w = jsonw.Writer{}
	w.Struct(unsafe.Pointer(&leaf{}), leafFields[1:])
	b, _ = w.BuildBytes()
	require.Equal(t, `{}`, string(b))
}

func TestStructRecordsNonFiniteFloats(t *testing.T) {
	_, err := writeEvery(every{F: math.Inf(1)}, 0)
	require.ErrorIs(t, err, jsonw.ErrNonFinite)
}

// TestStructNonNil: a field marked NonNil writes its nil slice as [] and its nil map as {}
// without the Writer's flags, and only that field: the others still write null.
func TestStructNonNil(t *testing.T) {
	fields := make([]jsonw.Field, len(everyFields))
	copy(fields, everyFields)
	for i, key := range map[int]string{10: "ss", 13: "sm", 17: "ls"} {
		require.Equal(t, `,"`+key+`":`, fields[i].Prefix)
		fields[i].NonNil = true
	}
	fields = append(fields, jsonw.Field{Prefix: `,"im2":`, Offset: unsafe.Offsetof(every{}.IM), Kind: jsonw.IntMap, NonNil: true},
		jsonw.Field{Prefix: `,"ss2":`, Offset: unsafe.Offsetof(every{}.SS), Kind: jsonw.Strings})
	var w jsonw.Writer
	v := every{}
	w.Struct(unsafe.Pointer(&v), fields)
	got, err := w.BuildBytes()
	require.NoError(t, err)
	require.Equal(t, `{"s":"","i":0,"pi":null,"ss":[],"sm":{},"l":{"id":""},"pl":null,"ls":[],"last/x":"","im2":{},"ss2":null}`, string(got))
}
