// Node tests of the port snapshot: port.snapshot() is a plain object, and
// a port made in a new runtime with createPort(graph, {restore}) over the
// same graph holds the ask journal — a card pending at the "reload" can be
// approved and the step performs once, a decline stays a decline, and the
// asks stay their callers'. A snapshot that does not belong throws
// bad_snapshot.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRuntime, scriptedRounds } from '../testing/helpers.mjs';

const before = await loadRuntime();
const after = await loadRuntime(); // the page after a reload: another module instance

const shop = {
  id: 'shop',
  pages: [{ id: 'cart' }, { id: 'checkout' }, { id: 'done' }],
  actions: [
    { id: 'cart.checkout', does: 'Go to checkout', on: 'cart', goTo: 'checkout', input: 'none' },
    { id: 'checkout.pay', does: 'Pay for the order', on: 'checkout', goTo: 'done', confirm: true, writes: ['order.id'], input: 'none' },
  ],
};
const pay = { name: 'shop.do_action', args: { action: 'checkout.pay' } };
const confirm = { name: 'shop.do_action', args: { action: 'checkout.pay', confirm: true } };

/** A gated checkout port in runtime, recording the fires its handlers run. */
function checkout(runtime, extra = {}) {
  const calls = [];
  const handlers = { 'checkout.pay': async () => { calls.push('checkout.pay'); return { orderId: 'o-1' }; } };
  const port = runtime.createPort(shop, { handlers, requireHumanApproval: true, page: 'checkout', ...extra });
  return { port, calls };
}

/** A kit session that stopped on the pay ask, and the two snapshots taken then (the page going away). */
async function stoppedOnAsk() {
  const old = checkout(before);
  const agent = before.createSession({ kit: old.port, transport: scriptedRounds([[pay]]), disableToolDiscovery: true });
  const turn = await agent.chat('Pay for my order.');
  assert.equal(turn.pendingApprovals?.length, 1, JSON.stringify(turn));
  const { askId } = turn.pendingApprovals[0];
  const snapshot = old.port.snapshot();
  const sessionSnapshot = agent.snapshot();
  agent.close();
  old.port.close();
  return { askId, snapshot, sessionSnapshot };
}

test('a port kit session stops on an ask; after the reload the restored session resumes on the restored port, and the step performs once', async () => {
  const { askId, snapshot, sessionSnapshot } = await stoppedOnAsk();
  assert.equal(Object.getPrototypeOf(snapshot), Object.prototype, 'a plain object');
  assert.equal(snapshot.format, 'agentwasm.port');
  assert.equal(snapshot.version, 1);
  assert.match(snapshot.graph, /^fnv1a128:[0-9a-f]{32}$/);
  assert.deepEqual(snapshot.asks.map((k) => [k.id, k.action, k.does, k.state]), [[askId, 'checkout.pay', 'Pay for the order', 'pending']]);
  assert.match(snapshot.asks[0].caller, /^caller:kit:/, 'the ask is the session\'s');

  const now = checkout(after, { restore: JSON.parse(JSON.stringify(snapshot)) });
  assert.deepEqual(now.port.asks().map((k) => [k.askId, k.state]), [[askId, 'pending']], 'the card is still pending');
  const resumed = after.createSession({
    kit: now.port, restore: sessionSnapshot, transport: scriptedRounds([[confirm], 'Paid.']), disableToolDiscovery: true,
  });
  assert.deepEqual(sessionSnapshot.pending.map((p) => p.askId), [askId], 'the session\'s snapshot holds the ask it stopped on');
  const done = await resumed.resume({ approve: [askId] });
  assert.equal(done.status, 'completed', done.errorMessage);
  assert.deepEqual(now.calls, ['checkout.pay'], 'performed once');
  assert.equal(now.port.asks()[0].state, 'used');
  resumed.close();
  now.port.close();
});

test('after the reload, another conversation (a new session, the port\'s own calls) cannot use the restored ask', async () => {
  const { askId, snapshot } = await stoppedOnAsk();
  const now = checkout(after, { restore: snapshot });
  now.port.approveAsk(askId, { by: 'ana' });
  const other = after.createSession({ kit: now.port, transport: scriptedRounds([[confirm], 'Not paid.']), disableToolDiscovery: true });
  const refused = await other.chat('Pay.');
  assert.equal(JSON.parse(refused.toolCalls[0].content).data.reason, 'APPROVAL_NOT_YOURS');
  const own = await now.port.call('shop.do_action', { action: 'checkout.pay', confirm: true, askId });
  assert.equal(own.reason, 'APPROVAL_NOT_YOURS', JSON.stringify(own));
  assert.deepEqual(now.calls, [], 'nothing ran');
  assert.equal(now.port.asks()[0].state, 'approved', 'and nothing used the approval');
  other.close();
  now.port.close();
});

test('the port\'s own pending ask, restored from its JSON text, is approved after the reload and performs once', async () => {
  const old = checkout(before);
  const asked = await old.port.call('shop.do_action', { action: 'checkout.pay' });
  assert.equal(asked.judgment, 'needs-confirm');
  const text = JSON.stringify(old.port.snapshot());
  old.port.close();

  const now = checkout(after, { restore: text });
  now.port.approveAsk(asked.askId, { by: 'ana' });
  const paid = await now.port.call('shop.do_action', { action: 'checkout.pay', confirm: true, askId: asked.askId }, { settleWithinMs: 1000 });
  assert.equal(paid.effectStatus, 'performed', JSON.stringify(paid));
  assert.equal(paid.askId, asked.askId);
  const again = await now.port.call('shop.do_action', { action: 'checkout.pay', confirm: true, askId: asked.askId });
  assert.equal(again.performed, false, JSON.stringify(again));
  assert.deepEqual(now.calls, ['checkout.pay'], 'the step performed once');
  now.port.close();
});

test('a decline stays a decline across the reload', async () => {
  const old = checkout(before);
  const asked = await old.port.call('shop.do_action', { action: 'checkout.pay' });
  old.port.declineAsk(asked.askId, { by: 'ana' });
  const snapshot = old.port.snapshot();
  old.port.close();

  const now = checkout(after, { restore: snapshot });
  assert.deepEqual(now.port.asks().map((k) => [k.askId, k.state]), [[asked.askId, 'declined']]);
  assert.throws(() => now.port.approveAsk(asked.askId), (err) => err.code === 'refused');
  const res = await now.port.call('shop.do_action', { action: 'checkout.pay', confirm: true, askId: asked.askId });
  assert.equal(res.reason, 'APPROVAL_DECLINED', JSON.stringify(res));
  assert.deepEqual(now.calls, []);
  now.port.close();
});

test('a snapshot that does not belong is refused with bad_snapshot', async () => {
  const old = checkout(before);
  await old.port.call('shop.do_action', { action: 'checkout.pay' });
  const snapshot = old.port.snapshot();
  old.port.close();
  const otherGraph = { ...shop, actions: [shop.actions[0], { ...shop.actions[1], does: 'Pay now' }] };
  const refused = (fn, says) => assert.throws(fn, (err) => err.code === 'bad_snapshot' && says.test(err.message), says.source);
  refused(() => after.createPort(otherGraph, { requireHumanApproval: true, restore: snapshot }), /another graph/);
  refused(() => checkout(after, { restore: { ...snapshot, version: 2 } }), /version 2 is unknown/);
  refused(() => checkout(after, { restore: { ...snapshot, format: 'agentwasm.session' } }), /format/);
  refused(() => checkout(after, { restore: '{"format":' }), /not JSON/);
  refused(() => checkout(after, { restore: 7 }), /port snapshot/);
  const gone = { ...snapshot, asks: [{ ...snapshot.asks[0], action: 'checkout.refund' }] };
  refused(() => checkout(after, { restore: gone }), /checkout\.refund/);
});
