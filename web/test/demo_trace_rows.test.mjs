// Tests of the demo page's trace recorder (web/demo/trace.mjs) and of the
// rows its trace view draws (web/demo/trace-view.mjs), with canned spans:
// the recorder answers the OpenTelemetry API's Tracer as the loader calls it
// (a parent found through a Context that answers the API's span key by its
// description), keeps a bounded number of spans, and the rows give each span
// of a turn its depth, kind, words and place on the time axis.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTraceRecorder, SpanKind, SPAN_KEY, toEpochMs } from '../demo/trace.mjs';
import { traceRows, pickTrace, formatDuration } from '../demo/trace-view.mjs';

/** A Context like the loader's: immutable, answering a key by its description (so the API's Symbol and ours meet). */
function context(values = new Map()) {
  return {
    getValue: (key) => values.get(key.description),
    setValue: (key, v) => context(new Map(values).set(key.description, v)),
    deleteValue: (key) => {
      const next = new Map(values);
      next.delete(key.description);
      return context(next);
    },
  };
}

/** The API's own key: another Symbol with the same description. */
const apiSpanKey = Symbol('OpenTelemetry Context Key SPAN');
const under = (span) => context().setValue(apiSpanKey, span);

/**
 * Records a canned turn as the loader would: a send that discovers tools, asks the model, calls an
 * MCP tool that meets a conflict (tools/call, get_draft, tools/call), a page tool, asks again, and
 * stops on an approval; then (when resume is set) the resume under the approval's span. Times in ms
 * after t0; answers the recorder and the trace id.
 */
function cannedTurn({ resume = true } = {}) {
  const rec = createTraceRecorder();
  const t = rec.tracer;
  const t0 = Date.now() + 1000; // an epoch time (a number under the time origin would count from it)
  const at = (ms) => t0 + ms;
  const turn = t.startSpan('invoke_agent', {
    kind: SpanKind.INTERNAL, startTime: at(0),
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.provider.name': 'agentwasm.studio_proxy', 'agentwasm.turn.kind': 'send' },
  });
  const disc = t.startSpan('discover_tools', { startTime: at(2) }, under(turn));
  for (const [m, s, e] of [['initialize', 3, 8], ['notifications/initialized', 8, 9], ['tools/list', 9, 15]]) {
    t.startSpan(m, { kind: SpanKind.CLIENT, startTime: at(s), attributes: { 'mcp.method.name': m, 'network.protocol.name': 'http' } }, under(disc)).end(at(e));
  }
  disc.setAttributes({ 'agentwasm.discovery.discovered': 7, 'agentwasm.discovery.routed': 5, 'agentwasm.discovery.pages': 1 });
  disc.end(at(16));
  const chat1 = t.startSpan('chat scripted-model', {
    kind: SpanKind.CLIENT, startTime: at(20),
    attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'scripted-model', 'gen_ai.request.stream': true, 'agentwasm.round': 1 },
  }, under(turn));
  chat1.setAttributes({
    'gen_ai.response.time_to_first_chunk': 0.04, 'gen_ai.response.finish_reasons': ['tool_calls'],
    'gen_ai.usage.input_tokens': 38, 'gen_ai.usage.output_tokens': 12, 'gen_ai.response.model': undefined,
  });
  chat1.end(at(432));
  const mcpTool = t.startSpan('execute_tool honua_studio_add_layer', {
    startTime: at(440),
    attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'honua_studio_add_layer', 'gen_ai.tool.call.id': 'c1', 'gen_ai.tool.type': 'extension', 'agentwasm.tool.plane': 'composition' },
  }, under(turn));
  const call = (name, s, e, error) => {
    const span = t.startSpan(`tools/call ${name}`, {
      kind: SpanKind.CLIENT, startTime: at(s),
      attributes: { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': name, 'gen_ai.operation.name': 'execute_tool', 'jsonrpc.request.id': String(s) },
    }, under(mcpTool));
    if (error) {
      span.setAttribute('error.type', error);
      span.setStatus({ code: 2, message: 'the draft moved on' });
    }
    span.end(at(e));
  };
  call('honua_studio_add_layer', 441, 446, 'tool_error');
  mcpTool.addEvent('agentwasm.tool.conflict_retry', { 'gen_ai.tool.name': 'honua_studio_add_layer' });
  call('honua_studio_get_draft', 447, 450);
  call('honua_studio_add_layer', 451, 458);
  mcpTool.setAttributes({ 'agentwasm.tool.outcome': 'ok', 'agentwasm.tool.retried_after_conflict': true });
  mcpTool.end(at(460));
  const pageTool = t.startSpan('execute_tool studio_journey_publish', {
    startTime: at(461),
    attributes: { 'gen_ai.tool.name': 'studio_journey_publish', 'gen_ai.tool.call.id': 'c2', 'gen_ai.tool.type': 'function', 'agentwasm.tool.plane': 'runtime' },
  }, under(turn));
  pageTool.setAttributes({ 'agentwasm.tool.outcome': 'ok', 'agentwasm.approval.ask_id': 'ask-1' });
  pageTool.end(at(473));
  const chat2 = t.startSpan('chat scripted-model', { kind: SpanKind.CLIENT, startTime: at(480), attributes: { 'agentwasm.round': 2 } }, under(turn));
  chat2.setAttributes({ 'gen_ai.response.finish_reasons': ['stop'], 'gen_ai.usage.input_tokens': 60, 'gen_ai.usage.output_tokens': 20 });
  chat2.end(at(600));
  const wait = t.startSpan('await_approval review.publish', {
    startTime: at(600),
    attributes: { 'agentwasm.approval.ask_id': 'ask-1', 'agentwasm.approval.action': 'review.publish', 'gen_ai.tool.name': 'studio_journey_publish' },
  }, under(turn));
  turn.addEvent('agentwasm.approval.requested', { 'agentwasm.approval.ask_id': 'ask-1', 'agentwasm.approval.action': 'review.publish' });
  turn.setAttributes({ 'agentwasm.turn.status': 'completed', 'agentwasm.turn.rounds': 2, 'gen_ai.usage.input_tokens': 98, 'gen_ai.usage.output_tokens': 32 });
  turn.end(at(610));
  if (resume) {
    const again = t.startSpan('invoke_agent', { startTime: at(3800), attributes: { 'agentwasm.turn.kind': 'resume' } }, under(wait));
    wait.setAttribute('agentwasm.approval.outcome', 'approved');
    wait.end(at(3800));
    const chat3 = t.startSpan('chat scripted-model', { kind: SpanKind.CLIENT, startTime: at(3810) }, under(again));
    chat3.end(at(3900));
    again.addEvent('agentwasm.approval.answered', { 'agentwasm.approval.ask_id': 'ask-1', 'agentwasm.approval.approved': true });
    again.setAttributes({ 'agentwasm.turn.status': 'completed', 'agentwasm.turn.rounds': 1 });
    again.end(at(3910));
  }
  return { rec, traceId: turn.spanContext().traceId, t0 };
}

/** The demo's planes: the port's tools are the app port's, other runtime tools the page's. */
const planeOf = (name, plane) => (plane === 'composition' ? 'mcp' : plane === 'runtime' ? (name.startsWith('studio_') ? 'port' : 'page') : 'unknown');

test('the recorder makes W3C ids, finds the parent through a Context answering the API key by description, and keeps the records', () => {
  const rec = createTraceRecorder();
  const root = rec.tracer.startSpan('invoke_agent', { attributes: { a: 1, gone: undefined, nil: null, obj: {}, list: ['x', 2, {}] } });
  const sc = root.spanContext();
  assert.match(sc.traceId, /^[0-9a-f]{32}$/);
  assert.match(sc.spanId, /^[0-9a-f]{16}$/);
  assert.equal(sc.traceFlags, 1);
  const child = rec.tracer.startSpan('chat', { kind: SpanKind.CLIENT }, under(root));
  assert.equal(child.spanContext().traceId, sc.traceId, 'a child is in its parent\'s trace');
  assert.notEqual(child.spanContext().spanId, sc.spanId);
  // Our key and the API's are different Symbols with one description: the Context answers both.
  assert.notEqual(SPAN_KEY, apiSpanKey);
  assert.equal(under(root).getValue(SPAN_KEY), root);
  const other = rec.tracer.startSpan('invoke_agent', {}, context());
  assert.notEqual(other.spanContext().traceId, sc.traceId, 'no parent: a new trace');
  const rootless = rec.tracer.startSpan('x', { root: true }, under(root));
  assert.notEqual(rootless.spanContext().traceId, sc.traceId, 'root: true ignores the parent');
  assert.equal(rec.tracer.startSpan('y', undefined, undefined).spanContext().spanId.length, 16);

  assert.equal(child.isRecording(), true);
  child.setAttribute('k', 'v').setAttributes({ n: 2 });
  child.addEvent('e1', { 'x.y': true });
  child.addEvent('e2', Date.now() + 5);
  child.setStatus({ code: 2, message: 'boom' });
  child.setStatus({ code: 0 }); // UNSET never replaces a status
  child.end();
  assert.equal(child.isRecording(), false);
  child.setAttribute('late', 1); // after end: ignored
  child.end(); // twice: no change
  const [r0, r1] = rec.spans(sc.traceId);
  assert.deepEqual(r0.attributes, { a: 1, list: ['x', 2] });
  assert.equal(r0.parentSpanId, null);
  assert.equal(r0.kind, 'internal');
  assert.equal(r1.kind, 'client');
  assert.equal(r1.parentSpanId, sc.spanId);
  assert.deepEqual(r1.attributes, { k: 'v', n: 2 });
  assert.deepEqual(r1.events.map((e) => [e.name, e.attributes]), [['e1', { 'x.y': true }], ['e2', {}]]);
  assert.deepEqual(r1.status, { code: 2, message: 'boom' });
  assert.ok(r1.endTime >= r1.startTime);
  assert.equal(r0.endTime, null, 'not ended');
});

test('the recorder reads every OpenTelemetry time input, and keeps links', () => {
  const epoch = Date.now() + 10;
  assert.equal(toEpochMs(epoch), epoch);
  assert.equal(toEpochMs(new Date(epoch)), epoch);
  assert.equal(toEpochMs([Math.floor(epoch / 1000), (epoch % 1000) * 1e6]), epoch);
  assert.equal(toEpochMs(5), performance.timeOrigin + 5, 'a small number counts from the time origin');
  const rec = createTraceRecorder();
  const a = rec.tracer.startSpan('await_approval a');
  const b = rec.tracer.startSpan('invoke_agent', { links: [{ context: a.spanContext() }, { context: {} }, null] }, under(a));
  b.addLink({ context: a.spanContext(), attributes: { why: 'second' } });
  const rec1 = rec.spans(a.spanContext().traceId)[1];
  assert.deepEqual(rec1.links, [
    { traceId: a.spanContext().traceId, spanId: a.spanContext().spanId, attributes: {} },
    { traceId: a.spanContext().traceId, spanId: a.spanContext().spanId, attributes: { why: 'second' } },
  ]);
});

test('the recorder keeps a bounded number of traces and spans, the least recently touched going first', () => {
  const changes = [];
  const rec = createTraceRecorder({ maxTraces: 3, maxSpans: 10, onChange: (s) => changes.push(s.name) });
  const roots = [];
  for (let i = 0; i < 4; i++) roots.push(rec.tracer.startSpan(`r${i}`));
  assert.equal(rec.traceIds().length, 3);
  assert.ok(!rec.traceIds().includes(roots[0].spanContext().traceId), 'the oldest trace went');
  roots[1].end(); // touching r1's trace keeps it over r2's
  rec.tracer.startSpan('r4');
  assert.deepEqual(rec.traceIds().map((id) => rec.spans(id)[0].name), ['r3', 'r1', 'r4']);
  // One trace over maxSpans keeps its newest spans.
  for (let i = 0; i < 12; i++) rec.tracer.startSpan(`c${i}`, {}, under(roots[3]));
  assert.ok(rec.size() <= 10, `${rec.size()} spans kept`);
  assert.equal(rec.spans(roots[3].spanContext().traceId).at(-1).name, 'c11');
  assert.ok(changes.includes('r0') && changes.length >= 17, 'onChange heard starts and ends');
  // A throwing onChange does not reach the loader.
  const loud = createTraceRecorder({ onChange: () => { throw new Error('view broke'); } });
  assert.doesNotThrow(() => loud.tracer.startSpan('x').end());
  rec.clear();
  assert.equal(rec.size(), 0);
  assert.equal(rec.lastTurnTrace(), null);
});

test('the rows of a turn: tree order, depth, kind and what each row says', () => {
  const { rec, traceId } = cannedTurn();
  assert.equal(rec.lastTurnTrace(), traceId);
  const trace = traceRows(rec.spans(), { planeOf });
  assert.equal(trace.traceId, traceId);
  assert.equal(trace.spanCount, 15);
  assert.equal(trace.errorCount, 1);
  assert.deepEqual(trace.rows.map((r) => [r.depth, r.kind, r.text]), [
    [0, 'turn', 'invoke_agent · send · completed · 2 rounds · 610 ms · 98→32 tokens · stopped on 1 approval'],
    [1, 'discovery', 'discover_tools · 5 routed of 7 · 1 page · 14 ms'],
    [2, 'mcp', 'initialize · MCP · 5 ms'],
    [2, 'mcp', 'notifications/initialized · MCP · 1 ms'],
    [2, 'mcp', 'tools/list · MCP · 6 ms'],
    [1, 'chat', 'chat scripted-model · 412 ms · 38→12 tokens · first chunk 40 ms · tool_calls'],
    [1, 'tool-mcp', 'execute_tool honua_studio_add_layer · MCP · ok · 20 ms · retried after a draft conflict'],
    [2, 'mcp', 'tools/call honua_studio_add_layer · MCP · tool_error · 5 ms'],
    [2, 'mcp', 'tools/call honua_studio_get_draft · MCP · ok · 3 ms'],
    [2, 'mcp', 'tools/call honua_studio_add_layer · MCP · ok · 7 ms'],
    [1, 'tool-port', 'execute_tool studio_journey_publish · app port · ok · 12 ms · asks for approval'],
    [1, 'chat', 'chat scripted-model · 120 ms · 60→20 tokens · stop'],
    [1, 'approval', 'await_approval review.publish · approved (waited 3.2 s)'],
    [2, 'turn', 'invoke_agent · resume · completed · 1 round · 110 ms · answers 1 approval'],
    [3, 'chat', 'chat scripted-model · 90 ms'],
  ]);
  const failed = trace.rows.find((r) => r.error);
  assert.equal(failed.error, 'tool_error');
  assert.equal(failed.errorMessage, 'the draft moved on');
  // Each row's parent is the row above it of one less depth.
  for (const [i, row] of trace.rows.entries()) {
    if (row.depth === 0) continue;
    const parent = trace.rows.slice(0, i).findLast((r) => r.depth === row.depth - 1);
    assert.equal(row.parentSpanId, parent.spanId, row.text);
  }
});

test('the rows sit on one time axis: offsets, durations and fractions', () => {
  const { rec } = cannedTurn();
  const trace = traceRows(rec.spans());
  assert.equal(trace.duration, 3910);
  const root = trace.rows[0];
  assert.deepEqual([root.offset, root.duration, root.start], [0, 610, 0]);
  assert.ok(Math.abs(root.width - 610 / 3910) < 1e-9);
  const resumeChat = trace.rows.find((r) => r.depth === 3);
  assert.equal(resumeChat.offset, 3810);
  assert.ok(Math.abs(resumeChat.start + resumeChat.width - 3900 / 3910) < 1e-9);
  for (const r of trace.rows) assert.ok(r.start >= 0 && r.start + r.width <= 1 + 1e-9, r.text);
  // Without planeOf, a runtime tool is the page's.
  assert.equal(trace.rows.find((r) => r.name === 'execute_tool studio_journey_publish').kind, 'tool-page');
});

test('an approval still waiting is open, drawn up to now', () => {
  const { rec, t0 } = cannedTurn({ resume: false });
  const trace = traceRows(rec.spans(), { now: t0 + 2000 });
  const wait = trace.rows.find((r) => r.kind === 'approval');
  assert.equal(wait.open, true);
  assert.equal(wait.text, 'await_approval review.publish · waiting for the person (1.4 s so far)');
  assert.equal(trace.duration, 2000);
  assert.ok(Math.abs(wait.start + wait.width - 1) < 1e-9);
});

test('pickTrace: the trace asked for, else the last turn\'s, else the last span\'s; orphans are roots', () => {
  const span = (traceId, spanId, name, startTime, extra = {}) => ({
    traceId, spanId, name, startTime, endTime: startTime + 10, parentSpanId: null, kind: 'internal', attributes: {}, events: [], status: { code: 0 }, ...extra,
  });
  const spans = [
    span('a'.repeat(32), '1'.repeat(16), 'invoke_agent', 100),
    span('b'.repeat(32), '2'.repeat(16), 'discover_tools', 300),
    span('c'.repeat(32), '3'.repeat(16), 'invoke_agent', 200),
    span('c'.repeat(32), '4'.repeat(16), 'chat', 210, { parentSpanId: '9'.repeat(16), status: { code: 2, message: 'x' } }),
  ];
  assert.equal(pickTrace(spans), 'c'.repeat(32));
  assert.equal(pickTrace(spans.filter((s) => s.name !== 'invoke_agent')), 'b'.repeat(32), 'the last span started');
  assert.equal(pickTrace([]), null);
  assert.equal(pickTrace(spans, 'b'.repeat(32)), 'b'.repeat(32));
  const trace = traceRows(spans, { now: 0 });
  assert.deepEqual(trace.rows.map((r) => [r.depth, r.name, r.error]), [[0, 'invoke_agent', null], [0, 'chat', 'error']]);
  assert.match(trace.rows[1].text, /^chat · 10 ms · error$/);
  assert.deepEqual(traceRows([], {}).rows, []);
});

test('a chat span named without a model says the model that answered', () => {
  const t0 = Date.now();
  const base = { traceId: 'd'.repeat(32), parentSpanId: null, kind: 'client', events: [], status: { code: 0 }, startTime: t0, endTime: t0 + 64 };
  const rows = traceRows([
    { ...base, spanId: '1'.repeat(16), name: 'chat', attributes: { 'gen_ai.response.model': 'scripted-model', 'gen_ai.response.finish_reasons': ['stop'] } },
    { ...base, spanId: '2'.repeat(16), name: 'chat gpt-x', attributes: { 'gen_ai.response.model': 'gpt-x' } },
    { ...base, spanId: '3'.repeat(16), name: 'chat gpt-x', attributes: { 'gen_ai.response.model': 'gpt-x-2025' } },
  ]).rows;
  assert.deepEqual(rows.map((r) => r.text), ['chat · scripted-model · 64 ms · stop', 'chat gpt-x · 64 ms', 'chat gpt-x · gpt-x-2025 · 64 ms']);
});

test('formatDuration', () => {
  for (const [ms, words] of [[0, '0 ms'], [0.4, '0 ms'], [412.4, '412 ms'], [999.4, '999 ms'], [1000, '1.0 s'], [3240, '3.2 s'], [14_400, '14 s'], [-1, '? ms'], [NaN, '? ms']]) {
    assert.equal(formatDuration(ms), words, String(ms));
  }
});
