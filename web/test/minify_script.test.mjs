// scripts/minify.mjs, which writes the minified loader and wasm_exec scripts
// of dist/ and the package: on temporary sources, the output keeps a license
// notice at its head and the bundler hints of each dynamic import, ends with
// a sourceMappingURL comment, and its source map leads each generated name
// back to its place in the source, also after a put-back hint; a source whose
// dynamic import has no hints is refused. And the map arithmetic alone.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { IMPORT_HINTS, restoreImportHints, shiftMappings } from '../../scripts/minify.mjs';

const run = promisify(execFile);
const script = fileURLToPath(new URL('../../scripts/minify.mjs', import.meta.url));

let dir;

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'agentwasm-minify-'));
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs minify.mjs; resolves with {code, stdout, stderr} whether it fails or not. */
async function minify(...args) {
  try {
    const { stdout, stderr } = await run(process.execPath, [script, ...args], { cwd: dir });
    return { code: 0, stdout, stderr };
  } catch (err) {
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

/**
 * Where in the source the map leads from the first `needle` in the output: from its end, or with
 * start, from its start.
 */
function origin(code, map, needle, start = false) {
  const at = code.indexOf(needle);
  assert.ok(at >= 0, `${needle} in the output`);
  const before = code.slice(0, start ? at : at + needle.length);
  const line = before.split('\n').length - 1;
  const column = before.length - (before.lastIndexOf('\n') + 1);
  const entry = new SourceMap(map).findEntry(line, column);
  return map.sourcesContent[0].split('\n')[entry.originalLine].slice(entry.originalColumn);
}

test('an ES module keeps its hints, its import.meta.url forms, and a map that leads back', async () => {
  const source = `// A loader-like module with a long comment that does not name a licence.
export const here = import.meta.url;
export const wasmUrl = new URL('./thing.wasm', import.meta.url);

/** Imports a script at run time. */
export async function runScript(scriptUrl) {
  const longLocalName = String(scriptUrl);
  await import(/* webpackIgnore: true */ /* @vite-ignore */ longLocalName);
  return globalThis.fromScript;
}

export function after() {
  const anotherLongName = 'after the import';
  return anotherLongName;
}
`;
  await writeFile(path.join(dir, 'loader.mjs'), source);
  await writeFile(path.join(dir, 'side.js'), 'globalThis.fromScript = 42;\n');
  const out = await minify('--source-name', 'web/loader.mjs', 'loader.mjs', 'loader.min.mjs');
  assert.equal(out.code, 0, out.stderr);
  const code = await readFile(path.join(dir, 'loader.min.mjs'), 'utf8');
  const map = JSON.parse(await readFile(path.join(dir, 'loader.min.mjs.map'), 'utf8'));

  assert.ok(code.length < source.length * 0.7, `minified: ${code.length} B of ${source.length}`);
  assert.doesNotMatch(code, /A loader-like module/, 'a comment that is no license notice goes');
  assert.ok(code.endsWith('\n//# sourceMappingURL=loader.min.mjs.map\n'), code);
  assert.match(code, /new URL\("\.\/thing\.wasm",import\.meta\.url\)/);
  assert.equal(code.split(`import(${IMPORT_HINTS}`).length - 1, 1, code);
  assert.deepEqual(map.sources, ['web/loader.mjs']);
  assert.equal(map.sourcesContent[0], source);
  assert.equal(map.file, 'loader.min.mjs');

  // The map: the imported name (just after the put-back hints) and a name after it on the same line.
  assert.match(origin(code, map, IMPORT_HINTS), /^(?:longLocalName\)|String\(scriptUrl\));/, 'esbuild may inline the local');
  assert.match(origin(code, map, '"after the import"', true), /^'after the import'/);

  // And it runs: the import of the side script resolves.
  const { runScript } = await import(pathToFileURL(path.join(dir, 'loader.min.mjs')).href);
  assert.equal(await runScript(pathToFileURL(path.join(dir, 'side.js')).href), 42);
});

test('a classic script keeps its license lines at its head and still defines its global', async () => {
  const notice = '// Copyright 2018 Someone. All rights reserved.\n// Use of this source code is governed by a license\n// that can be found in the LICENSE file.\n';
  const source = `${notice}\n"use strict";\n\n(() => {\n\tconst makeThing = () => ({ answer: 42 });\n\tglobalThis.Thing = class {\n\t\tconstructor() {\n\t\t\tthis.value = makeThing().answer;\n\t\t}\n\t};\n})();\n`;
  await writeFile(path.join(dir, 'exec.js'), source);
  const out = await minify('exec.js', 'exec.min.js');
  assert.equal(out.code, 0, out.stderr);
  const code = await readFile(path.join(dir, 'exec.min.js'), 'utf8');
  assert.ok(code.startsWith(notice.trimEnd() + '\n"use strict";'), code);
  const map = JSON.parse(await readFile(path.join(dir, 'exec.min.js.map'), 'utf8'));
  assert.match(origin(code, map, 'answer:'), /^42/, 'the map counts the notice\'s lines');
  delete globalThis.Thing;
  await import(pathToFileURL(path.join(dir, 'exec.min.js')).href);
  assert.equal(new globalThis.Thing().value, 42);
  delete globalThis.Thing;
});

test('a dynamic import without the hints is refused, and nothing is written', async () => {
  await writeFile(path.join(dir, 'bare.mjs'), 'export const load = (u) => import(u);\n');
  const out = await minify('bare.mjs', 'bare.min.mjs');
  assert.equal(out.code, 1);
  assert.match(out.stderr, /the source has 0 dynamic import\(s\) with the webpackIgnore and @vite-ignore hints, the minified code 1 import\( call\(s\)/);
  await assert.rejects(readFile(path.join(dir, 'bare.min.mjs')), { code: 'ENOENT' });
  const usage = await minify('only-one.mjs');
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /usage: node scripts\/minify\.mjs/);
});

test('shiftMappings moves the generated columns at and after each insertion, on its line only', () => {
  // Line 0: segments at columns 0, 5, 10 (deltas A=0, K=5, K=5), one source field each kept as written.
  // Line 1: one segment at column 3, untouched.
  const mappings = 'AAAA,KAAC,KAAC;GAAA';
  const shifted = shiftMappings(mappings, [{ line: 0, column: 5, length: 7 }]);
  // Columns 0, 12, 17: deltas 0, 12 (Y), 5 (K).
  assert.equal(shifted, 'AAAA,YAAC,KAAC;GAAA');
  // Two insertions on one line; a large column (a multi-digit VLQ).
  assert.equal(shiftMappings('AAAA,gBAAC', [{ line: 0, column: 0, length: 1 }, { line: 0, column: 16, length: 2 }]), 'CAAA,kBAAC');
  assert.equal(shiftMappings('', [{ line: 0, column: 0, length: 3 }]), '');
});

test('restoreImportHints puts the hints into each import( and says where', () => {
  const { code, insertions } = restoreImportHints('a;import(x);\nb=import(y);import.meta.url', 2);
  assert.equal(code, `a;import(${IMPORT_HINTS}x);\nb=import(${IMPORT_HINTS}y);import.meta.url`);
  assert.deepEqual(insertions, [{ line: 0, column: 9, length: IMPORT_HINTS.length }, { line: 1, column: 9, length: IMPORT_HINTS.length }]);
  assert.throws(() => restoreImportHints('import(x)', 0), (err) => err.code === 'hint_mismatch');
  const literal = restoreImportHints('a=import("./agentwasm-trace.mjs");b=import(y)', 1);
  assert.equal(literal.code, `a=import("./agentwasm-trace.mjs");b=import(${IMPORT_HINTS}y)`, 'a literal relative import is left for bundlers, unhinted');
  assert.throws(() => restoreImportHints('import("https://x/y.mjs")', 0), (err) => err.code === 'hint_mismatch', 'only a relative literal is left');
});
