// Browser test of issue 29's chain across hosts: a session snapshot taken in
// Chromium continues in Node, in the wasip1 module under wazero and
// natively in Go, and each sends the same next request, byte for byte.
// One chain in this one process: a page served by agentwasm dev (--web web,
// so it imports web/testing/snapshot_chain.mjs as it is) runs two turns
// with a page-tool call through a scripted fetch, takes session.snapshot()
// and records the body of the chat request it sends after it; Node restores
// that snapshot (createSession({restore})) and sends the same message; then
// `go test -run TestSnapshotChainContinuesUnderWazeroAndNatively ./wazerotest`,
// given the snapshot and the body in a temporary directory
// (AGENTWASM_SNAPSHOT_CHAIN), does the same in the wasip1 module and in a
// native session. Run with `make browsertest` after `make build`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { browserMissing, launchChromium } from '../testing/browser.mjs';
import { startDevServer } from '../testing/devserver.mjs';
import { loadRuntime } from '../testing/helpers.mjs';
import { chainNext, continueSnapshot } from '../testing/snapshot_chain.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const binary = path.join(root, 'dist', 'agentwasm');
const skip = browserMissing({ [binary]: 'make dist/agentwasm' }) || false;

let browser;
let server;
const problems = []; // page errors and console errors
const dir = mkdtempSync(path.join(tmpdir(), 'agentwasm-snapshot-chain-'));

before(async () => {
  if (skip) return;
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  server?.kill();
  rmSync(dir, { recursive: true, force: true });
});

/** What the page saw: the snapshot, the next request's body, the turns. */
let taken;

test('in a page, a session of two turns with a tool call gives its snapshot and sends its next request', { skip }, async () => {
  const started = startDevServer(binary, ['--pace', '0s', '--web', 'web', '--dist', 'dist'], { cwd: root });
  server = started.child;
  const base = await started.url;
  const page = await browser.newPage();
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console: ${msg.text()}`); });
  await page.route(`${base}/snapshot_chain.html`, (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>snapshot chain</title>' }));
  await page.goto(`${base}/snapshot_chain.html`);
  try {
    taken = await page.evaluate(async () => {
      const { load } = await import('/dist/agentwasm.mjs');
      const { takeSnapshot } = await import('/testing/snapshot_chain.mjs');
      const run = await takeSnapshot(await load());
      // What a page stores (localStorage takes strings), and reads back after a reload.
      localStorage.setItem('agentwasm-chain', JSON.stringify(run.snapshot));
      return { ...run, stored: JSON.parse(localStorage.getItem('agentwasm-chain') ?? 'null') };
    });
  } finally {
    await page.close();
  }
  assert.deepEqual(taken.statuses, ['completed', 'completed', 'completed'], JSON.stringify(taken.texts));
  assert.equal(taken.basemap, 'dark', 'the page tool ran');
  assert.equal(taken.requests, 4, 'one request for the first turn, two for the tool turn, one after the snapshot');
  assert.deepEqual(taken.others, [], 'no request but the chats');
  assert.equal(taken.snapshot.format, 'agentwasm.session');
  assert.equal(taken.snapshot.version, 1);
  assert.deepEqual(taken.snapshot.history.map((m) => m.role), ['user', 'assistant', 'user', 'assistant', 'tool', 'assistant']);
  assert.deepEqual(taken.stored, taken.snapshot, 'the snapshot survives JSON storage as it is');
  const next = JSON.parse(taken.next);
  assert.equal(next.messages.at(-1).content, chainNext);
  assert.equal(next.messages.length, 7, 'the history and the next message');
  assert.deepEqual(problems, []);
});

test('restored in Node, the session sends the page\'s next request byte for byte', { skip }, async () => {
  assert.ok(taken, 'the page ran first');
  const runtime = await loadRuntime();
  // The plain object, and its JSON as a page would store it.
  for (const snapshot of [taken.snapshot, JSON.stringify(taken.snapshot)]) {
    const node = await continueSnapshot(runtime, snapshot);
    assert.equal(node.status, 'completed', JSON.stringify(node.error));
    assert.equal(node.text, 'Zoomed in.');
    assert.deepEqual(node.others, []);
    assert.equal(node.bodies.length, 1);
    assert.equal(node.bodies[0], taken.next);
  }
});

test('restored in the wasip1 module under wazero and natively in Go, the session sends the page\'s next request byte for byte', { skip }, async () => {
  assert.ok(taken, 'the page ran first');
  writeFileSync(path.join(dir, 'snapshot.json'), JSON.stringify(taken.snapshot));
  writeFileSync(path.join(dir, 'next.json'), taken.next);
  const env = { ...process.env, AGENTWASM_SNAPSHOT_CHAIN: dir };
  // The module make build wrote, when there is one: the test then builds nothing.
  const wasip1 = path.join(root, 'dist', 'agentwasm-wasip1.wasm');
  if (!process.env.AGENTWASM_WASIP1 && existsSync(wasip1)) env.AGENTWASM_WASIP1 = wasip1;
  const child = spawn(process.env.GO || 'go',
    ['test', '-count=1', '-v', '-run', '^TestSnapshotChainContinuesUnderWazeroAndNatively$', './wazerotest'],
    { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (b) => { out += b; });
  child.stderr.on('data', (b) => { out += b; });
  const code = await new Promise((resolve) => child.on('exit', resolve));
  assert.equal(code, 0, out);
  assert.match(out, /--- PASS: TestSnapshotChainContinuesUnderWazeroAndNatively\/wazero/, out);
  assert.match(out, /--- PASS: TestSnapshotChainContinuesUnderWazeroAndNatively\/native/, out);
});
