// The measures `make bench` takes of each build of the js module side by side (scripts/bench.mjs
// runs this once per build, each in a fresh Node process, and writes BENCHMARKS.md's `variants`
// table from what it prints):
//
//   node scripts/bench-variant.mjs go|tiny [turns]
//
// - cold start: load (fetch and instantiate the module, start its runtime) plus the first
//   session's first text turn, in a process that has not loaded it before;
// - deltas per second: a session's second turn, whose answer streams 10,000 text deltas (the first,
//   short turn does the session's one-time work, such as tool discovery), each handed to an onEvent
//   observer, in 256 B chunks and in 64 KiB chunks; beside it the plain-JavaScript baseline
//   (web/bench/plain-sse.mjs: a WHATWG-style SSE parser, JSON.parse, one onEvent call per event)
//   over the same bytes in the same chunks from the same scripted fetch, and the ratio of the two;
// - a full scripted turn: a page tool call (its own execute), its result back to the model, the
//   final answer — two model requests;
// - the module's linear memory (and the process's RSS) after `turns` text turns, each on a
//   fresh session, right after the cold start (wasm memory grows and never shrinks: this is its
//   high-water mark).
//
// The module runs from dist/ (`make build`, `make build-tiny`) through web/testing/helpers.mjs.
import { loadRuntime, studioProxy, scriptedFetch, textStream, toolCallStream } from '../web/testing/helpers.mjs';
import { plainTurn } from '../web/bench/plain-sse.mjs';

const variant = process.argv[2];
const turns = Number(process.argv[3] ?? 1000);
if (variant !== 'go' && variant !== 'tiny') {
  console.error('usage: node scripts/bench-variant.mjs go|tiny [turns]');
  process.exit(2);
}

// The instance's memory, for the figure after the turns: the loader does not expose its
// instance, so the instantiation is observed here (Go exports it as mem, TinyGo as memory).
let memory;
for (const name of ['instantiate', 'instantiateStreaming']) {
  const original = WebAssembly[name];
  WebAssembly[name] = async (...args) => {
    const result = await original.apply(WebAssembly, args);
    const instance = result instanceof WebAssembly.Instance ? result : result.instance;
    memory ??= instance.exports.mem ?? instance.exports.memory;
    return result;
  };
}

const hi = textStream(...Array(50).fill('token '));

// Cold start.
let t0 = performance.now();
const runtime = await loadRuntime({ variant });
const first = runtime.createSession({ fetchImpl: scriptedFetch({ body: hi, chunk: 256 }).fetchImpl });
const firstTurn = await first.chat('hi');
if (firstTurn.status !== 'completed') throw new Error(firstTurn.errorMessage);
first.close();
const coldMs = performance.now() - t0;

// Memory after `turns` text turns (before the long answers below, which need more).
for (let i = 0; i < turns; i++) {
  const session = runtime.createSession({ fetchImpl: scriptedFetch({ body: hi, chunk: 256 }).fetchImpl });
  const t = await session.chat('hi');
  if (t.status !== 'completed') throw new Error(t.errorMessage);
  session.close();
}
const wasmMB = memory ? memory.buffer.byteLength / 1e6 : NaN;
const rssMB = process.memoryUsage().rss / 1e6;

// Deltas per second, over one long answer, through onEvent: the module and the plain-JS
// baseline take turns over the same bytes, in the same chunks, from the same scripted fetch;
// the best of `rounds` turns of each (the first ones warm the JIT up). The module's long answer
// is its session's second turn: the first, short one carries the session's one-time work.
const deltas = 10_000;
const rounds = 16;
const long = textStream(...Array(deltas).fill('x '));
/** Deltas per second of the module and the baseline, in chunks of `chunk` bytes. */
async function deltaRates(chunk) {
  let bestMs = Infinity;
  let bestPlainMs = Infinity;
  for (let i = 0; i < rounds; i++) {
    let seen = 0;
    const onEvent = (event) => {
      if (event.type === 'chat' && event.event.type === 'textDelta') seen++;
    };
    // The session's first turn (a short answer) does what a session does once — tool discovery
    // against /mcp, which answers 404 here — so the timed turn is the long answer alone.
    const session = runtime.createSession({
      fetchImpl: scriptedFetch({ body: textStream('ready'), chunk }, { body: long, chunk }).fetchImpl, onEvent,
    });
    const first = await session.chat('hello');
    if (first.status !== 'completed') throw new Error(`first turn: ${first.status} ${first.errorMessage ?? ''}`);
    seen = 0;
    t0 = performance.now();
    const t = await session.chat('a long story');
    bestMs = Math.min(bestMs, performance.now() - t0);
    if (t.status !== 'completed' || t.text.length !== deltas * 2 || seen !== deltas) {
      throw new Error(`long turn: ${t.status} ${t.errorMessage ?? ''}, onEvent saw ${seen} deltas`);
    }
    session.close();

    let plainSeen = 0;
    const plainFetch = scriptedFetch({ body: long, chunk }).fetchImpl;
    t0 = performance.now();
    await plainTurn(plainFetch, (event) => {
      if (event.type === 'chat' && event.event.type === 'textDelta') plainSeen++;
    });
    bestPlainMs = Math.min(bestPlainMs, performance.now() - t0);
    if (plainSeen !== deltas) throw new Error(`the plain-JS baseline saw ${plainSeen} deltas`);
  }
  return { module: deltas / (bestMs / 1000), plain: deltas / (bestPlainMs / 1000) };
}
const rates = { small: await deltaRates(256), large: await deltaRates(64 << 10) };

// A full scripted turn: a tool call, its result, the answer.
const round = [
  { body: toolCallStream({ id: 'c1', name: 'setFilter', args: { layer: 'schools' } }), chunk: 256 },
  { body: textStream('Only ', 'schools ', 'now.'), chunk: 256 },
];
const tools = [{
  name: 'setFilter',
  description: 'Filter the map',
  inputSchema: { type: 'object', properties: { layer: { type: 'string' } } },
  execute: async (args) => ({ shown: args.layer }),
}];
/** Mean microseconds per call of f over n calls, after a warm-up. */
async function measure(n, f) {
  for (let i = 0; i < Math.min(n, 50); i++) await f();
  const start = performance.now();
  for (let i = 0; i < n; i++) await f();
  return ((performance.now() - start) * 1000) / n;
}
const fullUs = await measure(Math.max(1, Math.round(turns / 4)), async () => {
  const { fetchImpl } = studioProxy({ chat: (request, n) => round[n % 2] });
  const session = runtime.createSession({ fetchImpl, tools });
  const t = await session.chat('Only show schools');
  if (t.status !== 'completed' || t.toolCalls.length !== 1 || t.text !== 'Only schools now.') {
    throw new Error(`full turn: ${t.status} ${t.errorMessage ?? ''} ${t.text}`);
  }
  session.close();
});


console.log(`cold start (load + the first session's first turn): ${coldMs.toFixed(1)} ms`);
for (const [label, r] of [['256 B chunks', rates.small], ['64 KiB chunks', rates.large]]) {
  console.log(`deltas per second (an answer of ${deltas} deltas, a session's second turn, ${label}): module ${Math.round(r.module)}, plain JS ${Math.round(r.plain)}, ratio ${(r.plain / r.module).toFixed(2)}`);
}
console.log(`full scripted turn (a page tool call, its result, the answer): ${fullUs.toFixed(1)} µs`);
console.log(`memory after ${turns} turns: wasm ${wasmMB.toFixed(1)} MB, process RSS ${rssMB.toFixed(1)} MB`);
process.exit(0); // the runtime's instance keeps no timer, but say so
