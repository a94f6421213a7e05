// Table-driven tests of AppendValue: the types it writes, number forms,
// key order, Object, View and Appender, and the depth bound.

package jsonw_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentwasm/agentwasm/internal/jsonw"
	"github.com/stretchr/testify/assert"
)

// pairs is an Object listing its members in the order given.
type pairs []string

func (p pairs) Len() int                   { return len(p) / 2 }
func (p pairs) Member(i int) (string, any) { return p[2*i], p[2*i+1] }

// named is a map type AppendValue does not know; viewNamed shows it.
type named map[string]any

func viewNamed(v any) any {
	if n, ok := v.(named); ok {
		return map[string]any(n)
	}
	return nil
}

// self writes itself.
type self struct{}

func (self) AppendJSON(dst []byte) []byte { return append(dst, `"self"`...) }

func TestAppendValue(t *testing.T) {
	cases := []struct {
		name string
		in   any
		view jsonw.View
		want string
	}{
		{"nil", nil, nil, "null"},
		{"bools", []any{true, false}, nil, "[true,false]"},
		{"integer float", 3.0, nil, "3"},
		{"negative zero", math.Copysign(0, -1), nil, "-0"},
		{"big integer float", 1e20, nil, "100000000000000000000"},
		{"1e21 uses exponent", 1e21, nil, "1e+21"},
		{"negative fraction", -2.5, nil, "-2.5"},
		{"small", 0.000001, nil, "0.000001"},
		{"tiny uses exponent", 1e-7, nil, "1e-7"},
		{"tiny with two-digit exponent", -1.5e-10, nil, "-1.5e-10"},
		{"NaN", math.NaN(), nil, "null"},
		{"Inf", []any{math.Inf(1), math.Inf(-1)}, nil, "[null,null]"},
		{"Go numbers", []any{int(1), int8(-2), int16(3), int32(-4), int64(math.MinInt64), uint(6), uint8(7), uint16(8), uint32(9), uint64(math.MaxUint64), float32(0.5)},
			nil, "[1,-2,3,-4,-9223372036854775808,6,7,8,9,18446744073709551615,0.5]"},
		{"sorted keys", map[string]any{"b": 1.0, "a": map[string]any{"d": nil, "c": "x"}}, nil, `{"a":{"c":"x","d":null},"b":1}`},
		{"strings", []string{"a", "<b>"}, nil, `["a","<b>"]`},
		{"string map", map[string]string{"k": "v", "a": "b"}, nil, `{"a":"b","k":"v"}`},
		{"nil containers", []any{[]any(nil), map[string]any(nil), []string(nil), map[string]string(nil)}, nil, "[[],{},[],{}]"},
		{"raw message", json.RawMessage(`{"x": 1}`), nil, `{"x": 1}`},
		{"empty raw message", json.RawMessage{}, nil, "null"},
		{"object in order", pairs{"z", "1", "a", "2"}, nil, `{"z":"1","a":"2"}`},
		{"escaped key", map[string]any{"a\"b": true}, nil, `{"a\"b":true}`},
		{"unknown type", struct{}{}, nil, "null"},
		{"unknown without view", named{"a": 1.0}, nil, "null"},
		{"view", []any{named{"b": named{"a": 1.0}}}, viewNamed, `[{"b":{"a":1}}]`},
		{"view knows nothing", struct{}{}, viewNamed, "null"},
		{"appender", []any{self{}}, nil, `["self"]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, string(jsonw.AppendValue(nil, c.in, c.view)))
		})
	}
}

func TestAppendValueAppends(t *testing.T) {
	assert.Equal(t, "x:[1]", string(jsonw.AppendValue([]byte("x:"), []any{1.0}, nil)))
}

// A cycle, through a view or not, ends in null past MaxDepth.
func TestAppendValueDepthBound(t *testing.T) {
	m := map[string]any{}
	m["self"] = m
	out := string(jsonw.AppendValue(nil, m, nil))
	assert.True(t, strings.HasSuffix(out, `{"self":null`+strings.Repeat("}", jsonw.MaxDepth+1)))

	n := named{}
	n["self"] = n
	out = string(jsonw.AppendValue(nil, n, viewNamed))
	assert.True(t, strings.HasSuffix(out, `{"self":null`+strings.Repeat("}", jsonw.MaxDepth+1)))
}

func TestSortedKeys(t *testing.T) {
	assert.Equal(t, []string{"", "A", "a", "b"}, jsonw.SortedKeys(map[string]int{"b": 1, "a": 2, "A": 3, "": 4}))
	assert.Empty(t, jsonw.SortedKeys(map[string]any(nil)))
}

func TestSortStrings(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 200; n++ {
		s := make([]string, n)
		for i := range s {
			s[i] = strconv.Itoa(rng.IntN(n/2 + 1)) // duplicates too
		}
		if n%7 == 0 {
			slices.Sort(s) // already sorted
		}
		want := slices.Clone(s)
		slices.Sort(want)
		jsonw.SortStrings(s)
		assert.Equal(t, want, s, "n=%d", n)
	}
	s := []string{"é", "z", "", "Z", "a\x00", "a"}
	jsonw.SortStrings(s)
	assert.Equal(t, []string{"", "Z", "a", "a\x00", "z", "é"}, s, "byte order")
}
