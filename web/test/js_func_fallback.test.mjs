// Node tests of the module without its direct entry points: a host that
// drives it through the js.Func doors (an older loader, or its own), as
// wasm/README.md allows. The loader uses the module's exports
// (agentwasm_call_sync, agentwasm_call, agentwasm_wake) when the instance
// has them; here the instance is handed to it without them, so the loader
// calls `call`/`callSync` and the module awaits Promises and body wakes
// through js.Func callbacks. A turn with a page tool, a streamed body read
// through the pump, an abort, a port's calls and a close all work the same,
// and the runtime with the direct entry points answers the same.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRuntime, studioProxy, textStream, toolCallStream } from '../testing/helpers.mjs';

/**
 * Loads a runtime whose instance shows the loader no agentwasm_* export:
 * WebAssembly.instantiate is wrapped for this one load, and the instance it
 * answers is a stand-in with every export but those.
 */
async function loadWithoutExports() {
  const original = WebAssembly.instantiate;
  WebAssembly.instantiate = async (...args) => {
    const result = await original.apply(WebAssembly, args);
    const instance = result instanceof WebAssembly.Instance ? result : result.instance;
    const exports = Object.fromEntries(Object.entries(instance.exports).filter(([name]) => !name.startsWith('agentwasm_')));
    const hidden = Object.create(instance, { exports: { value: Object.freeze(exports), enumerable: true } });
    return result instanceof WebAssembly.Instance ? hidden : { ...result, instance: hidden };
  };
  try {
    return await loadRuntime();
  } finally {
    WebAssembly.instantiate = original;
  }
}

const runtimes = { 'direct entry points': await loadRuntime(), 'js.Func doors': await loadWithoutExports() };

/** One scripted turn with a page tool, and what the page saw. */
async function toolTurn(runtime) {
  const { fetchImpl } = studioProxy({
    chat: [{ body: toolCallStream({ id: 'c1', name: 'setFilter', args: { layer: 'schools' } }) }, { body: textStream('Only ', 'schools.') }],
  });
  const calls = [];
  const session = runtime.createSession({
    disableToolDiscovery: true,
    fetchImpl,
    tools: [{
      name: 'setFilter',
      description: 'Filters the map',
      inputSchema: { type: 'object', properties: { layer: { type: 'string' } } },
      // A Promise the module awaits.
      execute: async (args) => {
        await new Promise((r) => setTimeout(r, 5));
        calls.push(args);
        return { shown: args.layer };
      },
    }],
  });
  const turn = await session.chat('schools only');
  const messages = session.messages().length;
  session.close();
  return { status: turn.status, text: turn.text, calls, rounds: turn.rounds, messages };
}

for (const [name, runtime] of Object.entries(runtimes)) {
  test(`${name}: a turn with a page tool completes`, async () => {
    assert.deepEqual(await toolTurn(runtime), {
      status: 'completed', text: 'Only schools.', calls: [{ layer: 'schools' }], rounds: 2, messages: 4,
    });
  });

  test(`${name}: an abort mid-stream cancels the turn, and close ends a turn waiting on a tool`, async () => {
    // A body that streams one frame, then waits: the abort ends the wait.
    const enc = new TextEncoder();
    const fetchImpl = async () => new Response(new ReadableStream({
      start(c) { c.enqueue(enc.encode('event: message_start\ndata: {"model":"m"}\n\n')); },
    }), { status: 200, headers: { 'content-type': 'text/event-stream' } });
    const session = runtime.createSession({ disableToolDiscovery: true, fetchImpl });
    const controller = new AbortController();
    const turn = session.chat('hi', { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    assert.equal((await turn).status, 'cancelled');
    session.close();

    let started;
    const running = new Promise((r) => { started = r; });
    const { fetchImpl: toolFetch } = studioProxy({ chat: [{ body: toolCallStream({ id: 'c1', name: 'wait' }) }] });
    const waiting = runtime.createSession({
      disableToolDiscovery: true,
      fetchImpl: toolFetch,
      tools: [{ name: 'wait', description: 'Waits', inputSchema: { type: 'object' }, execute: (args, { signal }) => new Promise((_, reject) => {
        started();
        signal.addEventListener('abort', () => reject(new Error('aborted')));
      }) }],
    });
    const pending = waiting.chat('wait');
    await running;
    waiting.close(); // a sync command that ends another goroutine's wait
    assert.equal((await pending).status, 'cancelled');
  });

  test(`${name}: a port answers its calls, and a fire's handler runs`, async () => {
    const handled = [];
    const port = runtime.createPort({
      id: 'shop', pages: [{ id: 'home' }],
      actions: [{ id: 'home.add', does: 'Add one', on: 'home', input: { type: 'object', properties: { n: { type: 'integer' } } } }],
    }, { handlers: { 'home.add': async (input) => { handled.push(input.n); return { n: input.n }; } } });
    const here = await port.call('shop.whats_here');
    assert.equal(here.ok, true, JSON.stringify(here));
    assert.equal(here.youAreOn, 'home');
    assert.deepEqual(here.actions.map((a) => a.action), ['home.add']);
    const fired = await port.call('shop.do_action', { action: 'home.add', input: { n: 3 } }, { settleWithinMs: 2000 });
    assert.equal(fired.ok, true, JSON.stringify(fired));
    assert.deepEqual(handled, [3], 'the handler ran once, with the input');
    assert.equal(runtime.version().serve, true);
    port.close();
  });
}
