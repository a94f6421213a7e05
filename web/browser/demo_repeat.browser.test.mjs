// Browser test of the demo's journeys asked again (issue 27): `agentwasm dev`
// (dist/agentwasm) started by this test on a free loopback port, the demo
// page in headless Chromium. A person publishes the map, declines the card,
// then publishes twice, approving a card each time (the second time the
// assistant takes the app back through "Start a new version", and the same
// card asks again); a basemap or a layer asked for twice says that nothing
// changed; the words after a decline say that it was declined and nothing
// was done; no judgment of the port (navigate-or-wait, …) reaches the words
// a person reads, in the answers or the steps' summaries; and after POST
// /api/demo/reset (what "New conversation" calls), and again after the
// page's New conversation button, the demo MCP server's list-changed moment
// and draft conflict happen again. The page is driven through stable hooks
// only — window.demo, the suggestion chips' text, the buttons' accessible
// names (Approve, Decline, Send, New conversation), the textbox named
// Message — so its layout may change.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { browserMissing, launchChromium } from '../testing/browser.mjs';
import { startDevServer } from '../testing/devserver.mjs';
import { turnCount, turnAfter as waitTurnAfter, openDemo } from '../testing/demopage.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const binary = path.join(root, 'dist', 'agentwasm');
const skip = browserMissing({ [binary]: 'make dist/agentwasm' }) || false;

/** The port's judgments of more than one word: serve's vocabulary (serve/port_reasons.go), not a person's. */
const judgments = ['navigate-or-wait', 'one-ready-step', 'needs-choice', 'needs-confirm', 'still-pending',
  'awaiting-human', 'approved-not-yet-done', 'approval-no-longer-valid', 'approval-withdrawn'];

let dev;
let browser;
let page;
const problems = []; // console errors, page errors, HTTP errors

/** Starts agentwasm dev on a free port and resolves with its URL. */
function startDev() {
  const started = startDevServer(binary, ['--web', 'web/demo', '--dist', 'dist'], { cwd: root });
  dev = started.child;
  return started.url;
}

/** The number of finished turns. */
const turns = () => turnCount(page);

/** Waits for the turn after the n-th to end, and returns it. */
const turnAfter = (n) => waitTurnAfter(page, n);

/** Asks as a person would: the suggestion chip with that text, else the textbox and Send. */
async function ask(text) {
  const n = await turns();
  const chip = page.getByRole('button', { name: text, exact: true });
  if (await chip.count() === 1 && await chip.isVisible()) {
    await chip.click();
  } else {
    await page.getByRole('textbox', { name: 'Message' }).fill(text);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
  }
  return turnAfter(n);
}

/** The card's button (Approve or Decline), pressed by the person; the resumed turn. */
async function answerCard(name) {
  const button = page.getByRole('button', { name, exact: true });
  assert.equal(await button.count(), 1, `one ${name} button: the card is showing`);
  const n = await turns();
  await button.click();
  return turnAfter(n);
}

/** Asks to publish: the turn stops on the approval card, whatever page the app was on. */
async function askToPublish() {
  const turn = await ask('Publish the map');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.equal(turn.pendingApprovals?.length, 1, `the turn stopped on the ask: ${turn.text}`);
  assert.equal(turn.pendingApprovals[0].action, 'review.publish');
  assert.equal(await page.getByRole('button', { name: 'Approve', exact: true }).count(), 1, 'the person sees the card');
  assert.equal(await page.getByRole('button', { name: 'Decline', exact: true }).count(), 1);
  return turn;
}

/** The one-line summaries of the last answer's tool calls, as the page shows them. */
const summaries = () => page.evaluate(() => [...[...document.querySelectorAll('#log .msg.assistant')].at(-1).querySelectorAll('.tool-summary')]
  .map((s) => s.textContent));

const published = () => page.evaluate(() => window.demo.performed['review.publish'] ?? 0);

/**
 * What a person reads in the conversation: the log's rendered text without its code blocks (a
 * tool's raw arguments and JSON, which a person opens on purpose), and every turn's text.
 */
const words = () => page.evaluate(() => {
  const log = document.getElementById('log') ?? document.querySelector('[role=log]');
  const copy = log.cloneNode(true);
  for (const code of copy.querySelectorAll('pre, code')) code.remove();
  document.body.append(copy); // innerText needs it rendered: closed details and hidden parts stay out
  const shown = copy.innerText;
  copy.remove();
  return { shown, said: window.demo.state.turns.map((t) => `${t.text ?? ''} ${t.errorMessage ?? ''}`).join('\n') };
});

before(async () => {
  if (skip) return;
  const base = await startDev();
  browser = await launchChromium();
  page = await openDemo(browser, base, problems);
});

after(async () => {
  await browser?.close();
  dev?.kill();
});

test('a basemap asked for twice: the second time nothing changes, and the answer says so', { skip }, async () => {
  const first = await ask('Make the map dark');
  assert.equal(first.text, 'Done: the basemap is now dark.');
  assert.deepEqual(await summaries(), ['The basemap is now dark.']);
  const again = await ask('Make the map dark');
  assert.equal(again.status, 'completed', again.errorMessage);
  assert.equal(again.text, 'The basemap is already dark; nothing changed.');
  assert.deepEqual(await summaries(), ['The basemap was already dark: nothing changed.'], 'the step says so too');
});

test('a layer asked for twice: the second time the draft already has it, and the answer says so', { skip }, async () => {
  const first = await ask('Add a schools layer');
  assert.equal(first.status, 'completed', first.errorMessage);
  assert.match(first.text, /^Added the schools layer to draft d-\d+, which is now at generation 3\.$/);
  const again = await ask('Add a schools layer');
  assert.equal(again.status, 'completed', again.errorMessage);
  assert.deepEqual(again.toolCalls.map((c) => [c.toolName, c.ok]), [['honua_studio_add_layer', true]], 'the same draft');
  assert.match(again.text, /^Draft d-\d+ already has the schools layer, so nothing changed; it is still at generation 3\.$/);
  const [said] = await summaries();
  assert.match(said, /^Draft d-\d+ already has the schools layer: nothing changed \(still at generation 3\)\.$/, 'the step says so too');
});

test('declining the card: the words say it was declined and nothing was done', { skip }, async () => {
  await askToPublish();
  const after = await answerCard('Decline');
  assert.equal(after.status, 'completed', after.errorMessage);
  assert.deepEqual(after.toolCalls, [], 'the card answered the ask in the app: nothing for the model to relay');
  assert.equal(after.text, 'Understood: the map stays unpublished.');
  assert.equal(after.pendingApprovals, undefined);
  assert.equal(await published(), 0, 'nothing was published');
  const { shown } = await words();
  assert.match(shown, /Declined/, 'the log shows the person\'s answer');
  // The step that waited, and its turn, now say the answer: nothing in the log still waits.
  assert.equal(await page.locator('#log .tool.waiting, #log .msg.waiting').count(), 0);
  assert.doesNotMatch(shown, /waiting for your approval/);
  assert.match(shown, /You declined: publish the map to the public site\./);
  assert.doesNotMatch(await page.evaluate(() => document.body.innerText), /no open ask/, 'not "There was no open ask"');
});

test('publishing twice: a card each time, approved each time, a new version each time', { skip }, async () => {
  await askToPublish();
  let after = await answerCard('Approve');
  assert.equal(after.status, 'completed', after.errorMessage);
  assert.equal(after.text, 'Published: the map is live.');
  assert.equal(await published(), 1);
  assert.equal(await page.evaluate(() => window.demo.port.state().page), 'published');

  // Published already: the assistant takes the app back to editing and the same card asks again.
  const asked = await askToPublish();
  assert.deepEqual(asked.toolCalls.map((c) => c.toolName),
    ['studio.journey.publish', 'studio.whats_here', 'studio.do_action', 'studio.journey.publish', 'studio.journey.publish']);
  assert.equal(JSON.parse(asked.toolCalls[2].content).data.did, 'published.new_version', 'the way back: a new version');
  assert.equal(await published(), 1, 'nothing more is published before the person approves');
  await mkdir(path.join(root, 'dist'), { recursive: true });
  await page.screenshot({ path: path.join(root, 'dist', 'demo-publish-again.png') });
  after = await answerCard('Approve');
  assert.equal(after.status, 'completed', after.errorMessage);
  assert.equal(after.text, 'Published: version 2 of the map is live.');
  assert.equal(await published(), 2, 'performed once more');
  assert.equal(await page.evaluate(() => window.demo.port.state().page), 'published');

  // A third time, declined: the live version stays.
  await askToPublish();
  after = await answerCard('Decline');
  assert.equal(after.text, 'Understood: nothing new was published; the version already live stays as it is.');
  assert.equal(await published(), 2);
});

test('no judgment of the port reaches the words a person reads', { skip }, async () => {
  const { shown, said } = await words();
  for (const j of judgments) {
    assert.ok(!said.includes(j), `the assistant said "${j}"`);
    assert.ok(!shown.includes(j), `the log shows "${j}" outside the raw JSON`);
  }
});

test('POST /api/demo/reset: the list-changed moment and the draft conflict happen again', { skip }, async () => {
  const routed = () => page.evaluate(() => window.demo.session.toolDiscovery().routed);
  assert.ok((await routed()).includes('honua_studio_preview_draft'), 'the first draft added the preview tool');
  const answer = await page.evaluate(async () => {
    const r = await fetch('/api/demo/reset', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    return { status: r.status, body: await r.json() };
  });
  assert.deepEqual(answer, { status: 200, body: { reset: true } });
  // The page's watch hears the catalog shrink back.
  await page.waitForFunction(() => !window.demo.session.toolDiscovery().routed.includes('honua_studio_preview_draft'), null, { timeout: 30000 });
  // A new conversation (what the page's "New conversation" does with its session): no history, no draft.
  await page.evaluate(() => { window.demo.session.reset(); window.demo.session.attachDraft(null); });
  const turn = await ask('Add a schools layer');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.deepEqual(turn.toolCalls.map((c) => [c.toolName, c.ok]), [['honua_studio_create_draft', true], ['honua_studio_add_layer', true]]);
  assert.equal(turn.toolCalls[1].retriedAfterConflict, true, 'the collaborator\'s conflict again');
  await page.waitForFunction(() => window.demo.session.toolDiscovery().routed.includes('honua_studio_preview_draft'), null, { timeout: 30000 });
});

test('New conversation (the button): the server is reset, and the list-changed moment and the conflict happen again', { skip }, async () => {
  const routed = () => page.evaluate(() => window.demo.session.toolDiscovery().routed);
  assert.ok((await routed()).includes('honua_studio_preview_draft'), 'a draft exists: the preview tool is in the catalog');
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  await page.waitForFunction(() => window.demo.state.turns.length === 0 && !document.getElementById('new-conversation').disabled
    && window.demo.session && !window.demo.session.toolDiscovery().routed.includes('honua_studio_preview_draft'), null, { timeout: 30000 });
  assert.match(await page.textContent('#discovery-summary'), /^4 MCP tools routed/);
  const turn = await ask('Add a schools layer');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.deepEqual(turn.toolCalls.map((c) => c.toolName), ['honua_studio_create_draft', 'honua_studio_add_layer'], 'a new draft');
  assert.equal(turn.toolCalls[1].retriedAfterConflict, true, 'the collaborator\'s conflict again');
  await page.waitForFunction(() => document.getElementById('discovery-summary').textContent.startsWith('5 MCP tools routed'), null, { timeout: 30000 });
  assert.ok((await routed()).includes('honua_studio_preview_draft'), 'the list-changed moment again');
});

test('no console errors, page errors or failed HTTP requests', { skip }, () => {
  assert.deepEqual(problems, []);
});
