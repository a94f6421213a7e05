// HTTPMCPClient as an MCPListener: the list-changed watch reads its listen
// stream.

package session

import (
	"context"
	"errors"
	"io"
	"strconv"

	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/internal/mcp"
)

// Listen opens the notification stream for the list-changed watch (see
// ListenToolListChanged: in the session era the server's requests on it,
// pings, are answered, and never come out of the stream). A 405 or 501
// answer, or a stateless-era "method not found" for subscriptions/listen,
// is reported as ErrListenUnsupported.
func (c *HTTPMCPClient) Listen(ctx context.Context, lastEventID string) (MCPNotificationStream, error) {
	s, err := c.ListenToolListChanged(ctx, lastEventID)
	if err != nil {
		var pe *MCPProtocolError
		if errors.As(err, &pe) && pe.Code == RPCMethodNotFound {
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

// listenStream adapts an MCPListenStream.
type listenStream struct{ s *MCPListenStream }

func (l listenStream) Next() (MCPNotification, error) {
	method, _, err := l.s.Next()
	if errors.Is(err, ErrMCPListenClosed) {
		err = io.EOF // the server ended the subscription: a drop like any other
	}
	if err != nil {
		return MCPNotification{}, err
	}
	return MCPNotification{Method: method, EventID: l.s.LastEventID()}, nil
}

func (l listenStream) Close() error { return l.s.Close() }
