// Prints the raw, gzip (level 9) and brotli (quality 11) sizes of the files
// given, with Node's own zlib so no extra tool is needed: `make size` (the
// Go toolchain's three modules and TinyGo's, *.tiny.wasm), and the page sets:
// what a page downloads.
import { readFileSync } from 'node:fs';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';

// --budget FILE:RAW:BROTLI fails (exit 1) when FILE is larger than either
// bound in bytes; `make test` checks the js module against its budget.
// --doc FILE rewrites the table between FILE's `<!-- size:begin -->` and
// `<!-- size:end -->` lines with these figures (`make size` does it for
// docs/SIZE.md), so the document's figures are never typed by hand; it may
// be given more than once, and a file without that block keeps its text
// apart from the costs below.
// --cost NAME=WITH:WITHOUT states what a part costs: the brotli bytes of WITH
// less those of WITHOUT (both measured here), written into every
// `<!-- cost:NAME -->…<!-- /cost -->` span of each --doc file.
// --pageset NAME=FILE+FILE+…[:BUDGET] is what a page downloads: the loader,
// the runtime script (wasm_exec) and the module, each brotli-compressed on
// its own as a server sends it. It prints each file's brotli bytes and their
// sum, and with a BUDGET fails (exit 1) when the sum is over it, saying by
// how much. --goal NAME=BYTES states a page set's goal: the sum is reported
// as within it or missing it by so many bytes, and never fails. A --doc file
// with a `<!-- pageset:begin -->` … `<!-- pageset:end -->` block gets the
// page sets' table there (each set then names three files: loader, runtime
// script, module).
// A bad argument exits 2, saying which.
const args = process.argv.slice(2);

/** Exits 2 for a bad command line, saying what is wrong. */
function badArgument(message) {
  console.error(`size: ${message}`);
  process.exit(2);
}
const docs = [];
for (let i = args.indexOf('--doc'); i !== -1; i = args.indexOf('--doc')) docs.push(args.splice(i, 2)[1]);
const costs = [];
for (let i = args.indexOf('--cost'); i !== -1; i = args.indexOf('--cost')) {
  const [name, files] = args.splice(i, 2)[1].split('=');
  const [withFile, withoutFile] = files.split(':');
  costs.push({ name, withFile, withoutFile });
}
const budgets = [];
for (let i = args.indexOf('--budget'); i !== -1; i = args.indexOf('--budget')) {
  const [file, raw, brotli] = args.splice(i, 2)[1].split(':');
  budgets.push({ file, raw: Number(raw), brotli: Number(brotli) });
}
const pagesets = [];
for (let i = args.indexOf('--pageset'); i !== -1; i = args.indexOf('--pageset')) {
  const spec = args.splice(i, 2)[1] ?? '';
  const m = /^([\w.-]+)=([^+:]+(?:\+[^+:]+)*)(?::(\d+))?$/.exec(spec);
  if (!m) badArgument(`--pageset takes NAME=FILE+FILE+…[:BUDGET] (BUDGET in bytes), not ${JSON.stringify(spec)}`);
  if (pagesets.some((p) => p.name === m[1])) badArgument(`two page sets are named ${m[1]}`);
  pagesets.push({ name: m[1], files: m[2].split('+'), budget: m[3] === undefined ? undefined : Number(m[3]) });
}
const goals = new Map();
for (let i = args.indexOf('--goal'); i !== -1; i = args.indexOf('--goal')) {
  const spec = args.splice(i, 2)[1] ?? '';
  const m = /^([\w.-]+)=(\d+)$/.exec(spec);
  if (!m) badArgument(`--goal takes NAME=BYTES, not ${JSON.stringify(spec)}`);
  goals.set(m[1], Number(m[2]));
}
for (const name of goals.keys()) {
  if (!pagesets.some((p) => p.name === name)) badArgument(`--goal ${name} names no --pageset`);
}
const unknown = args.find((a) => a.startsWith('--'));
if (unknown) badArgument(`unknown flag ${unknown}`);

/** Raw, gzip and brotli bytes of each file, measured once. */
const measured = new Map();
function measure(file) {
  if (!measured.has(file)) {
    let raw;
    try {
      raw = readFileSync(file);
    } catch (err) {
      console.error(`size: cannot read ${file}: ${err.message} (build it first: make build, make build-tiny)`);
      process.exit(1);
    }
    const gzip = gzipSync(raw, { level: 9 }).length;
    const brotli = brotliCompressSync(raw, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length },
    }).length;
    measured.set(file, { file, raw: raw.length, gzip, brotli });
  }
  return measured.get(file);
}
const rows = args.map(measure);
const mb = (n) => (n / 1e6).toFixed(2) + ' MB';
if (rows.length > 0) console.log('file'.padEnd(32), 'raw'.padStart(18), 'gzip -9'.padStart(18), 'brotli 11'.padStart(18));
for (const r of rows) {
  console.log(r.file.padEnd(32), `${r.raw} (${mb(r.raw)})`.padStart(18), `${r.gzip} (${mb(r.gzip)})`.padStart(18), `${r.brotli} (${mb(r.brotli)})`.padStart(18));
}
const n = (x) => x.toLocaleString('en-US');
for (const p of pagesets) {
  p.parts = p.files.map((file) => measure(file).brotli);
  p.total = p.parts.reduce((a, b) => a + b, 0);
  p.goal = goals.get(p.name);
  console.log(`size: page set ${p.name}: ${p.parts.map(n).join(' + ')} = ${n(p.total)} B brotli (${p.files.join(' + ')})`);
}
/** What a page set's sum is against its goal, as a predicate. */
const againstGoal = (p) => (p.total <= p.goal
  ? `is within its goal of ${n(p.goal)} B (${n(p.goal - p.total)} B to spare)`
  : `misses its goal of ${n(p.goal)} B by ${n(p.total - p.goal)} B`);
for (const p of pagesets) {
  if (p.goal !== undefined) console.log(`size: page set ${p.name} ${againstGoal(p)}`);
}
const costText = {};
for (const c of costs) {
  const w = rows.find((r) => r.file === c.withFile);
  const wo = rows.find((r) => r.file === c.withoutFile);
  if (!w || !wo) {
    console.error(`size: --cost ${c.name} needs ${c.withFile} and ${c.withoutFile} measured`);
    process.exit(1);
  }
  costText[c.name] = `${n(w.brotli - wo.brotli)} B`;
  console.log(`size: ${c.name} costs ${costText[c.name]} brotli (${c.withFile} less ${c.withoutFile})`);
}
/** The page sets' table: variant, loader, runtime script, module, total, goal. */
function pagesetTable() {
  const odd = pagesets.find((p) => p.files.length !== 3);
  if (odd) {
    console.error(`size: the page-set table wants three files a set (loader+runtime script+module); ${odd.name} has ${odd.files.length}`);
    process.exit(2);
  }
  const cell = (p, i) => `${n(p.parts[i])} B (\`${p.files[i].replace(/^.*\//, '')}\`)`;
  const goal = (p) => {
    if (p.goal === undefined) return '—';
    return p.total <= p.goal ? `${n(p.goal)} B: within, ${n(p.goal - p.total)} B to spare` : `${n(p.goal)} B: misses by ${n(p.total - p.goal)} B`;
  };
  return ['| variant | loader | runtime script | module | total | goal |', '|---|---|---|---|---|---|',
    ...pagesets.map((p) => `| \`${p.name}\` | ${cell(p, 0)} | ${cell(p, 1)} | ${cell(p, 2)} | **${n(p.total)} B** | ${goal(p)} |`)].join('\n');
}
let pagesetDocs = 0;
for (const doc of docs) {
  const { readFileSync: read, writeFileSync } = await import('node:fs');
  let text = read(doc, 'utf8');
  for (const [name, value] of Object.entries(costText)) {
    text = text.replace(new RegExp(`(<!-- cost:${name} -->).*?(<!-- /cost -->)`, 'g'), `$1${value}$2`);
  }
  let hasPagesets = false;
  if (pagesets.length > 0) {
    const pBegin = '<!-- pageset:begin -->\n';
    const pa = text.indexOf(pBegin);
    const pb = text.indexOf('<!-- pageset:end -->', pa);
    if (pa !== -1 && pb !== -1) {
      text = text.slice(0, pa + pBegin.length) + pagesetTable() + '\n' + text.slice(pb);
      pagesetDocs++;
      hasPagesets = true;
      console.log(`size: the page-set table in ${doc} is up to date`);
    }
  }
  const begin = '<!-- size:begin -->\n';
  const end = '<!-- size:end -->';
  const a = text.indexOf(begin);
  const b = text.indexOf(end, a);
  if (a === -1 || b === -1 || rows.length === 0) {
    // A doc of page sets alone, or of the costs alone (beside another doc with the table).
    if ((docs.length > 1 && costs.length > 0) || hasPagesets) {
      writeFileSync(doc, text);
      if (costs.length > 0) console.log(`size: the costs in ${doc} are up to date`);
      continue;
    }
    const alt = pagesets.length > 0 ? ' (nor a <!-- pageset:begin --> … <!-- pageset:end --> block)' : '';
    console.error(`size: ${doc} has no ${begin.trim()} … ${end} block${alt}`);
    process.exit(1);
  }
  const notes = {
    'dist/agentwasm.wasm': ' (js, session + port)',
    'dist/agentwasm-session.wasm': ' (js, session only)',
    'dist/agentwasm-session-nodirect.wasm': ' (js, session only, without the direct transport)',
    'dist/agentwasm.tiny.wasm': ' (js, TinyGo, after `wasm-opt -Oz`)',
    'dist/agentwasm-session.tiny.wasm': ' (js, TinyGo, session only, after `wasm-opt -Oz`)',
    'dist/agentwasm-wasip1.tiny.wasm': ' (TinyGo)',
  };
  const table = ['| module | raw | gzip | brotli |', '|---|---|---|---|',
    ...rows.map((r) => `| \`${r.file}\`${notes[r.file] ?? ''} | ${n(r.raw)} B (${mb(r.raw)}) | ${n(r.gzip)} B (${mb(r.gzip)}) | ${n(r.brotli)} B (${mb(r.brotli)}) |`)];
  writeFileSync(doc, text.slice(0, a + begin.length) + table.join('\n') + '\n' + text.slice(b));
  console.log(`size: the table in ${doc} is up to date`);
}
if (docs.length > 0 && pagesets.length > 0 && pagesetDocs === 0) {
  console.error(`size: page sets were measured but no --doc has a <!-- pageset:begin --> … <!-- pageset:end --> block (${docs.join(', ')})`);
  process.exit(1);
}
let over = false;
for (const p of pagesets) {
  if (p.budget === undefined) continue;
  if (p.total > p.budget) {
    console.error(`size: page set ${p.name} is over its budget of ${n(p.budget)} B by ${n(p.total - p.budget)} B brotli (${p.files.join(' + ')})`);
    over = true;
  } else {
    console.log(`size: page set ${p.name} is within its budget of ${n(p.budget)} B (${n(p.budget - p.total)} B to spare)`);
  }
}
for (const b of budgets) {
  const r = rows.find((x) => x.file === b.file);
  if (!r) {
    console.error(`size: ${b.file} has a budget but was not measured`);
    over = true;
  } else if (r.raw > b.raw || r.brotli > b.brotli) {
    console.error(`size: ${b.file} is over its budget of ${b.raw} B raw and ${b.brotli} B brotli`);
    over = true;
  } else {
    console.log(`size: ${b.file} is within its budget (${b.raw - r.raw} B raw and ${b.brotli - r.brotli} B brotli to spare)`);
  }
}
process.exit(over ? 1 : 0);
