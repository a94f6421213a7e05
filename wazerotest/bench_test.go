package wazerotest_test

import (
	"context"
	"testing"

	"github.com/agentwasm/agentwasm/internal/fakeproxy"
	"github.com/agentwasm/agentwasm/wazerotest"
)

// BenchmarkChatTurn measures one text-only turn of 50 deltas through the
// wasip1 module under wazero, with the proxy served in-process.
func BenchmarkChatTurn(b *testing.B) {
	parts := make([]string, 50)
	for i := range parts {
		parts[i] = "token "
	}
	stream := fakeproxy.TextStream(parts...)
	inst := wazerotest.New(b, wazerotest.Options{Handler: fakeproxy.New(fakeproxy.Reply{Body: stream})})
	ctx := context.Background()
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		id := inst.CreateSession(ctx, nil)
		b.StartTimer()
		if turn := inst.Chat(ctx, id, "hi"); turn.Status != "completed" {
			b.Fatal(turn.ErrorMessage)
		}
		b.StopTimer()
		inst.CloseSession(ctx, id)
		b.StartTimer()
	}
}
