// Node tests of the serving port from JavaScript: createPort with JS
// handlers, refusals, human approval, events, closing, misuse, the in-page
// MCP server, and a session whose kit is a port.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRuntime, scriptedRounds } from '../testing/helpers.mjs';

const runtime = await loadRuntime();

/** Go to checkout, then pay (high-effect); a journey over both. */
const shop = {
  id: 'shop',
  pages: [{ id: 'catalog' }, { id: 'cart' }, { id: 'checkout' }, { id: 'done' }],
  actions: [
    {
      id: 'catalog.add', does: 'Add an item to the cart', on: 'catalog', writes: ['cart.items'],
      input: { type: 'object', properties: { sku: { type: 'string', minLength: 1 } }, required: ['sku'] },
    },
    { id: 'catalog.openCart', does: 'Open the cart', on: 'catalog', goTo: 'cart', input: 'none' },
    { id: 'cart.checkout', does: 'Go to checkout', on: 'cart', goTo: 'checkout', input: 'none' },
    { id: 'checkout.pay', does: 'Pay for the order', on: 'checkout', goTo: 'done', confirm: true, writes: ['order.id'], input: 'none' },
  ],
  journeys: [{ id: 'buy', does: 'Buy what is in the cart', steps: ['cart.checkout', 'checkout.pay'] }],
};

/** Handlers that record their calls; pay resolves asynchronously. */
function recorder() {
  const calls = [];
  const handlers = {
    'catalog.add': (input, ctx) => { calls.push([ctx.action, input, ctx.source]); return { added: input.sku }; },
    'catalog.openCart': async (input, ctx) => { calls.push([ctx.action, input, ctx.source]); return null; },
    'cart.checkout': async (input, ctx) => { calls.push([ctx.action, input, ctx.source]); return {}; },
    'checkout.pay': async (input, ctx) => {
      calls.push([ctx.action, input, ctx.source]);
      await new Promise((r) => setTimeout(r, 5));
      return { orderId: 'o-1' };
    },
  };
  return { calls, handlers };
}

/** Polls did_it_work until the transition settles. */
async function settled(port, transitionId) {
  for (let i = 0; i < 200; i++) {
    const r = await port.call('shop.did_it_work', { transitionId });
    if (r.judgment !== 'still-pending') return r;
    await new Promise((res) => setTimeout(res, 2));
  }
  throw new Error(`${transitionId} never settled`);
}

test('a port from JS: fixed tools, a fire through a JS handler, and its data', async () => {
  const { calls, handlers } = recorder();
  const port = runtime.createPort(shop, { handlers });
  const names = port.tools().map((t) => t.name);
  assert.deepEqual(names, ['shop.journey.buy', 'shop.whats_here', 'shop.why', 'shop.do_action', 'shop.did_it_work']);
  assert.equal(port.tools()[1].annotations.readOnlyHint, true);

  const here = await port.call('shop.whats_here');
  assert.equal(here.youAreOn, 'catalog');
  assert.ok(here.actions.some((a) => a.action === 'catalog.add'));

  const fired = await port.call('shop.do_action', { action: 'catalog.add', input: { sku: 'A1' } });
  assert.equal(fired.ok, true, JSON.stringify(fired));
  assert.match(fired.transitionId, /^catalog\.add#\d+$/);
  const facts = await settled(port, fired.transitionId);
  assert.equal(facts.effectStatus, 'performed', JSON.stringify(facts));
  assert.deepEqual(facts.data, { added: 'A1' });
  assert.deepEqual(calls, [['catalog.add', { sku: 'A1' }, 'agent']]);
  assert.equal(port.transition(fired.transitionId).effectStatus, 'performed');
  assert.deepEqual(names, port.tools().map((t) => t.name), 'the tools do not change');
  port.close();
});

test('call with settleWithinMs comes back settled; a bad settleWithinMs is refused', async () => {
  const { handlers } = recorder();
  const port = runtime.createPort(shop, { handlers });
  const folded = await port.call('shop.do_action', { action: 'catalog.add', input: { sku: 'B2' } }, { settleWithinMs: 2000 });
  assert.equal(folded.effectStatus, 'performed', JSON.stringify(folded));
  assert.equal(folded.settleWith, undefined, 'no pending pointer on a settled result');
  const quick = await port.call('shop.do_action', { action: 'catalog.add', input: { sku: 'C3' } });
  assert.equal(quick.effectStatus, 'pending', 'without the option the call answers at once');
  for (const bad of [-1, 1.5, '10', Number.NaN]) {
    await assert.rejects(port.call('shop.whats_here', {}, { settleWithinMs: bad }), { code: 'bad_argument' });
  }
  port.close();
});

test('bad input from the model is a refusal, never a throw', async () => {
  const port = runtime.createPort(shop, { handlers: recorder().handlers });
  const unknown = await port.call('shop.nope', {});
  assert.equal(unknown.ok, false);
  assert.equal(unknown.reason, 'UNKNOWN_TOOL');
  assert.ok(unknown.tools.includes('shop.whats_here'));
  const badInput = await port.call('shop.do_action', { action: 'catalog.add', input: { sku: '' } });
  assert.equal(badInput.ok, false);
  assert.equal(badInput.reason, 'PAYLOAD_INVALID', JSON.stringify(badInput));
  assert.equal(badInput.transitionId, undefined);
  const wrongType = await port.call('shop.do_action', { action: 42 });
  assert.equal(wrongType.ok, false);
  const missing = await port.call('shop.did_it_work', {});
  assert.equal(missing.reason, 'TRANSITION_ID_REQUIRED');
  port.close();
});

test('a handler that throws refuses the fire with its message', async () => {
  const port = runtime.createPort(shop, {
    handlers: { 'catalog.add': () => { throw new Error('out of stock'); } },
  });
  const fired = await port.call('shop.do_action', { action: 'catalog.add', input: { sku: 'A1' } });
  const facts = await settled(port, fired.transitionId);
  assert.equal(facts.effectStatus, 'refused');
  assert.match(facts.error, /out of stock/);
  port.close();

  // A plain object thrown says itself as JSON, not "[object Object]".
  const plain = runtime.createPort(shop, {
    handlers: { 'catalog.add': async () => { throw { code: 'E_STOCK', left: 0 }; } },
  });
  const again = await plain.call('shop.do_action', { action: 'catalog.add', input: { sku: 'A1' } });
  const why = await settled(plain, again.transitionId);
  assert.match(why.error, /\{"code":"E_STOCK","left":0\}/);
  plain.close();
});

test('human approval: needs-confirm, the page approves, the confirm fires; events reach the page', async () => {
  const { calls, handlers } = recorder();
  const changes = [];
  const warnings = [];
  const port = runtime.createPort(shop, {
    handlers, requireHumanApproval: true, page: 'checkout',
    onChange: (c) => changes.push(c.version), onWarn: (w) => warnings.push(w),
  });
  const asked = await port.call('shop.do_action', { action: 'checkout.pay' });
  assert.equal(asked.judgment, 'needs-confirm', JSON.stringify(asked));
  assert.equal(asked.performed, false);
  assert.equal(asked.transitionId, undefined);
  const bare = await port.call('shop.do_action', { action: 'checkout.pay', confirm: true });
  assert.equal(bare.judgment, 'needs-confirm', 'the model cannot approve by confirming');
  assert.equal(calls.length, 0);

  const cards = port.asks();
  assert.ok(cards.some((a) => a.askId === asked.askId && a.action === 'checkout.pay'));
  port.approveAsk(asked.askId, { by: 'ana' });
  const fired = await port.call('shop.do_action', { action: 'checkout.pay', confirm: true });
  assert.equal(fired.ok, true, JSON.stringify(fired));
  const facts = await settled(port, fired.transitionId);
  assert.deepEqual(facts.data, { orderId: 'o-1' });
  assert.deepEqual(calls.map(([action, , source]) => [action, source]), [['checkout.pay', 'agent']]);
  assert.equal(port.state().page, 'done');

  port.navigate('checkout');
  const again = await port.call('shop.do_action', { action: 'checkout.pay', confirm: true });
  assert.equal(again.judgment, 'needs-confirm', `a spent approval does not fire again: ${JSON.stringify(again)}`);
  assert.equal(again.transitionId, undefined);
  assert.equal(calls.length, 1);
  assert.ok(changes.length > 0, 'onChange heard the changes');
  assert.deepEqual(warnings, []);
  assert.throws(() => port.approveAsk('ask#999'), (err) => err.code === 'refused');
  port.close();
});

test('a user-source port warns once, through onWarn', () => {
  const warnings = [];
  const port = runtime.createPort(shop, { source: 'user', requireHumanApproval: true, onWarn: (w) => warnings.push(w) });
  assert.equal(warnings.length, 1, JSON.stringify(warnings));
  assert.equal(typeof warnings[0].message, 'string');
  port.close();
});

test('host reports move the app, and bump its version', () => {
  const port = runtime.createPort(shop, {});
  const v0 = port.state().version;
  port.navigate('cart');
  port.patch({ 'cart.items': ['A1'] });
  const id = port.report('cart.checkout', { data: { via: 'click' } });
  assert.match(id, /^cart\.checkout#\d+$/);
  const st = port.state();
  assert.equal(st.page, 'checkout');
  assert.deepEqual(st.state['cart.items'], ['A1']);
  assert.ok(st.version > v0);
  assert.equal(port.transition(id).source, 'user');
  port.close();
});

test('createPort refuses a bad graph or option with a coded error naming the id', () => {
  const bad = { ...shop, journeys: [{ id: 'j', does: 'x', steps: ['nope.step'] }] };
  assert.throws(() => runtime.createPort(bad), (err) => err.code === 'bad_options' && /nope\.step/.test(err.message));
  assert.throws(() => runtime.createPort('{not json'), (err) => err.code === 'bad_options');
  assert.throws(() => runtime.createPort(shop, { journeyTools: 'many' }), (err) => err.code === 'bad_options');
  assert.throws(() => runtime.createPort(shop, { colour: 'red' }), (err) => err.code === 'bad_options');
  assert.throws(() => runtime.createPort(shop, { handlers: { 'catalog.add': 1 } }), (err) => err.code === 'bad_options');
  assert.throws(() => runtime.createPort(shop, { handlers: { 'no.such': () => 1 } }), (err) => err.code === 'bad_options');
  const port = runtime.createPort(shop);
  port.close();
  assert.throws(() => port.tools(), (err) => err.code === 'closed');
});

test('single mode: one journey tool; the other mode\'s names are UNKNOWN_TOOL', async () => {
  const port = runtime.createPort(shop, { journeyTools: 'single', separator: '__' });
  const names = port.tools().map((t) => t.name);
  assert.deepEqual(names, ['shop__journey', 'shop__whats_here', 'shop__why', 'shop__do_action', 'shop__did_it_work']);
  const r = await port.call('shop__journey__buy', {});
  assert.equal(r.reason, 'UNKNOWN_TOOL');
  port.close();
});

test('the port over MCP, in the page: tools/list and a call', async () => {
  const port = runtime.createPort(shop, { handlers: recorder().handlers, name: 'shop-mcp', version: '1.2.3' });
  const init = await port.mcp({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
  assert.equal(init.result.serverInfo.name, 'shop-mcp');
  assert.equal(await port.mcp({ jsonrpc: '2.0', method: 'notifications/initialized' }), null);
  const list = await port.mcp({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  assert.deepEqual(list.result.tools.map((t) => t.name), port.tools().map((t) => t.name));
  const res = await port.mcp({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'shop.do_action', arguments: { action: 'catalog.add', input: { sku: 'B2' } } } });
  assert.equal(res.result.structuredContent.effectStatus, 'performed', JSON.stringify(res.result));
  assert.deepEqual(res.result.structuredContent.data, { added: 'B2' });
  assert.equal(res.result.isError, undefined);
  const bad = await port.mcp('{"jsonrpc":"2.0","id":4,"method":"nope"}');
  assert.equal(bad.error.code, -32601);
  const garbled = await port.mcp('{"jsonrpc":"2.0","id":5,');
  assert.equal(garbled.error.code, -32700);
  port.close();
});

test('the in-page agent drives its own app: a session whose kit is a port', async () => {
  const { calls, handlers } = recorder();
  const port = runtime.createPort(shop, { handlers, requireHumanApproval: true, page: 'cart' });
  const rounds = [
    [{ name: 'shop.journey.buy', args: {} }],
    [{ name: 'shop.journey.buy', args: { step: 'checkout' } }],
    [{ name: 'shop.journey.buy', args: { step: 'pay' } }],
    [{ name: 'shop.journey.buy', args: { step: 'pay', confirm: true } }],
    'Paid.',
  ];
  const session = runtime.createSession({ kit: port, transport: scriptedRounds(rounds), disableToolDiscovery: true });
  assert.deepEqual(session.tools().map((t) => t.name), port.tools().map((t) => t.name));
  let turn = await session.chat('Buy my cart.');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  const results = turn.toolCalls.map((r) => JSON.parse(r.content).data);
  assert.equal(results[1].effectStatus, 'performed', JSON.stringify(results[1]));
  assert.equal(results[2].judgment, 'needs-confirm');
  assert.equal(turn.rounds, 3, 'the turn stopped on the ask: no model request after it');
  assert.deepEqual(turn.pendingApprovals.map((p) => p.askId), [results[2].askId]);
  assert.deepEqual(calls.map((c) => c[0]), ['cart.checkout']);

  // The person may also answer on the port's own door and say so (session.resume is the other way:
  // agent_api.test.mjs); a chat clears the pending asks.
  port.approveAsk(results[2].askId, { by: 'ana' });
  turn = await session.chat('Approved.');
  assert.equal(turn.pendingApprovals, undefined);
  assert.equal(turn.status, 'completed', turn.errorMessage);
  const paid = JSON.parse(turn.toolCalls[0].content).data;
  assert.equal(paid.effectStatus, 'performed', JSON.stringify(paid));
  assert.deepEqual(paid.data, { orderId: 'o-1' });
  assert.deepEqual(calls.map((c) => c[0]), ['cart.checkout', 'checkout.pay']);
  session.close();
  port.close();
});

test('an approval is the session that asked: another session on the same port is refused and uses nothing', async () => {
  const { calls, handlers } = recorder();
  const port = runtime.createPort(shop, { handlers, requireHumanApproval: true, page: 'checkout' });
  const pay = { name: 'shop.do_action', args: { action: 'checkout.pay' } };
  const confirm = { name: 'shop.do_action', args: { action: 'checkout.pay', confirm: true } };
  const a = runtime.createSession({ kit: port, transport: scriptedRounds([[pay], [confirm], 'Paid.']), disableToolDiscovery: true });
  const b = runtime.createSession({ kit: port, transport: scriptedRounds([[confirm], 'Not paid.']), disableToolDiscovery: true });

  let turn = await a.chat('Pay for my order.');
  assert.equal(turn.pendingApprovals.length, 1, JSON.stringify(turn));
  const askId = turn.pendingApprovals[0].askId;
  assert.match(askId, /^ask_[a-z2-7]{26}$/, 'an unguessable id');
  port.approveAsk(askId, { by: 'ana' });

  turn = await b.chat('Pay for my order.');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  const refused = JSON.parse(turn.toolCalls[0].content).data;
  assert.equal(refused.reason, 'APPROVAL_NOT_YOURS', JSON.stringify(refused));
  assert.equal(refused.performed, false);
  assert.deepEqual(calls, [], 'nothing ran');
  assert.deepEqual(port.asks().map((k) => [k.askId, k.state]), [[askId, 'approved']], 'still approved and unused: the card can offer revoke');

  turn = await a.resume({ approve: [askId] });
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.equal(turn.text, 'Paid.');
  assert.deepEqual(calls.map((c) => c[0]), ['checkout.pay'], 'the asking session fired it, once');
  assert.equal(port.asks()[0].state, 'used');
  a.close();
  b.close();
  port.close();
});

test('an approved, unused ask can be revoked from the page; the model is then refused', async () => {
  const { calls, handlers } = recorder();
  const port = runtime.createPort(shop, { handlers, requireHumanApproval: true, page: 'checkout' });
  const asked = await port.call('shop.do_action', { action: 'checkout.pay' });
  port.approveAsk(asked.askId, { by: 'ana' });
  assert.equal(port.asks()[0].state, 'approved');
  port.revokeAsk(asked.askId, { by: 'ana' });
  assert.equal(port.asks()[0].state, 'revoked');
  assert.throws(() => port.revokeAsk(asked.askId), (err) => err.code === 'refused', 'revoked once');
  const res = await port.call('shop.do_action', { action: 'checkout.pay', confirm: true, askId: asked.askId });
  assert.equal(res.reason, 'APPROVAL_REVOKED', JSON.stringify(res));
  assert.deepEqual(calls, []);
  port.close();
});

test('closing a port: calls refused, a session whose kit it is gets errors, running fires still settle, no events', async () => {
  let release;
  const released = new Promise((r) => { release = r; });
  const changes = [];
  const handlerRan = [];
  const port = runtime.createPort(shop, {
    handlers: {
      'catalog.add': async (input) => { await released; handlerRan.push(input.sku); return { charged: input.sku }; },
    },
    onChange: (c) => changes.push(c.version),
  });
  const fired = await port.call('shop.do_action', { action: 'catalog.add', input: { sku: 'A1' } });
  assert.equal(fired.effectStatus, 'pending');
  const session = runtime.createSession({
    kit: port,
    disableToolDiscovery: true,
    transport: async function* (request) {
      yield { type: 'messageStart' };
      if (request.messages.length === 1) {
        yield { type: 'toolCallStart', toolCallId: 'c1', toolName: 'shop.do_action' };
        yield { type: 'toolCallStop', toolCallId: 'c1', toolArguments: { action: 'catalog.add', input: { sku: 'Z9' } } };
        yield { type: 'messageStop', stopReason: 'toolCall' };
      } else {
        yield { type: 'textDelta', text: 'The shop is closed.' };
        yield { type: 'messageStop', stopReason: 'endTurn' };
      }
    },
  });
  port.close();
  assert.equal(port.closed, true);
  const heard = changes.length;
  await assert.rejects(port.call('shop.whats_here'), (err) => err.code === 'closed');
  const turn = await session.chat('Add Z9.');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  const result = JSON.parse(turn.toolCalls[0].content);
  assert.equal(result.status, 'error');
  assert.equal(result.data.reason, 'PORT_CLOSED', JSON.stringify(result));
  release();
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(handlerRan, ['A1'], 'the running fire finished; the closed port fired nothing new');
  assert.equal(changes.length, heard, 'no events after close');
  assert.throws(() => runtime.createSession({ kit: port }), (err) => err.code === 'closed');
  session.close();
});

test('misuse is refused with coded errors', async () => {
  const other = await loadRuntime();
  const foreign = other.createPort(shop);
  assert.throws(() => runtime.createSession({ kit: foreign }), (err) => err.code === 'bad_options' && /another runtime/.test(err.message));
  foreign.close();
  const port = runtime.createPort(shop, { handlers: { 'catalog.add': () => 1 } });
  assert.throws(() => runtime.createSession({ kit: port, execute: () => ({ status: 'ok' }) }), (err) => err.code === 'bad_options');
  await assert.rejects(port.call('shop.do_action', { action: 'catalog.add', input: { n: 1n } }), (err) => err.code === 'bad_argument');
  const cycle = {};
  cycle.self = cycle;
  assert.throws(() => port.patch({ c: cycle }), (err) => err.code === 'bad_argument');
  assert.throws(() => runtime.createPort({ ...shop, extra: 1n }), (err) => err.code === 'bad_options');
  assert.throws(() => port.alwaysApprove('checkout.pay', { expiresInMs: Number.NaN }), (err) => err.code === 'bad_argument');
  assert.throws(() => runtime.createPort(shop, { settleWithinMs: Infinity }), (err) => err.code === 'bad_options');
  assert.throws(() => port.transition('nope#1'), (err) => err.code === 'refused');
  port.close();
});

test('handlers are the ones given at createPort', async () => {
  const handlers = { 'catalog.add': () => 'v1' };
  const port = runtime.createPort(shop, { handlers });
  handlers['catalog.add'] = () => 'v2';
  const fired = await port.call('shop.do_action', { action: 'catalog.add', input: { sku: 'A1' } });
  const facts = await settled(port, fired.transitionId);
  assert.equal(facts.data, 'v1');
  port.close();
});

test('a handler that never settles: the call returns pending at once, the MCP fold gives up at its ceiling', async () => {
  const port = runtime.createPort(shop, {
    handlers: { 'catalog.add': () => new Promise(() => {}) },
    settleWithinMs: 30,
  });
  const fired = await port.call('shop.do_action', { action: 'catalog.add', input: { sku: 'A1' } });
  assert.equal(fired.effectStatus, 'pending');
  assert.deepEqual(fired.settleWith, { tool: 'shop.did_it_work', arg: 'transitionId' });
  const later = await port.call('shop.did_it_work', { transitionId: fired.transitionId });
  assert.equal(later.judgment, 'still-pending', JSON.stringify(later));
  const res = await port.mcp({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'shop.do_action', arguments: { action: 'catalog.add', input: { sku: 'B2' } } } });
  assert.equal(res.result.structuredContent.effectStatus, 'pending', JSON.stringify(res.result));
  assert.ok(res.result.structuredContent.settleWith, 'still pending: the pointer stays');
  port.close();
});
