// Tests of the answers to server requests from inside the package: the
// answer each request gets, that only the session era answers, and that
// the answers in flight are bounded.

package mcpclient

import (
	"context"
	"testing"
	"time"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/internal/rawjson"
	"github.com/agentwasm/agentwasm/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestServerAnswer(t *testing.T) {
	for _, tc := range []struct {
		name, id, method string
		want             string // "" when the request cannot be answered
	}{
		{"ping, string id", `"ping-1"`, "ping", `{"jsonrpc":"2.0","id":"ping-1","result":{}}`},
		{"ping, number id", ` 7 `, "ping", `{"jsonrpc":"2.0","id":7,"result":{}}`},
		{"ping, negative id", `-2`, "ping", `{"jsonrpc":"2.0","id":-2,"result":{}}`},
		{"ping, escaped id kept as sent", `"a\"b\u00e9"`, "ping", `{"jsonrpc":"2.0","id":"a\"b\u00e9","result":{}}`},
		{"unknown method", `"s-2"`, "sampling/createMessage",
			`{"jsonrpc":"2.0","id":"s-2","error":{"code":-32601,"message":"method not found: sampling/createMessage (this client does not handle it)"}}`},
		{"a method name that needs escaping", `3`, "we\"ird\n",
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"method not found: we\"ird\n (this client does not handle it)"}}`},
		{"null id", `null`, "ping", ""},
		{"object id", `{"a":1}`, "ping", ""},
		{"no id", ``, "ping", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, ok := serverAnswer(&wire.RPCMessage{ID: rawjson.Message(tc.id), Method: tc.method})
			if tc.want == "" {
				assert.False(t, ok)
				assert.Nil(t, body)
				return
			}
			require.True(t, ok)
			require.True(t, wire.Valid(body), "%s", body)
			assert.JSONEq(t, tc.want, string(body))
		})
	}
}

// In the stateless era there is no answerer: nothing is answered.
func TestAnswererOnlyInTheSessionEra(t *testing.T) {
	c, err := New(Config{URL: "http://example.invalid/mcp"})
	require.NoError(t, err)
	ctx := t.Context()
	assert.Nil(t, c.answerer(ctx, mcpState{era: EraStateless}))
	assert.Nil(t, c.answerer(ctx, mcpState{}))
	assert.NotNil(t, c.answerer(ctx, mcpState{era: EraSession}))
}

// With every answer slot taken, a server request goes unanswered rather
// than starting one more goroutine; a free slot answers the next one.
func TestAnswersInFlightAreBounded(t *testing.T) {
	fetched := make(chan string, 4)
	f := bridge.FetcherFunc(func(_ context.Context, req *bridge.Request) (*bridge.Response, error) {
		fetched <- string(req.Body)
		return &bridge.Response{Status: 202}, nil
	})
	c, err := New(Config{URL: "http://example.invalid/mcp", Fetcher: f})
	require.NoError(t, err)
	st := mcpState{era: EraSession, ready: true, sessionID: "s-1", version: SessionProtocolVersion}
	for range mcpMaxAnswers {
		c.answering <- struct{}{}
	}
	c.answerRequest(t.Context(), st, &wire.RPCMessage{ID: rawjson.Message(`"ping-1"`), Method: "ping"})
	<-c.answering
	c.answerRequest(t.Context(), st, &wire.RPCMessage{ID: rawjson.Message(`"ping-2"`), Method: "ping"})
	select {
	case body := <-fetched:
		assert.JSONEq(t, `{"jsonrpc":"2.0","id":"ping-2","result":{}}`, body)
	case <-time.After(10 * time.Second):
		t.Fatal("the answer with a free slot was never sent")
	}
	assert.Empty(t, fetched, "the answer without a slot was not sent")
}
