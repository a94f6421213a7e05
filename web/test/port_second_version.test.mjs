// Node tests of the port's second version from JavaScript — repeating areas
// (setInstances, the instance handed to the handler), busy labels
// (setBusy), the offerLedgerSize option — and of Port.registerWebMCP against
// WebMCP APIs of the page's own (a handle per tool, unregisterTool, a
// signal, a synchronous refusal): the browser test
// (web/browser/webmcp.browser.test.mjs) runs it against
// @mcp-b/webmcp-polyfill.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRuntime } from '../testing/helpers.mjs';

const runtime = await loadRuntime();

/** Waits for cond() to hold, polling, for at most boundMs. */
async function until(cond, what, boundMs = 5000) {
  const end = Date.now() + boundMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`waited ${boundMs} ms for ${what}`);
    await new Promise((r) => setImmediate(r));
  }
}

/** Orders: a repeating list of cards, each with a cancel action. */
const orders = {
  id: 'orders',
  pages: [{ id: 'orders', areas: [{ id: 'list', repeats: true }] }],
  actions: [{ id: 'orders.list.cancel', does: 'Cancel the order', on: 'orders', input: 'none' }],
};

/** A port over orders whose handler records the context it got. */
function ordersPort(options = {}) {
  const contexts = [];
  const port = runtime.createPort(orders, {
    page: 'orders',
    handlers: {
      'orders.list.cancel': (input, context) => {
        contexts.push(context);
        return { cancelled: context.instance ?? null };
      },
    },
    ...options,
  });
  return { port, contexts };
}

test('setInstances names the cards; a do_action for one hands its instance to the handler', async () => {
  const { port, contexts } = ordersPort();
  port.setInstances('orders.list', ['o-1', 'o-2']);
  const fired = await port.call('orders.do_action', { action: 'orders.list.cancel', instance: 'o-1' }, { settleWithinMs: 2000 });
  assert.equal(fired.ok, true, JSON.stringify(fired));
  assert.equal(fired.effectStatus, 'performed', JSON.stringify(fired));
  assert.deepEqual(fired.data, { cancelled: 'o-1' });
  assert.equal(contexts.length, 1);
  assert.equal(contexts[0].instance, 'o-1');
  assert.equal(contexts[0].action, 'orders.list.cancel');
  assert.equal(contexts[0].source, 'agent');
  assert.equal(port.transition(fired.transitionId).instance, 'o-1');
  port.close();
});

test('report names the card the person acted on', () => {
  const { port, contexts } = ordersPort();
  const id = port.report('orders.list.cancel', { instance: 'o-2', data: { ok: true } });
  const record = port.transition(id);
  assert.equal(record.instance, 'o-2');
  assert.equal(record.source, 'user');
  assert.equal(record.effectStatus, 'performed');
  assert.equal(contexts.length, 0, 'a report runs no handler');
  assert.throws(() => port.report('orders.list.cancel', { instance: 2 }), { code: 'bad_argument', name: 'TypeError' });
  port.close();
});

test('setBusy labels an action for whats_here; null clears the label', async () => {
  const { port } = ordersPort();
  port.setInstances('orders.list', ['o-1', 'o-2']);
  const row = async () => (await port.call('orders.whats_here')).actions?.find((a) => a.action === 'orders.list.cancel');
  port.setBusy('orders.list.cancel', 'Saving…');
  const busy = await row();
  assert.ok(busy, 'whats_here offers the action');
  assert.equal(busy.busy, 'Saving…', JSON.stringify(busy));
  port.setBusy('orders.list.cancel', null);
  assert.equal((await row()).busy, undefined);
  port.setBusy('orders.list.cancel', 'Saving…');
  port.setBusy('orders.list.cancel', '');
  assert.equal((await row()).busy, undefined, "'' clears it too");
  port.close();
});

test('offerLedgerSize is taken; a bad one is refused before the module sees it', () => {
  const { port } = ordersPort({ offerLedgerSize: 10 });
  port.close();
  for (const bad of [0, -1, 1.5, '500', Number.MAX_SAFE_INTEGER + 1]) {
    assert.throws(() => runtime.createPort(orders, { offerLedgerSize: bad }), { code: 'bad_options', name: 'TypeError' }, String(bad));
  }
});

test('setInstances and setBusy refuse bad arguments before the module sees them', () => {
  const port = runtime.createPort({ id: 'shop', pages: [{ id: 'cart' }], actions: [{ id: 'cart.pay', does: 'Pay', on: 'cart' }] });
  for (const [area, keys] of [[undefined, []], ['', []], [3, []], ['orders.list', 'o-1'], ['orders.list', [1]], ['orders.list', ['o-1', null]]]) {
    assert.throws(() => port.setInstances(area, keys), { code: 'bad_argument', name: 'TypeError' }, JSON.stringify([area, keys]));
  }
  for (const [id, label] of [[undefined, 'x'], ['', 'x'], [7, 'x'], ['cart.pay', 3], ['cart.pay', true], ['cart.pay', {}]]) {
    assert.throws(() => port.setBusy(id, label), { code: 'bad_argument', name: 'TypeError' }, JSON.stringify([id, label]));
  }
  port.close();
  assert.throws(() => port.setInstances('orders.list', []), { code: 'closed' });
  assert.throws(() => port.setBusy('cart.pay', 'x'), { code: 'closed' });
});

// registerWebMCP, against WebMCP APIs given as options.modelContext.

/** Go to checkout (ordinary), then pay (high-effect, a person approves). */
const shop = {
  id: 'shop',
  pages: [{ id: 'cart' }, { id: 'done' }],
  actions: [
    {
      id: 'cart.add', does: 'Add an item to the cart', on: 'cart', writes: ['cart.items'],
      input: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
    },
    { id: 'cart.pay', does: 'Pay for the cart', on: 'cart', goTo: 'done', confirm: true, input: 'none' },
  ],
};

function shopPort() {
  const fired = [];
  const port = runtime.createPort(shop, {
    requireHumanApproval: true,
    handlers: {
      'cart.add': async (input) => { fired.push(['cart.add', input]); return { added: input.sku }; },
      'cart.pay': () => { fired.push(['cart.pay']); return { orderId: 'o-1' }; },
    },
  });
  return { port, fired };
}

/**
 * A WebMCP API of the page's own that records what it is told: `style`
 * `handle` answers each registerTool with a handle, `unregisterTool` has
 * that method and answers nothing, `signal` honours only the signal and
 * answers a Promise. `refuse` names a tool registerTool throws for.
 */
function fakeContext(style, { refuse } = {}) {
  const tools = new Map();
  const log = [];
  const context = {
    tools,
    log,
    registerTool(tool, options) {
      if (tool.name === refuse || tools.has(tool.name)) {
        throw new DOMException(`Tool already registered: ${tool.name}`, 'InvalidStateError');
      }
      tools.set(tool.name, tool);
      log.push(['register', tool.name]);
      options?.signal?.addEventListener('abort', () => {
        if (style === 'signal' && tools.get(tool.name) === tool) tools.delete(tool.name);
        log.push(['abort', tool.name]);
      });
      if (style === 'handle') {
        return { unregister: () => { log.push(['handle.unregister', tool.name]); tools.delete(tool.name); } };
      }
      return style === 'signal' ? Promise.resolve() : undefined;
    },
  };
  if (style === 'unregisterTool') {
    context.unregisterTool = (name) => {
      log.push(['unregisterTool', name]);
      if (!tools.delete(name)) throw new DOMException(`Tool not found: ${name}`, 'NotFoundError');
    };
  }
  return context;
}

test('registerWebMCP registers the port\'s tools as they are, with an execute each', async () => {
  const { port } = shopPort();
  const context = fakeContext('signal');
  const registration = await port.registerWebMCP({ modelContext: context });
  const names = port.tools().map((t) => t.name);
  assert.equal(registration.registered, true);
  assert.equal(registration.reason, undefined);
  assert.deepEqual(registration.tools, names);
  assert.deepEqual([...context.tools.keys()], names);
  for (const tool of port.tools()) {
    const given = context.tools.get(tool.name);
    assert.deepEqual(Object.keys(given).sort(), ['annotations', 'description', 'execute', 'inputSchema', 'name']);
    assert.deepEqual({ ...given, execute: undefined }, { ...tool, execute: undefined });
    assert.equal(typeof given.execute, 'function');
  }
  port.close();
  assert.equal(context.tools.size, 0, 'close() aborted the signal');
});

test('execute answers an MCP CallToolResult: the settled result as text and structuredContent', async () => {
  const { port, fired } = shopPort();
  const context = fakeContext('signal');
  await port.registerWebMCP({ modelContext: context });
  const doAction = context.tools.get('shop.do_action').execute;

  const added = await doAction({ action: 'cart.add', input: { sku: 'A1' } });
  assert.deepEqual(Object.keys(added), ['content', 'structuredContent']);
  assert.equal(added.structuredContent.ok, true, JSON.stringify(added));
  assert.equal(added.structuredContent.effectStatus, 'performed', 'the default fold (250 ms) waited for the handler');
  assert.deepEqual(added.content, [{ type: 'text', text: JSON.stringify(added.structuredContent) }]);

  // No approval through this path: confirm:true from the agent is refused until the person approves.
  const asked = (await doAction({ action: 'cart.pay' })).structuredContent;
  assert.equal(asked.judgment, 'needs-confirm');
  const again = await doAction({ action: 'cart.pay', confirm: true });
  assert.equal(again.isError, undefined);
  assert.equal(again.structuredContent.judgment, 'needs-confirm');
  assert.equal(again.structuredContent.performed, false);
  assert.deepEqual(fired, [['cart.add', { sku: 'A1' }]]);
  port.approveAsk(asked.askId);
  assert.equal((await doAction({ action: 'cart.pay', confirm: true })).structuredContent.did, 'cart.pay');

  // Arguments missing altogether are an empty object; a refusal is a result, not an error.
  const here = await context.tools.get('shop.whats_here').execute(undefined);
  assert.equal(here.structuredContent.youAreOn, 'done');
  const unknown = await doAction({ action: 'cart.nothing' });
  assert.equal(unknown.isError, undefined);
  assert.equal(unknown.structuredContent.ok, false);

  // A closed port: an isError result with the message, never a throw.
  port.close();
  const closed = await doAction({ action: 'cart.add', input: { sku: 'B2' } });
  assert.deepEqual(closed, { content: [{ type: 'text', text: 'agentwasm: this port is closed; create a new one' }], isError: true });
});

test('settleWithinMs 0 answers at once, pending', async () => {
  let release;
  const port = runtime.createPort(shop, {
    handlers: { 'cart.add': () => new Promise((r) => { release = r; }) },
  });
  const context = fakeContext('signal');
  await port.registerWebMCP({ modelContext: context, settleWithinMs: 0 });
  const answer = await context.tools.get('shop.do_action').execute({ action: 'cart.add', input: { sku: 'A1' } });
  assert.equal(answer.structuredContent.effectStatus, 'pending', JSON.stringify(answer));
  await until(() => release, 'the handler to be called');
  release({ added: 'A1' });
  await until(() => port.transition(answer.structuredContent.transitionId).settled, 'the fire to settle');
  port.close();
});

test('unregister() undoes each tool the way the API registered it, once', async () => {
  for (const style of ['handle', 'unregisterTool', 'signal']) {
    const { port } = shopPort();
    const context = fakeContext(style);
    const registration = await port.registerWebMCP({ modelContext: context });
    const names = registration.tools;
    assert.equal(context.tools.size, names.length, style);
    registration.unregister();
    assert.equal(context.tools.size, 0, style);
    const undone = context.log.filter(([what]) => what !== 'register');
    const expected = names.map((name) => ['abort', name]);
    if (style === 'handle') expected.push(...names.map((name) => ['handle.unregister', name]));
    if (style === 'unregisterTool') expected.push(...names.map((name) => ['unregisterTool', name]));
    assert.deepEqual(undone, expected, style);
    registration.unregister();
    port.close();
    assert.deepEqual(context.log.filter(([what]) => what !== 'register'), expected, `${style}: nothing more is undone`);
  }
});

test('close() undoes every live registration', async () => {
  const { port } = shopPort();
  const handles = fakeContext('handle');
  const plain = fakeContext('unregisterTool');
  await port.registerWebMCP({ modelContext: handles });
  await port.registerWebMCP({ modelContext: plain });
  port.close();
  assert.equal(handles.tools.size, 0);
  assert.equal(plain.tools.size, 0);
  await assert.rejects(port.registerWebMCP({ modelContext: fakeContext('signal') }), { code: 'closed' });
});

test('a tool the API refuses rolls back the others and rejects with webmcp_failed', async () => {
  for (const style of ['handle', 'unregisterTool', 'signal']) {
    const { port } = shopPort();
    const context = fakeContext(style, { refuse: 'shop.do_action' });
    const err = await port.registerWebMCP({ modelContext: context }).then(() => null, (e) => e);
    assert.equal(err?.code, 'webmcp_failed', style);
    assert.match(err.message, /WebMCP refused the tool shop\.do_action: InvalidStateError: Tool already registered: shop\.do_action/);
    assert.equal(err.cause?.name, 'InvalidStateError');
    assert.equal(context.tools.size, 0, `${style}: the tools registered before and after it were undone`);
    assert.deepEqual(context.log.filter(([what]) => what === 'register').map(([, name]) => name),
      port.tools().map((t) => t.name).filter((name) => name !== 'shop.do_action'));
    port.close();
  }

  // A second registration of the same port collides with the first, and leaves the first alone.
  const { port } = shopPort();
  const context = fakeContext('unregisterTool');
  await port.registerWebMCP({ modelContext: context });
  await assert.rejects(port.registerWebMCP({ modelContext: context }), { code: 'webmcp_failed' });
  assert.equal(context.tools.size, port.tools().length, 'the first registration is intact');
  port.close();
  assert.equal(context.tools.size, 0);
});

test('a port closed while its tools are being registered undoes them and rejects with closed', async () => {
  const { port } = shopPort();
  const pending = [];
  const handles = [];
  const context = {
    registerTool(tool) {
      return new Promise((resolve) => {
        pending.push(() => {
          const handle = { unregistered: 0, unregister() { this.unregistered++; } };
          handles.push(handle);
          resolve(handle);
        });
      });
    },
  };
  const registering = port.registerWebMCP({ modelContext: context });
  await until(() => pending.length === port.tools().length, 'every registerTool call');
  port.close();
  for (const resolve of pending) resolve();
  await assert.rejects(registering, { code: 'closed' });
  assert.deepEqual(handles.map((h) => h.unregistered), handles.map(() => 1));
});

test('without a WebMCP API registerWebMCP resolves registered: false and a reason', async () => {
  const { port } = shopPort();
  assert.equal(globalThis.document, undefined, 'Node has no document');
  const none = await port.registerWebMCP();
  assert.equal(none.registered, false);
  assert.deepEqual(none.tools, []);
  assert.match(none.reason, /^this browser offers no WebMCP API \(neither document\.modelContext nor navigator\.modelContext/);
  none.unregister();
  for (const modelContext of [null, {}, { registerTool: 'no' }]) {
    const r = await port.registerWebMCP({ modelContext });
    assert.equal(r.registered, false, JSON.stringify(modelContext));
    assert.match(r.reason, /WebMCP API/);
  }
  // The globals, when a host has them.
  const previous = Object.getOwnPropertyDescriptor(globalThis, 'document');
  const context = fakeContext('signal');
  Object.defineProperty(globalThis, 'document', { value: { modelContext: context }, configurable: true });
  try {
    const found = await port.registerWebMCP();
    assert.equal(found.registered, true);
    assert.equal(context.tools.size, port.tools().length);
    found.unregister();
  } finally {
    if (previous) Object.defineProperty(globalThis, 'document', previous);
    else delete globalThis.document;
  }
  port.close();
});

test('registerWebMCP refuses bad options', async () => {
  const { port } = shopPort();
  const context = fakeContext('signal');
  for (const options of [{ settleWithinMs: '250' }, { settleWithinMs: -1 }, { settleWithinMs: 1.5 }, { modelContxt: context }]) {
    await assert.rejects(port.registerWebMCP({ modelContext: context, ...options }), { code: 'bad_argument', name: 'TypeError' }, JSON.stringify(options));
  }
  await assert.rejects(port.registerWebMCP(null), { code: 'bad_argument' });
  assert.equal(context.tools.size, 0);
  port.close();
});
