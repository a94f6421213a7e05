// Bundler tests: a fresh app (the packed package, `npm pack`, installed offline
// into a temp folder; its page entry fixture/app.mjs imports `agentwasm` by name)
// built the way a JS developer would, then opened in headless Chromium, where it
// loads the module with load()'s defaults and completes a turn with `agentwasm dev`
// (dist/agentwasm, the scripted model), started by the test:
//
//   - esbuild: bundled alone the page fails load_failed naming the missing files and
//     the copy step; after `npx agentwasm-assets www` (the package's command) it
//     completes the turn. The built app is served from the dev server's --web folder,
//     so it and /api share one origin.
//   - Vite, `vite build`: nothing to add; Vite emits every file the loader names.
//     Served from the dev server's --web folder too.
//   - Vite's dev server (createServer, its JS API) with no agentwasm-specific option:
//     the page on Vite's origin, /api forwarded by Vite's server.proxy to the dev
//     server, which allows Vite's origin (--allow-origin).
//
// Skipped when /usr/bin/chromium is missing (unless AGENTWASM_REQUIRE_BROWSER=1).
// Run with `make packagetest`; dist/bundlers-*.png are the screenshots.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { copyFile, mkdir, readdir, writeFile } from 'node:fs/promises';
import { createServer as netServer } from 'node:net';
import path from 'node:path';
import { browserMissing, launchChromium } from '../testing/browser.mjs';
import { startDevServer } from '../testing/devserver.mjs';
import { packAndInstall, root } from './fixture/pack.mjs';

const run = promisify(execFile);
const binary = path.join(root, 'dist', 'agentwasm');
const skip = browserMissing({ [binary]: 'make dist/agentwasm' }) || false;

let pkg;
let browser;
const devs = [];

const html = (title, script) => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${title}</title><link rel="icon" href="data:,"></head>
<body>
  <h1>${title}</h1>
  <div id="log"></div>
  <script type="module" src="${script}"></script>
</body>
</html>
`;

/** A free loopback port (for a server that needs its port before it starts). */
async function freePort() {
  const srv = netServer();
  await new Promise((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address();
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

/** Starts agentwasm dev with the scripted model on a free port, serving web at /; resolves with its URL. */
function startDev(web, extra = []) {
  const { child, url } = startDevServer(binary, ['--pace', '1ms', '--web', web, '--dist', path.join(root, 'dist'), ...extra], { cwd: root });
  devs.push(child);
  return url;
}

/**
 * Opens url in a fresh page and resolves with the app's result, the paths requested, and
 * the page's problems (console errors, page errors, failed requests, HTTP errors).
 */
async function openApp(url, screenshot) {
  const page = await browser.newPage();
  const problems = [];
  const requested = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('requestfailed', (r) => {
    // Every failed request counts, an aborted one too: a completed turn's requests complete.
    problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`);
  });
  page.on('response', (r) => {
    requested.push(new URL(r.url()).pathname);
    if (r.status() >= 400) problems.push(`HTTP ${r.status()} ${new URL(r.url()).pathname}`);
  });
  try {
    await page.goto(url);
    await page.waitForFunction(() => window.agentwasmResult !== undefined, null, { timeout: 30000 });
    const result = await page.evaluate(() => window.agentwasmResult);
    if (screenshot) await page.screenshot({ path: path.join(root, 'dist', screenshot) });
    return { result, requested, problems };
  } finally {
    await page.close();
  }
}

/** Asserts the app completed its turn with the scripted model, with nothing failing on the way. */
function assertTurn({ result, requested, problems }, wasm) {
  assert.equal(result.error, undefined, JSON.stringify(result.error));
  assert.equal(result.status, 'completed', result.errorMessage);
  assert.ok(result.text.length > 0, 'the scripted model answered');
  assert.equal(result.streamed, result.text, 'the streamed deltas make the turn\'s text');
  assert.ok(requested.some((p) => p.endsWith('/v1/studio/ai/chat')), `the chat went to /api (requested: ${requested.join(', ')})`);
  assert.ok(requested.some((p) => wasm.test(p)), `the module was fetched (requested: ${requested.join(', ')})`);
  assert.deepEqual(problems, [], 'no console errors, page errors or failed requests');
}

before(async () => {
  if (skip) return;
  pkg = await packAndInstall();
  await mkdir(path.join(pkg.app, 'src'));
  await copyFile(new URL('./fixture/app.mjs', import.meta.url), path.join(pkg.app, 'src', 'app.mjs'));
  browser = await launchChromium();
  await mkdir(path.join(root, 'dist'), { recursive: true });
});

after(async () => {
  await browser?.close();
  for (const dev of devs) dev.kill();
  await pkg?.cleanup();
});

test('esbuild: the bundle alone fails saying what to copy; after npx agentwasm-assets it completes a turn', { skip }, async () => {
  const esbuild = await import('esbuild');
  const www = path.join(pkg.app, 'esbuild-www');
  const result = await esbuild.build({
    absWorkingDir: pkg.app, entryPoints: ['src/app.mjs'], bundle: true, format: 'esm', platform: 'browser',
    outdir: www, logLevel: 'silent',
  });
  assert.deepEqual(result.errors, []);
  await writeFile(path.join(www, 'index.html'), html('agentwasm, bundled with esbuild', './app.js'));
  const base = await startDev(www);

  // esbuild copies nothing: the loader says which files are missing and how to copy them.
  assert.deepEqual((await readdir(www)).sort(), ['app.js', 'index.html'], 'esbuild wrote the bundle only');
  const bare = await openApp(`${base}/`);
  assert.equal(bare.result.error?.code, 'load_failed');
  assert.match(bare.result.error.message, /wasm_exec\.tiny\.js/);
  assert.match(bare.result.error.message, /agentwasm\.tiny\.wasm and wasm_exec\.tiny\.js from beside itself/);
  assert.match(bare.result.error.message, /npx agentwasm-assets <your bundle's folder>/);

  // The copy step, as the package's command, from the app's folder.
  const { stdout } = await run('npx', ['--offline', '--no-install', 'agentwasm-assets', 'esbuild-www'], { cwd: pkg.app });
  assert.match(stdout, /agentwasm\.tiny\.wasm/);
  assert.deepEqual((await readdir(www)).sort(), ['agentwasm.tiny.wasm', 'app.js', 'index.html', 'wasm_exec.tiny.js']);
  assertTurn(await openApp(`${base}/`, 'bundlers-esbuild.png'), /^\/agentwasm\.tiny\.wasm$/);
});

test('Vite: vite build emits every file the loader names; the built app completes a turn', { skip }, async () => {
  const vite = await import('vite');
  await writeFile(path.join(pkg.app, 'index.html'), html('agentwasm, built with Vite', '/src/app.mjs'));
  const outDir = path.join(pkg.app, 'vite-dist');
  await vite.build({ root: pkg.app, configFile: false, logLevel: 'silent', build: { outDir, emptyOutDir: true } });
  // Every file the loader names is emitted, as <name>-<8-character hash>.<ext>.
  const assets = await readdir(path.join(outDir, 'assets'));
  const emitted = assets.map((f) => f.replace(/-[\w-]{8}(\.(?:wasm|js))$/, '$1'));
  const named = ['agentwasm.wasm', 'wasm_exec.js', 'agentwasm-session.wasm',
    'agentwasm.tiny.wasm', 'agentwasm-session.tiny.wasm', 'wasm_exec.tiny.js'];
  for (const file of named) assert.ok(emitted.includes(file), `${file} emitted (assets: ${assets.join(', ')})`);
  const base = await startDev(outDir);
  assertTurn(await openApp(`${base}/`, 'bundlers-vite-build.png'), /^\/assets\/agentwasm\.tiny-[\w-]+\.wasm$/);
});

test('Vite: the dev server (createServer) serves the app, which completes a turn through server.proxy', { skip }, async () => {
  const vite = await import('vite');
  await writeFile(path.join(pkg.app, 'index.html'), html('agentwasm, on Vite\'s dev server', '/src/app.mjs'));
  const port = await freePort();
  const viteOrigin = `http://127.0.0.1:${port}`;
  // The dev server answers /api for its own origin and those it allows: Vite's page, through the proxy.
  const target = await startDev(path.join(pkg.app, 'src'), ['--allow-origin', viteOrigin]);
  const server = await vite.createServer({
    root: pkg.app, configFile: false, logLevel: 'silent',
    server: { host: '127.0.0.1', port, strictPort: true, proxy: { '/api': { target, changeOrigin: true } } },
  });
  try {
    await server.listen();
    const app = await openApp(`${viteOrigin}/`, 'bundlers-vite-dev.png');
    // Straight from the installed package: no optimizeDeps setting needed.
    assertTurn(app, /^\/node_modules\/agentwasm\/agentwasm\.tiny\.wasm$/);
  } finally {
    await server.close();
  }
});
