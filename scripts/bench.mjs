// Runs the Go benchmarks and the Node benchmark and writes their figures
// into BENCHMARKS.md: `make bench` (after `make build` and `make build-tiny`,
// whose modules the Node benchmarks and the wasip1 benchmarks load from
// dist/). The TinyGo build is measured beside the Go build where it can be:
// its size, the Node benchmark with AGENTWASM_VARIANT=tiny,
// scripts/bench-variant.mjs for both builds (cold start, deltas per second
// through onEvent beside the plain-JS baseline of web/bench/plain-sse.mjs on
// the same bytes, a full scripted turn, memory after 1,000 turns), and the
// wazero benchmarks
// against AGENTWASM_WASIP1_TINY. Last, the peer benchmark (bench/peers/run.mjs: agentwasm's
// builds beside the AI SDK, the MCP SDK's client and Agents JS on one job), whose packages it
// installs with `npm ci --prefix bench/peers` when bench/peers/node_modules is missing.
//
//   node scripts/bench.mjs [--benchtime 500ms] [--turns 1000] [--file BENCHMARKS.md] [--only peers]
//
// --only peers runs the peer benchmark alone and rewrites its block only (the other figures and
// the `machine` block stay as the last full run left them).
//
// Every table of BENCHMARKS.md sits between `<!-- bench:begin NAME -->` and
// `<!-- bench:end NAME -->` lines and is rewritten from this run's output;
// the prose around the blocks is kept as it is. The `machine` block says
// where and how the figures were taken (cores, CPU, Go and Node versions).
// A Go benchmark that no table names lands in the `other` block, so a new
// one is never dropped silently. GO names the go command [go].
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { brotliCompressSync, constants } from 'node:zlib';

const args = process.argv.slice(2);
/** The value of --name, or fallback. */
function flag(name, fallback) {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : args[i + 1];
}
const benchtime = flag('benchtime', process.env.BENCHTIME || '500ms');
const turns = Number(flag('turns', process.env.BENCH_TURNS || 1000));
const file = flag('file', 'BENCHMARKS.md');
const GO = process.env.GO || 'go';
// The packages `make bench` has always measured.
const packages = ['./bridge/', './session/', './serve/', './wazerotest/'];
const modulePath = 'github.com/agentwasm/agentwasm/';

/** Fails the run with a message that says what to do. */
function fail(message) {
  console.error(`bench: ${message}`);
  process.exit(1);
}

/** Runs a command, echoing its output (its stdout unless `echo` is false), and resolves with its stdout. */
function run(cmd, argv, env = {}, echo = true) {
  console.log(`bench: ${cmd} ${argv.join(' ')}`);
  return new Promise((resolve) => {
    const child = spawn(cmd, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (echo) process.stdout.write(chunk);
    });
    child.on('error', (err) => fail(`could not run ${cmd}: ${err.message}`));
    child.on('close', (code) => {
      if (code !== 0) fail(`${cmd} ${argv.join(' ')} exited with ${code}; the figures in ${file} are unchanged`);
      resolve(out);
    });
  });
}

// The machine.
const goEnv = execFileSync(GO, ['env', 'GOVERSION', 'GOOS', 'GOARCH'], { encoding: 'utf8' }).trim().split('\n');
const [goVersion, goos, goarch] = goEnv;
const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
const cpu = (os.cpus()[0]?.model ?? 'unknown CPU').trim();
const today = new Date().toISOString().slice(0, 10);
// The load when the run began: on a shared machine, other work inflates every timing.
const load = os.loadavg()[0].toFixed(1);
const machine = `${cores} cores (${cpu}), ${goos}/${goarch}, Go ${goVersion.replace(/^go/, '')}, Node ${process.version.replace(/^v/, '')}`;
console.log(`bench: ${machine}; 1-minute load average ${load}`);

/** Rewrites the blocks of the file named in `content` (name → text), keeping what is around them. */
function writeBlocks(content) {
  let text = readFileSync(file, 'utf8');
  for (const [name, body] of Object.entries(content)) {
    const begin = `<!-- bench:begin ${name} -->\n`;
    const end = `<!-- bench:end ${name} -->`;
    const a = text.indexOf(begin);
    const b = text.indexOf(end, a);
    if (a === -1 || b === -1) fail(`${file} has no ${begin.trim()} … ${end} block; add one where the figures belong`);
    text = text.slice(0, a + begin.length) + body + '\n' + text.slice(b);
  }
  writeFileSync(file, text);
}

/**
 * The peer benchmark's table (bench/peers/run.mjs, its own pinned packages, installed here when
 * missing) and the line under it that says how it was taken.
 */
async function peersBench() {
  if (!existsSync('bench/peers/node_modules')) await run('npm', ['ci', '--prefix', 'bench/peers', '--no-audit', '--no-fund']);
  const out = await run(process.execPath, ['bench/peers/run.mjs', '--turns', String(turns), '--json'], {}, false);
  let result;
  try {
    result = JSON.parse(out.trim().split('\n').pop());
  } catch {
    fail('bench/peers/run.mjs --json printed no JSON; update scripts/bench.mjs with its output');
  }
  if (typeof result.table !== 'string' || typeof result.note !== 'string') fail('bench/peers/run.mjs --json gave no table; update scripts/bench.mjs with its output');
  console.log(`${result.table}\n${result.note}`);
  return `${result.table}\n\n${result.note}`;
}

const only = flag('only', '');
if (only) {
  if (only !== 'peers') fail(`--only knows one part, peers, not ${JSON.stringify(only)}`);
  writeBlocks({ peers: await peersBench() });
  console.log(`bench: the peer table in ${file} is up to date (${machine})`);
  process.exit(0);
}

// The Go benchmarks: results[pkg/Name/sub] = {'ns/op': …, 'B/op': …, …}.
const goOut = await run(GO, ['test', '-run', '^$', '-bench', '.', '-benchmem', `-benchtime=${benchtime}`, ...packages]);
const results = new Map();
let pkg = '';
for (const line of goOut.split('\n')) {
  const p = line.match(/^pkg: (\S+)/);
  if (p) pkg = p[1].startsWith(modulePath) ? p[1].slice(modulePath.length) : p[1];
  const m = line.match(/^Benchmark(\S+?)(?:-\d+)?\s+\d+\s+(.*)$/);
  if (!m) continue;
  const metrics = {};
  for (const [, value, unit] of m[2].matchAll(/([\d.]+) (\S+)/g)) metrics[unit] = Number(value);
  results.set(`${pkg}/${m[1]}`, metrics);
}
if (results.size === 0) fail('go test printed no benchmark results');

// The TinyGo build's files: make bench builds them (make build-tiny).
const tinyWasip1 = process.env.AGENTWASM_WASIP1_TINY || 'dist/agentwasm-wasip1.tiny.wasm';
for (const f of ['dist/agentwasm.tiny.wasm', 'dist/wasm_exec.tiny.js', tinyWasip1]) {
  if (!existsSync(f)) fail(`${f} is missing: run make build-tiny (make bench does)`);
}

// The wazero benchmarks again, against the TinyGo wasip1 module.
const tinyGoOut = await run(GO, ['test', '-run', '^$', '-bench', 'ChatTurn|ThousandTurns', '-benchmem', `-benchtime=${benchtime}`, './wazerotest/'],
  { AGENTWASM_WASIP1: tinyWasip1 });
const tinyResults = new Map();
for (const line of tinyGoOut.split('\n')) {
  const m = line.match(/^Benchmark(\S+?)(?:-\d+)?\s+\d+\s+(.*)$/);
  if (!m) continue;
  const metrics = {};
  for (const [, value, unit] of m[2].matchAll(/([\d.]+) (\S+)/g)) metrics[unit] = Number(value);
  tinyResults.set(`wazerotest/${m[1]}`, metrics);
}

/** The number a Node benchmark printed on the line matching re. */
function figure(out, script, re, what) {
  const m = out.match(re);
  if (!m) fail(`${script} printed no line for ${what}; update scripts/bench.mjs with its output`);
  return Number(m[1]);
}

// The Node benchmark, for each build (helpers.mjs loads AGENTWASM_VARIANT's).
async function chatBench(variant) {
  const out = await run(process.execPath, ['web/bench/chat.bench.mjs', String(turns)], { AGENTWASM_VARIANT: variant });
  const f = (re, what) => figure(out, 'web/bench/chat.bench.mjs', re, what);
  return {
    loadMs: f(/^load \(instantiate \+ start the Go runtime\): ([\d.]+) ms/m, 'the load'),
    turnUs: f(/^text turn, .*: ([\d.]+) µs\/turn/m, 'the text turn'),
    crossingUs: f(/^baseline, one JS→Go call .*: ([\d.]+) µs/m, 'the JS→Go call'),
    plainCallUs: f(/^baseline, the same call's JSON in plain JS: ([\d.]+) µs/m, 'the plain JS call'),
    plainUs: f(/^baseline, the same scripted Response read in plain JS: ([\d.]+) µs/m, 'the plain JS read'),
    whatsHereUs: f(/^port\.call\('bench\.whats_here'\): ([\d.]+) µs/m, 'port.call whats_here'),
    fireUs: f(/^port\.call\('bench\.do_action'\).*: ([\d.]+) µs/m, 'port.call do_action'),
  };
}
/** The load's baseline: the module instantiated, without starting Go, in a process of its own. */
async function instantiateMs(variant) {
  const out = await run(process.execPath, ['web/bench/chat.bench.mjs', '--instantiate-only'], { AGENTWASM_VARIANT: variant });
  return figure(out, 'web/bench/chat.bench.mjs', /^baseline, the module instantiated without starting its runtime: ([\d.]+) ms/m, 'the instantiation');
}
const node = { ...await chatBench('go'), instantiateMs: await instantiateMs('go') };
const nodeTiny = { ...await chatBench('tiny'), instantiateMs: await instantiateMs('tiny') };

// The measures of each build side by side, each in a fresh Node process.
async function variantBench(variant) {
  const out = await run(process.execPath, ['scripts/bench-variant.mjs', variant, String(turns)]);
  const f = (re, what) => figure(out, 'scripts/bench-variant.mjs', re, what);
  return {
    coldMs: f(/^cold start .*: ([\d.]+) ms/m, 'the cold start'),
    deltas: Object.fromEntries(['256 B', '64 KiB'].map((size) => {
      const re = new RegExp(`^deltas per second \\(.*, ${size} chunks\\): module (\\d+), plain JS (\\d+)`, 'm');
      const m = out.match(re);
      if (!m) fail(`scripts/bench-variant.mjs printed no line for deltas per second in ${size} chunks; update scripts/bench.mjs with its output`);
      return [size, { module: Number(m[1]), plain: Number(m[2]) }];
    })),
    fullUs: f(/^full scripted turn .*: ([\d.]+) µs/m, 'the full scripted turn'),
    wasmMB: f(/^memory after \d+ turns: wasm ([\d.]+) MB/m, 'the memory'),
    rssMB: f(/^memory after \d+ turns: .*process RSS ([\d.]+) MB/m, 'the RSS'),
  };
}
const variants = { go: await variantBench('go'), tiny: await variantBench('tiny') };
const peers = await peersBench();
for (const [name, v] of Object.entries(variants)) {
  for (const [size, r] of Object.entries(v.deltas)) {
    console.log(`bench: ${name} build, deltas per second through onEvent (${size} chunks): module ${Math.round(r.module)}, `
      + `plain JS ${Math.round(r.plain)}, ratio ${(r.plain / r.module).toFixed(2)}`);
  }
}

/** Raw and brotli (quality 11, as make size) bytes of a file. */
function sizes(file) {
  const raw = readFileSync(file);
  const brotli = brotliCompressSync(raw, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length },
  }).length;
  return { raw: raw.length, brotli };
}

// Formatting.
const int = (x) => Math.round(x).toLocaleString('en-US');
const dec = (x, d) => x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
const ns = (x) => (x >= 100 ? int(x) : dec(x, 1));
/** A duration in nanoseconds, in the unit that reads best. */
function duration(x) {
  if (x < 1e3) return `${ns(x)} ns`;
  if (x < 1e6) return `${x >= 1e5 ? int(x / 1e3) : dec(x / 1e3, 1)} µs`;
  if (x < 1e9) return `${dec(x / 1e6, x >= 1e7 ? 1 : 2)} ms`;
  return `${dec(x / 1e9, 2)} s`;
}
/** How many times a takes b: ×N for 10 and more, ×N.N from 1, two significant digits below 1. */
const ratio = (a, b) => {
  const r = a / b;
  if (r >= 10) return `×${int(r)}`;
  if (r >= 1) return `×${dec(r, 1)}`;
  return `×${r.toPrecision(2)}`;
};
/** Deltas per second of the module, with the plain-JS baseline's and their ratio beside it. */
const deltaFigure = (r) => `${int(r.module)} (plain JS ${int(r.plain)}, ×${dec(r.plain / r.module, 1)})`;
const used = new Set();
/** The metrics of one Go benchmark, which must have run. */
function bench(name) {
  const r = results.get(name);
  if (!r) fail(`no result for Benchmark ${name}; was it renamed? Update the tables of scripts/bench.mjs`);
  used.add(name);
  return r;
}
const table = (head, rows) => [
  `| ${head.join(' | ')} |`,
  `|${head.map(() => '---').join('|')}|`,
  ...rows.map((r) => `| ${r.join(' | ')} |`),
].join('\n');

const blocks = {
  machine: [
    `Figures of ${today} from one machine: ${machine}`,
    `(1-minute load average ${load} when the run began); Go benchmarks with \`-benchtime=${benchtime}\`,`,
    `the Node benchmarks over ${int(turns)} turns and calls. \`make bench\` regenerates them: it runs`,
    '`make build` and `make build-tiny`, then `node scripts/bench.mjs`, which runs every benchmark',
    'below and rewrites each figure between this file\'s `bench:` markers; the prose around them is',
    'written by hand.',
  ].join('\n'),
  sse: table(['case', 'ns/op', 'MB/s', 'B/op', 'allocs/op', 'baseline: the lines alone (`bufio.Scanner`), ns/op', 'ratio'], [
    ['LF line ends', 'bridge/SSEReader/lf', 'bridge/SSELines/lf'],
    ['CRLF', 'bridge/SSEReader/crlf', 'bridge/SSELines/crlf'],
    ['lone CR', 'bridge/SSEReader/cr', ''],
    ['16 × 64 KiB data lines', 'bridge/SSEReader/large_data', 'bridge/SSELines/large_data'],
  ].map(([label, name, baseline]) => {
    const r = bench(name);
    const base = baseline ? bench(baseline)['ns/op'] : 0;
    return [label, ns(r['ns/op']), dec(r['MB/s'], 1), int(r['B/op']), int(r['allocs/op']),
      base ? ns(base) : '— (`bufio.Scanner` knows no lone CR)', base ? ratio(r['ns/op'], base) : '—'];
  })),
  turn: (() => {
    const native = bench('session/ChatTurn');
    const nativeNs = native['ns/op'];
    const row = (host, command, r, note = '') => [host, command, `${duration(r['ns/op'])}, ${int(r['B/op'])} B, ${int(r['allocs/op'])} allocs${note}`,
      ratio(r['ns/op'], nativeNs)];
    return table(['host', 'command', 'per turn', 'against the native turn (the baseline)'], [
      [...row('native Go, stream served from memory', "`go test -run '^$' -bench ChatTurn -benchmem ./session/`", native).slice(0, 3), 'the baseline'],
      row('native Go, the same with an `OnEvent` observer', "`go test -run '^$' -bench ChatTurnObserved -benchmem ./session/`",
        bench('session/ChatTurnObserved')),
      row('native Go, the same turn as OpenAI chunks, through the direct transport', "`go test -run '^$' -bench ChatTurnDirect -benchmem ./session/`",
        bench('session/ChatTurnDirect')),
      row('wasip1 module under wazero, proxy served in-process', "`go test -run '^$' -bench ChatTurn -benchmem ./wazerotest/`",
        bench('wazerotest/ChatTurn'), ' (host side)'),
      ['js module in Node, scripted `fetchImpl` streaming 256 B chunks', `\`node web/bench/chat.bench.mjs ${turns}\``,
        duration(node.turnUs * 1e3), ratio(node.turnUs * 1e3, nativeNs)],
    ]);
  })(),
  node: table(['measure', 'figure', 'baseline', 'ratio'], [
    ['loading the js module in Node (instantiate + start the Go runtime)', duration(node.loadMs * 1e6),
      `${duration(node.instantiateMs * 1e6)}: the module instantiated alone, in a fresh process`, ratio(node.loadMs, node.instantiateMs)],
    ['one call from JavaScript into the module (`runtime.version()`)', duration(node.crossingUs * 1e3),
      `${duration(node.plainCallUs * 1e3)}: the call's JSON, out and back, in plain JavaScript`, ratio(node.crossingUs, node.plainCallUs)],
    ['one text turn in Node (the turn table\'s last row)', duration(node.turnUs * 1e3),
      `${duration(node.plainUs * 1e3)}: reading the same scripted \`Response\` in plain JavaScript`, ratio(node.turnUs, node.plainUs)],
  ]),
  serve: table(['case', 'ns/op', 'B/op', 'allocs/op'], [
    ['`Call` whats_here', 'serve/Call/whats_here'],
    ['`Call` an unknown tool (the refusal with the tool list)', 'serve/Call/unknown_tool'],
    ['`Call` do_action (a fire; its handler settles on its own goroutine)', 'serve/Call/do_action'],
    [`\`ToolsJSON\` (a copy of the ${int(bench('serve/ToolsJSON/ToolsJSON')['array-B'])}-byte array)`, 'serve/ToolsJSON/ToolsJSON'],
    ['`NewPort` (the tool array built once)', 'serve/ToolsJSON/NewPort'],
  ].map(([label, name]) => {
    const r = bench(name);
    return [label, ns(r['ns/op']), int(r['B/op']), int(r['allocs/op'])];
  })),
  variants: (() => {
    const size = (f) => { const z = sizes(f); return `${int(z.raw)} B raw, ${int(z.brotli)} B brotli`; };
    const wz = (results, name) => {
      const r = results.get(name);
      if (!r) fail(`no result for Benchmark ${name}; was it renamed? Update the tables of scripts/bench.mjs`);
      return r;
    };
    const goTurn = bench('wazerotest/ChatTurn');
    const goThousand = bench('wazerotest/ThousandTurns');
    const tinyTurn = wz(tinyResults, 'wazerotest/ChatTurn');
    const tinyThousand = wz(tinyResults, 'wazerotest/ThousandTurns');
    const [g, t] = [variants.go, variants.tiny];
    const sz = { go: sizes('dist/agentwasm.wasm'), tiny: sizes('dist/agentwasm.tiny.wasm') };
    const sizeText = (z) => `${int(z.raw)} B raw, ${int(z.brotli)} B brotli`;
    // Each row: the measure, the Go build's figure and TinyGo's, and the two numbers their ratio is of.
    const rows = [
      ['the js module (as `make size` measures it; the ratio is of the brotli bytes)', sizeText(sz.go), sizeText(sz.tiny), sz.go.brotli, sz.tiny.brotli],
      ['cold start in Node: load, then the first session\'s first text turn', duration(g.coldMs * 1e6), duration(t.coldMs * 1e6), g.coldMs, t.coldMs],
      ['loading the js module in Node (instantiate + start the runtime)', duration(node.loadMs * 1e6), duration(nodeTiny.loadMs * 1e6), node.loadMs, nodeTiny.loadMs],
      ['one text turn in Node (50 deltas)', duration(node.turnUs * 1e3), duration(nodeTiny.turnUs * 1e3), node.turnUs, nodeTiny.turnUs],
      ...['256 B', '64 KiB'].map((size) => [
        `deltas per second through \`onEvent\` in Node (an answer of 10,000 deltas, a session's second turn, ${size} chunks), with the plain-JS baseline on the same bytes and how many times faster it is`,
        deltaFigure(g.deltas[size]), deltaFigure(t.deltas[size]), g.deltas[size].module, t.deltas[size].module]),
      ['a full scripted turn in Node (a page tool call, its result, the answer)', duration(g.fullUs * 1e3), duration(t.fullUs * 1e3), g.fullUs, t.fullUs],
      ['one call from JavaScript into the module (`runtime.version()`)', duration(node.crossingUs * 1e3), duration(nodeTiny.crossingUs * 1e3), node.crossingUs, nodeTiny.crossingUs],
      ["`port.call('bench.whats_here')` in Node", duration(node.whatsHereUs * 1e3), duration(nodeTiny.whatsHereUs * 1e3), node.whatsHereUs, nodeTiny.whatsHereUs],
      [`wasm memory after ${int(turns)} text turns in Node (the process's RSS; the ratio is of the wasm memory)`, `${dec(g.wasmMB, 1)} MB (${dec(g.rssMB, 0)} MB)`,
        `${dec(t.wasmMB, 1)} MB (${dec(t.rssMB, 0)} MB)`, g.wasmMB, t.wasmMB],
      ['one text turn of the wasip1 module under wazero (host side)', duration(goTurn['ns/op']), duration(tinyTurn['ns/op']), goTurn['ns/op'], tinyTurn['ns/op']],
      ['wasm memory after 1,000 text turns under wazero (wasip1; their time; the ratio is of the memory)', `${dec(goThousand['wasm-MB'], 1)} MB (${duration(goThousand['ns/op'])})`,
        `${dec(tinyThousand['wasm-MB'], 1)} MB (${duration(tinyThousand['ns/op'])})`, goThousand['wasm-MB'], tinyThousand['wasm-MB']],
    ];
    return table(['measure', 'Go build (the baseline)', 'TinyGo build', 'TinyGo ÷ Go'],
      rows.map(([label, goText, tinyText, goNum, tinyNum]) => [label, goText, tinyText, ratio(tinyNum, goNum)]));
  })(),
  'port-js': table(['call', 'per call', 'baseline: the same call natively in Go (`go test -bench CallOneAction ./serve/`)', 'ratio'], [
    ["`port.call('bench.whats_here')`", node.whatsHereUs, 'serve/CallOneAction/whats_here'],
    ["`port.call('bench.do_action')` through the JS handler", node.fireUs, 'serve/CallOneAction/do_action'],
  ].map(([label, us, name]) => {
    const base = bench(name)['ns/op'];
    return [label, duration(us * 1e3), duration(base), ratio(us * 1e3, base)];
  })),
  peers,
  wazero: (() => {
    const cold = bench('wazerotest/Compile/no-cache')['ns/op'];
    return table(['compiling the wasip1 module under wazero', 'per compilation', 'against no cache (the baseline)'], [
      ['no cache (every process before the harness kept one on disk)', duration(cold), 'the baseline'],
      ['from the cache directory a previous process filled (a second process)', duration(bench('wazerotest/Compile/disk-cache')['ns/op']),
        ratio(bench('wazerotest/Compile/disk-cache')['ns/op'], cold)],
      ['from the process\'s own in-memory cache', duration(bench('wazerotest/Compile/memory-cache')['ns/op']),
        ratio(bench('wazerotest/Compile/memory-cache')['ns/op'], cold)],
    ]);
  })(),
};
const others = [...results.keys()].filter((k) => !used.has(k));
blocks.other = others.length === 0
  ? 'None: every benchmark of the packages above has its table.'
  : table(['benchmark', 'ns/op', 'B/op', 'allocs/op'], others.map((k) => {
    const r = results.get(k);
    return [`\`${k}\``, ns(r['ns/op']), r['B/op'] === undefined ? '—' : int(r['B/op']), r['allocs/op'] === undefined ? '—' : int(r['allocs/op'])];
  }));

writeBlocks(blocks);
console.log(`bench: the figures in ${file} are up to date (${machine})`);
