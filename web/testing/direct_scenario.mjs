// The cross-transport scenario of the node and browser tests
// (web/test/direct_scenario.test.mjs, web/browser/direct_scenario.browser.test.mjs):
// one session of the demo's app (its serving port, its page tool
// set_basemap, the demo MCP server's composition tools) driven against
// agentwasm dev's scripted model through the Studio AI proxy or directly
// through its OpenAI-compatible endpoint, and the normalizer that leaves
// only what the transport cannot change. Plain ESM without Node built-ins,
// so a page served by agentwasm dev (--web web) imports it as it is.
import { studioGraph, basemapTool, createStudioApp } from '../demo/studio-app.mjs';

/**
 * The scenario's steps: what the person sends (a chat, or the answer to
 * the approval the previous turn stopped on) and why it is there. The
 * scripted model (cmd/agentwasm/internal/studioproxy/scripted.go) picks its
 * answer by the keywords of each message.
 */
export const steps = [
  { name: 'text', chat: 'hello there' }, // no scenario matches: plain text (its help)
  { name: 'page tool', chat: 'make the map dark' }, // set_basemap, run by the page, then a sentence
  { name: 'MCP tool', chat: 'add a schools layer' }, // honua_studio_create_draft, then honua_studio_add_layer, on /api/mcp
  { name: 'approval asked', chat: 'publish the map' }, // the port's publish journey: open_review, then publish waits for a person
  { name: 'approval resumed', approve: true }, // the person approves: the publish is performed, then a sentence
];

/**
 * Runs the scenario in one session and returns each step's turn record,
 * normalized (normalizeTurn), with what the page saw beside it.
 * @param {object} runtime a loaded runtime (load() of agentwasm.mjs)
 * @param {{baseUrl: string, model?: string | object, fetchImpl?: Function, onEvent?: Function}} options the
 *   session's Studio base (its MCP server is there too) and, for the direct run, the model as an endpoint
 * @returns {Promise<{turns: object[], raw: object[], basemap: string, published: boolean, events: object[]}>}
 */
export async function runScenario(runtime, { baseUrl, model, fetchImpl, onEvent } = {}) {
  const app = createStudioApp(() => {});
  // The demo's handlers, but a publish without the demo's pretended upload
  // pause, so the fire settles at once, whatever the machine's load.
  const handlers = {
    ...app.handlers,
    'review.publish': () => {
      app.view.published = true;
      app.view.version += 1;
      return { url: '/maps/demo', title: app.view.title, version: app.view.version };
    },
  };
  // The port's tool names are dotted (studio.journey.publish), as the demo's: the direct transport
  // sends them as studio_journey_publish (what many endpoints require) and maps the model's calls
  // back, so the records of both transports name the same tools.
  // A fire here settles at once; the wait for it is long so that a loaded machine cannot make a
  // step read as still in flight (the kit's default is 250 ms).
  const port = runtime.createPort(studioGraph, { page: 'edit', requireHumanApproval: true, handlers, settleWithinMs: 10000 });
  const events = [];
  const session = runtime.createSession({
    baseUrl,
    ...(model === undefined ? {} : { model }),
    ...(fetchImpl === undefined ? {} : { fetchImpl }),
    kit: port,
    tools: [{ ...basemapTool, execute: (args) => app.setBasemap(args) }],
    system: 'You are the assistant of City Map Studio, inside the page.',
    studioTools: { required: ['honua_studio_create_draft', 'honua_studio_add_layer'] },
    onEvent: (e) => { events.push(e); onEvent?.(e); },
  });
  const raw = [];
  try {
    let last;
    for (const step of steps) {
      if (step.approve) {
        const ask = last?.pendingApprovals?.[0];
        if (!ask) throw new Error(`step ${step.name}: the previous turn stopped on no approval: ${JSON.stringify(last)}`);
        last = await session.resume({ approve: [ask.askId] });
      } else {
        last = await session.chat(step.chat);
      }
      raw.push(last);
    }
  } finally {
    session.close();
    port.close();
  }
  return { turns: normalizeTurns(raw), raw, basemap: app.view.basemap, published: app.view.published, events };
}

/**
 * The turn records with what differs between two runs for reasons other
 * than what the model said and the tools did:
 *
 * - `latencyMs` (on the messageStop and error events of a turn's `events`)
 *   is dropped: the model request's measured duration, different on every
 *   run whatever the transport. It is the only field dropped.
 * - The port's ask ids (`ask_` and 26 random base32 letters, in
 *   pendingApprovals, in the journey's tool results and in what follows
 *   them) are replaced, consistently, by `<ask 1>`, `<ask 2>`, …: the port
 *   draws them at random so that a model cannot guess one, in either run.
 *
 * Nothing else is dropped or changed: text, tool call ids, tool names,
 * arguments, results, stop reasons, usage, rounds, error codes and the
 * turn's stream events must be the same through either transport.
 * @param {object[]} turns
 * @returns {object[]}
 */
export function normalizeTurns(turns) {
  const asks = new Map();
  const askName = (id) => {
    if (!asks.has(id)) asks.set(id, `<ask ${asks.size + 1}>`);
    return asks.get(id);
  };
  const walk = (v) => {
    if (typeof v === 'string') return v.replace(/ask_[a-z2-7]{26}/g, askName);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') {
      const out = {};
      for (const [k, x] of Object.entries(v)) {
        if (k === 'latencyMs') continue;
        out[k] = walk(x);
      }
      return out;
    }
    return v;
  };
  return turns.map((t) => walk(JSON.parse(JSON.stringify(t))));
}
