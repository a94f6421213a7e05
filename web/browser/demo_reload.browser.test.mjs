// Browser test of the demo page keeping its conversation across a reload:
// `agentwasm dev` (dist/agentwasm) started on a free loopback port, the page
// in headless Chromium, the scripted model. A person asks to publish; the
// turn stops on the approval card; the page reloads. The conversation from
// before is shown again, the card is still there, and Approve performs the
// step once (the app's published version goes up by one, the publish handler
// runs once in the reloaded page). A turn running when the page reloads
// shows as interrupted, its text back in the composer. Then New
// conversation, and a reload shows an empty conversation: nothing of the old
// one was kept. Screenshots land in
// dist/demo-reload-card.png (the card after the reload).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { browserMissing, launchChromium } from '../testing/browser.mjs';
import { startDevServer } from '../testing/devserver.mjs';
import { turnCount as countTurns, turnAfter as waitTurnAfter, typeAndWait, openDemo } from '../testing/demopage.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const binary = path.join(root, 'dist', 'agentwasm');
const skip = browserMissing({ [binary]: 'make dist/agentwasm' }) || false;

let dev;
let browser;
let page;
const problems = []; // console errors, page errors, HTTP errors

/** Starts agentwasm dev on a free port and resolves with its URL. */
function startDev() {
  // 50 ms between words: the long story streams for about five seconds, so it is still running when
  // the page reloads even on a loaded machine. (A request held by a Playwright route would not do:
  // Chromium fails a routed request as soon as the reload starts, before pagehide, which no real
  // request sees.)
  const started = startDevServer(binary, ['--pace', '50ms', '--web', 'web/demo', '--dist', 'dist'], { cwd: root });
  dev = started.child;
  return started.url;
}

/** Reloads the page as a person would, and waits until it is ready again. */
async function reload() {
  await page.reload();
  await page.waitForFunction(() => window.demo?.ready === true, null, { timeout: 30000 });
}

/** What the conversation log shows: the person's bubbles, the notes, the assistant's turns, as text. */
const log = () => page.evaluate(() => ({
  users: [...document.querySelectorAll('#log .msg.user .body')].map((b) => b.textContent),
  notes: [...document.querySelectorAll('#log .msg.note .body')].map((b) => b.textContent),
  assistant: [...document.querySelectorAll('#log .msg.assistant:not(.intro)')].map((m) => m.textContent),
  tools: [...document.querySelectorAll('#log .tool')].map((t) => ({
    name: t.querySelector('.tool-name').textContent,
    summary: t.querySelector('.tool-summary').textContent,
    waiting: t.classList.contains('waiting'),
  })),
}));

/** The approval cards showing: their state, text and buttons. */
const cards = () => page.evaluate(() => [...document.querySelectorAll('#cards .card')].map((c) => ({
  ask: c.dataset.ask, state: c.dataset.state, text: c.textContent, buttons: [...c.querySelectorAll('button')].map((b) => b.textContent),
})));

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

test('a card pending at a reload is still there after it, and Approve performs the step once', { skip }, async () => {
  assert.equal(await page.evaluate(() => window.demo.restored), false, 'a fresh tab has nothing to restore');
  const asked = await typeAndWait(page, 'Publish the map');
  assert.equal(asked.status, 'completed', asked.errorMessage);
  assert.equal(asked.pendingApprovals?.length, 1, 'the turn stopped on the ask');
  const askId = asked.pendingApprovals[0].askId;
  const shown = await log();
  assert.deepEqual(shown.users, ['Publish the map']);
  const versionBefore = await page.evaluate(() => window.demo.app.view.version);

  await reload();
  assert.equal(await page.evaluate(() => window.demo.restored), true, 'the page restored the stored conversation');
  assert.equal(await page.evaluate(() => window.demo.restoreError ?? null), null);
  // The conversation from before the reload: the request, the assistant's tool calls, their summaries.
  const restored = await log();
  assert.deepEqual(restored.users, ['Publish the map']);
  assert.ok(restored.assistant.length >= 1, 'the assistant\'s turn is shown');
  assert.deepEqual(restored.tools, shown.tools, 'the same tool calls, with the same summaries');
  assert.equal(restored.tools.at(-1).waiting, true, 'the step that waits for the person still waits');
  assert.match(restored.tools.at(-1).summary, /Waiting for your approval: publish the map to the public site/);
  assert.match(await page.locator('#log .msg.assistant .turn-footer').last().textContent(), /waiting for your approval/);
  // The card, answerable again.
  const [card, ...more] = await cards();
  assert.deepEqual(more, [], 'one card');
  assert.equal(card.ask, askId, 'the same ask');
  assert.equal(card.state, 'pending');
  assert.match(card.text, /Publish the map to the public site/);
  assert.deepEqual(card.buttons, ['Approve', 'Decline']);
  assert.equal((await page.evaluate((id) => window.demo.port.asks().find((a) => a.askId === id) ?? null, askId))?.state, 'pending',
    'the restored port holds the ask');
  assert.equal(await page.textContent('#published'), 'no');
  await mkdir(path.join(root, 'dist'), { recursive: true });
  await page.screenshot({ path: path.join(root, 'dist', 'demo-reload-card.png') });

  const n = await countTurns(page);
  await page.click('#cards .card button.approve');
  const after = await waitTurnAfter(page, n);
  assert.equal(after.status, 'completed', after.errorMessage);
  const performed = JSON.parse(after.toolCalls[0].content).data;
  assert.equal(performed.effectStatus, 'performed', JSON.stringify(performed));
  assert.equal(after.pendingApprovals, undefined);
  assert.equal(await page.evaluate(() => window.demo.performed['review.publish']), 1, 'the publish handler ran once');
  assert.equal(await page.evaluate(() => window.demo.app.view.version), versionBefore + 1, 'the published version went up by one');
  assert.match(await page.textContent('#published'), /^yes/);
  assert.equal(await page.locator('#cards .card').count(), 0, 'the card is answered');
  const users = await page.evaluate(() => window.demo.session.messages().filter((m) => m.role === 'user').map((m) => m.content));
  assert.ok(users.at(-1).startsWith(`Approved: the person approved "${askId}"`), users.at(-1));
  assert.match(await page.locator('#log .msg.note').last().textContent(), /Approved: Publish the map to the public site/);
  assert.match(await page.locator('#log .tool.plane-port').first().textContent(), /publish|review/i);
});

test('a turn running at the reload shows as interrupted, its text offered again', { skip }, async () => {
  // The long story streams for seconds (the scripted model's pace): the page reloads while it runs.
  await page.fill('#input', 'Tell me a long story');
  await page.press('#input', 'Enter');
  await page.waitForFunction(() => document.querySelector('#stop')?.disabled === false, null, { timeout: 30000 });
  const before = await log();
  assert.equal(await page.evaluate(() => window.demo.state.busy), true, 'the story is still streaming at the reload');
  await reload();
  assert.equal(await page.evaluate(() => window.demo.restored), true);
  const after = await log();
  assert.deepEqual(after.users, before.users, 'the requests before it, and its own');
  assert.equal(after.users.at(-1), 'Tell me a long story');
  assert.match(await page.locator('#log .msg.assistant.interrupted').textContent(), /Interrupted/);
  assert.equal(await page.inputValue('#input'), 'Tell me a long story', 'its text is back in the composer');
  assert.equal(await page.evaluate(() => window.demo.session.messages().some((m) => m.content === 'Tell me a long story')), false,
    'the interrupted request is not in the restored history');
  // Sent again, it is an ordinary turn (stopped here, as a person would).
  const n = await countTurns(page);
  await page.press('#input', 'Enter');
  await page.waitForFunction(() => document.querySelector('#stop')?.disabled === false, null, { timeout: 30000 });
  await page.click('#stop');
  const again = await waitTurnAfter(page, n);
  assert.equal(again.status, 'cancelled', again.errorMessage);
});

test('after New conversation, a reload shows an empty conversation', { skip }, async () => {
  await page.click('#new-conversation');
  await page.waitForFunction(() => !window.demo.state.resetting, null, { timeout: 30000 });
  assert.deepEqual((await log()).users, [], 'New conversation cleared the log');
  await reload();
  assert.equal(await page.evaluate(() => window.demo.restored), false, 'nothing was kept');
  const shown = await log();
  assert.deepEqual(shown, { users: [], notes: [], assistant: [], tools: [] });
  assert.equal(await page.locator('#cards .card').count(), 0);
  assert.equal(await page.evaluate(() => window.demo.session.messages().length), 0);
  assert.equal(await page.textContent('#published'), 'no', 'a fresh app');
  assert.equal(await page.evaluate(() => window.demo.app.view.version), 0);
});

test('no console errors, page errors or failed HTTP requests', { skip }, () => {
  assert.deepEqual(problems, []);
});
