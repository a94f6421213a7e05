// The session-only build of the toolchain under test (helpers.mjs, sessionVariant):
// `load({variant: 'session'})`, agentwasm-session.wasm, the Go toolchain's build
// without the serving port, or under `make test-tiny` (AGENTWASM_VARIANT=tiny)
// `load({variant: 'tiny-session'})`, agentwasm-session.tiny.wasm, TinyGo's. It
// serves the whole session API; createPort throws code `port_unavailable`,
// saying which build has ports; version() reports serve: false where the full
// build of the same toolchain says true.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRuntime, sessionVariant, studioProxy, textStream, toolCallStream, variant } from '../testing/helpers.mjs';

const quiet = { disableToolDiscovery: true };

test(`the session-only build (${sessionVariant}) chats, runs page tools and says it has no port`, async () => {
  const runtime = await loadRuntime({ variant: sessionVariant });
  assert.equal(runtime.version().serve, false);
  assert.equal(/^tinygo/.test(runtime.version().goVersion), variant === 'tiny', `${sessionVariant} is built by ${runtime.version().goVersion}`);

  const events = [];
  const calls = [];
  const { fetchImpl } = studioProxy({
    chat: [{ body: toolCallStream({ id: 'c1', name: 'setFilter', args: { layer: 'schools' } }) }, { body: textStream('Only ', 'schools.') }],
  });
  const session = runtime.createSession({
    ...quiet,
    fetchImpl,
    onEvent: (e) => events.push(e.type === 'chat' ? e.event.type : e.type),
    tools: [{
      name: 'setFilter',
      description: 'Filters the map',
      inputSchema: { type: 'object', properties: { layer: { type: 'string' } } },
      execute: (args) => {
        calls.push(args);
        return { shown: args.layer };
      },
    }],
  });
  const turn = await session.chat('schools only');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.equal(turn.text, 'Only schools.');
  assert.deepEqual(calls, [{ layer: 'schools' }]);
  assert.ok(events.includes('textDelta') && events.includes('toolResult'), events.join(' '));
  session.close();

  assert.throws(() => runtime.createPort({ app: 'a', pages: [] }), (err) => {
    assert.equal(err.code, 'port_unavailable', err.message);
    assert.match(err.message, /session-only build/);
    // It names the full build of its own toolchain.
    assert.match(err.message, variant === 'tiny' ? /\(agentwasm-session\.tiny\.wasm\).*\(agentwasm\.tiny\.wasm\)/ : /\(agentwasm-session\.wasm\).*\(agentwasm\.wasm\)/);
    return true;
  });
});

test(`the full build (${variant}) says it has the port`, async () => {
  const runtime = await loadRuntime({ variant });
  assert.equal(runtime.version().serve, true);
});
