// The small protocol points: an UnsupportedProtocolVersion error lists
// every revision the endpoint serves, and subscriptions/listen on a server
// without list changes is refused for what it is.

package mcpserver

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMCPUnsupportedVersionListsEveryServedRevision(t *testing.T) {
	session := []any{"2025-03-26", "2025-06-18", "2025-11-25"}
	stateless := []any{"2026-07-28"}
	both := append(append([]any{}, session...), stateless...)
	statelessV9 := Request{
		Body:   []byte(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"v9","io.modelcontextprotocol/clientCapabilities":{}}}}`),
		Header: headers("MCP-Protocol-Version", "v9", "Mcp-Method", "server/discover"),
	}
	sessionOld := Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), Header: headers("MCP-Protocol-Version", "2024-11-05")}
	for _, tc := range []struct {
		name, era string
		req       Request
		want      []any
	}{
		{"both eras, a stateless-era request", "", statelessV9, both},
		{"both eras, a session-era request", "", sessionOld, both},
		{"both eras, only a header", "both", Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), Header: headers("MCP-Protocol-Version", "2099-01-01")}, both},
		{"the stateless era only", "stateless", statelessV9, stateless},
		{"the session era only", "session", sessionOld, session},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := New(&fakeTools{}, Options{Era: tc.era})
			resp := d.Handle(context.Background(), tc.req)
			assert.Equal(t, 400, resp.Status, "answer: %s", resp.Body)
			r := decodeRPC(t, resp.Body)
			require.NotNil(t, r.Error, "answer: %s", resp.Body)
			assert.Equal(t, UnsupportedProtocol, r.Error.Code)
			assert.Equal(t, tc.want, r.Error.Data["supported"])
		})
	}
}

func TestMCPListenWithoutListChangedSaysSo(t *testing.T) {
	listen := `{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + statelessMeta + `}}`
	d := New(&fakeTools{}, Options{})
	resp := d.Handle(context.Background(), Request{Body: []byte(listen), Header: statelessHeaders("subscriptions/listen", "")})
	assert.Nil(t, resp.Listen)
	assert.Equal(t, 404, resp.Status)
	r := decodeRPC(t, resp.Body)
	require.NotNil(t, r.Error)
	assert.Equal(t, MethodNotFound, r.Error.Code)
	assert.Contains(t, r.Error.Message, "this server offers no subscriptions")
	assert.NotContains(t, r.Error.Message, "not part of", "the method is part of the revision; this server does not offer it")

	// A method the revision really lacks is still named as such.
	resp = d.Handle(context.Background(), Request{Body: []byte(`{"jsonrpc":"2.0","id":8,"method":"ping","params":{` + statelessMeta + `}}`), Header: statelessHeaders("ping", "")})
	r = decodeRPC(t, resp.Body)
	require.NotNil(t, r.Error)
	assert.Contains(t, r.Error.Message, "is not part of the 2026-07-28 revision")

	// With list changes the same request opens a stream.
	d = New(&fakeTools{}, Options{ListChanged: true})
	resp = d.Handle(context.Background(), Request{Body: []byte(listen), Header: statelessHeaders("subscriptions/listen", "")})
	require.NotNil(t, resp.Listen)
	resp.Listen.Close()
}
