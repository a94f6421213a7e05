#!/usr/bin/env node
// agentwasm-assets — the npm package's command (`npx agentwasm-assets <outdir>`)
// that copies the files the loader fetches at run time, agentwasm.tiny.wasm
// and wasm_exec.tiny.js by default, from the installed package to a folder:
// the folder of a bundle made by a bundler that does not copy them itself
// (esbuild), where the bundled loader's new URL('./agentwasm.tiny.wasm',
// import.meta.url) looks for them. No dependencies: Node's fs only.
//
//   npx agentwasm-assets www                       # agentwasm.tiny.wasm, wasm_exec.tiny.js
//   npx agentwasm-assets www --variant tiny-session   # agentwasm-session.tiny.wasm, wasm_exec.tiny.js
//   npx agentwasm-assets www --variant go          # agentwasm.wasm, wasm_exec.js
//   npx agentwasm-assets www --variant session     # agentwasm-session.wasm, wasm_exec.js
//   npx agentwasm-assets www --variant go --variant tiny   # both builds' files
//
// It prints one line per file copied, and exits 2 for a bad argument, 1 when a
// file cannot be copied, saying why. Each file is written beside its place
// and renamed into it: a file already there is replaced whole, and a link
// already there is replaced, never written through to where it points.

import { constants, copyFile, mkdir, rename, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** The files each build's loader fetches, beside the loader (its defaultAssets). */
const variantFiles = {
  go: ['agentwasm.wasm', 'wasm_exec.js'],
  session: ['agentwasm-session.wasm', 'wasm_exec.js'],
  tiny: ['agentwasm.tiny.wasm', 'wasm_exec.tiny.js'],
  'tiny-session': ['agentwasm-session.tiny.wasm', 'wasm_exec.tiny.js'],
};

const usage = `usage: agentwasm-assets <outdir> [--variant go|session|tiny|tiny-session|all]...
Copies the files agentwasm's loader fetches at run time into <outdir>, the folder of your bundle
(esbuild's --outdir, or the folder of its --outfile): agentwasm.tiny.wasm and wasm_exec.tiny.js
for the default build (tiny), agentwasm-session.tiny.wasm and wasm_exec.tiny.js for
'tiny-session', agentwasm.wasm and wasm_exec.js for 'go', agentwasm-session.wasm and wasm_exec.js
for 'session'. --variant may be given more than once.`;

/**
 * Parses the command line: the folder and the builds whose files to copy.
 * Throws an Error with code `bad_argument` and the usage for a bad one.
 * @param {string[]} args
 * @returns {{outDir: string, files: string[]}}
 */
function parseArgs(args) {
  const bad = (message) => {
    const err = new Error(`agentwasm-assets: ${message}\n${usage}`);
    err.code = 'bad_argument';
    return err;
  };
  let outDir;
  const variants = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--variant' || arg.startsWith('--variant=')) {
      const value = arg === '--variant' ? args[++i] : arg.slice('--variant='.length);
      if (value === 'all') variants.push(...Object.keys(variantFiles));
      else if (Object.hasOwn(variantFiles, value ?? '')) variants.push(value);
      else throw bad(`--variant takes go, session, tiny, tiny-session or all, not ${JSON.stringify(value ?? '')}`);
    } else if (arg === '-h' || arg === '--help') {
      const err = new Error(usage);
      err.code = 'help';
      throw err;
    } else if (arg.startsWith('-')) {
      throw bad(`unknown flag ${arg}`);
    } else if (outDir === undefined) {
      outDir = arg;
    } else {
      throw bad(`one folder only, not ${JSON.stringify(outDir)} and ${JSON.stringify(arg)}`);
    }
  }
  if (outDir === undefined) throw bad('name the folder of your bundle');
  if (variants.length === 0) variants.push('tiny');
  return { outDir, files: [...new Set(variants.flatMap((v) => variantFiles[v]))] };
}

/**
 * Copies the files from the package (the folder of this script) into outDir,
 * creating it when missing. Resolves with the paths written.
 * @param {string} outDir
 * @param {string[]} files
 */
async function copyAssets(outDir, files, from = path.dirname(fileURLToPath(import.meta.url))) {
  try {
    await mkdir(outDir, { recursive: true });
  } catch (err) {
    const e = new Error(`agentwasm-assets: cannot make the folder ${outDir}: ${err.message} (name a folder, or where one can be made)`);
    e.code = 'copy_failed';
    throw e;
  }
  const written = [];
  for (const file of files) {
    const to = path.join(outDir, file);
    // A name of this run's own beside the file, renamed over it once complete.
    const part = path.join(outDir, `.${file}.${randomBytes(6).toString('hex')}.part`);
    try {
      await copyFile(path.join(from, file), part, constants.COPYFILE_EXCL);
      try {
        await rename(part, to);
      } catch (err) {
        await rm(part, { force: true });
        throw err;
      }
    } catch (err) {
      const e = new Error(`agentwasm-assets: cannot copy ${file} from ${from} to ${outDir}: ${err.message}`);
      e.code = 'copy_failed';
      throw e;
    }
    written.push(to);
  }
  return written;
}

try {
  const { outDir, files } = parseArgs(process.argv.slice(2));
  for (const to of await copyAssets(outDir, files)) console.log(`agentwasm-assets: ${to}`);
} catch (err) {
  if (err.code === 'help') {
    console.log(err.message);
  } else {
    console.error(err.message);
    process.exitCode = err.code === 'bad_argument' ? 2 : 1;
  }
}
