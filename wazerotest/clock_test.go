package wazerotest_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentwasm/agentwasm/testing/fakeproxy"
	"github.com/agentwasm/agentwasm/wazerotest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTimeoutPassesInVirtualTime: a chat with a 15 s module-side timeout on
// a proxy that never answers ends cancelled once 15 s of virtual time have
// passed, without waiting 15 s of real time and without the caller's
// context ending.
func TestTimeoutPassesInVirtualTime(t *testing.T) {
	cases := []struct {
		name  string
		reply fakeproxy.Reply
		text  string
	}{
		{"no response head", fakeproxy.Reply{Hang: true}, ""},
		{"silent after the first event", fakeproxy.Reply{Body: fakeproxy.Frame("text_delta", `{"text":"Hel"}`), HangAfterBody: true}, "Hel"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clock := wazerotest.NewVirtualClock(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC))
			inst := wazerotest.New(t, wazerotest.Options{Handler: fakeproxy.New(tc.reply), Clock: clock})
			// The bound only keeps a broken build from hanging the test; the
			// turn must end long before it, by the module's own timeout.
			bound, cancel := context.WithTimeout(context.Background(), waitBound)
			defer cancel()
			id := inst.CreateSession(bound, nil)

			before := clock.Now()
			r, err := inst.Do(bound, map[string]any{"op": "session.chat", "session": id, "text": "hi", "timeoutMs": 15000})
			elapsed := clock.Now().Sub(before)

			require.NoError(t, err)
			require.NoError(t, bound.Err(), "the module's timeout ended the turn, not the caller's context")
			require.True(t, r.OK, "%+v", r.Error)
			require.NotNil(t, r.Turn)
			assert.Equal(t, "cancelled", r.Turn.Status, r.Turn.ErrorMessage)
			assert.Equal(t, tc.text, r.Turn.Text)
			assert.GreaterOrEqual(t, elapsed, 15*time.Second, "the virtual clock advanced past the timeout")
			assert.Less(t, elapsed, 60*time.Second, "the turn ended at the timeout, not long after it")
			assert.Equal(t, 0, inst.InFlight(), "the module closed its request")
		})
	}
}

// TestVirtualClockIsWhatTheModuleSees: a quick turn against an answering
// proxy barely moves the virtual clock.
func TestVirtualClockIsWhatTheModuleSees(t *testing.T) {
	clock := wazerotest.NewVirtualClock(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC))
	inst := wazerotest.New(t, wazerotest.Options{Handler: fakeproxy.New(fakeproxy.Reply{Body: fakeproxy.TextStream("ok")}), Clock: clock})
	ctx := context.Background()
	id := inst.CreateSession(ctx, nil)
	r, err := inst.Do(ctx, map[string]any{"op": "session.chat", "session": id, "text": "hi", "timeoutMs": 15000})
	require.NoError(t, err)
	require.True(t, r.OK, "%+v", r.Error)
	assert.Equal(t, "completed", r.Turn.Status, "a turn that answers in time is not cut short by timeoutMs: %s", r.Turn.ErrorMessage)
	assert.Equal(t, "ok", r.Turn.Text)
}

func TestVirtualClockAdvance(t *testing.T) {
	start := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	c := wazerotest.NewVirtualClock(start)
	assert.Equal(t, start, c.Now())
	c.Advance(1500 * time.Millisecond)
	c.Sleep(500 * time.Millisecond)
	c.Advance(-time.Hour) // ignored: the clock never goes back
	assert.Equal(t, start.Add(2*time.Second), c.Now())
	assert.Equal(t, start.Add(2*time.Second).UnixNano(), c.Nanotime())
}
