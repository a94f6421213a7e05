// The demo page's wiring: loads the module, builds the app's port and the
// agent session (the port as its kit, the page's own tool beside it with its
// execute, MCP tools discovered at /api/mcp), and renders the conversation —
// streamed text, each tool call with its plane, arguments, result and
// duration, approval cards for the asks a turn stopped on (answered with
// session.resume: no message to type), a card for each approval the person
// gave that nothing has used yet (with Revoke), the discovery panel, and
// Stop.
import { load } from '/dist/agentwasm.mjs';
import { studioGraph, basemapTool, createStudioApp } from './studio-app.mjs';

const $ = (id) => document.getElementById(id);
const el = (tag, className, text) => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
};

/** What the page shows about the conversation; the test reads it too. */
const state = { busy: false, controller: null, turns: [], current: null, pending: [], revoked: [] };
window.demo = { state, ready: false };

const app = createStudioApp(() => renderApp());
window.demo.performed = app.performed;
const runtime = await load();
$('module-badge').textContent = `module ${runtime.version().version}`;

const port = runtime.createPort(studioGraph, {
  page: 'edit',
  requireHumanApproval: true,
  handlers: app.handlers,
  settleWithinMs: 1000, // a fire comes back settled when it settles within a second
  onChange: () => queueMicrotask(renderApp),
});
window.demo.port = port; // for the browser test: the asks the cards show
const portTools = port.tools();
// A browser with WebMCP (document.modelContext) gets the same tools for its
// own agent, through the same gates; elsewhere this says why it did nothing.
window.demo.webmcp = await port.registerWebMCP();
const portNames = new Set(portTools.map((t) => t.name));

const session = runtime.createSession({
  baseUrl: '/api',
  // The port's tools run through the port (its gates and approvals: a turn
  // stops on an ask); the page tool runs here, with its own execute.
  kit: port,
  tools: [{ ...basemapTool, execute: (args) => app.setBasemap(args) }],
  system: () => `You are the assistant of City Map Studio, inside the page. The map "${app.view.title}" has the ` +
    `${app.view.basemap} basemap; the app is on its ${port.state().page} page. Use the studio.* tools to act in the app, ` +
    'set_basemap for the map preview, and the honua_studio_* tools to edit the draft.',
  watchToolListChanged: true,
  toolDiscoveryTimeoutMs: 5000,
  studioTools: { required: ['honua_studio_create_draft', 'honua_studio_get_draft', 'honua_studio_add_layer'] },
  onEvent,
});

// ---- the conversation ----

/** Starts a turn for the person's text. */
function send(text) {
  text = text.trim();
  if (!text || state.busy) return;
  const bubble = el('div', 'msg user');
  bubble.append(el('div', 'who', 'You'), el('div', 'body', text));
  runTurn(bubble, (signal) => session.chat(text, { signal }));
}

/**
 * Runs one turn — a chat, or a resume after an approval card — and renders
 * it: `head` goes into the log first, then the assistant's streamed answer.
 */
async function runTurn(head, start) {
  if (state.busy) return;
  state.busy = true;
  state.controller = new AbortController();
  state.revoked = []; // the revoked cards stay until the next turn
  setComposer();
  renderCards();
  $('log').append(head);
  const turnEl = el('div', 'msg assistant streaming');
  turnEl.append(el('div', 'who', 'Assistant'));
  const footer = el('div', 'turn-footer muted small', 'thinking…');
  turnEl.append(footer);
  $('log').append(turnEl);
  state.current = { el: turnEl, footer, text: null, calls: new Map(), mark: performance.now(), usage: { prompt: 0, completion: 0 } };
  scrollLog();
  setStatus('The assistant is working… (Stop aborts the turn)');
  let turn;
  try {
    turn = await start(state.controller.signal);
  } catch (err) {
    turn = { status: 'error', errorMessage: `${err.code ?? 'error'}: ${err.message}`, text: '', toolCalls: [], rounds: 0 };
  }
  finishTurn(turn);
}

/** Observes the session: streamed events, dispatches, discovery, the watch. */
function onEvent(e) {
  const cur = state.current;
  switch (e.type) {
    case 'chat':
      if (cur) onStreamEvent(cur, e.event);
      break;
    case 'toolResult':
      if (cur) onToolResult(cur, e.result);
      break;
    case 'toolDiscovery':
      renderDiscovery(e.report);
      break;
    case 'toolWatch':
      $('discovery').dataset.watch = e.status;
      renderWatch(e.status, e.detail);
      break;
  }
}

function onStreamEvent(cur, ev) {
  switch (ev.type) {
    case 'textDelta': {
      if (!cur.text) {
        cur.text = el('div', 'body');
        cur.el.insertBefore(cur.text, cur.footer);
      }
      cur.text.textContent += ev.text;
      break;
    }
    case 'toolCallStart': {
      const card = toolCard(ev.toolName);
      cur.calls.set(ev.toolCallId, { card, name: ev.toolName });
      cur.el.insertBefore(card.root, cur.footer);
      cur.text = null; // text after a tool call starts a new paragraph
      break;
    }
    case 'toolCallStop': {
      const call = cur.calls.get(ev.toolCallId);
      if (call) call.card.args.textContent = JSON.stringify(ev.toolArguments ?? {});
      break;
    }
    case 'messageStop':
      cur.mark = performance.now();
      cur.usage.prompt += ev.promptTokens ?? 0;
      cur.usage.completion += ev.completionTokens ?? 0;
      break;
    case 'error': {
      const err = el('div', 'body error', ev.errorMessage || 'The model answered with an error.');
      cur.el.insertBefore(err, cur.footer);
      cur.text = null;
      break;
    }
  }
  scrollLog();
}

/** The plane a person understands: the page, the app's port, or MCP. */
function planeOf(record) {
  if (record.plane === 'composition') return 'mcp';
  if (record.plane === 'runtime') return portNames.has(record.toolName) ? 'port' : 'page';
  return 'unknown';
}

function toolCard(name) {
  const root = el('div', 'tool pending');
  const head = el('div', 'tool-head');
  const plane = el('span', 'plane', '…');
  const title = el('code', 'tool-name', name);
  const outcome = el('span', 'outcome muted', 'running…');
  head.append(plane, title, outcome);
  const args = el('code', 'tool-args', '');
  const result = el('pre', 'tool-result', '');
  root.append(head, args, result);
  return { root, plane, outcome, args, result };
}

function onToolResult(cur, record) {
  const now = performance.now();
  const ms = Math.max(0, Math.round(now - cur.mark));
  cur.mark = now;
  const call = cur.calls.get(record.toolCallId) ?? { card: toolCard(record.toolName) };
  if (!cur.calls.has(record.toolCallId)) cur.el.insertBefore(call.card.root, cur.footer);
  const { card } = call;
  const plane = planeOf(record);
  card.root.classList.remove('pending');
  card.root.classList.add(record.ok ? 'ok' : 'failed', `plane-${plane}`);
  card.root.dataset.plane = plane;
  card.plane.textContent = { page: 'page', port: 'app port', mcp: 'MCP', unknown: 'unknown' }[plane];
  const notes = [record.ok ? 'ok' : `failed${record.errorCode ? ` (${record.errorCode})` : ''}`, `${ms} ms`];
  if (record.retriedAfterConflict) notes.push('retried after a draft conflict');
  card.outcome.textContent = notes.join(' · ');
  card.result.textContent = summarize(record);
  if (plane === 'mcp' && record.ok && record.toolName === 'honua_studio_add_layer') {
    const layer = safeJSON(call.card.args.textContent)?.layer;
    if (layer && !app.view.layers.includes(layer)) app.view.layers.push(layer);
  }
  renderApp();
  scrollLog();
}

/** A short, readable form of a dispatch's content. */
function summarize(record) {
  if (!record.ok) return record.errorMessage ?? record.content;
  const content = safeJSON(record.content);
  if (!content) return record.content;
  const data = content.data ?? content.draft ?? content.result ?? content;
  const text = JSON.stringify(data, null, 1);
  return text.length > 600 ? `${text.slice(0, 600)}…` : text;
}

function finishTurn(turn) {
  const cur = state.current;
  state.turns.push(turn);
  // The asks still waiting for the person (a chat clears the old ones).
  state.pending = turn.pendingApprovals ?? [];
  if (cur) {
    cur.el.classList.remove('streaming');
    cur.el.classList.add(`status-${turn.status}`);
    if (!cur.el.querySelector('.body') && turn.status !== 'completed') {
      cur.el.insertBefore(el('div', 'body error', turn.errorMessage || turn.status), cur.footer);
    }
    const label = { completed: 'done', cancelled: 'stopped', error: 'error', refused: 'refused' }[turn.status] ?? turn.status;
    const bits = [label, `${turn.rounds} model request${turn.rounds === 1 ? '' : 's'}`];
    if (cur.usage.prompt || cur.usage.completion) bits.push(`${cur.usage.prompt} → ${cur.usage.completion} tokens`);
    if (turn.status === 'error' && turn.errorMessage) bits.push(turn.errorMessage);
    if (state.pending.length) bits.push('waiting for your approval');
    cur.footer.textContent = bits.join(' · ');
  }
  state.current = null;
  state.busy = false;
  state.controller = null;
  setComposer();
  setStatus(turn.status === 'cancelled' ? 'Stopped.' : state.pending.length ? 'Approve or decline the card to go on.' : 'Ready.');
  renderApp();
  scrollLog();
}

// ---- approvals: the person's answers, never the model's ----

/** What an ask is for, in words: the port's willDo, else the action id. */
const askText = (ask) => ask.detail?.willDo?.does ?? ask.action;

function renderCards() {
  const box = $('cards');
  box.replaceChildren();
  if (state.busy) return; // a running turn answers no card
  for (const ask of state.pending) box.append(pendingCard(ask));
  const pendingIds = new Set(state.pending.map((a) => a.askId));
  const approved = approvedUnused().filter((a) => !pendingIds.has(a.askId));
  for (const ask of approved) box.append(approvedCard(ask));
  for (const entry of state.revoked) box.append(revokedCard(entry));
  watchApprovals(approved);
}

/** A card for an ask the turn stopped on: Approve or Decline. */
function pendingCard(ask) {
  const card = el('div', 'card');
  card.dataset.ask = ask.askId;
  card.dataset.state = 'pending';
  card.append(el('div', 'card-title', 'Approval needed'), el('div', 'card-text', `The assistant wants to: ${askText(ask)}`));
  const approve = el('button', 'primary approve', 'Approve');
  const decline = el('button', 'decline', 'Decline');
  approve.type = decline.type = 'button';
  approve.onclick = () => answer(ask, true);
  decline.onclick = () => answer(ask, false);
  const row = el('div', 'card-actions');
  row.append(approve, decline);
  card.append(row);
  return card;
}

/**
 * The port's asks the person approved that no fire has used yet (say the
 * turn was stopped, or the model answered without doing the step): each
 * stays usable until it lapses, so the page shows it with a way to take it
 * back. Ids are the port's, opaque.
 */
function approvedUnused() {
  try {
    return port.asks().filter((a) => a.state === 'approved');
  } catch {
    return []; // a closed port or a dead module holds no approval
  }
}

/** A card for an approval not used yet: Revoke withdraws it. */
function approvedCard(ask) {
  const card = el('div', 'card approved-unused');
  card.dataset.ask = ask.askId;
  card.dataset.state = 'approved';
  card.append(el('div', 'card-title', 'Approved — not used yet'), el('div', 'card-text',
    `You approved: ${ask.does ?? ask.action}. The assistant has not done it yet and still may, until the approval ` +
    'lapses. Changed your mind? Revoke it.'));
  const revoke = el('button', 'revoke', 'Revoke');
  revoke.type = 'button';
  revoke.onclick = () => revokeApproval(ask);
  const row = el('div', 'card-actions');
  row.append(revoke);
  card.append(row);
  return card;
}

/** A revoked approval (or one the port would not revoke, and why). */
function revokedCard({ ask, error }) {
  const card = el('div', `card ${error ? 'revoke-failed' : 'revoked'}`);
  card.dataset.ask = ask.askId;
  card.dataset.state = error ? 'not-revoked' : 'revoked';
  const what = ask.does ?? ask.action;
  card.append(
    el('div', 'card-title', error ? 'Not revoked' : 'Approval revoked'),
    el('div', 'card-text', error
      ? `${what}: ${error}`
      : `${what} — the assistant can no longer use this approval; it would have to ask you again.`),
  );
  return card;
}

/**
 * The person withdrew an approval: the port's human door (the model can't
 * reach it) marks the ask revoked, and a fire citing it is refused.
 */
function revokeApproval(ask) {
  let error = null;
  try {
    port.revokeAsk(ask.askId, { by: 'person' });
  } catch (err) {
    error = err.message; // used or lapsed meanwhile: the port says which
  }
  state.revoked.push({ ask, error });
  setStatus(error ? 'That approval could not be revoked (the card says why).' : 'Revoked: the assistant can no longer use that approval.');
  if (!error) {
    const note = el('div', 'msg note revoked');
    note.append(el('div', 'who', 'You'), el('div', 'body', `Revoked: ${ask.does ?? ask.action}`));
    $('log').append(note);
    scrollLog();
  }
  renderCards();
}

let approvalTimer;

/**
 * An approval lapses by itself (the port's approval TTL) with no change
 * event: while an approved card shows, look again every few seconds and
 * re-render only when the set of approved asks changed.
 */
function watchApprovals(shown) {
  clearTimeout(approvalTimer);
  if (!shown.length) return;
  const key = shown.map((a) => a.askId).join(' ');
  approvalTimer = setTimeout(() => {
    if (state.busy) return; // the turn's end renders the cards
    const now = approvedUnused().map((a) => a.askId).join(' ');
    if (now === key) watchApprovals(shown);
    else renderCards();
  }, 5000);
}

/**
 * The person answered a card: the session answers the ask through the port's
 * human door and the turn goes on where it stopped — nothing to type.
 */
function answer(ask, approved) {
  if (state.busy) return;
  state.pending = state.pending.filter((a) => a.askId !== ask.askId);
  const note = el('div', `msg note ${approved ? 'approved' : 'declined'}`);
  note.append(el('div', 'who', 'You'), el('div', 'body', `${approved ? 'Approved' : 'Declined'}: ${askText(ask)}`));
  const resolution = approved ? { approve: [ask.askId] } : { decline: [ask.askId] };
  runTurn(note, (signal) => session.resume(resolution, { signal }));
}

// ---- the app panel ----

function renderApp() {
  const { page } = port.state();
  for (const li of $('app-steps').children) {
    li.classList.toggle('current', li.dataset.page === page);
  }
  const map = $('map');
  map.className = `map basemap-${app.view.basemap}`;
  $('map-basemap').textContent = `${app.view.basemap} basemap`;
  $('map-title').textContent = app.view.title;
  const layers = $('map-layers');
  layers.replaceChildren(...app.view.layers.map((l) => el('span', `layer layer-${l}`, l)));
  const draft = session.draft();
  $('draft').textContent = draft ? `${draft.draftId} · generation ${draft.generation}` : 'none yet';
  $('layers').textContent = app.view.layers.length ? app.view.layers.join(', ') : 'none yet';
  $('published').textContent = app.view.published ? 'yes — on the public site' : 'no';
  $('published').classList.toggle('yes', app.view.published);
  renderCards();
}

// ---- the discovery panel ----

function renderDiscovery(report) {
  const body = $('discovery-body');
  body.replaceChildren();
  const degraded = Boolean(report.errorMessage);
  $('discovery').classList.toggle('degraded', degraded);
  $('discovery-summary').textContent = degraded
    ? 'MCP degraded: runtime tools only'
    : `${report.routed.length} MCP tool${report.routed.length === 1 ? '' : 's'} routed, ${report.rejected.length} refused`;
  if (degraded) body.append(el('p', 'error small', report.errorMessage));
  const local = el('div', 'group');
  local.append(el('h3', '', 'In the page'), chips([...portTools.map((t) => t.name), basemapTool.name], 'chip-local'));
  const routed = el('div', 'group routed');
  routed.append(el('h3', '', `Routed from MCP (${report.discovered} discovered)`), chips(report.routed, 'chip-routed'));
  body.append(local, routed);
  if (report.rejected.length) {
    const refused = el('div', 'group refused');
    refused.append(el('h3', '', 'Refused by the policy'));
    const list = el('ul', 'refusals');
    for (const r of report.rejected) {
      const li = el('li');
      li.append(el('code', '', r.name), el('span', 'reason', ` ${r.reason}`), el('span', 'muted small', ` — ${r.detail}`));
      list.append(li);
    }
    refused.append(list);
    body.append(refused);
  }
  if (report.missingRequired?.length) body.append(el('p', 'muted small', `Missing: ${report.missingRequired.join(', ')}`));
  const watch = el('p', 'muted small watch');
  watch.id = 'watch';
  body.append(watch);
  renderWatch($('discovery').dataset.watch ?? 'idle');
  renderApp();
}

function renderWatch(status, detail) {
  const w = $('watch');
  if (w) w.textContent = `Catalog watch: ${status}${detail ? ` (${detail})` : ''}`;
}

function chips(names, className) {
  const box = el('div', 'chips');
  for (const n of names) box.append(el('code', `chip-static ${className}`, n));
  if (!names.length) box.append(el('span', 'muted small', 'none'));
  return box;
}

// ---- composer and status ----

function setComposer() {
  $('input').disabled = false;
  $('send').disabled = state.busy;
  $('stop').disabled = !state.busy;
  for (const b of document.querySelectorAll('.suggestions .chip')) b.disabled = state.busy;
}

function setStatus(text) { $('status').textContent = text; }
function scrollLog() { $('log').scrollTop = $('log').scrollHeight; }
function safeJSON(text) { try { return JSON.parse(text); } catch { return null; } }

$('composer').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const text = $('input').value;
  $('input').value = '';
  send(text);
});
$('input').addEventListener('keydown', (ev) => {
  if (ev.key === 'Enter' && !ev.shiftKey) {
    ev.preventDefault();
    $('composer').requestSubmit();
  }
});
$('stop').addEventListener('click', () => state.controller?.abort());
for (const chip of document.querySelectorAll('.suggestions .chip')) {
  chip.addEventListener('click', () => send(chip.textContent));
}

// The model's label, from the proxy's capabilities.
fetch('/api/v1/studio/ai/capabilities').then((r) => (r.ok ? r.json() : null)).then((caps) => {
  const p = caps?.providers?.find((x) => x.name === caps.defaultProvider) ?? caps?.providers?.[0];
  $('model-badge').textContent = !p ? 'model: unknown' : p.name === 'scripted' ? 'scripted model' : `${p.name} · ${p.defaultModel || 'default model'}`;
  $('model-badge').classList.toggle('scripted', p?.name === 'scripted');
}).catch(() => { $('model-badge').textContent = 'model: unknown'; });

renderApp();
setComposer();
setStatus('Discovering tools…');
renderDiscovery(await session.refreshTools());
window.demo.session = session; // for the browser test: the history the model reads
setStatus('Ready. Type a request, or pick one below.');
const hello = el('div', 'msg assistant intro');
hello.append(el('div', 'who', 'Assistant'), el('div', 'body',
  'Hello! I run inside this page as WebAssembly. I can change the map (a page tool), edit the draft on the Studio ' +
  'server (MCP tools), and publish the map through the app\'s own journey — publishing waits for your approval.'));
$('log').append(hello);
window.demo.ready = true;
