// How wasm-opt's optimization levels change a module's download: for each
// module given, its raw and brotli (quality 11) bytes as built and after
// `wasm-opt -O2`, `-Os` and `-Oz`, each with the features Go's and TinyGo's
// modules use. `make size-opt` runs it on the modules as their compilers
// wrote them and, with --doc FILE, rewrites the table between FILE's
// `<!-- wasmopt:begin -->` and `<!-- wasmopt:end -->` lines (the Makefile
// passes docs/SIZE.md); the Makefile runs wasm-opt only where a level makes
// the brotli bytes smaller (docs/SIZE.md says which).
//
//   node scripts/wasmopt.mjs [--doc docs/SIZE.md] LABEL=FILE...
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, constants } from 'node:zlib';

const args = process.argv.slice(2);
let doc = '';
const di = args.indexOf('--doc');
if (di !== -1) doc = args.splice(di, 2)[1];
if (args.length === 0) {
  console.error('usage: node scripts/wasmopt.mjs [--doc docs/SIZE.md] LABEL=FILE...');
  process.exit(2);
}
const wasmOpt = process.env.WASM_OPT || 'wasm-opt';
const features = ['--enable-bulk-memory', '--enable-sign-ext', '--enable-nontrapping-float-to-int'];
const levels = ['', '-O2', '-Os', '-Oz'];

const brotli = (b) => brotliCompressSync(b, {
  params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: b.length },
}).length;

const tmp = mkdtempSync(path.join(tmpdir(), 'agentwasm-wasmopt-'));
const rows = [];
try {
  for (const arg of args) {
    const eq = arg.indexOf('=');
    const [label, file] = eq === -1 ? [arg, arg] : [arg.slice(0, eq), arg.slice(eq + 1)];
    const row = { label, cells: [] };
    for (const level of levels) {
      let bytes = readFileSync(file);
      if (level) {
        const out = path.join(tmp, 'out.wasm');
        execFileSync(wasmOpt, [level, ...features, file, '-o', out], { stdio: ['ignore', 'ignore', 'inherit'] });
        bytes = readFileSync(out);
      }
      row.cells.push({ level: level || 'none', raw: bytes.length, brotli: brotli(bytes) });
    }
    const best = row.cells.reduce((a, b) => (b.brotli < a.brotli ? b : a));
    row.best = best.level;
    rows.push(row);
    console.log(label.padEnd(28), row.cells.map((c) => `${c.level} ${c.raw}/${c.brotli}`).join('  '), ` smallest brotli: ${row.best}`);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

if (doc) {
  const text = readFileSync(doc, 'utf8');
  const begin = '<!-- wasmopt:begin -->\n';
  const end = '<!-- wasmopt:end -->';
  const a = text.indexOf(begin);
  const b = text.indexOf(end, a);
  if (a === -1 || b === -1) {
    console.error(`wasmopt: ${doc} has no ${begin.trim()} … ${end} block`);
    process.exit(1);
  }
  const n = (x) => x.toLocaleString('en-US');
  const table = [
    `| module (raw B / brotli B) | ${levels.map((l) => (l ? `\`wasm-opt ${l}\`` : 'as compiled')).join(' | ')} | smallest brotli |`,
    `|---|${levels.map(() => '---').join('|')}|---|`,
    ...rows.map((r) => `| ${r.label} | ${r.cells.map((c) => `${n(c.raw)} / ${n(c.brotli)}`).join(' | ')} | ${r.best === 'none' ? 'as compiled' : `\`${r.best}\``} |`),
  ];
  writeFileSync(doc, text.slice(0, a + begin.length) + table.join('\n') + '\n' + text.slice(b));
  console.log(`wasmopt: the table in ${doc} is up to date`);
}
