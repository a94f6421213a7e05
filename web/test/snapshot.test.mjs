// Node tests of session snapshots through the loader: session.snapshot()
// as a plain object and createSession's restore option (the object or its
// JSON text) in a new runtime, whose next chat request is the original's
// byte for byte; a turn stopped on an approval; a snapshot taken inside a
// running turn (interrupted); no auth token in a snapshot; refusals
// (bad_snapshot, bad_options).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRuntime, scriptedFetch, textStream, toolCallStream } from '../testing/helpers.mjs';

const runtime = await loadRuntime();

/**
 * A scripted Studio AI proxy that records each chat request's body as the
 * bytes sent (decoded), in order; MCP and capabilities requests answer 404.
 */
function recordingProxy(...chat) {
  const bodies = [];
  const fetchImpl = async (url, init = {}) => {
    if (!String(url).endsWith('/v1/studio/ai/chat')) return new Response('not here', { status: 404 });
    bodies.push(new TextDecoder().decode(init.body));
    return scriptedFetch(chat[Math.min(bodies.length - 1, chat.length - 1)]).fetchImpl(url, init);
  };
  return { fetchImpl, bodies };
}

/** The options every session of a test shares (its functions are the page's own, not the snapshot's). */
const weather = {
  name: 'weather',
  description: 'The weather of a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
  execute: ({ city }) => ({ city, tempC: 21 }),
};

test('a snapshot after a tool turn restores in a new runtime, whose next request is the original\'s byte for byte', async () => {
  const first = recordingProxy(
    { body: toolCallStream({ id: 'w1', name: 'weather', args: { city: 'Oslo' } }) },
    { body: textStream('21 degrees in Oslo.') },
    { body: textStream('Sunny too.') },
  );
  const options = { system: 'Be brief.', tools: [weather], disableToolDiscovery: true };
  const a = runtime.createSession({ ...options, fetchImpl: first.fetchImpl });
  const turn = await a.chat('Weather in Oslo?');
  assert.equal(turn.status, 'completed', turn.errorMessage);

  const snap = a.snapshot();
  assert.equal(Object.getPrototypeOf(snap), Object.prototype, 'a plain object');
  assert.equal(snap.format, 'agentwasm.session');
  assert.equal(snap.version, 1);
  assert.deepEqual(snap.history.map((m) => m.role), ['user', 'assistant', 'tool', 'assistant']);
  assert.deepEqual(snap.history[1].toolCalls, [{ id: 'w1', name: 'weather', arguments: { city: 'Oslo' } }]);
  assert.deepEqual(snap.usage, { inputTokens: 3, outputTokens: 2 });
  assert.equal(snap.interrupted, undefined);
  assert.deepEqual(snap.history, a.messages(), 'the history as messages() gives it');

  // A reload: a new module instance, the snapshot through storage as text.
  const stored = JSON.stringify(snap);
  const runtime2 = await loadRuntime();
  for (const restore of [stored, JSON.parse(stored)]) {
    const second = recordingProxy({ body: textStream('Sunny too.') });
    const b = runtime2.createSession({ ...options, fetchImpl: second.fetchImpl, restore });
    assert.deepEqual(b.messages(), snap.history);
    const next = await b.chat('And tomorrow?');
    assert.equal(next.status, 'completed', next.errorMessage);
    if (first.bodies.length === 2) assert.equal((await a.chat('And tomorrow?')).status, 'completed');
    assert.equal(first.bodies.length, 3);
    assert.equal(second.bodies.length, 1);
    assert.equal(second.bodies[0], first.bodies[2], `restored from ${typeof restore}: the same request, byte for byte`);
    b.close();
  }
});

/** Go to checkout, then pay (high-effect, needing a person's approval). */
const shop = {
  id: 'shop',
  pages: [{ id: 'checkout' }, { id: 'done' }],
  actions: [{ id: 'checkout.pay', does: 'Pay for the order', on: 'checkout', goTo: 'done', confirm: true, writes: ['order.id'], input: 'none' }],
};

test('a turn stopped on an approval keeps its pendingApprovals through snapshot and restore', async () => {
  const port = runtime.createPort(shop, { requireHumanApproval: true, handlers: { 'checkout.pay': async () => ({ orderId: 'o-1' }) } });
  const proxy = recordingProxy(
    { body: toolCallStream({ id: 'c1', name: 'shop.do_action', args: { action: 'checkout.pay' } }) },
    { body: toolCallStream({ id: 'c2', name: 'shop.do_action', args: { action: 'checkout.pay', confirm: true } }) },
    { body: textStream('Paid.') },
  );
  const a = runtime.createSession({ fetchImpl: proxy.fetchImpl, kit: port, disableToolDiscovery: true });
  const first = await a.chat('Pay my order.');
  assert.equal(first.status, 'completed', first.errorMessage);
  assert.equal(first.pendingApprovals.length, 1);
  const [ask] = first.pendingApprovals;

  const snap = a.snapshot();
  assert.deepEqual(snap.pending, first.pendingApprovals, 'the snapshot holds the pendingApprovals as the turn gave them');
  a.close();

  // Without the snapshot a session over the port knows no such ask.
  const fresh = runtime.createSession({ fetchImpl: proxy.fetchImpl, kit: port, disableToolDiscovery: true });
  assert.equal((await fresh.resume({ approve: [ask.askId] })).errorCode, 'unknown_ask');
  fresh.close();

  // With it, the asks come back: in another runtime (over its own port) the
  // restored session's snapshot holds them again.
  const runtime2 = await loadRuntime();
  const port2 = runtime2.createPort(shop, { requireHumanApproval: true, handlers: { 'checkout.pay': async () => ({ orderId: 'o-2' }) } });
    const b = runtime2.createSession({ fetchImpl: proxy.fetchImpl, kit: port2, disableToolDiscovery: true, restore: JSON.stringify(snap) });
    assert.deepEqual(b.snapshot().pending, first.pendingApprovals);
  assert.deepEqual(b.messages(), snap.history);

  // And in this runtime, over the same port, resume takes the ask: the
  // person's approval goes through the port's door and the turn goes on.
  // (Whether the port performs the step for the new session, the ask's
  // caller having been the closed one, is the port's rule, not tested here.)
  const c = runtime.createSession({ fetchImpl: proxy.fetchImpl, kit: port, disableToolDiscovery: true, restore: snap });
  const resumed = await c.resume({ approve: [ask.askId] });
  assert.equal(resumed.status, 'completed', resumed.errorMessage);
  assert.equal(resumed.errorCode, undefined);
  assert.equal(resumed.text, 'Paid.');
  assert.match(JSON.parse(proxy.bodies[1]).messages.at(-1).content, new RegExp(`^Approved: the person approved "${ask.askId}"`));
  c.close();
  port.close();
});

test('a snapshot taken inside a running turn is interrupted and restores to the request that turn began with', async () => {
  let snap;
  let a;
  const slow = {
    ...weather,
    execute: async ({ city }) => {
      snap = a.snapshot(); // the page goes away while the tool runs
      return { city, tempC: 21 };
    },
  };
  const first = recordingProxy(
    { body: textStream('Hello.') },
    { body: toolCallStream({ id: 'w1', name: 'weather', args: { city: 'Oslo' } }) },
    { body: textStream('21 degrees in Oslo.') },
  );
  const options = { system: 'Be brief.', tools: [slow], disableToolDiscovery: true };
  a = runtime.createSession({ ...options, fetchImpl: first.fetchImpl });
  assert.equal((await a.chat('Hi.')).status, 'completed');
  assert.equal((await a.chat('Weather in Oslo?')).status, 'completed');
  assert.ok(snap, 'the tool ran');
  assert.deepEqual(snap.interrupted, { text: 'Weather in Oslo?' });
  assert.deepEqual(snap.history.map((m) => m.role), ['user', 'assistant'], 'the state at the turn\'s start');

  const second = recordingProxy({ body: textStream('21 degrees in Oslo.') });
  const b = runtime.createSession({ ...options, fetchImpl: second.fetchImpl, restore: snap });
  const again = await b.chat(snap.interrupted.text);
  assert.equal(again.status, 'completed', again.errorMessage);
  assert.equal(second.bodies[0], first.bodies[1], 'the interrupted turn\'s first request, byte for byte: no call without its answer');
  assert.equal(b.snapshot().interrupted, undefined);
});

test('the auth token never appears in a snapshot, even when the model echoes it', async () => {
  const token = 'tok-8f3a91c2e7d54b06';
  const proxy = recordingProxy(
    { body: toolCallStream({ id: 'e1', name: 'echo', args: { said: `my token is ${token}` } }) },
    { body: textStream(`Your token is ${token}.`) },
  );
  const a = runtime.createSession({
    fetchImpl: proxy.fetchImpl, auth: () => token, disableToolDiscovery: true,
    tools: [{ name: 'echo', execute: (args) => args }],
  });
  const turn = await a.chat(`Repeat ${token}`);
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.ok(proxy.bodies.length >= 1);
  const text = JSON.stringify(a.snapshot());
  assert.ok(!text.includes(token), text);
  assert.match(text, /\[redacted\]/);
});

test('a refused snapshot throws bad_snapshot and makes no session; a restore of the wrong type, bad_options', () => {
  const snap = { format: 'agentwasm.session', version: 1, history: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }] };
  assert.deepEqual(runtime.createSession({ disableToolDiscovery: true, restore: snap }).messages(), snap.history, 'a good one is taken');
  const refused = [
    ['corrupt: a tool message answering nothing', { ...snap, history: [{ role: 'tool', content: 'x', toolCallId: 'nope' }] }, /answers no open tool call/],
    ['corrupt: history of the wrong type', { ...snap, history: 'lost' }, /not a snapshot's JSON/],
    ['corrupt JSON text', '{"format":"agentwasm.session",', /restore is not a snapshot's JSON/],
    ['an unknown version', { ...snap, version: 99 }, /version is 99/],
    ['another format', { format: 'agentwasm.port', version: 1, graph: 'g', asks: [] }, /format is "agentwasm\.port"/],
    ['oversize', { ...snap, history: [{ role: 'user', content: 'x'.repeat((1 << 20) + 4096) }] }, /past the/],
  ];
  for (const [name, restore, reason] of refused) {
    assert.throws(() => runtime.createSession({ disableToolDiscovery: true, maxRequestBytes: 1024, restore }), (err) => {
      assert.ok(err instanceof Error, name);
      assert.equal(err.code, 'bad_snapshot', `${name}: ${err.message}`);
      assert.match(err.message, reason, name);
      return true;
    }, name);
  }
  for (const restore of [42, null, true, [snap]]) {
    assert.throws(() => runtime.createSession({ restore }), (err) => err.code === 'bad_options' && /restore must be a snapshot/.test(err.message), String(restore));
  }
});

test('snapshot() of a closed session throws closed', () => {
  const s = runtime.createSession({ disableToolDiscovery: true });
  s.close();
  assert.throws(() => s.snapshot(), (err) => err.code === 'closed');
});
