// compress.mjs — writes the precompressed twins `agentwasm dev` serves to
// browsers that accept them: FILE.br (brotli, quality 11) and FILE.gz
// (gzip, level 9) beside each FILE named on the command line, through
// Node's zlib (no other tool needed).
//
//   node scripts/compress.mjs dist/agentwasm.wasm dist/agentwasm.mjs dist/wasm_exec.js
import { readFile, writeFile } from 'node:fs/promises';
import { brotliCompressSync, gzipSync, constants } from 'node:zlib';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node scripts/compress.mjs FILE…');
  process.exit(2);
}
for (const file of files) {
  const raw = await readFile(file);
  const br = brotliCompressSync(raw, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length },
  });
  const gz = gzipSync(raw, { level: 9 });
  await writeFile(`${file}.br`, br);
  await writeFile(`${file}.gz`, gz);
  console.log(`${file}: ${raw.length} B, brotli ${br.length} B, gzip ${gz.length} B`);
}
