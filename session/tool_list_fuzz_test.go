// A fuzz test of discovery over arbitrary tools/list answers, read as the
// default client reads them.

package session

import (
	"testing"
	"unicode/utf8"

	"github.com/agentwasm/agentwasm/internal/mcp"
	"github.com/agentwasm/agentwasm/session/mcpclient"
)

// FuzzToolList reads arbitrary tools/list answers as the default client
// does (mcpclient.ReadToolList) and builds a catalog from them: nothing
// panics, and whatever is routed has a name by MCP's rule, a JSON object
// for an inputSchema nested at most MaxToolSchemaDepth deep, and a
// description within its bound, cut at a character boundary (the reader
// decodes strings to valid UTF-8).
func FuzzToolList(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a\u0000"},{"name":" "},{"name":"b","inputSchema":"x"},1,null,{"name":"c","annotations":[]}],"nextCursor":"n"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"d","inputSchema":[[[[[[[[]]]]]]]]},{"name":"e","description":"\u00e9\u00e9"}]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"tools":null}}`, `{"jsonrpc":"2.0","id":1,"result":null}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		// The answer is unwrapped as the default client does for tools/list
		// (mcp.ReadMessageDeep); mcpclient's FuzzMCPResponse fuzzes the
		// reading of answers itself.
		m, ok := mcp.ReadMessageDeep(body)
		if !ok || m.Error != nil || len(m.Result) == 0 {
			return
		}
		tools, _, err := mcpclient.ReadToolList(m.Result)
		if err != nil {
			return
		}
		c, rep := applyPolicy(tools, 1, &ToolPolicy{Allowlist: []string{"a", "b", "c", "d", "e"}, Families: []string{"f"}})
		if len(rep.Routed) != len(c.tools) || rep.Discovered != len(tools) {
			t.Fatalf("the report does not match the catalog: %+v", rep)
		}
		for _, td := range c.tools {
			if nameProblem(td.Name) != "" {
				t.Fatalf("routed a tool named %q", td.Name)
			}
			if absent, why := objectProblem(td.InputSchema, "s", " is", " nests"); absent || why != "" {
				t.Fatalf("routed %q with the inputSchema %q (%s)", td.Name, td.InputSchema, why)
			}
			if len(td.Description) > MaxToolDescriptionBytes || !utf8.ValidString(td.Description) {
				t.Fatalf("routed %q with a description of %d bytes, cut mid-character or not UTF-8", td.Name, len(td.Description))
			}
		}
	})
}
