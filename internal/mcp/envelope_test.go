package mcp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidID(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want bool
	}{
		{`"a"`, true}, {`7`, true}, {`-2`, true}, {`0.5`, true},
		{``, false}, {`null`, false}, {`{}`, false}, {`[1]`, false}, {`true`, false}, {` 7`, false},
	} {
		assert.Equal(t, tc.want, ValidID([]byte(tc.raw)), "%q", tc.raw)
	}
}

func TestReadMessage(t *testing.T) {
	for _, tc := range []struct {
		name, data     string
		ok             bool
		method, id     string
		result, params string
		code           int
	}{
		{name: "request", data: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, ok: true, method: "ping", id: "1"},
		{name: "white space around", data: " \r\n\t{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{}} \n", ok: true, method: "m", params: "{}"},
		{name: "response", data: `{"jsonrpc":"2.0","id":"x","result":{"a":1}}`, ok: true, id: `"x"`, result: `{"a":1}`},
		{name: "error, id null", data: `{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"no"}}`, ok: true, code: -32601},
		{name: "null", data: `null`},
		{name: "an array", data: `[{"jsonrpc":"2.0"}]`},
		{name: "a string", data: `"{}"`},
		{name: "empty", data: ``},
		{name: "only space", data: "  \n"},
		{name: "broken", data: `{"jsonrpc":"2.0",`},
		{name: "two values", data: `{} {}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, ok := ReadMessage([]byte(tc.data))
			require.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.method, m.Method)
			assert.Equal(t, tc.id, string(m.ID))
			assert.Equal(t, tc.result, string(m.Result))
			assert.Equal(t, tc.params, string(m.Params))
			if tc.code != 0 {
				require.NotNil(t, m.Error)
				assert.Equal(t, tc.code, m.Error.Code)
			} else {
				assert.Nil(t, m.Error)
			}
		})
	}
}

// What the builders write, ReadMessage reads back.
func TestEnvelopesRoundTrip(t *testing.T) {
	m, ok := ReadMessage(ErrorBody([]byte("4"), UnsupportedProtocolVersion, "unsupported", UnsupportedVersionData(StatelessVersions(), "v9")))
	require.True(t, ok)
	require.NotNil(t, m.Error)
	assert.Equal(t, UnsupportedProtocolVersion, m.Error.Code)
	assert.JSONEq(t, `{"supported":["2026-07-28"],"requested":"v9"}`, string(m.Error.Data))
	m, ok = ReadMessage(RequestBody([]byte(`"r"`), MethodToolsCall, []byte(`{"name":"t"}`)))
	require.True(t, ok)
	assert.Equal(t, MethodToolsCall, m.Method)
	assert.Equal(t, `"r"`, string(m.ID))
	assert.JSONEq(t, `{"name":"t"}`, string(m.Params))
}
