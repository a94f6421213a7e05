// Node tests of the agent API of the loader: tools with their own execute
// and what any return value becomes, session.stream() as an async iterable
// of the turn's events, onStepFinish and turn.usage, approvals resumed with
// session.resume(), the port's change versions, and mcpUrl.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRuntime, studioProxy, textStream, toolCallStream, frame } from '../testing/helpers.mjs';

const runtime = await loadRuntime();

/** The tool messages of a chat request, by tool call id: their parsed content. */
function toolMessages(request) {
  return Object.fromEntries(request.body.messages.filter((m) => m.role === 'tool').map((m) => [m.toolCallId, JSON.parse(m.content)]));
}

// ---- tools with their own execute ----

test('a tool\'s own execute runs with (args, {signal, toolCallId}) and wins over the shared execute', async () => {
  const proxy = studioProxy({
    chat: [{ body: toolCallStream({ id: 'c1', name: 'getOrder', args: { id: 'o-7' } }, { id: 'c2', name: 'shared', args: { n: 1 } }) }, { body: textStream('Done.') }],
  });
  const own = [];
  const shared = [];
  const getOrder = {
    name: 'getOrder',
    description: 'Read an order',
    inputSchema: { type: 'object', properties: { id: { type: 'string' } } },
    execute(args, context) {
      own.push({ args, keys: Object.keys(context).sort(), signal: context.signal instanceof AbortSignal, toolCallId: context.toolCallId, self: this === getOrder });
      return { id: args.id, total: 12.5, lines: [{ sku: 'A1', qty: 2 }] };
    },
  };
  const session = runtime.createSession({
    fetchImpl: proxy.fetchImpl,
    tools: [getOrder, { name: 'shared' }],
    execute: (call) => { shared.push(call.name); return { status: 'ok', data: 'from the shared executor' }; },
  });
  const turn = await session.chat('show my order');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.deepEqual(own, [{ args: { id: 'o-7' }, keys: ['signal', 'toolCallId'], signal: true, toolCallId: 'c1', self: true }]);
  assert.deepEqual(shared, ['shared'], 'the shared execute runs the tools without their own');

  const [first, second] = proxy.chatRequests();
  // The function stays in the page: the module and the model see the definition only.
  assert.deepEqual(first.body.tools, [{ name: 'getOrder', description: 'Read an order', inputSchema: getOrder.inputSchema }, { name: 'shared' }]);
  assert.deepEqual(session.tools().map((t) => Object.keys(t).sort()), [['description', 'inputSchema', 'name'], ['name']]);
  // A plain object reaches the model as {status: 'ok', data}.
  assert.deepEqual(toolMessages(second), {
    c1: { status: 'ok', data: { id: 'o-7', total: 12.5, lines: [{ sku: 'A1', qty: 2 }] } },
    c2: { status: 'ok', data: 'from the shared executor' },
  });
  assert.deepEqual(turn.toolCalls.map((r) => [r.toolName, r.ok]), [['getOrder', true], ['shared', true]]);
});

test('any return value is accepted: JSON values become {status: "ok", data}, results pass as they are', async () => {
  const values = {
    number: () => 42,
    string: async () => 'text',
    zero: () => 0,
    falsy: () => false,
    nothing: () => undefined,
    nul: () => null,
    array: () => [1, { a: 'b' }],
    date: () => new Date(Date.UTC(2030, 0, 2)),
    withToJSON: () => ({ toJSON: () => ({ flattened: true }) }),
    denied: () => ({ status: 'denied', deniedReason: 'the person said no' }),
    dryRun: async () => ({ status: 'dry-run', data: { would: 'publish' }, extra: 'dropped' }),
    okNoData: () => ({ status: 'ok' }),
    statusNotString: () => ({ status: 3, note: 'a plain object' }),
  };
  const names = Object.keys(values);
  const proxy = studioProxy({ chat: [{ body: toolCallStream(...names.map((name) => ({ id: name, name }))) }, { body: textStream('ok') }] });
  const session = runtime.createSession({ fetchImpl: proxy.fetchImpl, tools: names.map((name) => ({ name, execute: values[name] })) });
  const turn = await session.chat('go');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.deepEqual(toolMessages(proxy.chatRequests()[1]), {
    number: { status: 'ok', data: 42 },
    string: { status: 'ok', data: 'text' },
    zero: { status: 'ok', data: 0 },
    falsy: { status: 'ok', data: false },
    nothing: { status: 'ok' },
    nul: { status: 'ok', data: null }, // null is a value: the model reads data null, as the types say
    array: { status: 'ok', data: [1, { a: 'b' }] },
    date: { status: 'ok', data: '2030-01-02T00:00:00.000Z' },
    withToJSON: { status: 'ok', data: { flattened: true } },
    denied: { status: 'denied', deniedReason: 'the person said no' },
    dryRun: { status: 'dry-run', data: { would: 'publish' } },
    okNoData: { status: 'ok' },
    statusNotString: { status: 'ok', data: { status: 3, note: 'a plain object' } },
  });
  const byName = Object.fromEntries(turn.toolCalls.map((r) => [r.toolName, r]));
  assert.deepEqual([byName.denied.ok, byName.denied.errorCode, byName.denied.errorMessage], [false, 'denied', 'the person said no']);
  assert.equal(byName.dryRun.ok, true);
  assert.equal(byName.nothing.ok, true);
});

test('a throw, a rejection or a value with no JSON form is an error result naming the tool, never an empty status', async () => {
  const cycle = { name: 'loop' };
  cycle.self = cycle;
  const values = {
    throws: () => { throw new Error('map not ready'); },
    rejects: () => Promise.reject(new RangeError('zoom out of range')),
    rejectsPlain: () => Promise.reject('just a string'),
    fn: () => () => 1,
    sym: () => Symbol('s'),
    big: () => 10n,
    cyclic: () => cycle,
    nestedBig: () => ({ total: 1n }),
    dataFn: () => ({ status: 'ok', data: () => 1 }),
    toJSONNothing: () => ({ toJSON: () => undefined }),
  };
  const names = Object.keys(values);
  const proxy = studioProxy({ chat: [{ body: toolCallStream(...names.map((name) => ({ id: name, name }))) }, { body: textStream('ok') }] });
  const session = runtime.createSession({ fetchImpl: proxy.fetchImpl, tools: names.map((name) => ({ name, execute: values[name] })) });
  const turn = await session.chat('go');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  const byName = Object.fromEntries(turn.toolCalls.map((r) => [r.toolName, r]));
  const messages = toolMessages(proxy.chatRequests()[1]);
  const expected = {
    throws: /map not ready/,
    rejects: /RangeError: zoom out of range/,
    rejectsPlain: /just a string/,
    fn: /the tool fn gave a function, which has no JSON form/,
    sym: /the tool sym gave a symbol, which has no JSON form/,
    big: /the tool big gave a bigint, which has no JSON form/,
    cyclic: /the result of the tool cyclic cannot be sent as JSON: .*circular/i,
    nestedBig: /the result of the tool nestedBig cannot be sent as JSON: .*BigInt/,
    dataFn: /the tool dataFn gave a function as its data/,
    toJSONNothing: /the result of the tool toJSONNothing has no JSON form/,
  };
  for (const [name, message] of Object.entries(expected)) {
    const record = byName[name];
    assert.equal(record.ok, false, name);
    assert.equal(record.errorCode, 'execution_failed', name);
    assert.match(record.errorMessage, new RegExp(`^${name} failed: `), name);
    assert.match(record.errorMessage, message, name);
    assert.equal(messages[name].status, 'error', name);
    assert.match(messages[name].message, message, `the model reads why ${name} failed`);
  }
});

test('a kit tool\'s own execute wins over kit.execute; with neither, the call fails saying so', async () => {
  const proxy = studioProxy({
    chat: [{ body: toolCallStream({ id: '1', name: 'zoom', args: { level: 3 } }, { id: '2', name: 'pan' }, { id: '3', name: 'lonely' }) }, { body: textStream('ok') }],
  });
  const ran = [];
  const kit = {
    tools: [{ name: 'zoom', execute: (args) => { ran.push(['zoom', args.level]); return { level: args.level }; } }, { name: 'pan' }],
    execute(call) { ran.push(['kit', call.name, this === kit]); return { status: 'ok' }; },
  };
  const session = runtime.createSession({ fetchImpl: proxy.fetchImpl, kit });
  let turn = await session.chat('zoom and pan');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.deepEqual(ran, [['zoom', 3], ['kit', 'pan', true]]);
  const messages = toolMessages(proxy.chatRequests()[1]);
  assert.deepEqual([messages[1], messages[2]], [{ status: 'ok', data: { level: 3 } }, { status: 'ok' }]);
  assert.equal(turn.toolCalls[2].errorCode, 'unknown_tool', 'lonely is not a tool of this session');

  // Only some tools have an executor: the others fail with a clear message.
  const bare = studioProxy({ chat: [{ body: toolCallStream({ id: '1', name: 'own' }, { id: '2', name: 'none' }) }, { body: textStream('ok') }] });
  turn = await runtime.createSession({ fetchImpl: bare.fetchImpl, tools: [{ name: 'own', execute: () => 1 }, { name: 'none' }] }).chat('go');
  assert.deepEqual(turn.toolCalls.map((r) => r.ok), [true, false]);
  assert.match(turn.toolCalls[1].errorMessage, /the runtime tool none has no executor/);
});

test('the first tool of a name keeps its own execute, as the module keeps its definition', async () => {
  const proxy = studioProxy({ chat: [{ body: toolCallStream({ id: '1', name: 'twice' }) }, { body: textStream('ok') }] });
  const turn = await runtime.createSession({
    fetchImpl: proxy.fetchImpl,
    kit: { tools: [{ name: 'twice', execute: () => 'kit' }] },
    tools: [{ name: 'twice', description: 'shadowed', execute: () => 'tools' }],
  }).chat('go');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.deepEqual(toolMessages(proxy.chatRequests()[1]), { 1: { status: 'ok', data: 'kit' } });
});

test('a tool\'s own execute sees the turn\'s abort', async () => {
  const proxy = studioProxy({ chat: [{ body: toolCallStream({ id: '1', name: 'slow' }) }] });
  const controller = new AbortController();
  let sawAbort = false;
  const session = runtime.createSession({
    fetchImpl: proxy.fetchImpl,
    tools: [{
      name: 'slow',
      execute: (args, { signal }) => new Promise((resolve, reject) => {
        signal.addEventListener('abort', () => { sawAbort = true; reject(signal.reason); });
        setTimeout(() => controller.abort(), 10);
      }),
    }],
  });
  const turn = await session.chat('go', { signal: controller.signal });
  assert.equal(turn.status, 'cancelled');
  assert.equal(turn.toolCalls[0].errorCode, 'cancelled');
  assert.equal(sawAbort, true);
});

test('a tool\'s execute must be a function', () => {
  assert.throws(() => runtime.createSession({ tools: [{ name: 'x', execute: 'run' }] }), (err) => err.code === 'bad_options' && /tools\[0\]\.execute must be a function/.test(err.message));
  assert.throws(() => runtime.createSession({ kit: { tools: [{ name: 'x', execute: 1 }] } }), (err) => err.code === 'bad_options' && /kit\.tools\[0\]\.execute/.test(err.message));
});

test('a baseUrl carrying a token is refused without repeating it', () => {
  for (const baseUrl of ['https://user:SECRET1@studio.example/api', '/api?token=SECRET1']) {
    let err;
    try { runtime.createSession({ baseUrl }).close(); } catch (e) { err = e; }
    assert.ok(err instanceof Error, `${baseUrl} is refused`);
    assert.ok(err.code, 'the refusal has a code');
    assert.match(err.message, /BaseURL has a query, a fragment or credentials.*auth option/);
    assert.doesNotMatch(err.message, /SECRET1/);
  }
});

// ---- session.stream() ----

/** A proxy answering a tool call, then text; the tool is run by its own execute. */
function toolTurn() {
  const proxy = studioProxy({
    chat: [{ body: toolCallStream({ id: 'c1', name: 'setFilter', args: { field: 'age' } }), chunk: 7 }, { body: textStream('Fil', 'tered.'), chunk: 5 }],
  });
  const seen = [];
  const session = runtime.createSession({
    fetchImpl: proxy.fetchImpl,
    disableToolDiscovery: true,
    tools: [{ name: 'setFilter', execute: (args) => ({ applied: args.field }) }],
    onEvent: (e) => seen.push(e),
  });
  return { proxy, session, seen };
}

test('for await over session.stream() yields the events onEvent receives, in its order, and ends with the turn', async () => {
  const { session, seen } = toolTurn();
  const stream = session.stream('filter by age');
  const events = [];
  for await (const e of stream) events.push(e);
  const turn = await stream.turn;
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.equal(turn.text, 'Filtered.');
  assert.ok(events.length >= 8, `the turn's events: ${events.length}`);
  assert.deepEqual(events, seen, 'the same events, in the same order');
  assert.ok(events.every((e, i) => e === seen[i]), 'the very objects onEvent received');
  const types = events.map((e) => (e.type === 'chat' ? e.event.type : e.type));
  // (The first turn publishes the session's discovery report, discovery off or not.)
  assert.deepEqual(types.filter((t) => t !== 'stepFinish' && t !== 'toolDiscovery'),
    ['messageStart', 'toolCallStart', 'toolCallStop', 'messageStop', 'toolResult', 'messageStart', 'textDelta', 'textDelta', 'messageStop']);
  assert.deepEqual(events.filter((e) => e.type === 'toolResult').map((e) => e.result), turn.toolCalls);

  // The iterator's final value is the turn, too.
  const it = session.stream('again')[Symbol.asyncIterator]();
  let step;
  while (!(step = await it.next()).done);
  assert.equal(step.value.status, 'completed');
  assert.equal(step.value.text, 'Filtered.');
  assert.deepEqual(await it.next(), { done: true, value: step.value }, 'the end stays the end');
});

test('events that arrive before the consumer pulls are queued, none lost', async () => {
  const { session, seen } = toolTurn();
  const stream = session.stream('filter by age');
  const turn = await stream.turn; // the whole turn ran before the first pull
  assert.equal(turn.status, 'completed', turn.errorMessage);
  const events = [];
  for await (const e of stream) events.push(e);
  assert.deepEqual(events, seen);
  // Two pulls at once get two events, in order.
  const second = toolTurn().session.stream('filter by age');
  const [a, b, c] = await Promise.all([second.next(), second.next(), second.next()]);
  assert.deepEqual([a.value.type, b.value.type, c.value.type], ['toolDiscovery', 'chat', 'chat']);
  assert.deepEqual([b.value.event.type, c.value.event.type], ['messageStart', 'toolCallStart']);
  for await (const e of second) void e;
  assert.equal((await second.turn).status, 'completed');
});

test('breaking out of for await aborts the turn; the session is free again at once', async () => {
  const proxy = studioProxy({ chat: [{ body: frame('message_start', {}) + frame('text_delta', { text: 'par' }), hang: true }, { body: textStream('next') }] });
  const session = runtime.createSession({ fetchImpl: proxy.fetchImpl, disableToolDiscovery: true });
  const stream = session.stream('tell me a story');
  for await (const e of stream) {
    if (e.type === 'chat' && e.event.type === 'textDelta') break;
  }
  const turn = await stream.turn;
  assert.equal(turn.status, 'cancelled');
  assert.equal(turn.text, 'par');
  assert.deepEqual(await stream.next(), { done: true, value: turn }, 'nothing after the loop left');
  assert.equal(proxy.requests.find((r) => r.url.endsWith('/chat')) !== undefined, true);
  const next = await session.chat('go on');
  assert.equal(next.status, 'completed', 'the loop left only after the turn ended: no busy');
  assert.equal(next.text, 'next');
});

test('the caller\'s signal aborts a streamed turn; onEvent keeps working alongside', async () => {
  const proxy = studioProxy({ chat: [{ body: frame('message_start', {}) + frame('text_delta', { text: 'par' }), hang: true }] });
  const controller = new AbortController();
  const heard = [];
  const session = runtime.createSession({
    fetchImpl: proxy.fetchImpl,
    disableToolDiscovery: true,
    onEvent: (e) => { heard.push(e); if (e.event?.type === 'textDelta') controller.abort(); },
  });
  const events = [];
  const stream = session.stream('hi', { signal: controller.signal });
  for await (const e of stream) events.push(e);
  assert.equal((await stream.turn).status, 'cancelled');
  assert.deepEqual(events, heard);
  const done = session.stream('hi', { signal: AbortSignal.abort() });
  assert.equal((await done.turn).status, 'cancelled');
  assert.equal((await done.turn).rounds, 0);
});

test('stream() misuse rejects .turn and the first next() with codes, as chat() does', async () => {
  const session = runtime.createSession({ disableToolDiscovery: true, transport: () => [] });
  for (const [stream, code] of [
    [session.stream(42), 'bad_argument'],
    [session.stream('hi', { signal: 'soon' }), 'bad_argument'],
  ]) {
    await assert.rejects(stream.turn, { code });
    await assert.rejects(stream.next(), { code });
    assert.deepEqual(await stream.next(), { done: true, value: undefined });
  }
  // Iterating alone: the loop throws, nothing is left unhandled.
  await assert.rejects(async () => { for await (const e of session.stream(null)) void e; }, { code: 'bad_argument' });
  session.close();
  const closed = session.stream('hi');
  await assert.rejects(closed.turn, { code: 'closed' });
  await assert.rejects(session.chat('hi'), { code: 'closed' });
});

test('a second stream while a turn runs is answered busy, and hears none of the first turn\'s events', async () => {
  let release;
  const gate = new Promise((r) => { release = r; });
  const session = runtime.createSession({
    disableToolDiscovery: true,
    transport: async function* () {
      yield { type: 'messageStart' };
      await gate;
      yield { type: 'textDelta', text: 'one' };
      yield { type: 'messageStop', stopReason: 'endTurn' };
    },
  });
  const first = session.stream('a');
  const firstEvents = [(await first.next()).value];
  const second = session.stream('b');
  const secondEvents = [];
  for await (const e of second) secondEvents.push(e);
  const busy = await second.turn;
  assert.equal(busy.status, 'error');
  assert.equal(busy.errorCode, 'busy');
  release();
  for await (const e of first) firstEvents.push(e);
  assert.deepEqual(secondEvents, []);
  assert.equal((await first.turn).text, 'one');
  assert.deepEqual(firstEvents.filter((e) => e.type === 'chat').map((e) => e.event.type), ['messageStart', 'textDelta', 'messageStop']);
});

// ---- steps and usage ----

test('onStepFinish gets each model round\'s step; turn.usage sums the rounds\' tokens', async () => {
  const proxy = studioProxy({
    chat: [
      { body: frame('message_start', {}) + frame('text_delta', { text: 'Let me look. ' }) + frame('tool_call_start', { toolCallId: 'c1', toolName: 'count' })
        + frame('tool_call_stop', { toolCallId: 'c1', toolArguments: {} }) + frame('message_stop', { stopReason: 'toolCall', promptTokens: 10, completionTokens: 4 }) },
      { body: textStream('There are 3.') },
    ],
  });
  const steps = [];
  const events = [];
  const session = runtime.createSession({
    fetchImpl: proxy.fetchImpl,
    disableToolDiscovery: true,
    tools: [{ name: 'count', execute: () => 3 }],
    onStepFinish: (step) => steps.push(step),
    onEvent: (e) => events.push(e),
  });
  const turn = await session.chat('how many?');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.deepEqual(turn.usage, { inputTokens: 13, outputTokens: 6 });
  assert.deepEqual(steps, [
    { round: 1, text: 'Let me look. ', toolCalls: [turn.toolCalls[0]], stopReason: 'toolCall', usage: { inputTokens: 10, outputTokens: 4 } },
    { round: 2, text: 'There are 3.', toolCalls: [], stopReason: 'endTurn', usage: { inputTokens: 3, outputTokens: 2 } },
  ]);
  // The same steps reach onEvent as stepFinish events, after the round's dispatches.
  assert.deepEqual(events.filter((e) => e.type === 'stepFinish').map((e) => e.step), steps);
  const order = events.map((e) => (e.type === 'chat' ? e.event.type : e.type)).filter((t) => t !== 'toolDiscovery');
  assert.deepEqual(order, ['messageStart', 'textDelta', 'toolCallStart', 'toolCallStop', 'messageStop', 'toolResult', 'stepFinish',
    'messageStart', 'textDelta', 'messageStop', 'stepFinish']);
  assert.ok(!turn.events.some((e) => e.type === 'stepFinish'), 'steps are not among the turn\'s events');
});

test('an onStepFinish that throws or rejects never breaks a turn; a turn without token counts has no usage', async () => {
  for (const onStepFinish of [() => { throw new Error('observer bug'); }, () => Promise.reject(new Error('async observer bug'))]) {
    let calls = 0;
    const session = runtime.createSession({
      disableToolDiscovery: true,
      transport: () => [{ type: 'messageStart' }, { type: 'textDelta', text: 'fine' }, { type: 'messageStop', stopReason: 'endTurn' }],
      onStepFinish: (step) => { calls++; return onStepFinish(step); },
    });
    const turn = await session.chat('hi');
    assert.equal(turn.status, 'completed', turn.errorMessage);
    assert.equal(turn.text, 'fine');
    assert.equal(turn.usage, undefined);
    assert.equal(calls, 1);
  }
  assert.throws(() => runtime.createSession({ onStepFinish: 'yes' }), (err) => err.code === 'bad_options' && /onStepFinish must be a function/.test(err.message));
});

// ---- approvals resumed ----

/** Go to checkout, then pay (high-effect, needing a person's approval). */
const shop = {
  id: 'shop',
  pages: [{ id: 'checkout' }, { id: 'done' }],
  actions: [{ id: 'checkout.pay', does: 'Pay for the order', on: 'checkout', goTo: 'done', confirm: true, writes: ['order.id'], input: 'none' }],
};

/** The shop's port, needing human approval; `paid` records each payment's source. */
function payPort() {
  const paid = [];
  const port = runtime.createPort(shop, {
    requireHumanApproval: true,
    handlers: { 'checkout.pay': async (input, { source }) => { paid.push(source); return { orderId: `o-${paid.length}` }; } },
  });
  return { paid, port };
}

/**
 * A port needing human approval as the session's kit, and a scripted proxy:
 * the model asks to pay, then (after the person's answer) calls the step
 * again with `again`'s arguments, then says `last`.
 */
function approvalSetup({ again = { confirm: true }, last = 'Paid.', sessionOptions = {} } = {}) {
  const { paid, port } = payPort();
  const proxy = studioProxy({
    chat: [
      { body: toolCallStream({ id: 'c1', name: 'shop.do_action', args: { action: 'checkout.pay' } }) },
      { body: toolCallStream({ id: 'c2', name: 'shop.do_action', args: { action: 'checkout.pay', ...again } }) },
      { body: textStream(last) },
    ],
  });
  const session = runtime.createSession({ fetchImpl: proxy.fetchImpl, kit: port, disableToolDiscovery: true, ...sessionOptions });
  return { paid, port, proxy, session };
}

/** The user messages of each chat request. */
const userMessages = (proxy) => proxy.chatRequests().map((r) => r.body.messages.filter((m) => m.role === 'user').map((m) => m.content));

test('an approval is resumed without a new user message, and the step is performed once', async () => {
  const steps = [];
  const { paid, port, proxy, session } = approvalSetup({ sessionOptions: { onStepFinish: (s) => steps.push(s) } });
  const first = await session.chat('Pay my order.');
  assert.equal(first.status, 'completed', first.errorMessage);
  assert.equal(first.rounds, 1);
  assert.equal(proxy.chatRequests().length, 1, 'the turn stopped on the ask: no further model request');
  assert.equal(first.pendingApprovals.length, 1);
  const [pending] = first.pendingApprovals;
  assert.deepEqual({ ...pending, detail: undefined }, { askId: pending.askId, toolCallId: 'c1', toolName: 'shop.do_action', action: 'checkout.pay', detail: undefined });
  assert.match(pending.askId, /^ask_[a-z2-7]{26}$/, 'an unguessable id');
  assert.equal(pending.detail.judgment, 'needs-confirm');
  assert.equal(pending.detail.awaitingHuman, true);
  assert.deepEqual(paid, [], 'nothing was paid before the person answered');
  assert.equal(port.asks().find((a) => a.askId === pending.askId).state, 'pending');

  const turn = await session.resume({ approve: [pending.askId] });
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.equal(turn.text, 'Paid.');
  assert.equal(turn.pendingApprovals, undefined);
  const performed = JSON.parse(turn.toolCalls[0].content).data;
  assert.equal(performed.effectStatus, 'performed', JSON.stringify(performed));
  assert.deepEqual(performed.data, { orderId: 'o-1' });
  assert.deepEqual(paid, ['agent'], 'the step ran once');
  assert.equal(port.state().page, 'done');
  assert.equal(port.asks().find((a) => a.askId === pending.askId).state, 'used');
  assert.deepEqual(turn.usage, { inputTokens: 3, outputTokens: 2 });
  assert.deepEqual(steps.map((s) => [s.round, s.toolCalls.length]), [[1, 1], [1, 1], [2, 0]]);

  // The person typed one message; the answer reached the model as the session's note, not as a message of theirs.
  const users = userMessages(proxy);
  assert.equal(users.length, 3);
  assert.deepEqual(users[0], ['Pay my order.']);
  assert.equal(users[1].length, 2);
  assert.equal(users[1][0], 'Pay my order.');
  assert.match(users[1][1], new RegExp(`^Approved: the person approved "${pending.askId}" \\(checkout\\.pay: Pay for the order\\) in the app\\.`));
  assert.deepEqual(users[2], users[1], 'no other user message');
  const second = proxy.chatRequests()[1].body.messages;
  assert.deepEqual(second.map((m) => m.role), ['user', 'assistant', 'tool', 'user'], 'the ask\'s tool result, then the note');
  port.close();
});

test('a declined approval is resumed: the step is never performed', async () => {
  const { paid, port, proxy, session } = approvalSetup({ again: { decline: true }, last: 'Not paid.' });
  const first = await session.chat('Pay my order.');
  const turn = await session.resume({ decline: [first.pendingApprovals[0].askId] });
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.equal(turn.text, 'Not paid.');
  assert.equal(JSON.parse(turn.toolCalls[0].content).data.judgment, 'declined');
  assert.deepEqual(paid, []);
  assert.match(userMessages(proxy)[1][1], /^Declined: the person declined/);
  assert.equal(port.asks()[0].state, 'declined');
  port.close();
});

test('resume refuses what it cannot answer with turn error codes, and misuse with coded rejections', async () => {
  const { port, session } = approvalSetup();
  const first = await session.chat('Pay my order.');
  const { askId } = first.pendingApprovals[0];
  const refused = [
    [{ approve: ['ask#999'] }, 'unknown_ask'],
    [{}, 'bad_resolution'],
    [{ approve: [askId], decline: [askId] }, 'bad_resolution'],
    [{ approve: [''] }, 'bad_resolution'],
  ];
  for (const [resolution, code] of refused) {
    const turn = await session.resume(resolution);
    assert.equal(turn.status, 'error', JSON.stringify(resolution));
    assert.equal(turn.errorCode, code, `${JSON.stringify(resolution)}: ${turn.errorMessage}`);
  }
  for (const bad of [null, 'ask#1', ['ask#1'], { approve: 'ask#1' }, { approve: [1] }, { accept: [askId] }]) {
    await assert.rejects(session.resume(bad), { code: 'bad_argument' }, JSON.stringify(bad));
  }
  await assert.rejects(session.resume({ approve: [askId] }, { signal: 'now' }), { code: 'bad_argument' });
  const cancelled = await session.resume({ approve: [askId] }, { signal: AbortSignal.abort() });
  assert.equal(cancelled.status, 'cancelled');
  assert.equal(port.asks()[0].state, 'pending', 'a cancelled resume answered nothing');
  const turn = await session.resume({ approve: [askId] });
  assert.equal(turn.status, 'completed', turn.errorMessage);
  const again = await session.resume({ approve: [askId] });
  assert.equal(again.errorCode, 'unknown_ask', 'an answered ask is no longer pending');
  session.close();
  await assert.rejects(session.resume({ approve: [askId] }), { code: 'closed' });
  port.close();

  // A kit of the page's own has no human doors.
  const plain = runtime.createSession({ disableToolDiscovery: true, kit: { tools: [], execute: () => 1 }, transport: () => [] });
  const none = await plain.resume({ approve: ['ask#1'] });
  assert.equal(none.errorCode, 'no_approval_doors');
});

test('a Port kit with a page tool beside it: the page runs its own tool, the port its own, and approvals resume', async () => {
  const { paid, port } = payPort();
  const basemap = [];
  const proxy = studioProxy({
    chat: [
      { body: toolCallStream({ id: 'p1', name: 'set_basemap', args: { style: 'dark' } }, { id: 'p0', name: 'shop.whats_here' }, { id: 'p2', name: 'shop.do_action', args: { action: 'checkout.pay' } }) },
      { body: toolCallStream({ id: 'p3', name: 'shop.do_action', args: { action: 'checkout.pay', confirm: true } }) },
      { body: textStream('Dark, and paid.') },
    ],
  });
  const session = runtime.createSession({
    fetchImpl: proxy.fetchImpl,
    disableToolDiscovery: true,
    kit: port,
    tools: [
      { name: 'set_basemap', inputSchema: { type: 'object' }, execute: ({ style }) => { basemap.push(style); return { basemap: style }; } },
      // A page tool named like a port tool: the port's stays the port's.
      { name: 'shop.whats_here', execute: () => { throw new Error('the page must not run a port tool'); } },
    ],
  });
  assert.deepEqual(session.tools().map((t) => t.name), [...port.tools().map((t) => t.name), 'set_basemap']);
  const first = await session.chat('Make it dark and pay.');
  assert.equal(first.status, 'completed', first.errorMessage);
  assert.deepEqual(basemap, ['dark']);
  assert.deepEqual(JSON.parse(first.toolCalls[0].content), { status: 'ok', data: { basemap: 'dark' } });
  assert.equal(JSON.parse(first.toolCalls[1].content).data.youAreOn, 'checkout', 'the port answered its own tool');
  assert.equal(first.pendingApprovals?.length, 1, JSON.stringify(first));
  const turn = await session.resume({ approve: [first.pendingApprovals[0].askId] });
  assert.equal(turn.text, 'Dark, and paid.');
  assert.deepEqual(paid, ['agent']);
  // The shared execute still may not stand in for the port.
  assert.throws(() => runtime.createSession({ kit: port, execute: () => 1 }), (err) => err.code === 'bad_options' && /through the port and its gates; drop execute/.test(err.message));
  port.close();
});

// ---- port change versions, mcpUrl ----

test('port onChange always gets a numeric version, 0 included', async () => {
  const changes = [];
  const port = runtime.createPort({
    id: 'shop',
    pages: [{ id: 'checkout' }, { id: 'done' }],
    actions: [{ id: 'checkout.pay', does: 'Pay for the order', on: 'checkout', goTo: 'done', confirm: true, input: 'none' }],
  }, { requireHumanApproval: true, handlers: { 'checkout.pay': () => ({ paid: true }) }, onChange: (c) => changes.push(c) });
  assert.equal(port.state().version, 0);
  // The ask is a change at version 0: nothing has moved yet.
  const asked = await port.call('shop.do_action', { action: 'checkout.pay' });
  assert.equal(asked.judgment, 'needs-confirm');
  assert.deepEqual(changes, [{ version: 0 }]);
  port.approveAsk(asked.askId);
  await port.call('shop.do_action', { action: 'checkout.pay', confirm: true }, { settleWithinMs: 1000 });
  assert.ok(changes.length > 1);
  assert.ok(changes.every((c) => Number.isSafeInteger(c.version)), JSON.stringify(changes));
  assert.equal(changes.at(-1).version, port.state().version);
  port.close();
});

test('mcpUrl moves the default MCP client\'s endpoint; it must be a string, an absolute URL or a path', async () => {
  for (const [mcpUrl, expected] of [['https://mcp.test/v2/mcp', 'https://mcp.test/v2/mcp'], ['/elsewhere/mcp', '/elsewhere/mcp']]) {
    const mcp = [];
    const chat = studioProxy({ chat: [{ body: textStream('hi') }] });
    const fetchImpl = (url, init) => {
      if (url.includes('/v1/studio/ai/')) return chat.fetchImpl(url, init);
      mcp.push(url);
      return new Response('not here', { status: 404 });
    };
    const session = runtime.createSession({ baseUrl: 'https://studio.test/api', mcpUrl, fetchImpl });
    const turn = await session.chat('hi');
    assert.equal(turn.status, 'completed', turn.errorMessage);
    assert.ok(mcp.length > 0 && mcp.every((url) => url === expected), `${mcpUrl}: ${mcp.join()}`);
    session.close();
  }
  for (const bad of [42, new URL('https://studio.test/mcp'), null]) {
    assert.throws(() => runtime.createSession({ mcpUrl: bad }), (err) => err.code === 'bad_options' && /mcpUrl must be a string/.test(err.message));
  }
  for (const bad of ['mcp', 'ftp://x/mcp', '//host/mcp', 'https:///mcp', '/a b']) {
    assert.throws(() => runtime.createSession({ mcpUrl: bad }), (err) => err.code === 'bad_options' && /MCPURL/.test(err.message), bad);
  }
});
