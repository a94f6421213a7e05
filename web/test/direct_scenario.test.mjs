// Node test of issue 28's cross-transport scenario: the same session of the
// demo's app (text, the page tool set_basemap, the demo MCP server's
// composition tools, the port's publish journey stopping on an approval,
// then resumed) run against agentwasm dev's scripted model through the
// Studio AI proxy (baseUrl /api) and directly through its OpenAI-compatible
// endpoint (model {baseUrl: /openai/v1}), with the same turn records apart
// from the transport's own fields (web/testing/direct_scenario.mjs says
// which, and why); then the direct run against an endpoint that requires a
// key: given, the turns complete and the key appears in no record or event;
// wrong, the first turn ends with upstream_unauthorized. Each run has a dev
// server of its own, so each starts from the same state (the demo MCP
// server numbers its drafts across resets). Needs `make build` (the module
// and dist/agentwasm).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { loadRuntime } from '../testing/helpers.mjs';
import { startDevServer } from '../testing/devserver.mjs';
import { runScenario, steps } from '../testing/direct_scenario.mjs';
import { assertCompleted } from '../testing/direct_scenario_assert.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const binary = path.join(root, 'dist', 'agentwasm');
if (!existsSync(binary)) throw new Error(`${binary} not found: run make build dist/agentwasm (make nodetest does)`);

const runtime = await loadRuntime();
const servers = [];
after(() => { for (const child of servers) child.kill(); });

/** Starts a dev server of its own (the scripted model without pauses) and returns its URL. */
async function devServer(args = [], env = undefined) {
  const started = startDevServer(binary, ['--pace', '0s', ...args], { cwd: root, env: env && { ...process.env, ...env } });
  servers.push(started.child);
  return started.url;
}

/** fetch, recording each request's URL and Authorization header. */
function recordingFetch() {
  const requests = [];
  const fetchImpl = (url, init) => {
    requests.push({ url: String(url), authorization: new Headers(init?.headers).get('authorization') });
    return fetch(url, init);
  };
  return { requests, fetchImpl };
}

/** The paths of the recorded requests that are not MCP's (the model's: chats, and the proxy's capabilities). */
const modelPaths = (requests) => requests.map((r) => new URL(r.url).pathname).filter((p) => p !== '/api/mcp');

let proxied; // the run through the Studio AI proxy, the reference
let proxiedChats; // how many chat requests it made

test('the scenario completes through the Studio AI proxy', async () => {
  const base = await devServer();
  const { requests, fetchImpl } = recordingFetch();
  proxied = await runScenario(runtime, { baseUrl: `${base}/api`, fetchImpl });
  assertCompleted(proxied);
  const paths = modelPaths(requests);
  assert.ok(paths.every((p) => p.startsWith('/api/v1/studio/ai/')), JSON.stringify(paths));
  proxiedChats = paths.filter((p) => p === '/api/v1/studio/ai/chat').length;
  assert.ok(proxiedChats >= steps.length, JSON.stringify(paths));
  assert.ok(requests.some((r) => new URL(r.url).pathname === '/api/mcp'), 'the MCP tools were discovered on /api/mcp');
});

test('the scenario completes directly against the OpenAI-compatible endpoint, with the same turn records', async () => {
  assert.ok(proxied, 'the proxied run ran first');
  const base = await devServer();
  const { requests, fetchImpl } = recordingFetch();
  const direct = await runScenario(runtime, {
    baseUrl: `${base}/api`,
    model: { baseUrl: `${base}/openai/v1`, name: 'scripted-model' },
    fetchImpl,
  });
  assertCompleted(direct);
  // Every model request went to the endpoint, as many as the proxied run's chats (one per round), none to the proxy.
  const paths = modelPaths(requests);
  assert.deepEqual(paths, Array(proxiedChats).fill('/openai/v1/chat/completions'));
  assert.ok(requests.some((r) => new URL(r.url).pathname === '/api/mcp'), 'the MCP tools were still discovered on /api/mcp');
  assert.deepEqual(direct.turns, proxied.turns);
});

test('direct with a key: the turns complete and the key appears in no record or event; a wrong key is upstream_unauthorized', async () => {
  assert.ok(proxied, 'the proxied run ran first');
  const key = 'sk-crossjs-3f9c1e7a52d84b06';
  const base = await devServer(['--openai-key', key]);
  const { requests, fetchImpl } = recordingFetch();
  const seen = [];
  const keyed = await runScenario(runtime, {
    baseUrl: `${base}/api`,
    model: { baseUrl: `${base}/openai/v1`, name: 'scripted-model', apiKey: key },
    fetchImpl,
    onEvent: (e) => seen.push(e),
  });
  assertCompleted(keyed);
  assert.deepEqual(keyed.turns, proxied.turns);
  assert.ok(seen.length > 0);
  const outputs = JSON.stringify([keyed.raw, keyed.events, seen]);
  assert.ok(!outputs.includes(key), 'the key is in no turn record or event');
  // The key went to the endpoint, as a bearer token, and nowhere else.
  for (const r of requests) {
    const endpoint = new URL(r.url).pathname === '/openai/v1/chat/completions';
    assert.equal(r.authorization, endpoint ? `Bearer ${key}` : null, r.url);
  }

  const wrong = 'sk-crossjs-wrong-0000';
  const events = [];
  const session = runtime.createSession({
    baseUrl: `${base}/api`,
    model: { baseUrl: `${base}/openai/v1`, name: 'scripted-model', apiKey: wrong },
    disableToolDiscovery: true,
    onEvent: (e) => events.push(e),
  });
  const turn = await session.chat('hello there');
  session.close();
  assert.equal(turn.status, 'error');
  assert.equal(turn.errorCode, 'upstream_unauthorized', turn.errorMessage);
  assert.ok(turn.errorMessage, 'the error says what to do');
  for (const k of [key, wrong]) assert.ok(!JSON.stringify([turn, events]).includes(k), 'no key in the failed turn or its events');
});
