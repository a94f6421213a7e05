// Tests of the Mcp-Param-* header values a stateless-era tools/call sends.

package mcpclient

import (
	"testing"

	"github.com/agentwasm/agentwasm/internal/mcp"
	"github.com/stretchr/testify/assert"
)

func TestParamHeaderValues(t *testing.T) {
	hs := []mcp.ParamHeader{{Path: []string{"s"}, Name: "S"}, {Path: []string{"o", "i"}, Name: "Deep-I"}, {Path: []string{"b"}, Name: "B"}}
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
