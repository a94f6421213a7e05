// Prints the raw, gzip (level 9) and brotli (quality 11) sizes of the files
// given, with Node's own zlib so no extra tool is needed: `make size`.
import { readFileSync } from 'node:fs';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';

const rows = process.argv.slice(2).map((file) => {
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
