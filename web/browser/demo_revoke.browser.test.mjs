// Browser test of the demo page's revoke card: `agentwasm dev` (dist/agentwasm)
// started on a free loopback port, the page in headless Chromium. A person
// asks to publish, approves the card, and stops the resumed turn before the
// assistant acts — the approval is given but unused. The page shows it with
// Revoke; revoking marks it revoked in the card and in the port, and a later
// confirm from the assistant performs nothing. The person's answers are
// clicks and typed messages only; the test reads the page's state and the
// port's asks to check. Screenshots land in dist/demo-revoke.png (the
// approved card) and dist/demo-revoked.png (after Revoke).
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
  const started = startDevServer(binary, ['--pace', '4ms', '--web', 'web/demo', '--dist', 'dist'], { cwd: root });
  dev = started.child;
  return started.url;
}

/** The number of finished turns. */
const turnCount = () => countTurns(page);

/** Waits for the turn after the nth to end, and returns it. */
const turnAfter = (n) => waitTurnAfter(page, n);

/** Types a request as a person would (Enter sends) and waits for the turn to end. */
const ask = (text) => typeAndWait(page, text);

/** The port's ask with this id, as the page's port reports it. */
const portAsk = (askId) => page.evaluate((id) => window.demo.port.asks().find((a) => a.askId === id) ?? null, askId);

/** The card of this ask: its state and text. */
const cardOf = (askId) => page.evaluate((id) => {
  const card = [...document.querySelectorAll('#cards .card')].find((c) => c.dataset.ask === id);
  return card ? { state: card.dataset.state, text: card.textContent, buttons: [...card.querySelectorAll('button')].map((b) => b.textContent) } : null;
}, askId);

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

let askId; // the approved ask, as the turn named it (an opaque id)

test('an approval the stopped turn never used shows as a card with Revoke', { skip }, async () => {
  const asked = await ask('Publish the map');
  assert.equal(asked.status, 'completed', asked.errorMessage);
  assert.equal(asked.pendingApprovals?.length, 1, 'the turn stopped on the ask');
  askId = asked.pendingApprovals[0].askId;
  assert.equal((await cardOf(askId))?.state, 'pending');

  // The model request after the approval is held, as a slow model would hold it, and the person stops the turn.
  let held;
  let requested;
  const sent = new Promise((resolve) => { requested = resolve; });
  await page.route('**/api/v1/studio/ai/chat', (route) => { held = route; requested(); });
  const n = await turnCount();
  await page.click('#cards .card button.approve');
  await sent;
  assert.equal((await portAsk(askId))?.state, 'approved', 'the card approved the ask before the model was asked again');
  await page.click('#stop');
  const stopped = await turnAfter(n);
  await page.unroute('**/api/v1/studio/ai/chat');
  await held.abort().catch(() => {}); // the page aborted it already
  assert.equal(stopped.status, 'cancelled');
  assert.equal(await page.evaluate(() => window.demo.performed['review.publish'] ?? 0), 0, 'nothing was published');
  assert.equal(await page.textContent('#published'), 'no');

  // The approval is unused and still usable: the page shows it with a way to take it back.
  assert.equal((await portAsk(askId))?.state, 'approved');
  const card = await cardOf(askId);
  assert.equal(card?.state, 'approved', 'one card for the approved, unused ask');
  assert.match(card.text, /Approved — not used yet/);
  assert.match(card.text, /You approved: Publish the map to the public site/);
  assert.deepEqual(card.buttons, ['Revoke']);
  assert.equal(await page.locator('#cards .card').count(), 1);
  await mkdir(path.join(root, 'dist'), { recursive: true });
  await page.screenshot({ path: path.join(root, 'dist', 'demo-revoke.png') });
});

test('Revoke marks the approval revoked in the card and in the port', { skip }, async () => {
  await page.click('#cards .card[data-state="approved"] button.revoke');
  const card = await cardOf(askId);
  assert.equal(card?.state, 'revoked');
  assert.match(card.text, /Approval revoked/);
  assert.match(card.text, /can no longer use this approval/);
  assert.deepEqual(card.buttons, [], 'nothing left to click');
  const k = await portAsk(askId);
  assert.equal(k?.state, 'revoked');
  assert.equal(k.answeredBy, 'person');
  assert.match(await page.locator('#log .msg.note').last().textContent(), /Revoked: Publish the map to the public site/);
  await page.screenshot({ path: path.join(root, 'dist', 'demo-revoked.png') });
});

test('a later confirm from the assistant performs nothing once the approval is revoked', { skip }, async () => {
  // The person says yes in the conversation; the scripted model repeats its call with confirm:true.
  const later = await ask('Approved');
  assert.equal(later.status, 'completed', later.errorMessage);
  const calls = later.events.filter((e) => e.type === 'toolCallStop');
  assert.equal(calls.at(-1)?.toolArguments?.confirm, true, 'the model confirmed');
  const data = JSON.parse(later.toolCalls.at(-1).content).data;
  assert.notEqual(data.effectStatus, 'performed', JSON.stringify(data));
  assert.notEqual(data.performed, true, JSON.stringify(data));
  if (data.judgment === 'needs-confirm') {
    assert.notEqual(data.askId, askId, 'the revoked approval is not reused: a new ask waits for the person');
  } else {
    assert.equal(data.ok, false, `refused: ${JSON.stringify(data)}`);
  }
  assert.equal(await page.evaluate(() => window.demo.performed['review.publish'] ?? 0), 0, 'nothing was published');
  assert.equal(await page.textContent('#published'), 'no');
  assert.equal((await portAsk(askId))?.state, 'revoked', 'the revoked ask stays revoked');
  assert.equal(await cardOf(askId), null, 'the revoked card is gone once the next turn ran');
  // Any new ask is a fresh card; decline it to leave the page as it was.
  if (later.pendingApprovals?.length) {
    const n = await turnCount();
    await page.click('#cards .card[data-state="pending"] button.decline');
    const declined = await turnAfter(n);
    assert.equal(declined.status, 'completed', declined.errorMessage);
    assert.equal(await page.locator('#cards .card').count(), 0);
  }
});

test('no console errors, page errors or failed HTTP requests', { skip }, () => {
  assert.deepEqual(problems, []);
});
