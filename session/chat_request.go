// The chat request: building the body and sending it to the Studio AI proxy.

package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/internal/wire"
)

// chatURL is where chat requests go.
func (s *Session) chatURL() string { return s.opts.BaseURL + "/v1/studio/ai/chat" }

// chatBody encodes the request for the current history.
func (s *Session) chatBody() ([]byte, error) {
	s.mu.Lock()
	msgs := make([]wire.ChatMessage, len(s.history))
	for i, m := range s.history {
		msgs[i] = wire.ChatMessage{Role: m.Role, Content: m.Content}
	}
	s.mu.Unlock()
	req := wire.ChatRequest{
		Provider:    s.opts.Provider,
		Model:       s.opts.Model,
		System:      s.opts.System,
		Messages:    msgs,
		MaxTokens:   s.opts.MaxTokens,
		Temperature: s.opts.Temperature,
	}
	if tc := s.opts.ToolChoice; tc != nil {
		req.ToolChoice = &wire.ToolChoice{Mode: tc.Mode, ToolName: tc.ToolName}
	}
	return wire.Marshal(req)
}

// sendChat posts the chat request and returns the streaming response, or a
// round outcome saying why there is none.
func (s *Session) sendChat(ctx context.Context) (*bridge.Response, roundResult) {
	body, err := s.chatBody()
	if err != nil {
		return nil, roundResult{status: StatusError, errorMessage: "Could not encode the chat request: " + err.Error()}
	}
	url := s.chatURL()
	resp, err := s.opts.Fetcher.Fetch(ctx, &bridge.Request{
		Method: "POST",
		URL:    url,
		Header: bridge.Header{"content-type": "application/json", "accept": "text/event-stream"},
		Body:   body,
	})
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, cancelled()
		}
		return nil, roundResult{status: StatusError, errorMessage: fmt.Sprintf("Could not reach the Studio AI proxy at %s: %v", url, unwrapFetch(err))}
	}
	if resp.Status < 200 || resp.Status > 299 {
		resp.Body.Close()
		return nil, roundResult{status: StatusError, errorMessage: fmt.Sprintf("Studio AI proxy responded %d for the chat request.", resp.Status)}
	}
	return resp, roundResult{}
}

// unwrapFetch drops the bridge's own prefix, which repeats the URL.
func unwrapFetch(err error) error {
	var fe *bridge.FetchError
	if errors.As(err, &fe) {
		return fe.Err
	}
	return err
}

// cancelled is the outcome of a round the caller's context ended.
func cancelled() roundResult {
	return roundResult{status: StatusCancelled, errorMessage: "The chat was cancelled."}
}
