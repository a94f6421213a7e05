// Node tests of the spans the loader makes when a session or a port is given
// a tracer (web/agentwasm-trace.mjs), against the OpenTelemetry JS SDK's
// in-memory exporter: the pinned tree of a turn with a page tool, an MCP tool
// whose call meets a conflict and is retried, and an approval answered by a
// resume; the trace context on the wire (headers, params._meta, a 20-digit
// integer argument kept as it was); a trace that goes on in a JS port's MCP
// server; content only on request and never a key; a tracer that throws;
// asks abandoned by close(); and the helpers alone (the propagation
// decision, the _meta edit, the parent contexts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BasicTracerProvider, SimpleSpanProcessor, InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { trace } from '@opentelemetry/api';
import { loadRuntime, frame, textStream, toolCallStream, scriptedRounds } from '../testing/helpers.mjs';
import {
  sendsHeaders, withTraceMeta, remoteSpan, contextWith, traceparentOf, TraceContext, ROOT_CONTEXT, mcpFailure, serverOf, SpanKind, tapSession,
} from '../agentwasm-trace.mjs';

const runtime = await loadRuntime();
const dec = new TextDecoder();

/** A tracer of the real SDK whose finished spans an in-memory exporter keeps. */
function sdkTracer() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { tracer: provider.getTracer('agentwasm-test'), exporter };
}

/**
 * The finished spans as plain records, in the order they ended: name, kind,
 * the parent's name ('-' for a root), attributes (the time to first chunk
 * checked and left out), events, status code and links.
 */
function records(exporter) {
  const spans = exporter.getFinishedSpans();
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  return spans.map((s) => {
    const attributes = { ...s.attributes };
    if ('gen_ai.response.time_to_first_chunk' in attributes) {
      const t = attributes['gen_ai.response.time_to_first_chunk'];
      assert.ok(typeof t === 'number' && t >= 0 && t < 60, `time to first chunk in seconds: ${t}`);
      delete attributes['gen_ai.response.time_to_first_chunk'];
    }
    const parentId = s.parentSpanContext?.spanId;
    return {
      name: s.name,
      kind: s.kind,
      parent: parentId ? byId.get(parentId)?.name ?? `remote ${parentId}` : '-',
      attributes,
      events: s.events.map((e) => (Object.keys(e.attributes ?? {}).length ? [e.name, e.attributes] : [e.name])),
      status: s.status.code,
      links: s.links.length,
    };
  });
}

/** The shop of the approval: paying needs a person. */
const shop = {
  id: 'shop',
  pages: [{ id: 'checkout' }, { id: 'done' }],
  actions: [{ id: 'checkout.pay', does: 'Pay for the order', on: 'checkout', goTo: 'done', confirm: true, writes: ['order.id'], input: 'none' }],
};

const composition = { 'honua.studio': { family: 'honua.studio.composition' } };

/**
 * A Studio proxy as a fetch function: chat requests take the next of chat (a
 * function of the ask id the turn stopped on, or SSE text); its MCP endpoint
 * lists two composition tools and answers honua_studio_add_layer
 * failed_precondition until the draft is reloaded (generation 7). Every
 * request is recorded with its headers and body text.
 */
function studio(chat) {
  const requests = [];
  let chats = 0;
  const state = { askId: undefined };
  const fetchImpl = async (url, init) => {
    const body = init.body ? dec.decode(init.body) : '';
    requests.push({ url, method: init.method, headers: { ...init.headers }, body });
    if (url.endsWith('/mcp')) {
      if (init.method !== 'POST') return new Response(null, { status: 405 });
      const msg = JSON.parse(body);
      const reply = (result, headers = {}) => new Response(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }),
        { headers: { 'content-type': 'application/json', ...headers } });
      switch (msg.method) {
        case 'server/discover': return new Response('no such method', { status: 404 });
        case 'initialize':
          return reply({ protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'studio', version: '1' } }, { 'mcp-session-id': 'mcp-7' });
        case 'tools/list':
          return reply({ tools: ['honua_studio_add_layer', 'honua_studio_get_draft'].map((name) => ({ name, inputSchema: { type: 'object' }, _meta: composition })) });
        case 'tools/call': {
          const { name, arguments: args } = msg.params;
          if (name === 'honua_studio_get_draft') return reply({ content: [{ type: 'text', text: JSON.stringify({ draft: { draftId: 'd1', generation: 7 } }) }] });
          if (args.generation !== 7) return reply({ isError: true, content: [], structuredContent: { code: 'failed_precondition', message: 'stale draft' } });
          return reply({ content: [], structuredContent: { draftId: 'd1', generation: 8 } });
        }
        default: return new Response(null, { status: 202 });
      }
    }
    if (url.endsWith('/capabilities')) return new Response('', { status: 404 });
    const next = chat[Math.min(chats++, chat.length - 1)];
    const text = typeof next === 'function' ? next(state.askId) : next;
    return new Response(text, { headers: { 'content-type': 'text/event-stream' } });
  };
  return { fetchImpl, requests, state };
}

/** The session of the pinned turn: a page tool, a composition tool with a conflict, and an ask. */
function pinnedSession(tracer, extra = {}) {
  const port = runtime.createPort(shop, { handlers: { 'checkout.pay': () => ({ orderId: 'o-1' }) }, requireHumanApproval: true, page: 'checkout' });
  const proxy = studio([
    toolCallStream(
      { id: 'c1', name: 'note', args: { text: 'remember' } },
      { id: 'c2', name: 'honua_studio_add_layer', args: { layer: 'roads', big: '__BIG__' } },
      { id: 'c3', name: 'shop.do_action', args: { action: 'checkout.pay' } },
    ).replace('"__BIG__"', '12345678901234567890'),
    (askId) => toolCallStream({ id: 'c4', name: 'shop.do_action', args: { action: 'checkout.pay', confirm: true, askId } }),
    textStream('Paid.'),
  ]);
  const session = runtime.createSession({
    tracer, model: 'm1', fetchImpl: proxy.fetchImpl, kit: port, draft: { draftId: 'd1', generation: 4 },
    tools: [{ name: 'note', execute: () => 'noted' }], ...extra,
  });
  return { session, port, proxy };
}

/** Waits for the MCP client spans that end when their answers' bodies have been read. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

test('the span tree of a turn with a page tool, an MCP tool retried after a conflict, and an approval answered by a resume', async () => {
  const { tracer, exporter } = sdkTracer();
  const { session, port, proxy } = pinnedSession(tracer);
  const first = await session.chat('Pay for my order');
  assert.equal(first.status, 'completed', first.errorMessage);
  const [ask] = first.pendingApprovals;
  proxy.state.askId = ask.askId;
  const second = await session.resume({ approve: [ask.askId] });
  assert.equal(second.status, 'completed', second.errorMessage);
  assert.equal(second.text, 'Paid.');
  await settle();

  const provider = { 'gen_ai.provider.name': 'agentwasm.studio_proxy', 'gen_ai.request.model': 'm1' };
  const chat = (round, reason, usage = {}) => ({
    'gen_ai.operation.name': 'chat', ...provider, 'gen_ai.request.stream': true, 'agentwasm.round': round,
    'gen_ai.response.model': 'fake-model', 'gen_ai.response.finish_reasons': [reason], ...usage,
  });
  const mcp = (method, id, more = {}) => ({
    'mcp.method.name': method, ...(id ? { 'jsonrpc.request.id': id } : {}), ...more, 'network.protocol.name': 'http',
  });
  const session7 = { 'mcp.session.id': 'mcp-7', 'mcp.protocol.version': '2025-06-18' };
  const call = (tool, id, more = {}) => ({
    'mcp.method.name': 'tools/call', 'gen_ai.tool.name': tool, 'gen_ai.operation.name': 'execute_tool', 'jsonrpc.request.id': id, ...session7,
    'network.protocol.name': 'http', ...more,
  });
  const tool = (name, id, plane, more = {}) => ({
    'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, 'gen_ai.tool.call.id': id,
    'gen_ai.tool.type': plane === 'runtime' ? 'function' : 'extension', 'agentwasm.tool.plane': plane, 'agentwasm.tool.outcome': 'ok', ...more,
  });
  const askAttributes = {
    'agentwasm.approval.ask_id': ask.askId, 'agentwasm.approval.action': 'checkout.pay', 'gen_ai.tool.name': 'shop.do_action', 'gen_ai.tool.call.id': 'c3',
  };
  const { INTERNAL, CLIENT } = SpanKind;
  const expected = [
    { name: 'server/discover', kind: CLIENT, parent: 'discover_tools', attributes: { ...mcp('server/discover', '1', { 'mcp.protocol.version': '2026-07-28' }), 'error.type': '404' }, events: [], status: 2, links: 0 },
    { name: 'initialize', kind: CLIENT, parent: 'discover_tools', attributes: { ...mcp('initialize', '2'), 'mcp.session.id': 'mcp-7' }, events: [], status: 0, links: 0 },
    { name: 'notifications/initialized', kind: CLIENT, parent: 'discover_tools', attributes: mcp('notifications/initialized', '', session7), events: [], status: 0, links: 0 },
    { name: 'tools/list', kind: CLIENT, parent: 'discover_tools', attributes: mcp('tools/list', '3', session7), events: [], status: 0, links: 0 },
    {
      name: 'discover_tools', kind: INTERNAL, parent: 'invoke_agent', events: [], status: 0, links: 0,
      attributes: { 'agentwasm.discovery.discovered': 2, 'agentwasm.discovery.routed': 2, 'agentwasm.discovery.pages': 1 },
    },
    { name: 'chat m1', kind: CLIENT, parent: 'invoke_agent', attributes: chat(1, 'tool_calls'), events: [], status: 0, links: 0 },
    { name: 'execute_tool note', kind: INTERNAL, parent: 'invoke_agent', attributes: tool('note', 'c1', 'runtime'), events: [], status: 0, links: 0 },
    { name: 'tools/call honua_studio_add_layer', kind: CLIENT, parent: 'execute_tool honua_studio_add_layer', attributes: call('honua_studio_add_layer', '4', { 'error.type': 'tool_error' }), events: [], status: 2, links: 0 },
    { name: 'tools/call honua_studio_get_draft', kind: CLIENT, parent: 'execute_tool honua_studio_add_layer', attributes: call('honua_studio_get_draft', '5'), events: [], status: 0, links: 0 },
    { name: 'tools/call honua_studio_add_layer', kind: CLIENT, parent: 'execute_tool honua_studio_add_layer', attributes: call('honua_studio_add_layer', '6'), events: [], status: 0, links: 0 },
    {
      name: 'execute_tool honua_studio_add_layer', kind: INTERNAL, parent: 'invoke_agent', status: 0, links: 0,
      attributes: tool('honua_studio_add_layer', 'c2', 'composition', { 'agentwasm.tool.retried_after_conflict': true }),
      events: [['agentwasm.tool.conflict_retry']],
    },
    {
      name: 'execute_tool shop.do_action', kind: INTERNAL, parent: 'invoke_agent', events: [], status: 0, links: 0,
      attributes: tool('shop.do_action', 'c3', 'runtime', { 'agentwasm.approval.ask_id': ask.askId }),
    },
    {
      name: 'invoke_agent', kind: INTERNAL, parent: '-', status: 0, links: 0,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent', ...provider, 'agentwasm.turn.kind': 'send', 'agentwasm.turn.status': 'completed', 'agentwasm.turn.rounds': 1,
      },
      events: [['agentwasm.approval.requested', askAttributes]],
    },
    {
      name: 'await_approval checkout.pay', kind: INTERNAL, parent: 'invoke_agent', events: [], status: 0, links: 0,
      attributes: { ...askAttributes, 'agentwasm.approval.outcome': 'approved' },
    },
    { name: 'chat m1', kind: CLIENT, parent: 'invoke_agent', attributes: chat(1, 'tool_calls'), events: [], status: 0, links: 0 },
    { name: 'execute_tool shop.do_action', kind: INTERNAL, parent: 'invoke_agent', attributes: tool('shop.do_action', 'c4', 'runtime'), events: [], status: 0, links: 0 },
    {
      name: 'chat m1', kind: CLIENT, parent: 'invoke_agent', events: [], status: 0, links: 0,
      attributes: chat(2, 'stop', { 'gen_ai.usage.input_tokens': 3, 'gen_ai.usage.output_tokens': 2 }),
    },
    {
      name: 'invoke_agent', kind: INTERNAL, parent: 'await_approval checkout.pay', status: 0, links: 0,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent', ...provider, 'agentwasm.turn.kind': 'resume', 'agentwasm.turn.status': 'completed', 'agentwasm.turn.rounds': 2,
        'gen_ai.usage.input_tokens': 3, 'gen_ai.usage.output_tokens': 2,
      },
      events: [['agentwasm.approval.answered', { 'agentwasm.approval.ask_id': ask.askId, 'agentwasm.approval.approved': true }]],
    },
  ];
  assert.deepEqual(records(exporter), expected);

  // One trace: the resume's spans are in the send's, through the ask's span.
  const spans = exporter.getFinishedSpans();
  assert.deepEqual([...new Set(spans.map((s) => s.spanContext().traceId))].length, 1);

  // The wire: each chat and MCP request carries its own span's traceparent, in its headers and (MCP) in params._meta.
  const posts = proxy.requests.filter((r) => r.method === 'POST');
  const clientSpans = spans.filter((s) => s.kind === CLIENT).sort((a, b) => (a.startTime[0] - b.startTime[0]) || (a.startTime[1] - b.startTime[1]));
  assert.equal(posts.length, clientSpans.length, 'every POST has a client span');
  for (const [i, request] of posts.entries()) {
    const sc = clientSpans[i].spanContext();
    const traceparent = `00-${sc.traceId}-${sc.spanId}-01`;
    assert.equal(request.headers.traceparent, traceparent, `${request.url} #${i}: header of ${clientSpans[i].name}`);
    if (request.url.endsWith('/mcp')) {
      const meta = JSON.parse(request.body).params._meta;
      assert.equal(meta.traceparent, traceparent, `${clientSpans[i].name}: params._meta`);
    }
  }
  // server/discover's own _meta keys are kept beside the traceparent.
  const discover = JSON.parse(posts[0].body);
  assert.ok(Object.keys(discover.params._meta).length > 1, JSON.stringify(discover.params._meta));
  // The 20-digit integer argument went to the MCP server digit for digit.
  const calls = posts.filter((r) => r.body.includes('"honua_studio_add_layer"') && r.body.includes('tools/call'));
  assert.equal(calls.length, 2);
  for (const r of calls) assert.match(r.body, /"big":12345678901234567890[,}]/, r.body);
  // The capabilities GET goes without a span and without trace headers.
  assert.equal(proxy.requests.find((r) => r.url.endsWith('/capabilities')).headers.traceparent, undefined);
  session.close();
  port.close();
});

test('tracePropagation none sends no header and no _meta; the spans are made all the same', async () => {
  const { tracer, exporter } = sdkTracer();
  const { session, port, proxy } = pinnedSession(tracer, { tracePropagation: 'none' });
  const turn = await session.chat('Pay');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  for (const r of proxy.requests) {
    assert.equal(r.headers.traceparent, undefined, r.url);
    assert.doesNotMatch(r.body, /traceparent/, r.url);
  }
  await settle();
  assert.ok(exporter.getFinishedSpans().some((s) => s.name === 'tools/call honua_studio_add_layer'));
  session.close();
  port.close();
});

test("a trace begun in the page goes on in a JS port's MCP server: same trace, the client span as parent", async () => {
  const client = sdkTracer();
  const server = sdkTracer();
  const port = runtime.createPort(shop, { handlers: { 'checkout.pay': () => ({}) }, page: 'checkout', tracer: server.tracer });
  const fetchImpl = async (url, init) => {
    if (url.endsWith('/mcp')) {
      if (init.method !== 'POST') return new Response(null, { status: 405 });
      const answer = await port.mcp(dec.decode(init.body));
      return answer === null ? new Response(null, { status: 202 }) : new Response(JSON.stringify(answer), { headers: { 'content-type': 'application/json' } });
    }
    if (url.endsWith('/capabilities')) return new Response('', { status: 404 });
    return new Response(textStream('ok'), { headers: { 'content-type': 'text/event-stream' } });
  };
  const session = runtime.createSession({ tracer: client.tracer, fetchImpl });
  const turn = await session.chat('hi');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  await settle();
  const clientSpans = client.exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT && s.attributes['mcp.method.name']);
  const serverSpans = server.exporter.getFinishedSpans();
  assert.ok(serverSpans.length >= 2, serverSpans.map((s) => s.name).join());
  for (const s of serverSpans) {
    assert.equal(s.kind, SpanKind.SERVER);
    const parent = clientSpans.find((c) => c.spanContext().spanId === s.parentSpanContext?.spanId);
    assert.ok(parent, `${s.name}: its parent is a client span of the session`);
    assert.equal(s.spanContext().traceId, parent.spanContext().traceId);
    assert.equal(parent.attributes['mcp.method.name'], s.attributes['mcp.method.name']);
    assert.equal(s.name, s.attributes['mcp.method.name']);
  }
  assert.ok(serverSpans.some((s) => s.name === 'tools/list'));
  session.close();

  // A tools/call with a bad _meta.traceparent is a root; the answer is the port's as ever.
  server.exporter.reset();
  const answer = await port.mcp({
    jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'shop.nope', arguments: {}, _meta: { traceparent: '00-zz-zz-01' } },
  });
  const [span] = server.exporter.getFinishedSpans();
  assert.equal(span.name, 'tools/call shop.nope');
  assert.equal(span.parentSpanContext, undefined, 'an invalid traceparent makes a root');
  assert.equal(span.attributes['gen_ai.tool.name'], 'shop.nope');
  assert.equal(span.attributes['jsonrpc.request.id'], '9');
  if (answer.error) assert.equal(span.attributes['error.type'], String(answer.error.code));
  else if (answer.result?.isError) assert.equal(span.attributes['error.type'], 'tool_error');
  port.close();
});

test('content only with traceContent, and never a key or a token', async () => {
  const key = 'sk-very-secret-key-0123456789';
  const token = 'tok-very-secret-0123456789';
  const run = async (traceContent) => {
    const { tracer, exporter } = sdkTracer();
    const session = runtime.createSession({
      tracer, traceContent, disableToolDiscovery: true, auth: () => token,
      tools: [{ name: 'echo', execute: (args) => ({ said: args.text }) }],
      transport: scriptedRounds([[{ name: 'echo', args: { text: 'hello tool' } }], 'All done.']),
    });
    const turn = await session.chat('say hello');
    assert.equal(turn.status, 'completed', turn.errorMessage);
    session.close();
    return exporter.getFinishedSpans();
  };
  const contentKeys = ['gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.tool.call.arguments', 'gen_ai.tool.call.result'];
  const off = await run(undefined);
  assert.deepEqual(off.flatMap((s) => contentKeys.filter((k) => k in s.attributes)), [], 'no content by default');
  assert.doesNotMatch(JSON.stringify(off.map((s) => s.attributes)), /hello/);

  const on = await run(true);
  const agent = on.find((s) => s.name === 'invoke_agent');
  assert.deepEqual(JSON.parse(agent.attributes['gen_ai.input.messages']), [{ role: 'user', parts: [{ type: 'text', content: 'say hello' }] }]);
  assert.deepEqual(JSON.parse(agent.attributes['gen_ai.output.messages']), [{ role: 'assistant', parts: [{ type: 'text', content: 'All done.' }] }]);
  const echo = on.find((s) => s.name === 'execute_tool echo');
  assert.deepEqual(JSON.parse(echo.attributes['gen_ai.tool.call.arguments']), { text: 'hello tool' });
  assert.deepEqual(JSON.parse(echo.attributes['gen_ai.tool.call.result']), { status: 'ok', data: { said: 'hello tool' } });

  // A direct endpoint with a key: the key is in the request's Authorization, never in a span.
  const { tracer, exporter } = sdkTracer();
  const seen = [];
  const session = runtime.createSession({
    tracer, traceContent: true, disableToolDiscovery: true,
    model: { baseUrl: 'http://127.0.0.1:9/v1', name: 'local', apiKey: key },
    fetchImpl: async (url, init) => {
      seen.push({ url, headers: { ...init.headers } });
      const chunk = (o) => `data: ${JSON.stringify(o)}\n\n`;
      return new Response(chunk({ id: 'x', model: 'local', choices: [{ index: 0, delta: { role: 'assistant', content: 'hi' } }] })
        + chunk({ id: 'x', model: 'local', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 4, completion_tokens: 1 } })
        + 'data: [DONE]\n\n', { headers: { 'content-type': 'text/event-stream' } });
    },
  });
  const turn = await session.chat(`my key is not ${key.slice(0, 3)}`);
  assert.equal(turn.status, 'completed', turn.errorMessage);
  session.close();
  assert.match(JSON.stringify(seen[0].headers), new RegExp(key), 'the key went in the request');
  const spans = exporter.getFinishedSpans();
  const everything = JSON.stringify(spans.map((s) => [s.name, s.attributes, s.events, s.status]));
  assert.doesNotMatch(everything, new RegExp(key));
  assert.doesNotMatch(everything, /Bearer|authorization/i);
  const chatSpan = spans.find((s) => s.name === 'chat local');
  assert.equal(chatSpan.attributes['gen_ai.provider.name'], 'openai');
  assert.equal(chatSpan.attributes['server.address'], '127.0.0.1');
  assert.equal(chatSpan.attributes['server.port'], 9);
  assert.equal(chatSpan.attributes['gen_ai.usage.input_tokens'], 4);
  assert.equal(seen[0].headers.traceparent, traceparentOf(chatSpan.spanContext()));
  // The page's token, on the proxy's path.
  assert.doesNotMatch(JSON.stringify((await run(true)).map((s) => s.attributes)), new RegExp(token));
});

test('a tracer that throws everywhere never breaks a turn', async () => {
  const throwing = () => { throw new Error('tracer down'); };
  const spanThatThrows = { spanContext: throwing, setAttribute: throwing, setAttributes: throwing, addEvent: throwing, setStatus: throwing, end: throwing };
  const tracers = {
    startSpan: { startSpan: throwing },
    spans: { startSpan: () => spanThatThrows },
    garbage: { startSpan: () => 42 },
  };
  for (const [what, tracer] of Object.entries(tracers)) {
    const { session, port, proxy } = pinnedSession(tracer);
    const turn = await session.chat('Pay');
    assert.equal(turn.status, 'completed', `${what}: ${turn.errorMessage}`);
    assert.deepEqual(turn.toolCalls.map((r) => [r.toolName, r.ok]), [['note', true], ['honua_studio_add_layer', true], ['shop.do_action', true]], what);
    proxy.state.askId = turn.pendingApprovals[0].askId;
    const resumed = await session.resume({ approve: [proxy.state.askId] });
    assert.equal(resumed.text, 'Paid.', what);
    assert.ok(proxy.requests.every((r) => r.headers.traceparent === undefined), `${what}: no span context, no header`);
    session.close();
    port.close();
  }
});

test('asks nobody answered are abandoned when the session closes; a new message abandons them too', async () => {
  const { tracer, exporter } = sdkTracer();
  const { session, port } = pinnedSession(tracer);
  const turn = await session.chat('Pay');
  assert.equal(turn.pendingApprovals.length, 1);
  assert.equal(exporter.getFinishedSpans().filter((s) => s.name.startsWith('await_approval')).length, 0, 'open while the ask waits');
  session.close();
  await settle();
  const [waited] = exporter.getFinishedSpans().filter((s) => s.name === 'await_approval checkout.pay');
  assert.equal(waited.attributes['agentwasm.approval.outcome'], 'abandoned');
  port.close();

  // A new message clears the pending asks: their spans end abandoned as it starts.
  const again = pinnedSession(tracer);
  exporter.reset();
  const asked = await again.session.chat('Pay');
  assert.equal(asked.pendingApprovals.length, 1);
  const next = await again.session.chat('Never mind');
  assert.equal(next.status, 'completed', next.errorMessage);
  const spans = exporter.getFinishedSpans();
  const dropped = spans.filter((s) => s.name === 'await_approval checkout.pay');
  assert.deepEqual(dropped.map((s) => [s.attributes['agentwasm.approval.ask_id'], s.attributes['agentwasm.approval.outcome']]),
    [[asked.pendingApprovals[0].askId, 'abandoned']], 'the first ask\'s span ended abandoned (an ask of the new turn stays open)');
  const second = spans.filter((s) => s.name === 'invoke_agent')[1];
  assert.equal(second.parentSpanContext, undefined, 'a new message is a root, not a resume');
  again.session.close();
  again.port.close();
});

test('a bad tracer, traceContent or tracePropagation is refused with bad_options', () => {
  const tracer = { startSpan: () => null };
  for (const options of [{ tracer: {} }, { tracer: 'x' }, { tracer, tracePropagation: 'some' }, { tracer, traceContent: 'yes' }]) {
    assert.throws(() => runtime.createSession({ disableToolDiscovery: true, ...options }), (err) => err.code === 'bad_options', JSON.stringify(options));
  }
  assert.throws(() => runtime.createPort(shop, { tracer: {} }), (err) => err.code === 'bad_options');
});

test('the propagation decision: none, all, and same-origin with and without a page', () => {
  const page = { origin: 'https://app.example', href: 'https://app.example/work/page.html' };
  const cases = [
    ['/api/v1/studio/ai/chat', 'same-origin', page, true],
    ['https://app.example/mcp', 'same-origin', page, true],
    ['https://api.example/v1/chat/completions', 'same-origin', page, false],
    ['http://app.example/mcp', 'same-origin', page, false],
    ['https://api.example/v1/chat/completions', 'all', page, true],
    ['/api/mcp', 'none', page, false],
    ['https://api.example/v1/chat/completions', 'same-origin', undefined, true],
    ['/api/mcp', 'same-origin', { origin: 'null', href: 'file:///x.html' }, true],
    ['/api/mcp', 'none', undefined, false],
  ];
  for (const [url, mode, location, want] of cases) assert.equal(sendsHeaders(url, mode, location), want, `${url} ${mode} ${location?.origin}`);
});

test('withTraceMeta edits the text: big integers kept, _meta merged, params added', () => {
  const meta = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', tracestate: 'k=v' };
  const cases = [
    [
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"n":12345678901234567890,"f":1.50}}}',
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","tracestate":"k=v"},"name":"x","arguments":{"n":12345678901234567890,"f":1.50}}}',
    ],
    [
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      '{"jsonrpc":"2.0","method":"notifications/initialized","params":{"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","tracestate":"k=v"}}}',
    ],
    [
      '{ "id": 2, "method": "tools/list", "params": { "_meta": { "progressToken": 99999999999999999999, "traceparent": "old" } } }',
      '{ "id": 2, "method": "tools/list", "params": { "_meta": {"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","tracestate":"k=v","progressToken": 99999999999999999999} } }',
    ],
    ['{"method":"x","params":{}}', '{"method":"x","params":{"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","tracestate":"k=v"}}}'],
    ['{"method":"x","params":[1,2]}', '{"method":"x","params":[1,2]}'],
    ['{"method":"x","params":{"a":"\\"}\\\\"}}', '{"method":"x","params":{"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","tracestate":"k=v"},"a":"\\"}\\\\"}}'],
    ['not json', 'not json'],
    ['{"method":"x"} trailing', '{"method":"x"} trailing'],
  ];
  for (const [input, want] of cases) {
    const got = withTraceMeta(input, meta);
    assert.equal(got, want, input);
    if (got !== input) JSON.parse(got);
  }
  assert.equal(withTraceMeta('{"method":"m"}', { traceparent: 'tp' }), '{"method":"m","params":{"_meta":{"traceparent":"tp"}}}', 'no tracestate: none written');
});

test('the parent contexts: ours answer the API\'s span key, and the SDK sees the right parents', () => {
  const { tracer, exporter } = sdkTracer();
  const root = tracer.startSpan('root', {}, ROOT_CONTEXT);
  const ctx = contextWith(root);
  assert.ok(ctx instanceof TraceContext);
  assert.equal(trace.getSpan(ctx), root, 'the API reads our parent');
  assert.equal(trace.getSpan(ROOT_CONTEXT), undefined);
  // A key made by the API (Symbol.for) and one merely described alike both find it.
  assert.equal(ctx.getValue(Symbol('OpenTelemetry Context Key SPAN')), root);
  const other = Symbol('other');
  const more = ctx.setValue(other, 1);
  assert.equal(more.getValue(other), 1);
  assert.equal(ctx.getValue(other), undefined, 'immutable');
  assert.equal(trace.getSpan(more.deleteValue(Symbol.for('OpenTelemetry Context Key SPAN'))), undefined);
  // The API's own setSpan over our context works as over its own.
  assert.equal(trace.getSpan(trace.setSpan(ROOT_CONTEXT, root)), root);

  const child = tracer.startSpan('child', { kind: SpanKind.CLIENT }, ctx);
  const remote = remoteSpan('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', 'a=1');
  assert.deepEqual({ ...remote.spanContext(), traceState: remote.spanContext().traceState.serialize() },
    { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1, isRemote: true, traceState: 'a=1' });
  const served = tracer.startSpan('served', { kind: SpanKind.SERVER }, contextWith(remote));
  const lone = tracer.startSpan('lone', {}, contextWith(remoteSpan('00-00000000000000000000000000000000-b7ad6b7169203331-01')));
  for (const s of [child, served, lone, root]) s.end();
  const [c, s, l, r] = exporter.getFinishedSpans();
  assert.equal(c.parentSpanContext.spanId, r.spanContext().spanId);
  assert.equal(c.spanContext().traceId, r.spanContext().traceId);
  assert.equal(s.spanContext().traceId, '0af7651916cd43dd8448eb211c80319c');
  assert.equal(s.parentSpanContext.spanId, 'b7ad6b7169203331');
  assert.equal(s.parentSpanContext.isRemote, true);
  assert.equal(l.parentSpanContext, undefined, 'an all-zero trace id is no parent');
  for (const bad of ['', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331', 'ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    '00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01', '00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01', 42]) {
    assert.equal(remoteSpan(bad), null, String(bad));
  }
  // A caller's tracestate past 512 bytes, or not printable ASCII, is dropped; the parent stays.
  const parent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
  assert.equal(remoteSpan(parent, `a=${'x'.repeat(510)}`).spanContext().traceState.serialize().length, 512);
  for (const state of [`a=${'x'.repeat(511)}`, 'a=1\nb=2', 'a=é']) {
    const sc = remoteSpan(parent, state).spanContext();
    assert.equal(sc.traceState, undefined, JSON.stringify(state));
    assert.equal(sc.spanId, 'b7ad6b7169203331');
  }
  assert.equal(traceparentOf({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 0 }),
    '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00');
  assert.equal(traceparentOf({ traceId: 'x', spanId: 'y' }), '');
});

test('what an MCP answer says failed, and where a request goes', () => {
  assert.deepEqual(mcpFailure('{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}'), { type: '-32601', rpc: true });
  assert.deepEqual(mcpFailure('event: message\ndata: {"jsonrpc":"2.0","id":1,"error":{"message":"x","code":-32000}}\n\n'), { type: '-32000', rpc: true });
  assert.deepEqual(mcpFailure('{"result":{"isError":true,"content":[]}}'), { type: 'tool_error' });
  assert.equal(mcpFailure('{"result":{"content":[{"type":"text","text":"{\\"error\\":{\\"code\\":5}}"}]}}'), null, 'an error inside a text block is the tool\'s content');
  assert.deepEqual(serverOf('http://127.0.0.1:11434/v1/chat/completions'), { address: '127.0.0.1', port: 11434 });
  assert.deepEqual(serverOf('https://api.example/v1'), { address: 'api.example' });
  assert.deepEqual(serverOf('http://[::1]:8080/mcp'), { address: '::1', port: 8080 });
  assert.deepEqual(serverOf('/api/mcp'), {}, 'a path with no page: unknown');
});

test('failures: an error event, a fetch that fails, a cancelled turn', async () => {
  const cases = [
    {
      what: 'error event',
      fetchImpl: async () => new Response(frame('message_start', { model: 'fake-model' }) + frame('error', { errorCode: 'rate_limited', errorMessage: 'slow down' }),
        { headers: { 'content-type': 'text/event-stream' } }),
      chat: { type: 'rate_limited', message: 'slow down' },
    },
    {
      what: 'fetch rejects',
      fetchImpl: async () => { throw new TypeError('network down'); },
      chat: { type: 'transport_error' },
    },
  ];
  for (const c of cases) {
    const { tracer, exporter } = sdkTracer();
    const session = runtime.createSession({ tracer, disableToolDiscovery: true, fetchImpl: c.fetchImpl });
    const turn = await session.chat('hi');
    assert.equal(turn.status, 'error', c.what);
    session.close();
    const chat = exporter.getFinishedSpans().find((s) => s.name === 'chat');
    const agent = exporter.getFinishedSpans().find((s) => s.name === 'invoke_agent');
    assert.equal(chat.attributes['error.type'], c.chat.type, c.what);
    assert.equal(chat.status.code, 2, c.what);
    if (c.chat.message) assert.equal(chat.status.message, c.chat.message);
    assert.equal(agent.attributes['agentwasm.turn.status'], 'error', c.what);
    assert.equal(agent.attributes['error.type'], turn.errorCode || '_OTHER', c.what);
    assert.equal(agent.status.code, 2, c.what);
    assert.equal(agent.status.message, turn.errorMessage, c.what);
  }

  // A turn aborted while its tool runs: the tool's span and the turn's end cancelled.
  const { tracer, exporter } = sdkTracer();
  const controller = new AbortController();
  const session = runtime.createSession({
    tracer, disableToolDiscovery: true,
    tools: [{ name: 'slow', execute: (args, { signal }) => new Promise((resolve) => { controller.abort(); signal.addEventListener('abort', () => resolve('late')); }) }],
    transport: scriptedRounds([[{ name: 'slow', args: {} }], 'never']),
  });
  const turn = await session.chat('hi', { signal: controller.signal });
  assert.equal(turn.status, 'cancelled');
  session.close();
  const byName = Object.fromEntries(exporter.getFinishedSpans().map((s) => [s.name, s]));
  assert.equal(byName['execute_tool slow'].attributes['error.type'], 'cancelled');
  assert.equal(byName['execute_tool slow'].status.code, 2);
  assert.equal(byName.invoke_agent.attributes['agentwasm.turn.status'], 'cancelled');
  assert.equal(byName.invoke_agent.attributes['error.type'], 'cancelled');
  assert.equal(byName.invoke_agent.status.code, 2);
});

test('a resume that answers two asks: its parent is the first ask\'s span, a link to the other; one declined', async () => {
  const { tracer, exporter } = sdkTracer();
  const twoAsks = {
    id: 'shop',
    pages: [{ id: 'checkout' }],
    actions: [
      { id: 'checkout.pay', does: 'Pay', on: 'checkout', confirm: true, writes: ['order.id'], input: 'none' },
      { id: 'checkout.gift', does: 'Wrap as a gift', on: 'checkout', confirm: true, writes: ['order.gift'], input: 'none' },
    ],
  };
  const port = runtime.createPort(twoAsks, { handlers: { 'checkout.pay': () => ({}), 'checkout.gift': () => ({}) }, requireHumanApproval: true, page: 'checkout' });
  const session = runtime.createSession({
    tracer, kit: port, disableToolDiscovery: true,
    transport: scriptedRounds([
      [{ name: 'shop.do_action', args: { action: 'checkout.pay' } }, { name: 'shop.do_action', args: { action: 'checkout.gift' } }],
      'As you said.',
    ]),
  });
  const first = await session.chat('pay and wrap');
  const ids = first.pendingApprovals.map((p) => p.askId);
  assert.equal(ids.length, 2, JSON.stringify(first));
  const second = await session.resume({ approve: [ids[0]], decline: [ids[1]] });
  assert.equal(second.status, 'completed', second.errorMessage);
  session.close();
  port.close();
  const spans = exporter.getFinishedSpans();
  const [pay, gift] = ['await_approval checkout.pay', 'await_approval checkout.gift'].map((n) => spans.find((s) => s.name === n));
  assert.equal(pay.attributes['agentwasm.approval.outcome'], 'approved');
  assert.equal(gift.attributes['agentwasm.approval.outcome'], 'declined');
  const resume = spans.find((s) => s.name === 'invoke_agent' && s.attributes['agentwasm.turn.kind'] === 'resume');
  assert.equal(resume.parentSpanContext.spanId, pay.spanContext().spanId);
  assert.deepEqual(resume.links.map((l) => l.context.spanId), [gift.spanContext().spanId]);
  assert.deepEqual(resume.events.map((e) => [e.name, e.attributes['agentwasm.approval.ask_id'], e.attributes['agentwasm.approval.approved']]),
    [['agentwasm.approval.answered', ids[0], true], ['agentwasm.approval.answered', ids[1], false]]);
  const send = spans.find((s) => s.name === 'invoke_agent' && s.attributes['agentwasm.turn.kind'] === 'send');
  assert.deepEqual(send.events.map((e) => e.attributes['agentwasm.approval.ask_id']), ids);
});

test('a page MCP client: its listTools opens the discovery pass; refreshTools outside a turn is a root pass', async () => {
  const { tracer, exporter } = sdkTracer();
  const session = runtime.createSession({
    tracer,
    mcpClient: { listTools: () => [{ name: 'x_tool', _meta: composition }], callTool: () => ({ content: [] }) },
    transport: scriptedRounds([[{ name: 'x_tool', args: {} }], 'ok']),
  });
  const turn = await session.chat('hi');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  await session.refreshTools();
  session.close();
  const got = records(exporter).map((r) => [r.name, r.parent, r.attributes['agentwasm.discovery.discovered'] ?? r.attributes['agentwasm.tool.plane'] ?? null]);
  assert.deepEqual(got, [
    ['discover_tools', 'invoke_agent', 1],
    ['chat', 'invoke_agent', null],
    ['execute_tool x_tool', 'invoke_agent', 'composition'],
    ['chat', 'invoke_agent', null],
    ['invoke_agent', '-', null],
    ['discover_tools', '-', 1],
  ]);
});

test('the list-changed watch\'s listening requests are not traced, in either era; a tools/list beside them is', async () => {
  const { tracer, exporter } = sdkTracer();
  const tap = tapSession({ tracer, tracePropagation: 'all' }, {});
  const sent = [];
  const answer = async (url, init) => {
    sent.push({ headers: { ...init?.headers }, body: init?.body ? dec.decode(init.body) : '' });
    return new Response('{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}', { status: 200, headers: { 'content-type': 'application/json' } });
  };
  const post = (method) => ({
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: new TextEncoder().encode(`{"jsonrpc":"2.0","id":1,"method":"${method}","params":{}}`),
  });
  for (const init of [post('subscriptions/listen'), { method: 'GET', headers: { accept: 'text/event-stream' } }]) {
    const response = await tap.fetch(answer, 'http://mcp.test/mcp', init);
    await new Response(response.body).text(); // as the module reads it: from the body's stream
  }
  assert.deepEqual(exporter.getFinishedSpans(), []);
  assert.deepEqual(sent.map((r) => [r.headers.traceparent, r.body.includes('traceparent')]), [[undefined, false], [undefined, false]]);

  const response = await tap.fetch(answer, 'http://mcp.test/mcp', post('tools/list'));
  await new Response(response.body).text();
  assert.ok(exporter.getFinishedSpans().some((s) => s.name === 'tools/list'), 'the tools/list request is a span');
  assert.match(sent[2].headers.traceparent, /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
  assert.match(sent[2].body, /"_meta":\{"traceparent":"00-/);
});

test("a discovery pass the turn waits for is the turn's; one that starts after its first model request (the watch's) is a root", async () => {
  const { tracer, exporter } = sdkTracer();
  const tap = tapSession({ tracer }, {});
  const answer = async () => new Response('{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}', { status: 200, headers: { 'content-type': 'application/json' } });
  const listTools = async () => {
    const init = { method: 'POST', body: new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}') };
    const response = await tap.fetch(answer, 'http://studio.test/api/mcp', init);
    await new Response(response.body).text();
  };
  const report = '{"type":"toolDiscovery","report":{"discovered":0,"pages":1,"routed":[],"rejected":[],"missingRequired":[],"diagnostics":[]}}';
  await tap.turn({ op: 'session.chat', text: 'hi' }, async () => {
    await listTools(); // the turn's own pass, before its first model request
    tap.observe(JSON.parse(report));
    await tap.fetch(async () => new Response(frame('message_start', { model: 'm' })), 'http://studio.test/api/v1/studio/ai/chat', { method: 'POST', body: '{}' });
    await listTools(); // the list-changed watch's pass, while the round streams
    tap.observe(JSON.parse(report));
    tap.observe({ type: 'chat', event: { type: 'messageStop', stopReason: 'endTurn' } });
    return { status: 'completed', rounds: 1, text: '' };
  });
  const spans = exporter.getFinishedSpans();
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  const parentName = (s) => (s.parentSpanContext?.spanId ? byId.get(s.parentSpanContext.spanId)?.name : '-');
  assert.deepEqual(spans.filter((s) => s.name === 'discover_tools').map(parentName), ['invoke_agent', '-']);
});
