// Browser test of `agentwasm dev`'s origin policy: the dev binary
// (dist/agentwasm) in front of a fake OpenAI-compatible upstream (a Node
// server here that counts the chat requests reaching it), with a key set.
// In headless Chromium, pages on second origins — another port on
// 127.0.0.1, and a rebinding name (evil.test, mapped to 127.0.0.1 by
// --host-resolver-rules) both on another port and on the dev server's own —
// try the chat proxy with a no-cors fetch, a text/plain fetch, a cors JSON
// fetch and form posts: none gets an answer and the upstream never sees a
// request. Meanwhile a page of an origin allowed with --allow-origin runs a
// turn through the module against the dev server, and the dev server's own
// demo page runs a turn as a person would.
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

const key = 'sk-origin-test-0123456789';
const upstreamSeen = []; // the chat requests that reached the upstream
const chatStatuses = []; // the statuses of the chat requests the browser saw answered
let upstream;
let allowedPages; // the Node server of the allowed origin's pages
let evilPages; // the same pages on a port that is not allowed
let dev;
let devPort;
let allowedPort;
let evilPort;
let browser;
let context;

/** The fake upstream: counts chat requests and streams a short answer. */
function startUpstream() {
  upstream = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    if (req.method !== 'POST' || !req.url.endsWith('/chat/completions')) return res.writeHead(404).end();
    upstreamSeen.push({ auth: req.headers.authorization, body: Buffer.concat(chunks).toString() });
    const chunk = (delta, finish) => `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk({ content: 'Hello from the upstream.' }, null));
    res.end(chunk({}, 'stop') + 'data: [DONE]\n\n');
  });
  return new Promise((r) => upstream.listen(0, '127.0.0.1', () => r(upstream.address().port)));
}

const types = { '.html': 'text/html', '.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm' };

/** A second origin's pages: a blank page at / and the built module at /dist/. */
function startPages() {
  const pages = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://localhost');
    if (url.pathname === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>another origin</title><body></body>');
    const file = path.join(root, url.pathname);
    if (!url.pathname.startsWith('/dist/') || !file.startsWith(path.join(root, 'dist'))) return res.writeHead(404).end();
    try {
      res.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' }).end(await readFile(file));
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((r) => pages.listen(0, '127.0.0.1', () => r(pages)));
}

/** Starts agentwasm dev in front of the upstream; resolves with its port. */
function startDev(upstreamPort) {
  const started = startDevServer(binary, ['--upstream', `http://127.0.0.1:${upstreamPort}`, '--model', 'm',
    '--allow-origin', `http://127.0.0.1:${allowedPort}`, '--web', 'web/demo', '--dist', 'dist'], { cwd: root, env: { ...process.env, AGENTWASM_API_KEY: key } });
  dev = started.child;
  return started.url.then((url) => Number(new URL(url).port));
}

before(async () => {
  if (skip) return;
  const upstreamPort = await startUpstream();
  allowedPages = await startPages();
  allowedPort = allowedPages.address().port;
  evilPages = await startPages();
  evilPort = evilPages.address().port;
  devPort = await startDev(upstreamPort);
  browser = await launchChromium({ args: ['--host-resolver-rules=MAP evil.test 127.0.0.1'] });
  context = await browser.newContext();
  context.on('response', (r) => {
    if (new URL(r.url()).pathname === '/api/v1/studio/ai/chat') chatStatuses.push(r.status());
  });
});

after(async () => {
  await browser?.close();
  dev?.kill();
  upstream?.close();
  allowedPages?.close();
  evilPages?.close();
});

/**
 * In the page: every way a page of another origin can send a chat request
 * without the server's consent. Resolves with what the page could read of
 * each ('opaque', 'error TypeError', or the status and body).
 */
async function attack(chatUrl) {
  const body = JSON.stringify({ messages: [{ role: 'user', content: 'spend the key' }] });
  const out = {};
  const attempt = async (name, init) => {
    try {
      const r = await fetch(chatUrl, { method: 'POST', body, ...init });
      out[name] = r.type === 'opaque' ? 'opaque' : `${r.status} ${await r.text()}`;
    } catch (e) {
      out[name] = `error ${e.name}`;
    }
  };
  await attempt('no-cors text/plain', { mode: 'no-cors', headers: { 'content-type': 'text/plain' } });
  await attempt('no-cors JSON', { mode: 'no-cors', headers: { 'content-type': 'application/json' } });
  await attempt('cors text/plain', { headers: { 'content-type': 'text/plain' } });
  await attempt('cors JSON', { headers: { 'content-type': 'application/json' } });
  for (const enctype of ['text/plain', 'application/x-www-form-urlencoded']) {
    const frame = document.createElement('iframe');
    frame.name = `sink-${enctype}`;
    document.body.append(frame);
    const form = document.createElement('form');
    Object.assign(form, { method: 'POST', action: chatUrl, enctype, target: frame.name });
    const input = document.createElement('input');
    // The text/plain form trick: name=value reads as the JSON body.
    Object.assign(input, { name: `${body.slice(0, -1)},"x":"`, value: '"}' });
    form.append(input);
    document.body.append(form);
    const loaded = new Promise((r) => frame.addEventListener('load', r, { once: true }));
    form.submit();
    await Promise.race([loaded, new Promise((r) => setTimeout(r, 10000))]);
    out[`form ${enctype}`] = 'submitted';
  }
  return out;
}

/** Runs attack from a page at pageUrl against the chat proxy at chatUrl. */
async function attackFrom(pageUrl, chatUrl) {
  const page = await context.newPage();
  try {
    await page.goto(pageUrl);
    const before = chatStatuses.length;
    const results = await page.evaluate(attack, chatUrl);
    // The form navigations' answers are seen by the browser; wait for them.
    for (let i = 0; i < 200 && chatStatuses.length < before + 2; i++) await new Promise((r) => setTimeout(r, 25));
    return { results, statuses: chatStatuses.slice(before) };
  } finally {
    await page.close();
  }
}

/** Asserts no attempt got an answer and the server refused every one it saw. */
function assertRefused({ results, statuses }) {
  for (const [how, got] of Object.entries(results)) {
    assert.doesNotMatch(got, /Hello|event:/, `${how} got an answer: ${got}`);
  }
  assert.ok(statuses.length >= 2, `the browser saw the server refuse the requests (saw ${statuses})`);
  for (const s of statuses) assert.ok(s === 403 || s === 415, `a chat request was answered ${s}`);
  assert.equal(upstreamSeen.length, 0, 'the upstream never saw a request');
}

const chatPath = '/api/v1/studio/ai/chat';

test('a page on another port of 127.0.0.1 gets no answer and the upstream sees nothing', { skip }, async () => {
  assertRefused(await attackFrom(`http://127.0.0.1:${evilPort}/`, `http://127.0.0.1:${devPort}${chatPath}`));
});

test('a rebinding name on another port gets no answer and the upstream sees nothing', { skip }, async () => {
  assertRefused(await attackFrom(`http://evil.test:${evilPort}/`, `http://evil.test:${devPort}${chatPath}`));
});

test("a rebinding name on the dev server's own port gets no answer and the upstream sees nothing", { skip }, async () => {
  // The page's origin is http://evil.test:<dev port>: its requests are
  // same-origin to the browser, so only the Host check stands between it
  // and the key.
  const got = await attackFrom(`http://evil.test:${devPort}/no-such-page`, `http://evil.test:${devPort}${chatPath}`);
  assertRefused(got);
  assert.match(got.results['cors JSON'], /^403 .*forbidden_host/);
});

test('a page of an origin allowed with --allow-origin runs a turn through the module', { skip }, async () => {
  const before = upstreamSeen.length;
  const page = await context.newPage();
  try {
    await page.goto(`http://127.0.0.1:${allowedPort}/`);
    const got = await page.evaluate(async (api) => {
      const r = await fetch(`${api}/v1/studio/ai/chat`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
      });
      const fetched = `${r.status} ${await r.text()}`;
      const { load } = await import('/dist/agentwasm.mjs');
      const runtime = await load();
      const session = runtime.createSession({ baseUrl: api, disableToolDiscovery: true });
      const turn = await session.chat('hello from an allowed origin');
      return { fetched, status: turn.status, text: turn.text, error: turn.errorMessage };
    }, `http://127.0.0.1:${devPort}/api`);
    assert.match(got.fetched, /^200 [^]*Hello from the upstream\.[^]*message_stop/);
    assert.equal(got.status, 'completed', got.error);
    assert.equal(got.text, 'Hello from the upstream.');
  } finally {
    await page.close();
  }
  assert.equal(upstreamSeen.length, before + 2);
  assert.equal(upstreamSeen.at(-1).auth, `Bearer ${key}`);
});

test("the dev server's own page works as before", { skip }, async () => {
  const before = upstreamSeen.length;
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()} ${new URL(r.url()).pathname}`); });
  try {
    await page.goto(`http://127.0.0.1:${devPort}/`);
    await page.waitForFunction(() => window.demo?.ready === true, null, { timeout: 30000 });
    await page.fill('#input', 'say hello');
    await page.press('#input', 'Enter');
    await page.waitForFunction(() => window.demo.state.turns.length > 0 && !window.demo.state.busy, null, { timeout: 30000 });
    const turn = await page.evaluate(() => window.demo.state.turns.at(-1));
    assert.equal(turn.status, 'completed', turn.errorMessage);
    assert.match(turn.text, /Hello from the upstream\./);
  } finally {
    await page.close();
  }
  assert.ok(upstreamSeen.length > before, 'the turn reached the upstream');
  assert.deepEqual(problems, []);
});
