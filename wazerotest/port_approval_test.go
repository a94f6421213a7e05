// An approval belongs to the session that asked, through the wasip1
// module: two sessions with one port as their kit; the person approves the
// first one's ask and the second one's confirm is refused without using it.

package wazerotest_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestApprovalIsTheSessionThatAskedThroughTheModule(t *testing.T) {
	ctx := context.Background()
	// The rounds in the order the turns run: A asks; B confirms, is
	// refused and says so; A, resumed, confirms and is done.
	inst, rec, port, a := resumeInstance(t, payLines, confirmLines, textLines("Not paid."), confirmLines, textLines("Paid."))
	b := inst.CreateSession(ctx, map[string]any{"port": port, "transport": true, "disableToolDiscovery": true})

	turn := inst.Chat(ctx, a, "Pay for my order.")
	require.Len(t, turn.PendingApprovals, 1, turn.ErrorMessage)
	askID := turn.PendingApprovals[0].AskID
	assert.Regexp(t, `^ask_[a-z2-7]{26}$`, askID, "an unguessable id")
	r, err := inst.PortDo(ctx, port, "port.approveAsk", map[string]any{"askId": askID, "by": "ana"})
	require.NoError(t, err)
	require.True(t, r.OK)

	turn = inst.Chat(ctx, b, "Pay for my order.")
	require.Equal(t, "completed", turn.Status, turn.ErrorMessage)
	assert.Equal(t, "Not paid.", turn.Text)
	require.Len(t, turn.ToolCalls, 1)
	assert.Contains(t, turn.ToolCalls[0].Content, `"reason":"APPROVAL_NOT_YOURS"`, "B's confirm is refused")
	assert.Empty(t, rec.hooks("handler"), "nothing ran")

	turn = inst.Resume(ctx, a, []string{askID}, nil)
	require.Equal(t, "completed", turn.Status, turn.ErrorMessage)
	assert.Equal(t, "Paid.", turn.Text)
	assert.Len(t, rec.hooks("handler"), 1, "A's confirm ran it, once")
}
