package mcp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParamHeaders(t *testing.T) {
	for _, tc := range []struct {
		name   string
		schema string
		want   []ParamHeader
		err    string
	}{
		{"no annotations", `{"type":"object","properties":{"q":{"type":"string"}}}`, nil, ""},
		{"empty schema", ``, nil, ""},
		{"one top-level property", `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"query":{"type":"string"}}}`,
			[]ParamHeader{{Path: []string{"region"}, Name: "Region"}}, ""},
		{"nested properties and a nullable type", `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":["integer","null"],"x-mcp-header":"B-Id"}}},"c":{"type":"boolean","x-mcp-header":"C"}}}`,
			[]ParamHeader{{Path: []string{"a", "b"}, Name: "B-Id"}, {Path: []string{"c"}, Name: "C"}}, ""},
		{"on the root", `{"type":"object","x-mcp-header":"Root"}`, nil, "root"},
		{"under items", `{"type":"object","properties":{"l":{"type":"array","items":{"type":"string","x-mcp-header":"L"}}}}`, nil, "not reachable"},
		{"under oneOf", `{"type":"object","oneOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}`, nil, "not reachable"},
		{"under $defs", `{"type":"object","$defs":{"x":{"type":"string","x-mcp-header":"X"}}}`, nil, "not reachable"},
		{"a number property", `{"type":"object","properties":{"n":{"type":"number","x-mcp-header":"N"}}}`, nil, "not a string, integer or boolean"},
		{"no type", `{"type":"object","properties":{"n":{"x-mcp-header":"N"}}}`, nil, "not a string, integer or boolean"},
		{"an empty name", `{"type":"object","properties":{"n":{"type":"string","x-mcp-header":""}}}`, nil, "not an HTTP token"},
		{"a name with a space", `{"type":"object","properties":{"n":{"type":"string","x-mcp-header":"Re gion"}}}`, nil, "not an HTTP token"},
		{"a name with CR LF", `{"type":"object","properties":{"n":{"type":"string","x-mcp-header":"A\r\nB"}}}`, nil, "not an HTTP token"},
		{"a repeated name", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Name"},"b":{"type":"string","x-mcp-header":"name"}}}`, nil, "used twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParamHeaders([]byte(tc.schema))
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestArgumentAt(t *testing.T) {
	args := ` {"s":"x","o":{"i": 42 },"n":null,"l":[1]} `
	for _, tc := range []struct {
		path []string
		want string
	}{
		{[]string{"s"}, `"x"`},
		{[]string{"o", "i"}, `42`},
		{[]string{"o"}, `{"i": 42 }`},
		{[]string{"n"}, `null`},
		{[]string{"absent"}, ``},
		{[]string{"s", "deeper"}, ``},
		{[]string{"l", "0"}, ``},
		{nil, `{"s":"x","o":{"i": 42 },"n":null,"l":[1]}`},
	} {
		assert.Equal(t, tc.want, string(ArgumentAt([]byte(args), tc.path)), "%v", tc.path)
	}
	assert.Nil(t, ArgumentAt([]byte(`[]`), []string{"a"}))
	assert.Nil(t, ArgumentAt([]byte(`{"a":`), []string{"a"}))
}
