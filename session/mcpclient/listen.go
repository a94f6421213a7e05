// The notification stream the list-changed watch reads: in the session era
// a GET on the MCP endpoint (2025-11-25), in the stateless era a
// subscriptions/listen request asking for notifications/tools/list_changed
// (2026-07-28).

package mcpclient

import (
	"context"
	"errors"
	"io"
	"strconv"
	"sync"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/internal/jsonr"
	"github.com/agentwasm/agentwasm/internal/mcp"
	"github.com/agentwasm/agentwasm/internal/rawjson"
	"github.com/agentwasm/agentwasm/internal/wire"
)

// ErrListenClosed is returned by ListenStream.Next when a stateless-era
// server ended the subscription gracefully (it answered subscriptions/listen).
var ErrListenClosed = errors.New("mcp: the server closed the subscription")

// ListenStream is an open stream of server notifications. It is not safe
// for concurrent use, except Close, which may be called while Next blocks.
type ListenStream struct {
	body   io.Closer
	r      *bridge.SSEReader
	id     string                 // the subscriptions/listen request id; "" in the session era
	answer func(*wire.RPCMessage) // answers a server request; nil in the stateless era
	stop   func() bool
	closed sync.Once
}

// ListenToolListChanged opens the stream the list-changed watch reads,
// starting the MCP session (or probing the era) first when needed. In the
// session era it sends GET with accept text/event-stream, the session id,
// the protocol version, last-event-id when lastEventID is not empty, and
// the bearer token; in the stateless era it POSTs subscriptions/listen with
// notifications {toolsListChanged: true}. A 404 on a session-era GET
// re-initializes once and retries. A non-2xx answer is a *ProtocolError
// when its body is a JSON-RPC error, else a *TransportError; both carry the
// HTTP status (405 or 501: the server offers no stream). Cancelling ctx, or
// Close, ends the stream. In the session era the requests the server sends
// on the stream (pings) are answered, bounded by ctx (see Client).
func (c *Client) ListenToolListChanged(ctx context.Context, lastEventID string) (s *ListenStream, err error) {
	const method = mcp.MethodSubscriptionsListen
	defer recoverMCP(&err, method)
	st, err := c.ensure(ctx)
	if err != nil {
		return nil, err
	}
	for renewed := false; ; renewed = true {
		var (
			resp *bridge.Response
			id   int64
		)
		if st.era == EraStateless {
			id = c.ids.Add(1)
			body, err := encodeRequest(id, method, &wire.MCPListenParams{Notifications: wire.MCPListenFilter{ToolsListChanged: true}, Meta: c.meta})
			if err != nil {
				return nil, err
			}
			resp, err = c.send(ctx, method, "POST", c.postHeader(st, method, ""), body)
			if err != nil {
				return nil, err
			}
		} else {
			hdr := sessionHeader(bridge.Header{"accept": mcp.ContentTypeEventStream}, st)
			if lastEventID != "" {
				hdr.Set(mcp.HeaderLastEventID, lastEventID)
			}
			resp, err = c.send(ctx, "GET", "GET", hdr, nil)
			if err != nil {
				return nil, err
			}
		}
		if resp.Status == 404 && st.era == EraSession && st.sessionID != "" && !renewed {
			resp.Body.Close()
			if st, err = c.renew(ctx, st); err != nil {
				return nil, err
			}
			continue
		}
		if !ok2xx(resp.Status) {
			defer resp.Body.Close()
			return nil, c.statusError(method, resp)
		}
		if !mcp.IsEventStream(resp.Header.Get("content-type")) {
			// A stateless server may answer at once: an error, or a closed
			// subscription.
			_, err := readAnswerOnly(ctx, method, id, resp, c.cfg.MaxResponseBytes)
			if err == nil {
				err = ErrListenClosed
			}
			return nil, err
		}
		s := &ListenStream{body: resp.Body, r: bridge.NewSSEReader(resp.Body, c.cfg.MaxResponseBytes), answer: c.answerer(ctx, st)}
		if id != 0 {
			s.id = strconv.FormatInt(id, 10)
		}
		s.stop = context.AfterFunc(ctx, func() { resp.Body.Close() })
		return s, nil
	}
}

// readAnswerOnly reads a JSON answer to request id and closes the body.
func readAnswerOnly(ctx context.Context, method string, id int64, resp *bridge.Response, maxBytes int) (rawjson.Message, error) {
	defer resp.Body.Close()
	res, err := decodeAnswer(method, id, resp.Header.Get("content-type"), resp.Body, maxBytes, nil, nil)
	if err != nil && ctx.Err() != nil {
		return nil, ctxError(ctx, method)
	}
	return res, err
}

// Next returns the method and params of the next notification on the stream
// (for the watch, notifications/tools/list_changed matters). Server
// requests never come out of it: in the session era each is answered (a
// ping with an empty result, anything else with MethodNotFound) on its own
// goroutine, so Next does not wait for the answer; in the stateless era,
// which has no server requests, they are skipped. Malformed frames and
// answers to other requests are skipped too. It returns io.EOF when the
// stream ends, ErrListenClosed when the server answered
// subscriptions/listen, and a wrapped error when reading fails or the
// stream was closed.
func (s *ListenStream) Next() (method string, params []byte, err error) {
	for {
		ev, err := s.r.Next()
		if err != nil {
			return "", nil, err
		}
		m, ok := mcp.ReadMessage([]byte(ev.Data))
		if !ok {
			continue
		}
		switch {
		case m.Method != "" && len(m.ID) == 0:
			return m.Method, m.Params, nil
		case m.Method != "":
			if s.answer != nil {
				s.answer(&m)
			}
		case s.id != "" && string(jsonr.TrimSpace(m.ID)) == s.id:
			return "", nil, ErrListenClosed
		}
	}
}

// LastEventID returns the last SSE event id the stream carried, for a
// session-era reconnect's last-event-id.
func (s *ListenStream) LastEventID() string { return s.r.LastEventID() }

// Close ends the stream; it is idempotent.
func (s *ListenStream) Close() error {
	var err error
	s.closed.Do(func() {
		s.stop()
		err = s.body.Close()
	})
	return err
}
