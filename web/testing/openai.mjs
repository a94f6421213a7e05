// An OpenAI-compatible chat completions endpoint for the tests (web/test,
// web/browser): a node:http server on a free loopback port that records
// every request (method, path, headers, parsed body) and answers as the
// test's handler says, streaming the recorded answers of real servers
// (internal/openai/testdata/streams/<shape>/<case>.sse) in several writes.
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';

/** The folder of the recorded streams, one subfolder per server shape. */
export const streams = new URL('../../internal/openai/testdata/streams/', import.meta.url);

/** The server shapes the recordings come from. */
export const shapes = ['openai', 'ollama', 'llamacpp', 'vllm', 'lmstudio'];

/** The body of a recorded answer, byte for byte (as text). */
export function recorded(shape, name) {
  return readFileSync(new URL(`${shape}/${name}.sse`, streams), 'utf8');
}

/** The events a recorded answer must translate to (its .events.jsonl). */
export function recordedEvents(shape, name) {
  return readFileSync(new URL(`${shape}/${name}.events.jsonl`, streams), 'utf8')
    .split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line));
}

/** The text of a recorded answer: its textDelta events joined. */
export function recordedText(shape, name) {
  return recordedEvents(shape, name).filter((e) => e.type === 'textDelta').map((e) => e.text).join('');
}

/**
 * Streams text as an event stream in writes of about `chunk` bytes (so
 * that events and even lines are split across reads), then ends.
 * @param {import('node:http').ServerResponse} res
 * @param {string} text
 * @param {{chunk?: number, headers?: Record<string, string>}} [options]
 */
export async function sendStream(res, text, { chunk = 97, headers = {} } = {}) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += chunk) {
    res.write(bytes.subarray(i, i + chunk));
    await new Promise((r) => setImmediate(r)); // one write per turn of the loop
  }
  res.end();
}

/**
 * Starts an endpoint. Each request is recorded in `requests`, then answered
 * by handle(request, res, index), where request is {method, path, headers,
 * body} (body parsed as JSON when it is), and index counts the requests
 * that were not preflights. With `cors` (an origin, or '*'), every answer
 * carries Access-Control-Allow-Origin for it and preflights (OPTIONS) are
 * answered allowing POST with the Authorization, Content-Type and Accept
 * headers; preflights are recorded too, and never reach handle.
 * @param {(request: {method: string, path: string, headers: import('node:http').IncomingHttpHeaders, body: any},
 *   res: import('node:http').ServerResponse, index: number) => unknown} handle
 * @param {{cors?: string}} [options]
 * @returns {Promise<{url: string, origin: string, requests: object[], close: () => Promise<void>}>}
 */
export async function startEndpoint(handle, { cors } = {}) {
  const requests = [];
  let answered = 0;
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const text = Buffer.concat(chunks).toString();
    let body = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // kept as text
    }
    const request = { method: req.method, path: req.url, headers: req.headers, body };
    requests.push(request);
    if (cors) res.setHeader('access-control-allow-origin', cors);
    if (cors && req.method === 'OPTIONS') {
      res.writeHead(204, {
        'access-control-allow-methods': 'POST',
        'access-control-allow-headers': 'authorization, content-type, accept',
        'access-control-max-age': '0',
      }).end();
      return;
    }
    try {
      await handle(request, res, answered++);
    } catch (err) {
      res.destroy(err);
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return {
    url: `${origin}/v1`,
    origin,
    requests,
    close: () => new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

/** Answers a JSON body with a status (and extra headers). */
export function sendJSON(res, status, value, headers = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value));
}
