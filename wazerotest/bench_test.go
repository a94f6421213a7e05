package wazerotest_test

import (
	"context"
	"testing"

	"github.com/agentwasm/agentwasm/testing/fakeproxy"
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

// BenchmarkThousandTurns runs 1,000 text turns, each on a fresh session, in
// a fresh instance, and reports the module's linear memory after them
// (wasm-MB: wasm memory grows and never shrinks, so this is its high-water
// mark). make bench runs it against the Go and the TinyGo wasip1 modules.
func BenchmarkThousandTurns(b *testing.B) {
	parts := make([]string, 50)
	for i := range parts {
		parts[i] = "token "
	}
	proxy := fakeproxy.New(fakeproxy.Reply{Body: fakeproxy.TextStream(parts...)})
	ctx := context.Background()
	var mb float64
	for b.Loop() {
		inst := wazerotest.New(b, wazerotest.Options{Handler: proxy})
		for range 1000 {
			id := inst.CreateSession(ctx, map[string]any{"disableToolDiscovery": true})
			if turn := inst.Chat(ctx, id, "hi"); turn.Status != "completed" {
				b.Fatal(turn.ErrorMessage)
			}
			inst.CloseSession(ctx, id)
		}
		mb = float64(inst.MemoryBytes()) / 1e6
		inst.Close()
	}
	b.ReportMetric(mb, "wasm-MB")
}
