// Node benchmark: text-only turns through the js module with a scripted
// fetch whose Response streams 50 deltas through a ReadableStream, beside
// two baselines that say where the time goes.
//   node web/bench/chat.bench.mjs [turns]
import { loadRuntime, scriptedFetch, textStream } from '../testing/helpers.mjs';

const turns = Number(process.argv[2] ?? 2000);
const t0 = performance.now();
const runtime = await loadRuntime();
const loadMs = performance.now() - t0;

const body = textStream(...Array(50).fill('token '));
const { fetchImpl } = scriptedFetch({ body, chunk: 256 });

/** Mean microseconds per call of f over n calls, after a warm-up. */
async function measure(n, f) {
  for (let i = 0; i < Math.min(n, 50); i++) await f();
  const start = performance.now();
  for (let i = 0; i < n; i++) await f();
  return ((performance.now() - start) * 1000) / n;
}

// A fresh session per turn, so history does not grow across the run.
const turnUs = await measure(turns, async () => {
  const session = runtime.createSession({ fetchImpl });
  const t = await session.chat('hi');
  if (t.status !== 'completed') throw new Error(t.errorMessage);
  session.close();
});
const crossingUs = await measure(turns, () => runtime.version());
const plainUs = await measure(turns, async () => {
  const signal = new AbortController().signal;
  const response = await fetchImpl('/x', { method: 'POST', headers: {}, body: new TextEncoder().encode('{}'), signal });
  const reader = response.body.getReader();
  while (!(await reader.read()).done);
});

console.log(`load (instantiate + start the Go runtime): ${loadMs.toFixed(1)} ms`);
console.log(`text turn, 50 deltas, ${body.length} B of SSE in 256 B chunks: ${turnUs.toFixed(1)} µs/turn over ${turns} turns`);
console.log(`baseline, one JS→Go call (runtime.version()): ${crossingUs.toFixed(1)} µs`);
console.log(`baseline, the same scripted Response read in plain JS: ${plainUs.toFixed(1)} µs`);

// The serving port from JS: a read-only call, and a fire whose JS handler
// settles before the next call.
const graph = {
  id: 'bench',
  pages: [{ id: 'home' }],
  actions: [{ id: 'home.add', does: 'Add one', on: 'home', input: { type: 'object', properties: { n: { type: 'integer' } } } }],
  journeys: [{ id: 'count', does: 'Count up', steps: ['home.add'] }],
};
const port = runtime.createPort(graph, { handlers: { 'home.add': (input) => ({ n: input.n }) } });
const whatsHereUs = await measure(turns, () => port.call('bench.whats_here'));
const fireUs = await measure(turns, () => port.call('bench.do_action', { action: 'home.add', input: { n: 1 } }));
console.log(`port.call('bench.whats_here'): ${whatsHereUs.toFixed(1)} µs/call over ${turns} calls`);
console.log(`port.call('bench.do_action') through a JS handler: ${fireUs.toFixed(1)} µs/call over ${turns} calls`);
