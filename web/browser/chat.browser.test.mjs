// Browser test: the js module in headless Chromium (Debian's chromium,
// driven by playwright-core), loaded from dist/ with the loader's defaults
// (instantiateStreaming), chatting through the page's real fetch against a
// Studio AI proxy served by this test on 127.0.0.1 that streams SSE in
// separate writes; and the join: an in-page agent whose kit is the page's
// serving port meets needs-confirm, the person clicks the approval card, and
// the payment fires; a module that dies mid-turn (debug.crash); and the
// TinyGo build, when dist/ holds it. Run with `make browsertest` after
// `make build`; `make test-tiny` runs the TinyGo test after `make build-tiny`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFile, mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { browserMissing, launchChromium } from '../testing/browser.mjs';
import { tinyMissing as tinyMissingFromDist } from '../testing/helpers.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const missing = browserMissing();
// Why the TinyGo test skips ('' when dist/ holds the build; `make test-tiny` requires it).
const tinyMissing = tinyMissingFromDist();

const types = { '.html': 'text/html', '.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm' };
const frame = (event, data) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let server;
let base;
let browser;
let page;
const seen = { chatBodies: [], hangClosed: false };

async function serve(req, res) {
  const url = new URL(req.url, 'http://localhost');
  if (req.method === 'POST') {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    seen.chatBodies.push(JSON.parse(Buffer.concat(chunks).toString()));
  }
  if (url.pathname === '/api/v1/studio/ai/chat') {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(frame('message_start', { model: 'browser-model' }));
    for (const text of ['Streamed ', 'through ', 'the page\'s ', 'fetch.']) {
      await sleep(15);
      res.write(frame('text_delta', { text }));
    }
    res.end(frame('message_stop', { stopReason: 'endTurn' }));
    return;
  }
  if (url.pathname === '/api-hang/v1/studio/ai/chat') {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(frame('text_delta', { text: 'partial' }));
    res.on('close', () => { seen.hangClosed = true; });
    return; // never ends
  }
  if (url.pathname === '/api-500/v1/studio/ai/chat') {
    res.writeHead(500).end('boom');
    return;
  }
  const file = url.pathname.startsWith('/dist/') ? path.join(root, url.pathname) : path.join(root, 'web', url.pathname);
  if (!file.startsWith(root)) return res.writeHead(403).end();
  try {
    const body = await readFile(file);
    res.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' }).end(body);
  } catch {
    res.writeHead(404).end();
  }
}

before(async () => {
  if (missing) return;
  server = createServer((req, res) => { serve(req, res).catch(() => res.destroy()); });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${server.address().port}`;
  browser = await launchChromium();
  page = await browser.newPage();
  page.on('pageerror', (err) => console.error('page error:', err));
  await page.goto(`${base}/browser/index.html`);
  await page.waitForFunction(() => window.agentwasmReady === true);
});

after(async () => {
  await browser?.close();
  server?.close();
});

test('a streamed text turn through the page\'s fetch', { skip: missing || false }, async () => {
  const { turn, events, version } = await page.evaluate(() => window.agentwasmTest.textTurn());
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.equal(turn.text, 'Streamed through the page\'s fetch.');
  assert.deepEqual(events, ['messageStart', 'textDelta', 'textDelta', 'textDelta', 'textDelta', 'messageStop']);
  assert.equal(version.abi, 1);
  assert.deepEqual(seen.chatBodies.at(-1), { model: 'm', messages: [{ role: 'user', content: 'hello from the page' }] });
});

test('aborting mid-stream cancels the turn and closes the request', { skip: missing || false }, async () => {
  const turn = await page.evaluate(() => window.agentwasmTest.abortMidStream());
  assert.equal(turn.status, 'cancelled');
  assert.equal(turn.text, 'partial');
  for (let i = 0; i < 100 && !seen.hangClosed; i++) await sleep(10);
  assert.equal(seen.hangClosed, true, 'the server saw the request closed');
});

test('a proxy answering 500 ends the turn with an error', { skip: missing || false }, async () => {
  const turn = await page.evaluate(() => window.agentwasmTest.serverError());
  assert.equal(turn.status, 'error');
  assert.equal(turn.errorMessage, 'Studio AI proxy responded 500 for the chat request.');
});

test('a module that dies mid-turn rejects the turn with module_exited, closes its request, and a fresh runtime serves', { skip: missing || false }, async () => {
  seen.hangClosed = false;
  const errors = [];
  const onError = (err) => errors.push(String(err));
  page.on('pageerror', onError);
  const out = await page.evaluate(() => window.agentwasmTest.moduleDies());
  page.off('pageerror', onError);
  assert.equal(out.crash, 'module_exited');
  assert.equal(out.died?.code, 'module_exited');
  assert.match(out.died.message, /the module's Go program exited with code 2 .* call load\(\) for a new runtime/);
  assert.equal(out.later, 'module_exited');
  assert.equal(out.exited, true);
  assert.deepEqual(out.exits, ['module_exited']);
  assert.equal(out.next, 'error', 'the fresh runtime ran a turn (the 500 proxy ends it with an error)');
  for (let i = 0; i < 100 && !seen.hangClosed; i++) await sleep(10);
  assert.equal(seen.hangClosed, true, 'the server saw the dead turn\'s request closed');
  assert.deepEqual(errors, [], 'no page errors');
});

test('the TinyGo build in the page: the same streamed turn, and a death that rejects with module_exited', { skip: missing || tinyMissing || false }, async () => {
  const errors = [];
  const onError = (err) => errors.push(String(err));
  page.on('pageerror', onError);
  const out = await page.evaluate(() => window.agentwasmTest.tinyTurn());
  page.off('pageerror', onError);
  assert.match(out.version.goVersion, /^tinygo0\./);
  assert.equal(out.turn.status, 'completed', out.turn.errorMessage);
  assert.equal(out.turn.text, 'Streamed through the page\'s fetch.');
  assert.deepEqual(out.events, ['messageStart', 'textDelta', 'textDelta', 'textDelta', 'textDelta', 'messageStop']);
  assert.equal(out.crash?.code, 'module_exited');
  assert.match(out.crash.message, /the module trapped \(RuntimeError: unreachable\)/);
  assert.equal(out.later, 'module_exited');
  assert.equal(out.exited, true);
  assert.deepEqual(errors, [], 'no page errors');
});

test('the in-page agent drives the app; the turn stops on the payment, and the person\'s card resumes it', { skip: missing || false }, async () => {
  const first = await page.evaluate(() => window.agentwasmTest.agentAsks());
  assert.equal(first.turn.status, 'completed', first.turn.errorMessage);
  assert.equal(first.page, 'checkout', 'the agent took the first step of the journey');
  assert.equal(first.cards, 1, 'one approval card');
  assert.match(first.card, /^The assistant wants to: Pay 12\.50 EUR for the order/);
  assert.equal(first.turn.rounds, 3, 'no model request after the round that met the ask');
  const asked = JSON.parse(first.turn.toolCalls[2].content).data;
  assert.equal(asked.judgment, 'needs-confirm');
  assert.equal(asked.performed, false);
  assert.equal(first.turn.pendingApprovals[0].askId, asked.askId);
  assert.equal(await page.textContent('#receipt'), '', 'nothing was paid yet');

  await mkdir(path.join(root, 'dist'), { recursive: true });
  await page.screenshot({ path: path.join(root, 'dist', 'browser-approval-card.png') });
  await page.click('#cards .card button.approve'); // the person, not the model: session.resume
  assert.equal(await page.locator('#cards .card').count(), 0, 'the card is answered');

  const second = await page.evaluate(() => window.agentwasmTest.agentContinues());
  assert.equal(second.turn.status, 'completed', second.turn.errorMessage);
  const paid = JSON.parse(second.turn.toolCalls[0].content).data;
  assert.equal(paid.effectStatus, 'performed', JSON.stringify(paid));
  assert.deepEqual(paid.data, { orderId: 'o-1' });
  assert.equal(second.page, 'done');
  assert.equal(second.receipt, '— paid, order o-1');
  assert.equal(await page.textContent('#shop-page'), 'done');
  const shots = path.join(root, 'dist');
  await mkdir(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, 'browser-test.png') });
});
