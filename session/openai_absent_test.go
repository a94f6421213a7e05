//go:build agentwasm_nodirect && !js && !wasip1

// A module built without the direct transport (-tags agentwasm_nodirect)
// ends a turn that asks for it with ErrorCodeDirectUnavailable, and sends
// nothing. (make gotest runs it with the tag.)

package session_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/agentwasm/agentwasm/session"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNoDirectTransportDirectUnavailable(t *testing.T) {
	hits := 0
	base := startHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits++ }))
	s, err := session.New(session.Options{OpenAI: &session.OpenAIEndpoint{BaseURL: base}, DisableToolDiscovery: true})
	require.NoError(t, err)
	turn := chatWith(t, context.Background(), s, "hi", session.ChatOptions{})
	assert.Equal(t, session.StatusError, turn.Status)
	assert.Equal(t, session.ErrorCodeDirectUnavailable, turn.ErrorCode)
	assert.Contains(t, turn.ErrorMessage, "agentwasm_nodirect")
	assert.Zero(t, hits, "nothing is sent")
}
