// One stack's run of the peer benchmark, in a fresh Node process (run.mjs starts one per stack
// and run, with --expose-gc): the cold start to the first turn, the time of each turn after a
// warm-up, and the memory after all the turns. Prints one line of JSON.
//
//   node --expose-gc bench/peers/measure.mjs ai-sdk|openai-agents|agentwasm [--variant go] [--turns 1000] [--timed 200] [--warmup 50]
//
// Every answer is checked against the job (job.mjs): the text must be the 50 deltas joined,
// and the chat requests must offer the stack's local tool and the MCP server's tool, listed once.
// A stack that answers otherwise fails the run (exit status 1, the reason on stderr).
import { BASE, CHAT_URL, LOCAL_TOOL, MCP_TOOL, MCP_URL, MODEL, checkText, checkTools, makeFetch } from './job.mjs';

const args = process.argv.slice(2);
/** The value of --name, or fallback. */
function flag(name, fallback) {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : args[i + 1];
}
const stackName = args[0];
const variant = flag('variant', undefined);
const turns = Number(flag('turns', 1000));
const timed = Number(flag('timed', 200));
const warmup = Number(flag('warmup', 50));
const label = variant ? `${stackName} (${variant})` : stackName;
if (!['ai-sdk', 'openai-agents', 'agentwasm'].includes(stackName) || turns < 1 + warmup + timed) {
  console.error('usage: node --expose-gc bench/peers/measure.mjs ai-sdk|openai-agents|agentwasm [--variant V] [--turns N] [--timed M] [--warmup W] (N ≥ 1 + W + M)');
  process.exit(2);
}

// The module's linear memory, for agentwasm: the loader does not expose its instance, so the
// instantiation is observed (Go exports the memory as mem, TinyGo as memory).
let wasmMemory;
if (stackName === 'agentwasm') {
  for (const name of ['instantiate', 'instantiateStreaming']) {
    const original = WebAssembly[name];
    WebAssembly[name] = async (...a) => {
      const result = await original.apply(WebAssembly, a);
      const instance = result instanceof WebAssembly.Instance ? result : result.instance;
      wasmMemory ??= instance.exports.mem ?? instance.exports.memory;
      return result;
    };
  }
}

const job = makeFetch();
const env = {
  fetch: job.fetch, base: BASE, chatUrl: CHAT_URL, mcpUrl: MCP_URL, model: MODEL,
  localTool: LOCAL_TOOL, mcpToolName: MCP_TOOL.name, variant,
};
const prompt = 'Tell me about the map.';

try {
  // Cold start: from before the stack's import to the end of its first turn.
  const t0 = performance.now();
  const { start } = await import(`./stacks/${stackName}.mjs`);
  const stack = await start(env);
  const first = await stack.turn(prompt);
  const coldMs = performance.now() - t0;
  checkText(label, first, 1);
  await checkTools(label, job);

  // The turns: a warm-up, the timed ones, then the rest up to `turns` before the memory.
  const times = [];
  for (let i = 2; i <= turns; i++) {
    const start = performance.now();
    const text = await stack.turn(prompt);
    const us = (performance.now() - start) * 1000;
    checkText(label, text, i);
    if (i > 1 + warmup && times.length < timed) times.push(us);
  }
  await checkTools(label, job);
  if (job.counts.chat !== turns) throw new Error(`${label}: ${job.counts.chat} chat requests for ${turns} turns`);
  times.sort((a, b) => a - b);
  const turnUs = times[Math.floor(times.length / 2)];

  globalThis.gc?.();
  globalThis.gc?.();
  const mem = process.memoryUsage();
  const result = {
    stack: stackName, variant, turns, coldMs, turnUs,
    heapBytes: mem.heapUsed, rssBytes: mem.rss, gc: typeof globalThis.gc === 'function',
    wasmBytes: wasmMemory ? wasmMemory.buffer.byteLength : undefined,
    mcp: job.counts.mcp,
  };
  await stack.close();
  console.log(JSON.stringify(result));
  process.exit(0);
} catch (err) {
  console.error(`peers: ${err && err.stack ? err.stack : err}`);
  process.exit(1);
}
