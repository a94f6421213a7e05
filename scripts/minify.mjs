// minify.mjs — writes the minified scripts that dist/ and the npm package ship
// (the loader, Go's and TinyGo's wasm_exec.js), each with a source map beside
// it, through esbuild's API (web/node_modules: the Makefile's dist/ rules need
// `npm ci` in web/ first). The readable sources stay where they are: the
// loader in web/, the wasm_exec scripts in their toolchains.
//
//   node scripts/minify.mjs [--source-name NAME] SOURCE OUT
//
// OUT is minified and keeps its form: the loader stays an ES module (its
// import.meta.url and the literal new URL('./…', import.meta.url) forms that
// bundlers follow survive as written), a wasm_exec script stays a classic
// script that defines globalThis.Go. OUT.map is a source map with the whole
// source inside (sourcesContent), its source named NAME (the source's path
// relative to the repository by default), and OUT ends with a
// sourceMappingURL comment naming it.
//
// Two kinds of comment survive minifying, which esbuild would drop:
// - the source's leading `//` comment lines when they are a license notice
//   (Go's and TinyGo's copyright lines) head OUT as they are;
// - the bundler hints of each dynamic import(), `/* webpackIgnore: true */
//   /* @vite-ignore */`, which keep webpack and Vite from following the
//   loader's run-time imports: each is put back into OUT's import( … ), and
//   the source map's columns after it move with it. The source's hinted
//   imports and OUT's import( calls must match one for one, or nothing is
//   written. An import of a literal relative specifier, import('./x.mjs'),
//   is one bundlers are meant to follow (the loader's trace module): it takes
//   no hints and is left as it is.
//
// Exits 1 saying why when esbuild cannot be loaded or the source cannot be
// minified, 2 for a bad command line.

import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));

/** The bundler hints every dynamic import of the loader carries, as put back into the output. */
export const IMPORT_HINTS = '/* webpackIgnore: true */ /* @vite-ignore */ ';

/** A dynamic import carrying both hints, in the readable source. */
const HINTED_IMPORT = /\bimport\(\s*\/\*\s*webpackIgnore:\s*true\s*\*\/\s*\/\*\s*@vite-ignore\s*\*\/\s*/g;

/** A dynamic import in esbuild's output (not import.meta). */
const OUTPUT_IMPORT = /(?<![\w$.])import\(/g;

/** The rest of an import( of a literal relative specifier, import('./x.mjs'): one bundlers follow, left unhinted. */
const LITERAL_IMPORT = /^\s*(["'`])\.{1,2}\/[^"'`\\]*\1\s*\)/;

/** An Error with a stable `code`. */
function minifyError(code, message) {
  const err = new Error(`minify: ${message}`);
  err.code = code;
  return err;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Reads one base64 VLQ number of a source map's mappings at i: [value, next index]. */
function readVLQ(text, i) {
  let result = 0;
  let shift = 0;
  let digit;
  do {
    digit = B64.indexOf(text[i++]);
    if (digit < 0) throw minifyError('bad_map', `esbuild wrote a source map mapping this script cannot read (at ${i - 1})`);
    result += (digit & 31) * 2 ** shift;
    shift += 5;
  } while (digit & 32);
  return [result % 2 ? -(result - 1) / 2 : result / 2, i];
}

/** Writes one base64 VLQ number. */
function writeVLQ(value) {
  let rest = value < 0 ? -value * 2 + 1 : value * 2;
  let out = '';
  do {
    let digit = rest & 31;
    rest = Math.floor(rest / 32);
    if (rest > 0) digit |= 32;
    out += B64[digit];
  } while (rest > 0);
  return out;
}

/**
 * Moves the generated columns of a source map's mappings for text inserted
 * into the generated code: each insertion is {line, column, length} (0-based,
 * in the code before any insertion), and a segment at or after an insertion's
 * column on its line moves right by its length. Only generated columns
 * change; the other fields of each segment are kept as written.
 * @param {string} mappings
 * @param {{line: number, column: number, length: number}[]} insertions
 */
export function shiftMappings(mappings, insertions) {
  return mappings.split(';').map((line, n) => {
    const here = insertions.filter((ins) => ins.line === n);
    if (here.length === 0 || line === '') return line;
    let column = 0;
    let written = 0;
    return line.split(',').map((segment) => {
      const [delta, next] = readVLQ(segment, 0);
      column += delta;
      const moved = column + here.filter((ins) => column >= ins.column).reduce((sum, ins) => sum + ins.length, 0);
      const out = writeVLQ(moved - written) + segment.slice(next);
      written = moved;
      return out;
    }).join(',');
  }).join(';');
}

/**
 * Puts the bundler hints back into every dynamic import of esbuild's output,
 * given how many the source had; returns the new code and the insertions (for
 * shiftMappings). An import of a literal relative specifier is left as it is
 * (LITERAL_IMPORT). Throws `hint_mismatch` when the counts differ: a dynamic
 * import the source did not hint, or one esbuild wrote in another form.
 * @param {string} code
 * @param {number} hinted
 */
export function restoreImportHints(code, hinted) {
  const found = [...code.matchAll(OUTPUT_IMPORT)].filter((m) => !LITERAL_IMPORT.test(code.slice(m.index + m[0].length, m.index + m[0].length + 300)));
  if (found.length !== hinted) {
    throw minifyError('hint_mismatch', `the source has ${hinted} dynamic import(s) with the webpackIgnore and @vite-ignore hints, `
      + `the minified code ${found.length} import( call(s); hint every dynamic import of the source, or teach scripts/minify.mjs the new form`);
  }
  const insertions = [];
  let out = '';
  let from = 0;
  for (const m of found) {
    const at = m.index + m[0].length;
    const before = code.slice(0, at);
    const line = before.split('\n').length - 1;
    const column = at - (before.lastIndexOf('\n') + 1);
    insertions.push({ line, column, length: IMPORT_HINTS.length });
    out += code.slice(from, at) + IMPORT_HINTS;
    from = at;
  }
  return { code: out + code.slice(from), insertions };
}

/**
 * The source's leading `//` comment lines when they are a license notice
 * (they name a copyright or a license), or ''.
 */
export function leadingComment(source) {
  const m = /^(?:[ \t]*\/\/[^\n]*\n)+/.exec(source.replace(/^\uFEFF/, ''));
  return m && /copyright|license/i.test(m[0]) ? m[0].trimEnd() : '';
}

/**
 * Minifies one script: resolves with {code, map} (the map as JSON text), the
 * code ending with a sourceMappingURL comment naming mapName.
 * @param {string} source the readable source
 * @param {{esbuild: object, sourceName: string, mapName: string}} options
 */
export async function minify(source, { esbuild, sourceName, mapName }) {
  const banner = leadingComment(source);
  const result = await esbuild.transform(source, {
    loader: 'js',
    minify: true,
    target: 'es2022',
    sourcemap: 'external',
    sourcefile: sourceName,
    sourcesContent: true,
    banner,
    legalComments: 'inline',
  });
  const hinted = [...source.matchAll(HINTED_IMPORT)].length;
  const { code, insertions } = restoreImportHints(result.code, hinted);
  const map = JSON.parse(result.map);
  map.mappings = shiftMappings(map.mappings, insertions);
  map.sources = [sourceName];
  map.file = mapName.replace(/\.map$/, '');
  return { code: `${code.endsWith('\n') ? code : `${code}\n`}//# sourceMappingURL=${mapName}\n`, map: `${JSON.stringify(map)}\n` };
}

/** The command line: [--source-name NAME] SOURCE OUT. */
async function main(args) {
  let sourceName;
  const files = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--source-name') sourceName = args[++i];
    else if (args[i].startsWith('-')) throw minifyError('bad_argument', `unknown flag ${args[i]}`);
    else files.push(args[i]);
  }
  if (files.length !== 2 || sourceName === '') {
    throw minifyError('bad_argument', 'usage: node scripts/minify.mjs [--source-name NAME] SOURCE OUT');
  }
  const [from, to] = files;
  let esbuild;
  try {
    esbuild = createRequire(path.join(root, 'web', 'package.json'))('esbuild');
  } catch (err) {
    throw minifyError('no_esbuild', `cannot load esbuild from web/node_modules (${err.message}); run npm ci in web/`);
  }
  const source = await readFile(from, 'utf8');
  const name = sourceName ?? path.relative(root, path.resolve(from)).split(path.sep).join('/');
  const mapName = `${path.basename(to)}.map`;
  const { code, map } = await minify(source, { esbuild, sourceName: name, mapName });
  await writeFile(`${to}.map`, map);
  await writeFile(to, code);
  const kb = (n) => `${(n / 1000).toFixed(1)} KB`;
  console.log(`${to}: ${kb(Buffer.byteLength(code))} minified from ${kb(Buffer.byteLength(source))} (${name}), ${to}.map`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    await main(process.argv.slice(2));
  } catch (err) {
    console.error(err.message ?? String(err));
    process.exitCode = err.code === 'bad_argument' ? 2 : 1;
  }
}
