// Browser test of issue 28's cross-transport scenario: in headless Chromium,
// a page served by agentwasm dev (--web web, so the page imports
// web/testing/direct_scenario.mjs and the demo's app as they are) runs the
// same session (text, the page tool set_basemap, the demo MCP server's
// composition tools, the port's publish journey stopping on an approval,
// then resumed) through the Studio AI proxy (baseUrl '/api') and directly
// through the dev server's OpenAI-compatible endpoint (model {baseUrl:
// '/openai/v1'}, a path of the page's origin), with the page's own fetch;
// the turn records must be the same apart from the transport's own fields
// (direct_scenario.mjs says which, and why), and the same as in Node.
// Each run has a dev server of its own, so each starts from the same state.
// Run with `make browsertest` after `make build`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { browserMissing, launchChromium } from '../testing/browser.mjs';
import { startDevServer } from '../testing/devserver.mjs';
import { assertCompleted } from '../testing/direct_scenario_assert.mjs';
import { runScenario } from '../testing/direct_scenario.mjs';
import { loadRuntime } from '../testing/helpers.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const binary = path.join(root, 'dist', 'agentwasm');
const skip = browserMissing({ [binary]: 'make dist/agentwasm' }) || false;

let browser;
const servers = [];
const problems = []; // page errors and console errors

before(async () => {
  if (skip) return;
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  for (const child of servers) child.kill();
});

/**
 * Starts a dev server of its own, opens a blank page of its origin, and
 * runs the scenario there with `model` (undefined: through the proxy).
 * Returns the run as plain data, with the paths the page's fetch asked for.
 */
async function runInPage(model) {
  const started = startDevServer(binary, ['--pace', '0s', '--web', 'web', '--dist', 'dist'], { cwd: root });
  servers.push(started.child);
  const base = await started.url;
  const page = await browser.newPage();
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console: ${msg.text()}`); });
  // A blank document of the dev server's origin: the page's requests are same-origin, as the demo's are.
  await page.route(`${base}/direct_scenario.html`, (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>direct scenario</title>' }));
  await page.goto(`${base}/direct_scenario.html`);
  try {
    return await page.evaluate(async (model) => {
      const { load } = await import('/dist/agentwasm.mjs');
      const { runScenario } = await import('/testing/direct_scenario.mjs');
      const runtime = await load();
      const paths = [];
      const fetchImpl = (url, init) => {
        paths.push(new URL(String(url), location.href).pathname);
        return fetch(url, init);
      };
      const run = await runScenario(runtime, { baseUrl: '/api', model, fetchImpl });
      return { turns: run.turns, raw: run.raw, basemap: run.basemap, published: run.published, paths };
    }, model);
  } finally {
    await page.close();
  }
}

let proxied;

test('in a page, the scenario completes through the Studio AI proxy', { skip }, async () => {
  proxied = await runInPage(undefined);
  assertCompleted(proxied);
  const model = proxied.paths.filter((p) => p !== '/api/mcp');
  assert.ok(model.every((p) => p.startsWith('/api/v1/studio/ai/')), JSON.stringify(model));
  assert.ok(proxied.paths.includes('/api/mcp'), 'the MCP tools were discovered on /api/mcp');
  assert.deepEqual(problems, []);
});

test('in a page, the scenario completes directly against the OpenAI-compatible endpoint, with the same turn records', { skip }, async () => {
  assert.ok(proxied, 'the proxied run ran first');
  const direct = await runInPage({ baseUrl: '/openai/v1', name: 'scripted-model' });
  assertCompleted(direct);
  const chats = proxied.paths.filter((p) => p === '/api/v1/studio/ai/chat').length;
  assert.deepEqual(direct.paths.filter((p) => p !== '/api/mcp'), Array(chats).fill('/openai/v1/chat/completions'),
    'every model request went to the endpoint, as many as the proxied run\'s chats');
  assert.ok(direct.paths.includes('/api/mcp'), 'the MCP tools were still discovered on /api/mcp');
  assert.deepEqual(direct.turns, proxied.turns);
  assert.deepEqual(problems, []);
});

test('the page\'s turn records are the ones Node gets from the same run', { skip }, async () => {
  assert.ok(proxied, 'the proxied run ran first');
  const started = startDevServer(binary, ['--pace', '0s'], { cwd: root });
  servers.push(started.child);
  const base = await started.url;
  const node = await runScenario(await loadRuntime(), { baseUrl: `${base}/api`, model: { baseUrl: `${base}/openai/v1`, name: 'scripted-model' } });
  assertCompleted(node);
  assert.deepEqual(node.turns, proxied.turns);
});
