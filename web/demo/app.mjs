// The demo page's wiring: loads the module, asks the dev server how to reach
// the model (GET /api/demo/config: the Studio AI proxy, or an
// OpenAI-compatible endpoint directly), builds the app's port and the agent
// session (the port as its kit, the page's own tool beside it with its
// execute, MCP tools discovered at /api/mcp), and renders the conversation —
// streamed text, each tool call with its plane, arguments, a one-line
// summary of its result (the full JSON one click away) and duration,
// approval cards for the asks a turn stopped on (answered with
// session.resume: no message to type), a card for each approval the person
// gave that nothing has used yet (with Revoke), the discovery panel, the map
// drawn in SVG from the app's state, suggestions that fit the model in use,
// Stop, and New conversation (a fresh app, port and session, and the demo
// server's state reset). Focus stays where the person is, and a live region
// announces each finished answer and each approval card. The conversation
// survives a reload of the tab: after every turn (an approval card
// included), after a revoke and when the page goes away, the page keeps the
// session's and the port's snapshots and the app's own state in
// sessionStorage, and on load restores them — the conversation re-rendered
// from the snapshot's history, a pending card answerable again, a turn that
// was running shown as interrupted with its text offered again. The session
// is given a recording tracer (trace.mjs): after every turn the Trace panel
// draws the last turn's spans as a waterfall (trace-view.mjs).
import { load } from '/dist/agentwasm.mjs';
import { studioGraph, basemapTool, createStudioApp } from './studio-app.mjs';
import { createTraceRecorder } from './trace.mjs';
import { traceRows, renderTrace, formatDuration } from './trace-view.mjs';

const $ = (id) => document.getElementById(id);
const el = (tag, className, text) => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
};

/** What the page shows about the conversation; the test reads it too. */
const state = { busy: false, controller: null, running: null, turns: [], current: null, pending: [], revoked: [], generations: new Map() };
window.demo = { state, ready: false };

/** The trace the panel shows (null: none yet), and whether a redraw is queued. */
let shownTrace = null;
let traceQueued = false;
/**
 * The page's tracer: it keeps the spans of the last few traces in memory (nothing leaves the page), and
 * the Trace panel draws the last turn's. A span of the trace on show that ends once the turn is over
 * (say a late answer) redraws it.
 */
const recorder = createTraceRecorder({ onChange: (span) => { if (span.traceId === shownTrace) scheduleTrace(); } });
window.demo.trace = recorder; // for the browser test: the spans themselves (and drawTrace, below)

const runtime = await load();
$('module-badge').textContent = `module ${runtime.version().version}`;

/**
 * How the session reaches its model, from the dev server (GET /api/demo/config): `{}` for the Studio AI
 * proxy under /api, or `{model: {baseUrl, name}, scripted?}` for an OpenAI-compatible endpoint the session
 * talks to directly (agentwasm dev --direct or --direct-url). No key ever comes this way: a key given to a
 * page is readable by anyone who can run script in it. A server without the route is the proxy path.
 */
const config = await fetch('/api/demo/config', { signal: AbortSignal.timeout(5000) })
  .then((r) => (r.ok ? r.json() : {}))
  .catch(() => ({}));
const direct = typeof config?.model?.baseUrl === 'string' && typeof config.model.name === 'string'
  ? { baseUrl: config.model.baseUrl, name: config.model.name } : null;
/** Whether the direct endpoint is on another origin than the page's: CORS applies then. */
const crossOrigin = direct !== null && new URL(direct.baseUrl, location.href).origin !== location.origin;

/** The model in use: from the config on the direct path, else from the proxy's capabilities; its label, and whether it is the scripted model. */
const model = direct
  ? { label: config.scripted ? 'scripted model' : direct.name, scripted: config.scripted === true }
  : await fetch('/api/v1/studio/ai/capabilities', { signal: AbortSignal.timeout(5000) }) // a silent server does not hold the page
    .then((r) => (r.ok ? r.json() : null))
    .then((caps) => {
      const p = caps?.providers?.find((x) => x.name === caps.defaultProvider) ?? caps?.providers?.[0];
      if (!p) return { label: 'model: unknown', scripted: false };
      const scripted = p.name === 'scripted';
      return { label: scripted ? 'scripted model' : `${p.name} · ${p.defaultModel || 'default model'}`, scripted };
    })
    .catch(() => ({ label: 'model: unknown', scripted: false }));
model.path = direct ? 'direct' : 'proxy';
model.direct = direct;
window.demo.model = model;
$('model-badge').textContent = model.label;
$('model-badge').classList.toggle('scripted', model.scripted);
// Which way the session talks to the model, beside the model's name.
$('path-badge').textContent = direct ? 'directly, OpenAI-compatible' : 'via the Studio proxy';
$('path-badge').title = direct
  ? `The session talks to the OpenAI-compatible endpoint ${direct.baseUrl} directly (model ${direct.name})`
  : 'The session talks to the Studio AI proxy under /api';

/**
 * The suggestions under the conversation. The scripted model answers these five (and says what it
 * does with anything else); a real model gets plain requests it can act on with this page's tools.
 */
const suggestions = model.scripted
  ? ['Make the map dark', 'Add a schools layer', 'Publish the map', 'Tell me a long story', 'Fail please']
  : ['Make the map dark', 'Add a schools layer to a new draft', 'Rename the map to "City schools"', 'Publish the map',
    'What can you do in this app?'];

// ---- the conversation kept across a reload ----

/**
 * Where the page keeps the conversation: sessionStorage, not localStorage — it belongs to this tab
 * (another tab starts its own conversation) and goes with it, so a closed tab leaves nothing behind.
 * Nothing secret is in it anyway: a session snapshot holds no key or token (the session scrubs
 * them), and the port's holds its asks, not credentials. The value is one JSON document:
 * `{v: 1, session, port, app: {view, page, state}}` (the app: its view, and the port's page and state).
 */
const STORE_KEY = 'agentwasm.demo.conversation';

/** The stored conversation, or null (none, or unreadable: then it is dropped). */
function loadStored() {
  let text = null;
  try { text = sessionStorage.getItem(STORE_KEY); } catch { return null; } // storage disabled: nothing kept
  if (!text) return null;
  try {
    const stored = JSON.parse(text);
    if (stored?.v === 1 && stored.session && stored.port && stored.app?.view) return stored;
  } catch { /* dropped below */ }
  clearStored();
  return null;
}

/** Forgets the stored conversation. */
function clearStored() {
  try { sessionStorage.removeItem(STORE_KEY); } catch { /* storage disabled */ }
}

/**
 * Stores the conversation as it is now: the session's snapshot (taken while a turn runs, it holds the
 * state at the turn's start and the turn's text as interrupted), the port's (its pending and
 * approved-unused asks) and the app's state. A conversation with nothing in it is not kept.
 */
function saveConversation() {
  if (!session || !port || state.resetting) return;
  let snap;
  let portSnap;
  let page = 'edit';
  let portState = {};
  try {
    snap = session.snapshot();
    portSnap = port.snapshot();
    ({ page, state: portState } = port.state());
  } catch {
    return; // a closed session or port: New conversation is building the next
  }
  if (!snap.history?.length && !snap.pending?.length && !snap.interrupted) {
    clearStored();
    return;
  }
  const stored = {
    v: 1,
    session: snap,
    port: portSnap,
    app: { view: app.view, page, state: portState },
  };
  try {
    sessionStorage.setItem(STORE_KEY, JSON.stringify(stored));
  } catch (err) {
    setStatus(`This conversation could not be kept for a reload (${err.name}); it goes on here.`);
  }
}

// The page going away (a reload, a navigation) keeps the conversation as it is then, a running turn included.
addEventListener('pagehide', () => saveConversation());

// The app, its port and the session: made anew by New conversation.
let app;
let port;
let portTools;
let portNames;
let session;

/**
 * Builds the app's state, its port and the agent session, and publishes them for the browser tests.
 * Given a stored conversation, the app takes its stored state and the port and the session are made
 * with `restore` from their snapshots; a snapshot they refuse throws (code bad_snapshot) with nothing
 * left made.
 */
async function setup(stored = null) {
  const thisApp = createStudioApp(() => { if (app === thisApp) renderApp(); });
  if (stored) Object.assign(thisApp.view, stored.app.view);
  const thisPort = runtime.createPort(studioGraph, {
    page: stored?.app.page ?? 'edit',
    ...(stored?.app.state && Object.keys(stored.app.state).length ? { state: stored.app.state } : {}),
    requireHumanApproval: true,
    handlers: thisApp.handlers,
    settleWithinMs: 1000, // a fire comes back settled when it settles within a second
    onChange: () => queueMicrotask(renderApp),
    ...(stored ? { restore: stored.port } : {}),
  });
  let s;
  try {
    s = runtime.createSession({
      baseUrl: '/api', // the MCP server at /api/mcp; and the Studio AI proxy unless the model is direct
      // An OpenAI-compatible endpoint the session talks to directly, without a key (agentwasm dev --direct).
      ...(direct ? { model: { baseUrl: direct.baseUrl, name: direct.name } } : {}),
      // The port's tools run through the port (its gates and approvals: a turn
      // stops on an ask); the page tool runs here, with its own execute.
      kit: thisPort,
      tools: [{ ...basemapTool, execute: (args) => thisApp.setBasemap(args) }],
      system: () => systemPrompt(s),
      watchToolListChanged: true,
      toolDiscoveryTimeoutMs: 5000,
      studioTools: { required: ['honua_studio_create_draft', 'honua_studio_get_draft', 'honua_studio_add_layer'] },
      onEvent: (e) => { if (s === session) onEvent(e); },
      tracer: recorder.tracer, // the spans of every turn, for the Trace panel
      ...(stored ? { restore: stored.session } : {}),
    });
  } catch (err) {
    try { thisPort.close(); } catch { /* closed already */ }
    throw err;
  }
  app = thisApp;
  window.demo.performed = app.performed;
  window.demo.app = app; // for the browser test: the app's view (its published version)
  port = thisPort;
  window.demo.port = port; // for the browser test: the asks the cards show
  portTools = port.tools();
  portNames = new Set(portTools.map((t) => t.name));
  session = s;
  // A browser with WebMCP (document.modelContext) gets the same tools for its
  // own agent, through the same gates; elsewhere this says why it did nothing.
  window.demo.webmcp = await port.registerWebMCP();
  renderApp();
  setStatus('Discovering tools…');
  renderDiscovery(await s.refreshTools());
  window.demo.session = s; // for the browser test: the history the model reads
}

/**
 * The system prompt, naming each tool exactly as the session offers it (the port's tools, the page's
 * tool, the MCP tools discovery routed), so the model's instructions match the tools it sees.
 */
function systemPrompt(s) {
  let mcp = [];
  try { mcp = s.toolDiscovery().routed; } catch { /* a closed session */ }
  return `You are the assistant of City Map Studio, inside the page. The map "${app.view.title}" has the ` +
    `${app.view.basemap} basemap; the app is on its ${port.state().page} page. ` +
    `To act in the app (rename the map, open its review, publish it), use: ${portTools.map((t) => t.name).join(', ')}. ` +
    `To change the basemap of the map preview, use ${basemapTool.name}. ` +
    (mcp.length ? `To edit the map's draft on the Studio server (create it, add layers), use: ${mcp.join(', ')}. `
      : 'The Studio server\'s draft tools are not available right now. ') +
    'Publishing waits for the person\'s approval in the page: when a step waits, say so and stop.';
}

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
function runTurn(head, start) {
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
  const signal = state.controller.signal;
  state.running = (async () => {
    let turn;
    try {
      turn = await start(signal);
    } catch (err) {
      turn = { status: 'error', errorMessage: `${err.code ?? 'error'}: ${err.message}`, text: '', toolCalls: [], rounds: 0 };
    }
    finishTurn(turn);
  })();
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
      if (call) {
        call.arguments = ev.toolArguments ?? {};
        call.card.args.textContent = Object.keys(call.arguments).length ? JSON.stringify(call.arguments) : '';
      }
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
      cur.errorShown = true;
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

/** A tool call's card: its plane, name, outcome, arguments, summary, and the full result in a details. */
function toolCard(name) {
  const root = el('div', 'tool pending');
  const head = el('div', 'tool-head');
  const plane = el('span', 'plane', '…');
  const title = el('code', 'tool-name', name);
  const outcome = el('span', 'outcome muted', 'running…');
  head.append(plane, title, outcome);
  const args = el('code', 'tool-args', '');
  const summary = el('div', 'tool-summary', '');
  root.append(head, args, summary);
  return { root, name, plane, outcome, args, summary };
}

function onToolResult(cur, record) {
  const now = performance.now();
  const ms = Math.max(0, Math.round(now - cur.mark));
  cur.mark = now;
  const call = cur.calls.get(record.toolCallId) ?? { card: toolCard(record.toolName) };
  if (!cur.calls.has(record.toolCallId)) cur.el.insertBefore(call.card.root, cur.footer);
  const { plane } = showResult(call.card, record, call.arguments, `${ms} ms`);
  if (plane === 'mcp' && record.ok && record.toolName === 'honua_studio_add_layer') {
    const layer = call.arguments?.layer;
    if (typeof layer === 'string' && layer && !app.view.layers.includes(layer)) app.view.layers.push(layer);
  }
  renderApp();
  scrollLog();
}

/**
 * Shows a tool call's result in its card: its plane, outcome (with `timing`, when known), summary and
 * the full result. `answered` marks a restored step that waited for an approval the person has answered
 * since (the history says the step waited; the answer is further on). Answers the call's plane.
 */
function showResult(card, record, args, timing, answered = false) {
  const plane = planeOf(record);
  const content = safeJSON(record.content);
  const data = content?.data;
  // A step the port holds for the person's approval is waiting, not done.
  const held = record.ok && plane === 'port' && (data?.judgment === 'needs-confirm' || data?.judgment === 'awaiting-human');
  const waiting = held && !answered;
  card.root.classList.remove('pending');
  card.root.classList.add(waiting ? 'waiting' : record.ok ? 'ok' : 'failed', `plane-${plane}`);
  card.root.dataset.plane = plane;
  if (waiting && typeof data.askId === 'string') card.root.dataset.ask = data.askId; // the card's answer updates it
  card.plane.textContent = { page: 'page', port: 'app port', mcp: 'MCP', unknown: 'unknown' }[plane];
  const notes = [waiting ? 'waiting for your approval' : held ? 'you answered'
    : record.ok ? 'ok' : `failed${record.errorCode ? ` (${record.errorCode})` : ''}`];
  if (timing) notes.push(timing);
  if (record.retriedAfterConflict) notes.push('retried after a draft conflict');
  card.outcome.textContent = notes.join(' · ');
  const doing = held ? (data.willDo?.does ?? data.does ?? (data.action && actionWords(data.action)) ?? 'this step') : '';
  card.summary.textContent = held && !waiting ? `You answered the approval: ${lower(doing)}.` : summarize(record, plane, content, args);
  card.root.append(resultDetails(record, content));
  return { plane, waiting };
}

let resultCount = 0;

/** The full result, pretty-printed and whole, behind a click, in a scroll region a keyboard can reach. */
function resultDetails(record, content) {
  const details = el('details', 'tool-json');
  details.append(el('summary', '', 'Full result (JSON)'));
  const pre = el('pre', '', content ? JSON.stringify(content, null, 2) : record.content ?? '');
  pre.tabIndex = 0;
  pre.setAttribute('role', 'region');
  resultCount += 1; // each region's name is its own
  pre.setAttribute('aria-label', `Full result of ${record.toolName} (call ${resultCount})`);
  details.append(pre);
  return details;
}

/** One line a person understands, from a dispatch's result: its status and data, never raw JSON. */
function summarize(record, plane, content, args) {
  if (!record.ok) return record.errorMessage || content?.message || content?.deniedReason || 'The call failed.';
  if (!content) return record.content ? firstLine(record.content) : 'Done.';
  if (content.status && content.status !== 'ok' && content.deniedReason) return content.deniedReason;
  if (plane === 'port' && content.data && typeof content.data === 'object') return portSummary(content.data);
  if (record.toolName === basemapTool.name && typeof content.data?.basemap === 'string') {
    return content.data.changed === false ? `The basemap was already ${content.data.basemap}: nothing changed.`
      : `The basemap is now ${content.data.basemap}.`;
  }
  if (content.draft?.draftId) {
    // The server moves a draft to its next generation on every change: an edit that leaves it where it was changed nothing.
    const { draftId, generation } = content.draft;
    const before = state.generations.get(draftId);
    state.generations.set(draftId, generation);
    const layer = record.toolName === 'honua_studio_add_layer' && typeof args?.layer === 'string' ? args.layer : null; // set_layer_style names one too
    if (layer && before === generation) return `Draft ${draftId} already has the ${layer} layer: nothing changed (still at generation ${generation}).`;
    return `${layer ? `Added the ${layer} layer: draft` : 'Draft'} ${draftId} is now at generation ${generation}.`;
  }
  if (content.result !== undefined) return mcpText(content.result);
  if (content.data !== undefined) return plainFacts(content.data);
  return 'Done.';
}

/** The text an MCP result carries (its first text block), else its fields in words. */
function mcpText(result) {
  const blocks = Array.isArray(result) ? result : Array.isArray(result?.content) ? result.content : null;
  const text = blocks?.find((b) => b?.type === 'text')?.text;
  if (typeof text === 'string') {
    const inner = safeJSON(text);
    return inner && typeof inner === 'object' ? plainFacts(inner) : firstLine(text);
  }
  return plainFacts(result);
}

/** An object's plain fields as "key: value" pairs, on one line. */
function plainFacts(data) {
  if (data === null || data === undefined) return 'Done.';
  if (typeof data !== 'object') return firstLine(String(data));
  const pairs = Object.entries(data)
    .filter(([, v]) => ['string', 'number', 'boolean'].includes(typeof v))
    .map(([k, v]) => `${k}: ${v}`);
  const rest = Object.keys(data).length - pairs.length;
  if (!pairs.length) return rest ? `A result with ${rest} field${rest === 1 ? '' : 's'}: see the full result.` : 'Done.';
  return firstLine(pairs.join(' · ') + (rest ? ` · and ${rest} more` : ''));
}

function firstLine(text) {
  const line = String(text).split('\n')[0];
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** What an action id does, in the graph's words. */
function actionWords(id) {
  return studioGraph.actions.find((a) => a.id === id)?.does ?? id;
}

/**
 * A port result in words. The port's judgments are its vocabulary for the model (one-ready-step,
 * navigate-or-wait, …); the person reads what happened and what comes next.
 */
function portSummary(data) {
  if (typeof data.summary === 'string' && data.summary) return data.summary;
  const next = data.readySteps?.[0]?.does ?? (data.readySteps?.[0]?.step && actionWords(data.readySteps[0].step));
  const did = data.did ? (data.does ?? actionWords(data.did)) : null;
  const doing = data.willDo?.does ?? data.does ?? (data.action && actionWords(data.action));
  switch (data.judgment) {
    case 'one-ready-step':
      return did ? `Done: ${lower(did)}.${next ? ` Next: ${lower(next)}.` : ''}` : `Ready to go on${next ? `: next, ${lower(next)}` : ''}.`;
    case 'needs-choice':
      return `More than one way on${data.readySteps?.length ? `: ${data.readySteps.map((r) => lower(r.does ?? r.step)).join(', or ')}` : ''}.`;
    case 'navigate-or-wait':
      return `Nothing to do from here: the app is on its ${data.youAreOn ?? 'current'} page, where this has no step ready.`;
    case 'done':
      return did ? `Done: ${lower(did)}.` : `Done${doing ? `: ${lower(doing)}` : ''}.`;
    case 'needs-confirm':
    case 'awaiting-human':
      return `Waiting for your approval: ${lower(doing ?? 'this step')}.`;
    case 'approved-not-yet-done':
      return `You approved: ${lower(doing ?? 'this step')}. It has not been done yet.`;
    case 'declined':
      return `You declined: ${lower(doing ?? 'this step')}. Nothing was done.`;
    case 'still-pending':
      return `Still under way${doing ? `: ${lower(doing)}` : ''}.`;
    case 'approval-no-longer-valid':
      return 'That approval no longer holds; the assistant has to ask you again.';
    case 'approval-withdrawn':
      return 'You withdrew that approval: nothing was done.';
    case 'blocked':
    case 'rejected':
    case 'error':
      return `Not done${data.why ? `: ${data.why}` : '.'}`;
  }
  if (data.effectStatus === 'performed') return `Done${doing ? `: ${lower(doing)}` : ''}.`;
  if (typeof data.youAreOn === 'string' && data.ok !== false) return `The app is on its ${data.youAreOn} page.`;
  if (data.ok === false) return `Not done${data.why ? `: ${data.why}` : '.'}`;
  return 'Done.';
}

/** A phrase from the graph's words, to go inside a sentence. */
function lower(text) {
  return /^[A-Z][a-z]/.test(text) ? text[0].toLowerCase() + text.slice(1) : text;
}

function finishTurn(turn) {
  const cur = state.current;
  state.turns.push(turn);
  // The asks still waiting for the person (a chat clears the old ones).
  state.pending = turn.pendingApprovals ?? [];
  const waiting = state.pending.length > 0;
  if (cur) {
    cur.el.classList.remove('streaming');
    cur.el.classList.add(`status-${turn.status}`);
    cur.el.classList.toggle('waiting', waiting);
    // One error text: the stream's error event showed it already, or it is shown here.
    if (turn.status === 'error' && !cur.errorShown) {
      cur.el.insertBefore(el('div', 'body error', turn.errorMessage || 'The turn failed.'), cur.footer);
    } else if (turn.status === 'cancelled' && !cur.el.querySelector('.body')) {
      cur.el.insertBefore(el('div', 'body muted', 'Stopped before an answer.'), cur.footer);
    } else if (turn.status === 'refused' && !cur.el.querySelector('.body')) {
      cur.el.insertBefore(el('div', 'body error', turn.errorMessage || 'The turn was refused.'), cur.footer);
    }
    const hint = corsHint(turn);
    if (hint) cur.el.insertBefore(el('div', 'body muted small cors-hint', hint), cur.footer);
    const label = waiting ? 'waiting for your approval'
      : { completed: 'done', cancelled: 'stopped', error: 'error', refused: 'refused' }[turn.status] ?? turn.status;
    const bits = [label, `${turn.rounds} model request${turn.rounds === 1 ? '' : 's'}`];
    if (cur.usage.prompt || cur.usage.completion) bits.push(`${cur.usage.prompt} → ${cur.usage.completion} tokens`);
    cur.footer.textContent = bits.join(' · ');
    cur.footer.classList.toggle('waiting', waiting);
  }
  state.current = null;
  state.busy = false;
  state.controller = null;
  state.running = null;
  setComposer();
  setStatus(turn.status === 'cancelled' ? 'Stopped.' : waiting ? 'Approve or decline the card to go on.' : 'Ready.');
  renderApp();
  drawTrace();
  scrollLog();
  // What a screen reader hears: the finished answer, then any card waiting for the person.
  const said = turn.status === 'error' ? `The turn failed: ${turn.errorMessage || 'no reason given'}`
    : turn.status === 'cancelled' ? `Stopped.${turn.text ? ` ${turn.text}` : ''}`
      : turn.text || (waiting ? '' : 'Done.');
  const cards = state.pending.map((ask) => `Approval needed: ${askText(ask)}.`);
  announce([said && `Assistant: ${said}`, ...cards].filter(Boolean).join(' '));
  saveConversation(); // the turn's end, and any card it stopped on, survive a reload
}

/**
 * What to do when the page could not read a direct endpoint on another origin: the browser reports a
 * refused cross-origin answer as a failed fetch, so the session says upstream_cors (or, when it cannot
 * tell, upstream_unreachable). '' for anything else.
 */
function corsHint(turn) {
  if (!crossOrigin || turn.status !== 'error' || !['upstream_cors', 'upstream_unreachable'].includes(turn.errorCode)) return '';
  const page = location.origin;
  return `This page (${page}) calls ${direct.baseUrl} itself. If that server is running, it most likely does not ` +
    `allow this page's origin (CORS): allow ${page} there (Ollama: OLLAMA_ORIGINS=${page} ollama serve; LM Studio: ` +
    'lms server start --cors; docs/MODELS.md has the others), or let this server call it for the page: ' +
    `make run UPSTREAM=${direct.baseUrl} MODEL=${direct.name} DIRECT=1.`;
}

// ---- approvals: the person's answers, never the model's ----

/** What an ask is for, in words: the port's willDo, else the action's words. */
const askText = (ask) => ask.detail?.willDo?.does ?? ask.does ?? actionWords(ask.action);

/** Re-renders the cards, keeping the focus on the same button when it is still there. */
function renderCards() {
  const box = $('cards');
  const active = document.activeElement;
  const had = box.contains(active) && active !== box
    ? { ask: active.closest('.card')?.dataset.ask, cls: [...active.classList].find((c) => ['approve', 'decline', 'revoke'].includes(c)) }
    : null;
  box.replaceChildren();
  if (!state.busy) { // a running turn answers no card
    for (const ask of state.pending) box.append(pendingCard(ask));
    const pendingIds = new Set(state.pending.map((a) => a.askId));
    const approved = approvedUnused().filter((a) => !pendingIds.has(a.askId));
    for (const ask of approved) box.append(approvedCard(ask));
    for (const entry of state.revoked) box.append(revokedCard(entry));
    watchApprovals(approved);
  }
  if (had) {
    const same = [...box.querySelectorAll('.card')].find((c) => c.dataset.ask === had.ask)?.querySelector(`button.${had.cls}`);
    if (same) same.focus();
    else focusNextCardOrComposer();
  }
}

/** Focus after an answer: the next card's first button, else the composer. */
function focusNextCardOrComposer() {
  const next = $('cards').querySelector('.card button:not(:disabled)');
  (next ?? $('input')).focus();
}

/** A card for an ask the turn stopped on: Approve or Decline. */
function pendingCard(ask) {
  const card = el('div', 'card');
  card.dataset.ask = ask.askId;
  card.dataset.state = 'pending';
  card.setAttribute('role', 'group');
  const title = el('div', 'card-title', 'Approval needed');
  title.id = `card-title-${ask.askId}`;
  card.setAttribute('aria-labelledby', title.id);
  card.append(title, el('div', 'card-text', `The assistant wants to: ${askText(ask)}`));
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
  focusNextCardOrComposer();
  saveConversation(); // the port's asks changed
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
 * human door and the turn goes on where it stopped — nothing to type. The
 * card goes while the turn runs, so the focus moves to the composer.
 */
function answer(ask, approved) {
  if (state.busy) return;
  state.pending = state.pending.filter((a) => a.askId !== ask.askId);
  const note = el('div', `msg note ${approved ? 'approved' : 'declined'}`);
  note.append(el('div', 'who', 'You'), el('div', 'body', `${approved ? 'Approved' : 'Declined'}: ${askText(ask)}`));
  const resolution = approved ? { approve: [ask.askId] } : { decline: [ask.askId] };
  markAnswered(ask, approved);
  runTurn(note, (signal) => session.resume(resolution, { signal }));
  focusNextCardOrComposer();
}

/**
 * The step that waited for this ask, and its turn, say the person's answer instead of "waiting for your approval"
 * (the turn's footer once none of its steps waits any more).
 */
function markAnswered(ask, approved) {
  for (const tool of document.querySelectorAll('#log .tool.waiting')) {
    if (tool.dataset.ask !== ask.askId) continue;
    tool.classList.replace('waiting', approved ? 'ok' : 'declined');
    const outcome = tool.querySelector('.outcome');
    outcome.textContent = outcome.textContent.replace('waiting for your approval', approved ? 'you approved' : 'you declined');
    tool.querySelector('.tool-summary').textContent = `${approved ? 'You approved' : 'You declined'}: ${lower(askText(ask))}.`;
    const turn = tool.closest('.msg');
    if (turn && !turn.querySelector('.tool.waiting')) {
      turn.classList.remove('waiting');
      const footer = turn.querySelector('.turn-footer');
      footer.classList.remove('waiting');
      footer.textContent = footer.textContent.replace('waiting for your approval', approved ? 'you approved' : 'you declined');
    }
  }
}

// ---- the trace of the last turn ----

/** Redraws the trace panel soon (once per frame), unless a turn is running: its trace is drawn when it ends. */
function scheduleTrace() {
  if (traceQueued || state.busy) return;
  traceQueued = true;
  requestAnimationFrame(() => {
    traceQueued = false;
    if (!state.busy) drawTrace(shownTrace);
  });
}

/** The plane of a traced tool call as the tool cards name it: the page, the app's port, or MCP. */
const tracePlane = (toolName, plane) => planeOf({ toolName, plane });

/**
 * Draws the trace of the last turn (or of traceId) in the Trace panel: the send and, when it stopped on an
 * approval, the wait and the resume under it — they are one trace.
 */
function drawTrace(traceId = recorder.lastTurnTrace()) {
  shownTrace = traceId;
  const trace = traceRows(traceId ? recorder.spans(traceId) : [], { traceId, planeOf: tracePlane });
  renderTrace($('trace-body'), trace, { empty: 'No trace yet: the trace of the next turn shows here once it ends.' });
  const turns = trace.rows.filter((r) => r.kind === 'turn').length;
  $('trace-summary').textContent = trace.rows.length
    ? `${turns} turn${turns === 1 ? '' : 's'} · ${trace.spanCount} spans · ${formatDuration(trace.duration)}` +
      (trace.errorCount ? ` · ${trace.errorCount} with an error` : '')
    : 'no turn yet';
}

window.demo.drawTrace = drawTrace;

// ---- the app panel ----

function renderApp() {
  if (!port || !session) return;
  let page = 'edit';
  try { page = port.state().page; } catch { /* a closed port: New conversation is building the next */ }
  for (const li of $('app-steps').children) {
    const current = li.dataset.page === page;
    li.classList.toggle('current', current);
    if (current) li.setAttribute('aria-current', 'step');
    else li.removeAttribute('aria-current');
  }
  renderMap();
  let draft = null;
  try { draft = session.draft(); } catch { /* a closed session */ }
  $('draft').textContent = draft ? `${draft.draftId} · generation ${draft.generation}` : 'none yet';
  $('layers').textContent = app.view.layers.length ? app.view.layers.join(', ') : 'none yet';
  $('published').textContent = app.view.published ? 'yes — on the public site' : 'no';
  $('published').classList.toggle('yes', app.view.published);
  renderCards();
}

// ---- the map, drawn from the app's state ----

const SVG = 'http://www.w3.org/2000/svg';
const svg = (tag, attrs = {}, text) => {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
};

/** The basemaps' colours: land, water, parks, roads, minor roads, the title's ink and its backdrop. */
const basemaps = {
  light: { land: '#eef1e8', water: '#b9d6ee', park: '#cfe4c2', road: '#ffffff', minor: '#dfe3e8', ink: '#1d2430', plate: '#ffffffd9' },
  dark: { land: '#1f2633', water: '#22415f', park: '#243a2c', road: '#3d4a60', minor: '#2c3647', ink: '#f1f4f9', plate: '#141a24d9' },
  satellite: { land: '#4a6b3a', water: '#1e3d52', park: '#3a5a2c', road: '#b7ae93', minor: '#6f7b5c', ink: '#ffffff', plate: '#18240fd9' },
};

/** Where each layer's features are: points for schools and unknown layers; parks and rivers draw shapes. */
const schoolSpots = [[72, 58], [148, 112], [226, 52], [286, 128], [338, 70], [212, 160]];
const layerColours = { schools: '#d35400', parks: '#2b8a3e', rivers: '#1971c2' };
const otherSpots = [[60, 100], [190, 140], [250, 92], [318, 40], [360, 150]];

/** Draws the map (basemap, streets, water, parks, each layer, the title) with a name and description saying what it shows. */
function renderMap() {
  const { basemap, layers, title, published } = app.view;
  const c = basemaps[basemap] ?? basemaps.light;
  const box = $('map');
  box.className = `map basemap-${basemap}`;
  const root = svg('svg', { viewBox: '0 0 400 190', role: 'img', 'aria-labelledby': 'map-name map-desc' });
  const known = layers.filter((l) => layerColours[l]);
  const other = layers.filter((l) => !layerColours[l]);
  const described = layers.map((l) => (l === 'schools' ? `the schools layer (${schoolSpots.length} schools shown as orange points)`
    : l === 'parks' ? 'the parks layer (parks outlined in green)'
      : l === 'rivers' ? 'the rivers layer (the river drawn in blue)' : `the ${l} layer (shown as points)`));
  root.append(
    svg('title', { id: 'map-name' }, `Map preview: ${title}`),
    svg('desc', { id: 'map-desc' }, `The map "${title}" on the ${basemap} basemap, ` +
      (layers.length ? `with ${described.join(' and ')}` : 'with no layers yet') +
      `. ${published ? 'It is published on the public site.' : 'It is not published.'}`),
  );
  const g = svg('g', { 'aria-hidden': 'true' });
  g.append(svg('rect', { x: 0, y: 0, width: 400, height: 190, fill: c.land }));
  // Parks, the river, and the streets: the basemap.
  for (const d of ['M40 120 l38 -8 l12 30 l-42 10 z', 'M250 20 l55 4 l-6 34 l-52 -6 z', 'M300 150 l60 -10 l8 30 l-62 8 z']) {
    g.append(svg('path', { d, fill: c.park, ...(known.includes('parks') ? { stroke: layerColours.parks, 'stroke-width': 2.5 } : {}) }));
  }
  const river = 'M-10 84 C 60 70, 110 110, 180 96 S 300 60, 410 92';
  g.append(svg('path', { d: river, fill: 'none', stroke: c.water, 'stroke-width': 14, 'stroke-linecap': 'round' }));
  if (known.includes('rivers')) g.append(svg('path', { d: river, fill: 'none', stroke: layerColours.rivers, 'stroke-width': 4 }));
  for (const d of ['M0 40 L400 30', 'M0 150 L400 168', 'M120 0 L100 190', 'M240 0 L270 190', 'M330 0 L350 190']) {
    g.append(svg('path', { d, stroke: c.minor, 'stroke-width': 2, fill: 'none' }));
  }
  for (const d of ['M0 118 L400 128', 'M190 0 L176 190']) g.append(svg('path', { d, stroke: c.road, 'stroke-width': 5, fill: 'none' }));
  // Point layers: schools, then any other layer the model added.
  if (known.includes('schools')) {
    for (const [x, y] of schoolSpots) {
      g.append(svg('circle', { cx: x, cy: y, r: 6.5, fill: layerColours.schools, stroke: '#fff', 'stroke-width': 2 }));
      g.append(svg('path', { d: `M${x - 3} ${y + 1} l3 -3.5 l3 3.5 z`, fill: '#fff' }));
    }
  }
  other.forEach((layer, i) => {
    const colour = ['#7048e8', '#c2255c', '#0b7285', '#5c940d'][i % 4];
    otherSpots.forEach(([x, y], k) => g.append(svg('rect', {
      x: x + i * 9 - 5, y: y + ((k + i) % 3) * 6 - 5, width: 10, height: 10, rx: 2, fill: colour, stroke: '#fff', 'stroke-width': 1.5,
    })));
  });
  // The title, the basemap and the legend, on plates so they read on any basemap.
  const titleText = title.length > 34 ? `${title.slice(0, 33)}…` : title;
  g.append(svg('rect', { x: 6, y: 6, width: Math.min(300, 16 + titleText.length * 8.4), height: 24, rx: 5, fill: c.plate }));
  g.append(svg('text', { x: 14, y: 23, fill: c.ink, 'font-size': 14, 'font-weight': 650 }, titleText));
  if (published) {
    g.append(svg('rect', { x: 316, y: 6, width: 78, height: 22, rx: 11, fill: '#17703f' }));
    g.append(svg('text', { x: 355, y: 21.5, fill: '#fff', 'font-size': 11.5, 'font-weight': 650, 'text-anchor': 'middle' }, 'Published'));
  }
  const legend = layers.map((l, i) => [l, layerColours[l] ?? ['#7048e8', '#c2255c', '#0b7285', '#5c940d'][other.indexOf(l) % 4], i]);
  const legendText = `${basemap} basemap`;
  const lw = Math.max(110, ...layers.map((l) => 34 + l.length * 7));
  const lh = 20 + legend.length * 16;
  g.append(svg('rect', { x: 6, y: 184 - lh, width: lw, height: lh, rx: 5, fill: c.plate }));
  g.append(svg('text', { x: 14, y: 184 - lh + 14, fill: c.ink, 'font-size': 11 }, legendText));
  for (const [name, colour, i] of legend) {
    const y = 184 - lh + 30 + i * 16;
    g.append(svg('circle', { cx: 19, cy: y - 4, r: 5, fill: colour, stroke: '#fff', 'stroke-width': 1.5 }));
    g.append(svg('text', { x: 30, y, fill: c.ink, 'font-size': 11 }, name));
  }
  root.append(g);
  box.replaceChildren(root);
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

// ---- composer, status, suggestions ----

function setComposer() {
  $('input').disabled = false;
  $('send').disabled = state.busy;
  $('stop').disabled = !state.busy;
  $('new-conversation').disabled = false;
  for (const b of document.querySelectorAll('.suggestions .chip')) b.disabled = state.busy;
}

function setStatus(text) { $('status').textContent = text; }
function scrollLog() { $('log').scrollTop = $('log').scrollHeight; }
function safeJSON(text) { try { return JSON.parse(text); } catch { return null; } }

/** Says a finished answer or a new card to screen readers, through the live region. */
function announce(text) {
  const region = $('announcer');
  // The same words twice in a row would be no change, and some screen readers would say
  // nothing: a trailing no-break space, added or dropped, makes the second one a change.
  region.textContent = region.textContent === text ? `${text}\u00a0` : text;
  window.demo.announced = text;
}

function renderSuggestions() {
  const box = $('suggestions');
  box.replaceChildren(...suggestions.map((text) => {
    const chip = el('button', 'chip', text);
    chip.type = 'button';
    chip.addEventListener('click', () => {
      send(text);
      $('input').focus(); // the chip is disabled while the turn runs: the person stays in the composer
    });
    return chip;
  }));
}

$('composer').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const text = $('input').value;
  $('input').value = '';
  send(text);
  $('input').focus(); // after Send, the person stays in the composer
});
$('input').addEventListener('keydown', (ev) => {
  if (ev.key === 'Enter' && !ev.shiftKey) {
    ev.preventDefault();
    $('composer').requestSubmit();
  }
});
$('stop').addEventListener('click', () => {
  state.controller?.abort();
  $('input').focus(); // Stop is disabled once the turn ends: the focus goes to the composer
});
$('new-conversation').addEventListener('click', () => newConversation());

// ---- a new conversation ----

/**
 * Starts over: stops any turn, clears the log and the cards, makes a fresh app, port and session (an
 * empty history, no draft, the app on its edit page) and asks the demo server to drop its drafts and
 * catalog changes (POST /api/demo/reset). A server without that route is said quietly, and the page
 * goes on.
 */
async function newConversation() {
  if (state.resetting) return;
  state.resetting = true;
  $('new-conversation').disabled = true;
  $('input').disabled = true;
  try {
    state.controller?.abort();
    await state.running;
    clearTimeout(approvalTimer);
    const [oldSession, oldPort] = [session, port];
    session = null; // the old session's events are not this conversation's
    try { oldSession.close(); } catch { /* closed already */ }
    try { oldPort.close(); } catch { /* closed already */ }
    Object.assign(state, { turns: [], current: null, pending: [], revoked: [], generations: new Map() });
    clearStored(); // a reload now starts from this new conversation
    $('log').replaceChildren();
    $('cards').replaceChildren();
    drawTrace(null); // the new conversation has no turn yet
    const serverNote = await resetServer();
    await setup();
    greet();
    setStatus(`New conversation.${serverNote} Type a request, or pick one below.`);
    announce('New conversation.');
  } catch (err) {
    setStatus(`Could not start a new conversation: ${err.message}. Reload the page to start over.`);
  } finally {
    state.resetting = false;
    setComposer();
    $('input').focus();
  }
}

/** Resets the demo server's state; answers a note for the status line ('' when it worked). */
async function resetServer() {
  try {
    const r = await fetch('/api/demo/reset', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    const body = r.ok ? await r.json().catch(() => null) : null;
    if (body?.reset === true) return '';
    return r.status === 404 || r.status === 405
      ? ' (This server cannot reset its drafts: they stay as they were.)'
      : ` (The server did not reset its drafts: HTTP ${r.status}.)`;
  } catch {
    return ' (The server could not be reached to reset its drafts.)';
  }
}

/** The assistant's first words: what it can do (nothing the model in use would not do). */
function greet() {
  const hello = el('div', 'msg assistant intro');
  hello.append(el('div', 'who', 'Assistant'), el('div', 'body',
    'Hello! I run inside this page as WebAssembly. I can change the map (a page tool), edit the draft on the Studio ' +
    'server (MCP tools), and publish the map through the app\'s own journey — publishing waits for your approval.'));
  $('log').append(hello);
}

// ---- a conversation restored after a reload ----

/**
 * Renders the restored conversation from the session snapshot's history, compactly: the person's
 * messages, the assistant's text and its tool calls with their summaries (no timings: they were not
 * kept), and the notes of the person's answers to approval cards. A step that waited for an approval
 * still pending waits again (its card's answer updates it); one answered since says so.
 */
function renderHistory(snap) {
  const pendingIds = new Set((snap.pending ?? []).map((a) => a.askId));
  const calls = new Map();
  let turnEl = null;
  let prev = null;
  const endTurn = () => {
    if (!turnEl) return;
    const waiting = Boolean(turnEl.querySelector('.tool.waiting'));
    turnEl.classList.toggle('waiting', waiting);
    const footer = el('div', 'turn-footer muted small', waiting ? 'waiting for your approval · from before the reload' : 'from before the reload');
    footer.classList.toggle('waiting', waiting);
    turnEl.append(footer);
    turnEl = null;
  };
  for (const m of snap.history ?? []) {
    if (m.role === 'user') {
      endTurn();
      // A user message right after tool results is the session's note of the person's answers to cards.
      const note = prev === 'tool';
      const bubble = el('div', note ? 'msg note restored' : 'msg user restored');
      bubble.append(el('div', 'who', 'You'), el('div', 'body', m.content));
      $('log').append(bubble);
    } else if (m.role === 'assistant') {
      if (!turnEl) {
        turnEl = el('div', 'msg assistant restored');
        turnEl.append(el('div', 'who', 'Assistant'));
        $('log').append(turnEl);
      }
      if (m.content) turnEl.append(el('div', 'body', m.content));
      for (const c of m.toolCalls ?? []) {
        const card = toolCard(c.name);
        const args = typeof c.arguments === 'string' ? safeJSON(c.arguments) : c.arguments;
        card.args.textContent = args && Object.keys(args).length ? JSON.stringify(args) : '';
        calls.set(c.id, { card, args });
        turnEl.append(card.root);
      }
    } else if (m.role === 'tool') {
      const call = calls.get(m.toolCallId);
      if (call) {
        const content = safeJSON(m.content);
        const ok = !(content?.status === 'error' || content?.ok === false || content?.isError === true);
        const askId = content?.data?.askId;
        const toolName = m.toolName || call.card.name;
        // The history keeps no plane: the page's and the port's tools are the runtime's, the rest came from MCP.
        const plane = portNames.has(toolName) || toolName === basemapTool.name ? 'runtime' : 'composition';
        showResult(call.card, { toolName, toolCallId: m.toolCallId, plane, ok, content: m.content },
          call.args, '', !(typeof askId === 'string' && pendingIds.has(askId)));
      }
    }
    prev = m.role;
  }
  endTurn();
  if (snap.interrupted?.text) {
    // The turn that was running when the page went away: its request, and the chance to send it again.
    const bubble = el('div', 'msg user restored');
    bubble.append(el('div', 'who', 'You'), el('div', 'body', snap.interrupted.text));
    const stopped = el('div', 'msg assistant interrupted');
    stopped.append(el('div', 'who', 'Assistant'), el('div', 'body muted',
      'Interrupted: the page went away while this turn ran, and its answer was not kept. Your request is back in the box below: send it again?'));
    $('log').append(bubble, stopped);
    $('input').value = snap.interrupted.text;
  }
  scrollLog();
}

/**
 * Builds the page from the stored conversation, if there is one: answers true when it restored it. A
 * snapshot the module refuses (bad_snapshot: from an older or newer build, or damaged) or that fails
 * otherwise is dropped with a quiet note, and the page starts afresh.
 */
async function restoreOrStart() {
  const stored = loadStored();
  if (stored) {
    try {
      await setup(stored);
      greet();
      renderHistory(stored.session);
      state.pending = stored.session.pending ?? [];
      return true;
    } catch (err) {
      clearStored();
      try { session?.close(); } catch { /* closed already */ }
      try { port?.close(); } catch { /* closed already */ }
      session = null;
      const why = err?.code === 'bad_snapshot' ? 'this version of the page cannot read it' : err?.message ?? String(err);
      window.demo.restoreError = { code: err?.code ?? null, message: err?.message ?? String(err) };
      await setup();
      greet();
      $('log').append(el('div', 'msg note muted small restore-dropped', `The conversation kept from before the reload could not be restored (${why}); starting afresh.`));
      return false;
    }
  }
  await setup();
  greet();
  return false;
}

renderSuggestions();
drawTrace(null);
const restored = await restoreOrStart();
setComposer();
renderApp();
if (restored) {
  const waiting = state.pending.length;
  setStatus(waiting ? 'The conversation from before the reload is back. Approve or decline the card to go on.'
    : 'The conversation from before the reload is back. Type a request, or pick one below.');
  announce(['Conversation restored.', ...state.pending.map((ask) => `Approval needed: ${askText(ask)}.`)].join(' '));
} else {
  setStatus('Ready. Type a request, or pick one below.');
}
window.demo.restored = restored;
window.demo.ready = true;
