// The peer benchmark: agentwasm beside the JavaScript stacks people pick for an in-page agent,
// on one job (job.mjs), and the table of BENCHMARKS.md's `peers` block (scripts/bench.mjs, run
// by `make bench`, writes it from this script's --json output).
//
//   node bench/peers/run.mjs [--turns 1000] [--runs 3] [--timed 200] [--warmup 50] [--json]
//
// (--timed and --warmup shrink to fit a --turns under 251 unless given.)
//
// For each stack: its size (its entry in stacks/ bundled by esbuild --bundle --minify
// --format=esm --platform=browser, brotli quality 11; for agentwasm the files a page loads from
// dist/ — the loader, the build's wasm_exec script and its module — each compressed on its own);
// then `runs` times, each stack in a fresh Node process (measure.mjs, with --expose-gc): the cold
// start to the end of the first turn, the median time of `timed` turns after `warmup` more, and
// the memory after `turns` turns. Figures are the median of the runs, with their range; ratios
// are against the AI SDK's. A stack that answers the job wrongly fails the run.
//
// Needs `npm ci --prefix bench/peers` (the pinned versions) and the modules in dist/ (`make
// build`, `make build-tiny`).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants } from 'node:zlib';

const here = new URL('.', import.meta.url);
const dist = new URL('../../dist/', import.meta.url);
const args = process.argv.slice(2);
/** The value of --name, or fallback. */
function flag(name, fallback) {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : args[i + 1];
}
const turns = Number(flag('turns', 1000));
const runs = Number(flag('runs', 3));
// Unless given, the warm-up and the timed turns shrink to fit a small --turns.
const warmup = Number(flag('warmup', Math.min(50, Math.floor(turns / 5))));
const timed = Number(flag('timed', Math.min(200, turns - 1 - warmup)));
const asJSON = args.includes('--json');
/** Progress goes to stderr, so that --json's stdout is the JSON alone. */
const say = (line) => console.error(`peers: ${line}`);

/** Fails the run with a message that says what to do. */
function fail(message) {
  console.error(`peers: ${message}`);
  process.exit(1);
}
if (!(timed >= 1) || !(warmup >= 0) || !(turns >= 1 + warmup + timed) || !(runs >= 1)) {
  fail(`--turns must be at least 1 + --warmup + --timed (${1 + warmup + timed}), --timed and --runs at least 1`);
}
if (!existsSync(new URL('node_modules/esbuild/package.json', here))) {
  fail('bench/peers/node_modules is missing: run `npm ci --prefix bench/peers` (make bench does)');
}

/** The installed version of a package of bench/peers. */
const version = (name) => JSON.parse(readFileSync(new URL(`node_modules/${name}/package.json`, here), 'utf8')).version;

// The stacks, in the table's order. An agentwasm build names its files in dist/; `optional` ones
// are measured when dist/ holds them.
const stacks = [
  { id: 'go', stack: 'agentwasm', variant: 'go', what: 'agentwasm, Go build, full', wasm: 'agentwasm.wasm', exec: 'wasm_exec.js', make: 'make build' },
  { id: 'session', stack: 'agentwasm', variant: 'session', what: 'agentwasm, Go build, session-only', wasm: 'agentwasm-session.wasm', exec: 'wasm_exec.js', make: 'make build' },
  { id: 'tiny', stack: 'agentwasm', variant: 'tiny', what: 'agentwasm, TinyGo build, full', wasm: 'agentwasm.tiny.wasm', exec: 'wasm_exec.tiny.js', make: 'make build-tiny' },
  { id: 'tiny-session', stack: 'agentwasm', variant: 'tiny-session', what: 'agentwasm, TinyGo build, session-only', wasm: 'agentwasm-session.tiny.wasm', exec: 'wasm_exec.tiny.js', make: 'make build-tiny', optional: true },
  { id: 'ai-sdk', stack: 'ai-sdk', what: `Vercel AI SDK ${version('ai')} \`streamText\` + \`tool()\` + \`@ai-sdk/mcp\` ${version('@ai-sdk/mcp')} + \`@ai-sdk/openai-compatible\` ${version('@ai-sdk/openai-compatible')}` },
  { id: 'mcp-sdk', stack: 'mcp-sdk', what: `MCP TypeScript SDK ${version('@modelcontextprotocol/sdk')} client alone (Streamable HTTP)`, sizeOnly: true },
  { id: 'openai-agents', stack: 'openai-agents', what: `OpenAI Agents JS ${version('@openai/agents')} (its browser bundle's MCP classes are stubs; the turns run its Node MCP client)` },
].filter((s) => {
  if (s.stack !== 'agentwasm') return true;
  const missing = ['agentwasm.mjs', s.exec, s.wasm].filter((f) => !existsSync(new URL(f, dist)));
  if (missing.length === 0) return true;
  if (s.optional) {
    say(`${s.what}: dist/ has no ${missing.join(', ')}; not measured`);
    return false;
  }
  return fail(`dist/ lacks ${missing.join(', ')}: run ${s.make} (make bench does)`);
});
const baseline = 'ai-sdk';

/** Brotli (quality 11, as make size) bytes of some bytes. */
function brotli(bytes) {
  return brotliCompressSync(bytes, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
  }).length;
}

// Sizes.
const { build } = await import('esbuild');
for (const s of stacks) {
  if (s.stack === 'agentwasm') {
    s.files = ['agentwasm.mjs', s.exec, s.wasm].map((f) => {
      const bytes = readFileSync(new URL(f, dist));
      return { file: `dist/${f}`, raw: bytes.length, brotli: brotli(bytes) };
    });
  } else {
    const out = await build({
      entryPoints: [fileURLToPath(new URL(`stacks/${s.stack}.mjs`, here))],
      bundle: true, minify: true, format: 'esm', platform: 'browser', write: false, outdir: 'out', logLevel: 'error',
    });
    s.files = out.outputFiles.map((f) => ({ file: f.path.slice(f.path.lastIndexOf('/') + 1), raw: f.contents.length, brotli: brotli(f.contents) }));
  }
  s.brotli = s.files.reduce((n, f) => n + f.brotli, 0);
  s.raw = s.files.reduce((n, f) => n + f.raw, 0);
  say(`${s.what}: ${s.raw} B minified, ${s.brotli} B brotli (${s.files.map((f) => `${f.file} ${f.brotli}`).join(', ')})`);
}

/** Runs one stack once in a fresh process and resolves with what measure.mjs printed. */
function measure(s) {
  const argv = ['--expose-gc', fileURLToPath(new URL('measure.mjs', here)), s.stack,
    ...(s.variant ? ['--variant', s.variant] : []), '--turns', String(turns), '--timed', String(timed), '--warmup', String(warmup)];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => { out += chunk; });
    child.on('error', (err) => fail(`could not run measure.mjs: ${err.message}`));
    child.on('close', (code) => {
      if (code !== 0) fail(`${s.what} failed the job (measure.mjs exited with ${code}; its reason is above)`);
      resolve(JSON.parse(out.trim().split('\n').pop()));
    });
  });
}

// The runs: every stack once per run, so that a burst of load on the machine touches them all.
for (const s of stacks) s.runs = [];
for (let r = 1; r <= runs; r++) {
  for (const s of stacks.filter((x) => !x.sizeOnly)) {
    const m = await measure(s);
    s.runs.push(m);
    say(`run ${r}/${runs}, ${s.what}: cold start ${m.coldMs.toFixed(1)} ms, per turn ${m.turnUs.toFixed(0)} µs, `
      + `after ${turns} turns ${m.wasmBytes ? `wasm ${(m.wasmBytes / 1e6).toFixed(1)} MB, ` : ''}heap ${(m.heapBytes / 1e6).toFixed(1)} MB, RSS ${(m.rssBytes / 1e6).toFixed(0)} MB`);
  }
}

/** The median and range of one measure over the runs. */
function spread(s, key) {
  const xs = s.runs.map((m) => m[key]).filter((x) => x !== undefined).sort((a, b) => a - b);
  if (xs.length === 0) return undefined;
  const mid = xs.length >> 1;
  return { median: xs.length % 2 ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2, min: xs[0], max: xs[xs.length - 1] };
}
for (const s of stacks) {
  if (s.sizeOnly) continue;
  s.coldMs = spread(s, 'coldMs');
  s.turnUs = spread(s, 'turnUs');
  s.wasmBytes = spread(s, 'wasmBytes');
  s.heapBytes = spread(s, 'heapBytes');
  s.rssBytes = spread(s, 'rssBytes');
}
const base = stacks.find((s) => s.id === baseline);

// The table.
const int = (x) => Math.round(x).toLocaleString('en-US');
const dec = (x, d) => x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
/** How many times a takes b: ×N for 10 and more, ×N.N from 1, two significant digits below 1. */
const ratio = (a, b) => {
  const r = a / b;
  if (r >= 10) return `×${int(r)}`;
  if (r >= 1) return `×${dec(r, 1)}`;
  return `×${r.toPrecision(2)}`;
};
/** A median with the range of the runs beside it, in a unit of `fmt`. */
const ranged = (v, fmt, unit) => (runs > 1 && fmt(v.min) !== fmt(v.max)
  ? `${fmt(v.median)} ${unit} (${fmt(v.min)}–${fmt(v.max)})` : `${fmt(v.median)} ${unit}`);
const ms = (x) => dec(x, x >= 100 ? 0 : 1);
const mb = (x) => dec(x / 1e6, 1);
const head = ['what ships', 'brotli bytes', '÷ AI SDK', 'cold start to the first turn', '÷ AI SDK', 'per turn', '÷ AI SDK', `memory after ${int(turns)} turns`];
const rows = stacks.map((s) => {
  const size = [int(s.brotli), s === base ? 'the baseline' : ratio(s.brotli, base.brotli)];
  if (s.sizeOnly) return [s.what, ...size, '—', '—', '—', '—', '—'];
  const memory = s.wasmBytes
    ? `wasm ${ranged(s.wasmBytes, mb, 'MB')}; JS heap ${mb(s.heapBytes.median)} MB, RSS ${int(s.rssBytes.median / 1e6)} MB`
    : `JS heap ${ranged(s.heapBytes, mb, 'MB')}; RSS ${int(s.rssBytes.median / 1e6)} MB`;
  return [s.what, ...size,
    ranged(s.coldMs, ms, 'ms'), s === base ? 'the baseline' : ratio(s.coldMs.median, base.coldMs.median),
    ranged(s.turnUs, int, 'µs'), s === base ? 'the baseline' : ratio(s.turnUs.median, base.turnUs.median),
    memory];
});
const table = [
  `| ${head.join(' | ')} |`,
  `|${head.map((_, i) => (i === 0 || i === head.length - 1 ? '---' : '---:')).join('|')}|`,
  ...rows.map((r) => `| ${r.join(' | ')} |`),
].join('\n');
const note = `Node ${process.version.replace(/^v/, '')}; ${runs} run${runs === 1 ? '' : 's'} of each stack, each in a fresh process: `
  + `the median${runs > 1 ? ' (the range of the runs in brackets)' : ''}; per turn, the median of ${timed} turns after ${warmup + 1}; `
  + 'memory after a forced collection.';

if (asJSON) {
  const versions = Object.fromEntries(['ai', '@ai-sdk/openai-compatible', '@ai-sdk/mcp', '@modelcontextprotocol/sdk', '@openai/agents', 'openai', 'esbuild']
    .map((name) => [name, version(name)]));
  console.log(JSON.stringify({
    turns, runs, timed, warmup, node: process.version, versions, table, note,
    stacks: stacks.map(({ id, what, files, brotli: b, raw, runs: r, coldMs, turnUs, wasmBytes, heapBytes, rssBytes }) => ({
      id, what, files, brotli: b, raw, runs: r, coldMs, turnUs, wasmBytes, heapBytes, rssBytes,
    })),
  }));
} else {
  console.log(`${table}\n\n${note}`);
}
