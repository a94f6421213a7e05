// A dead module is never a hang. `debug.crash` (test hooks only) kills the
// module for real — a panic on a goroutine of its own, which the Go build
// answers by exiting the Go program and a TinyGo build by trapping the
// instance — and the loader then rejects every Promise it handed out that
// is still pending, and every later call, with code `module_exited`; other
// runtimes go on, and a fresh load() serves the next session. Runs against
// the build AGENTWASM_VARIANT names (helpers.mjs); the last two load the
// Go build and the TinyGo build side by side when dist/ holds both (`make
// test-tiny` requires both; `make test` builds the Go one alone, and they skip).
//
// The sessions whose turn is in flight at the crash run with their stream
// bounds off: a bound is a host timer the module set, which keeps Node
// alive until it fires, and a dead module can no longer clear it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../agentwasm.mjs';
import { built, dist, frame, loadRuntime, runChild, scriptedFetch, textStream, tinyMissing, variant, variantFiles } from '../testing/helpers.mjs';

const quiet = { disableToolDiscovery: true, streamFirstByteTimeoutMs: 0, streamIdleTimeoutMs: 0 };

/** What the error says happened, per build. */
const what = {
  go: /the module's Go program exited with code 2 \(an unrecovered Go panic does this/,
  tiny: /the module trapped \(RuntimeError: unreachable/,
};

/** Checks a module_exited error: its code, what happened, what to do. */
function exited(which = variant) {
  return (err) => {
    assert.ok(err instanceof Error, `an Error, not ${err}`);
    assert.equal(err.code, 'module_exited', err.message);
    assert.match(err.message, what[which]);
    assert.match(err.message, /call load\(\) for a new runtime \(or runtime\.restart\(\)\)/);
    return true;
  };
}

/**
 * debug.crash, with the console quiet meanwhile: the dying module prints its
 * panic there (the Go build also its exit code), which would only clutter
 * the test output. Resolves with the call's rejection.
 */
async function crash(runtime) {
  const saved = { log: console.log, warn: console.warn, error: console.error };
  Object.assign(console, { log() {}, warn() {}, error() {} });
  try {
    await runtime.call({ op: 'debug.crash' });
  } catch (err) {
    return err;
  } finally {
    Object.assign(console, saved);
  }
  throw new Error('debug.crash answered');
}

/** A turn that completes at once, offline. */
async function works(runtime, text = 'fine') {
  const { fetchImpl } = scriptedFetch({ body: textStream(text) });
  const turn = await runtime.createSession({ disableToolDiscovery: true, fetchImpl }).chat('hi');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.equal(turn.text, text);
}

/** Go to the cart, with a handler that never answers. */
const shop = {
  id: 'shop',
  pages: [{ id: 'catalog' }, { id: 'cart' }],
  actions: [
    {
      id: 'catalog.add', does: 'Add an item to the cart', on: 'catalog', writes: ['cart.items'],
      input: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
    },
  ],
};

const until = async (check, what) => {
  for (let i = 0; i < 500; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 2));
  }
  throw new Error(`never happened: ${what}`);
};

test(`debug.crash kills the ${variant} module: every call in flight rejects with module_exited, so does every later call`, async () => {
  const exits = [];
  const runtime = await loadRuntime({ onExit: (err) => { exits.push(err); } });
  assert.equal(runtime.exited, false);

  // A chat whose answer never ends.
  const hang = scriptedFetch({ body: frame('message_start', { model: 'm' }), hang: true });
  const chatting = runtime.createSession({ ...quiet, fetchImpl: hang.fetchImpl });
  const chat = chatting.chat('an answer that never ends');

  // A streamed turn waiting for a page tool that never answers.
  let toolSignal;
  const streaming = runtime.createSession({
    ...quiet,
    transport: async function* () {
      yield { type: 'toolCallStart', toolCallId: 't1', toolName: 'wait' };
      yield { type: 'toolCallStop', toolArguments: {} };
      yield { type: 'messageStop', stopReason: 'toolCall' };
    },
    tools: [{ name: 'wait', execute: (args, { signal }) => { toolSignal = signal; return new Promise(() => {}); } }],
  });
  const stream = streaming.stream('call the tool');
  const seen = [];
  const pulled = (async () => {
    for await (const e of stream) seen.push(e.type);
  })();

  // A discovery pass waiting for the page's MCP client.
  const discovering = runtime.createSession({
    toolDiscoveryTimeoutMs: 0,
    mcpClient: { listTools: () => new Promise(() => {}), callTool: async () => ({ content: [] }) },
  });
  const refresh = discovering.refreshTools();

  // A port call waiting for its fire to settle.
  const port = runtime.createPort(shop, { handlers: { 'catalog.add': () => new Promise(() => {}) } });
  const portCall = port.call('shop.do_action', { action: 'catalog.add', input: { sku: 'A1' } }, { settleWithinMs: 60_000 });

  await until(() => hang.requests.length === 1 && toolSignal, 'the chat request and the tool call');
  const crashed = crash(runtime);
  const inFlight = { 'debug.crash': crashed.then((err) => { throw err; }), chat, 'stream.turn': stream.turn, 'for await': pulled, refreshTools: refresh, 'port.call': portCall };
  for (const [name, promise] of Object.entries(inFlight)) {
    await assert.rejects(promise, exited(), name);
  }
  assert.equal(runtime.exited, true);
  assert.ok(!seen.includes('toolResult'), 'the tool never answered');

  // The page's work in flight is told: the tool's signal and the request's abort, with the reason.
  assert.equal(toolSignal.aborted, true);
  exited()(toolSignal.reason);
  assert.equal(hang.requests[0].init.signal.aborted, true);

  // Every later call, sync or async, of the runtime, its sessions and its ports.
  assert.throws(() => runtime.version(), exited());
  assert.throws(() => runtime.createSession({}), exited());
  assert.throws(() => runtime.createPort(shop), exited());
  assert.throws(() => chatting.messages(), exited());
  assert.throws(() => chatting.tools(), exited());
  assert.throws(() => chatting.attachDraft(null), exited());
  await assert.rejects(chatting.chat('again'), exited());
  await assert.rejects(streaming.stream('again').turn, exited());
  await assert.rejects(streaming.resume({ approve: ['a'] }), exited());
  await assert.rejects(discovering.refreshTools(), exited());
  await assert.rejects(discovering.reconnect(), exited());
  assert.throws(() => port.state(), exited());
  assert.throws(() => port.tools(), exited());
  await assert.rejects(port.call('shop.whats_here'), exited());
  await assert.rejects(port.mcp({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), exited());
  await assert.rejects(runtime.call({ op: 'version' }), exited());
  assert.throws(() => runtime.callSync({ op: 'version' }), exited());

  // Closing what died is quiet; a closed session says closed.
  chatting.close();
  port.close();
  await assert.rejects(chatting.chat('x'), { code: 'closed' });

  // onExit heard it once, after the rejections.
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(exits.length, 1);
  exited()(exits[0]);
});

test('after the death, the module\'s late callbacks reach nothing and nothing is thrown', async () => {
  const problems = [];
  const onProblem = (err) => problems.push(err);
  process.on('uncaughtException', onProblem);
  process.on('unhandledRejection', onProblem);
  try {
    const runtime = await loadRuntime();
    let answer;
    const tool = { name: 'later', execute: () => new Promise((resolve) => { answer = resolve; }) };
    const session = runtime.createSession({
      ...quiet,
      transport: async function* () {
        yield { type: 'toolCallStart', toolCallId: 't1', toolName: 'later' };
        yield { type: 'toolCallStop', toolArguments: {} };
        yield { type: 'messageStop', stopReason: 'toolCall' };
      },
      tools: [tool],
    });
    const controller = new AbortController();
    const turn = session.chat('call it', { signal: controller.signal });
    await until(() => answer, 'the tool call');
    exited()(await crash(runtime));
    await assert.rejects(turn, exited());
    // What the module was waiting for arrives now: the tool's answer, the caller's abort.
    answer({ status: 'ok', data: 'too late' });
    controller.abort();
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(runtime.exited, true);
  } finally {
    process.off('uncaughtException', onProblem);
    process.off('unhandledRejection', onProblem);
  }
  assert.deepEqual(problems, []);
});

test('a dead module takes its ports\' tools out of WebMCP', async () => {
  const runtime = await loadRuntime();
  const port = runtime.createPort({ id: 'g', pages: [{ id: 'p' }], actions: [{ id: 'p.x', does: 'X', on: 'p' }] });
  // A WebMCP API of the page's own: registerTool with a signal, as WebMCP has it.
  const tools = new Map();
  const modelContext = {
    registerTool(tool, { signal }) {
      tools.set(tool.name, tool);
      signal.addEventListener('abort', () => tools.delete(tool.name));
      return Promise.resolve();
    },
  };
  const registration = await port.registerWebMCP({ modelContext });
  assert.equal(registration.registered, true);
  assert.deepEqual([...tools.keys()], port.tools().map((t) => t.name));
  exited()(await crash(runtime));
  assert.deepEqual([...tools.keys()], [], 'no tool of a dead module is left for the browser\'s agent to call');
  // Registering on a dead runtime fails as every call does.
  await assert.rejects(port.registerWebMCP({ modelContext }), exited());
});

test('a dead runtime leaves the others serving; a fresh load() and restart() serve the next session', async () => {
  const [doomed, bystander] = await Promise.all([loadRuntime(), loadRuntime()]);
  const survivor = bystander.createSession({ ...quiet, fetchImpl: scriptedFetch({ body: textStream('still', ' here'), chunk: 2 }).fetchImpl });
  const orphan = doomed.createSession(quiet);
  exited()(await crash(doomed));
  assert.equal(doomed.exited, true);
  assert.equal(bystander.exited, false);
  assert.equal((await survivor.chat('hi')).text, 'still here');

  await works(await loadRuntime(), 'fresh');
  const restarted = await doomed.restart();
  assert.notEqual(restarted, doomed);
  assert.equal(restarted.exited, false);
  await works(restarted, 'restarted');
  assert.equal(doomed.exited, true, 'the dead runtime stays dead');
  assert.throws(() => orphan.messages(), exited());
  // restart() keeps the options: the test hooks too.
  exited()(await crash(restarted));
});

test('a process whose runtime died exits by itself', async () => {
  const { out, err, code } = await runChild(`
const runtime = await loadRuntime();
const hang = scriptedFetch({ body: 'event: message_start\\ndata: {}\\n\\n', hang: true });
const chat = runtime.createSession({ disableToolDiscovery: true, streamFirstByteTimeoutMs: 0, streamIdleTimeoutMs: 0, fetchImpl: hang.fetchImpl }).chat('hi');
await new Promise((r) => setTimeout(r, 50));
Object.assign(console, { log() {}, warn() {}, error() {} }); // the panic's message (stderr is collected too)
const codes = await Promise.allSettled([runtime.call({ op: 'debug.crash' }), chat]);
process.stdout.write(JSON.stringify(codes.map((r) => r.reason?.code)) + '\\n');
`, { stderr: 'pipe' });
  assert.equal(code, 0, `${out}\n${err}`);
  assert.equal(out.split('\n').at(-1), '["module_exited","module_exited"]');
});

test('load() hands each module its own boot settings and leaves no global behind', async () => {
  const before = Object.keys(globalThis).filter((k) => k.startsWith('__agentwasm'));
  const [hooked, plain] = await Promise.all([loadRuntime({ testHooks: true }), loadRuntime({ testHooks: false })]);
  assert.deepEqual(Object.keys(globalThis).filter((k) => k.startsWith('__agentwasm')), before);
  assert.equal(globalThis.__agentwasmBoot, undefined);
  const reply = await plain.call({ op: 'debug.crash' });
  assert.equal(reply.ok, false);
  assert.equal(reply.error.code, 'bad_command');
  assert.match(reply.error.message, /unknown op "debug\.crash"/);
  assert.equal(plain.exited, false, 'without test hooks debug.crash is no command');
  exited()(await crash(hooked));
  await works(plain);
});

test('load() refuses options it does not know, with bad_options', async () => {
  const cases = [
    [{ variant: 'wasm' }, /variant must be 'go', 'tiny', 'session' or 'tiny-session', not "wasm"/],
    [{ variant: 'Go' }, /variant must be 'go', 'tiny', 'session' or 'tiny-session'/],
    [{ variant: 'tiny_session' }, /variant must be 'go', 'tiny', 'session' or 'tiny-session', not "tiny_session"/],
    [{ onExit: 'log' }, /onExit must be a function/],
    [{ wasmURL: './x.wasm' }, /unknown load option wasmURL/],
    [null, /load takes an options object/],
  ];
  for (const [options, message] of cases) {
    await assert.rejects(load(options), (err) => err instanceof TypeError && err.code === 'bad_options' && message.test(err.message), String(message));
  }
  // A module with the other build's wasm_exec cannot link: load_failed says which pairing is wrong.
  const other = variant === 'go' ? 'tiny' : 'go';
  if (built(other)) {
    await assert.rejects(load({ wasm: new URL(variantFiles[variant].wasm, dist), wasmExec: new URL(variantFiles[other].wasmExec, dist), variant: other }),
      (err) => err.code === 'load_failed' && /could not instantiate the module/.test(err.message) && /variant option/.test(err.message));
  }
});

// Why the two tests of both builds side by side skip ('' when dist/ holds both; `make test-tiny`
// requires both).
const bothMissing = tinyMissing();

test('the Go build and the TinyGo build side by side in one process', { skip: bothMissing || false }, async () => {
  // Each wasm_exec script assigns globalThis.Go: each load keeps its own build's class.
  const [go, tiny] = await Promise.all([loadRuntime({ variant: 'go' }), loadRuntime({ variant: 'tiny' })]);
  assert.match(go.version().goVersion, /^go1\./);
  assert.match(tiny.version().goVersion, /^tinygo0\./);
  const [a, b] = await Promise.all([
    go.createSession({ disableToolDiscovery: true, fetchImpl: scriptedFetch({ body: textStream('from ', 'go'), chunk: 3 }).fetchImpl }).chat('x'),
    tiny.createSession({ disableToolDiscovery: true, fetchImpl: scriptedFetch({ body: textStream('from ', 'tiny'), chunk: 2 }).fetchImpl }).chat('y'),
  ]);
  assert.equal(a.text, 'from go');
  assert.equal(b.text, 'from tiny');

  // Loaded again after the other one's script ran, each is still itself.
  assert.match((await loadRuntime({ variant: 'go' })).version().goVersion, /^go1\./);
  assert.match((await loadRuntime({ variant: 'tiny' })).version().goVersion, /^tinygo0\./);

  // A death in one build leaves the other serving.
  exited('tiny')(await crash(tiny));
  await works(go, 'go goes on');
  exited('go')(await crash(go));
  await works(await loadRuntime({ variant: 'tiny' }), 'tiny again');
});

test('in a fresh process, either build loads first, or both at once, through either copy of the loader', {
  skip: bothMissing || false,
}, async () => {
  // 'dist': a second copy of the loader (dist/'s) loads each build with its defaults (the Go build
  // by name, then the default, TinyGo's), after this copy ran both scripts: it finds each class by
  // the script's URL, whichever ran last.
  const cases = { 'go,tiny': ['go', 'tinygo'], 'tiny,go': ['tinygo', 'go'], both: ['go', 'tinygo'], dist: ['go', 'tinygo', 'go', 'tinygo'] };
  for (const [order, expected] of Object.entries(cases)) {
    const { out, code } = await runChild(`
const order = ${JSON.stringify(order)};
const runtimes = order === 'both' || order === 'dist'
  ? await Promise.all([loadRuntime({ variant: 'go' }), loadRuntime({ variant: 'tiny' })])
  : [];
for (const v of order.includes(',') ? order.split(',') : []) runtimes.push(await loadRuntime({ variant: v }));
if (order === 'dist') {
  const { load } = await import(${JSON.stringify(new URL('agentwasm.mjs', dist).href)});
  runtimes.push(await load({ variant: 'go' }), await load());
}
console.log(JSON.stringify(runtimes.map((r) => r.version().goVersion.replace(/[0-9.]+$/, ''))));
`);
    assert.equal(code, 0, out);
    assert.deepEqual(JSON.parse(out.split('\n').at(-1)), expected, order);
  }
});
