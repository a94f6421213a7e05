// Browser test of the demo page's accessibility and of what a person reads:
// `agentwasm dev` (dist/agentwasm) started on a free loopback port, the page in
// headless Chromium. axe-core (web/node_modules/axe-core) runs in the page with
// the WCAG 2.0/2.1/2.2 A and AA rules at 1280×800 and at 420×900, each time with
// an approval card showing, and finds nothing serious or critical. The test
// also checks that the narrow layout shows the conversation and the composer
// in the first screen, that the focus stays where the person is (after Send,
// Approve, Stop and New conversation), that a keyboard sees a focus ring on
// every control, that the live region receives finished answers and cards,
// that the system prompt names the tools exactly as the request offers them,
// that tool results read as a summary with the JSON in a details element,
// that no internal judgment name reaches the log, that New conversation
// starts over (and asks the server to reset), and that a real model gets
// suggestions with nothing scripted in them. Screenshots land in
// dist/demo-desktop.png, dist/demo-narrow.png (both with a card) and
// dist/demo-card.png (the card at 420 px).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { browserMissing, launchChromium } from '../testing/browser.mjs';
import { startDevServer } from '../testing/devserver.mjs';
import { turnCount as countTurns, turnAfter as waitTurnAfter, typeAndWait } from '../testing/demopage.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const binary = path.join(root, 'dist', 'agentwasm');
const axePath = path.join(root, 'web', 'node_modules', 'axe-core', 'axe.min.js');
const skip = browserMissing({ [binary]: 'make dist/agentwasm', [axePath]: 'npm ci in web/' }) || false;

/** The port's judgments: its words for the model, never for the person. */
const judgments = ['navigate-or-wait', 'one-ready-step', 'needs-choice', 'needs-confirm', 'still-pending', 'awaiting-human',
  'approved-not-yet-done', 'approval-no-longer-valid', 'approval-withdrawn'];

let dev;
let base;
let browser;
let page;
const problems = []; // console errors, page errors, HTTP errors
const resets = []; // the page's POST /api/demo/reset requests
const chats = []; // the bodies of the page's chat requests

/** Starts agentwasm dev on a free port and resolves with its URL (25 ms a word: the story still streams when Stop is pressed). */
function startDev() {
  const started = startDevServer(binary, ['--pace', '25ms', '--web', 'web/demo', '--dist', 'dist'], { cwd: root });
  dev = started.child;
  return started.url;
}

/** The number of finished turns. */
const turnCount = () => countTurns(page);

/** Waits for the turn after the nth to end, and returns it. */
const turnAfter = (n) => waitTurnAfter(page, n);

/** Types a request as a person would (Enter sends) and waits for the turn to end. */
const ask = (text) => typeAndWait(page, text);

/** Asks to publish with the scripted model and waits for the approval card. */
async function cardShowing() {
  const turn = await ask('Publish the map');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.equal(turn.pendingApprovals?.length, 1, 'the turn stopped on the ask');
  await page.waitForSelector('#cards .card[data-state="pending"] button.approve');
  return turn;
}

/** Runs axe-core in the page with the WCAG 2.0/2.1/2.2 A and AA rules; answers the serious and critical violations, and prints all. */
async function axe(label) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) {
    await page.addScriptTag({ content: await readFile(axePath, 'utf8') });
  }
  const violations = await page.evaluate(async () => {
    const result = await window.axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa'] },
    });
    return result.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary.replace(/\s+/g, ' ')}`),
    }));
  });
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  if (bad.length) {
    console.log(`axe at ${label}: ${violations.length} violation(s)\n${JSON.stringify(violations, null, 2)}`);
  }
  return bad;
}

/** What the log shows a person (closed details hide their content). */
const logText = () => page.evaluate(() => document.getElementById('log').innerText);

/** The id (or tag and text) of the focused element. */
const focused = () => page.evaluate(() => {
  const a = document.activeElement;
  return a?.id || `${a?.tagName.toLowerCase()}${a?.className ? `.${a.className.split(' ').join('.')}` : ''}`;
});

before(async () => {
  if (skip) return;
  base = await startDev();
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('console', (m) => {
    // A server without the reset route answers 404, which Chromium logs: the page says so and goes on.
    if (m.type() === 'error' && !m.location()?.url?.endsWith('/api/demo/reset')) problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === '/api/v1/studio/ai/chat') chats.push(r.postData());
    if (new URL(r.url()).pathname === '/api/demo/reset') {
      resets.push({ method: r.method(), type: r.headers()['content-type'], body: r.postData() });
    }
  });
  page.on('response', (r) => {
    const p = new URL(r.url()).pathname;
    // A server without the reset route answers 404: the page says so and goes on.
    if (r.status() >= 400 && !(p === '/api/demo/reset' && r.status() === 404)) problems.push(`HTTP ${r.status()} ${p}`);
  });
  await page.goto(`${base}/`);
  await page.waitForFunction(() => window.demo?.ready === true, null, { timeout: 30000 });
  await mkdir(path.join(root, 'dist'), { recursive: true });
});

after(async () => {
  await browser?.close();
  dev?.kill();
});

test('the page has one h1, and the log is a labelled region a keyboard can reach', { skip }, async () => {
  assert.equal(await page.locator('h1').count(), 1);
  const log = await page.evaluate(() => {
    const l = document.getElementById('log');
    return { tabIndex: l.tabIndex, label: l.getAttribute('aria-label'), live: l.getAttribute('aria-live') };
  });
  assert.equal(log.tabIndex, 0);
  assert.ok(log.label, 'the log has a label');
  assert.equal(log.live, null, 'the log is not a live region: streamed words are not read out one by one');
});

test('after Send the focus stays in the composer; the live region says the finished answer', { skip }, async () => {
  const turn = await ask('Make the map dark');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.equal(await focused(), 'input');
  assert.match(await page.textContent('#announcer'), new RegExp(turn.text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  // The Send button, clicked: the focus comes back to the composer.
  const n = await turnCount();
  await page.fill('#input', 'hello');
  await page.click('#send');
  await turnAfter(n);
  assert.equal(await focused(), 'input');
});

test('the system prompt names each tool exactly as the request offers it', { skip }, () => {
  const body = JSON.parse(chats.at(-1));
  const names = body.tools.map((t) => t.name);
  assert.ok(names.includes('studio.journey.publish') && names.includes('set_basemap') && names.includes('honua_studio_add_layer'), names.join());
  for (const name of names) assert.ok(body.system.includes(name), `the system prompt names ${name}: ${body.system}`);
  assert.ok(!body.system.includes('studio.*'), body.system);
});

test('the map is drawn in SVG from the app state, with a name and description saying what it shows', { skip }, async () => {
  const map = await page.evaluate(() => {
    const svg = document.querySelector('#map svg');
    const ids = (svg?.getAttribute('aria-labelledby') ?? '').split(' ');
    return { role: svg?.getAttribute('role'), said: ids.map((id) => document.getElementById(id)?.textContent).join(' ') };
  });
  assert.equal(map.role, 'img');
  assert.match(map.said, /Demo map/);
  assert.match(map.said, /dark basemap/);
  assert.match(map.said, /not published/);
});

test('at 1280×800 with an approval card: no serious or critical axe violation', { skip }, async () => {
  const turn = await cardShowing();
  assert.equal(await focused(), 'input', 'the card does not take the focus from the composer');
  assert.match(await page.textContent('#announcer'), /Approval needed: Publish the map to the public site/);
  // The waiting step reads as waiting, not ok or done.
  const last = page.locator('.msg.assistant').last();
  assert.match(await last.locator('.turn-footer').textContent(), /^waiting for your approval/);
  const waiting = last.locator('.tool.waiting');
  assert.equal(await waiting.count(), 1);
  assert.match(await waiting.locator('.outcome').textContent(), /^waiting for your approval · \d+ ms$/);
  // Results: a summary in words, the whole JSON behind a click, in a keyboard-reachable region.
  const summary = await waiting.locator('.tool-summary').textContent();
  assert.match(summary, /^Waiting for your approval: publish the map to the public site\.$/);
  const pre = waiting.locator('details.tool-json pre');
  assert.equal(await pre.getAttribute('tabindex'), '0');
  assert.ok(await pre.getAttribute('aria-label'));
  const full = JSON.parse(await pre.textContent());
  assert.equal(full.data.judgment, 'needs-confirm');
  assert.equal(full.data.askId, turn.pendingApprovals[0].askId, 'the JSON is whole, not cut');
  await page.screenshot({ path: path.join(root, 'dist', 'demo-desktop.png') });
  await waiting.locator('details.tool-json summary').click(); // open: axe sees the JSON's scroll region too
  assert.equal(await waiting.locator('details.tool-json').getAttribute('open'), '');
  for (const s of await page.locator('#log .tool-summary').allTextContents()) {
    assert.ok(s && !s.trim().startsWith('{'), `a summary in words: ${s}`);
  }
  assert.deepEqual(await axe('1280×800'), []);
  await waiting.locator('details.tool-json summary').click(); // closed again: what the person reads by default
  const text = await logText();
  for (const j of judgments) assert.ok(!text.includes(j), `the log shows the internal judgment ${j}:\n${text}`);
});

test('a keyboard sees a focus ring on every control', { skip }, async () => {
  await page.focus('#input');
  const seen = new Set();
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press('Tab');
    const f = await page.evaluate(() => {
      const a = document.activeElement;
      if (!a || a === document.body) return null;
      const s = getComputedStyle(a);
      return { what: a.id || a.textContent.trim().slice(0, 30) || a.tagName, ring: s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2 };
    });
    if (!f) continue;
    seen.add(f.what);
    assert.ok(f.ring, `no visible focus ring on ${f.what}`);
  }
  for (const control of ['new-conversation', 'log', 'Approve', 'Decline', 'send']) {
    assert.ok(seen.has(control), `Tab reaches ${control}: ${[...seen].join(', ')}`);
  }
});

test('after Approve the focus goes to the composer, and the live region gets the answer', { skip }, async () => {
  const n = await turnCount();
  await page.focus('#cards .card button.approve');
  await page.keyboard.press('Enter');
  assert.equal(await focused(), 'input', 'the card went away: the focus is in the composer');
  const turn = await turnAfter(n);
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.equal(await focused(), 'input');
  assert.match(await page.textContent('#announcer'), new RegExp(turn.text));
  assert.match(await page.textContent('#published'), /^yes/);
  assert.match(await page.evaluate(() => document.querySelector('#map desc').textContent), /It is published/);
});

test('after Stop the focus goes to the composer', { skip }, async () => {
  const n = await turnCount();
  await page.fill('#input', 'Tell me a long story');
  await page.press('#input', 'Enter');
  await page.waitForFunction(() => (window.demo.state.current?.text?.textContent ?? '').split(' ').length > 5);
  await page.click('#stop');
  const turn = await turnAfter(n);
  assert.equal(turn.status, 'cancelled');
  assert.equal(await focused(), 'input');
  assert.match(await page.textContent('#announcer'), /^Assistant: Stopped\./);
});

test('an error from the model shows its text once', { skip }, async () => {
  const turn = await ask('Fail please');
  assert.equal(turn.status, 'error');
  const last = page.locator('.msg.assistant').last();
  const text = await last.innerText();
  assert.equal(text.split(turn.errorMessage).length - 1, 1, `the error text once:\n${text}`);
});

test('New conversation starts over: an empty log and history, the app afresh, the server asked to reset', { skip }, async () => {
  await page.click('#new-conversation');
  await page.waitForFunction(() => window.demo.session?.messages && !document.getElementById('new-conversation').disabled
    && document.querySelectorAll('#log .msg').length === 1, null, { timeout: 30000 });
  const now = await page.evaluate(() => ({
    turns: window.demo.state.turns.length,
    messages: window.demo.session.messages().length,
    page: window.demo.port.state().page,
    draft: window.demo.session.draft(),
    published: document.getElementById('published').textContent,
    layers: document.getElementById('layers').textContent,
    cards: document.querySelectorAll('#cards .card').length,
    log: document.getElementById('log').innerText,
  }));
  assert.deepEqual({ ...now, log: undefined }, {
    turns: 0, messages: 0, page: 'edit', draft: null, published: 'no', layers: 'none yet', cards: 0, log: undefined,
  });
  assert.match(now.log, /^Assistant\s+Hello!/);
  assert.equal(await focused(), 'input');
  assert.deepEqual(resets, [{ method: 'POST', type: 'application/json', body: '{}' }]);
});

test('at 420×900 the conversation comes first; with a card, no serious or critical axe violation', { skip }, async () => {
  await page.setViewportSize({ width: 420, height: 900 });
  await cardShowing();
  await page.evaluate(() => window.scrollTo(0, 0));
  const box = await page.evaluate(() => ({
    log: document.getElementById('log').getBoundingClientRect().top,
    composer: document.getElementById('composer').getBoundingClientRect().bottom,
    app: document.querySelector('.app').getBoundingClientRect().top,
  }));
  assert.ok(box.log < 900, `the conversation starts at ${box.log} px`);
  assert.ok(box.composer <= 900, `the composer ends at ${box.composer} px`);
  assert.ok(box.app > box.log, 'the app panel follows the conversation');
  await page.screenshot({ path: path.join(root, 'dist', 'demo-narrow.png') });
  await page.locator('#cards').screenshot({ path: path.join(root, 'dist', 'demo-card.png') });
  assert.deepEqual(await axe('420×900'), []);
  const text = await logText();
  for (const j of judgments) assert.ok(!text.includes(j), `the log shows the internal judgment ${j}:\n${text}`);
});

test('with a real model the suggestions say nothing scripted', { skip }, async () => {
  const other = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  try {
    await other.route('**/api/v1/studio/ai/capabilities', (route) => route.fulfill({
      contentType: 'application/json',
      body: JSON.stringify({ defaultProvider: 'openai', providers: [{ name: 'openai', defaultModel: 'some-model' }] }),
    }));
    await other.goto(`${base}/`);
    await other.waitForFunction(() => window.demo?.ready === true, null, { timeout: 30000 });
    assert.equal(await other.textContent('#model-badge'), 'openai · some-model');
    const chips = await other.locator('#suggestions .chip').allTextContents();
    assert.ok(chips.length >= 3, chips.join());
    assert.ok(chips.includes('Publish the map'), chips.join());
    assert.ok(!chips.some((c) => /fail|long story|scripted/i.test(c)), chips.join());
  } finally {
    await other.close();
  }
});

test('no console errors, page errors or failed HTTP requests', { skip }, () => {
  assert.deepEqual(problems, []);
});
