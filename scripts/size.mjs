// Prints the raw, gzip (level 9) and brotli (quality 11) sizes of the files
// given, with Node's own zlib so no extra tool is needed: `make size` (the
// Go toolchain's three modules and TinyGo's two, *.tiny.wasm).
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
const args = process.argv.slice(2);
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
const rows = args.map((file) => {
  const raw = readFileSync(file);
  const gzip = gzipSync(raw, { level: 9 }).length;
  const brotli = brotliCompressSync(raw, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length },
  }).length;
  return { file, raw: raw.length, gzip, brotli };
});
const mb = (n) => (n / 1e6).toFixed(2) + ' MB';
console.log('file'.padEnd(32), 'raw'.padStart(18), 'gzip -9'.padStart(18), 'brotli 11'.padStart(18));
for (const r of rows) {
  console.log(r.file.padEnd(32), `${r.raw} (${mb(r.raw)})`.padStart(18), `${r.gzip} (${mb(r.gzip)})`.padStart(18), `${r.brotli} (${mb(r.brotli)})`.padStart(18));
}
const n = (x) => x.toLocaleString('en-US');
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
for (const doc of docs) {
  const { readFileSync: read, writeFileSync } = await import('node:fs');
  let text = read(doc, 'utf8');
  for (const [name, value] of Object.entries(costText)) {
    text = text.replace(new RegExp(`(<!-- cost:${name} -->).*?(<!-- /cost -->)`, 'g'), `$1${value}$2`);
  }
  const begin = '<!-- size:begin -->\n';
  const end = '<!-- size:end -->';
  const a = text.indexOf(begin);
  const b = text.indexOf(end, a);
  if (a === -1 || b === -1) {
    if (docs.length > 1 && costs.length > 0) {
      writeFileSync(doc, text);
      console.log(`size: the costs in ${doc} are up to date`);
      continue;
    }
    console.error(`size: ${doc} has no ${begin.trim()} … ${end} block`);
    process.exit(1);
  }
  const notes = {
    'dist/agentwasm.wasm': ' (js, session + port)',
    'dist/agentwasm-session.wasm': ' (js, session only)',
    'dist/agentwasm-session-nodirect.wasm': ' (js, session only, without the direct transport)',
    'dist/agentwasm.tiny.wasm': ' (js, TinyGo, after `wasm-opt -Oz`)',
    'dist/agentwasm-wasip1.tiny.wasm': ' (TinyGo)',
  };
  const table = ['| module | raw | gzip | brotli |', '|---|---|---|---|',
    ...rows.map((r) => `| \`${r.file}\`${notes[r.file] ?? ''} | ${n(r.raw)} B (${mb(r.raw)}) | ${n(r.gzip)} B (${mb(r.gzip)}) | ${n(r.brotli)} B (${mb(r.brotli)}) |`)];
  writeFileSync(doc, text.slice(0, a + begin.length) + table.join('\n') + '\n' + text.slice(b));
  console.log(`size: the table in ${doc} is up to date`);
}
let over = false;
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
