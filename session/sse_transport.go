// The default transport: POST {baseUrl}/v1/studio/ai/chat through the
// session's Fetcher, with the bearer token, one refresh after a 401, and the
// answer read as server-sent events.

package session

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/internal/wire"
)

// malformedPayload is the message of the synthetic error event for a frame
// whose data is not one JSON object.
const malformedPayload = "Malformed event payload from the Studio AI proxy."

// sseEventType maps an SSE event name of the chat stream to its event type;
// known is false for a name not listed, which is ignored. (A switch, not a
// map: it runs once per frame, and a string-keyed map lookup costs the
// module more than the comparisons.)
func sseEventType(name string) (typ string, known bool) {
	switch name {
	case "text_delta":
		return EventTextDelta, true
	case "message_start":
		return EventMessageStart, true
	case "tool_call_start":
		return EventToolCallStart, true
	case "tool_call_delta":
		return EventToolCallDelta, true
	case "tool_call_stop":
		return EventToolCallStop, true
	case "message_stop":
		return EventMessageStop, true
	case "error":
		return EventError, true
	}
	return "", false
}

// sseTransport is the Studio AI proxy transport of one session.
type sseTransport struct {
	s *Session
}

// errTransport marks errors whose text is the whole turn error message;
// code, when set, is the turn's error code.
type errTransport struct{ msg, code string }

func (e *errTransport) Error() string { return e.msg }

func (t sseTransport) Stream(ctx context.Context, req *ChatRequest) (EventStream, error) {
	body, err := wire.Marshal(chatRequestWire(req))
	if err != nil {
		return nil, &errTransport{msg: "Could not encode the chat request: " + err.Error()}
	}
	o := &t.s.opts
	url := o.BaseURL + "/v1/studio/ai/chat"
	gctx, g := newStreamGuard(ctx, o.Clock, o.StreamFirstByteTimeout, o.StreamIdleTimeout)
	resp, err := t.s.send(gctx, "POST", url, body, "text/event-stream", g, o.Auth, proxyName)
	if err != nil {
		if ctx.Err() == nil && g.timedOut() != notFired {
			err = streamTimeout(o, g, proxyName)
		}
		g.release()
		return nil, err
	}
	if resp.Status < 200 || resp.Status > 299 {
		resp.Body.Close()
		g.release()
		return nil, &errTransport{msg: "Studio AI proxy responded " + strconv.Itoa(resp.Status) + " for the chat request."}
	}
	b := g.watch(resp.Body, true)
	return &sseStream{body: b, r: bridge.NewSSEReader(b, o.MaxFrameBytes), ctx: ctx, guard: g, who: proxyName, opts: o}, nil
}

// maxBytesAfterStop (64 KiB) bounds what the session reads of a chat stream after its
// message_stop: a proxy ends the answer there, and the session reads on to
// the stream's end so that the request completes rather than being aborted.
// A stream that goes on past this many more bytes is closed (the request
// aborted) and the answer ends there, as complete, as when it goes silent.
const maxBytesAfterStop = 64 << 10

// errPastStop is the read error of a stream past maxBytesAfterStop.
var errPastStop = errors.New("the stream went on past its message_stop")

// proxyName names the Studio AI proxy in messages.
const proxyName = "the Studio AI proxy"

// streamTimeout is the error of a chat stream from who whose guard fired.
func streamTimeout(o *Options, g *streamGuard, who string) error {
	msg, d, name := " sent no answer within ", o.StreamFirstByteTimeout, "streamFirstByteTimeoutMs"
	if g.timedOut() == idleFired {
		msg, d, name = "'s answer went silent: no byte for ", o.StreamIdleTimeout, "streamIdleTimeoutMs"
	}
	return &errTransport{code: ErrorCodeStreamTimeout, msg: "T" + who[1:] + msg + strconv.FormatInt(d.Milliseconds(), 10) + "ms (" + name +
		"), so the request was aborted, keeping the text received so far. Check " + who + "; if the model is this slow, raise the bound."}
}

// send performs one request authorized by auth (nil: none), asking for a
// fresh token and retrying once after a 401. An unreachable server is an
// *errTransport with "Could not reach <who> at <url>"; an ended ctx is ctx's
// error. g, when not nil, is armed right before each fetch (after the token
// was read) and paused while a 401 is retried.
func (s *Session) send(ctx context.Context, method, url string, body []byte, accept string, g *streamGuard, auth TokenSource, who string) (*bridge.Response, error) {
	for attempt := 0; ; attempt++ {
		hdr := bridge.Header{"accept": accept}
		if body != nil {
			hdr["content-type"] = "application/json"
		}
		if traced {
			injectChat(s, ctx, hdr, body)
		}
		if auth != nil {
			tok, err := token(ctx, auth, attempt > 0, who)
			if err != nil {
				return nil, err
			}
			if tok != "" {
				hdr["authorization"] = "Bearer " + tok
			}
		}
		g.arm()
		resp, err := s.opts.Fetcher.Fetch(ctx, &bridge.Request{Method: method, URL: url, Header: hdr, Body: body})
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return nil, errors.Join(context.Canceled, err)
			}
			return nil, &errTransport{msg: "Could not reach " + who + " at " + url + ": " + errs.Text(unwrapFetch(err))}
		}
		if resp == nil {
			return nil, &errTransport{msg: "Could not reach " + who + " at " + url + ": the fetcher returned no response and no error"}
		}
		if resp.Body == nil {
			resp.Body = io.NopCloser(strings.NewReader(""))
		}
		if resp.Status == 401 && attempt == 0 && auth != nil {
			g.disarm()
			resp.Body.Close()
			continue
		}
		return resp, nil
	}
}

// token asks auth, guarding against a panic in it; who names the server
// the token is for (endpointName: it is the endpoint's key).
func token(ctx context.Context, auth TokenSource, forceRefresh bool, who string) (tok string, err error) {
	what := "Could not get an access token: "
	if who == endpointName {
		what = "Could not get the model endpoint's API key: "
	}
	defer func() {
		if p := recover(); p != nil {
			err = &errTransport{msg: what + "the token source panicked: " + errs.Text(p)}
		}
	}()
	tok, err = auth.AccessToken(ctx, forceRefresh)
	if err != nil {
		if ctx.Err() != nil {
			return "", errors.Join(context.Canceled, err)
		}
		return "", &errTransport{msg: what + err.Error()}
	}
	return tok, nil // learned by the scrubber on its way (learningTokens)
}

// unwrapFetch drops the bridge's own prefix, which repeats the URL.
func unwrapFetch(err error) error {
	var fe *bridge.FetchError
	if errs.As(err, &fe) {
		return fe.Err
	}
	return err
}

// sseStream reads one answer's events.
type sseStream struct {
	body  *guardedBody
	r     *bridge.SSEReader
	done  bool
	ctx   context.Context // the caller's: its end is a cancellation, not a timeout
	guard *streamGuard
	who   string   // names the server in messages
	opts  *Options // the session's, for the timeout's message
}

func (st *sseStream) Next() (StreamEvent, error) {
	if st.done {
		return StreamEvent{}, io.EOF
	}
	for {
		// A view: the event's text (a plain delta's) shares the reader's
		// buffer until the next call, and streamRound's record makes it
		// the turn's own before anything keeps it (nothing else reads an
		// sseStream). Other events are decoded into strings of their own.
		frame, err := st.r.NextView()
		if err != nil {
			if st.ctx.Err() == nil && st.guard.timedOut() != notFired {
				return StreamEvent{}, streamTimeout(st.opts, st.guard, st.who)
			}
			if errors.Is(err, errPastStop) {
				return StreamEvent{}, io.EOF // the answer ends at the bound; Close aborts the rest
			}
			if errors.Is(err, bridge.ErrFrameTooLarge) {
				return StreamEvent{}, &errTransport{msg: "The Studio AI proxy sent an event larger than the frame bound: " + err.Error()}
			}
			if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return StreamEvent{}, err
			}
			return StreamEvent{}, &errTransport{msg: "The Studio AI proxy's stream failed: " + err.Error()}
		}
		if frame.Event == "text_delta" {
			// decodeEvent's first case, written out: nearly every frame.
			if text, ok := plainText(frame.Data); ok {
				return StreamEvent{Type: EventTextDelta, Text: text}, nil
			}
		}
		typ, known := sseEventType(frame.Event)
		if !known {
			continue
		}
		ev, ok := decodeEvent(typ, frame.Data)
		if !ok {
			st.done = true
		}
		return ev, nil
	}
}

func (st *sseStream) Close() error { return st.body.Close() }

// stopped says the answer's message_stop arrived: from now on at most
// maxBytesAfterStop more bytes are read.
func (st *sseStream) stopped() { st.body.stop() }

// stopCounter is an EventStream that bounds what it reads after the
// answer's message_stop (the default transport's sseStream).
type stopCounter interface{ stopped() }

// decodeEvent parses one frame's data as the event typ (the SSE event name
// is the authority over any type in the JSON).
func decodeEvent(typ, data string) (StreamEvent, bool) {
	if typ == EventTextDelta {
		if text, ok := plainText(data); ok {
			return StreamEvent{Type: typ, Text: text}, true
		}
	}
	ev, ok := DecodeStreamEvent([]byte(data))
	if ok {
		ev.Type = typ
	}
	return ev, ok
}

// plainText returns the text of a text delta's data when the data is
// exactly {"text":"…"} or {"type":"…","text":"…"} (the type a plain word,
// which is ignored: the SSE event name is the authority) and the text needs
// no decoding: no escape, no control character, valid UTF-8. That is the
// form nearly every delta takes, and then the text is a substring of data,
// with nothing decoded or allocated; DecodeStreamEvent would give the same
// event (sse_transport_test.go).
func plainText(data string) (string, bool) {
	// Written out, not with strings.CutPrefix and the like: this runs once
	// per delta, and in the module each call costs more than the checks.
	const typeHead, head, tail = `{"type":"`, `{"text":"`, `"}`
	var text string
	switch {
	case len(data) >= len(head)+len(tail) && data[:len(head)] == head:
		text = data[len(head):]
	case len(data) >= len(typeHead) && data[:len(typeHead)] == typeHead:
		i := len(typeHead)
		for i < len(data) && (data[i] >= 'a' && data[i] <= 'z' || data[i] >= 'A' && data[i] <= 'Z' || data[i] == '_') {
			i++
		}
		// `",` then the rest of head after its `{`.
		if rest := data[i:]; len(rest) >= 2+len(head)-1+len(tail) && rest[:2] == `",` && rest[2:len(head)+1] == head[1:] {
			text = rest[len(head)+1:]
		} else {
			return "", false
		}
	default:
		return "", false
	}
	if len(text) < len(tail) || text[len(text)-2] != '"' || text[len(text)-1] != '}' {
		return "", false
	}
	text = text[:len(text)-len(tail)]
	ascii := true
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c < 0x20 || c == '"' || c == '\\':
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	if !ascii && !utf8.ValidString(text) {
		return "", false
	}
	return text, true
}
