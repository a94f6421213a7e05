// A session that talks to an OpenAI-compatible endpoint directly:
// createSession({ model: { baseUrl, name, apiKey | getApiKey } }) against an
// in-process endpoint (web/testing/openai.mjs) through Node's own fetch.
// Text and tool turns (a page tool whose name has dots goes out mapped and
// comes back by its own name), the recorded answers of each server shape
// (one call, parallel calls), the error codes a person can act on, the key:
// read afresh after a 401, never in a turn, an event or a thrown error, and
// never sent to another origin a redirect names; the option's checks; and,
// with a page stood in for (globalThis.location and fetch), a CORS refusal
// told from a server that is down.
import { test, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { loadRuntime } from '../testing/helpers.mjs';
import { recorded, recordedText, sendJSON, sendStream, shapes, startEndpoint } from '../testing/openai.mjs';

const runtime = await loadRuntime();
const KEY = 'sk-test-4f9c2e7a1b8d6e3f0a5c9b2d';

const endpoints = [];
after(() => Promise.all(endpoints.map((e) => e.close())));

/** Starts an endpoint closed after the file's tests. */
async function endpoint(handle, options) {
  const e = await startEndpoint(handle, options);
  endpoints.push(e);
  return e;
}

/** A session on the endpoint, recording every event. */
function directSession(e, model = {}, options = {}) {
  const events = [];
  const session = runtime.createSession({
    model: { baseUrl: e.url, name: 'm-test', ...model },
    disableToolDiscovery: true,
    onEvent: (ev) => events.push(ev),
    ...options,
  });
  return { session, events };
}

/** The page tools of the recordings: get_weather and one whose name has dots. */
function recordingTools(calls) {
  const schema = { type: 'object', properties: { place: { type: 'string' }, id: { type: 'number' } } };
  return ['get_weather', 'studio.journey.publish_map'].map((name) => ({
    name,
    description: `the ${name} tool`,
    inputSchema: schema,
    execute: (args) => {
      calls.push({ name, args });
      return { status: 'ok', data: { done: name } };
    },
  }));
}

test('a text turn: the request a chat completions endpoint expects, with the key as a bearer token', async () => {
  const e = await endpoint((req, res) => sendStream(res, recorded('openai', 'text')));
  const { session, events } = directSession(e, { apiKey: KEY }, { system: 'be brief', maxTokens: 64 });
  const turn = await session.chat('hi');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.equal(turn.text, recordedText('openai', 'text'));
  assert.equal(turn.stopReason, 'endTurn');
  assert.ok(events.some((ev) => ev.type === 'chat' && ev.event.type === 'textDelta'));
  assert.equal(e.requests.length, 1);
  const [req] = e.requests;
  assert.equal(req.method, 'POST');
  assert.equal(req.path, '/v1/chat/completions');
  assert.equal(req.headers.authorization, `Bearer ${KEY}`);
  assert.equal(req.body.model, 'm-test');
  assert.equal(req.body.stream, true);
  assert.equal(req.body.max_tokens ?? req.body.max_completion_tokens, 64);
  assert.deepEqual(req.body.messages, [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hi' }]);
  // The usage of the answer's final chunk.
  assert.ok(turn.usage?.inputTokens > 0, JSON.stringify(turn.usage));
  session.close();
});

test('no key: no Authorization header; a base without /v1 gets /v1/chat/completions', async () => {
  const e = await endpoint((req, res) => sendStream(res, recorded('llamacpp', 'text')));
  const { session } = directSession(e, { baseUrl: e.origin });
  const turn = await session.chat('hi');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.equal(turn.text, recordedText('llamacpp', 'text'));
  assert.equal(e.requests[0].path, '/v1/chat/completions');
  assert.equal(e.requests[0].headers.authorization, undefined);
  session.close();
});

test('a page tool whose name has dots goes out mapped and is dispatched by its own name; its result goes back', async () => {
  const e = await endpoint((req, res, i) => sendStream(res, recorded('openai', i === 0 ? 'parallel_calls' : 'text')));
  const calls = [];
  const { session } = directSession(e, { apiKey: KEY }, { tools: recordingTools(calls) });
  const turn = await session.chat('weather and the map');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.deepEqual(calls, [
    { name: 'get_weather', args: { place: 'Oslo' } },
    { name: 'studio.journey.publish_map', args: { id: 7 } },
  ]);
  assert.deepEqual(turn.toolCalls.map((c) => [c.toolName, c.ok]), [['get_weather', true], ['studio.journey.publish_map', true]]);
  assert.equal(turn.text, recordedText('openai', 'text'));
  assert.equal(turn.rounds, 2);

  const [first, second] = e.requests.map((r) => r.body);
  assert.deepEqual(first.tools.map((t) => t.function.name).sort(), ['get_weather', 'studio_journey_publish_map']);
  // The second request carries the calls and their results under the endpoint's names.
  const assistant = second.messages.find((m) => m.role === 'assistant');
  assert.deepEqual(assistant.tool_calls.map((c) => c.function.name), ['get_weather', 'studio_journey_publish_map']);
  const results = second.messages.filter((m) => m.role === 'tool');
  assert.deepEqual(results.map((m) => m.tool_call_id), assistant.tool_calls.map((c) => c.id));
  assert.match(results[1].content, /studio\.journey\.publish_map/);
  session.close();
});

for (const shape of shapes) {
  for (const [name, want] of [
    ['one_call', [{ name: 'get_weather', args: { place: 'Berlin' } }]],
    ['parallel_calls', [{ name: 'get_weather', args: { place: 'Oslo' } }, { name: 'studio.journey.publish_map', args: { id: 7 } }]],
  ]) {
    test(`the recorded ${shape} ${name}.sse through the js module: the calls dispatched, then the text`, async () => {
      const e = await endpoint((req, res, i) => sendStream(res, recorded(shape, i === 0 ? name : 'text'), { chunk: 41 }));
      const calls = [];
      const { session } = directSession(e, {}, { tools: recordingTools(calls) });
      const turn = await session.chat('go');
      assert.equal(turn.status, 'completed', turn.errorMessage);
      assert.deepEqual(calls, want);
      assert.equal(turn.text, recordedText(shape, name) + recordedText(shape, 'text'));
      assert.equal(e.requests.length, 2);
      session.close();
    });
  }
}

const failures = [
  { status: 401, code: 'upstream_unauthorized', body: { error: { message: 'Invalid API key' } }, says: /refused the API key \(HTTP 401\): Invalid API key; check the model's apiKey/ },
  { status: 404, code: 'upstream_not_found', body: { error: { message: 'model "m-test" not found, try pulling it first' } }, says: /HTTP 404: model "m-test" not found.*check the model name/ },
  { status: 429, code: 'upstream_rate_limited', headers: { 'retry-after': '7' }, body: { error: { message: 'Rate limit reached' } }, says: /rate limiting.*retry after 7 seconds/ },
  { status: 500, code: 'upstream_unavailable', body: { error: { message: 'out of memory' } }, says: /failed \(HTTP 500\): out of memory; retry later/ },
  { status: 200, code: 'upstream_not_openai', html: true, says: /HTML page/ },
];
for (const f of failures) {
  test(`an endpoint that answers ${f.html ? 'an HTML page' : f.status}: errorCode ${f.code}, a message that says what to do`, async () => {
    const e = await endpoint((req, res) => (f.html
      ? res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Welcome</title><p>It works!')
      : sendJSON(res, f.status, f.body, f.headers)));
    const { session } = directSession(e, { apiKey: KEY });
    const turn = await session.chat('hi');
    assert.equal(turn.status, 'error');
    assert.equal(turn.errorCode, f.code, turn.errorMessage);
    assert.match(turn.errorMessage, f.says);
    // A 401 is asked once more with a fresh key; nothing else is retried.
    assert.equal(e.requests.length, f.status === 401 ? 2 : 1);
    session.close();
  });
}

test('nothing listening: errorCode upstream_unreachable', async () => {
  const e = await startEndpoint(() => {});
  const gone = e.url;
  await e.close();
  const session = runtime.createSession({ model: { baseUrl: gone, name: 'm' }, disableToolDiscovery: true });
  const turn = await session.chat('hi');
  assert.equal(turn.status, 'error');
  assert.equal(turn.errorCode, 'upstream_unreachable', turn.errorMessage);
  session.close();
});

test('the key never shows: an endpoint that echoes it in errors leaves no trace in turns, events or thrown errors', async () => {
  const echo = (req) => `Incorrect API key provided: ${req.headers.authorization?.slice('Bearer '.length)}. You can find your API key at your account.`;
  const e = await endpoint((req, res) => {
    const said = req.body.messages.at(-1).content;
    if (said === 'first' || said === 'fourth') return sendJSON(res, 401, { error: { message: echo(req), type: 'invalid_request_error' } });
    if (said === 'second') return sendJSON(res, 400, { error: { message: echo(req) } });
    // An error inside the stream, after some text that says the key too.
    const chunk = (delta) => `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', model: 'm-test', choices: [{ index: 0, delta }] })}\n\n`;
    return sendStream(res, chunk({ role: 'assistant', content: `your key is ${KEY}` }) + `data: ${JSON.stringify({ error: { message: echo(req) } })}\n\n`);
  });
  const getApiKey = () => KEY;
  const { session, events } = directSession(e, { getApiKey });
  const turns = [];
  turns.push(await session.chat('first')); // 401 twice (the retry with forceRefresh)
  turns.push(await session.chat('second')); // 400
  const streamed = [];
  for await (const ev of session.stream('third')) streamed.push(ev);
  turns.push(await session.chat('fourth'));
  assert.deepEqual(turns.map((t) => t.errorCode), ['upstream_unauthorized', 'upstream_rejected', 'upstream_unauthorized']);
  assert.ok(streamed.some((ev) => ev.type === 'chat' && ev.event.type === 'error' && ev.event.errorCode === 'upstream_error'),
    JSON.stringify(streamed.map((ev) => ev.event ?? ev.type)));
  assert.ok(e.requests.every((r) => r.headers.authorization === `Bearer ${KEY}`), 'the key was sent');
  const seen = JSON.stringify({ turns, events, streamed, history: session.messages() });
  assert.ok(seen.includes('Incorrect API key provided'), 'the endpoint\'s messages are kept');
  assert.ok(!seen.includes(KEY), 'the key appears nowhere');
  assert.ok(!seen.includes(KEY.slice(8)), 'no part of the key appears');

  // Thrown errors: a bad option beside a key never repeats it.
  for (const model of [
    { baseUrl: e.url, name: 'm', apiKey: KEY, getApiKey },
    { baseUrl: e.url, name: 'm', apiKey: KEY, extra: KEY },
    { baseUrl: `${e.origin}/v1?key=x`, name: 'm', apiKey: KEY },
    { baseUrl: e.url, name: '', apiKey: KEY },
  ]) {
    assert.throws(() => runtime.createSession({ model }), (err) => err.code === 'bad_options' && !err.message.includes(KEY));
  }
  session.close();
});

test('getApiKey is asked for every request, and once more with forceRefresh after a 401', async () => {
  const e = await endpoint((req, res) => (req.headers.authorization === 'Bearer fresh-key'
    ? sendStream(res, recorded('vllm', 'text'))
    : sendJSON(res, 401, { error: { message: 'expired' } })));
  const asked = [];
  const getApiKey = async ({ forceRefresh }) => {
    asked.push(forceRefresh);
    return forceRefresh || asked.length > 2 ? 'fresh-key' : 'stale-key';
  };
  const { session } = directSession(e, { getApiKey });
  const turn = await session.chat('hi');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.equal(turn.text, recordedText('vllm', 'text'));
  assert.deepEqual(asked, [false, true]);
  assert.deepEqual(e.requests.map((r) => r.headers.authorization), ['Bearer stale-key', 'Bearer fresh-key']);
  // The next turn asks again, without forceRefresh.
  const again = await session.chat('again');
  assert.equal(again.status, 'completed', again.errorMessage);
  assert.deepEqual(asked, [false, true, false]);
  session.close();
});

test('getApiKey that gives null sends no key; one that gives a number fails the turn saying so', async () => {
  const e = await endpoint((req, res) => sendStream(res, recorded('ollama', 'text')));
  const none = directSession(e, { getApiKey: () => null });
  const turn = await none.session.chat('hi');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.equal(e.requests[0].headers.authorization, undefined);
  none.session.close();

  const wrong = directSession(e, { getApiKey: () => 42 });
  const failed = await wrong.session.chat('hi');
  assert.equal(failed.status, 'error');
  assert.match(failed.errorMessage, /model\.getApiKey gave a number, not a string key/);
  assert.equal(e.requests.length, 1, 'nothing was sent without its key');
  wrong.session.close();
});

// Node 20's fetch cannot send a Uint8Array body (the module's request) again after a 307 or 308: the first
// send detached its buffer, and the request fails ("fetch failed"). So the redirect is followed here through
// a fetchImpl that hands Node's fetch the same request with the body as a Blob; the headers are the module's.
test('a redirect to another origin: the endpoint there never sees the key (Node\'s fetch drops Authorization)', async () => {
  const other = await endpoint((req, res) => sendStream(res, recorded('openai', 'text')));
  const e = await endpoint((req, res) => res.writeHead(307, { location: `${other.url}/chat/completions` }).end());
  assert.notEqual(new URL(other.url).origin, new URL(e.url).origin);
  const fetchImpl = (url, init) => fetch(url, { ...init, body: init.body && new Blob([init.body]) });
  const { session } = directSession(e, { apiKey: KEY }, { fetchImpl });
  const turn = await session.chat('hi');
  assert.equal(e.requests[0].headers.authorization, `Bearer ${KEY}`);
  assert.equal(other.requests.length, 1, 'the redirect was followed');
  assert.equal(other.requests[0].headers.authorization, undefined);
  assert.equal(other.requests[0].body.model, 'm-test', 'the same request');
  assert.ok(!JSON.stringify(other.requests).includes(KEY), 'no part of the request carries the key');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  session.close();
});

test('a redirect to another origin through the host\'s own fetch: the key never reaches it either', async () => {
  const other = await endpoint((req, res) => sendStream(res, recorded('openai', 'text')));
  const e = await endpoint((req, res) => res.writeHead(307, { location: `${other.url}/chat/completions` }).end());
  const { session } = directSession(e, { apiKey: KEY });
  const turn = await session.chat('hi');
  assert.equal(e.requests[0].headers.authorization, `Bearer ${KEY}`);
  // Followed (a fetch that can send the body again) or failed (Node 20's): never with the key.
  assert.ok(other.requests.every((r) => r.headers.authorization === undefined && !JSON.stringify(r).includes(KEY)));
  assert.ok(!JSON.stringify(turn).includes(KEY));
  session.close();
});

test('model as an endpoint: each wrong shape is refused with bad_options, saying what to give', () => {
  const url = 'http://127.0.0.1:9/v1';
  const cases = [
    [42, /model must be a string .* or an object \{baseUrl, name, apiKey\?, getApiKey\?\}/],
    [[url, 'm'], /model must be a string/],
    [null, /model must be a string/],
    [{ name: 'm' }, /model\.baseUrl must be the endpoint's base URL/],
    [{ baseUrl: '', name: 'm' }, /model\.baseUrl must be/],
    [{ baseUrl: 42, name: 'm' }, /model\.baseUrl must be/],
    [{ baseUrl: 'ftp://host/v1', name: 'm' }, /absolute http:\/\/ or https:\/\/ URL .* or a path starting with \//],
    [{ baseUrl: '//host/v1', name: 'm' }, /absolute http:\/\/ or https:\/\/ URL/],
    [{ baseUrl: '/\\host/v1', name: 'm' }, /absolute http:\/\/ or https:\/\/ URL/],
    [{ baseUrl: 'v1', name: 'm' }, /absolute http:\/\/ or https:\/\/ URL/],
    [{ baseUrl: 'http://user:pw@host/v1', name: 'm' }, /query, a fragment or credentials/],
    [{ baseUrl: `${url}#x`, name: 'm' }, /query, a fragment or credentials/],
    [{ baseUrl: url }, /model\.name must be the model's name/],
    [{ baseUrl: url, name: '' }, /model\.name must be/],
    [{ baseUrl: url, name: 7 }, /model\.name must be/],
    [{ baseUrl: url, name: 'm', apiKey: 'k', getApiKey: () => 'k' }, /give model\.apiKey or model\.getApiKey, not both/],
    [{ baseUrl: url, name: 'm', apiKey: '' }, /model\.apiKey must be the key as a non-empty string/],
    [{ baseUrl: url, name: 'm', apiKey: 12345 }, /model\.apiKey must be the key as a non-empty string/],
    [{ baseUrl: url, name: 'm', apiKey: null }, /model\.apiKey must be/],
    [{ baseUrl: url, name: 'm', getApiKey: 'k' }, /model\.getApiKey must be a function/],
    [{ baseUrl: url, name: 'm', key: 'k' }, /unknown model option key/],
  ];
  for (const [model, message] of cases) {
    assert.throws(() => runtime.createSession({ model }), (err) => {
      assert.equal(err.code, 'bad_options', err.message);
      assert.ok(err instanceof TypeError);
      assert.match(err.message, message);
      assert.ok(!err.message.includes('12345'), 'a wrong key is not repeated');
      return true;
    }, JSON.stringify(model));
  }
  assert.throws(() => runtime.createSession({ model: { baseUrl: url, name: 'm' }, transport: () => [] }),
    (err) => err.code === 'bad_options' && /not both/.test(err.message));
  // A name as before, and each good endpoint form.
  for (const model of ['m', { baseUrl: url, name: 'm' }, { baseUrl: '/openai/v1', name: 'm', apiKey: 'k' },
    { baseUrl: 'https://api.example.test/v1/', name: 'm', getApiKey: () => null }]) {
    runtime.createSession({ model, disableToolDiscovery: true }).close();
  }
});

// A page stood in for: globalThis.location and a globalThis.fetch that fails
// the chat request as a browser fails a cross-origin one (a TypeError), and
// answers (or not) the loader's probe, a no-cors GET of the origin.
const realFetch = globalThis.fetch;
const hadLocation = Object.hasOwn(globalThis, 'location');
afterEach(() => {
  globalThis.fetch = realFetch;
  if (!hadLocation) delete globalThis.location;
});

/** One turn from a page at http://127.0.0.1:5173 whose fetch fails; up says whether the probe gets an answer. */
async function pageTurn(options, up) {
  globalThis.location = { origin: 'http://127.0.0.1:5173', href: 'http://127.0.0.1:5173/app/' };
  const probes = [];
  globalThis.fetch = async (url, init = {}) => {
    if (init.mode === 'no-cors') {
      probes.push({ url, init });
      if (up) return new Response(null, { status: 200 }); // stands for the opaque answer
      throw new TypeError('Failed to fetch');
    }
    throw new TypeError('Failed to fetch');
  };
  const session = runtime.createSession({ disableToolDiscovery: true, ...options });
  try {
    return { turn: await session.chat('hi'), probes };
  } finally {
    session.close();
  }
}

test('in a page, an endpoint that answers but refuses the page\'s origin: upstream_cors, refused by CORS, the servers\' settings', async () => {
  const { turn, probes } = await pageTurn({ model: { baseUrl: 'http://127.0.0.1:11434/v1', name: 'm', apiKey: KEY } }, true);
  assert.equal(turn.status, 'error');
  assert.equal(turn.errorCode, 'upstream_cors', turn.errorMessage);
  assert.match(turn.errorMessage, /this page, http:\/\/127\.0\.0\.1:5173, called another origin, http:\/\/127\.0\.0\.1:11434: .*refused by CORS/);
  for (const words of ['OLLAMA_ORIGINS', '--cors-origins', '--allowed-origins', 'lms server start --cors', 'Authorization', '/openai/v1']) {
    assert.ok(turn.errorMessage.includes(words), `${words} in ${turn.errorMessage}`);
  }
  assert.doesNotMatch(turn.errorMessage, /allow-origin|make run/, 'no Studio advice');
  assert.ok(!turn.errorMessage.includes(KEY));
  // The probe: the origin only, no credentials, no key.
  assert.equal(probes.length, 1);
  assert.equal(probes[0].url, 'http://127.0.0.1:11434/');
  assert.equal(probes[0].init.method, 'GET');
  assert.equal(probes[0].init.credentials, 'omit');
  assert.equal(probes[0].init.headers, undefined);
  assert.ok(probes[0].init.signal instanceof AbortSignal);
});

test('in a page, an endpoint that does not answer at all: upstream_unreachable, not running or a wrong baseUrl', async () => {
  const { turn } = await pageTurn({ model: { baseUrl: 'http://127.0.0.1:11434/v1', name: 'm' } }, false);
  assert.equal(turn.status, 'error');
  assert.equal(turn.errorCode, 'upstream_unreachable', turn.errorMessage);
  assert.match(turn.errorMessage, /called another origin, http:\/\/127\.0\.0\.1:11434: no server answered there, not even a plain request: it is not running, or the model's baseUrl is wrong/);
  assert.doesNotMatch(turn.errorMessage, /refused by CORS/);
});

test('in a page, the Studio AI proxy that answers but refuses the page\'s origin: refused by CORS, with agentwasm dev\'s advice', async () => {
  const { turn } = await pageTurn({ baseUrl: 'http://127.0.0.1:8080/api' }, true);
  assert.equal(turn.status, 'error');
  assert.equal(turn.errorCode, undefined, 'the Studio path keeps its codes');
  assert.match(turn.errorMessage, /^Could not reach the Studio AI proxy at .*refused by CORS.*--allow-origin http:\/\/127\.0\.0\.1:5173 \(make run ALLOW_ORIGIN=http:\/\/127\.0\.0\.1:5173\)/);
  assert.doesNotMatch(turn.errorMessage, /OLLAMA_ORIGINS/);
});

test('in a page, a turn cancelled while the probe waits ends cancelled, and the probe is aborted', async () => {
  globalThis.location = { origin: 'http://127.0.0.1:5173', href: 'http://127.0.0.1:5173/' };
  const controller = new AbortController();
  let probeSignal;
  globalThis.fetch = async (url, init = {}) => {
    if (init.mode !== 'no-cors') throw new TypeError('Failed to fetch');
    probeSignal = init.signal;
    controller.abort(); // the page gives up while the probe is out
    return new Promise((resolve, reject) => init.signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))));
  };
  const session = runtime.createSession({ model: { baseUrl: 'http://127.0.0.1:11434/v1', name: 'm' }, disableToolDiscovery: true });
  const turn = await session.chat('hi', { signal: controller.signal });
  assert.equal(turn.status, 'cancelled', turn.errorMessage);
  assert.equal(probeSignal.aborted, true);
  session.close();
});

test('in an https page, an http endpoint on another machine that does not answer: the mixed-content block is named', async () => {
  globalThis.location = { origin: 'https://app.example.test', href: 'https://app.example.test/' };
  globalThis.fetch = async () => {
    throw new TypeError('Failed to fetch');
  };
  const session = runtime.createSession({ model: { baseUrl: 'http://gpu-box.example.test:8000/v1', name: 'm' }, disableToolDiscovery: true });
  const turn = await session.chat('hi');
  assert.equal(turn.errorCode, 'upstream_unreachable', turn.errorMessage);
  assert.match(turn.errorMessage, /this page is https and the URL is http, which the browser blocks \(mixed content\)/);
  session.close();

  // A loopback endpoint is not mixed content.
  const local = runtime.createSession({ model: { baseUrl: 'http://127.0.0.1:11434/v1', name: 'm' }, disableToolDiscovery: true });
  const localTurn = await local.chat('hi');
  assert.equal(localTurn.errorCode, 'upstream_unreachable', localTurn.errorMessage);
  assert.doesNotMatch(localTurn.errorMessage, /mixed content/);
  local.close();
});

test('in a page, a probe that gets no answer within its bound: the hint says both, and the code stays upstream_unreachable', async () => {
  globalThis.location = { origin: 'http://127.0.0.1:5173', href: 'http://127.0.0.1:5173/' };
  globalThis.fetch = async (url, init = {}) => {
    if (init.mode !== 'no-cors') throw new TypeError('Failed to fetch');
    // Hangs until the loader's bound aborts it.
    return new Promise((resolve, reject) => init.signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))));
  };
  const session = runtime.createSession({ model: { baseUrl: 'http://127.0.0.1:11434/v1', name: 'm' }, disableToolDiscovery: true });
  const turn = await session.chat('hi');
  assert.equal(turn.errorCode, 'upstream_unreachable', turn.errorMessage);
  assert.match(turn.errorMessage, /if that server is running, most likely the browser refused its answer: the server does not allow this page's origin \(CORS\)\. Allow it on the server \(Ollama/);
  assert.doesNotMatch(turn.errorMessage, /refused by CORS/);
  session.close();
});
