// Runs the Go benchmarks and the Node benchmark and writes their figures
// into BENCHMARKS.md: `make bench` (after `make build` and `make build-tiny`,
// whose modules the Node benchmarks and the wasip1 benchmarks load from
// dist/). The TinyGo build is measured beside the Go build where it can be:
// its size, the Node benchmark with AGENTWASM_VARIANT=tiny,
// scripts/bench-variant.mjs for both builds (cold start, deltas per second,
// a full scripted turn, memory after 1,000 turns), and the wazero benchmarks
// against AGENTWASM_WASIP1_TINY.
//
//   node scripts/bench.mjs [--benchtime 500ms] [--turns 1000] [--file BENCHMARKS.md]
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

/** Runs a command, echoing its output, and resolves with its stdout. */
function run(cmd, argv, env = {}) {
  console.log(`bench: ${cmd} ${argv.join(' ')}`);
  return new Promise((resolve) => {
    const child = spawn(cmd, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      process.stdout.write(chunk);
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
    plainUs: f(/^baseline, the same scripted Response read in plain JS: ([\d.]+) µs/m, 'the plain JS read'),
    whatsHereUs: f(/^port\.call\('bench\.whats_here'\): ([\d.]+) µs/m, 'port.call whats_here'),
    fireUs: f(/^port\.call\('bench\.do_action'\).*: ([\d.]+) µs/m, 'port.call do_action'),
  };
}
const node = await chatBench('go');
const nodeTiny = await chatBench('tiny');

// The measures of each build side by side, each in a fresh Node process.
async function variantBench(variant) {
  const out = await run(process.execPath, ['scripts/bench-variant.mjs', variant, String(turns)]);
  const f = (re, what) => figure(out, 'scripts/bench-variant.mjs', re, what);
  return {
    coldMs: f(/^cold start .*: ([\d.]+) ms/m, 'the cold start'),
    deltasPerSecond: f(/^deltas per second .*: (\d+)/m, 'deltas per second'),
    fullUs: f(/^full scripted turn .*: ([\d.]+) µs/m, 'the full scripted turn'),
    wasmMB: f(/^memory after \d+ turns: wasm ([\d.]+) MB/m, 'the memory'),
    rssMB: f(/^memory after \d+ turns: .*process RSS ([\d.]+) MB/m, 'the RSS'),
  };
}
const variants = { go: await variantBench('go'), tiny: await variantBench('tiny') };

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
  sse: table(['case', 'ns/op', 'MB/s', 'B/op', 'allocs/op'], [
    ['LF line ends', 'bridge/SSEReader/lf'],
    ['CRLF', 'bridge/SSEReader/crlf'],
    ['lone CR', 'bridge/SSEReader/cr'],
    ['16 × 64 KiB data lines', 'bridge/SSEReader/large_data'],
  ].map(([label, name]) => {
    const r = bench(name);
    return [label, ns(r['ns/op']), dec(r['MB/s'], 1), int(r['B/op']), int(r['allocs/op'])];
  })),
  turn: table(['host', 'command', 'per turn'], [
    (() => {
      const r = bench('session/ChatTurn');
      return ['native Go, stream served from memory', "`go test -run '^$' -bench ChatTurn -benchmem ./session/`",
        `${duration(r['ns/op'])}, ${int(r['B/op'])} B, ${int(r['allocs/op'])} allocs`];
    })(),
    (() => {
      const r = bench('wazerotest/ChatTurn');
      return ['wasip1 module under wazero, proxy served in-process', "`go test -run '^$' -bench ChatTurn -benchmem ./wazerotest/`",
        `${duration(r['ns/op'])}, ${int(r['B/op'])} B, ${int(r['allocs/op'])} allocs (host side)`];
    })(),
    ['js module in Node, scripted `fetchImpl` streaming 256 B chunks', `\`node web/bench/chat.bench.mjs ${turns}\``,
      duration(node.turnUs * 1e3)],
  ]),
  node: table(['measure', 'figure'], [
    ['loading the js module in Node (instantiate + start the Go runtime)', duration(node.loadMs * 1e6)],
    ['one call from JavaScript into the module (`runtime.version()`)', duration(node.crossingUs * 1e3)],
    ['reading the same scripted `Response` in plain JavaScript', duration(node.plainUs * 1e3)],
  ]),
  serve: table(['case', 'ns/op', 'B/op', 'allocs/op'], [
    ['`Call` whats_here', 'serve/Call/whats_here'],
    ['`Call` an unknown tool (the refusal with the tool list)', 'serve/Call/unknown_tool'],
    ['`Call` do_action (a fire; its handler settles on its own goroutine)', 'serve/Call/do_action'],
    ['`ToolsJSON` (a copy of the 64,590-byte array)', 'serve/ToolsJSON/ToolsJSON'],
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
    return table(['measure', 'Go build', 'TinyGo build'], [
      ['the js module (after `wasm-opt -Oz`)', size('dist/agentwasm.wasm'), size('dist/agentwasm.tiny.wasm')],
      ['cold start in Node: load, then the first session\'s first text turn', duration(g.coldMs * 1e6), duration(t.coldMs * 1e6)],
      ['loading the js module in Node (instantiate + start the runtime)', duration(node.loadMs * 1e6), duration(nodeTiny.loadMs * 1e6)],
      ['one text turn in Node (50 deltas)', duration(node.turnUs * 1e3), duration(nodeTiny.turnUs * 1e3)],
      ['deltas per second in Node (one turn of 10,000 deltas)', int(g.deltasPerSecond), int(t.deltasPerSecond)],
      ['a full scripted turn in Node (a page tool call, its result, the answer)', duration(g.fullUs * 1e3), duration(t.fullUs * 1e3)],
      ['one call from JavaScript into the module (`runtime.version()`)', duration(node.crossingUs * 1e3), duration(nodeTiny.crossingUs * 1e3)],
      ["`port.call('bench.whats_here')` in Node", duration(node.whatsHereUs * 1e3), duration(nodeTiny.whatsHereUs * 1e3)],
      [`wasm memory after ${int(turns)} text turns in Node (the process's RSS)`, `${dec(g.wasmMB, 1)} MB (${dec(g.rssMB, 0)} MB)`,
        `${dec(t.wasmMB, 1)} MB (${dec(t.rssMB, 0)} MB)`],
      ['one text turn of the wasip1 module under wazero (host side)', duration(goTurn['ns/op']), duration(tinyTurn['ns/op'])],
      ['wasm memory after 1,000 text turns under wazero (wasip1; their time)', `${dec(goThousand['wasm-MB'], 1)} MB (${duration(goThousand['ns/op'])})`,
        `${dec(tinyThousand['wasm-MB'], 1)} MB (${duration(tinyThousand['ns/op'])})`],
    ]);
  })(),
  'port-js': table(['call', 'per call'], [
    ["`port.call('bench.whats_here')`", duration(node.whatsHereUs * 1e3)],
    ["`port.call('bench.do_action')` through the JS handler", duration(node.fireUs * 1e3)],
  ]),
};
const others = [...results.keys()].filter((k) => !used.has(k));
blocks.other = others.length === 0
  ? 'None: every benchmark of the packages above has its table.'
  : table(['benchmark', 'ns/op', 'B/op', 'allocs/op'], others.map((k) => {
    const r = results.get(k);
    return [`\`${k}\``, ns(r['ns/op']), r['B/op'] === undefined ? '—' : int(r['B/op']), r['allocs/op'] === undefined ? '—' : int(r['allocs/op'])];
  }));

// Rewrite the blocks.
let text = readFileSync(file, 'utf8');
for (const [name, content] of Object.entries(blocks)) {
  const begin = `<!-- bench:begin ${name} -->\n`;
  const end = `<!-- bench:end ${name} -->`;
  const a = text.indexOf(begin);
  const b = text.indexOf(end, a);
  if (a === -1 || b === -1) fail(`${file} has no ${begin.trim()} … ${end} block; add one where the figures belong`);
  text = text.slice(0, a + begin.length) + content + '\n' + text.slice(b);
}
writeFileSync(file, text);
console.log(`bench: the figures in ${file} are up to date (${machine})`);
