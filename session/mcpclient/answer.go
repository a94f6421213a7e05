// How Client answers the requests a server sends it. In the session
// era (2025-03-26 … 2025-11-25) a server may send JSON-RPC requests on any
// event stream — the GET notification stream, or the stream answering a
// POST — and the client must answer each: ping promptly with an empty
// result, a method it does not support with "method not found". The answer
// is a POST of a JSON-RPC response to the MCP endpoint, which the server
// accepts with 202.
//
// The stateless era (2026-07-28) has none of this: its servers MUST NOT
// send requests on any stream (server-to-client interactions travel inside
// results, as input requests of Multi Round-Trip Requests), its clients
// MUST NOT POST JSON-RPC responses, and ping is removed. A stateless-era
// stream's requests are read past without an answer.

package mcpclient

import (
	"context"

	"github.com/agentwasm/agentwasm/internal/gopool"
	"github.com/agentwasm/agentwasm/internal/jsonr"
	"github.com/agentwasm/agentwasm/internal/mcp"
	"github.com/agentwasm/agentwasm/internal/wire"
)

// mcpMaxAnswers bounds the answers to server requests in flight at once; a
// server request that finds them all taken is not answered (a server
// flooding the client with requests gets no goroutine per request).
const mcpMaxAnswers = 8

// answerer returns the function that answers the server requests read from
// a stream of st's era, bounded by ctx (the call's or the stream's), or nil
// in the stateless era, which has no server requests to answer.
func (c *Client) answerer(ctx context.Context, st mcpState) func(*wire.RPCMessage) {
	if st.era != EraSession {
		return nil
	}
	return func(m *wire.RPCMessage) { c.answerRequest(ctx, st, m) }
}

// answerRequest POSTs the answer to server request m with st's headers, on
// its own goroutine, bounded by AnswerTimeout and ctx. The answer is
// best-effort: a failed delivery, a non-2xx status or a full set of answer
// slots is ignored, and the reader of the stream never waits for it.
func (c *Client) answerRequest(ctx context.Context, st mcpState, m *wire.RPCMessage) {
	body, ok := serverAnswer(m)
	if !ok {
		return
	}
	select {
	case c.answering <- struct{}{}:
	default:
		return // too many answers in flight: this request goes unanswered
	}
	what := "the answer to the server's " + m.Method
	hdr := c.postHeader(st, "", "")
	gopool.Go(func() {
		defer func() { <-c.answering }()
		defer func() { _ = recover() }() // a panicking Fetcher must not take the program down
		actx, cancel := context.WithTimeout(ctx, c.cfg.AnswerTimeout)
		defer cancel()
		resp, err := c.send(actx, what, "POST", hdr, body)
		if err == nil {
			// Nothing to read: 202 has no body, and any other answer is
			// ignored. (io.Copy to drain it would cost the module 44 KB.)
			resp.Body.Close()
		}
	})
}

// serverAnswer returns the JSON-RPC response to server request m: an empty
// result for ping, else a "method not found" error naming the method. ok is
// false when m's id is neither a string nor a number, so that no answer can
// name it.
func serverAnswer(m *wire.RPCMessage) (body []byte, ok bool) {
	id := jsonr.TrimSpace(m.ID)
	if !mcp.ValidID(id) {
		return nil, false
	}
	if m.Method == mcp.MethodPing {
		return mcp.ResultBody(id, []byte("{}")), true
	}
	return mcp.ErrorBody(id, mcp.MethodNotFound, "method not found: "+m.Method+" (this client does not handle it)", nil), true
}
