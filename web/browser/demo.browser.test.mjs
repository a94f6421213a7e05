// Browser test of the demo Studio page: `agentwasm dev` (dist/agentwasm,
// built by `make browsertest`) started by this test on a free loopback port,
// the page in headless Chromium (Debian's chromium through playwright-core):
// a person types requests and sees streamed text and a page tool call, MCP
// composition calls (with the draft conflict resolved), declines and then
// approves the approval card of a turn that stopped on it — the turn resumes
// with no message typed, and the step is performed once — reads the
// discovery panel, and stops a running turn — with no console errors.
// Screenshots land in dist/demo-approval.png (the card) and dist/demo.png
// (published).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { browserMissing, launchChromium } from '../testing/browser.mjs';
import { startDevServer } from '../testing/devserver.mjs';
import { typeAndWait } from '../testing/demopage.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const binary = path.join(root, 'dist', 'agentwasm');
const skip = browserMissing({ [binary]: 'make dist/agentwasm' }) || false;

let dev;
let browser;
let page;
const problems = []; // console errors, page errors, HTTP errors
const responses = new Map(); // path → {status, encoding, type}

/**
 * Starts agentwasm dev on a free port and resolves with its URL. The scripted model pauses 25 ms
 * between words: the Stop test clicks once a few words are in, and the story (about a hundred
 * words) must still be streaming then, on a busy machine too (at 4 ms it sometimes ended first).
 */
function startDev() {
  const started = startDevServer(binary, ['--pace', '25ms', '--web', 'web/demo', '--dist', 'dist'], { cwd: root });
  dev = started.child;
  return started.url;
}

/** Types a request as a person would and waits for the turn to end. */
const ask = (text) => typeAndWait(page, text);

before(async () => {
  if (skip) return;
  const base = await startDev();
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('response', (r) => {
    const url = new URL(r.url());
    responses.set(url.pathname, { status: r.status(), encoding: r.headers()['content-encoding'], type: r.headers()['content-type'] });
    if (r.status() >= 400) problems.push(`HTTP ${r.status()} ${url.pathname}`);
  });
  await page.goto(`${base}/`);
  await page.waitForFunction(() => window.demo?.ready === true, null, { timeout: 30000 });
});

after(async () => {
  await browser?.close();
  dev?.kill();
});

test('the page loads the module, labels the scripted model and shows the discovered tools', { skip }, async () => {
  assert.equal(await page.textContent('#model-badge'), 'scripted model');
  assert.match(await page.textContent('#module-badge'), /^module \d+\.\d+\.\d+/);
  // Headless Chromium offers no WebMCP API: the page's registration says so and does nothing.
  const webmcp = await page.evaluate(() => ({ registered: window.demo.webmcp.registered, reason: window.demo.webmcp.reason }));
  assert.equal(webmcp.registered, false);
  assert.match(webmcp.reason, /no WebMCP API/);
  const wasm = responses.get('/dist/agentwasm.tiny.wasm'); // the default build, TinyGo's
  assert.equal(wasm.status, 200);
  assert.equal(wasm.type, 'application/wasm');
  assert.equal(wasm.encoding, 'br', 'the precompressed module is served to a browser that accepts brotli');
  const routed = await page.locator('#discovery .chip-routed').allTextContents();
  assert.ok(routed.includes('honua_studio_add_layer'), routed.join());
  const refused = await page.textContent('#discovery .refusals');
  assert.match(refused, /honua_admin_reset_tenant family/);
  assert.match(refused, /server_time unclassified/);
});

test('a request streams text and runs the page tool', { skip }, async () => {
  const turn = await ask('Make the map dark');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  // The answer streams in pieces; the record keeps each run of pieces as one textDelta.
  const runs = turn.events.filter((e) => e.type === 'textDelta');
  assert.ok(runs.length >= 1, 'the answer was streamed');
  assert.equal(runs.map((e) => e.text).join(''), turn.text);
  assert.equal(turn.text, 'Done: the basemap is now dark.');
  const card = page.locator('.msg.assistant').last().locator('.tool');
  assert.equal(await card.getAttribute('data-plane'), 'page');
  assert.match(await card.locator('.outcome').textContent(), /^ok · \d+ ms$/);
  assert.match(await page.getAttribute('#map', 'class'), /basemap-dark/);
});

test('MCP composition tools edit a draft; the conflict is reloaded and retried', { skip }, async () => {
  // The catalog watch is subscribed before the first draft exists, so it hears the change.
  await page.waitForFunction(() => document.getElementById('watch')?.textContent === 'Catalog watch: open');
  const turn = await ask('Add a schools layer');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.deepEqual(turn.toolCalls.map((c) => [c.toolName, c.plane, c.ok]),
    [['honua_studio_create_draft', 'composition', true], ['honua_studio_add_layer', 'composition', true]]);
  assert.equal(turn.toolCalls[1].retriedAfterConflict, true);
  const cards = page.locator('.msg.assistant').last().locator('.tool.plane-mcp');
  assert.equal(await cards.count(), 2);
  assert.match(await cards.nth(1).locator('.outcome').textContent(), /retried after a draft conflict/);
  assert.match(await page.textContent('#draft'), /^d-\d+ · generation 3$/);
  assert.equal(await page.textContent('#layers'), 'schools');
  // The first draft added a tool to the catalog; the watch refreshed the panel.
  await page.waitForFunction(() => [...document.querySelectorAll('#discovery .chip-routed')].some((c) => c.textContent === 'honua_studio_preview_draft'));
});

/** Clicks the card's button (the person, not the model) and waits for the resumed turn to end. */
async function answerCard(button) {
  const n = await page.evaluate(() => window.demo.state.turns.length);
  await page.click(`#cards .card button.${button}`);
  await page.waitForFunction((k) => window.demo.state.turns.length > k && !window.demo.state.busy, n, { timeout: 30000 });
  return page.evaluate(() => window.demo.state.turns.at(-1));
}

/** What the page shows and the model reads: the person's bubbles, and the user messages of the history. */
const conversation = () => page.evaluate(() => ({
  bubbles: document.querySelectorAll('#log .msg.user').length,
  users: window.demo.session.messages().filter((m) => m.role === 'user').map((m) => m.content),
}));

/** Asks to publish; the turn stops on the card. */
async function askToPublish() {
  const turn = await ask('Publish the map');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.equal(JSON.parse(turn.toolCalls.at(-1).content).data.judgment, 'needs-confirm');
  assert.equal(turn.pendingApprovals?.length, 1, 'the turn stopped on the ask');
  assert.equal(turn.pendingApprovals[0].action, 'review.publish');
  assert.equal(await page.locator('#cards .card').count(), 1, 'one approval card');
  assert.match(await page.textContent('#cards .card'), /Publish the map to the public site/);
  assert.match(await page.locator('.msg.assistant .turn-footer').last().textContent(), /waiting for your approval/);
  assert.equal(await page.textContent('#published'), 'no', 'nothing was published before the person approved');
  return turn;
}

test('publishing stops on the card; declining resumes the turn with no message typed, and nothing is published', { skip }, async () => {
  const asked = await askToPublish();
  const before = await conversation();
  const after = await answerCard('decline');
  assert.equal(after.status, 'completed', after.errorMessage);
  // The card's Decline answered the ask in the app: the model has nothing to relay, so it calls no tool.
  assert.deepEqual(after.toolCalls, []);
  assert.equal(after.text, 'Understood: the map stays unpublished.');
  const now = await conversation();
  assert.equal(now.bubbles, before.bubbles, 'no message from the person in the log');
  assert.equal(now.users.length, before.users.length + 1, 'one user message: the session\'s note of the answer');
  assert.ok(now.users.at(-1).startsWith(`Declined: the person declined "${asked.pendingApprovals[0].askId}"`), now.users.at(-1));
  assert.match(await page.locator('#log .msg.note').last().textContent(), /Declined: Publish the map to the public site/);
  assert.equal(await page.locator('#cards .card').count(), 0, 'the card is answered');
  assert.equal(await page.textContent('#published'), 'no');
  assert.equal(await page.evaluate(() => window.demo.performed['review.publish'] ?? 0), 0);
});

test('publishing again; approving the card resumes the turn with no message typed and performs the step once', { skip }, async () => {
  const asked = await askToPublish();
  await mkdir(path.join(root, 'dist'), { recursive: true });
  await page.screenshot({ path: path.join(root, 'dist', 'demo-approval.png') });
  const before = await conversation();
  const after = await answerCard('approve');
  assert.equal(after.status, 'completed', after.errorMessage);
  const performed = JSON.parse(after.toolCalls[0].content).data;
  assert.equal(performed.effectStatus, 'performed', JSON.stringify(performed));
  assert.equal(after.text, 'Published: the map is live.');
  assert.equal(after.pendingApprovals, undefined);
  const now = await conversation();
  assert.equal(now.bubbles, before.bubbles, 'no message from the person in the log');
  assert.equal(now.users.length, before.users.length + 1, 'one user message: the session\'s note of the answer');
  assert.ok(now.users.at(-1).startsWith(`Approved: the person approved "${asked.pendingApprovals[0].askId}"`), now.users.at(-1));
  assert.equal(await page.evaluate(() => window.demo.performed['review.publish']), 1, 'the step was performed once');
  assert.equal(await page.locator('#cards .card').count(), 0, 'the card is answered');
  assert.match(await page.textContent('#published'), /^yes/);
  assert.equal(await page.textContent('#app-steps li.current'), 'Published');
  await page.screenshot({ path: path.join(root, 'dist', 'demo.png'), fullPage: true });
});

test('Stop aborts a running turn', { skip }, async () => {
  const n = await page.evaluate(() => window.demo.state.turns.length);
  await page.fill('#input', 'Tell me a long story');
  await page.press('#input', 'Enter');
  await page.waitForFunction(() => (window.demo.state.current?.text?.textContent ?? '').split(' ').length > 5);
  assert.equal(await page.isEnabled('#stop'), true);
  await page.click('#stop');
  await page.waitForFunction((k) => window.demo.state.turns.length > k && !window.demo.state.busy, n, { timeout: 30000 });
  const turn = await page.evaluate(() => window.demo.state.turns.at(-1));
  assert.equal(turn.status, 'cancelled');
  assert.ok(turn.text.length > 0 && !turn.text.endsWith('long enough.'), 'the story was cut short');
  assert.match(await page.locator('.msg.assistant .turn-footer').last().textContent(), /^stopped/);
  assert.equal(await page.isEnabled('#send'), true);
});

test('an error from the model is shown, and the page keeps working', { skip }, async () => {
  const turn = await ask('Fail please');
  assert.equal(turn.status, 'error');
  assert.match(turn.errorMessage, /asked to fail/);
  assert.match(await page.locator('.msg.assistant').last().locator('.body.error').first().textContent(), /asked to fail/);
  const next = await ask('hello');
  assert.equal(next.status, 'completed');
});

test('no console errors, page errors or failed HTTP requests', { skip }, () => {
  assert.deepEqual(problems, []);
});
