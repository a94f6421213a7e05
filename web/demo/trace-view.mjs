// The demo page's trace view: traceRows turns the spans of one trace (the
// records web/demo/trace.mjs keeps) into rows — one per span, in tree order,
// each with its depth, its kind (turn, model request, page tool, app port
// tool, MCP tool, MCP request, approval wait, discovery), a one-line text a
// person reads ("chat scripted-model · 412 ms · 38→12 tokens · first chunk
// 40 ms") and its place on the trace's time axis — and renderTrace draws
// those rows as a waterfall: nested lists with text (a screen reader hears
// the tree and every fact), a bar per span on a shared axis, an error
// marker in words, and the trace id, copyable. traceRows is pure (Node tests
// it); renderTrace needs a document.

/** The words of each kind, shown beside the span's name (the colour is never the only sign). */
export const kindWords = {
  turn: 'turn',
  chat: 'model',
  'tool-page': 'page tool',
  'tool-port': 'app port tool',
  'tool-mcp': 'MCP tool',
  'tool-unknown': 'tool',
  mcp: 'MCP request',
  'mcp-server': 'MCP server',
  approval: 'approval',
  discovery: 'discovery',
  other: 'span',
};

/** The plane's words for a tool call (the demo's tool cards use the same). */
const planeWords = { page: 'page', port: 'app port', mcp: 'MCP', unknown: 'unknown plane' };

/** A duration in words: "412 ms", "3.2 s", "14 s". */
export function formatDuration(ms) {
  if (!Number.isFinite(ms) || ms < 0) return '? ms';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  return s < 10 ? `${s.toFixed(1)} s` : `${Math.round(s)} s`;
}

/** "38→12 tokens" from a span's usage attributes, or '' when it has none. */
function tokens(a) {
  const input = a['gen_ai.usage.input_tokens'];
  const output = a['gen_ai.usage.output_tokens'];
  if (input === undefined && output === undefined) return '';
  return `${input ?? 0}→${output ?? 0} tokens`;
}

/** The plane of an execute_tool span, as the demo names it. */
function defaultPlaneOf(toolName, plane) {
  if (plane === 'composition') return 'mcp';
  if (plane === 'runtime') return 'page';
  return 'unknown';
}

/** The error a span reports (its error.type, else "error" for an ERROR status), or null. */
function errorOf(span) {
  const type = span.attributes?.['error.type'];
  if (type !== undefined) return String(type);
  return span.status?.code === 2 ? 'error' : null;
}

/** The kind of a span, from its name and attributes. */
function kindOf(span, planeOf) {
  const a = span.attributes ?? {};
  const name = span.name;
  if (name === 'invoke_agent' || a['gen_ai.operation.name'] === 'invoke_agent') return 'turn';
  if (name === 'chat' || name.startsWith('chat ')) return 'chat';
  if (name === 'await_approval' || name.startsWith('await_approval ')) return 'approval';
  if (name === 'discover_tools') return 'discovery';
  if (a['mcp.method.name'] !== undefined) return span.kind === 'server' ? 'mcp-server' : 'mcp';
  if (name.startsWith('execute_tool ') || a['gen_ai.operation.name'] === 'execute_tool') {
    return `tool-${planeOf(a['gen_ai.tool.name'] ?? name.slice('execute_tool '.length), a['agentwasm.tool.plane'])}`;
  }
  return 'other';
}

/** What the row says after the span's name, for its kind. */
function factsOf(span, kind, duration, open, planeOf) {
  const a = span.attributes ?? {};
  const took = open ? `${formatDuration(duration)} so far` : formatDuration(duration);
  const error = errorOf(span);
  const facts = [];
  switch (kind) {
    case 'turn': {
      if (a['agentwasm.turn.kind']) facts.push(String(a['agentwasm.turn.kind']));
      facts.push(open ? 'running' : String(a['agentwasm.turn.status'] ?? 'ended'));
      if (a['agentwasm.turn.rounds'] !== undefined) facts.push(`${a['agentwasm.turn.rounds']} round${a['agentwasm.turn.rounds'] === 1 ? '' : 's'}`);
      facts.push(took);
      const t = tokens(a);
      if (t) facts.push(t);
      const asked = (span.events ?? []).filter((e) => e.name === 'agentwasm.approval.requested').length;
      if (asked) facts.push(`stopped on ${asked} approval${asked === 1 ? '' : 's'}`);
      const answered = (span.events ?? []).filter((e) => e.name === 'agentwasm.approval.answered');
      if (answered.length) {
        const yes = answered.filter((e) => e.attributes?.['agentwasm.approval.approved'] === true).length;
        facts.push(yes === answered.length ? `answers ${answered.length} approval${answered.length === 1 ? '' : 's'}`
          : `answers ${answered.length} (${yes} approved)`);
      }
      break;
    }
    case 'chat': {
      // The model that answered, when the span's name does not say it (a session with no model option).
      const model = a['gen_ai.response.model'];
      if (typeof model === 'string' && model && span.name !== `chat ${model}`) facts.push(model);
      facts.push(took);
      const t = tokens(a);
      if (t) facts.push(t);
      const ttfc = a['gen_ai.response.time_to_first_chunk'];
      if (typeof ttfc === 'number') facts.push(`first chunk ${formatDuration(ttfc * 1000)}`);
      const reasons = a['gen_ai.response.finish_reasons'];
      if (Array.isArray(reasons) && reasons.length) facts.push(reasons.join(', '));
      if (error) facts.push(error);
      break;
    }
    case 'tool-page':
    case 'tool-port':
    case 'tool-mcp':
    case 'tool-unknown': {
      facts.push(planeWords[kind.slice('tool-'.length)] ?? 'unknown plane');
      facts.push(open ? 'running' : error ?? String(a['agentwasm.tool.outcome'] ?? 'ok'));
      facts.push(took);
      if (a['agentwasm.tool.retried_after_conflict'] === true) facts.push('retried after a draft conflict');
      if (a['agentwasm.approval.ask_id'] !== undefined) facts.push('asks for approval');
      break;
    }
    case 'mcp':
    case 'mcp-server': {
      facts.push(kind === 'mcp' ? 'MCP' : 'MCP server');
      if (a['mcp.method.name'] === 'tools/call' || error) facts.push(open ? 'running' : error ?? 'ok');
      facts.push(took);
      break;
    }
    case 'approval': {
      const outcome = a['agentwasm.approval.outcome'];
      if (open) facts.push(`waiting for the person (${took})`);
      else facts.push(`${outcome ?? 'answered'} (waited ${formatDuration(duration)})`);
      break;
    }
    case 'discovery': {
      const routed = a['agentwasm.discovery.routed'];
      const discovered = a['agentwasm.discovery.discovered'];
      if (routed !== undefined) facts.push(`${routed} routed${discovered !== undefined ? ` of ${discovered}` : ''}`);
      const pages = a['agentwasm.discovery.pages'];
      if (pages !== undefined) facts.push(`${pages} page${pages === 1 ? '' : 's'}`);
      if (a['agentwasm.discovery.degraded'] === true) facts.push('degraded');
      facts.push(took);
      if (error) facts.push(error);
      break;
    }
    default:
      facts.push(took);
      if (error) facts.push(error);
  }
  return facts;
}

/**
 * The trace to show among spans: traceId when given, else the trace of the invoke_agent span that
 * started last, else the trace of the span that started last; null when there are no spans.
 */
export function pickTrace(spans, traceId) {
  if (traceId) return traceId;
  const turns = spans.filter((s) => s.name === 'invoke_agent');
  const from = turns.length ? turns : spans;
  let last = null;
  for (const s of from) if (!last || s.startTime >= last.startTime) last = s;
  return last?.traceId ?? null;
}

/**
 * The rows of one trace: its spans in tree order (a child after its parent, siblings by start
 * time; a span whose parent is not among them is drawn as a root), each with
 * `{spanId, parentSpanId, depth, name, kind, kindWords, facts, text, error, errorMessage, open,
 * offset, duration, start, width}` — offset and duration in ms, start and width as fractions of the
 * trace's span of time (0..1). A span not ended yet (an approval still waiting) is open: it is
 * drawn up to `now`.
 * @param {object[]} spans span records (web/demo/trace.mjs)
 * @param {{traceId?: string, now?: number, planeOf?: (toolName: string, plane: string) => string}} [options]
 *   planeOf names an execute_tool span's plane ('page', 'port', 'mcp', 'unknown') from its tool
 *   name and agentwasm.tool.plane (default: runtime → page, composition → mcp)
 */
export function traceRows(spans, { traceId, now = Date.now(), planeOf = defaultPlaneOf } = {}) {
  const id = pickTrace(spans, traceId);
  const mine = spans.filter((s) => s.traceId === id);
  const empty = { traceId: id, startTime: null, endTime: null, duration: 0, spanCount: 0, errorCount: 0, rows: [] };
  if (!mine.length) return empty;
  const endOf = (s) => (typeof s.endTime === 'number' ? s.endTime : Math.max(now, s.startTime));
  const t0 = Math.min(...mine.map((s) => s.startTime));
  const t1 = Math.max(...mine.map(endOf));
  const total = t1 - t0;
  const ids = new Set(mine.map((s) => s.spanId));
  const children = new Map();
  const order = (x, y) => x.startTime - y.startTime || (x.seq ?? 0) - (y.seq ?? 0);
  for (const s of mine) {
    const parent = s.parentSpanId && ids.has(s.parentSpanId) ? s.parentSpanId : null;
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent).push(s);
  }
  for (const list of children.values()) list.sort(order);
  const rows = [];
  const visit = (s, depth) => {
    const open = typeof s.endTime !== 'number';
    const duration = endOf(s) - s.startTime;
    const kind = kindOf(s, planeOf);
    const facts = factsOf(s, kind, duration, open, planeOf);
    const error = errorOf(s);
    rows.push({
      spanId: s.spanId,
      parentSpanId: s.parentSpanId ?? null,
      depth,
      name: s.name,
      kind,
      kindWords: kindWords[kind] ?? kindWords.other,
      facts,
      text: [s.name, ...facts].join(' · '),
      error,
      errorMessage: error && typeof s.status?.message === 'string' ? s.status.message : null,
      open,
      offset: s.startTime - t0,
      duration,
      start: total > 0 ? (s.startTime - t0) / total : 0,
      width: total > 0 ? duration / total : 1,
    });
    for (const c of children.get(s.spanId) ?? []) visit(c, depth + 1);
  };
  for (const root of children.get(null) ?? []) visit(root, 0);
  return {
    traceId: id,
    startTime: t0,
    endTime: t1,
    duration: total,
    spanCount: rows.length,
    errorCount: rows.filter((r) => r.error).length,
    rows,
  };
}

/**
 * Draws a trace (traceRows' answer) into box: the trace id with a Copy button, a time axis, and the
 * spans as nested lists, one item per span with its kind, name, facts and error in words and its
 * bar on the shared axis. `empty` is the text shown when there is no span.
 * @param {HTMLElement} box
 * @param {ReturnType<typeof traceRows>} trace
 * @param {{empty?: string}} [options]
 */
export function renderTrace(box, trace, { empty = 'No trace yet.' } = {}) {
  const doc = box.ownerDocument;
  const el = (tag, className, text) => {
    const node = doc.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  };
  if (!trace.rows.length) {
    box.replaceChildren(el('p', 'muted small trace-empty', empty));
    return;
  }
  // The trace id, small and copyable (select it, or press Copy).
  const head = el('div', 'trace-head small');
  const idLabel = el('span', 'muted', 'Trace id');
  const id = el('code', 'trace-id', trace.traceId);
  id.title = 'The W3C trace id of this turn: the chat and MCP requests carried it in their traceparent header';
  const copy = el('button', 'quiet trace-copy', 'Copy');
  copy.type = 'button';
  copy.title = 'Copy the trace id';
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(trace.traceId);
      copy.textContent = 'Copied';
    } catch {
      // No clipboard here: select the id so the person can copy it.
      const range = doc.createRange();
      range.selectNodeContents(id);
      doc.getSelection()?.removeAllRanges();
      doc.getSelection()?.addRange(range);
      copy.textContent = 'Selected';
    }
  });
  head.append(idLabel, id, copy);

  // The axis: 0, the middle and the end of the trace.
  const axis = el('div', 'trace-axis small muted');
  axis.setAttribute('aria-hidden', 'true');
  const ticks = el('div', 'trace-ticks');
  for (const f of [0, 0.5, 1]) {
    const tick = el('span', 'trace-tick', formatDuration(trace.duration * f));
    tick.style.left = `${f * 100}%`;
    ticks.append(tick);
  }
  axis.append(el('span', 'trace-axis-label', 'Span'), ticks);

  // The spans: nested lists, so the tree is in the markup; each row's indent comes from its depth
  // (not from the lists' nesting) so that every bar sits on the same axis.
  const tree = el('ul', 'trace-tree');
  tree.setAttribute('aria-label', 'Spans of the trace, in order');
  const lists = [tree];
  for (const row of trace.rows) {
    const item = el('li', `span kind-${row.kind}${row.error ? ' has-error' : ''}${row.open ? ' open' : ''}`);
    Object.assign(item.dataset, { kind: row.kind, name: row.name, depth: String(row.depth), spanId: row.spanId });
    const line = el('div', 'span-row');
    item.style.setProperty('--depth', String(row.depth)); // the indent of its label (never of its bar: one axis for all)
    const label = el('div', 'span-label');
    const kind = el('span', 'span-kind', row.kindWords);
    const name = el('span', 'span-name', row.name);
    const facts = el('span', 'span-facts', row.facts.length ? ` · ${row.facts.join(' · ')}` : '');
    label.append(kind, ' ', name, facts);
    if (row.error) {
      const mark = el('span', 'span-error', `⚠ error: ${row.error}`);
      if (row.errorMessage) mark.title = row.errorMessage;
      label.append(' ', mark);
    }
    label.append(el('span', 'sr-only', `, from +${formatDuration(row.offset)}`));
    const track = el('div', 'span-track');
    track.setAttribute('aria-hidden', 'true');
    const bar = el('span', 'span-bar');
    bar.style.left = `${(row.start * 100).toFixed(3)}%`;
    bar.style.width = `${(Math.min(row.width, 1 - row.start) * 100).toFixed(3)}%`;
    bar.title = `${row.text} (from +${formatDuration(row.offset)})`;
    track.append(bar);
    line.append(label, track);
    item.append(line);
    // Nest: the item goes into the list of its depth (made under the previous item when deeper).
    while (lists.length > row.depth + 1) lists.pop();
    while (lists.length < row.depth + 1) {
      const parentItem = lists.at(-1).lastElementChild;
      const sub = el('ul', 'trace-tree-sub');
      (parentItem ?? lists.at(-1)).append(sub);
      lists.push(sub);
    }
    lists.at(-1).append(item);
  }
  box.replaceChildren(head, axis, tree);
}
