// Browser test: a finished stream is read to its end and closed, not
// aborted. `agentwasm dev` (dist/agentwasm, built by `make browsertest`)
// serves a bare page and the module; in headless Chromium (Debian's
// chromium through playwright-core) a session runs turns against the
// scripted model — plain text, a round with a page tool, MCP composition
// tools — and no request of a completed turn may fail or be aborted, as
// playwright's requestfailed and the DevTools protocol's
// Network.loadingFailed report them (DevTools shows such a request as
// net::ERR_ABORTED; Chromium did so for about a third of the demo's chat
// requests while the dev server sent them with Cache-Control: no-store,
// which it reports as aborted for an answer read through a stream, even to
// its end). Stop still aborts: a turn stopped mid-stream shows its chat
// request as aborted.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { browserMissing, launchChromium } from '../testing/browser.mjs';
import { startDevServer } from '../testing/devserver.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const binary = path.join(root, 'dist', 'agentwasm');
const skip = browserMissing({ [binary]: 'make dist/agentwasm' }) || false;

let dev;
let webDir;
let browser;
let page;
const problems = []; // console errors, page errors
/** Every request the page made, by CDP request id: {url, method, failed?: {errorText, canceled}, finished}. */
const requests = new Map();
/** playwright's requestfailed: {url, method, errorText}. */
const failedByPlaywright = [];

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>no abort</title><link rel="icon" href="data:,"></head>
<body><h1>no abort</h1>
<script type="module">
  import { load } from '/dist/agentwasm.mjs';
  const runtime = await load();
  const session = runtime.createSession({
    baseUrl: '/api',
    tools: [{
      name: 'set_basemap',
      description: 'Set the basemap',
      inputSchema: { type: 'object', properties: { style: { type: 'string' } } },
      execute: async (args) => ({ status: 'ok', data: { style: args.style } }),
    }],
  });
  let controller = null;
  window.chat = async (text) => {
    controller = new AbortController();
    const turn = await session.chat(text, { signal: controller.signal });
    return { status: turn.status, text: turn.text, rounds: turn.rounds, tools: turn.toolCalls.map((c) => c.toolName), errorMessage: turn.errorMessage };
  };
  window.stop = () => controller?.abort();
  window.ready = true;
</script></body></html>`;

/** Starts agentwasm dev on a free port, serving webDir, and resolves with its URL. */
function startDev() {
  const started = startDevServer(binary, ['--pace', '25ms', '--web', webDir, '--dist', 'dist'], { cwd: root });
  dev = started.child;
  return started.url;
}

/** The API requests made since mark (a count of requests), with their fates. */
function apiRequestsSince(mark) {
  return [...requests.values()].slice(mark).filter((r) => new URL(r.url).pathname.startsWith('/api/'));
}

/** Waits until every request made since mark has finished or failed (the network events trail the page's promises). */
async function settled(mark) {
  const deadline = Date.now() + 15000;
  for (;;) {
    const open = apiRequestsSince(mark).filter((r) => !r.finished && !r.failed
      && !(r.method === 'GET' && new URL(r.url).pathname === '/api/mcp')); // the list-changed watch stays open
    if (open.length === 0) return;
    if (Date.now() > deadline) assert.fail(`requests still open: ${open.map((r) => `${r.method} ${r.url}`).join(', ')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

before(async () => {
  if (skip) return;
  webDir = await mkdtemp(path.join(tmpdir(), 'agentwasm-no-abort-'));
  await writeFile(path.join(webDir, 'index.html'), PAGE);
  const base = await startDev();
  browser = await launchChromium();
  page = await browser.newPage();
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('requestfailed', (r) => failedByPlaywright.push({ url: r.url(), method: r.method(), errorText: r.failure()?.errorText }));
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  cdp.on('Network.requestWillBeSent', (e) => {
    if (!requests.has(e.requestId)) requests.set(e.requestId, { url: e.request.url, method: e.request.method, finished: false });
  });
  cdp.on('Network.loadingFinished', (e) => { const r = requests.get(e.requestId); if (r) r.finished = true; });
  cdp.on('Network.loadingFailed', (e) => {
    const r = requests.get(e.requestId);
    if (r) r.failed = { errorText: e.errorText, canceled: Boolean(e.canceled) };
  });
  await page.goto(`${base}/`);
  await page.waitForFunction(() => window.ready === true, null, { timeout: 30000 });
});

after(async () => {
  await browser?.close();
  dev?.kill();
  if (webDir) await rm(webDir, { recursive: true, force: true });
});

test('completed turns leave no failed or aborted request', { skip }, async () => {
  const cases = [
    { name: 'plain text', text: 'hello', rounds: 1, tools: [] },
    { name: 'a page tool round', text: 'make the map dark', rounds: 2, tools: ['set_basemap'] },
    { name: 'MCP composition tools', text: 'add a schools layer', rounds: 3, tools: ['honua_studio_create_draft', 'honua_studio_add_layer'] },
    { name: 'plain text again', text: 'hello again', rounds: 1, tools: [] },
  ];
  for (const c of cases) {
    const mark = requests.size;
    const failedMark = failedByPlaywright.length;
    const turn = await page.evaluate((text) => window.chat(text), c.text);
    assert.equal(turn.status, 'completed', `${c.name}: ${turn.errorMessage}`);
    assert.equal(turn.rounds, c.rounds, c.name);
    assert.deepEqual(turn.tools, c.tools, c.name);
    await settled(mark);
    const api = apiRequestsSince(mark);
    const chats = api.filter((r) => r.url.endsWith('/api/v1/studio/ai/chat'));
    assert.equal(chats.length, c.rounds, `${c.name}: one chat request per round`);
    const failed = api.filter((r) => r.failed).map((r) => `${r.method} ${r.url}: ${r.failed.errorText}`);
    assert.deepEqual(failed, [], `${c.name}: requests failed (DevTools: net::ERR_ABORTED)`);
    const pw = failedByPlaywright.slice(failedMark).map((r) => `${r.method} ${r.url}: ${r.errorText}`);
    assert.deepEqual(pw, [], `${c.name}: playwright saw failed requests`);
  }
  assert.deepEqual(problems, []);
});

test('Stop still aborts the running request', { skip }, async () => {
  const mark = requests.size;
  const failedMark = failedByPlaywright.length;
  const turn = page.evaluate(() => window.chat('tell me a long story'));
  // Stop once the story is streaming: its chat request has started.
  const deadline = Date.now() + 15000;
  while (!apiRequestsSince(mark).some((r) => r.url.endsWith('/api/v1/studio/ai/chat'))) {
    if (Date.now() > deadline) assert.fail('the story did not start');
    await new Promise((r) => setTimeout(r, 20));
  }
  await new Promise((r) => setTimeout(r, 200)); // a few words in (the pace is 25 ms a word, the story about a hundred)
  await page.evaluate(() => window.stop());
  const t = await turn;
  assert.equal(t.status, 'cancelled');
  await settled(mark);
  const chat = apiRequestsSince(mark).find((r) => r.url.endsWith('/api/v1/studio/ai/chat'));
  assert.ok(chat.failed, 'the stopped chat request is aborted');
  assert.equal(chat.failed.canceled, true, chat.failed.errorText);
  assert.ok(failedByPlaywright.slice(failedMark).some((r) => r.url.endsWith('/api/v1/studio/ai/chat') && /ERR_ABORTED/.test(r.errorText)),
    JSON.stringify(failedByPlaywright.slice(failedMark)));
});
