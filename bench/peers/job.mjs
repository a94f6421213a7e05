// The job every stack of the peer benchmark does, built once and shared: one in-process fetch
// that plays both servers a chat agent talks to, and the checks of what a stack answered.
//
// - POST {BASE}/v1/chat/completions answers every request with the same OpenAI chat-completions
//   stream: 50 `delta.content` chunks, a finish chunk, a usage chunk and `[DONE]`, as SSE in
//   256-byte pieces (the bytes are made once; each request gets a new ReadableStream over them).
// - {BASE}/mcp is an MCP server over Streamable HTTP with one tool (MCP_TOOL): it answers
//   initialize, notifications, ping and tools/list with JSON, refuses server/discover (the
//   stateless era's probe) as an unknown method so that clients fall back to initialize, and
//   answers GET (the notification stream) 405.
//
// The fetch keeps the last chat request's body and counts the requests by kind, so that the
// harness can check that the tools were offered and that the MCP tools were listed once.

export const BASE = 'http://peers.test';
export const CHAT_URL = `${BASE}/v1`;
export const MCP_URL = `${BASE}/mcp`;
export const MODEL = 'peer-model';

/** The number of text deltas of every answer. */
export const DELTAS = 50;
/** The deltas' texts, and the answer they make. */
export const PIECES = Array.from({ length: DELTAS }, (_, i) => `word${i} `);
export const EXPECTED = PIECES.join('');

/** The stack's own tool, as each stack declares it in its own way. */
export const LOCAL_TOOL = {
  name: 'set_filter',
  description: 'Show only one layer of the map.',
  inputSchema: { type: 'object', properties: { layer: { type: 'string', description: 'The layer to show.' } }, required: ['layer'] },
  /** What the tool does when called (no turn of the job calls it). */
  execute: async ({ layer }) => ({ shown: layer }),
};

/** The MCP server's one tool, as its tools/list gives it. */
export const MCP_TOOL = {
  name: 'lookup_place',
  description: 'Find a place by name.',
  inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
};

const enc = new TextEncoder();
const CHUNK = 256;

/** The answer's SSE bytes, cut in CHUNK-byte pieces, made once. */
const sseChunks = (() => {
  const base = { id: 'chatcmpl-peers', object: 'chat.completion.chunk', created: 1767225600, model: MODEL };
  const events = PIECES.map((content, i) => ({
    ...base, choices: [{ index: 0, delta: i === 0 ? { role: 'assistant', content } : { content }, finish_reason: null }],
  }));
  events.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
  events.push({ ...base, choices: [], usage: { prompt_tokens: 42, completion_tokens: DELTAS, total_tokens: 42 + DELTAS } });
  const bytes = enc.encode(events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('') + 'data: [DONE]\n\n');
  const chunks = [];
  for (let i = 0; i < bytes.length; i += CHUNK) chunks.push(bytes.slice(i, i + CHUNK));
  return chunks;
})();

/** The MCP protocol version the server answers initialize with when the client asks for none it knows. */
const MCP_VERSION = '2025-06-18';
const MCP_VERSIONS = new Set(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']);

/** A request body as text (a string, bytes, or anything Response can read). */
async function bodyText(body) {
  if (body == null) return '';
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array || body instanceof ArrayBuffer) return new TextDecoder().decode(body);
  return new Response(body).text();
}

/** A JSON answer. */
const json = (value, headers = {}) => new Response(JSON.stringify(value), {
  status: 200, headers: { 'content-type': 'application/json', 'mcp-session-id': 'peers-session', ...headers },
});

/** The MCP server's answer to one JSON-RPC message. */
function mcpAnswer(message, counts) {
  counts[message.method] = (counts[message.method] ?? 0) + 1;
  if (message.id === undefined) return null; // a notification
  switch (message.method) {
    case 'initialize': {
      const asked = message.params?.protocolVersion;
      return {
        jsonrpc: '2.0', id: message.id, result: {
          protocolVersion: MCP_VERSIONS.has(asked) ? asked : MCP_VERSION,
          capabilities: { tools: { listChanged: false } },
          serverInfo: { name: 'peers-mcp', version: '1.0.0' },
        },
      };
    }
    case 'ping':
      return { jsonrpc: '2.0', id: message.id, result: {} };
    case 'tools/list':
      return { jsonrpc: '2.0', id: message.id, result: { tools: [MCP_TOOL] } };
    default:
      return { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } };
  }
}

/**
 * A fresh in-process fetch for one stack, and what it saw: `counts` of chat requests and of MCP
 * methods, and `lastChatBody()`, the last chat request's JSON. Called as a plain function, as
 * globalThis.fetch is (a URL or Request, and init).
 */
export function makeFetch() {
  const counts = { chat: 0, mcp: {} };
  let lastBody;
  async function peerFetch(input, init = {}) {
    const request = typeof input === 'object' && input !== null && 'url' in input && !(input instanceof URL) ? input : null;
    const url = new URL(request ? request.url : String(input));
    const method = (init.method ?? request?.method ?? 'GET').toUpperCase();
    const body = init.body ?? (request && method !== 'GET' ? await request.text() : undefined);
    if (url.pathname === '/v1/chat/completions' && method === 'POST') {
      counts.chat++;
      lastBody = body;
      let i = 0;
      const stream = new ReadableStream({
        pull(controller) {
          if (i < sseChunks.length) controller.enqueue(sseChunks[i++]);
          else controller.close();
        },
      });
      return new Response(stream, { status: 200, headers: { 'content-type': 'text/event-stream' } });
    }
    if (url.pathname === '/mcp') {
      if (method === 'DELETE') return new Response(null, { status: 200 });
      if (method !== 'POST') return new Response('no notification stream', { status: 405, headers: { allow: 'POST, DELETE' } });
      const message = JSON.parse(await bodyText(body));
      if (Array.isArray(message)) {
        const answers = message.map((m) => mcpAnswer(m, counts.mcp)).filter(Boolean);
        return answers.length ? json(answers) : new Response(null, { status: 202 });
      }
      const answer = mcpAnswer(message, counts.mcp);
      return answer ? json(answer) : new Response(null, { status: 202 });
    }
    return new Response(`no such endpoint: ${method} ${url.pathname}`, { status: 404 });
  }
  return {
    fetch: peerFetch,
    counts,
    /** The last chat request's body, parsed. */
    async lastChatBody() {
      return JSON.parse(await bodyText(lastBody));
    },
  };
}

/** Fails with a message naming the stack when its answer is not the job's. */
export function checkText(stack, text, turn) {
  if (text !== EXPECTED) {
    throw new Error(`${stack}: turn ${turn} answered ${JSON.stringify(String(text).slice(0, 80))}… (${String(text).length} chars), `
      + `not the ${DELTAS} deltas joined (${EXPECTED.length} chars)`);
  }
}

/** Fails when the last chat request did not offer both tools, or the MCP tools were listed more than once. */
export async function checkTools(stack, job) {
  const body = await job.lastChatBody();
  const names = (body.tools ?? []).map((t) => t.function?.name ?? t.name);
  for (const want of [LOCAL_TOOL.name, MCP_TOOL.name]) {
    if (!names.includes(want)) {
      throw new Error(`${stack}: the chat request offered the tools ${JSON.stringify(names)}, without ${want}`);
    }
  }
  const lists = job.counts.mcp['tools/list'] ?? 0;
  if (lists !== 1) throw new Error(`${stack}: the MCP tools were listed ${lists} times, not once at start`);
}
