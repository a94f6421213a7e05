//go:build !js && !wasip1

package session_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/agentwasm/agentwasm/internal/openai"
	"github.com/agentwasm/agentwasm/session"
	"github.com/stretchr/testify/assert"
)

// TestOpenAIDirectMalformedEchoesKey: a chunk that is not JSON, and names
// the key where the JSON decoder's error quotes it, leaves no part of the key
// in the turn, its events or the history.
func TestOpenAIDirectMalformedEchoesKey(t *testing.T) {
	const key = "sk-secret-0123456789abcdef"
	for _, tt := range []struct {
		name     string
		answers  []func(http.ResponseWriter)
		wantCode string
		wantMsg  string
	}{
		{"the first chunk", []func(http.ResponseWriter){stream("data: {\"model\":" + key + "}\n\n")}, session.ErrorCodeUpstreamNotOpenAI, "near offset"},
		{"a later chunk", []func(http.ResponseWriter){stream(oaChunk(`{"content":"Par"}`, ""), "data: {\"choices\":"+key+"}\n\n")}, session.ErrorCodeUpstreamMalformed, "near offset"},
		{"an event's name", []func(http.ResponseWriter){stream("event: " + key + key + "\ndata: {}\n\n")}, session.ErrorCodeUpstreamNotOpenAI, `a stream of "[redacted][redacted]" events`},
		{"a whole answer", []func(http.ResponseWriter){status(200, `{"choices":`+key+`}`, "Content-Type", "application/json")}, session.ErrorCodeUpstreamNotOpenAI, "near offset"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var events []session.Event
			s := directSession(t, &oaEndpoint{answers: tt.answers}, session.StaticToken(key), nil, &events)
			turn := chatWith(t, context.Background(), s, "hi", session.ChatOptions{})
			assert.Equal(t, session.StatusError, turn.Status)
			assert.Equal(t, tt.wantCode, turn.ErrorCode, turn.ErrorMessage)
			assert.Contains(t, turn.ErrorMessage, tt.wantMsg, "the reason is kept")
			all, _ := json.Marshal(struct {
				T session.Turn
				E []session.Event
				M []session.Message
			}{turn, events, s.Messages()})
			assert.NotContains(t, string(all), key[:8], "no part of the key leaves the request")
		})
	}
}

// TestOpenAIDirectErrorBodyCutAtKey: an error body is read up to
// openai.MaxErrorBodyBytes; one that the bound cuts inside the key, after
// white space the message collapses, leaves no part of the key in the turn.
func TestOpenAIDirectErrorBodyCutAtKey(t *testing.T) {
	const key = "sk-secret-0123456789abcdef"
	body := strings.Repeat(" ", openai.MaxErrorBodyBytes-12) + key
	var events []session.Event
	s := directSession(t, &oaEndpoint{answers: []func(http.ResponseWriter){status(500, body)}}, session.StaticToken(key), nil, &events)
	turn := chatWith(t, context.Background(), s, "hi", session.ChatOptions{})
	assert.Equal(t, session.ErrorCodeUpstreamUnavailable, turn.ErrorCode, turn.ErrorMessage)
	all, _ := json.Marshal(struct {
		T session.Turn
		E []session.Event
	}{turn, events})
	assert.NotContains(t, string(all), key[:8], "no part of the key leaves the request")
}
