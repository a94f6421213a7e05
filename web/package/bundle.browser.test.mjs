// Bundle test: the packed package (dist/package, `npm pack`, installed
// offline into a temp app) imported by name from a page entry
// (fixture/page.mjs), bundled with esbuild's JS API for the browser — no
// errors, no warnings, no `node:` import left to resolve — with the default
// build's files (agentwasm.tiny.wasm and wasm_exec.tiny.js) copied next to the bundle; then the page, served from
// 127.0.0.1, runs a scripted turn in headless Chromium (Debian's chromium,
// through playwright-core), with no console errors. The browser part is
// skipped when /usr/bin/chromium is missing, unless AGENTWASM_REQUIRE_BROWSER=1.
// Run with `make packagetest`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { browserMissing, launchChromium } from '../testing/browser.mjs';
import path from 'node:path';
import { packAndInstall, root } from './fixture/pack.mjs';

const missing = browserMissing();

const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm' };
// A `node:` specifier in an import, export … from, or require.
const nodeImport = /(?:\bimport\s*\(\s*|\bfrom\s*|\brequire\s*\(\s*|\bimport\s+)["'`]node:/;

let pkg;
let www;
let built;
let server;
let base;
let browser;
const served = [];

/** Bundles the page entry, installed in the app folder, for the browser. */
async function bundle(esbuild, extra) {
  return esbuild.build({
    absWorkingDir: pkg.app,
    entryPoints: ['src/page.mjs'],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    outdir: 'www',
    metafile: true,
    logLevel: 'silent',
    ...extra,
  });
}

before(async () => {
  pkg = await packAndInstall();
  await mkdir(path.join(pkg.app, 'src'));
  await copyFile(new URL('./fixture/page.mjs', import.meta.url), path.join(pkg.app, 'src', 'page.mjs'));
  const esbuild = await import('esbuild');
  built = {
    plain: await bundle(esbuild, {}),
    minified: await bundle(esbuild, { minify: true, write: false }),
  };
  www = path.join(pkg.app, 'www');
  for (const asset of ['agentwasm.tiny.wasm', 'wasm_exec.tiny.js']) {
    await copyFile(path.join(pkg.installed, asset), path.join(www, asset));
  }
  await writeFile(path.join(www, 'index.html'), `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>agentwasm, bundled with esbuild</title>
  <link rel="icon" href="data:,">
  <style>
    body { font: 15px/1.4 system-ui, sans-serif; margin: 2rem; max-width: 40rem; }
    .turn { border: 1px solid #ccc; border-radius: 6px; padding: .75rem 1rem; margin: .5rem 0; }
  </style>
</head>
<body>
  <h1>agentwasm from npm, bundled with esbuild</h1>
  <p>The page imports <code>agentwasm</code> by name; esbuild bundled it, and the loader found
  <code>agentwasm.tiny.wasm</code> and <code>wasm_exec.tiny.js</code> beside the bundle.</p>
  <div id="log"></div>
  <script type="module" src="./page.js"></script>
</body>
</html>
`);
});

after(async () => {
  await browser?.close();
  server?.close();
  await pkg?.cleanup();
});

test('esbuild bundles the package for the browser with no node: import', async () => {
  for (const [name, result] of Object.entries(built)) {
    assert.deepEqual(result.errors, [], `${name}: errors`);
    assert.deepEqual(result.warnings.map((w) => w.text), [], `${name}: warnings`);
    const outputs = Object.entries(result.metafile.outputs).filter(([file]) => file.endsWith('.js'));
    assert.equal(outputs.length, 1, `${name}: one bundle`);
    const [[file, output]] = outputs;
    assert.equal(file, 'www/page.js');
    assert.deepEqual(output.imports, [], `${name}: no import left for the browser to resolve`);
    assert.ok(Object.keys(result.metafile.inputs).includes('node_modules/agentwasm/agentwasm.mjs'),
      `${name}: the loader comes from the installed package`);
    const text = name === 'plain'
      ? await readFile(path.join(pkg.app, file), 'utf8')
      : result.outputFiles.find((f) => f.path.endsWith('page.js')).text;
    assert.doesNotMatch(text, nodeImport, `${name}: a node: specifier in an import`);
    // The asset URLs survive as written, relative to the bundle.
    assert.match(text, /new URL\(\s*"\.\/agentwasm\.wasm",\s*import\.meta\.url\s*\)/);
    assert.match(text, /new URL\(\s*"\.\/wasm_exec\.js",\s*import\.meta\.url\s*\)/);
  }
});

test('the bundled page runs a scripted turn in Chromium', { skip: missing || false }, async () => {
  server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://localhost');
    const name = url.pathname === '/' ? 'index.html' : url.pathname.slice(1);
    const file = path.join(www, name);
    const type = types[path.extname(file)] ?? 'application/octet-stream';
    try {
      if (!file.startsWith(www + path.sep)) throw new Error('outside');
      const body = await readFile(file);
      served.push({ path: url.pathname, status: 200, type });
      res.writeHead(200, { 'content-type': type }).end(body);
    } catch {
      served.push({ path: url.pathname, status: 404 });
      res.writeHead(404).end();
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${server.address().port}`;

  browser = await launchChromium();
  const page = await browser.newPage();
  const problems = [];
  page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console: ${msg.text()}`); });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('requestfailed', (req) => problems.push(`request failed: ${req.url()}`));

  await page.goto(`${base}/index.html`);
  await page.waitForFunction(() => window.agentwasmResult !== undefined);
  const result = await page.evaluate(() => window.agentwasmResult);
  assert.equal(result.error, undefined, JSON.stringify(result.error));
  assert.equal(result.status, 'completed', result.errorMessage);
  assert.equal(result.text, 'Hello from a bundle.');
  const manifest = JSON.parse(await readFile(path.join(pkg.installed, 'package.json'), 'utf8'));
  assert.equal(result.version.version, manifest.version);

  const paths = served.map((s) => s.path);
  for (const asset of ['/page.js', '/agentwasm.tiny.wasm', '/wasm_exec.tiny.js']) {
    assert.ok(paths.includes(asset), `${asset} was fetched (served: ${paths.join(', ')})`);
  }
  assert.equal(served.find((s) => s.path === '/agentwasm.tiny.wasm').type, 'application/wasm');
  assert.deepEqual(served.filter((s) => s.status !== 200), [], 'nothing answered 404');

  await mkdir(path.join(root, 'dist'), { recursive: true });
  await page.screenshot({ path: path.join(root, 'dist', 'bundle-test.png') });
  assert.deepEqual(problems, [], 'no console errors, page errors or failed requests');
});
