// Fuzz test of the MCP dispatcher: any bytes in, in either era, never a
// panic, and always one JSON answer — or none, for notifications.

package mcpserver

import (
	"context"
	"encoding/json"
	"testing"
)

func FuzzMCPDispatcher(f *testing.F) {
	for _, s := range []string{
		``, `{`, `[]`, `[1,2]`, `null`, `"x"`, `{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"echo","arguments":{"a":[1,{"b":null}]}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"boom"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"tagged","arguments":{"region":"eu"},` + statelessMeta + `}}`,
		`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + statelessMeta + `}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"x"}]`,
		`{"jsonrpc":"2.0","id":1e999,"method":"ping"}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	d := New(&fakeTools{}, Options{Sessions: true})
	f.Fuzz(func(t *testing.T, body []byte, stateless bool) {
		req := Request{Body: body}
		if stateless {
			req.Header = statelessHeaders("tools/call", "tagged", "Mcp-Param-Region", "eu")
		} else {
			req.Header = headers("MCP-Protocol-Version", "2025-03-26")
		}
		resp := d.Handle(context.Background(), req)
		if resp.Body == nil {
			if resp.Status != 202 {
				t.Fatalf("no answer with status %d", resp.Status)
			}
			return
		}
		if !json.Valid(resp.Body) {
			t.Fatalf("answer is not JSON: %q", resp.Body)
		}
		if resp.Status < 200 || resp.Status > 599 {
			t.Fatalf("status %d", resp.Status)
		}
	})
}
