// Tests of Lexer.Object and its field kinds, with a struct of every kind.

package jsonr_test

import (
	"testing"
	"unsafe"

	"github.com/agentwasm/agentwasm/internal/jsonr"
	"github.com/stretchr/testify/require"
)

type inner struct {
	ID string
}

type every struct {
	S   string
	B   bool
	I   int
	I64 int64
	F   float64
	PI  *int
	PI6 *int64
	PF  *float64
	PB  *bool
	Raw []byte
	SS  []string
	SM  map[string]string
	In  *inner
	Ins []inner
}

var innerFields = []jsonr.Field{{Key: "id", Offset: unsafe.Offsetof(inner{}.ID), Kind: jsonr.String}}

func (v *inner) decode(l *jsonr.Lexer) { l.Object(unsafe.Pointer(v), innerFields) }

var everyFields = []jsonr.Field{
	{Key: "s", Offset: unsafe.Offsetof(every{}.S), Kind: jsonr.String},
	{Key: "b", Offset: unsafe.Offsetof(every{}.B), Kind: jsonr.Bool},
	{Key: "i", Offset: unsafe.Offsetof(every{}.I), Kind: jsonr.Int},
	{Key: "i64", Offset: unsafe.Offsetof(every{}.I64), Kind: jsonr.Int64},
	{Key: "f", Offset: unsafe.Offsetof(every{}.F), Kind: jsonr.Float64},
	{Key: "pi", Offset: unsafe.Offsetof(every{}.PI), Kind: jsonr.PtrInt},
	{Key: "pi64", Offset: unsafe.Offsetof(every{}.PI6), Kind: jsonr.PtrInt64},
	{Key: "pf", Offset: unsafe.Offsetof(every{}.PF), Kind: jsonr.PtrFloat64},
	{Key: "pb", Offset: unsafe.Offsetof(every{}.PB), Kind: jsonr.PtrBool},
	{Key: "raw", Offset: unsafe.Offsetof(every{}.Raw), Kind: jsonr.Raw},
	{Key: "ss", Offset: unsafe.Offsetof(every{}.SS), Kind: jsonr.Strings},
	{Key: "sm", Offset: unsafe.Offsetof(every{}.SM), Kind: jsonr.StringMap},
	{Key: "in", Offset: unsafe.Offsetof(every{}.In), Kind: jsonr.Func, Decode: func(l *jsonr.Lexer, p unsafe.Pointer) {
		jsonr.Ptr(l, (**inner)(p), (*inner).decode)
	}},
	{Key: "ins", Offset: unsafe.Offsetof(every{}.Ins), Kind: jsonr.Func, Decode: func(l *jsonr.Lexer, p unsafe.Pointer) {
		jsonr.Slice(l, (*[]inner)(p), (*inner).decode)
	}},
}

// decodeEvery decodes s into a copy of start, as a generated ReadJSON followed by
// Consumed does.
func decodeEvery(s string, start every) (every, string) {
	l := lex(s)
	l.Object(unsafe.Pointer(&start), everyFields)
	l.Consumed()
	return start, errText(l)
}

func ptr[T any](v T) *T { return &v }

func TestObjectKinds(t *testing.T) {
	full := every{
		S: "x", B: true, I: 1, I64: 2, F: 3, PI: ptr(4), PI6: ptr(int64(5)), PF: ptr(6.0), PB: ptr(true),
		Raw: []byte(`[1]`), SS: []string{"a"}, SM: map[string]string{"k": "v"}, In: &inner{ID: "i"}, Ins: []inner{{ID: "j"}},
	}
	tests := []struct {
		name  string
		in    string
		start every
		want  every
	}{
		{"every kind", `{"s":"é\n","b":true,"i":-7,"i64":9007199254740993,"f":0.5,"pi":3,"pi64":4,"pf":1e2,"pb":false,` +
			`"raw":{"a" : [1, null]},"ss":["a",null,"b"],"sm":{"k":"v","n":null},"in":{"id":"x"},"ins":[{"id":"y"},null,{}]}`, every{},
			every{S: "é\n", B: true, I: -7, I64: 9007199254740993, F: 0.5, PI: ptr(3), PI6: ptr(int64(4)), PF: ptr(100.0), PB: ptr(false),
				Raw: []byte(`{"a" : [1, null]}`), SS: []string{"a", "", "b"}, SM: map[string]string{"k": "v", "n": ""},
				In: &inner{ID: "x"}, Ins: []inner{{ID: "y"}, {}, {}}}},
		{"null keeps scalars, raw and maps, and clears pointers and slices",
			`{"s":null,"b":null,"i":null,"i64":null,"f":null,"pi":null,"pi64":null,"pf":null,"pb":null,"raw":null,"ss":null,"sm":null,"in":null,"ins":null}`,
			full, every{S: "x", B: true, I: 1, I64: 2, F: 3, Raw: []byte(`[1]`), SM: map[string]string{"k": "v"}}},
		{"empty containers", `{"ss":[],"sm":{},"ins":[]}`, every{},
			every{SS: []string{}, Ins: []inner{}}},
		{"a number fills the pointer already there", `{"pi":9}`, every{PI: full.PI}, every{PI: ptr(9)}},
		{"unknown members are skipped whole", `{"zz":{"a":[1,{"b":null}]},"s":"y","s2":1}`, every{}, every{S: "y"}},
		{"keys match exactly", `{"S":"no","s ":"no"}`, every{}, every{}},
		{"a repeated key: the last wins", `{"s":"a","s":"b","ss":["1"],"ss":["2","3"]}`, every{}, every{S: "b", SS: []string{"2", "3"}}},
		{"null for the whole object keeps the struct", `null`, full, full},
		{"an empty object keeps the struct", `{}`, full, full},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeEvery(tt.in, tt.start)
			require.Empty(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestObjectReusesSlices(t *testing.T) {
	backing := make([]string, 1, 8)
	got, err := decodeEvery(`{"ss":["a","b"]}`, every{SS: backing})
	require.Empty(t, err)
	require.Equal(t, []string{"a", "b"}, got.SS)
	require.Same(t, &backing[:1][0], &got.SS[0], "the slice's array is reused, as the generated decoders did")
}

func TestObjectErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"s":1}`, "expected string"},
		{`{"b":"true"}`, "expected"},
		{`{"i":1.5}`, "int"},
		{`{"pi":"1"}`, "expected"},
		{`{"ss":["a",1]}`, "expected string"},
		{`{"ss":{}}`, "expected ["},
		{`{"sm":[]}`, "expected {"},
		{`{"sm":{"k":1}}`, "expected string"},
		{`{"in":[]}`, "expected {"},
		{`{"ins":{}}`, "expected ["},
		{`{"raw":[1,}`, "unexpected"},
		{`{"s":"a"`, "unexpected end"},
		{`{"s":"a"} x`, "after"},
		{`["s"]`, "expected {"},
		{`{"s" "a"}`, "syntax error"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := decodeEvery(tt.in, every{})
			require.Contains(t, err, tt.want)
		})
	}
}

// FuzzObject: any input decodes or fails with an error; none panics, and a success decodes the
// same twice.
func FuzzObject(f *testing.F) {
	f.Add(`{"s":"x","ss":["a",null],"sm":{"k":"v"},"in":{"id":"i"},"ins":[{"id":"j"},null],"pf":0.5,"raw":[1]}`)
	f.Add(`null`)
	f.Add(`{"zz":[{}],"pi":null}`)
	f.Fuzz(func(t *testing.T, in string) {
		a, errA := decodeEvery(in, every{})
		b, errB := decodeEvery(in, every{})
		require.Equal(t, errA, errB)
		if errA == "" {
			require.Equal(t, a, b)
		}
	})
}
