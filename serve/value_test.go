// Tests for the JSON value parser, encoder, equality and copy.

package serve

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseValueAccepts(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want any
	}{
		{"null", "null", nil},
		{"true", " true ", true},
		{"false", "\n\tfalse\r", false},
		{"zero", "0", 0.0},
		{"negative zero", "-0", math.Copysign(0, -1)},
		{"fraction", "-12.5e1", -125.0},
		{"exponent", "1E+2", 100.0},
		{"underflow is zero", "1e-400", 0.0},
		{"string escapes", `"a\"b\\c\/d\b\f\n\r\t"`, "a\"b\\c/d\b\f\n\r\t"},
		{"unicode escape", `"\u00e9\u4e2d"`, "é中"},
		{"surrogate pair", `"\ud83d\ude00"`, "😀"},
		{"lone high surrogate", `"\ud83dx"`, "\ufffdx"},
		{"lone low surrogate", `"\ude00"`, "\ufffd"},
		{"high then non-low escape", `"\ud83d\u0041"`, "\ufffdA"},
		{"invalid utf8 replaced", "\"a\xffb\"", "a\ufffdb"},
		{"raw utf8", `"héllo"`, "héllo"},
		{"empty array", "[ ]", []any{}},
		{"empty object", "{ }", map[string]any{}},
		{"nested", `{"a":[1,{"b":null}],"c":"d"}`, map[string]any{"a": []any{1.0, map[string]any{"b": nil}}, "c": "d"}},
		{"duplicate key keeps last", `{"a":1,"a":2}`, map[string]any{"a": 2.0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseValue([]byte(c.in))
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
}

func TestParseValueRejects(t *testing.T) {
	cases := []struct {
		name, in, wantErr string
	}{
		{"empty", "", "at byte 0: unexpected end of input"},
		{"only space", "   ", "at byte 3"},
		{"trailing data", "1 2", "at byte 2: unexpected '2' after the value"},
		{"leading zero", "01", "at byte 1"},
		{"plus sign", "+1", "at byte 0"},
		{"bare dot", "1.", "want a digit after '.'"},
		{"dot first", ".5", "at byte 0"},
		{"bad exponent", "1e", "want a digit in the exponent"},
		{"minus alone", "-", "want a digit"},
		{"hex", "0x10", "at byte 1"},
		{"out of range", "1e400", "out of range"},
		{"NaN", "NaN", "at byte 0"},
		{"single quotes", "'a'", "at byte 0"},
		{"unterminated string", `"abc`, "unexpected end of input in a string"},
		{"raw newline in string", "\"a\nb\"", "control character 0x0a"},
		{"bad escape", `"\x"`, `invalid escape 'x'`},
		{"short unicode escape", `"\u12"`, `invalid \u escape`},
		{"trailing comma array", "[1,]", "at byte 3"},
		{"trailing comma object", `{"a":1,}`, "want an object key"},
		{"missing colon", `{"a" 1}`, "want ':'"},
		{"non-string key", `{1:2}`, "want an object key"},
		{"unclosed array", "[1", "unexpected end of input in an array"},
		{"unclosed object", `{"a":1`, "unexpected end of input in an object"},
		{"truncated literal", "tru", "in literal true"},
		{"wrong literal", "nul1", "in literal null"},
		{"comment", "// x\n1", "at byte 0"},
		{"too deep", strings.Repeat("[", MaxValueDepth+1) + strings.Repeat("]", MaxValueDepth+1), "nesting deeper than 512"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := ParseValue([]byte(c.in))
			require.Error(t, err)
			assert.Nil(t, v)
			assert.Contains(t, err.Error(), c.wantErr)
			assert.True(t, strings.HasPrefix(err.Error(), "serve: json: at byte "), err.Error())
		})
	}
}

func TestParseValueDepthLimitIsExact(t *testing.T) {
	ok := strings.Repeat("[", MaxValueDepth) + strings.Repeat("]", MaxValueDepth)
	_, err := ParseValue([]byte(ok))
	require.NoError(t, err)
}

func TestParseValueAgreesWithEncodingJSON(t *testing.T) {
	docs := []string{
		`{"a":[1,2.5,-3e-2,"x\u0000y"],"b":{"c":true,"d":null},"e":"<&>"}`,
		`[0.1,1e21,123456789012345678,-0.0000001]`,
		`"\u2028\u2029\t"`,
	}
	for _, d := range docs {
		got, err := ParseValue([]byte(d))
		require.NoError(t, err)
		var want any
		require.NoError(t, json.Unmarshal([]byte(d), &want))
		assert.Equal(t, want, got, d)
	}
}

func TestAppendValue(t *testing.T) {
	cases := []struct {
		name string
		in   any
		want string
	}{
		{"nil", nil, "null"},
		{"bools", []any{true, false}, "[true,false]"},
		{"integer float", 3.0, "3"},
		{"big integer float", 1e20, "100000000000000000000"},
		{"1e21 uses exponent", 1e21, "1e+21"},
		{"negative fraction", -2.5, "-2.5"},
		{"small", 0.000001, "0.000001"},
		{"tiny uses exponent", 1e-7, "1e-7"},
		{"NaN", math.NaN(), "null"},
		{"Inf", math.Inf(1), "null"},
		{"int types", []any{int(1), int64(-2), uint8(3), float32(0.5)}, "[1,-2,3,0.5]"},
		{"sorted keys", map[string]any{"b": 1.0, "a": map[string]any{"d": nil, "c": "x"}}, `{"a":{"c":"x","d":null},"b":1}`},
		{"state", State{"z": true, "y": false}, `{"y":false,"z":true}`},
		{"strings slice", []string{"a", "b"}, `["a","b"]`},
		{"string map", map[string]string{"k": "v", "a": "b"}, `{"a":"b","k":"v"}`},
		{"raw message", json.RawMessage(`{"x": 1}`), `{"x": 1}`},
		{"empty raw message", json.RawMessage(nil), "null"},
		{"unknown type", struct{}{}, "null"},
		{"html raw", "<a&b>", `"<a&b>"`},
		{"escapes", "q\"b\\n\nr\rt\tb\bf\f\x01\x1f\x7f", `"q\"b\\n\nr\rt\tb\bf\f\u0001\u001f` + "\x7f" + `"`},
		{"line separators", "a\u2028b\u2029", `"a\u2028b\u2029"`},
		{"invalid utf8", "a\xffb", `"a\ufffdb"`},
		{"unicode raw", "é😀", `"é😀"`},
		{"condition", Condition{Key: "k", Op: "eq", Value: "v"}, `{"key":"k","op":"eq","value":"v"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, string(AppendValue(nil, c.in)))
		})
	}
}

// AppendValue writes serve's own types as the JSON they stand for, at any
// depth: Result, Obj.AppendJSON and Condition.AppendJSON go through it.
func TestAppendValueServeTypes(t *testing.T) {
	cases := []struct {
		name string
		in   any
		want string
	}{
		{"obj keeps field order", Obj{{"b", 1}, {"a", nil}}, `{"b":1,"a":null}`},
		{"objs", []Obj{{{"k", "v"}}, nil}, `[{"k":"v"},{}]`},
		{"principal", PrincipalAgent, `"agent"`},
		{"conditions in a map", map[string]any{"c": []Condition{{Key: "k", Op: "truthy", Negated: true}}}, `{"c":[{"key":"k","op":"truthy","negated":true}]}`},
		{"state in an obj", Obj{{"s", State{"b": 2, "a": 1}}}, `{"s":{"a":1,"b":2}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, string(AppendValue(nil, c.in)))
		})
	}
}

func TestAppendValueAppends(t *testing.T) {
	assert.Equal(t, "x:[1]", string(AppendValue([]byte("x:"), []any{1.0})))
}

func TestAppendValueCycleTerminates(t *testing.T) {
	m := map[string]any{}
	m["self"] = m
	out := AppendValue(nil, m)
	assert.True(t, strings.HasSuffix(string(out), "null"+strings.Repeat("}", walkDepthCap+1)))
}

func TestAppendValueRoundTrip(t *testing.T) {
	in := `{"a":[1,2.5,-3e-2,"x\u0000y\ud83d\ude00"],"b":{"c":true,"d":null},"e":"<&>\u2028","f":1e300,"g":-0.0000001}`
	v, err := ParseValue([]byte(in))
	require.NoError(t, err)
	out := AppendValue(nil, v)
	v2, err := ParseValue(out)
	require.NoError(t, err)
	assert.Equal(t, v, v2)
	var viaStd any
	require.NoError(t, json.Unmarshal(out, &viaStd), string(out))
	assert.Equal(t, v, viaStd)
}

func TestEqualValues(t *testing.T) {
	cases := []struct {
		name string
		a, b any
		want bool
	}{
		{"nils", nil, nil, true},
		{"nil vs false", nil, false, false},
		{"numbers across types", 2.0, int64(2), true},
		{"different numbers", 2.0, 2.5, false},
		{"number vs string", 1.0, "1", false},
		{"strings", "a", "a", true},
		{"arrays", []any{1.0, "x"}, []any{int(1), "x"}, true},
		{"array order matters", []any{1.0, 2.0}, []any{2.0, 1.0}, false},
		{"array length", []any{1.0}, []any{1.0, 1.0}, false},
		{"string slice vs any slice", []string{"a"}, []any{"a"}, true},
		{"objects any order", map[string]any{"a": 1.0, "b": []any{}}, State{"b": []any{}, "a": 1}, true},
		{"objects differ in key", map[string]any{"a": 1.0}, map[string]any{"b": 1.0}, false},
		{"object vs array", map[string]any{}, []any{}, false},
		{"raw message", json.RawMessage(`{"a": [1]}`), map[string]any{"a": []any{1.0}}, true},
		{"bad raw message", json.RawMessage(`{`), nil, false},
		{"string maps", map[string]string{"a": "b"}, map[string]string{"a": "b"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, EqualValues(c.a, c.b))
			assert.Equal(t, c.want, EqualValues(c.b, c.a), "symmetric")
		})
	}
}

func TestCloneValueIsDeep(t *testing.T) {
	orig := map[string]any{"a": []any{map[string]any{"b": 1.0}}, "s": []string{"x"}, "st": State{"k": "v"}, "r": json.RawMessage("1")}
	c := CloneValue(orig).(map[string]any)
	require.True(t, EqualValues(orig, c))
	c["a"].([]any)[0].(map[string]any)["b"] = 2.0
	c["s"].([]string)[0] = "y"
	c["st"].(State)["k"] = "w"
	c["r"].(json.RawMessage)[0] = '2'
	assert.Equal(t, 1.0, orig["a"].([]any)[0].(map[string]any)["b"])
	assert.Equal(t, "x", orig["s"].([]string)[0])
	assert.Equal(t, "v", orig["st"].(State)["k"])
	assert.Equal(t, json.RawMessage("1"), orig["r"])
	assert.Equal(t, 5, CloneValue(5))
	assert.Nil(t, CloneValue(nil))
	assert.Equal(t, []any{}, CloneValue([]any{}), "empty stays non-nil")
}
