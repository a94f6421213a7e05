// Browser test of the direct transport: a page served by `agentwasm dev`
// (dist/agentwasm) whose session talks straight to an OpenAI-compatible
// endpoint on another origin — a node:http server of this test streaming a
// recorded answer (web/testing/openai.mjs) — through headless Chromium's
// own fetch. Without CORS headers the turn fails with errorCode
// upstream_cors and says `refused by CORS` (the loader's probe found the
// server up); a server that is not running fails upstream_unreachable; with
// Access-Control-Allow-Origin for the page and the preflight answered (the
// Authorization header makes the request non-simple), a turn with a key
// completes; and an endpoint that answers 307 to a third origin never gets
// the key there.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { browserMissing, launchChromium } from '../testing/browser.mjs';
import { startDevServer } from '../testing/devserver.mjs';
import { recorded, recordedText, sendStream, startEndpoint } from '../testing/openai.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const binary = path.join(root, 'dist', 'agentwasm');
const skip = browserMissing({ [binary]: 'make dist/agentwasm' }) || false;
const KEY = 'sk-browser-7d1e9a4c2b6f8e0d3a5c';

/** The page: window.direct.turn(baseUrl, apiKey) runs one turn against the endpoint and gives {turn, events}. */
const page = `<!doctype html>
<html lang="en"><meta charset="utf-8"><link rel="icon" href="data:,"><title>direct to an endpoint</title>
<body><main><h1>A page that talks to an OpenAI-compatible endpoint</h1></main>
<script type="module">
import { load } from '/dist/agentwasm.mjs';
const runtime = await load();
window.direct = {
  async turn(baseUrl, apiKey) {
    const events = [];
    const session = runtime.createSession({
      model: { baseUrl, name: 'm-browser', ...(apiKey ? { apiKey } : {}) },
      disableToolDiscovery: true,
      onEvent: (e) => events.push(e),
    });
    try {
      return { turn: await session.chat('hello'), events };
    } finally {
      session.close();
    }
  },
};
window.ready = true;
</script>
</body></html>`;

let web;
let dev;
let pageOrigin;
let browser;
let tab;
const endpoints = [];

/** Starts an endpoint closed after the tests. */
async function endpoint(handle, options) {
  const e = await startEndpoint(handle, options);
  endpoints.push(e);
  return e;
}

/** The recorded text answer to a chat POST; anything else (the probe's GET, a preflight without CORS) a plain 200. */
function answer(req, res) {
  if (req.method === 'POST') return sendStream(res, recorded('ollama', 'text'));
  return res.writeHead(200, { 'content-type': 'text/plain' }).end('Ollama is running');
}

before(async () => {
  if (skip) return;
  web = await mkdtemp(path.join(tmpdir(), 'agentwasm-direct-'));
  await writeFile(path.join(web, 'index.html'), page);
  const started = startDevServer(binary, ['--pace', '1ms', '--web', web, '--dist', 'dist'], { cwd: root });
  dev = started.child;
  pageOrigin = await started.url;
  browser = await launchChromium();
  tab = await browser.newPage();
  tab.on('pageerror', (err) => console.error('page error:', err));
  await tab.goto(`${pageOrigin}/`);
  await tab.waitForFunction(() => window.ready === true);
});

after(async () => {
  await browser?.close();
  dev?.kill();
  await Promise.all(endpoints.map((e) => e.close()));
  if (web) await rm(web, { recursive: true, force: true });
});

const turn = (baseUrl, apiKey) => tab.evaluate(([u, k]) => window.direct.turn(u, k), [baseUrl, apiKey]);

test('an endpoint on another origin without CORS headers: upstream_cors, refused by CORS, and what to change', { skip }, async () => {
  const e = await endpoint(answer);
  const { turn: t } = await turn(e.url, KEY);
  assert.equal(t.status, 'error');
  assert.equal(t.errorCode, 'upstream_cors', t.errorMessage);
  assert.ok(t.errorMessage.includes('refused by CORS'), t.errorMessage);
  assert.ok(t.errorMessage.includes(`this page, ${pageOrigin}, called another origin, ${e.origin}`), t.errorMessage);
  assert.match(t.errorMessage, /OLLAMA_ORIGINS.*pass-through/);
  assert.ok(!JSON.stringify(t).includes(KEY));
  // The browser stopped at the preflight: no chat request reached the endpoint, so the key never left the page.
  assert.ok(e.requests.every((r) => r.method !== 'POST'), JSON.stringify(e.requests.map((r) => r.method)));
  assert.ok(e.requests.every((r) => r.headers.authorization === undefined));
  // The loader's probe: a plain GET of the origin.
  assert.ok(e.requests.some((r) => r.method === 'GET' && r.path === '/'), JSON.stringify(e.requests.map((r) => `${r.method} ${r.path}`)));
});

test('an endpoint that is not running: upstream_unreachable, not refused by CORS', { skip }, async () => {
  const e = await startEndpoint(answer);
  await e.close();
  const { turn: t } = await turn(e.url);
  assert.equal(t.status, 'error');
  assert.equal(t.errorCode, 'upstream_unreachable', t.errorMessage);
  assert.match(t.errorMessage, /no server answered there, not even a plain request: it is not running, or the model's baseUrl is wrong/);
  assert.ok(!t.errorMessage.includes('refused by CORS'));
});

test('an endpoint that allows the page\'s origin and answers the preflight: a turn with a key completes', { skip }, async () => {
  const e = await endpoint(answer, { cors: pageOrigin });
  const { turn: t, events } = await turn(e.url, KEY);
  assert.equal(t.status, 'completed', t.errorMessage);
  assert.equal(t.text, recordedText('ollama', 'text'));
  assert.ok(events.filter((ev) => ev.type === 'chat' && ev.event.type === 'textDelta').length > 1, 'streamed in deltas');
  const preflight = e.requests.find((r) => r.method === 'OPTIONS');
  assert.ok(preflight, 'the browser asked first');
  assert.match(preflight.headers['access-control-request-headers'], /authorization/);
  assert.equal(preflight.headers.authorization, undefined);
  const post = e.requests.find((r) => r.method === 'POST');
  assert.equal(post.path, '/v1/chat/completions');
  assert.equal(post.headers.origin, pageOrigin);
  assert.equal(post.headers.authorization, `Bearer ${KEY}`);
  assert.equal(post.body.model, 'm-browser');
  assert.ok(!JSON.stringify({ t, events }).includes(KEY));
});

test('an endpoint that answers 307 to a third origin: the key never reaches it', { skip }, async () => {
  const third = await endpoint(answer, { cors: '*' });
  const e = await endpoint((req, res) => res.writeHead(307, { location: `${third.url}/chat/completions` }).end(), { cors: pageOrigin });
  assert.notEqual(third.origin, e.origin);
  const { turn: t } = await turn(e.url, KEY);
  assert.equal(e.requests.find((r) => r.method === 'POST')?.headers.authorization, `Bearer ${KEY}`);
  assert.ok(third.requests.every((r) => r.headers.authorization === undefined && !JSON.stringify(r).includes(KEY)),
    JSON.stringify(third.requests.map((r) => ({ method: r.method, headers: r.headers }))));
  assert.ok(!JSON.stringify(t).includes(KEY));
  // What Chromium did: it followed the redirect without Authorization (the fetch standard drops it on a
  // redirect to another origin), so the third server answered the turn.
  assert.ok(third.requests.some((r) => r.method === 'POST'), JSON.stringify(third.requests.map((r) => r.method)));
  assert.equal(t.status, 'completed', t.errorMessage);
});
