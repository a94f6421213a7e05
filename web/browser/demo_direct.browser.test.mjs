// Browser test of the demo against a direct endpoint (issue 28): `agentwasm
// dev --direct` (dist/agentwasm) started by this test on a free loopback
// port, the demo page in headless Chromium. The page reads GET
// /api/demo/config, says it talks to the model directly, and its session
// posts its chats to the dev server's OpenAI-compatible endpoint (POST
// /openai/v1/chat/completions, the scripted model streamed as OpenAI
// chunks) instead of the Studio AI proxy: the first suggestion runs the
// page's tool, and "Publish the map" runs the app's journey, whose dotted
// tool names (studio.journey.publish) cross the endpoint mapped and come
// back as they were, up to the approval card and the publish. A second dev
// server started with --direct-url pointing at the first one's endpoint
// makes its page call another origin, which does not allow it: the turn
// fails, and the page shows the CORS hint. The page is driven through its
// stable hooks only (window.demo, the suggestion chips' text, the buttons'
// accessible names).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { browserMissing, launchChromium } from '../testing/browser.mjs';
import { startDevServer } from '../testing/devserver.mjs';
import { turnCount, turnAfter, openDemo } from '../testing/demopage.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const binary = path.join(root, 'dist', 'agentwasm');
const skip = browserMissing({ [binary]: 'make dist/agentwasm' }) || false;

const devs = [];
let browser;
let page;
let base;
const problems = []; // console errors, page errors, HTTP errors
const posts = []; // the paths the page posted to

/** Starts agentwasm dev with args on a free port and resolves with its URL. */
function startDev(args) {
  const started = startDevServer(binary, [...args, '--web', 'web/demo', '--dist', 'dist'], { cwd: root });
  devs.push(started.child);
  return started.url;
}

/** Asks as a person would, with the suggestion chip of that text; the turn. */
async function ask(text) {
  const n = await turnCount(page);
  await page.getByRole('button', { name: text, exact: true }).click();
  return turnAfter(page, n);
}

before(async () => {
  if (skip) return;
  base = await startDev(['--direct', '--pace', '2ms']);
  browser = await launchChromium();
  page = await openDemo(browser, base, problems);
  page.on('request', (r) => { if (r.method() === 'POST') posts.push(new URL(r.url()).pathname); });
});

after(async () => {
  await browser?.close();
  for (const dev of devs) dev.kill();
});

test('the page says it talks to the scripted model directly, OpenAI-compatible', { skip }, async () => {
  assert.equal(await page.textContent('#model-badge'), 'scripted model');
  assert.equal(await page.textContent('#path-badge'), 'directly, OpenAI-compatible');
  const model = await page.evaluate(() => window.demo.model);
  assert.equal(model.path, 'direct');
  assert.deepEqual(model.direct, { baseUrl: '/openai/v1', name: 'scripted-model' });
  // The scripted model's suggestions, as through the proxy.
  const chips = await page.locator('#suggestions .chip').allTextContents();
  assert.equal(chips[0], 'Make the map dark');
});

test('the first suggestion: streamed text and the page tool, through /openai/v1', { skip }, async () => {
  const turn = await ask('Make the map dark');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.equal(turn.text, 'Done: the basemap is now dark.');
  assert.deepEqual(turn.toolCalls.map((c) => [c.toolName, c.ok]), [['set_basemap', true]]);
  assert.match(await page.getAttribute('#map', 'class'), /basemap-dark/);
  const card = page.locator('.msg.assistant').last().locator('.tool');
  assert.equal(await card.getAttribute('data-plane'), 'page');
  assert.ok(posts.includes('/openai/v1/chat/completions'), `the chats went to the OpenAI-compatible endpoint: ${posts}`);
  assert.ok(!posts.includes('/api/v1/studio/ai/chat'), `no chat went to the Studio AI proxy: ${posts}`);
});

test('the app\'s journey: dotted tool names cross the endpoint and come back, up to the approval', { skip }, async () => {
  const asked = await ask('Publish the map');
  assert.equal(asked.status, 'completed', asked.errorMessage);
  assert.ok(asked.toolCalls.length > 0 && asked.toolCalls.every((c) => c.toolName.startsWith('studio.')),
    `the port's own names: ${asked.toolCalls.map((c) => c.toolName)}`);
  assert.equal(asked.pendingApprovals?.length, 1, `the turn stopped on the ask: ${asked.text}`);
  const n = await turnCount(page);
  await page.getByRole('button', { name: 'Approve', exact: true }).click();
  const after = await turnAfter(page, n);
  assert.equal(after.status, 'completed', after.errorMessage);
  assert.equal(after.text, 'Published: the map is live.');
  assert.equal(await page.evaluate(() => window.demo.performed['review.publish']), 1);
});

test('no console errors, page errors or failed HTTP requests', { skip }, () => {
  assert.deepEqual(problems, []);
});

test('--direct-url to an endpoint that does not allow the page\'s origin: the turn fails with the CORS hint', { skip }, async () => {
  // The first server's endpoint answers only its own origin: the second server's page is another one.
  const other = await startDev(['--direct-url', `${base}/openai/v1`, '--model', 'scripted-model']);
  const p = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  try {
    await p.goto(`${other}/`);
    await p.waitForFunction(() => window.demo?.ready === true, null, { timeout: 30000 });
    assert.equal(await p.textContent('#path-badge'), 'directly, OpenAI-compatible');
    assert.equal(await p.textContent('#model-badge'), 'scripted-model');
    const n = await turnCount(p);
    await p.getByRole('textbox', { name: 'Message' }).fill('Make the map dark');
    await p.getByRole('button', { name: 'Send', exact: true }).click();
    const turn = await turnAfter(p, n);
    assert.equal(turn.status, 'error');
    assert.ok(['upstream_cors', 'upstream_unreachable'].includes(turn.errorCode), `${turn.errorCode}: ${turn.errorMessage}`);
    const hint = await p.locator('.msg.assistant').last().locator('.cors-hint').textContent();
    assert.match(hint, /does not allow this page's origin \(CORS\)/);
    assert.ok(hint.includes(`allow ${other} there`), hint);
    assert.ok(hint.includes(`make run UPSTREAM=${base}/openai/v1 MODEL=scripted-model DIRECT=1`), hint);
  } finally {
    await p.close();
  }
});
