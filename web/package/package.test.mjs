// Package test: dist/package (from `make package`) packed with `npm pack`,
// the tarball installed offline into a fresh folder, and used from there as
// `agentwasm` by a child Node — load(), a scripted turn, the exports map —
// plus its types through TypeScript's node16 resolution. Run with
// `make packagetest` (it builds the package first).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { lstat, mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { expectedExports, expectedFiles, packAndInstall, root, tinyBuilt, tinyShipped } from './fixture/pack.mjs';

const run = promisify(execFile);
let pkg;

before(async () => {
  pkg = await packAndInstall();
});

after(async () => {
  await pkg?.cleanup();
});

test('the tarball holds exactly the package files', async () => {
  const files = pkg.pack.files.map((f) => f.path).sort();
  assert.deepEqual(files, expectedFiles);
  assert.equal(pkg.pack.name, 'agentwasm');
  assert.ok(existsSync(pkg.tarball), pkg.tarball);
  const manifest = JSON.parse(await readFile(path.join(pkg.installed, 'package.json'), 'utf8'));
  const goSource = await readFile(path.join(root, 'internal', 'version', 'version.go'), 'utf8');
  assert.equal(manifest.version, /^const Version = "([^"]+)"$/m.exec(goSource)[1], 'the version is the module\'s');
  assert.equal(manifest.type, 'module');
  assert.deepEqual(manifest.engines, { node: '>=20' });
  assert.deepEqual(Object.keys(manifest.exports).sort(), expectedExports);
  assert.deepEqual(manifest.exports['.'], { types: './agentwasm.d.ts', default: './agentwasm.mjs' });
});

// The child runs in the app folder, where `agentwasm` is the installed tarball.
const child = `
const { load } = await import('agentwasm');
const runtime = await load();
const session = runtime.createSession({
  disableToolDiscovery: true,
  transport: async function* () {
    yield { type: 'messageStart', model: 'scripted' };
    yield { type: 'textDelta', text: 'Hello from ' };
    yield { type: 'textDelta', text: 'the package.' };
    yield { type: 'messageStop', stopReason: 'endTurn' };
  },
});
const turn = await session.chat('hi');
// The TinyGo build, when the package holds it: load's variant finds its files in the package.
let tiny;
if (process.env.TINY === '1') {
  const tinyRuntime = await load({ variant: 'tiny' });
  const tinyTurn = await tinyRuntime.createSession({
    disableToolDiscovery: true,
    transport: async function* () {
      yield { type: 'textDelta', text: 'Hello from TinyGo.' };
      yield { type: 'messageStop', stopReason: 'endTurn' };
    },
  }).chat('hi');
  tiny = { text: tinyTurn.text, goVersion: tinyRuntime.version().goVersion };
  // TinyGo's session-only build: variant 'tiny-session' finds it in the package; it has no port.
  const tinySessionRuntime = await load({ variant: 'tiny-session' });
  const tinySessionTurn = await tinySessionRuntime.createSession({
    disableToolDiscovery: true,
    transport: async function* () {
      yield { type: 'textDelta', text: 'Hello from TinyGo, session only.' };
      yield { type: 'messageStop', stopReason: 'endTurn' };
    },
  }).chat('hi');
  let tinyPortCode;
  try {
    tinySessionRuntime.createPort({ app: 'a', pages: [] });
  } catch (err) {
    tinyPortCode = err.code;
  }
  tiny.sessionOnly = { text: tinySessionTurn.text, serve: tinySessionRuntime.version().serve,
    goVersion: tinySessionRuntime.version().goVersion, portCode: tinyPortCode };
}
// The session-only build: variant 'session' finds it in the package; it has no port.
const sessionRuntime = await load({ variant: 'session' });
const sessionTurn = await sessionRuntime.createSession({
  disableToolDiscovery: true,
  transport: async function* () {
    yield { type: 'textDelta', text: 'Hello from the session-only build.' };
    yield { type: 'messageStop', stopReason: 'endTurn' };
  },
}).chat('hi');
let portCode;
try {
  sessionRuntime.createPort({ app: 'a', pages: [] });
} catch (err) {
  portCode = err.code;
}
const sessionOnly = { text: sessionTurn.text, serve: sessionRuntime.version().serve, portCode };
const resolved = {};
for (const name of ['agentwasm', 'agentwasm/agentwasm.wasm', 'agentwasm/agentwasm-session.wasm', 'agentwasm/wasm_exec.js',
  'agentwasm/agentwasm-wasip1.wasm', 'agentwasm/package.json',
  ...(process.env.TINY === '1' ? ['agentwasm/agentwasm.tiny.wasm', 'agentwasm/agentwasm-session.tiny.wasm', 'agentwasm/wasm_exec.tiny.js'] : [])]) {
  resolved[name] = import.meta.resolve(name);
}
let notExported;
try {
  import.meta.resolve('agentwasm/agentwasm.d.ts');
} catch (err) {
  notExported = err.code;
}
console.log(JSON.stringify({ status: turn.status, text: turn.text, errorMessage: turn.errorMessage,
  version: runtime.version(), resolved, notExported, tiny, sessionOnly }));
`;

test('installed from the tarball, it loads and runs a scripted turn in Node', async () => {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', child],
    { cwd: pkg.app, env: { ...process.env, TINY: tinyShipped ? '1' : '' } });
  const out = JSON.parse(stdout.trim().split('\n').at(-1));
  assert.equal(out.status, 'completed', out.errorMessage);
  assert.equal(out.text, 'Hello from the package.');
  const manifest = JSON.parse(await readFile(path.join(pkg.installed, 'package.json'), 'utf8'));
  assert.equal(out.version.version, manifest.version, 'package.json and the module agree on the version');
  assert.equal(out.version.abi, 1);

  const inPackage = (file) => new URL(`file://${path.join(pkg.installed, file)}`).href;
  assert.deepEqual(out.resolved, {
    agentwasm: inPackage('agentwasm.mjs'),
    'agentwasm/agentwasm.wasm': inPackage('agentwasm.wasm'),
    'agentwasm/agentwasm-session.wasm': inPackage('agentwasm-session.wasm'),
    'agentwasm/wasm_exec.js': inPackage('wasm_exec.js'),
    'agentwasm/agentwasm-wasip1.wasm': inPackage('agentwasm-wasip1.wasm'),
    'agentwasm/package.json': inPackage('package.json'),
    ...(tinyShipped ? {
      'agentwasm/agentwasm.tiny.wasm': inPackage('agentwasm.tiny.wasm'),
      'agentwasm/agentwasm-session.tiny.wasm': inPackage('agentwasm-session.tiny.wasm'),
      'agentwasm/wasm_exec.tiny.js': inPackage('wasm_exec.tiny.js'),
    } : {}),
  });
  assert.equal(out.notExported, 'ERR_PACKAGE_PATH_NOT_EXPORTED');
  assert.deepEqual(out.sessionOnly, { text: 'Hello from the session-only build.', serve: false, portCode: 'port_unavailable' },
    'load({variant: \'session\'}) finds the session-only build in the package');
  assert.equal(out.version.serve, true, 'the default build has the port');
  if (tinyShipped) {
    assert.equal(out.tiny?.text, 'Hello from TinyGo.', 'load({variant: \'tiny\'}) finds the TinyGo build in the package');
    assert.match(out.tiny.goVersion, /^tinygo0\./);
    assert.equal(out.tiny.sessionOnly.text, 'Hello from TinyGo, session only.', 'load({variant: \'tiny-session\'}) finds it in the package');
    assert.match(out.tiny.sessionOnly.goVersion, /^tinygo0\./);
    assert.equal(out.tiny.sessionOnly.serve, false);
    assert.equal(out.tiny.sessionOnly.portCode, 'port_unavailable');
  }
});

/**
 * The files the installed loader names with a literal new URL('./…', import.meta.url) (the
 * minified loader writes it with double quotes).
 */
async function namedByLoader() {
  const loader = await readFile(path.join(pkg.installed, 'agentwasm.mjs'), 'utf8');
  // (The source's comments name some of them too, and a placeholder './…'.)
  return [...new Set([...loader.matchAll(/new URL\(\s*(['"])\.\/([\w.-]+)\1,\s*import\.meta\.url\s*\)/g)].map((m) => m[2]))].sort();
}

test('the Go builds\' files the loader names are in the package', async () => {
  const named = await namedByLoader();
  assert.deepEqual(named, ['agentwasm-session.tiny.wasm', 'agentwasm-session.wasm', 'agentwasm.tiny.wasm', 'agentwasm.wasm', 'wasm_exec.js', 'wasm_exec.tiny.js']);
  const files = pkg.pack.files.map((f) => f.path);
  for (const file of ['agentwasm.wasm', 'agentwasm-session.wasm', 'wasm_exec.js']) assert.ok(files.includes(file), file);
});

// Bundlers that follow new URL(…, import.meta.url) (webpack 5, Vite/Rollup) fail on a named file
// that is missing, so the package must carry the TinyGo build's files too.
// AGENTWASM_REQUIRE_TINY=1 (`make test-tiny`, which runs this suite, and CI) never skips it.
test('the TinyGo build\'s files the loader names are in the package', {
  skip: !tinyShipped && process.env.AGENTWASM_REQUIRE_TINY !== '1' && (tinyBuilt
    ? 'scripts/package.mjs does not put the TinyGo build in the package yet (agentwasm.tiny.wasm, wasm_exec.tiny.js, '
      + 'LICENSE-tinygo), though the loader names its files: bundlers that follow new URL(…) (webpack 5) fail on them'
    : 'dist/ lacks the TinyGo build (make build-tiny), so the package cannot carry it'),
}, async () => {
  const files = pkg.pack.files.map((f) => f.path);
  assert.deepEqual((await namedByLoader()).filter((file) => !files.includes(file)), []);
});

// The loader and the wasm_exec scripts ship minified (scripts/minify.mjs): each ends with a
// sourceMappingURL comment naming its map, which the package carries with the readable source
// inside; the wasm_exec scripts keep their copyright lines (LICENSE-go, LICENSE-tinygo); the
// loader keeps its run-time imports' bundler hints.
test('the scripts are minified, each with its source map beside it', async () => {
  const files = pkg.pack.files.map((f) => f.path);
  const scripts = [
    { file: 'agentwasm.mjs', source: path.join(root, 'web', 'agentwasm.mjs') },
    { file: 'agentwasm-trace.mjs', source: path.join(root, 'web', 'agentwasm-trace.mjs') },
    { file: 'wasm_exec.js', notice: /^\/\/ Copyright 2018 The Go Authors\. All rights reserved\.\n/ },
    ...(tinyShipped ? [{ file: 'wasm_exec.tiny.js', notice: /^\/\/ Copyright 2018 The Go Authors\.[^]*\/\/ This file has been modified for use by the TinyGo compiler\.\n/ }] : []),
  ];
  for (const { file, source, notice } of scripts) {
    const text = await readFile(path.join(pkg.installed, file), 'utf8');
    assert.ok(text.endsWith(`\n//# sourceMappingURL=${file}.map\n`), `${file} names its map`);
    assert.ok(files.includes(`${file}.map`), `${file}.map is in the package`);
    const map = JSON.parse(await readFile(path.join(pkg.installed, `${file}.map`), 'utf8'));
    assert.equal(map.version, 3);
    assert.equal(map.sources.length, 1, file);
    assert.ok(map.sourcesContent[0].length > 2 * text.length, `${file}: the map holds the readable source, ${map.sourcesContent[0].length} B for ${text.length} B`);
    if (source) assert.equal(map.sourcesContent[0], await readFile(source, 'utf8'), `${file}: the map's source is the repository's`);
    if (notice) assert.match(text, notice, `${file} keeps its copyright lines`);
  }
  const loader = await readFile(path.join(pkg.installed, 'agentwasm.mjs'), 'utf8');
  assert.equal([...loader.matchAll(/import\(\/\* webpackIgnore: true \*\/ \/\* @vite-ignore \*\/ \w+\)/g)].length, 2,
    'both run-time imports keep their bundler hints');
  // The trace module is imported by a literal specifier, without hints: bundlers split it off.
  assert.match(loader, /import\((['"])\.\/agentwasm-trace\.mjs\1\)/, 'the trace module\'s import is left for bundlers');
});

test('the types resolve through the exports map (TypeScript, node16)', async () => {
  await writeFile(path.join(pkg.app, 'usage.mts'), `import { load, type Runtime, type Turn } from 'agentwasm';
const runtime: Runtime = await load({ wasm: new URL('./agentwasm.wasm', import.meta.url) });
const turn: Turn = await runtime.createSession({ disableToolDiscovery: true }).chat('hi');
export const status: string = turn.status;
`);
  const tsc = path.join(root, 'web', 'node_modules', '.bin', 'tsc');
  const args = ['--noEmit', '--strict', '--module', 'node16', '--moduleResolution', 'node16', '--target', 'es2022',
    '--lib', 'es2022,dom', '--types', '', 'usage.mts'];
  try {
    await run(tsc, args, { cwd: pkg.app });
  } catch (err) {
    assert.fail(`tsc: ${err.stdout}${err.stderr}`);
  }
});

// The package's command: npx agentwasm-assets <outdir> copies the files the loader fetches at run
// time, for bundlers that copy none (esbuild): each build's pair, and only what was asked for;
// hostile arguments are refused, and a link under an asset's name is replaced, not written through.
test('npx agentwasm-assets copies each build\'s run-time files, and refuses bad arguments', async () => {
  const manifest = JSON.parse(await readFile(path.join(pkg.installed, 'package.json'), 'utf8'));
  assert.deepEqual(manifest.bin, { 'agentwasm-assets': './agentwasm-assets.mjs' });
  const cases = [
    // The default build's files: TinyGo's.
    { args: ['out-default'], files: ['agentwasm.tiny.wasm', 'wasm_exec.tiny.js'] },
    { args: ['out-go', '--variant', 'go'], files: ['agentwasm.wasm', 'wasm_exec.js'] },
    { args: ['out-session', '--variant', 'session'], files: ['agentwasm-session.wasm', 'wasm_exec.js'] },
    { args: ['out-tiny', '--variant=tiny'], files: ['agentwasm.tiny.wasm', 'wasm_exec.tiny.js'] },
    { args: ['out-tiny-session', '--variant', 'tiny-session'], files: ['agentwasm-session.tiny.wasm', 'wasm_exec.tiny.js'] },
    { args: ['out-all', '--variant', 'all'],
      files: ['agentwasm-session.tiny.wasm', 'agentwasm-session.wasm', 'agentwasm.tiny.wasm', 'agentwasm.wasm', 'wasm_exec.js', 'wasm_exec.tiny.js'] },
    { args: ['out-nested/deeper'], files: ['agentwasm.tiny.wasm', 'wasm_exec.tiny.js'] },
  ];
  for (const c of cases) {
    await run('npx', ['--offline', '--no-install', 'agentwasm-assets', ...c.args], { cwd: pkg.app });
    const dir = path.join(pkg.app, c.args[0]);
    assert.deepEqual((await readdir(dir)).sort(), c.files, c.args.join(' '));
    for (const file of c.files) {
      assert.deepEqual(await readFile(path.join(dir, file)), await readFile(path.join(pkg.installed, file)), `${c.args.join(' ')}: ${file}`);
    }
  }
  for (const [args, message] of [
    [[], /name the folder of your bundle/],
    [['out', '--variant', 'wasm'], /--variant takes go, session, tiny, tiny-session or all, not "wasm"/],
    [['out', 'other'], /one folder only/],
    [['out', '--force'], /unknown flag --force/],
    // A variant is one of the names, never a path or an object's inherited key.
    [['out', '--variant', '../agentwasm'], /--variant takes go, session, tiny, tiny-session or all, not "\.\.\/agentwasm"/],
    [['out', '--variant', '__proto__'], /not "__proto__"/],
    [['out', '--variant=toString'], /not "toString"/],
  ]) {
    // The command itself (npx found it above): a child Node is quicker than npx for the refusals.
    await assert.rejects(run(process.execPath, [path.join(pkg.installed, 'agentwasm-assets.mjs'), ...args], { cwd: pkg.app }),
      (err) => err.code === 2 && message.test(err.stderr) && /usage: agentwasm-assets/.test(err.stderr), args.join(' '));
  }
  const command = path.join(pkg.installed, 'agentwasm-assets.mjs');
  // A file where the folder should be: exit 1, saying so, and the file is left as it was.
  await writeFile(path.join(pkg.app, 'not-a-folder'), 'mine');
  await assert.rejects(run(process.execPath, [command, 'not-a-folder'], { cwd: pkg.app }),
    (err) => err.code === 1 && /cannot make the folder not-a-folder: .*name a folder/.test(err.stderr), 'a file as the folder');
  assert.equal(await readFile(path.join(pkg.app, 'not-a-folder'), 'utf8'), 'mine');
  // A link already in the folder under an asset's name is replaced by the file, never written
  // through: what it points at is left as it was.
  await writeFile(path.join(pkg.app, 'elsewhere.txt'), 'keep me');
  await mkdir(path.join(pkg.app, 'out-link'));
  await symlink(path.join(pkg.app, 'elsewhere.txt'), path.join(pkg.app, 'out-link', 'agentwasm.tiny.wasm'));
  await run(process.execPath, [command, 'out-link'], { cwd: pkg.app });
  assert.equal(await readFile(path.join(pkg.app, 'elsewhere.txt'), 'utf8'), 'keep me');
  assert.ok((await lstat(path.join(pkg.app, 'out-link', 'agentwasm.tiny.wasm'))).isFile(), 'the link was replaced by a file');
  assert.deepEqual(await readFile(path.join(pkg.app, 'out-link', 'agentwasm.tiny.wasm')),
    await readFile(path.join(pkg.installed, 'agentwasm.tiny.wasm')));
  assert.deepEqual((await readdir(path.join(pkg.app, 'out-link'))).sort(), ['agentwasm.tiny.wasm', 'wasm_exec.tiny.js'], 'no partial file is left');
});
