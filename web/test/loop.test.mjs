// The chat loop through the js module: runtime tools, kits, transports,
// system prompts, auth and round limits, with plain JS callbacks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRuntime, studioProxy, textStream, toolCallStream, frame } from '../testing/helpers.mjs';

const runtime = await loadRuntime();
const setFilter = { name: 'setFilter', description: 'Filter the map', inputSchema: { type: 'object', properties: { field: { type: 'string' } } } };

test('a runtime tool runs over two rounds and its result reaches the second request', async () => {
  const proxy = studioProxy({ chat: [{ body: toolCallStream({ id: 'c1', name: 'setFilter', args: { field: 'age' } }) }, { body: textStream('Filtered.') }] });
  const calls = [];
  const events = [];
  const session = runtime.createSession({
    fetchImpl: proxy.fetchImpl,
    tools: [setFilter],
    execute: async (call, { signal }) => {
      calls.push({ ...call, hasSignal: signal instanceof AbortSignal });
      return { status: 'ok', data: { applied: call.args.field } };
    },
    onEvent: (e) => events.push(e),
  });
  const turn = await session.chat('filter by age');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.equal(turn.text, 'Filtered.');
  assert.equal(turn.rounds, 2);
  assert.deepEqual(calls, [{ name: 'setFilter', args: { field: 'age' }, toolCallId: 'c1', hasSignal: true }]);
  assert.deepEqual(turn.toolCalls, [{ toolCallId: 'c1', toolName: 'setFilter', plane: 'runtime', ok: true, content: '{"status":"ok","data":{"applied":"age"}}' }]);
  assert.deepEqual(events.filter((e) => e.type === 'toolResult').map((e) => e.result), turn.toolCalls);

  const [first, second] = proxy.chatRequests();
  assert.deepEqual(first.body.tools, [setFilter]);
  assert.deepEqual(second.body.messages, [
    { role: 'user', content: 'filter by age' },
    { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'setFilter', arguments: { field: 'age' } }] },
    { role: 'tool', content: '{"status":"ok","data":{"applied":"age"}}', toolCallId: 'c1', toolName: 'setFilter' },
  ]);
  assert.deepEqual(session.messages().map((m) => m.role), ['user', 'assistant', 'tool', 'assistant']);
});

test('a kit supplies tools, runs them with itself as receiver, and its systemPrompt is read once per turn', async () => {
  const proxy = studioProxy({ chat: [{ body: toolCallStream({ id: 'a', name: 'zoom', args: { level: 3 } }, { id: 'b', name: 'pan' }) }, { body: textStream('done') }] });
  const order = [];
  let prompts = 0;
  const kit = {
    tools: [{ name: 'zoom', parameters: { type: 'object' } }, { name: 'pan' }],
    zoomLevel: 0,
    execute(call) {
      order.push(call.name);
      if (call.name === 'zoom') this.zoomLevel = call.args.level;
      return { status: call.name === 'pan' ? 'dry-run' : 'ok' };
    },
    systemPrompt: async () => `zoom is ${kit.zoomLevel} (read ${++prompts})`,
  };
  const session = runtime.createSession({ fetchImpl: proxy.fetchImpl, kit, tools: [{ name: 'zoom', description: 'shadowed' }] });
  const turn = await session.chat('zoom in and pan');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.deepEqual(order, ['zoom', 'pan']);
  assert.equal(kit.zoomLevel, 3);
  assert.deepEqual(turn.toolCalls.map((r) => r.ok), [true, true], 'dry-run counts as success');
  assert.equal(prompts, 1);
  const requests = proxy.chatRequests();
  assert.equal(requests[0].body.system, 'zoom is 0 (read 1)');
  assert.equal(requests[1].body.system, 'zoom is 0 (read 1)', 'the same prompt for every round of a turn');
  assert.deepEqual(requests[0].body.tools, [{ name: 'zoom', inputSchema: { type: 'object' } }, { name: 'pan' }]);
  assert.deepEqual(session.tools().map((t) => t.name), ['zoom', 'pan']);
});

test('maxToolRounds: 2 against a model that always calls tools', async () => {
  const proxy = studioProxy({ chat: [{ body: toolCallStream({ id: 'x', name: 'setFilter' }) }] });
  let runs = 0;
  const session = runtime.createSession({ fetchImpl: proxy.fetchImpl, tools: [setFilter], maxToolRounds: 2, execute: () => ({ status: 'ok', data: ++runs }) });
  const turn = await session.chat('loop forever');
  assert.equal(turn.status, 'completed');
  assert.equal(turn.rounds, 2);
  assert.equal(runs, 2);
  assert.equal(turn.toolCalls.length, 2);
  assert.equal(proxy.chatRequests().length, 2);
});

test('a system function is awaited once per turn', async () => {
  const proxy = studioProxy({ chat: [{ body: toolCallStream({ id: 'x', name: 'setFilter' }) }, { body: textStream('a') }, { body: toolCallStream({ id: 'y', name: 'setFilter' }) }, { body: textStream('b') }] });
  let n = 0;
  const session = runtime.createSession({
    fetchImpl: proxy.fetchImpl, tools: [setFilter], execute: () => ({ status: 'ok' }),
    system: async () => { await new Promise((r) => setTimeout(r, 5)); return `turn ${++n}`; },
  });
  await session.chat('one');
  await session.chat('two');
  assert.equal(n, 2);
  assert.deepEqual(proxy.chatRequests().map((r) => r.body.system), ['turn 1', 'turn 1', 'turn 2', 'turn 2']);
});

test('a failing system function ends the turn before any request', async () => {
  const proxy = studioProxy({ chat: [{ body: textStream('x') }] });
  const turn = await runtime.createSession({ fetchImpl: proxy.fetchImpl, system: () => { throw new Error('no map yet'); } }).chat('hi');
  assert.equal(turn.status, 'error');
  assert.match(turn.errorMessage, /^Could not build the system prompt: .*no map yet/);
  assert.equal(proxy.chatRequests().length, 0);
});

test('results that fail, executors that throw, unknown tools and tools without an executor', async () => {
  const proxy = studioProxy({
    chat: [{ body: toolCallStream({ id: '1', name: 'deny' }, { id: '2', name: 'boom' }, { id: '3', name: 'nowhere' }, { id: '4', name: 'broken' }) }, { body: textStream('ok') }],
  });
  const session = runtime.createSession({
    fetchImpl: proxy.fetchImpl,
    tools: [{ name: 'deny' }, { name: 'boom' }, { name: 'broken' }],
    execute: async ({ name }) => {
      if (name === 'deny') return { status: 'denied', deniedReason: 'the person said no' };
      if (name === 'boom') throw new Error('map not ready');
      return undefined;
    },
  });
  const turn = await session.chat('go');
  assert.equal(turn.status, 'completed');
  const [deny, boom, nowhere, broken] = turn.toolCalls;
  assert.deepEqual([deny.ok, deny.errorCode, deny.errorMessage, deny.content], [false, 'denied', 'the person said no', '{"status":"denied","deniedReason":"the person said no"}']);
  assert.equal(boom.errorCode, 'execution_failed');
  assert.match(boom.errorMessage, /map not ready/);
  assert.deepEqual(JSON.parse(boom.content).status, 'error');
  assert.deepEqual([nowhere.plane, nowhere.errorCode, nowhere.errorMessage], ['unknown', 'unknown_tool', 'No tool named nowhere is available to this session.']);
  // Nothing returned is a success without data (any value is accepted; agent_api.test.mjs).
  assert.deepEqual([broken.ok, broken.content], [true, '{"status":"ok"}']);

  const noExec = runtime.createSession({ fetchImpl: studioProxy({ chat: [{ body: toolCallStream({ id: '1', name: 'setFilter' }) }, { body: textStream('') }] }).fetchImpl, tools: [setFilter] });
  const t2 = await noExec.chat('go');
  assert.equal(t2.toolCalls[0].errorCode, 'no_executor');
  assert.match(t2.toolCalls[0].errorMessage, /supply a kit or an execute function/);
});

test('an executor that never settles is cut off by the abort signal', async () => {
  const proxy = studioProxy({ chat: [{ body: toolCallStream({ id: '1', name: 'setFilter' }, { id: '2', name: 'setFilter' }) }] });
  const controller = new AbortController();
  let sawAbort = false;
  const session = runtime.createSession({
    fetchImpl: proxy.fetchImpl, tools: [setFilter],
    execute: (call, { signal }) => new Promise(() => {
      signal.addEventListener('abort', () => { sawAbort = true; });
      setTimeout(() => controller.abort(), 20);
    }),
  });
  const turn = await session.chat('hang', { signal: controller.signal });
  assert.equal(turn.status, 'cancelled');
  assert.equal(turn.toolCalls[0].errorCode, 'cancelled');
  assert.equal(sawAbort, true, 'the executor saw its signal abort');
  const tools = session.messages().filter((m) => m.role === 'tool');
  assert.deepEqual(tools.map((m) => m.toolCallId), ['1', '2'], 'every call in history has its answer');
});

test('the bearer token comes from auth, is refreshed once after a 401, and never leaks', async () => {
  const tokens = [];
  const proxy = studioProxy({
    chat: (req, n) => (n === 0 ? { status: 401, body: 'expired' } : { body: frame('error', { errorMessage: `bad header ${req.headers.authorization}` }) }),
  });
  const auth = { getAccessToken: async ({ forceRefresh }) => { tokens.push(forceRefresh); return forceRefresh ? 'fresh-secret-token' : 'stale-secret-token'; } };
  const events = [];
  // Discovery off: the token asks counted here are the chat requests' only.
  const turn = await runtime.createSession({ fetchImpl: proxy.fetchImpl, auth, disableToolDiscovery: true, onEvent: (e) => events.push(e) }).chat('hi');
  assert.deepEqual(tokens, [false, true]);
  assert.deepEqual(proxy.chatRequests().map((r) => r.headers.authorization), ['Bearer stale-secret-token', 'Bearer fresh-secret-token']);
  assert.equal(turn.status, 'error');
  assert.equal(turn.errorMessage, 'bad header Bearer [redacted]');
  assert.doesNotMatch(JSON.stringify({ turn, events }), /secret-token/);

  const bare = studioProxy({ chat: [{ body: textStream('ok') }] });
  await runtime.createSession({ fetchImpl: bare.fetchImpl, auth: () => null }).chat('hi');
  assert.equal(bare.chatRequests()[0].headers.authorization, undefined, 'no token, no header');
});

test('a proxy that refuses tools sends no chat request and keeps history clean', async () => {
  for (const [capabilities, message] of [
    [{ enabled: false }, /not enabled/],
    [{ enabled: true, defaultProvider: 'p1', providers: [{ name: 'p1', toolSupport: false, defaultModel: 'm-small' }] }, /Provider p1 with model m-small does not support tool calls/],
  ]) {
    const proxy = studioProxy({ chat: [{ body: textStream('x') }], capabilities });
    const session = runtime.createSession({ fetchImpl: proxy.fetchImpl, tools: [setFilter], execute: () => ({ status: 'ok' }) });
    const turn = await session.chat('hi');
    assert.equal(turn.status, 'refused');
    assert.match(turn.errorMessage, message);
    assert.equal(proxy.chatRequests().length, 0);
    assert.deepEqual(session.messages(), []);
  }
  // Unreachable capabilities are not a refusal.
  const down = studioProxy({ chat: [{ body: textStream('went on') }], capabilities: 503 });
  const turn = await runtime.createSession({ fetchImpl: down.fetchImpl, tools: [setFilter] }).chat('hi');
  assert.equal(turn.text, 'went on');
});

test('a scripted transport drives a multi-round session with no network', async () => {
  const requests = [];
  const transport = {
    async *stream(request, { signal }) {
      requests.push({ request, hasSignal: signal instanceof AbortSignal });
      if (requests.length === 1) {
        yield { type: 'toolCallStart', toolCallId: 't1', toolName: 'setFilter' };
        yield { type: 'toolCallDelta', toolArgumentsDelta: '{"field":' };
        yield { type: 'toolCallDelta', toolArgumentsDelta: '"name"}' };
        yield { type: 'toolCallStop' };
        yield { type: 'messageStop', stopReason: 'toolCall' };
      } else {
        yield { type: 'textDelta', text: 'sorted by name' };
        yield { type: 'messageStop', stopReason: 'endTurn' };
      }
    },
  };
  const fetched = [];
  const fetchImpl = (url) => { fetched.push(url); return Promise.reject(new Error('offline')); };
  const seen = [];
  const session = runtime.createSession({ transport, fetchImpl, tools: [setFilter], execute: (call) => { seen.push(call.args); return { status: 'ok' }; } });
  const turn = await session.chat('sort');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.equal(turn.text, 'sorted by name');
  assert.deepEqual(seen, [{ field: 'name' }]);
  assert.equal(requests.length, 2);
  assert.equal(requests[0].hasSignal, true);
  assert.deepEqual(requests[1].request.messages.at(-1), { role: 'tool', content: '{"status":"ok"}', toolCallId: 't1', toolName: 'setFilter' });
  assert.deepEqual(fetched.filter((url) => !url.endsWith('/mcp')), ['/api/v1/studio/ai/capabilities'],
    'only the capabilities read (and the default MCP client\'s discovery) touched fetch');
});

test('a per-chat toolChoice overrides the session option', async () => {
  const proxy = studioProxy({ chat: [{ body: textStream('x') }] });
  const session = runtime.createSession({ fetchImpl: proxy.fetchImpl, toolChoice: { mode: 'auto' } });
  await session.chat('a');
  await session.chat('b', { toolChoice: { mode: 'none' } });
  assert.deepEqual(proxy.chatRequests().map((r) => r.body.toolChoice), [{ mode: 'auto' }, { mode: 'none' }]);
});

test('reset clears history', async () => {
  const proxy = studioProxy({ chat: [{ body: textStream('x') }] });
  const session = runtime.createSession({ fetchImpl: proxy.fetchImpl });
  await session.chat('a');
  assert.equal(session.messages().length, 2);
  session.reset();
  assert.deepEqual(session.messages(), []);
  await session.chat('b');
  assert.deepEqual(proxy.chatRequests()[1].body.messages, [{ role: 'user', content: 'b' }]);
});

test('draft binding and discovery state are reachable from JavaScript', async () => {
  const session = runtime.createSession({ fetchImpl: studioProxy({ chat: [{ body: textStream('x') }] }).fetchImpl, draft: { draftId: 'd1', generation: 2 } });
  assert.deepEqual(session.draft(), { draftId: 'd1', generation: 2 });
  session.attachDraft({ draftId: 'd7', generation: 9 });
  assert.deepEqual(session.draft(), { draftId: 'd7', generation: 9 });
  session.attachDraft(null);
  assert.equal(session.draft(), null);
  assert.throws(() => session.attachDraft({ draftId: 'x' }), { code: 'bad_argument' });
  const report = session.toolDiscovery();
  assert.deepEqual(report, { discovered: 0, pages: 0, routed: [], classification: { families: {}, views: {}, revisions: {} }, rejected: [], missingRequired: [], diagnostics: [] });
  await session.reconnect();
  assert.deepEqual(session.tools(), []);
});

test('a page MCP client: discovery under policy, composition calls with the draft bound, one conflict retry', async () => {
  const calls = [];
  let generation = 4;
  const mcpClient = {
    listTools: async () => [
      { name: 'honua_studio_add_layer', description: 'Add a layer', inputSchema: { type: 'object' }, _meta: { 'honua.studio': { family: 'honua.studio.composition', view: 'setup' } } },
      { name: 'admin_reset', _meta: { 'honua.studio': { family: 'honua.studio.admin' } } },
      { name: 'setFilter', _meta: { 'honua.studio': { family: 'honua.studio.composition' } } },
    ],
    callTool: async (name, args) => {
      calls.push({ name, args });
      if (name === 'honua_studio_get_draft') return { content: [{ type: 'text', text: JSON.stringify({ draft: { draftId: 'd1', generation: 7 } }) }] };
      if (args.generation !== 7) return { isError: true, structuredContent: { code: 'failed_precondition', message: 'stale' } };
      generation = 8;
      return { structuredContent: { draftId: 'd1', generation } };
    },
  };
  const proxy = studioProxy({ chat: [{ body: toolCallStream({ id: 'c1', name: 'honua_studio_add_layer', args: { layer: 'roads', generation: 1 } }, { id: 'c2', name: 'admin_reset' }) }, { body: textStream('added') }] });
  const events = [];
  const approved = [];
  const session = runtime.createSession({
    fetchImpl: proxy.fetchImpl, mcpClient, draft: { draftId: 'd1', generation: 4 },
    tools: [setFilter], execute: () => ({ status: 'ok' }),
    studioTools: { approve: (entry) => { approved.push(entry.name); return true; } },
    onEvent: (e) => events.push(e),
  });
  const turn = await session.chat('add roads');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  const [add, admin] = turn.toolCalls;
  assert.deepEqual([add.plane, add.ok, add.retriedAfterConflict, add.draft], ['composition', true, true, { draftId: 'd1', generation: 8 }]);
  assert.equal(add.content, '{"status":"ok","draft":{"draftId":"d1","generation":8}}');
  assert.deepEqual([admin.plane, admin.errorCode], ['composition', 'not_routable']);
  assert.deepEqual(calls, [
    { name: 'honua_studio_add_layer', args: { layer: 'roads', generation: 4, draftId: 'd1' } },
    { name: 'honua_studio_get_draft', args: { draftId: 'd1' } },
    { name: 'honua_studio_add_layer', args: { layer: 'roads', generation: 7, draftId: 'd1' } },
  ]);
  assert.deepEqual(session.draft(), { draftId: 'd1', generation: 8 });
  assert.deepEqual(approved, ['honua_studio_add_layer', 'setFilter']);
  const report = session.toolDiscovery();
  assert.deepEqual(report.routed, ['honua_studio_add_layer', 'setFilter']);
  assert.deepEqual(report.rejected.map((r) => [r.name, r.reason]), [['admin_reset', 'family']]);
  assert.deepEqual(events.filter((e) => e.type === 'toolDiscovery').map((e) => e.report), [report]);
  assert.deepEqual(proxy.chatRequests()[0].body.tools.map((t) => t.name), ['setFilter', 'honua_studio_add_layer'], 'the runtime setFilter shadows the server one');

  // refreshTools runs a new pass and gives its report.
  const listTools = mcpClient.listTools;
  mcpClient.listTools = async () => [...(await listTools()), { name: 'honua_studio_set_view', _meta: { 'honua.studio': { family: 'honua.studio.composition' } } }];
  const refreshed = await session.refreshTools();
  assert.deepEqual(refreshed.routed, ['honua_studio_add_layer', 'setFilter', 'honua_studio_set_view']);
  assert.deepEqual(session.toolDiscovery(), refreshed);

  // reconnect closes the page's MCP client (it may await I/O) and drops the catalog.
  let closed = 0;
  mcpClient.close = async () => { await new Promise((r) => setTimeout(r, 5)); closed++; };
  await session.reconnect();
  assert.equal(closed, 1);
  assert.deepEqual(session.tools().map((t) => t.name), ['setFilter']);
});
