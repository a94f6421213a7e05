import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dist, loadRuntime, scriptedFetch, textStream, frame, variant } from '../testing/helpers.mjs';

const runtime = await loadRuntime();

test(`version reports the release, the ABI and the toolchain (${variant === 'tiny' ? 'TinyGo' : 'Go'})`, () => {
  const v = runtime.version();
  assert.match(v.version, /^\d+\.\d+\.\d+/);
  assert.equal(v.abi, 1);
  if (variant === 'tiny') assert.match(v.goVersion, /^tinygo0\.\d+/);
  else assert.match(v.goVersion, /^go1\.26/);
});

test('a text-only turn streamed a byte at a time', async () => {
  const { fetchImpl, requests } = scriptedFetch({ body: textStream('Hé', 'llo ✓'), chunk: 1 });
  const events = [];
  const session = runtime.createSession({ baseUrl: 'https://studio.test/api/', model: 'm1', maxTokens: 64, fetchImpl, onEvent: (e) => events.push(e) });
  const turn = await session.chat('hi');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.equal(turn.text, 'Héllo ✓');
  assert.equal(turn.stopReason, 'endTurn');
  assert.equal(turn.rounds, 1);
  assert.deepEqual(turn.toolCalls, []);
  // The record holds the run of deltas as one textDelta; onEvent saw each delta as it streamed.
  assert.deepEqual(turn.events.map((e) => e.type), ['messageStart', 'textDelta', 'messageStop']);
  assert.equal(turn.events[1].text, 'Héllo ✓');
  // The chat events (the failed discovery report of the default MCP client aside).
  assert.deepEqual(events.filter((e) => e.type === 'chat').map((e) => e.event), [
    turn.events[0], { type: 'textDelta', text: 'Hé' }, { type: 'textDelta', text: 'llo ✓' }, turn.events[2],
  ]);

  assert.equal(requests.length, 1);
  const [req] = requests;
  assert.equal(req.url, 'https://studio.test/api/v1/studio/ai/chat');
  assert.equal(req.init.method, 'POST');
  assert.equal(req.init.headers['content-type'], 'application/json');
  assert.equal(req.init.headers.accept, 'text/event-stream');
  assert.deepEqual(req.body, { model: 'm1', maxTokens: 64, messages: [{ role: 'user', content: 'hi' }] });
});

test('history grows across turns', async () => {
  const { fetchImpl, requests } = scriptedFetch({ body: textStream('one') }, { body: textStream('two') });
  const session = runtime.createSession({ fetchImpl, system: 'be brief' });
  await session.chat('first');
  const turn = await session.chat('second');
  assert.equal(turn.text, 'two');
  assert.equal(requests[1].url, '/api/v1/studio/ai/chat');
  assert.deepEqual(requests[1].body, {
    system: 'be brief',
    messages: [
      { role: 'user', content: 'first' },
      { role: 'assistant', content: 'one' },
      { role: 'user', content: 'second' },
    ],
  });
});

test('aborting mid-stream cancels the turn and the request', async () => {
  const { fetchImpl, requests } = scriptedFetch({ body: frame('message_start', {}) + frame('text_delta', { text: 'par' }), hang: true });
  const controller = new AbortController();
  const session = runtime.createSession({
    fetchImpl,
    onEvent: (e) => { if (e.event.type === 'textDelta') controller.abort(); },
  });
  const turn = await session.chat('hi', { signal: controller.signal });
  assert.equal(turn.status, 'cancelled');
  assert.equal(turn.text, 'par');
  assert.equal(requests[0].init.signal.aborted, true, 'the fetch was aborted');
});

test('an already-aborted signal does no I/O', async () => {
  const { fetchImpl, requests } = scriptedFetch({ body: textStream('x') });
  const session = runtime.createSession({ fetchImpl });
  const turn = await session.chat('hi', { signal: AbortSignal.abort() });
  assert.equal(turn.status, 'cancelled');
  assert.equal(turn.rounds, 0);
  assert.equal(requests.length, 0);
});

test('a proxy that never answers is cancelled by the caller', async () => {
  const fetchImpl = (url, init) => new Promise((_, reject) => init.signal.addEventListener('abort', () => reject(init.signal.reason)));
  const session = runtime.createSession({ fetchImpl });
  // AbortSignal.timeout's timer does not keep Node alive; a plain timer does.
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 50);
  const turn = await session.chat('hi', { signal: controller.signal });
  assert.equal(turn.status, 'cancelled');
});

const faults = [
  // The Go build catches the throw inside the module; under TinyGo, which cannot, the loader hands
  // the module a rejection instead (a throw would trap the instance).
  ['a fetchImpl that throws', () => { throw new Error('no network here'); },
    variant === 'tiny' ? /the fetch function rejected: no network here/ : /the fetch function threw: no network here/],
  ['a fetchImpl that rejects', () => Promise.reject(new TypeError('failed to fetch')), /rejected: TypeError: failed to fetch/],
  ['a fetchImpl that rejects with a non-Error', () => Promise.reject('nope'), /rejected: nope/],
  ['a fetchImpl that returns a number', () => 42, /not a Response \(a number\)/],
  ['a fetchImpl that returns null', () => null, /not a Response \(a null\)/],
  ['a fetchImpl that returns a plain object', () => ({ ok: true }), /not a Response \(a object without a numeric status\)/],
];
for (const [name, fetchImpl, message] of faults) {
  test(`${name} ends the turn with an error`, async () => {
    const session = runtime.createSession({ fetchImpl });
    const turn = await session.chat('hi');
    assert.equal(turn.status, 'error');
    assert.match(turn.errorMessage, /^Could not reach the Studio AI proxy at \/api\/v1\/studio\/ai\/chat: /);
    assert.match(turn.errorMessage, message);
  });
}

const streams = [
  ['a 500', { status: 500, body: 'oops' }, /^Studio AI proxy responded 500 for the chat request\.$/],
  ['non-JSON event data', { body: frame('text_delta', 'not json') }, /^Malformed event payload from the Studio AI proxy\.$/],
  ['event data that is not an object', { body: frame('text_delta', '[1,2]') }, /^Malformed event payload/],
  ['an oversized frame', { body: frame('text_delta', { text: 'x'.repeat(2000) }) }, /frame bound/],
  ['an in-band error event', { body: frame('error', { errorMessage: 'model overloaded', errorCode: 'overloaded' }) }, /^model overloaded$/],
];
for (const [name, reply, message] of streams) {
  test(`${name} ends the turn with an error`, async () => {
    const { fetchImpl } = scriptedFetch(reply);
    const session = runtime.createSession({ fetchImpl, maxFrameBytes: 1024 });
    const turn = await session.chat('hi');
    assert.equal(turn.status, 'error');
    assert.match(turn.errorMessage, message);
  });
}

test('a malformed payload is recorded as a synthetic error event', async () => {
  const { fetchImpl } = scriptedFetch({ body: frame('text_delta', { text: 'a' }) + frame('text_delta', '{broken') });
  const turn = await runtime.createSession({ fetchImpl }).chat('hi');
  assert.equal(turn.text, 'a');
  assert.deepEqual(turn.events.at(-1), { type: 'error', errorMessage: 'Malformed event payload from the Studio AI proxy.', errorCode: 'malformed_event' });
});

test('an observer that throws or rejects changes nothing', async () => {
  let calls = 0;
  // Counts the chat events; throws on every event, the discovery report too.
  for (const onEvent of [(e) => { if (e.type === 'chat') calls++; throw new Error('observer bug'); }, async (e) => { if (e.type === 'chat') calls++; throw new Error('async observer bug'); }]) {
    const { fetchImpl } = scriptedFetch({ body: textStream('fine') });
    const turn = await runtime.createSession({ fetchImpl, onEvent }).chat('hi');
    assert.equal(turn.status, 'completed');
    assert.equal(turn.text, 'fine');
  }
  assert.equal(calls, 6);
});

test('a Response without a body stream is read whole', async () => {
  const body = new TextEncoder().encode(textStream('whole'));
  const fetchImpl = async () => ({ status: 200, headers: { 'content-type': 'text/event-stream' }, body: null, arrayBuffer: async () => body.buffer });
  const turn = await runtime.createSession({ fetchImpl }).chat('hi');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.equal(turn.text, 'whole');
});

test('without fetchImpl, globalThis.fetch is called with globalThis as receiver', async () => {
  const original = globalThis.fetch;
  const { fetchImpl } = scriptedFetch({ body: textStream('global') });
  let receiver;
  globalThis.fetch = function (url, init) {
    receiver = this;
    return fetchImpl(url, init);
  };
  try {
    const turn = await runtime.createSession({}).chat('hi');
    assert.equal(turn.text, 'global');
    assert.equal(receiver, globalThis);
  } finally {
    globalThis.fetch = original;
  }
});

test('an overlapping chat is rejected as busy', async () => {
  const { fetchImpl } = scriptedFetch({ body: frame('message_start', {}), hang: true });
  const session = runtime.createSession({ fetchImpl });
  const controller = new AbortController();
  const first = session.chat('one', { signal: controller.signal });
  await new Promise((r) => setTimeout(r, 20));
  const second = await session.chat('two');
  assert.equal(second.status, 'error');
  assert.equal(second.errorCode, 'busy');
  controller.abort();
  assert.equal((await first).status, 'cancelled');
});

test('a Go panic is recovered and the module keeps serving', {
  skip: variant === 'tiny' && 'TinyGo cannot recover() on wasm: there a Go panic traps the instance, and the loader rejects '
    + 'every pending and later call with module_exited instead (exit.test.mjs proves it)',
}, async () => {
  const reply = await runtime.call({ op: 'debug.panic' });
  assert.equal(reply.ok, false);
  assert.equal(reply.error.code, 'internal');
  assert.match(reply.error.message, /recovered panic/);
  const { fetchImpl } = scriptedFetch({ body: textStream('still here') });
  const turn = await runtime.createSession({ fetchImpl }).chat('hi');
  assert.equal(turn.text, 'still here');
});

test('two runtimes side by side keep their own sessions', async () => {
  const other = await loadRuntime();
  const a = runtime.createSession({ fetchImpl: scriptedFetch({ body: textStream('from a'), chunk: 3 }).fetchImpl });
  const b = other.createSession({ fetchImpl: scriptedFetch({ body: textStream('from b'), chunk: 2 }).fetchImpl });
  const [ta, tb] = await Promise.all([a.chat('x'), b.chat('y')]);
  assert.equal(ta.text, 'from a');
  assert.equal(tb.text, 'from b');
});

test('options are checked', () => {
  const cases = [
    [{ modle: 'x' }, 'bad_options', /unknown option modle/],
    [{ kit: 'tools' }, 'bad_options', /kit must be an object/],
    [{ kit: { tools: [{ description: 'nameless' }] } }, 'bad_options', /kit.tools\[0\] needs a name/],
    [{ auth: 'token' }, 'bad_options', /auth must be a function or an object with getAccessToken/],
    [{ transport: {} }, 'bad_options', /transport must be a function or an object with stream/],
    [{ studioTools: { families: 'x' } }, 'bad_options', /studioTools.families must be an array of strings/],
    [{ toolListChangedWatch: { factor: 'fast' } }, 'bad_options', /factor must be a number/],
    [{ maxToolRounds: 0 }, 'bad_options', /maxToolRounds is 0/],
    [{ toolDiscoveryTimeoutMs: -1 }, 'bad_options', /toolDiscoveryTimeoutMs is -1/],
    [{ system: 'a', execute: 1 }, 'bad_options', /execute must be a function/],
    [{ fetchImpl: 'fetch' }, 'bad_options', /fetchImpl must be a function/],
    [{ system: 42 }, 'bad_options', /system must be a string or a function/],
    [{ maxTokens: -1 }, 'bad_options', /MaxTokens is -1/],
    [{ toolChoice: { mode: 'sometimes' } }, 'bad_options', /not one of/],
    [{ maxTokens: 'many' }, 'bad_options', /malformed/],
  ];
  for (const [options, code, message] of cases) {
    assert.throws(() => runtime.createSession(options), (err) => err instanceof Error && err.code === code && message.test(err.message), JSON.stringify(Object.keys(options)));
  }
});

test('misuse rejects with coded errors', async () => {
  const session = runtime.createSession({ fetchImpl: scriptedFetch({ body: textStream('x') }).fetchImpl });
  await assert.rejects(session.chat(42), { code: 'bad_argument' });
  await assert.rejects(session.chat('x', { signal: 'soon' }), { code: 'bad_argument' });
  session.close();
  await assert.rejects(session.chat('x'), { code: 'closed' });
});

test(`the built bundle in dist/ loads with its defaults (variant ${variant})`, async () => {
  const { load } = await import(new URL('agentwasm.mjs', dist));
  const bundled = await load(variant === 'go' ? undefined : { variant });
  assert.equal(bundled.version().abi, 1);
});
