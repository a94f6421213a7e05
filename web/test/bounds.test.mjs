// Node tests of the turn's bounds through the js module: a million text
// deltas (a small maxTurnTextBytes stops them with turn_too_large; the
// defaults finish them with bounded memory, the record holding one event per
// run), an answer cut before message_stop (stream_truncated), the stream and
// capabilities timeouts with small values, and the tokens of the session's
// MCP client kept out of everything the session produces.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRuntime, scriptedFetch, frame, textStream, runChild } from '../testing/helpers.mjs';

const runtime = await loadRuntime();
const enc = new TextEncoder();

/**
 * A fetch whose chat answer is message_start, n one-character text deltas
 * (36 bytes of SSE each) and, unless cut, message_stop, generated as the
 * module reads it: never held whole. Other URLs answer 404.
 */
function deltaFetch(n, { cut = false } = {}) {
  const delta = enc.encode(frame('text_delta', { text: 'x' }));
  const perChunk = 2000;
  return async (url, init) => {
    if (!url.endsWith('/v1/studio/ai/chat')) return new Response('not here', { status: 404 });
    let sent = -1;
    const stream = new ReadableStream({
      pull(controller) {
        if (sent < 0) {
          controller.enqueue(enc.encode(frame('message_start', { model: 'lazy' })));
          sent = 0;
          return;
        }
        if (sent >= n) {
          if (!cut) controller.enqueue(enc.encode(frame('message_stop', { stopReason: 'endTurn' })));
          controller.close();
          return;
        }
        const k = Math.min(perChunk, n - sent);
        const chunk = new Uint8Array(k * delta.length);
        for (let i = 0; i < k; i++) chunk.set(delta, i * delta.length);
        sent += k;
        controller.enqueue(chunk);
      },
    }, { highWaterMark: 0 });
    init.signal?.addEventListener('abort', () => stream.cancel().catch(() => {}));
    return new Response(stream, { headers: { 'content-type': 'text/event-stream' } });
  };
}

test('a million text deltas under a small maxTurnTextBytes end with turn_too_large, keeping the text', { timeout: 120_000 }, async () => {
  const session = runtime.createSession({ fetchImpl: deltaFetch(1_000_000), disableToolDiscovery: true, maxTurnTextBytes: 1000 });
  const turn = await session.chat('go on');
  assert.equal(turn.status, 'error');
  assert.equal(turn.errorCode, 'turn_too_large');
  assert.match(turn.errorMessage, /1000 bytes/);
  assert.equal(turn.text, 'x'.repeat(996), 'the text up to the bound (the model name took 4 bytes)');
  assert.deepEqual(turn.events.map((e) => e.type), ['messageStart', 'textDelta']);
  assert.deepEqual(session.messages(), [{ role: 'user', content: 'go on' }]);
  session.close();
});

test('a million text deltas with the defaults complete with bounded memory; the record holds the run as one event', { timeout: 600_000 }, async (t) => {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 25);
  let deltas = 0;
  const session = runtime.createSession({
    fetchImpl: deltaFetch(1_000_000),
    disableToolDiscovery: true,
    onEvent: (e) => { if (e.type === 'chat' && e.event.type === 'textDelta') deltas++; },
  });
  let turn;
  try {
    turn = await session.chat('go on and on');
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, process.memoryUsage().rss);
  t.diagnostic(`RSS ${(before / 2 ** 20).toFixed(0)} MB before the turn, ${(peak / 2 ** 20).toFixed(0)} MB at its peak`);
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.equal(turn.text.length, 1_000_000);
  assert.deepEqual(turn.events.map((e) => e.type), ['messageStart', 'textDelta', 'messageStop']);
  assert.equal(turn.events[1].text.length, 1_000_000);
  assert.equal(deltas, 1_000_000, 'onEvent saw every delta as it streamed');
  assert.ok(peak < 300 * 2 ** 20, `RSS peaked at ${(peak / 2 ** 20).toFixed(0)} MB (from ${(before / 2 ** 20).toFixed(0)} MB)`);
  session.close();
});

test('maxTurnEvents counts recorded events; bad bounds are refused', async () => {
  const body = frame('message_start', {}) + Array.from({ length: 20 }, (_, i) => frame(i % 2 ? 'text_delta' : 'tool_call_delta', { text: 'a', toolArgumentsDelta: '{' })).join('') + frame('message_stop', {});
  const { fetchImpl } = scriptedFetch({ body });
  const session = runtime.createSession({ fetchImpl, disableToolDiscovery: true, maxTurnEvents: 10 });
  const turn = await session.chat('hi');
  assert.equal(turn.errorCode, 'turn_too_large');
  assert.equal(turn.events.length, 10);
  session.close();
  for (const options of [{ maxTurnEvents: -1 }, { maxTurnTextBytes: -1 }, { streamIdleTimeoutMs: -1 }, { streamFirstByteTimeoutMs: -5 }, { capabilitiesTimeoutMs: -1 }]) {
    assert.throws(() => runtime.createSession({ fetchImpl, ...options }), { code: 'bad_options' }, JSON.stringify(options));
  }
});

test('an answer cut before message_stop ends with stream_truncated, keeping the text', async () => {
  for (const cut of ['', 'event: text_delta\ndata: {"text":"lo"']) {
    const { fetchImpl } = scriptedFetch({ body: frame('message_start', {}) + frame('text_delta', { text: 'Hel' }) + cut });
    const session = runtime.createSession({ fetchImpl, disableToolDiscovery: true });
    const turn = await session.chat('hi');
    assert.equal(turn.status, 'error');
    assert.equal(turn.errorCode, 'stream_truncated');
    assert.equal(turn.text, 'Hel');
    assert.deepEqual(session.messages(), [{ role: 'user', content: 'hi' }]);
    session.close();
  }
});

test('a transport whose events end without messageStop is truncated too', async () => {
  const session = runtime.createSession({ transport: () => [{ type: 'messageStart' }, { type: 'textDelta', text: 'part' }], disableToolDiscovery: true });
  const turn = await session.chat('hi');
  assert.equal(turn.errorCode, 'stream_truncated');
  assert.equal(turn.text, 'part');
  session.close();
});

test('streamFirstByteTimeoutMs and streamIdleTimeoutMs abort a silent answer with stream_timeout', { timeout: 20_000 }, async () => {
  // No answer at all: the first-byte bound.
  let aborted = false;
  const never = (url, init) => new Promise((_, reject) => init.signal.addEventListener('abort', () => { aborted = true; reject(init.signal.reason); }));
  let session = runtime.createSession({ fetchImpl: never, disableToolDiscovery: true, streamFirstByteTimeoutMs: 50 });
  let started = Date.now();
  let turn = await session.chat('hi');
  assert.equal(turn.status, 'error');
  assert.equal(turn.errorCode, 'stream_timeout');
  assert.match(turn.errorMessage, /no answer within 50ms/);
  assert.ok(aborted, 'the request was aborted');
  assert.ok(Date.now() - started < 5000);
  session.close();

  // Text, then silence: the idle bound keeps the text.
  const { fetchImpl, requests } = scriptedFetch({ body: frame('message_start', {}) + frame('text_delta', { text: 'par' }), hang: true });
  session = runtime.createSession({ fetchImpl, disableToolDiscovery: true, streamIdleTimeoutMs: 60 });
  started = Date.now();
  turn = await session.chat('hi');
  assert.equal(turn.errorCode, 'stream_timeout');
  assert.match(turn.errorMessage, /no byte for 60ms/);
  assert.equal(turn.text, 'par');
  assert.equal(requests[0].init.signal.aborted, true, 'the fetch was aborted');
  assert.ok(Date.now() - started < 5000);
  session.close();

  // A complete answer whose stream stays open: the silence ends it as complete.
  const open = scriptedFetch({ body: textStream('All done.'), hang: true });
  session = runtime.createSession({ fetchImpl: open.fetchImpl, disableToolDiscovery: true, streamIdleTimeoutMs: 60 });
  turn = await session.chat('hi');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.equal(turn.text, 'All done.');
  session.close();

  // 0 disables a bound: a slow first byte passes.
  const slow = async (url, init) => {
    await new Promise((resolve) => setTimeout(resolve, 150));
    return scriptedFetch({ body: textStream('late') }).fetchImpl(url, init);
  };
  session = runtime.createSession({ fetchImpl: slow, disableToolDiscovery: true, streamFirstByteTimeoutMs: 0, streamIdleTimeoutMs: 0 });
  turn = await session.chat('hi');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  session.close();
});

test('capabilitiesTimeoutMs bounds the capabilities read; the turn goes on', { timeout: 20_000 }, async () => {
  let capsAborted = false;
  const fetchImpl = (url, init) => {
    if (url.endsWith('/capabilities')) {
      return new Promise((_, reject) => init.signal.addEventListener('abort', () => { capsAborted = true; reject(init.signal.reason); }));
    }
    return scriptedFetch({ body: textStream('went on') }).fetchImpl(url, init);
  };
  const session = runtime.createSession({
    fetchImpl, disableToolDiscovery: true, capabilitiesTimeoutMs: 50,
    tools: [{ name: 'a' }], execute: () => ({ status: 'ok' }),
  });
  const turn = await session.chat('hi');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.equal(turn.text, 'went on');
  assert.ok(capsAborted, 'the capabilities request was aborted');
  session.close();
});

/**
 * A proxy with a session-era MCP endpoint that echoes the caller's
 * authorization header: in its first tools/list error, in a tool's error
 * text and in a tool's result. Chat requests take the next of chat.
 */
function echoingProxy(chat) {
  const json = (body, headers = {}) => new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json', ...headers } });
  let lists = 0;
  const chats = [];
  const tool = (name) => ({ name, inputSchema: { type: 'object' }, _meta: { 'honua.studio': { family: 'honua.studio.composition' } } });
  const fetchImpl = async (url, init) => {
    const auth = init.headers.authorization;
    if (url.endsWith('/mcp')) {
      if (init.method !== 'POST') return new Response(null, { status: 405 });
      const msg = JSON.parse(new TextDecoder().decode(init.body));
      switch (msg.method) {
        case 'server/discover': return new Response('no such method', { status: 404 });
        case 'initialize': return json({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 't', version: '1' } } }, { 'mcp-session-id': 's-1' });
        case 'tools/list':
          if (++lists === 1) return json({ jsonrpc: '2.0', id: msg.id, error: { code: -32001, message: `token ${auth} lacks scope tools:list` } });
          return json({ jsonrpc: '2.0', id: msg.id, result: { tools: [tool('honua_studio_fail'), tool('honua_studio_echo')] } });
        case 'tools/call':
          if (msg.params.name === 'honua_studio_fail') {
            return json({ jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text: `token ${auth} lacks scope studio:write` }], isError: true } });
          }
          return json({ jsonrpc: '2.0', id: msg.id, result: { content: [], structuredContent: { seen: auth } } });
        default: return new Response(null, { status: 202 });
      }
    }
    if (url.endsWith('/capabilities')) return new Response('', { status: 404 });
    chats.push(new TextDecoder().decode(init.body));
    return new Response(chat[Math.min(chats.length, chat.length) - 1], { headers: { 'content-type': 'text/event-stream' } });
  };
  return { fetchImpl, chats };
}

test('the tokens the MCP client obtained are redacted from reports, events, records, history and chat requests', { timeout: 20_000 }, async () => {
  const calls = frame('message_start', {})
    + frame('tool_call_start', { toolCallId: 'c1', toolName: 'honua_studio_fail' }) + frame('tool_call_stop', { toolCallId: 'c1', toolArguments: {} })
    + frame('tool_call_start', { toolCallId: 'c2', toolName: 'honua_studio_echo' }) + frame('tool_call_stop', { toolCallId: 'c2', toolArguments: {} })
    + frame('message_stop', { stopReason: 'toolCall' });
  const { fetchImpl, chats } = echoingProxy([textStream('First.'), calls, textStream('Done.')]);
  const issued = [];
  const events = [];
  const session = runtime.createSession({
    baseUrl: 'https://studio.test/api',
    fetchImpl,
    auth: () => { const t = `js-secret-${issued.length + 1}-q9w8e7`; issued.push(t); return t; },
    onEvent: (e) => events.push(JSON.stringify(e)),
  });
  const first = await session.chat('hello');
  assert.equal(first.status, 'completed', first.errorMessage);
  const failed = session.toolDiscovery();
  assert.match(failed.errorMessage, /token Bearer \[redacted\] lacks scope/);
  const listed = await session.refreshTools();
  assert.deepEqual(listed.routed, ['honua_studio_fail', 'honua_studio_echo']);
  const second = await session.chat('use them');
  assert.equal(second.status, 'completed', second.errorMessage);
  assert.match(second.toolCalls[0].errorMessage, /\[redacted\]/);
  assert.match(second.toolCalls[1].content, /\[redacted\]/);

  const everything = JSON.stringify({ failed, listed, first, second, events, messages: session.messages(), chats });
  assert.ok(issued.length > 3, issued.join());
  for (const token of issued) assert.ok(!everything.includes(token), `${token} leaked`);
  assert.match(chats[2], /\[redacted\]/, 'the model gets the echoes, redacted');
  session.close();
});

test('a finished turn does not hold the Node process open for its stream bound', { timeout: 60_000 }, async () => {
  // Go's own timers, once stopped, leave the host timeout the runtime set
  // for them pending: the process would linger for the 120 s bound.
  const { out, code } = await runChild(`
    const runtime = await loadRuntime();
    const { fetchImpl } = scriptedFetch({ body: textStream('done') });
    const session = runtime.createSession({ fetchImpl, disableToolDiscovery: true });
    const turn = await session.chat('hi');
    console.log(turn.status);
  `);
  assert.equal(out, 'completed');
  assert.equal(code, 0, 'the process exited by itself, long before the bound');
});
