// The loader alone, without the files it fetches beside itself — what a bundler that copies
// none of them (esbuild) leaves — fails with code load_failed, and the message names the
// build's two files, where the loader looked, and the copy step (`npx agentwasm-assets`,
// with the variant's flag), and so does a default module that is not WebAssembly (a server's
// fallback page in its place); a file the caller named (load's wasm, wasmExec) gets no such
// advice. Runs the loader from a temporary folder, in Node (file: URLs: the same messages
// as a browser's failed import and fetch): the readable one (web/agentwasm.mjs) and the
// minified one that dist/ and the package ship (`make build`), which must say the same.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { dist } from '../testing/helpers.mjs';

/** The loaders under test: the source, and the minified one in dist/. */
const loaders = [
  { name: 'web/agentwasm.mjs', from: new URL('../agentwasm.mjs', import.meta.url) },
  { name: 'dist/agentwasm.mjs (minified)', from: new URL('agentwasm.mjs', dist) },
];

let folder;
let load;
const folders = [];

/** Copies a loader alone into a fresh folder, as a bundle would carry it, and imports it. */
async function loaderAlone(from) {
  const dir = await mkdtemp(path.join(tmpdir(), 'agentwasm-missing-'));
  folders.push(dir);
  await copyFile(from, path.join(dir, 'agentwasm.mjs'));
  return { dir, load: (await import(pathToFileURL(path.join(dir, 'agentwasm.mjs')).href)).load };
}

before(async () => {
  ({ dir: folder, load } = await loaderAlone(loaders[0].from));
});

after(async () => {
  for (const dir of folders) await rm(dir, { recursive: true, force: true });
});

for (const loader of loaders) {
  test(`a load whose default files are missing says which, where, and how to copy them: ${loader.name}`, async (t) => {
    const { dir, load: loadAlone } = loader === loaders[0] ? { dir: folder, load } : await loaderAlone(loader.from);
    await missingCases(t, dir, loadAlone);
  });
}

/** The missing-file cases, against a loader alone in folder. */
async function missingCases(t, folder, load) {
  const cases = [
    { name: 'the default build (TinyGo\'s)', options: {}, files: 'agentwasm.tiny.wasm and wasm_exec.tiny.js', missing: 'wasm_exec.tiny.js', flag: '' },
    { name: 'the Go build', options: { variant: 'go' }, files: 'agentwasm.wasm and wasm_exec.js', missing: 'wasm_exec.js', flag: ' --variant go' },
    { name: 'the session-only build', options: { variant: 'session' }, files: 'agentwasm-session.wasm and wasm_exec.js', missing: 'wasm_exec.js', flag: ' --variant session' },
    { name: 'the TinyGo build by name', options: { variant: 'tiny' }, files: 'agentwasm.tiny.wasm and wasm_exec.tiny.js', missing: 'wasm_exec.tiny.js', flag: '' },
    { name: 'the TinyGo session-only build', options: { variant: 'tiny-session' }, files: 'agentwasm-session.tiny.wasm and wasm_exec.tiny.js', missing: 'wasm_exec.tiny.js', flag: ' --variant tiny-session' },
    // wasm_exec given, the module left to its default: the module's absence is named the same way.
    { name: 'the module alone missing', options: { wasmExec: new URL('wasm_exec.tiny.js', dist) }, files: 'agentwasm.tiny.wasm and wasm_exec.tiny.js', missing: 'agentwasm.tiny.wasm', flag: '' },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      await assert.rejects(load(c.options), (err) => {
        assert.equal(err.code, 'load_failed');
        assert.ok(err.message.includes(c.missing), err.message);
        assert.ok(err.message.includes(`The loader fetches ${c.files} from beside itself (${pathToFileURL(folder).href}/)`), err.message);
        assert.ok(err.message.includes(`\`npx agentwasm-assets <your bundle's folder>${c.flag}\``), err.message);
        assert.match(err.message, /load\(\{wasm, wasmExec\}\)/);
        return true;
      });
    });
  }
}

test('a file the caller named gets no copy advice', async () => {
  await assert.rejects(load({ wasmExec: pathToFileURL(path.join(folder, 'elsewhere', 'wasm_exec.js')) }), (err) => {
    assert.equal(err.code, 'load_failed');
    assert.match(err.message, /could not load .*elsewhere\/wasm_exec\.js/);
    assert.doesNotMatch(err.message, /agentwasm-assets/);
    return true;
  });
  await assert.rejects(load({ wasmExec: new URL('wasm_exec.js', dist), wasm: pathToFileURL(path.join(folder, 'none.wasm')) }), (err) => {
    assert.equal(err.code, 'load_failed');
    assert.doesNotMatch(err.message, /agentwasm-assets/);
    return true;
  });
});

// A server that answers a missing file with its fallback page (200, HTML) gives bytes that are
// not a module: the same advice, after the compile error.
test('a default module that is not WebAssembly (a fallback page) gets the copy advice too', async () => {
  const other = await mkdtemp(path.join(tmpdir(), 'agentwasm-fallback-'));
  try {
    await copyFile(new URL('../agentwasm.mjs', import.meta.url), path.join(other, 'agentwasm.mjs'));
    await copyFile(new URL('wasm_exec.tiny.js', dist), path.join(other, 'wasm_exec.tiny.js'));
    await writeFile(path.join(other, 'agentwasm.tiny.wasm'), '<!doctype html><title>my app</title>');
    const { load: loadOther } = await import(pathToFileURL(path.join(other, 'agentwasm.mjs')).href);
    await assert.rejects(loadOther(), (err) => {
      assert.equal(err.code, 'load_failed');
      assert.match(err.message, /could not instantiate the module: CompileError/);
      assert.ok(err.message.includes('`npx agentwasm-assets <your bundle\'s folder>`'), err.message);
      return true;
    });
    // Bytes the caller gave are the caller's: no copy advice.
    await assert.rejects(loadOther({ wasm: new TextEncoder().encode('<!doctype html>') }), (err) => {
      assert.equal(err.code, 'load_failed');
      assert.doesNotMatch(err.message, /agentwasm-assets/);
      return true;
    });
  } finally {
    await rm(other, { recursive: true, force: true });
  }
});
