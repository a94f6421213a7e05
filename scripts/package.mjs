// package.mjs — writes dist/package/, the npm package of agentwasm, for
// `make package` (after `make build`): the loader, its types, the js modules
// (full and session-only), Go's wasm_exec.js, the wasip1 module (for
// Go/wazero hosts), the package's README (web/package/README.md), Go's
// license (wasm_exec.js and the Go runtime inside the modules are under it),
// the TinyGo builds of the js module (full and session-only) with TinyGo's
// wasm_exec.tiny.js, its license and wasi-libc's (the loader names them for
// load({variant: 'tiny'}) and 'tiny-session', so bundlers that follow its
// new URL(…) forms need them; TINYGOROOT says where TinyGo lives, as
// `make package` sets it); the loader and both wasm_exec scripts come
// minified (scripts/minify.mjs), each with its source map (*.map, the
// readable source inside), which the package carries too, as it does the
// trace module the loader imports when given a tracer (agentwasm-trace.mjs,
// minified with its map); and a
// package.json whose version
// is read from internal/version (the `Version` constant the module's version()
// reports), so the two cannot drift; and the package's command,
// agentwasm-assets (web/package/agentwasm-assets.mjs), which copies the
// files the loader fetches next to a bundle for bundlers that do not copy
// them (esbuild). `npm pack` in dist/package packs it.
//
//   node scripts/package.mjs [outDir]

import { copyFile, mkdir, readFile, rm, writeFile, access } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const dist = path.join(root, 'dist');
const out = path.resolve(process.argv[2] ?? path.join(dist, 'package'));

/** An Error with a stable `code`. */
function packageError(code, message) {
  const err = new Error(`package: ${message}`);
  err.code = code;
  return err;
}

/** The module's release version: `const Version = "x.y.z"` in internal/version. */
async function moduleVersion() {
  const file = path.join(root, 'internal', 'version', 'version.go');
  const source = await readFile(file, 'utf8');
  const m = /^const Version = "([^"]+)"$/m.exec(source);
  if (!m) throw packageError('no_version', `no \`const Version = "…"\` in ${path.relative(root, file)}`);
  if (!/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/.test(m[1])) {
    throw packageError('bad_version', `the version ${JSON.stringify(m[1])} in ${path.relative(root, file)} is not semver`);
  }
  return m[1];
}

/** Go's LICENSE, from the toolchain that built the modules. */
function goLicense() {
  const goroot = execFileSync(process.env.GO ?? 'go', ['env', 'GOROOT'], { encoding: 'utf8' }).trim();
  return path.join(goroot, 'LICENSE');
}

/** TinyGo's LICENSE, from TINYGOROOT (the root of the TinyGo that built the tiny module). */
function tinygoLicense() {
  const root = process.env.TINYGOROOT;
  if (!root) throw packageError('no_tinygo', 'TINYGOROOT is not set; run make package (it builds the TinyGo module and sets it)');
  return path.join(root, 'LICENSE');
}

// What the package holds: its file name → where it comes from.
const sources = {
  'agentwasm.mjs': path.join(dist, 'agentwasm.mjs'),
  'agentwasm.mjs.map': path.join(dist, 'agentwasm.mjs.map'),
  'agentwasm-trace.mjs': path.join(dist, 'agentwasm-trace.mjs'),
  'agentwasm-trace.mjs.map': path.join(dist, 'agentwasm-trace.mjs.map'),
  'agentwasm.d.ts': path.join(dist, 'agentwasm.d.ts'),
  'agentwasm.d.mts': path.join(dist, 'agentwasm.d.mts'),
  'agentwasm.wasm': path.join(dist, 'agentwasm.wasm'),
  'agentwasm-session.wasm': path.join(dist, 'agentwasm-session.wasm'),
  'wasm_exec.js': path.join(dist, 'wasm_exec.js'),
  'wasm_exec.js.map': path.join(dist, 'wasm_exec.js.map'),
  'agentwasm-wasip1.wasm': path.join(dist, 'agentwasm-wasip1.wasm'),
  'README.md': path.join(root, 'web', 'package', 'README.md'),
  'agentwasm-assets.mjs': path.join(root, 'web', 'package', 'agentwasm-assets.mjs'),
  LICENSE: path.join(root, 'LICENSE'),
  'LICENSE-go': goLicense(),
  'agentwasm.tiny.wasm': path.join(dist, 'agentwasm.tiny.wasm'),
  'agentwasm-session.tiny.wasm': path.join(dist, 'agentwasm-session.tiny.wasm'),
  'wasm_exec.tiny.js': path.join(dist, 'wasm_exec.tiny.js'),
  'wasm_exec.tiny.js.map': path.join(dist, 'wasm_exec.tiny.js.map'),
  'LICENSE-tinygo': tinygoLicense(),
  // wasi-libc is linked into the TinyGo module (tinygo/js.json names
  // Debian's); its copyright file lists every license it is under.
  'LICENSE-wasi-libc': '/usr/share/doc/wasi-libc/copyright',
};

const version = await moduleVersion();

const manifest = {
  name: 'agentwasm',
  version,
  description: 'AI agent sessions inside web pages: a Go code base compiled to WebAssembly, with a Promise-based ESM loader for browsers and Node.',
  keywords: ['agent', 'ai', 'webassembly', 'wasm', 'mcp', 'go'],
  type: 'module',
  main: './agentwasm.mjs',
  types: './agentwasm.d.ts',
  // npx agentwasm-assets <outdir>: the loader's run-time files next to a bundle (esbuild copies none).
  bin: { 'agentwasm-assets': './agentwasm-assets.mjs' },
  exports: {
    '.': { types: './agentwasm.d.ts', default: './agentwasm.mjs' },
    './agentwasm.wasm': './agentwasm.wasm',
    './agentwasm-session.wasm': './agentwasm-session.wasm',
    './wasm_exec.js': './wasm_exec.js',
    './agentwasm-wasip1.wasm': './agentwasm-wasip1.wasm',
    './agentwasm.tiny.wasm': './agentwasm.tiny.wasm',
    './agentwasm-session.tiny.wasm': './agentwasm-session.tiny.wasm',
    './wasm_exec.tiny.js': './wasm_exec.tiny.js',
    './package.json': './package.json',
  },
  files: Object.keys(sources),
  // The loader has no side effects on import; Go's wasm_exec.js (defines
  // globalThis.Go) has, so a bundler must keep a bare import of it.
  sideEffects: ['./wasm_exec.js', './wasm_exec.tiny.js'],
  engines: { node: '>=20' },
  license: 'MIT AND BSD-3-Clause',
};

for (const [name, from] of Object.entries(sources)) {
  try {
    await access(from);
  } catch {
    throw packageError('missing_asset', `${from} is missing (for ${name}); run make build`);
  }
}
await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });
for (const [name, from] of Object.entries(sources)) {
  await copyFile(from, path.join(out, name));
}
await writeFile(path.join(out, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`${path.relative(root, out) || out}: agentwasm@${version} (${Object.keys(sources).length + 1} files)`);
