// Browser test of the demo page's trace view: `agentwasm dev` (dist/agentwasm)
// started on a free loopback port, the page in headless Chromium. The page
// gives its session a recording tracer (web/demo/trace.mjs); a person makes
// a page tool call, an MCP composition edit that meets the demo server's
// draft conflict, and a publish that waits for the approval card, approved;
// after each turn the Trace panel (a disclosure, opened from the keyboard)
// draws the last turn's spans: the invoke_agent root, a chat row per round,
// execute_tool rows with their planes (page, app port, MCP), the tools/call
// rows under the MCP execute_tool (the conflict's reload,
// honua_studio_get_draft, between two tries), the await_approval row with
// the resume turn under it, an error marker on the conflict, and the trace
// id (32 hex). The panel is checked at 420 px too (each bar under its
// label, nothing wider than the screen) and with axe-core (nothing serious
// or critical). A last test draws canned spans (an error on a tool, an
// approval still waiting) through the page's own recorder. The screenshots
// land in dist/demo-trace-mcp.png (the MCP turn) and dist/demo-trace.png
// (the approval and its resume). The dev server runs with --trace, so it
// prints a line for each MCP request's server span on its stdout: after the
// MCP turn, every one of the page's MCP client spans of that trace
// (tools/call honua_studio_create_draft, honua_studio_add_layer twice, the
// reload honua_studio_get_draft between) has its server span in the dev
// server, in the same trace, with the client span as its parent — the trace
// crosses the HTTP boundary.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { browserMissing, launchChromium } from '../testing/browser.mjs';
import { startDevServer } from '../testing/devserver.mjs';
import { openDemo, typeAndWait, turnAfter, turnCount } from '../testing/demopage.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const binary = path.join(root, 'dist', 'agentwasm');
const axePath = path.join(root, 'web', 'node_modules', 'axe-core', 'axe.min.js');
const skip = browserMissing({ [binary]: 'make dist/agentwasm', [axePath]: 'npm ci in web/' }) || false;

let dev;
let browser;
let page;
const problems = []; // console errors, page errors, HTTP errors
let devStdout = ''; // what the dev server printed: its URL line, then a line per MCP server span (--trace)
let mcpTraceId = null; // the trace of the MCP turn

before(async () => {
  if (skip) return;
  const started = startDevServer(binary, ['--pace', '2ms', '--web', 'web/demo', '--dist', 'dist', '--trace'], { cwd: root });
  dev = started.child;
  dev.stdout.on('data', (chunk) => { devStdout += chunk; });
  browser = await launchChromium();
  page = await openDemo(browser, await started.url, problems);
});

after(async () => {
  await browser?.close();
  dev?.kill();
});

/** Opens the Trace panel from the keyboard (its summary, Enter), if it is closed. */
async function openTrace() {
  if (await page.evaluate(() => document.getElementById('trace').open)) return;
  await page.focus('#trace > summary');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.getElementById('trace').open), true, 'Enter on the summary opens the panel');
}

/**
 * The rows the panel shows, as a person reads them: each row's depth, kind, name, text (the label's
 * visible words), the span id of the row it is nested under (from the list markup), and whether it
 * shows an error marker.
 */
const rows = () => page.evaluate(() => [...document.querySelectorAll('#trace-body li.span')].map((li) => {
  const label = li.querySelector(':scope > .span-row > .span-label');
  const visible = [...label.childNodes].filter((n) => !(n.classList?.contains('sr-only'))).map((n) => n.textContent).join('');
  return {
    depth: Number(li.dataset.depth),
    kind: li.dataset.kind,
    name: li.dataset.name,
    id: li.dataset.spanId,
    parent: li.parentElement.closest('li.span')?.dataset.spanId ?? null,
    text: visible.replace(/\s+/g, ' ').trim(),
    error: Boolean(li.querySelector(':scope > .span-row .span-error')),
  };
}));

/** The trace id the panel shows. */
const shownTraceId = () => page.textContent('#trace-body .trace-id');

/** The rows under the row r (its children, in order). */
const childrenOf = (all, r) => all.filter((x) => x.parent === r.id);

/** Runs axe-core (WCAG 2.0/2.1/2.2 A and AA) on the trace panel; answers the serious and critical violations. */
async function axe(label) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) {
    await page.addScriptTag({ content: await readFile(axePath, 'utf8') });
  }
  const violations = await page.evaluate(async () => {
    const result = await window.axe.run(document.querySelector('.trace-section'), {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa'] },
    });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  });
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  if (bad.length) console.log(`axe at ${label}: ${JSON.stringify(violations, null, 2)}`);
  return bad;
}

/** Checks the root and the rounds of a finished send: one invoke_agent root, a chat row per round under it. */
function assertTurn(all, turn) {
  const roots = all.filter((r) => r.depth === 0);
  assert.equal(roots.length, 1, `one root: ${JSON.stringify(roots)}`);
  assert.equal(roots[0].name, 'invoke_agent');
  assert.match(roots[0].text, new RegExp(`^turn invoke_agent · send · ${turn.status} · ${turn.rounds} rounds? · `));
  const chats = childrenOf(all, roots[0]).filter((r) => r.kind === 'chat');
  assert.equal(chats.length, turn.rounds, 'a chat row per round');
  for (const c of chats) {
    // The page's session names no model (the proxy picks it): the span is "chat", the row names the model that answered.
    assert.equal(c.name, 'chat');
    assert.match(c.text, /^model chat · scripted-model · \d+ ms · \d+→\d+ tokens · first chunk \d+ ms · (tool_calls|stop)$/);
  }
  return roots[0];
}

test('the Trace panel starts empty and closed, and opens from the keyboard', { skip }, async () => {
  assert.equal(await page.evaluate(() => document.getElementById('trace').open), false);
  assert.equal(await page.textContent('#trace-summary'), 'no turn yet');
  await openTrace();
  assert.match(await page.textContent('#trace-body'), /^No trace/);
});

test('a page tool call: the turn, its two rounds and execute_tool on the page', { skip }, async () => {
  const turn = await typeAndWait(page, 'Make the map dark');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  await openTrace();
  const all = await rows();
  const rootRow = assertTurn(all, turn);
  const tools = childrenOf(all, rootRow).filter((r) => r.name.startsWith('execute_tool '));
  assert.deepEqual(tools.map((r) => r.kind), ['tool-page']);
  assert.match(tools[0].text, /^page tool execute_tool set_basemap · page · ok · \d+ ms$/);
  assert.deepEqual(childrenOf(all, tools[0]), [], 'a page tool makes no MCP request');
  assert.match(await shownTraceId(), /^[0-9a-f]{32}$/);
  assert.match(await page.textContent('#trace-summary'), /^1 turn · \d+ spans · /);
});

test('an MCP edit meeting the draft conflict: tools/call, the reload (honua_studio_get_draft), tools/call again', { skip }, async () => {
  const before = await shownTraceId();
  await page.waitForFunction(() => document.getElementById('watch')?.textContent === 'Catalog watch: open');
  const turn = await typeAndWait(page, 'Add a schools layer');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.equal(turn.toolCalls[1].retriedAfterConflict, true, 'the demo server\'s first edit of a new draft meets a conflict');
  const id = await shownTraceId();
  assert.match(id, /^[0-9a-f]{32}$/);
  assert.notEqual(id, before, 'a new turn, a new trace');
  mcpTraceId = id;
  const all = await rows();
  const rootRow = assertTurn(all, turn);
  const tools = childrenOf(all, rootRow).filter((r) => r.name.startsWith('execute_tool '));
  assert.deepEqual(tools.map((r) => [r.name, r.kind]), [
    ['execute_tool honua_studio_create_draft', 'tool-mcp'],
    ['execute_tool honua_studio_add_layer', 'tool-mcp'],
  ]);
  assert.match(tools[0].text, /^MCP tool execute_tool honua_studio_create_draft · MCP · ok · \d+ ms$/);
  assert.match(tools[1].text, /^MCP tool execute_tool honua_studio_add_layer · MCP · ok · \d+ ms · retried after a draft conflict$/);
  assert.deepEqual(childrenOf(all, tools[0]).map((r) => r.name), ['tools/call honua_studio_create_draft']);
  const calls = childrenOf(all, tools[1]);
  assert.deepEqual(calls.map((r) => [r.name, r.kind, r.error]), [
    ['tools/call honua_studio_add_layer', 'mcp', true],
    ['tools/call honua_studio_get_draft', 'mcp', false],
    ['tools/call honua_studio_add_layer', 'mcp', false],
  ]);
  assert.match(calls[0].text, /^MCP request tools\/call honua_studio_add_layer · MCP · tool_error · \d+ ms ⚠ error: tool_error$/);
  assert.match(calls[1].text, /^MCP request tools\/call honua_studio_get_draft · MCP · ok · \d+ ms$/);
  assert.match(await page.textContent('#trace-summary'), / · 1 with an error$/);
  // The rows' text is in the markup, not only in the bars: every row's bar has a place on the axis.
  const bars = await page.evaluate(() => [...document.querySelectorAll('#trace-body .span-bar')].map((b) => b.getBoundingClientRect().width));
  assert.equal(bars.length, all.length);
  assert.ok(bars.every((w) => w >= 3), `every bar is visible: ${bars}`);
  await page.locator('.trace-section').scrollIntoViewIfNeeded();
  await mkdir(path.join(root, 'dist'), { recursive: true });
  await page.locator('.trace-section').screenshot({ path: path.join(root, 'dist', 'demo-trace-mcp.png') });
});

/**
 * The dev server's --trace lines: `trace ID span ID parent ID|- NAME D.D ms[ error TYPE]`, parsed
 * (its other lines left out).
 */
function serverSpans() {
  const re = /^trace ([0-9a-f]{32}) span ([0-9a-f]{16}) parent ([0-9a-f]{16}|-) (.+?) \d+\.\d ms(?: error (\S+))?$/;
  return devStdout.split('\n').filter((l) => l.startsWith('trace ')).map((l) => {
    const m = l.match(re);
    assert.ok(m, `a --trace line: ${JSON.stringify(l)}`);
    return { traceId: m[1], spanId: m[2], parent: m[3] === '-' ? null : m[3], name: m[4], errorType: m[5] ?? null };
  });
}

test('the MCP turn\'s trace continues in the dev server: a server span per MCP client span, same trace, the client span its parent', { skip }, async () => {
  assert.ok(mcpTraceId, 'the MCP turn ran');
  // The page's MCP client spans of that trace, from its recorder, in the order they started.
  const clients = (await page.evaluate((id) => window.demo.trace.spans(id), mcpTraceId))
    .filter((s) => s.kind === 'client' && s.attributes['mcp.method.name']);
  assert.deepEqual(clients.filter((s) => s.name.startsWith('tools/call ')).map((s) => s.name), [
    'tools/call honua_studio_create_draft',
    'tools/call honua_studio_add_layer',
    'tools/call honua_studio_get_draft',
    'tools/call honua_studio_add_layer',
  ]);
  // Each server line is written as its span ends, before the answer leaves the server; its
  // arrival on this side of the pipe is awaited all the same (no time is asserted).
  const ofTrace = () => serverSpans().filter((s) => s.traceId === mcpTraceId);
  for (let i = 0; i < 200 && ofTrace().length < clients.length; i++) await new Promise((r) => setTimeout(r, 50));
  const servers = ofTrace();
  assert.equal(servers.length, clients.length, `a server span per MCP client span of trace ${mcpTraceId}:\n${devStdout}`);
  for (const c of clients) {
    const under = servers.filter((s) => s.parent === c.spanId);
    assert.equal(under.length, 1, `one server span under the page's ${c.name} (${c.spanId}):\n${devStdout}`);
    assert.equal(under[0].name, c.name, 'the server span is named as the client span');
    assert.equal(under[0].errorType, c.attributes['error.type'] ?? null, `${c.name}: the same error.type on both sides`);
  }
  assert.deepEqual(servers.filter((s) => s.errorType).map((s) => [s.name, s.errorType]),
    [['tools/call honua_studio_add_layer', 'tool_error']], 'the conflict is the one error');
  // And no server span of another trace claims one of these client spans as its parent.
  const ids = new Set(clients.map((c) => c.spanId));
  assert.deepEqual(serverSpans().filter((s) => ids.has(s.parent) && s.traceId !== mcpTraceId), []);
});

test('a publish waiting for approval, then approved: await_approval with the resume turn under it, in one trace', { skip }, async () => {
  const asked = await typeAndWait(page, 'Publish the map');
  assert.equal(asked.pendingApprovals?.length, 1, 'the turn stopped on the card');
  let all = await rows();
  let rootRow = assertTurn(all, asked);
  assert.match(rootRow.text, / · stopped on 1 approval$/);
  const waiting = childrenOf(all, rootRow).filter((r) => r.kind === 'approval');
  assert.equal(waiting.length, 1);
  assert.equal(waiting[0].name, 'await_approval review.publish');
  assert.match(waiting[0].text, /^approval await_approval review\.publish · waiting for the person \(.+ so far\)$/);
  const journey = childrenOf(all, rootRow).filter((r) => r.name.startsWith('execute_tool '));
  assert.ok(journey.length >= 1);
  assert.match(journey.at(-1).text, /^app port tool execute_tool \S+ · app port · ok · \d+ ms · asks for approval$/);
  const sendTrace = await shownTraceId();

  const n = await turnCount(page);
  await page.click('#cards .card button.approve');
  const resumed = await turnAfter(page, n);
  assert.equal(resumed.status, 'completed', resumed.errorMessage);
  assert.equal(await shownTraceId(), sendTrace, 'the resume continues the trace of the turn it answers');
  all = await rows();
  rootRow = all[0];
  assert.equal(rootRow.name, 'invoke_agent');
  const wait = childrenOf(all, rootRow).find((r) => r.kind === 'approval');
  assert.match(wait.text, /^approval await_approval review\.publish · approved \(waited .+\)$/);
  const under = childrenOf(all, wait);
  assert.equal(under.length, 1, 'the resume turn, under the wait it answers');
  assert.equal(under[0].name, 'invoke_agent');
  assert.match(under[0].text, new RegExp(`^turn invoke_agent · resume · completed · ${resumed.rounds} rounds? · .* · answers 1 approval$`));
  const resumeRows = childrenOf(all, under[0]);
  assert.equal(resumeRows.filter((r) => r.kind === 'chat').length, resumed.rounds, 'a chat row per round of the resume');
  assert.match(resumeRows.find((r) => r.kind === 'tool-port')?.text ?? '', /^app port tool execute_tool \S+ · app port · ok · /);
  assert.match(await page.textContent('#trace-summary'), /^2 turns · /);

  await page.locator('.trace-section').scrollIntoViewIfNeeded();
  await mkdir(path.join(root, 'dist'), { recursive: true });
  await page.locator('.trace-section').screenshot({ path: path.join(root, 'dist', 'demo-trace.png') });
  assert.deepEqual(await axe('1280×900'), []);
});

/** Draws a canned trace in the page, through the page's own recorder and a Context like the loader's. */
const drawCanned = () => page.evaluate(() => {
  const t = window.demo.trace.tracer;
  const ctx = (span) => ({ getValue: (key) => (key.description === 'OpenTelemetry Context Key SPAN' ? span : undefined) });
  const t0 = Date.now();
  const turn = t.startSpan('invoke_agent', { startTime: t0, attributes: { 'agentwasm.turn.kind': 'send' } });
  const chat = t.startSpan('chat canned-model', { kind: 2, startTime: t0 + 5 }, ctx(turn));
  chat.setAttributes({ 'gen_ai.usage.input_tokens': 38, 'gen_ai.usage.output_tokens': 12, 'gen_ai.response.time_to_first_chunk': 0.04 });
  chat.end(t0 + 417);
  const tool = t.startSpan('execute_tool honua_studio_add_layer', { startTime: t0 + 420, attributes: { 'gen_ai.tool.name': 'honua_studio_add_layer', 'agentwasm.tool.plane': 'composition' } }, ctx(turn));
  const call = t.startSpan('tools/call honua_studio_add_layer', { kind: 2, startTime: t0 + 421, attributes: { 'mcp.method.name': 'tools/call' } }, ctx(tool));
  call.setAttribute('error.type', 'tool_error');
  call.setStatus({ code: 2, message: 'stale generation' });
  call.end(t0 + 430);
  tool.setAttributes({ 'agentwasm.tool.outcome': 'error', 'error.type': 'failed_precondition' });
  tool.end(t0 + 431);
  t.startSpan('await_approval review.publish', { startTime: t0 + 440 }, ctx(turn)); // still waiting
  turn.setAttributes({ 'agentwasm.turn.status': 'completed', 'agentwasm.turn.rounds': 1 });
  turn.end(t0 + 445);
  window.demo.drawTrace(turn.spanContext().traceId);
  return turn.spanContext().traceId;
});

test('canned spans: the drawing, at 420 px too (each bar under its label, nothing wider than the screen)', { skip }, async () => {
  const traceId = await drawCanned();
  await openTrace();
  assert.equal(await shownTraceId(), traceId);
  const all = await rows();
  assert.deepEqual(all.map((r) => [r.depth, r.kind, r.error]), [
    [0, 'turn', false], [1, 'chat', false], [1, 'tool-mcp', true], [2, 'mcp', true], [1, 'approval', false],
  ]);
  assert.equal(all[1].text, 'model chat canned-model · 412 ms · 38→12 tokens · first chunk 40 ms');
  assert.match(all[2].text, /^MCP tool execute_tool honua_studio_add_layer · MCP · failed_precondition · 11 ms ⚠ error: failed_precondition$/);
  assert.match(all[4].text, /^approval await_approval review\.publish · waiting for the person \(.+ so far\)$/);
  assert.equal(await page.getAttribute('#trace-body li.span.kind-approval', 'class'), 'span kind-approval open');
  // The Copy button copies the id (or, with no clipboard, selects it).
  await page.click('#trace-body .trace-copy');
  await page.waitForFunction(() => ['Copied', 'Selected'].includes(document.querySelector('#trace-body .trace-copy').textContent));

  await page.setViewportSize({ width: 420, height: 900 });
  const layout = await page.evaluate(() => {
    const li = document.querySelector('#trace-body li.span.kind-chat');
    const label = li.querySelector('.span-label').getBoundingClientRect();
    const track = li.querySelector('.span-track').getBoundingClientRect();
    return { labelBottom: label.bottom, trackTop: track.top, wide: document.documentElement.scrollWidth, screen: innerWidth };
  });
  assert.ok(layout.trackTop >= layout.labelBottom - 1, `the bar is under its label at 420 px: ${JSON.stringify(layout)}`);
  assert.ok(layout.wide <= layout.screen, `nothing is wider than the screen: ${JSON.stringify(layout)}`);
  assert.deepEqual(await axe('420×900'), []);
  await page.setViewportSize({ width: 1280, height: 900 });
});

test('no console errors, page errors or HTTP errors', { skip }, () => {
  assert.deepEqual(problems, []);
});
