// Node tests of discovery's hardening through the js module: hostile tool
// descriptors refused one by one while the rest of the catalog survives (a
// 12,000-deep inputSchema among them), a silent MCP endpoint that makes
// discovery degraded (the report names the request that hung, later turns do
// not wait, a background retry brings the catalog back), and a degraded
// session left open that does not keep the Node process alive.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRuntime, textStream, runChild } from '../testing/helpers.mjs';

const runtime = await loadRuntime();
const dec = new TextDecoder();

/**
 * A proxy whose MCP endpoint speaks the session era. `answer(method, msg)`
 * gives the JSON-RPC result as text, `null` to hang until aborted, or
 * undefined for the defaults (server/discover unknown, initialize answered).
 * Chat requests are recorded and answered with `chat`.
 */
function mcpProxy(answer, chat = textStream('ok')) {
  const mcp = [];
  const chats = [];
  const fetchImpl = async (url, init) => {
    if (url.endsWith('/mcp')) {
      if (init.method !== 'POST') return new Response(null, { status: 405 });
      const msg = JSON.parse(dec.decode(init.body));
      mcp.push(msg.method);
      const result = answer(msg.method, msg);
      if (result === null) {
        return new Promise((_, reject) => init.signal.addEventListener('abort', () => reject(init.signal.reason)));
      }
      if (result !== undefined) {
        return new Response(`{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"result":${result}}`, { headers: { 'content-type': 'application/json' } });
      }
      switch (msg.method) {
        case 'server/discover': return new Response('no such method', { status: 404 });
        case 'initialize':
          return new Response(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 't', version: '1' } } }),
            { headers: { 'content-type': 'application/json', 'mcp-session-id': 's-1' } });
        default: return new Response(null, { status: 202 });
      }
    }
    if (url.endsWith('/capabilities')) return new Response('', { status: 404 });
    chats.push(JSON.parse(dec.decode(init.body)));
    return new Response(chat, { headers: { 'content-type': 'text/event-stream' } });
  };
  return { fetchImpl, mcp, chats };
}

const meta = '"_meta":{"honua.studio":{"family":"honua.studio.composition"}}';
const good = (name) => `{"name":${JSON.stringify(name)},"inputSchema":{"type":"object"},${meta}}`;

test('hostile descriptors are refused one by one, named with their reason, and the rest of the catalog survives', async () => {
  const deep = '{"type":"object","properties":{"x":' + '['.repeat(12_000) + ']'.repeat(12_000) + '}}';
  const tools = [
    good('honua_studio_first'),
    `{"name":"a\\u0000b",${meta}}`,
    `{"name":"line\\nbreak",${meta}}`,
    `{"name":"\\u001b[31mred",${meta}}`,
    `{"name":"\\u202eevil",${meta}}`,
    `{"name":" ",${meta}}`,
    `{"name":"schema_string","inputSchema":"string",${meta}}`,
    `{"name":"schema_number","inputSchema":42,${meta}}`,
    `{"name":"schema_array","inputSchema":[1,2],${meta}}`,
    `{"name":"schema_true","inputSchema":true,${meta}}`,
    `{"name":"deep","inputSchema":${deep},${meta}}`,
    `{"name":"no_schema",${meta}}`,
    good('honua_studio_last'),
  ];
  const proxy = mcpProxy((method) => (method === 'tools/list' ? `{"tools":[${tools.join(',')}]}` : undefined));
  const session = runtime.createSession({ fetchImpl: proxy.fetchImpl });
  const turn = await session.chat('hi');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  const report = session.toolDiscovery();
  assert.equal(report.errorMessage, undefined);
  assert.equal(report.degraded, undefined);
  assert.equal(report.discovered, 13);
  assert.deepEqual(report.routed, ['honua_studio_first', 'no_schema', 'honua_studio_last']);
  assert.deepEqual(report.rejected.map((r) => [r.name, r.reason]), [
    ['a\u0000b', 'name'], ['line\nbreak', 'name'], ['\u001b[31mred', 'name'], ['\u202eevil', 'name'], [' ', 'name'],
    ['schema_string', 'schema'], ['schema_number', 'schema'], ['schema_array', 'schema'], ['schema_true', 'schema'], ['deep', 'schema'],
  ]);
  const sent = proxy.chats[0].tools;
  assert.deepEqual(sent.map((t) => t.name), ['honua_studio_first', 'no_schema', 'honua_studio_last']);
  assert.deepEqual(sent[1].inputSchema, { type: 'object' }, 'an absent inputSchema is sent as an empty object schema');
  session.close();
});

test('a page mcpClient gets the same hygiene: bad names and schemas are refused by themselves', async () => {
  const studio = { 'honua.studio': { family: 'honua.studio.composition' } };
  const mcpClient = {
    listTools: () => [
      { name: 'good_one', inputSchema: { type: 'object' }, _meta: studio },
      { name: 'bad name', _meta: studio },
      { name: 'bad_schema', inputSchema: 'string', _meta: studio },
    ],
    callTool: () => ({ content: [] }),
  };
  const proxy = mcpProxy(() => undefined);
  const session = runtime.createSession({ fetchImpl: proxy.fetchImpl, mcpClient });
  const report = await session.refreshTools();
  assert.deepEqual(report.routed, ['good_one']);
  assert.deepEqual(report.rejected.map((r) => [r.name, r.reason]), [['bad name', 'name'], ['bad_schema', 'schema']]);
  session.close();
});

test('a silent MCP endpoint: the report names the request that hung, later turns do not wait, a background retry brings the tools', { timeout: 30_000 }, async () => {
  let silent = true;
  const proxy = mcpProxy((method) => {
    if (silent && method === 'initialize') return null;
    if (method === 'tools/list') return `{"tools":[${good('honua_studio_late')}]}`;
    return undefined;
  });
  const reports = [];
  const session = runtime.createSession({
    fetchImpl: proxy.fetchImpl, toolDiscoveryTimeoutMs: 100,
    onEvent: (e) => { if (e.type === 'toolDiscovery') reports.push(e.report); },
  });
  const first = await session.chat('one');
  assert.equal(first.status, 'completed', first.errorMessage);
  assert.equal(session.toolDiscovery().degraded, true);
  assert.equal(session.toolDiscovery().errorMessage, 'initialize did not respond within 100ms.');
  assert.deepEqual(proxy.chats[0].tools ?? [], []);

  // Turn 2 starts no pass of its own: the retry waits on its backoff (1 s).
  const asked = proxy.mcp.length;
  const second = await session.chat('two');
  assert.equal(second.status, 'completed', second.errorMessage);
  assert.equal(proxy.mcp.length, asked, 'turn 2 sent the MCP endpoint nothing');

  // The endpoint wakes; the background retry finds the tool without a turn.
  silent = false;
  const healed = await new Promise((resolve) => {
    const poll = setInterval(() => {
      const r = reports.at(-1);
      if (r && !r.degraded && r.routed.length) { clearInterval(poll); resolve(r); }
    }, 20);
  });
  assert.deepEqual(healed.routed, ['honua_studio_late']);
  assert.equal(healed.errorMessage, undefined);
  const third = await session.chat('three');
  assert.equal(third.status, 'completed', third.errorMessage);
  assert.deepEqual(proxy.chats.at(-1).tools.map((t) => t.name), ['honua_studio_late']);
  session.close();
});

test('a degraded session left open does not keep the Node process alive', { timeout: 60_000 }, async () => {
  // Its background retry waits on an unref'd timer: without that, the
  // process would retry (1 s, 2 s, 4 s …) forever.
  const { out, code } = await runChild(`
    const runtime = await loadRuntime();
    const chat = scriptedFetch({ body: textStream('done') }).fetchImpl;
    const fetchImpl = (url, init) => url.endsWith('/mcp') ? new Response('down', { status: 503 }) : chat(url, init);
    const session = runtime.createSession({ fetchImpl });
    const turn = await session.chat('hi');
    console.log(turn.status, session.toolDiscovery().degraded);
  `);
  assert.equal(out, 'completed true');
  assert.equal(code, 0, 'the process exited by itself');
});
