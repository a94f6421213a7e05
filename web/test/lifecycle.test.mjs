// A session's lifecycle and limits through the loader: close() cancels a
// running turn (its fetch and its tools' signals), reset() during a turn is
// refused as busy, a tool result too large for the next request fails as
// result_too_large, a refused request leaves the history as it was, resume
// after port.close() answers port_closed, and a tool's null reaches the
// model as data null.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRuntime, scriptedFetch, studioProxy, textStream, toolCallStream, frame } from '../testing/helpers.mjs';

const runtime = await loadRuntime();

/** Every tool message of messages answers a call of the assistant message before it. */
function assertWellFormed(messages, what) {
  let calls = null;
  for (const [i, m] of messages.entries()) {
    if (m.role === 'assistant') calls = new Set((m.toolCalls ?? []).map((c) => c.id));
    else if (m.role === 'tool') assert.ok(calls?.has(m.toolCallId), `${what}: message ${i} is a tool message without its call`);
    else calls = null;
  }
}

/** A tool that waits for release() or its signal; started resolves when it runs. */
function slowTool() {
  let release;
  let started;
  const tool = {
    name: 'slow',
    inputSchema: { type: 'object' },
    aborted: false,
    started: new Promise((resolve) => { started = resolve; }),
    release: () => release?.(),
    execute(args, { signal }) {
      started();
      return new Promise((resolve) => {
        release = () => resolve('read');
        signal.addEventListener('abort', () => { tool.aborted = true; resolve('aborted'); });
      });
    },
  };
  return tool;
}

test('close() aborts the fetch of a running turn and the turn settles cancelled', async () => {
  const { fetchImpl, requests } = scriptedFetch({ body: frame('message_start', {}) + frame('text_delta', { text: 'par' }), hang: true });
  let session;
  session = runtime.createSession({
    fetchImpl,
    disableToolDiscovery: true,
    onEvent: (e) => { if (e.event?.type === 'textDelta') session.close(); },
  });
  const turn = await session.chat('hi');
  assert.equal(turn.status, 'cancelled', turn.errorMessage);
  assert.equal(requests.length, 1);
  assert.equal(requests[0].init.signal.aborted, true, 'the fetch was aborted');
  await assert.rejects(session.chat('again'), { code: 'closed' });
});

test('close() aborts the signal of a running tool and the turn settles cancelled', async () => {
  const tool = slowTool();
  const proxy = studioProxy({ chat: [{ body: toolCallStream({ id: 'c1', name: 'slow' }) }, { body: textStream('never') }] });
  const session = runtime.createSession({ fetchImpl: proxy.fetchImpl, disableToolDiscovery: true, tools: [tool] });
  const pending = session.chat('read it');
  await tool.started;
  session.close();
  const turn = await pending;
  assert.equal(turn.status, 'cancelled', turn.errorMessage);
  assert.equal(tool.aborted, true, 'the tool\'s signal was aborted');
  assert.equal(proxy.chatRequests().length, 1, 'no request after the close');
});

test('close() right after chat() settles that turn cancelled', async () => {
  const { fetchImpl } = scriptedFetch({ body: textStream('ok') });
  const session = runtime.createSession({ fetchImpl, disableToolDiscovery: true });
  const pending = session.chat('hi');
  session.close();
  const turn = await pending;
  assert.equal(turn.status, 'cancelled', turn.errorMessage);
});

test('reset() during a turn throws busy, and no request carries a tool message without its call', async () => {
  const tool = slowTool();
  const proxy = studioProxy({ chat: [{ body: toolCallStream({ id: 'c1', name: 'slow' }) }, { body: textStream('done') }, { body: textStream('more') }] });
  const session = runtime.createSession({ fetchImpl: proxy.fetchImpl, disableToolDiscovery: true, tools: [tool] });
  const pending = session.chat('read it');
  await tool.started;
  const before = session.messages();
  assert.throws(() => session.reset(), { code: 'busy' });
  assert.deepEqual(session.messages(), before, 'a refused reset changes nothing');
  tool.release();
  const turn = await pending;
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.equal((await session.chat('and?')).status, 'completed');
  for (const [i, r] of proxy.chatRequests().entries()) assertWellFormed(r.body.messages, `request ${i}`);
  session.reset();
  assert.deepEqual(session.messages(), [], 'between turns reset clears');
  session.close();
});

test('a 12 MB page-tool result fails as result_too_large, and the next turn completes', async () => {
  const proxy = studioProxy({ chat: [{ body: toolCallStream({ id: 'c1', name: 'page' }) }, { body: textStream('read') }, { body: textStream('next') }] });
  const session = runtime.createSession({
    fetchImpl: proxy.fetchImpl,
    disableToolDiscovery: true,
    tools: [{ name: 'page', inputSchema: { type: 'object' }, execute: () => 'x'.repeat(12 << 20) }],
  });
  const turn = await session.chat('read the page');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  const [rec] = turn.toolCalls;
  assert.equal(rec.ok, false);
  assert.equal(rec.errorCode, 'result_too_large');
  assert.equal(JSON.parse(rec.content).code, 'result_too_large', 'the model reads the rejection');
  const next = await session.chat('and now?');
  assert.equal(next.status, 'completed', next.errorMessage);
  for (const [i, r] of proxy.chatRequests().entries()) {
    assert.ok(JSON.stringify(r.body).length <= 8 << 20, `request ${i} is under the proxy's 8 MiB bound`);
  }
  session.close();
});

test('a refused request (413) leaves the history as it was before the turn', async () => {
  const proxy = studioProxy({ chat: [{ body: textStream('one') }, { status: 413, body: 'request entity too large' }, { body: textStream('three') }] });
  const session = runtime.createSession({ fetchImpl: proxy.fetchImpl, disableToolDiscovery: true });
  assert.equal((await session.chat('a')).status, 'completed');
  const before = session.messages();
  const refused = await session.chat('b');
  assert.equal(refused.status, 'error');
  assert.match(refused.errorMessage, /413/);
  assert.deepEqual(session.messages(), before);
  assert.equal((await session.chat('c')).status, 'completed');
  const last = proxy.chatRequests().at(-1).body.messages;
  assert.deepEqual(last.map((m) => m.content), ['a', 'one', 'c'], 'nothing of the refused turn is sent again');
  session.close();
});

test('resume({approve}) after port.close() resolves port_closed and tells the model nothing', async () => {
  const paid = [];
  const port = runtime.createPort({
    id: 'shop',
    pages: [{ id: 'checkout' }, { id: 'done' }],
    actions: [{ id: 'checkout.pay', does: 'Pay for the order', on: 'checkout', goTo: 'done', confirm: true, writes: ['order.id'], input: 'none' }],
  }, { requireHumanApproval: true, handlers: { 'checkout.pay': () => { paid.push('agent'); return { orderId: 'o-1' }; } } });
  const proxy = studioProxy({
    chat: [
      { body: toolCallStream({ id: 'c1', name: 'shop.do_action', args: { action: 'checkout.pay' } }) },
      { body: toolCallStream({ id: 'c2', name: 'shop.do_action', args: { action: 'checkout.pay', confirm: true } }) },
      { body: textStream('Paid.') },
    ],
  });
  const session = runtime.createSession({ fetchImpl: proxy.fetchImpl, kit: port, disableToolDiscovery: true });
  const first = await session.chat('Pay my order.');
  assert.equal(first.pendingApprovals.length, 1);
  const { askId } = first.pendingApprovals[0];
  const before = session.messages();
  port.close();
  const turn = await session.resume({ approve: [askId] });
  assert.equal(turn.status, 'error');
  assert.equal(turn.errorCode, 'port_closed', turn.errorMessage);
  assert.match(turn.errorMessage, /nothing was performed/);
  assert.deepEqual(session.messages(), before, 'nothing was added to the history');
  assert.equal(proxy.chatRequests().length, 1, 'no model request');
  assert.deepEqual(paid, []);
  session.close();
});

test('a page tool returning null reaches the model as {status: ok, data: null}', async () => {
  const cases = [[null, '{"status":"ok","data":null}'], [undefined, '{"status":"ok"}'], [0, '{"status":"ok","data":0}']];
  for (const [value, content] of cases) {
    const proxy = studioProxy({ chat: [{ body: toolCallStream({ id: 'c1', name: 'look' }) }, { body: textStream('seen') }] });
    const session = runtime.createSession({
      fetchImpl: proxy.fetchImpl,
      disableToolDiscovery: true,
      tools: [{ name: 'look', inputSchema: { type: 'object' }, execute: () => value }],
    });
    const turn = await session.chat('look');
    assert.equal(turn.status, 'completed', turn.errorMessage);
    assert.equal(turn.toolCalls[0].content, content, String(value));
    const sent = proxy.chatRequests()[1].body.messages.find((m) => m.role === 'tool');
    assert.equal(sent.content, content, `the model read ${content}`);
    session.close();
  }
});

test('maxRequestBytes and maxToolResultBytes are the page\'s to set: past them nothing is sent, or the result is refused', async () => {
  // A request larger than maxRequestBytes is never sent.
  let proxy = studioProxy({ chat: [{ body: textStream('never') }] });
  let session = runtime.createSession({ fetchImpl: proxy.fetchImpl, disableToolDiscovery: true, maxRequestBytes: 2048 });
  const big = await session.chat('x'.repeat(4096));
  assert.equal(big.status, 'error');
  assert.equal(big.errorCode, 'request_too_large');
  assert.equal(proxy.chatRequests().length, 0, 'nothing was sent');
  assert.deepEqual(session.messages(), [], 'the history is as it was before the turn');
  session.close();

  // A result larger than maxToolResultBytes fails its call; the model reads the small rejection.
  proxy = studioProxy({ chat: [{ body: toolCallStream({ id: 'c1', name: 'page' }) }, { body: textStream('read') }] });
  session = runtime.createSession({
    fetchImpl: proxy.fetchImpl,
    disableToolDiscovery: true,
    maxToolResultBytes: 1024,
    tools: [{ name: 'page', inputSchema: { type: 'object' }, execute: () => 'y'.repeat(4096) }],
  });
  const turn = await session.chat('read');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.equal(turn.toolCalls[0].errorCode, 'result_too_large');
  assert.ok(!JSON.stringify(proxy.chatRequests()[1].body).includes('y'.repeat(1025)), 'the result never reached the model');
  session.close();

  for (const options of [{ maxRequestBytes: -1 }, { maxToolResultBytes: -1 }]) {
    assert.throws(() => runtime.createSession({ fetchImpl: proxy.fetchImpl, ...options }), { code: 'bad_options' }, JSON.stringify(options));
  }
});
