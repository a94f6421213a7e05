// Browser test of Port.registerWebMCP: headless Chromium (Debian's chromium
// through playwright-core) opens web/browser/webmcp.html, served by this test
// on 127.0.0.1 (a secure context, which WebMCP needs), which loads
// @mcp-b/webmcp-polyfill from web/node_modules (its ESM entry, initialized
// with the testing shim), the loader from web/ and the module from dist/
// (`make build`). A shop's port registers its tools with
// document.modelContext; the tools are run the way WebMCP runs them
// (getTools, then executeTool with the arguments as JSON), and answer what
// port.call answers on a twin port; the high-effect step stops on the ask
// until the page's approval card (a human door) approves it; unregister()
// and close() take the tools away; a name taken already rolls the
// registration back; a page without WebMCP gets registered: false.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { browserMissing, launchChromium } from '../testing/browser.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const polyfill = path.join(root, 'web', 'node_modules', '@mcp-b', 'webmcp-polyfill', 'dist', 'index.js');
const skip = browserMissing({
  [path.join(root, 'dist', 'agentwasm.wasm')]: 'make build',
  [polyfill]: 'npm ci in web/',
}) || false;

const types = { '.html': 'text/html', '.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm' };
let server;
let base;
let browser;
let page;
const problems = []; // page errors, console errors, HTTP errors

/** /web/… from web/, /dist/… from dist/; nothing else. */
async function serve(req, res) {
  const { pathname } = new URL(req.url, 'http://localhost');
  const file = path.join(root, decodeURIComponent(pathname));
  if (!(file.startsWith(path.join(root, 'web') + path.sep) || file.startsWith(path.join(root, 'dist') + path.sep))) {
    return res.writeHead(404).end();
  }
  try {
    const body = await readFile(file);
    res.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' }).end(body);
  } catch {
    res.writeHead(404).end();
  }
}

/** Opens the fixture page (with the polyfill unless told) and waits for it. */
async function open(query = '') {
  const p = await browser.newPage();
  p.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  p.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  p.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()} ${r.url()}`); });
  await p.goto(`${base}/web/browser/webmcp.html${query}`);
  await p.waitForFunction(() => window.webmcpReady === true, null, { timeout: 30000 });
  return p;
}

const t = (fn, ...args) => page.evaluate(([name, a]) => window.webmcpTest[name](...a), [fn, args]);

before(async () => {
  if (skip) return;
  server = createServer((req, res) => { serve(req, res).catch(() => res.destroy()); });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${server.address().port}`;
  browser = await launchChromium();
  page = await open();
});

after(async () => {
  await browser?.close();
  server?.close();
});

test('the polyfill gives the page document.modelContext', { skip }, async () => {
  assert.equal(await t('hasContext'), true);
  assert.deepEqual(await t('listed'), { core: [], testing: [] });
});

test('registerWebMCP registers exactly the port\'s tools', { skip }, async () => {
  const names = await t('makePort', 'web');
  const registration = await t('register', 'web');
  assert.deepEqual(registration, { registered: true, tools: names });
  const { core, testing } = await t('listed');
  // getTools() lists by name; the testing shim in registration order.
  assert.deepEqual(core, [...names].sort());
  assert.deepEqual(testing, names);
  assert.deepEqual(problems, []);
});

test('an ordinary action through WebMCP answers what port.call answers on a twin port', { skip }, async () => {
  await t('makePort', 'twin');
  const args = { action: 'cart.add', input: { sku: 'A1' } };
  const viaWebMCP = await t('execute', 'shop.do_action', args);
  const direct = await t('call', 'twin', 'shop.do_action', args);
  assert.equal(direct.ok, true, JSON.stringify(direct));
  assert.equal(direct.effectStatus, 'performed', 'settled within the fold');
  assert.deepEqual(viaWebMCP, { content: [{ type: 'text', text: JSON.stringify(direct) }], structuredContent: direct });
  // Read-only tools too, and a refusal is a result, not an error.
  assert.deepEqual(await t('execute', 'shop.whats_here', {}), {
    content: [{ type: 'text', text: JSON.stringify(await t('call', 'twin', 'shop.whats_here', {})) }],
    structuredContent: await t('call', 'twin', 'shop.whats_here', {}),
  });
  const refused = await t('execute', 'shop.do_action', { action: 'cart.nothing' });
  assert.equal(refused.isError, undefined, 'an unknown action is the model\'s mistake, not an error result');
  assert.equal(refused.structuredContent.ok, false);
  assert.deepEqual((await t('fired')).map(([port, action, input, source]) => [port, action, input, source]),
    [['web', 'cart.add', { sku: 'A1' }, 'agent'], ['twin', 'cart.add', { sku: 'A1' }, 'agent']]);
});

test('the high-effect action through WebMCP waits for the page\'s approval card', { skip }, async () => {
  const asked = (await t('execute', 'shop.do_action', { action: 'cart.pay' })).structuredContent;
  assert.equal(asked.judgment, 'needs-confirm', JSON.stringify(asked));
  assert.equal(asked.performed, false);
  assert.equal(asked.awaitingHuman, true);
  const cards = await t('asks', 'web');
  assert.deepEqual(cards.map((a) => [a.askId, a.action, a.state]), [[asked.askId, 'cart.pay', 'pending']]);

  // confirm:true from the agent is not an approval.
  const again = (await t('execute', 'shop.do_action', { action: 'cart.pay', confirm: true })).structuredContent;
  assert.equal(again.judgment, 'needs-confirm', JSON.stringify(again));
  assert.equal(again.performed, false);
  assert.equal(again.awaitingHuman, true);
  assert.equal(again.askId, asked.askId);
  assert.ok(!(await t('fired')).some(([, action]) => action === 'cart.pay'), 'nothing was paid');

  await t('approve', 'web', asked.askId); // the person clicks Approve
  assert.equal((await t('asks', 'web'))[0].state, 'approved');
  const paid = await t('execute', 'shop.do_action', { action: 'cart.pay', confirm: true });
  assert.equal(paid.isError, undefined);
  assert.equal(paid.structuredContent.ok, true, JSON.stringify(paid));
  assert.equal(paid.structuredContent.did, 'cart.pay');
  assert.equal(paid.structuredContent.askId, asked.askId);
  assert.equal(paid.structuredContent.effectStatus, 'performed');
  assert.deepEqual((await t('fired')).filter(([, action]) => action === 'cart.pay'), [['web', 'cart.pay', null, 'agent']]);
});

test('unregister() and close() take the tools away from WebMCP', { skip }, async () => {
  await t('unregister', 'web');
  assert.deepEqual(await t('listed'), { core: [], testing: [] });
  await t('unregister', 'web'); // a second time does nothing

  await t('register', 'twin');
  assert.equal((await t('listed')).core.length, 4);
  await t('close', 'twin');
  assert.deepEqual(await t('listed'), { core: [], testing: [] });
});

test('a name taken already rolls the registration back and throws webmcp_failed', { skip }, async () => {
  const names = await t('makePort', 'web');
  await page.evaluate(() => window.webmcpTest.occupy('shop.why'));
  const failed = await t('registerFails', 'web');
  assert.equal(failed?.code, 'webmcp_failed', JSON.stringify(failed));
  assert.match(failed.message, /shop\.why/);
  assert.match(failed.message, /already registered/i);
  assert.deepEqual((await t('listed')).core, ['shop.why'], 'only the other tool is left');
  await page.evaluate(() => window.webmcpTest.vacate());
  assert.deepEqual((await t('register', 'web')).tools, names, 'once the name is free the port registers');
  assert.deepEqual((await t('listed')).core, [...names].sort());
  await t('close', 'web');
});

test('without a WebMCP API, registerWebMCP says so and registers nothing', { skip }, async () => {
  await t('makePort', 'web');
  const given = await t('register', 'web', { modelContext: null });
  assert.equal(given.registered, false);
  assert.deepEqual(given.tools, []);
  assert.match(given.reason, /no WebMCP API/);

  const bare = await open('?polyfill=0');
  try {
    const out = await bare.evaluate(async () => {
      const { webmcpTest } = window;
      webmcpTest.makePort('bare');
      const registration = await webmcpTest.register('bare');
      webmcpTest.unregister('bare'); // a no-op
      return { hasContext: webmcpTest.hasContext(), withPolyfill: webmcpTest.withPolyfill, registration };
    });
    assert.equal(out.withPolyfill, false);
    assert.equal(out.hasContext, false);
    assert.equal(out.registration.registered, false);
    assert.deepEqual(out.registration.tools, []);
    assert.match(out.registration.reason, /this browser offers no WebMCP API \(neither document\.modelContext nor navigator\.modelContext/);
  } finally {
    await bare.close();
  }
  assert.deepEqual(problems, []);
});
