package session

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParamHeadersRules(t *testing.T) {
	for _, tc := range []struct {
		name   string
		schema string
		want   []paramHeader
		err    string
	}{
		{"no annotations", `{"type":"object","properties":{"q":{"type":"string"}}}`, nil, ""},
		{"empty schema", ``, nil, ""},
		{"one top-level property", `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"query":{"type":"string"}}}`,
			[]paramHeader{{path: []string{"region"}, name: "Region"}}, ""},
		{"nested properties and a nullable type", `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":["integer","null"],"x-mcp-header":"B-Id"}}},"c":{"type":"boolean","x-mcp-header":"C"}}}`,
			[]paramHeader{{path: []string{"a", "b"}, name: "B-Id"}, {path: []string{"c"}, name: "C"}}, ""},
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
			got, err := paramHeaders([]byte(tc.schema))
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

func TestParamHeaderValues(t *testing.T) {
	hs := []paramHeader{{path: []string{"s"}, name: "S"}, {path: []string{"o", "i"}, name: "Deep-I"}, {path: []string{"b"}, name: "B"}}
	for _, tc := range []struct {
		name, args string
		want       map[string]string
	}{
		{"plain values", `{"s":"us-west1","o":{"i":42},"b":true}`, map[string]string{"mcp-param-s": "us-west1", "mcp-param-deep-i": "42", "mcp-param-b": "true"}},
		{"non-ASCII is Base64", `{"s":"Hello, 世界"}`, map[string]string{"mcp-param-s": "=?base64?SGVsbG8sIOS4lueVjA==?="}},
		{"padded is Base64", `{"s":" padded "}`, map[string]string{"mcp-param-s": "=?base64?IHBhZGRlZCA=?="}},
		{"newline is Base64", `{"s":"line1\nline2"}`, map[string]string{"mcp-param-s": "=?base64?bGluZTEKbGluZTI=?="}},
		{"sentinel is Base64", `{"s":"=?base64?literal?="}`, map[string]string{"mcp-param-s": "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="}},
		{"integral float", `{"o":{"i":42.0}}`, map[string]string{"mcp-param-deep-i": "42"}},
		{"null, absent, fraction and unsafe integers send nothing", `{"s":null,"o":{"i":1.5},"b":9007199254740993}`, map[string]string{}},
		{"a non-object on the path", `{"o":"x"}`, map[string]string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, paramHeaderValues(hs, []byte(tc.args)))
		})
	}
}
