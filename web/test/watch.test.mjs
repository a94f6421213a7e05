// Node test of toolListChangedWatch.onStatus: the watch's status changes
// reach it (and onEvent), against a session-era MCP endpoint served by a
// fetch function whose notification stream is unsupported (GET → 405); an
// onStatus that throws changes nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRuntime, textStream } from '../testing/helpers.mjs';

const runtime = await loadRuntime();

/** A proxy with a session-era MCP endpoint that offers no event stream. */
function proxy() {
  const json = (body, headers = {}) => new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json', ...headers } });
  return async (url, init) => {
    if (url.endsWith('/mcp')) {
      if (init.method === 'GET') return new Response(null, { status: 405 });
      const msg = JSON.parse(new TextDecoder().decode(init.body));
      switch (msg.method) {
        case 'server/discover': return new Response('no such method', { status: 404 });
        case 'initialize': return json({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2025-11-25', capabilities: { tools: { listChanged: true } }, serverInfo: { name: 't', version: '1' } } }, { 'mcp-session-id': 's-1' });
        case 'tools/list': return json({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } });
        default: return new Response(null, { status: 202 });
      }
    }
    if (url.endsWith('/capabilities')) return new Response('', { status: 404 });
    return new Response(textStream('Hi.'), { headers: { 'content-type': 'text/event-stream' } });
  };
}

test('toolListChangedWatch.onStatus hears the watch; a throwing one changes nothing', { timeout: 20000 }, async () => {
  for (const throws of [false, true]) {
    const statuses = [];
    const events = [];
    let done;
    const unsupported = new Promise((resolve) => { done = resolve; });
    const session = runtime.createSession({
      baseUrl: 'https://studio.test/api',
      fetchImpl: proxy(),
      watchToolListChanged: true,
      toolListChangedWatch: {
        onStatus: (status, detail) => {
          statuses.push(status);
          if (status === 'unsupported') done(detail);
          if (throws) throw new Error('observer bug');
        },
      },
      onEvent: (e) => { if (e.type === 'toolWatch') events.push(e.status); },
    });
    const turn = await session.chat('hello');
    assert.equal(turn.status, 'completed', turn.errorMessage);
    await unsupported;
    assert.equal(statuses.at(-1), 'unsupported');
    assert.ok(statuses.includes('connecting'), statuses.join());
    assert.deepEqual(events, statuses, 'onEvent saw the same toolWatch statuses');
    const again = await session.chat('again');
    assert.equal(again.status, 'completed', again.errorMessage);
    session.close();
  }
});
