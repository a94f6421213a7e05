// Package wazerotest runs the agentwasm wasip1 module under wazero for tests,
// the way net/http/httptest runs a server.
//
// Module builds the module once per source tree (cached on disk by a hash of
// the sources, with wazero's compilation cache beside it, in the user's cache
// directory under agentwasm/wazerotest). Compiling the module is the slowest
// step of starting it; a later process (a second test binary, `agentwasm chat
// --wasm`) finds it compiled in that directory (BenchmarkCompile measures
// both; BENCHMARKS.md has the figures). New instantiates it
// with host functions that serve every fetch from an in-process http.Handler —
// no sockets — and records the events the module streams. A test chooses a
// real clock or a VirtualClock that only moves when the module waits, so a
// 15-second timeout runs in milliseconds.
//
//	inst := wazerotest.New(t, wazerotest.Options{Handler: proxy})
//	id := inst.CreateSession(ctx, map[string]any{"baseUrl": "/api"})
//	turn := inst.Chat(ctx, id, "hello")
//
// The ABI it drives is documented in wasm/README.md.
package wazerotest
