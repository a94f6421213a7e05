// Quiet defaults: a Studio AI proxy without the optional endpoints (no MCP
// endpoint, no capabilities endpoint) is asked about each once per session,
// not on every chat, so a page's console does not fill with 404s.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRuntime, textStream, scriptedFetch } from '../testing/helpers.mjs';

const runtime = await loadRuntime();

const setFilter = { name: 'setFilter', description: 'Filter the map', inputSchema: { type: 'object' } };

/**
 * A proxy as a fetch function: {baseUrl}/mcp answers mcpStatus, the
 * capabilities endpoint capsStatus, chat a text answer. Every fetch is
 * counted by URL, with the JSON-RPC method of each MCP request.
 */
function countingProxy({ mcpStatus = 404, capsStatus = 404 } = {}) {
  const counts = new Map();
  const mcpMethods = [];
  const fetchImpl = async (url, init = {}) => {
    counts.set(url, (counts.get(url) ?? 0) + 1);
    if (url.endsWith('/mcp')) {
      mcpMethods.push(init.body ? JSON.parse(new TextDecoder().decode(init.body)).method : init.method);
      return new Response('not here', { status: mcpStatus });
    }
    if (url.endsWith('/v1/studio/ai/capabilities')) return new Response('not here', { status: capsStatus });
    return scriptedFetch({ body: textStream('ok') }).fetchImpl(url, init);
  };
  return { fetchImpl, counts, mcpMethods };
}

const absent = [
  ['404', 404],
  ['405', 405],
];
for (const [name, status] of absent) {
  test(`a proxy whose MCP and capabilities endpoints answer ${name} is asked once over three chats`, async () => {
    const proxy = countingProxy({ mcpStatus: status, capsStatus: status });
    const events = [];
    const session = runtime.createSession({
      baseUrl: 'https://studio.test/api',
      fetchImpl: proxy.fetchImpl,
      tools: [setFilter], // tools are advertised, so the capabilities are read
      execute: () => ({ status: 'ok' }),
      onEvent: (e) => events.push(e),
    });
    for (const text of ['one', 'two', 'three']) {
      const turn = await session.chat(text);
      assert.equal(turn.status, 'completed', turn.errorMessage);
    }
    assert.deepEqual(Object.fromEntries(proxy.counts), {
      // One contact with the MCP endpoint, on the first chat: the era probe and initialize.
      'https://studio.test/api/mcp': 2,
      'https://studio.test/api/v1/studio/ai/capabilities': 1,
      'https://studio.test/api/v1/studio/ai/chat': 3,
    });
    assert.deepEqual(proxy.mcpMethods, ['server/discover', 'initialize']);

    const reports = events.filter((e) => e.type === 'toolDiscovery').map((e) => e.report);
    assert.equal(reports.length, 1, 'one discovery report');
    const [report] = reports;
    assert.equal(report.errorMessage,
      `The Studio AI proxy has no MCP endpoint at https://studio.test/api/mcp (HTTP ${status}); the session goes on with its runtime tools, and does not look for MCP tools again until the tools are refreshed or the session reconnects.`);
    assert.deepEqual({ ...report, errorMessage: undefined }, {
      discovered: 0, pages: 0, routed: [], classification: { families: {}, views: {}, revisions: {} },
      rejected: [], missingRequired: [], diagnostics: [], errorMessage: undefined,
    }, 'an empty catalog, in the usual shape');
    assert.deepEqual(session.toolDiscovery(), report);
    assert.deepEqual(session.tools().map((t) => t.name), ['setFilter']);

    // refreshTools looks again, from the era probe.
    const refreshed = await session.refreshTools();
    assert.equal(refreshed.errorMessage, report.errorMessage);
    assert.deepEqual(proxy.mcpMethods, ['server/discover', 'initialize', 'server/discover', 'initialize']);
    session.close();
  });
}

test('a 500 from the capabilities endpoint is retried on every chat; one from MCP degrades discovery, retried in the background', async () => {
  const proxy = countingProxy({ mcpStatus: 500, capsStatus: 500 });
  const events = [];
  const session = runtime.createSession({
    fetchImpl: proxy.fetchImpl, tools: [setFilter], execute: () => ({ status: 'ok' }), onEvent: (e) => events.push(e),
  });
  for (const text of ['one', 'two', 'three']) {
    assert.equal((await session.chat(text)).status, 'completed');
  }
  assert.deepEqual(Object.fromEntries(proxy.counts), {
    '/api/mcp': 1,
    '/api/v1/studio/ai/capabilities': 3,
    '/api/v1/studio/ai/chat': 3,
  }, 'the turns after the failed pass do not look again: its retry waits a second');
  const reports = events.filter((e) => e.type === 'toolDiscovery');
  assert.equal(reports.length, 1, 'the failed pass is published');
  assert.match(reports[0].report.errorMessage, /HTTP 500/);
  assert.equal(reports[0].report.degraded, true);
  session.close();
});
