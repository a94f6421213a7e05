// How Client sends a request over Streamable HTTP and reads the
// answer from a JSON body or an event stream.

package mcpclient

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/internal/absent"
	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/internal/jsonr"
	"github.com/agentwasm/agentwasm/internal/mcp"
	"github.com/agentwasm/agentwasm/internal/rawjson"
	"github.com/agentwasm/agentwasm/internal/reqtrace"
	"github.com/agentwasm/agentwasm/internal/wire"
)

// mcpErrorBodyBytes bounds how much of a non-2xx body is read for a
// JSON-RPC error.
const mcpErrorBodyBytes = 64 << 10

// errBodyTooLarge is returned by a boundedReader past its bound.
var errBodyTooLarge = errors.New("the response body exceeds the size bound")

// encodeRequest returns the JSON body of request id calling method.
func encodeRequest(id int64, method string, params wire.Marshaler) ([]byte, error) {
	p, err := wire.Marshal(params)
	if err != nil {
		return nil, &TransportError{Method: method, Msg: "could not encode the request", Err: err}
	}
	return mcp.RequestBody(strconv.AppendInt(nil, id, 10), method, p), nil
}

// postHeader returns the headers of a POST in st's era: content type and
// accept always; the session id and protocol version in the session era
// once known; the protocol version, Mcp-Method and (for a named call)
// Mcp-Name in the stateless era.
func (c *Client) postHeader(st mcpState, method, name string) bridge.Header {
	h := bridge.Header{"content-type": mcp.ContentTypeJSON, "accept": mcp.AcceptPost}
	switch st.era {
	case EraStateless:
		h.Set(mcp.HeaderProtocolVersion, st.version)
		h.Set(mcp.HeaderMethod, method)
		if name != "" {
			h.Set(mcp.HeaderName, mcp.EncodeHeaderValue(name))
		}
	case EraSession:
		sessionHeader(h, st)
	}
	return h
}

// sessionHeader adds to h the session-era headers of st, once known: the
// session id and the protocol version. It returns h.
func sessionHeader(h bridge.Header, st mcpState) bridge.Header {
	if st.sessionID != "" {
		h.Set(mcp.HeaderSessionID, st.sessionID)
	}
	if st.version != "" {
		h.Set(mcp.HeaderProtocolVersion, st.version)
	}
	return h
}

// roundTrip sends one request with st and returns its result, and the HTTP
// status (0 when no response arrived).
// extra headers are added in the stateless era.
func (c *Client) roundTrip(ctx context.Context, st mcpState, method, name string, extra map[string]string, params func(meta rawjson.Message) wire.Marshaler) (rawjson.Message, int, error) {
	var meta rawjson.Message
	if st.era == EraStateless {
		meta = c.meta
	}
	id := c.ids.Add(1)
	body, err := encodeRequest(id, method, params(meta))
	if err != nil {
		return nil, 0, err
	}
	hdr := c.postHeader(st, method, name)
	if st.era == EraStateless {
		for k, v := range extra {
			hdr[k] = v
		}
	}
	var tr *reqTrace
	if traced {
		ctx, body, tr = c.traceRequest(ctx, method, name, id, hdr, body)
	}
	resp, err := c.send(ctx, method, "POST", hdr, body)
	if err != nil {
		if traced {
			tr.end(method, nil, "", err)
		}
		return nil, 0, err
	}
	res, err := c.readAnswer(ctx, st, method, id, resp)
	if traced {
		tr.end(method, res, "", err)
	}
	return res, resp.Status, err
}

// notify sends a notification and expects a 2xx (202 Accepted).
func (c *Client) notify(ctx context.Context, st mcpState, method string) error {
	hdr := c.postHeader(st, method, "")
	body := mcp.NotificationBody(method, nil)
	var tr *reqTrace
	if traced {
		ctx, body, tr = c.traceRequest(ctx, method, "", 0, hdr, body)
	}
	resp, err := c.send(ctx, method, "POST", hdr, body)
	if err == nil {
		if !ok2xx(resp.Status) {
			err = c.statusError(method, resp)
		}
		resp.Body.Close()
	}
	if traced {
		tr.end(method, nil, "", err)
	}
	return err
}

// send performs one HTTP request with a fresh bearer token, asking for a
// forced refresh and retrying once after a 401. The response body is never
// nil.
func (c *Client) send(ctx context.Context, method, httpMethod string, hdr bridge.Header, body []byte) (*bridge.Response, error) {
	reqtrace.Note(ctx, method) // a discovery pass that times out names it
	for attempt := 0; ; attempt++ {
		h := make(bridge.Header, len(hdr)+1)
		for k, v := range hdr {
			h[k] = v
		}
		if c.cfg.Auth != nil {
			tok, err := c.token(ctx, method, attempt > 0)
			if err != nil {
				return nil, err
			}
			if tok != "" {
				h["authorization"] = "Bearer " + tok
			}
		}
		resp, err := c.cfg.Fetcher.Fetch(ctx, &bridge.Request{Method: httpMethod, URL: c.cfg.URL, Header: h, Body: body})
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctxError(ctx, method)
			}
			return nil, &TransportError{Method: method, Msg: "could not reach the MCP server at " + c.cfg.URL, Err: unwrapFetch(err)}
		}
		if resp == nil {
			return nil, &TransportError{Method: method, Msg: "the fetcher returned no response and no error"}
		}
		if resp.Body == nil {
			resp.Body = io.NopCloser(strings.NewReader(""))
		}
		if resp.Header == nil {
			resp.Header = bridge.Header{}
		}
		if resp.Status == 401 && attempt == 0 && c.cfg.Auth != nil {
			resp.Body.Close()
			continue
		}
		if !absent.Status(resp.Status) {
			c.mu.Lock()
			c.reached = true
			c.mu.Unlock()
		}
		return resp, nil
	}
}

// token asks the TokenSource, guarding against a panic in it.
func (c *Client) token(ctx context.Context, method string, forceRefresh bool) (tok string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &TransportError{Method: method, Msg: "could not get an access token: the token source panicked: " + errs.Text(p)}
		}
	}()
	tok, err = c.cfg.Auth.AccessToken(ctx, forceRefresh)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctxError(ctx, method)
		}
		return "", &TransportError{Method: method, Msg: "could not get an access token", Err: err}
	}
	return tok, nil
}

// ctxError is the error of a request whose ctx ended.
func ctxError(ctx context.Context, method string) error {
	return errs.Wrap(ctx.Err(), "mcp: ", method)
}

func ok2xx(status int) bool { return status >= 200 && status <= 299 }

// readAnswer reads request id's answer from resp and closes its body. The
// server requests on an event stream before the answer are answered with
// st (session era only). Cancelling ctx closes the body, so a read blocked
// on it returns.
func (c *Client) readAnswer(ctx context.Context, st mcpState, method string, id int64, resp *bridge.Response) (rawjson.Message, error) {
	defer resp.Body.Close()
	stop := context.AfterFunc(ctx, func() { resp.Body.Close() })
	defer stop()
	if !ok2xx(resp.Status) {
		return nil, c.statusError(method, resp)
	}
	if resp.Status == 202 || resp.Status == 204 {
		return nil, &TransportError{Method: method, Status: resp.Status, Msg: "the server accepted the request without answering it"}
	}
	res, err := decodeAnswer(method, id, resp.Header.Get("content-type"), resp.Body, c.cfg.MaxResponseBytes, c.observe, c.answerer(ctx, st))
	if err != nil && ctx.Err() != nil {
		return nil, ctxError(ctx, method)
	}
	if err == nil && mcp.IsEventStream(resp.Header.Get("content-type")) {
		drainAnswer(resp.Body)
	}
	return res, err
}

// Bounds of reading an event-stream answer on after the response to the
// request: a server ends the stream there, and reading to its end lets the
// request complete instead of being aborted when the body is closed.
const (
	drainBytes = 16 << 10        // at most this much more
	drainWait  = 1 * time.Second // for at most this long
)

// drainAnswer reads body on to its end, discarding, within drainBytes and
// drainWait; past either, the caller's Close ends the stream (aborting the
// request, as before).
func drainAnswer(body io.ReadCloser) {
	stop := time.AfterFunc(drainWait, func() { body.Close() })
	defer stop.Stop()
	// A loop, not io.CopyN: io.Copy's WriterTo and ReaderFrom checks would
	// keep every such method in the module.
	buf := make([]byte, 4096)
	for left := drainBytes; left > 0; {
		n, err := body.Read(buf[:min(len(buf), left)])
		left -= n
		if err != nil {
			return
		}
	}
}

// observe hands a notification to OnNotification, ignoring a panic in it.
func (c *Client) observe(m *wire.RPCMessage) {
	if c.cfg.OnNotification == nil {
		return
	}
	defer func() { _ = recover() }()
	c.cfg.OnNotification(m.Method, []byte(m.Params))
}

// statusError reads a non-2xx answer: a JSON-RPC error in the body is a
// *ProtocolError (with the status), anything else a *TransportError.
func (c *Client) statusError(method string, resp *bridge.Response) error {
	data, _ := io.ReadAll(io.LimitReader(resp.Body, mcpErrorBodyBytes))
	if m, ok := mcp.ReadMessage(data); ok && m.Error != nil {
		return &ProtocolError{Method: method, Code: m.Error.Code, Message: m.Error.Message, Data: []byte(m.Error.Data), Status: resp.Status}
	}
	return &TransportError{Method: method, Status: resp.Status, Msg: "the server answered with an error status"}
}

// decodeAnswer reads the answer to request id from body: one JSON-RPC
// response when contentType is not an event stream, else the first event
// whose data is the response with that id (notifications before it go to
// observe, server requests to answer; answers to other ids are skipped).
// observe and answer may be nil; they run on the reading goroutine, so
// answer must not block. It reads at most maxBytes. The result is returned;
// a JSON-RPC error is a *ProtocolError; anything unreadable is a
// *TransportError.
//
// A tools/list answer is read with no bound on how deeply its result nests
// (skipping it costs a byte per level, not a stack frame): discovery bounds
// each tool (session.MaxToolSchemaDepth), so that one tool nested too deeply
// refuses that tool, not the whole answer.
func decodeAnswer(method string, id int64, contentType string, body io.Reader, maxBytes int, observe, answer func(*wire.RPCMessage)) (rawjson.Message, error) {
	idText := strconv.FormatInt(id, 10)
	readMessage := mcp.ReadMessage
	if method == mcp.MethodToolsList {
		readMessage = mcp.ReadMessageDeep
	}
	r := &boundedReader{r: body, max: int64(maxBytes)}
	if !mcp.IsEventStream(contentType) {
		data, err := io.ReadAll(r)
		if err != nil {
			return nil, readError(method, err)
		}
		m, ok := readMessage(data)
		if !ok {
			return nil, &TransportError{Method: method, Msg: "the answer is not a JSON-RPC message"}
		}
		if m.Method != "" || (len(m.ID) > 0 && string(jsonr.TrimSpace(m.ID)) != idText) {
			return nil, &TransportError{Method: method, Msg: "the answer is not the response to the request"}
		}
		return answerOf(method, &m)
	}
	sr := bridge.NewSSEReader(r, maxBytes)
	for {
		ev, err := sr.Next()
		if err == io.EOF {
			return nil, &TransportError{Method: method, Msg: "the event stream ended before the answer"}
		}
		if err != nil {
			return nil, readError(method, err)
		}
		d := jsonr.TrimSpace([]byte(ev.Data))
		if len(d) == 0 {
			continue // a priming event
		}
		m, ok := readMessage(d)
		if !ok {
			return nil, &TransportError{Method: method, Msg: "an event of the stream is not a JSON-RPC message"}
		}
		switch {
		case m.Method != "" && len(m.ID) == 0:
			if observe != nil {
				observe(&m)
			}
		case m.Method != "":
			// A server request (a ping, say): answered on the side.
			if answer != nil {
				answer(&m)
			}
		case len(m.ID) == 0 && m.Error != nil, string(jsonr.TrimSpace(m.ID)) == idText:
			return answerOf(method, &m)
		}
	}
}

// answerOf returns a response's result, or its error as a *ProtocolError.
func answerOf(method string, m *wire.RPCMessage) (rawjson.Message, error) {
	if m.Error != nil {
		return nil, &ProtocolError{Method: method, Code: m.Error.Code, Message: m.Error.Message, Data: []byte(m.Error.Data)}
	}
	if len(m.Result) == 0 {
		return nil, &TransportError{Method: method, Msg: "the response has neither a result nor an error"}
	}
	return m.Result, nil
}

// readError is the transport error of a failed body read.
func readError(method string, err error) error {
	switch {
	case errors.Is(err, errBodyTooLarge), errors.Is(err, bridge.ErrFrameTooLarge):
		return &TransportError{Method: method, Msg: "the answer is too large", Err: err}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return errs.Wrap(err, "mcp: ", method)
	}
	return &TransportError{Method: method, Msg: "reading the answer failed", Err: err}
}

// boundedReader reads from r and fails with errBodyTooLarge once more than
// max bytes arrived.
type boundedReader struct {
	r   io.Reader
	n   int64
	max int64
}

// Read reads at most one byte past the bound, then fails.
func (b *boundedReader) Read(p []byte) (int, error) {
	if b.n > b.max {
		return 0, errBodyTooLarge
	}
	if room := b.max - b.n + 1; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := b.r.Read(p)
	b.n += int64(n)
	if b.n > b.max {
		return n, errBodyTooLarge
	}
	return n, err
}
