// Tests of the replies that carry a session value encoded by its own codec.

package command

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentwasm/agentwasm/session"
)

func TestRepliesOfEncodedMembers(t *testing.T) {
	nan := session.Turn{Status: session.StatusCompleted, Events: []session.StreamEvent{{Type: session.EventMessageStop, LatencyMs: math.NaN()}}}
	tests := []struct {
		name   string
		reply  func() []byte
		want   string // a part of the encoded reply
		failed bool
	}{
		{"a turn", func() []byte { return encode(turnReply(session.Turn{Status: session.StatusCompleted, Text: "hi"})) }, `"turn":{"status":"completed","text":"hi","toolCalls":[],"events":[]`, false},
		{"a report", func() []byte { return encode(reportReply(session.ToolDiscoveryReport{Discovered: 2})) }, `"report":{"discovered":2`, false},
		{"a draft", func() []byte { return encode(draftReply(&session.DraftBinding{DraftID: "d1", Generation: 3})) }, `"draft":{"draftId":"d1","generation":3}`, false},
		{"no draft", func() []byte { return encode(draftReply(nil)) }, `{"ok":true}`, false},
		// A number JSON cannot spell fails the command as internal, where it
		// would otherwise answer ok without the turn.
		{"a turn that cannot be encoded", func() []byte { return encode(turnReply(nan)) }, `"code":"internal","message":"agentwasm: could not encode the reply: `, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := string(tc.reply())
			require.Contains(t, b, tc.want)
			assert.Equal(t, !tc.failed, len(b) > 10 && b[:10] == `{"ok":true`, b)
		})
	}
}
