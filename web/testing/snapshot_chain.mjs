// The scenario of the snapshot chain (web/browser/snapshot_chain.browser.test.mjs,
// wazerotest/snapshot_chain_test.go): one session with a page tool runs two
// turns against a scripted Studio AI proxy (a fetch function, so no server
// is involved), its snapshot is taken, and the body of the chat request it
// sends next is recorded. A session restored from that snapshot, in any
// host, with the same options must send that body byte for byte. Plain
// ESM without Node built-ins, so a page served by agentwasm dev (--web web)
// imports it as it is. The Go test has the same scenario in its constants;
// any difference between the two changes the request, and the chain fails.

/** The session options of every host (with the fetch function added). */
export const chainOptions = {
  baseUrl: '/api',
  model: 'chain-model',
  system: 'You are the assistant of a map page.',
  disableToolDiscovery: true,
};

/** The page tool, without its execute function. */
export const chainTool = {
  name: 'set_basemap',
  description: "Sets the map's basemap",
  inputSchema: { type: 'object', properties: { style: { type: 'string' } }, required: ['style'] },
};

/** The two turns before the snapshot, then the message sent after it. */
export const chainTurns = ['hello there', 'make the map dark'];
export const chainNext = 'now zoom in on the harbour';

/** One SSE frame of the proxy's grammar. */
const frame = (event, data) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** A text answer, in parts. */
const textStream = (...parts) => frame('message_start', { model: 'fake-model' })
  + parts.map((text) => frame('text_delta', { text })).join('')
  + frame('message_stop', { stopReason: 'endTurn', promptTokens: 3, completionTokens: 2 });

/** The model's answers before the snapshot: text; a call of the page tool, then text after its result. */
export const chainReplies = [
  textStream('Hello! ', 'What shall we change?'),
  frame('message_start', { model: 'fake-model' })
    + frame('tool_call_start', { toolCallId: 'call_1', toolName: 'set_basemap' })
    + frame('tool_call_stop', { toolCallId: 'call_1', toolArguments: { style: 'dark' } })
    + frame('message_stop', { stopReason: 'toolCall' }),
  textStream('The map is dark now.'),
];

/** The answer to the request after the snapshot. */
export const chainAfter = textStream('Zoomed in.');

/**
 * A scripted proxy as a fetch function: chat requests take the next of
 * `replies` (then `chainAfter`); each chat request's body is kept as the
 * text sent, in `bodies`. The capabilities are absent (404); any other
 * request fails the chain.
 */
export function chainFetch(replies = chainReplies) {
  const bodies = [];
  const others = [];
  const fetchImpl = async (url, init = {}) => {
    // A turn that advertises tools reads the proxy's capabilities first; this proxy has none (404: absent).
    if (String(url).endsWith('/v1/studio/ai/capabilities')) return new Response('not here', { status: 404 });
    if (!String(url).endsWith('/v1/studio/ai/chat')) {
      others.push(String(url));
      return new Response('not here', { status: 404 });
    }
    const body = init.body;
    bodies.push(typeof body === 'string' ? body : new TextDecoder().decode(body));
    const answer = replies[bodies.length - 1] ?? chainAfter;
    return new Response(answer, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
  return { fetchImpl, bodies, others };
}

/** The page tool's execute: sets the basemap of a plain view. */
function toolWithExecute(view) {
  return { ...chainTool, execute: (args) => { view.basemap = args.style; return { basemap: args.style }; } };
}

/**
 * Runs the two turns, takes the snapshot, sends the next message and
 * returns the snapshot (as the plain object session.snapshot() gives), the
 * body of that next request, and what else was seen.
 * @param {object} runtime a loaded runtime (load() of agentwasm.mjs)
 */
export async function takeSnapshot(runtime) {
  const view = { basemap: 'light' };
  const { fetchImpl, bodies, others } = chainFetch();
  const session = runtime.createSession({ ...chainOptions, fetchImpl, tools: [toolWithExecute(view)] });
  try {
    const turns = [];
    for (const text of chainTurns) turns.push(await session.chat(text));
    const snapshot = session.snapshot();
    const sent = bodies.length;
    const next = await session.chat(chainNext);
    return {
      snapshot, next: bodies[sent], requests: bodies.length, others, basemap: view.basemap,
      statuses: [...turns, next].map((t) => t.status), texts: [...turns, next].map((t) => t.text),
    };
  } finally {
    session.close();
  }
}

/**
 * Restores `snapshot` (a plain object or its JSON) in a session with the
 * chain's options, sends the next message, and returns the body of the
 * one request it sent, with the turn's status and text.
 * @param {object} runtime a loaded runtime
 * @param {object | string} snapshot
 */
export async function continueSnapshot(runtime, snapshot) {
  const view = { basemap: 'light' };
  const { fetchImpl, bodies, others } = chainFetch([]);
  const session = runtime.createSession({ ...chainOptions, fetchImpl, tools: [toolWithExecute(view)], restore: snapshot });
  try {
    const turn = await session.chat(chainNext);
    return { bodies, others, status: turn.status, text: turn.text, error: turn.error };
  } finally {
    session.close();
  }
}
