// Node benchmark: text-only turns through the js module with a scripted
// fetch whose Response streams 50 deltas through a ReadableStream, beside
// baselines that say where the time goes.
//   node web/bench/chat.bench.mjs [turns]
//   node web/bench/chat.bench.mjs --instantiate-only
// The second form is the load's baseline, in a process of its own (V8 reuses
// a module it compiled before in the same process): the module's bytes read
// and instantiated with its wasm_exec's imports, without starting Go.
import { readFile } from 'node:fs/promises';
import { dist, loadRuntime, scriptedFetch, textStream, variant, variantFiles } from '../testing/helpers.mjs';

if (process.argv[2] === '--instantiate-only') {
  const files = variantFiles[variant];
  await import(new URL(files.wasmExec, dist).href); // defines globalThis.Go
  const start = performance.now();
  const bytes = await readFile(new URL(files.wasm, dist));
  await WebAssembly.instantiate(bytes, new globalThis.Go().importObject);
  console.log(`baseline, the module instantiated without starting its runtime: ${(performance.now() - start).toFixed(1)} ms`);
  process.exit(0);
}

const turns = Number(process.argv[2] ?? 2000);
const t0 = performance.now();
const runtime = await loadRuntime();
const loadMs = performance.now() - t0;

const body = textStream(...Array(50).fill('token '));
const { fetchImpl } = scriptedFetch({ body, chunk: 256 });

/** Mean microseconds per call of f over n calls, after a warm-up of `warm` calls (50 by default). */
async function measure(n, f, warm = Math.min(n, 50)) {
  for (let i = 0; i < warm; i++) await f();
  const start = performance.now();
  for (let i = 0; i < n; i++) await f();
  return ((performance.now() - start) * 1000) / n;
}

// The crossings first, in the fresh runtime: a call is a few microseconds, and the collector's work
// after a thousand turns would be most of what a later measure took. Each is warmed up over 20,000
// calls (V8 optimizes a wasm function once it has run hot: the first thousands of calls run its baseline code), as a page that calls in often is.
const crossingUs = await measure(20000, () => runtime.version(), 20000);
// The serving port from JS: a read-only call, and a fire whose JS handler
// settles before the next call.
const graph = {
  id: 'bench',
  pages: [{ id: 'home' }],
  actions: [{ id: 'home.add', does: 'Add one', on: 'home', input: { type: 'object', properties: { n: { type: 'integer' } } } }],
  journeys: [{ id: 'count', does: 'Count up', steps: ['home.add'] }],
};
const port = runtime.createPort(graph, { handlers: { 'home.add': (input) => ({ n: input.n }) } });
const whatsHereUs = await measure(20000, () => port.call('bench.whats_here'), 20000);

// A fresh session per turn, so history does not grow across the run.
const turnUs = await measure(turns, async () => {
  const session = runtime.createSession({ fetchImpl });
  const t = await session.chat('hi');
  if (t.status !== 'completed') throw new Error(t.errorMessage);
  session.close();
});
// The same call's JSON work in plain JavaScript: the command out, the reply in.
const version = runtime.version();
const plainCallUs = await measure(turns, () => {
  const command = JSON.parse(JSON.stringify({ op: 'version' }));
  const reply = JSON.parse(JSON.stringify({ ok: true, ...version, op: command.op }));
  return { version: reply.version, abi: reply.abi, goVersion: reply.goVersion, serve: reply.serve === true };
});
const plainUs = await measure(turns, async () => {
  const signal = new AbortController().signal;
  const response = await fetchImpl('/x', { method: 'POST', headers: {}, body: new TextEncoder().encode('{}'), signal });
  const reader = response.body.getReader();
  while (!(await reader.read()).done);
});

console.log(`load (instantiate + start the Go runtime): ${loadMs.toFixed(1)} ms`);
console.log(`text turn, 50 deltas, ${body.length} B of SSE in 256 B chunks: ${turnUs.toFixed(1)} µs/turn over ${turns} turns`);
console.log(`baseline, one JS→Go call (runtime.version()): ${crossingUs.toFixed(1)} µs`);
console.log(`baseline, the same call's JSON in plain JS: ${plainCallUs.toFixed(2)} µs`);
console.log(`baseline, the same scripted Response read in plain JS: ${plainUs.toFixed(1)} µs`);

const fireUs = await measure(turns, () => port.call('bench.do_action', { action: 'home.add', input: { n: 1 } }));
console.log(`port.call('bench.whats_here'): ${whatsHereUs.toFixed(1)} µs/call over 20000 calls`);
console.log(`port.call('bench.do_action') through a JS handler: ${fireUs.toFixed(1)} µs/call over ${turns} calls`);
