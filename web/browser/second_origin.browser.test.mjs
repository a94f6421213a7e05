// Browser test of an app on its own origin using `agentwasm dev`: the dev
// binary (dist/agentwasm, the scripted model) on one loopback port, started
// with --allow-origin for a second origin, and a small app — a page of its
// own and the built module — served by a Node server of this test on that
// second origin. In headless Chromium the app, with baseUrl pointing at the
// dev server's /api, completes turns across origins: the capabilities GET,
// the chat POST (preflighted), a page tool call, and MCP discovery and
// composition calls on /api/mcp (session id, protocol version, the
// list-changed listen stream and the session's DELETE on close). The same
// app on a third origin, not allowed, fails with an error that says what to
// do (--allow-origin with its origin), and no chat reaches the proxy.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { browserMissing, launchChromium } from '../testing/browser.mjs';
import { startDevServer } from '../testing/devserver.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const binary = path.join(root, 'dist', 'agentwasm');
const skip = browserMissing({ [binary]: 'make dist/agentwasm' }) || false;

let dev;
let devLog = ''; // the dev server's log: one line per chat answered, one per refusal
let devApi; // http://127.0.0.1:<dev port>/api
let allowed; // the app's server on the allowed origin
let other; // the same app on an origin that is not allowed
let browser;

/**
 * The app: a page that loads the module from its own origin and talks to the
 * dev server named by ?api=; window.app.chat(text) runs one turn. Its page
 * tool set_basemap records what the model asked for.
 */
const appPage = `<!doctype html>
<html lang="en"><meta charset="utf-8"><link rel="icon" href="data:,"><title>an app on its own origin</title>
<body><main><h1>My app</h1><p id="basemap">light</p></main>
<script type="module">
import { load } from '/dist/agentwasm.mjs';
const api = new URL(location.href).searchParams.get('api');
const runtime = await load();
const events = [];
const session = runtime.createSession({
  baseUrl: api,
  watchToolListChanged: true,
  toolDiscoveryTimeoutMs: 10000,
  studioTools: { required: ['honua_studio_create_draft', 'honua_studio_add_layer'] },
  tools: [{
    name: 'set_basemap', description: 'Sets the basemap of the map preview.',
    parameters: { type: 'object', properties: { style: { type: 'string' } }, required: ['style'] },
    execute: ({ style }) => { document.getElementById('basemap').textContent = style; return { status: 'ok', style }; },
  }],
  onEvent: (e) => events.push(e.type === 'toolWatch' ? 'toolWatch:' + e.status : e.type),
});
window.app = {
  chat: (text) => session.chat(text),
  discovery: () => session.toolDiscovery(),
  events,
  close: () => session.close(),
  basemap: () => document.getElementById('basemap').textContent,
};
window.app.ready = true;
</script>
</body></html>`;

const types = { '.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm' };

/** The app's server: the page at / and the built module at /dist/. */
function startApp() {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://localhost');
    if (url.pathname === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(appPage);
    const file = path.join(root, url.pathname);
    if (!url.pathname.startsWith('/dist/') || !file.startsWith(path.join(root, 'dist') + path.sep)) return res.writeHead(404).end();
    try {
      res.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' }).end(await readFile(file));
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r(server)));
}

/** Starts agentwasm dev allowing origin; resolves with its /api URL. */
function startDev(origin) {
  const started = startDevServer(binary, ['--pace', '1ms', '--allow-origin', origin, '--web', 'web/demo', '--dist', 'dist'],
    { cwd: root, onLog: (text) => { devLog += text; } });
  dev = started.child;
  return started.url.then((url) => `${url}/api`);
}

const origin = (server) => `http://127.0.0.1:${server.address().port}`;
const chatsAnswered = () => devLog.match(/^chat: /gm)?.length ?? 0;

before(async () => {
  if (skip) return;
  allowed = await startApp();
  other = await startApp();
  devApi = await startDev(origin(allowed));
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  dev?.kill();
  allowed?.close();
  other?.close();
});

/** Opens the app from server in a fresh page; returns it with what it logged. */
async function openApp(server) {
  const page = await browser.newPage();
  const seen = { console: [], requests: [], failed: [] };
  page.on('console', (m) => seen.console.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (err) => seen.console.push(`page error: ${err.message}`));
  page.on('request', (r) => { if (r.url().startsWith(devApi)) seen.requests.push(`${r.method()} ${new URL(r.url()).pathname}`); });
  page.on('requestfailed', (r) => { if (r.url().startsWith(devApi)) seen.failed.push(`${r.method()} ${new URL(r.url()).pathname} ${r.failure()?.errorText}`); });
  await page.goto(`${origin(server)}/?api=${encodeURIComponent(devApi)}`);
  await page.waitForFunction(() => window.app?.ready === true, null, { timeout: 30000 });
  return { page, seen };
}

test('an app on an allowed origin completes turns with a page tool and MCP tools', { skip }, async () => {
  const { page, seen } = await openApp(allowed);
  try {
    const before = chatsAnswered();
    const dark = await page.evaluate(() => window.app.chat('make the map dark'));
    assert.equal(dark.status, 'completed', dark.errorMessage);
    assert.equal(dark.text.trim().split('\n').at(-1), 'Done: the basemap is now dark.');
    assert.equal(await page.evaluate(() => window.app.basemap()), 'dark');

    const layer = await page.evaluate(() => window.app.chat('add a schools layer'));
    assert.equal(layer.status, 'completed', layer.errorMessage);
    assert.match(layer.text, /Added the schools layer to draft /);
    const report = await page.evaluate(() => window.app.discovery());
    assert.equal(report.errorMessage, undefined);
    assert.ok(report.routed.includes('honua_studio_add_layer'), `routed: ${report.routed}`);
    assert.ok(chatsAnswered() >= before + 4, 'the proxy answered the rounds of both turns');

    // The list-changed watch holds a listen stream open (the demo server
    // speaks the stateless era: a POST of subscriptions/listen).
    await page.waitForFunction(() => window.app.events.includes('toolWatch:open'), null, { timeout: 15000 });
    await page.evaluate(() => window.app.close());

    for (const want of ['GET /api/v1/studio/ai/capabilities', 'POST /api/v1/studio/ai/chat', 'POST /api/mcp']) {
      assert.ok(seen.requests.includes(want), `the app sent ${want} (sent: ${[...new Set(seen.requests)]})`);
    }
    // Chromium refused nothing: no CORS error in the console, no refusal in the dev server's log.
    assert.deepEqual(seen.console.filter((l) => /CORS|Access-Control|error/i.test(l)), []);
    assert.doesNotMatch(devLog, /api: refused/);
    assert.deepEqual(seen.failed.filter((l) => !/ERR_ABORTED/.test(l)), []);
  } finally {
    await page.close();
  }
});

test("an allowed origin speaks MCP's session era: the session id is readable, the GET stream and DELETE pass", { skip }, async () => {
  const { page, seen } = await openApp(allowed);
  try {
    const got = await page.evaluate(async (mcp) => {
      const version = '2025-11-25';
      const post = (body, headers = {}) => fetch(mcp, {
        method: 'POST', body: JSON.stringify(body),
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      });
      const init = await post({ jsonrpc: '2.0', id: 1, method: 'initialize',
        params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'second-origin', version: '1' } } });
      const id = init.headers.get('mcp-session-id');
      const out = { init: init.status, id, initText: await init.text() };
      const session = { 'mcp-session-id': id, 'mcp-protocol-version': version };
      out.initialized = (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status;
      const list = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { ...session, authorization: 'Bearer t' });
      out.list = list.status;
      out.listText = await list.text();
      // The listen stream, as a reconnect after a cut sends it.
      const controller = new AbortController();
      const listen = await fetch(mcp, { headers: { accept: 'text/event-stream', 'last-event-id': '0', ...session }, signal: controller.signal });
      out.listen = `${listen.status} ${listen.headers.get('content-type')}`;
      controller.abort();
      out.del = (await fetch(mcp, { method: 'DELETE', headers: session })).status;
      out.after = (await post({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, session)).status;
      return out;
    }, `${devApi}/mcp`);
    assert.equal(got.init, 200, got.initText);
    assert.match(got.id ?? '', /.+/, 'the page reads Mcp-Session-Id (Access-Control-Expose-Headers)');
    assert.equal(got.initialized, 202);
    assert.equal(got.list, 200);
    assert.match(got.listText, /honua_studio_create_draft/);
    assert.match(got.listen, /^200 text\/event-stream/);
    // An answer the page can read at all means CORS let the DELETE through (a refusal rejects the
    // fetch). 404 is allowed too: Chromium may send an idempotent DELETE again when its first
    // connection closes under it (the listen stream's abort), and the second finds the session gone.
    assert.ok([200, 204, 404].includes(got.del), `DELETE answered ${got.del}`);
    assert.equal(got.after, 404, 'the session is gone: the DELETE ended it');
    assert.deepEqual(seen.console.filter((l) => /CORS|Access-Control/i.test(l)), []);
    assert.doesNotMatch(devLog, /api: refused/);
  } finally {
    await page.close();
  }
});

test('the same app on an origin not allowed fails with an error that names --allow-origin', { skip }, async (t) => {
  const { page } = await openApp(other);
  try {
    const before = chatsAnswered();
    const turn = await page.evaluate(() => window.app.chat('make the map dark'));
    assert.equal(turn.status, 'error');
    t.diagnostic(`the person reads: ${turn.errorMessage}`);
    const o = origin(other);
    assert.match(turn.errorMessage, /^Could not reach the Studio AI proxy at http:\/\/127\.0\.0\.1:\d+\/api\/v1\/studio\/ai\/chat: /);
    assert.ok(turn.errorMessage.includes(`--allow-origin ${o}`), turn.errorMessage);
    assert.match(turn.errorMessage, /CORS/);
    const report = await page.evaluate(() => window.app.discovery());
    assert.ok(report.errorMessage?.includes(`--allow-origin ${o}`), `discovery: ${report.errorMessage}`);
    assert.equal(await page.evaluate(() => window.app.basemap()), 'light');
    assert.equal(chatsAnswered(), before, 'no chat reached the proxy');
    assert.ok(devLog.includes(`api: refused 403 forbidden_origin: OPTIONS "/api/v1/studio/ai/chat", Host "${new URL(devApi).host}", Origin "${o}"`),
      `the dev server logged the refused preflight:\n${devLog}`);
  } finally {
    await page.close();
  }
});
