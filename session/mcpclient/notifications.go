// The notifications a list-changed watch reads: Client.Listen, the stream
// it returns (NotificationStream, yielding Notifications) and the error of
// a server that offers none (ErrListenUnsupported). session's watch takes
// any client with this Listen (session.MCPListener).

package mcpclient

import (
	"context"
	"errors"
	"io"
	"strconv"

	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/internal/mcp"
)

// NotificationStream yields the notifications of one listen stream.
// Next returns io.EOF when the server ended the stream; one goroutine at a
// time calls it. Close aborts the stream, also while Next is blocked on
// another goroutine, and may be called more than once.
type NotificationStream interface {
	Next() (Notification, error)
	Close() error
}

// Notification is one notification (a message without an id; server
// requests never come out of a stream: the listener answers them).
type Notification struct {
	Method  string // e.g. "notifications/tools/list_changed"
	EventID string // the SSE id it came with, if any
}

// ErrListenUnsupported marks a server that offers no notification stream.
var ErrListenUnsupported = errors.New("the MCP server offers no notification stream")

// Listen opens the notification stream for the list-changed watch (see
// ListenToolListChanged: in the session era the server's requests on it,
// pings, are answered, and never come out of the stream). A 405 or 501
// answer, or a stateless-era "method not found" for subscriptions/listen,
// is reported as ErrListenUnsupported.
func (c *Client) Listen(ctx context.Context, lastEventID string) (NotificationStream, error) {
	s, err := c.ListenToolListChanged(ctx, lastEventID)
	if err != nil {
		var pe *ProtocolError
		if errs.As(err, &pe) && pe.Code == MethodNotFound {
			// A stateless-era server without subscriptions/listen.
			return nil, errs.WithSuffix(ErrListenUnsupported, " (", mcp.MethodSubscriptionsListen, ": method not found)")
		}
		if status := statusOf(err); status == 405 || status == 501 {
			return nil, errs.WithSuffix(ErrListenUnsupported, " (HTTP ", strconv.Itoa(status), ")")
		}
		return nil, err
	}
	return listenStream{s}, nil
}

// listenStream adapts a ListenStream to NotificationStream.
type listenStream struct{ s *ListenStream }

func (l listenStream) Next() (Notification, error) {
	method, _, err := l.s.Next()
	if errors.Is(err, ErrListenClosed) {
		err = io.EOF // the server ended the subscription: a drop like any other
	}
	if err != nil {
		return Notification{}, err
	}
	return Notification{Method: method, EventID: l.s.LastEventID()}, nil
}

func (l listenStream) Close() error { return l.s.Close() }
