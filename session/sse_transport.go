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

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/internal/wire"
)

// malformedPayload is the message of the synthetic error event for a frame
// whose data is not one JSON object.
const malformedPayload = "Malformed event payload from the Studio AI proxy."

// sseEventTypes maps the SSE event names of the chat stream to event types.
// Names not listed are ignored.
var sseEventTypes = map[string]string{
	"message_start":   EventMessageStart,
	"text_delta":      EventTextDelta,
	"tool_call_start": EventToolCallStart,
	"tool_call_delta": EventToolCallDelta,
	"tool_call_stop":  EventToolCallStop,
	"message_stop":    EventMessageStop,
	"error":           EventError,
}

// sseTransport is the Studio AI proxy transport of one session.
type sseTransport struct {
	s *Session
}

// errTransport marks errors whose text is the whole turn error message.
type errTransport struct{ msg string }

func (e *errTransport) Error() string { return e.msg }

func (t sseTransport) Stream(ctx context.Context, req *ChatRequest) (EventStream, error) {
	body, err := wire.Marshal(chatRequestWire(req))
	if err != nil {
		return nil, &errTransport{"Could not encode the chat request: " + err.Error()}
	}
	url := t.s.opts.BaseURL + "/v1/studio/ai/chat"
	resp, err := t.s.send(ctx, "POST", url, body, "text/event-stream")
	if err != nil {
		return nil, err
	}
	if resp.Status < 200 || resp.Status > 299 {
		resp.Body.Close()
		return nil, &errTransport{"Studio AI proxy responded " + strconv.Itoa(resp.Status) + " for the chat request."}
	}
	return &sseStream{body: resp.Body, r: bridge.NewSSEReader(resp.Body, t.s.opts.MaxFrameBytes)}, nil
}

// send performs one authorized request, asking for a fresh token and
// retrying once after a 401. An unreachable server is an *errTransport with
// "Could not reach the Studio AI proxy at <url>"; an ended ctx is ctx's error.
func (s *Session) send(ctx context.Context, method, url string, body []byte, accept string) (*bridge.Response, error) {
	for attempt := 0; ; attempt++ {
		hdr := bridge.Header{"accept": accept}
		if body != nil {
			hdr["content-type"] = "application/json"
		}
		if s.opts.Auth != nil {
			tok, err := s.token(ctx, attempt > 0)
			if err != nil {
				return nil, err
			}
			if tok != "" {
				hdr["authorization"] = "Bearer " + tok
			}
		}
		resp, err := s.opts.Fetcher.Fetch(ctx, &bridge.Request{Method: method, URL: url, Header: hdr, Body: body})
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return nil, errors.Join(context.Canceled, err)
			}
			return nil, &errTransport{"Could not reach the Studio AI proxy at " + url + ": " + errs.Text(unwrapFetch(err))}
		}
		if resp == nil {
			return nil, &errTransport{"Could not reach the Studio AI proxy at " + url + ": the fetcher returned no response and no error"}
		}
		if resp.Body == nil {
			resp.Body = io.NopCloser(strings.NewReader(""))
		}
		if resp.Status == 401 && attempt == 0 && s.opts.Auth != nil {
			resp.Body.Close()
			continue
		}
		return resp, nil
	}
}

// token asks the TokenSource, guarding against a panic in it.
func (s *Session) token(ctx context.Context, forceRefresh bool) (tok string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &errTransport{"Could not get an access token: the token source panicked: " + errs.Text(p)}
		}
	}()
	tok, err = s.opts.Auth.AccessToken(ctx, forceRefresh)
	if err != nil {
		if ctx.Err() != nil {
			return "", errors.Join(context.Canceled, err)
		}
		return "", &errTransport{"Could not get an access token: " + err.Error()}
	}
	s.mu.Lock()
	s.secrets.add(tok)
	s.mu.Unlock()
	return tok, nil
}

// unwrapFetch drops the bridge's own prefix, which repeats the URL.
func unwrapFetch(err error) error {
	var fe *bridge.FetchError
	if errors.As(err, &fe) {
		return fe.Err
	}
	return err
}

// sseStream reads one answer's events.
type sseStream struct {
	body io.Closer
	r    *bridge.SSEReader
	done bool
}

func (st *sseStream) Next() (StreamEvent, error) {
	if st.done {
		return StreamEvent{}, io.EOF
	}
	for {
		frame, err := st.r.Next()
		if err != nil {
			if errors.Is(err, bridge.ErrFrameTooLarge) {
				return StreamEvent{}, &errTransport{"The Studio AI proxy sent an event larger than the frame bound: " + err.Error()}
			}
			if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return StreamEvent{}, err
			}
			return StreamEvent{}, &errTransport{"The Studio AI proxy's stream failed: " + err.Error()}
		}
		typ, known := sseEventTypes[frame.Event]
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

// decodeEvent parses one frame's data as the event typ (the SSE event name
// is the authority over any type in the JSON).
func decodeEvent(typ, data string) (StreamEvent, bool) {
	ev, ok := DecodeStreamEvent([]byte(data))
	if ok {
		ev.Type = typ
	}
	return ev, ok
}
