// The load option gcPercent: the Go collector's GOGC for the instance
// (default 400, wasm/js/main.go says why), read back through the test-hooks
// op debug.gcPercent. TinyGo's runtime has no such setting (it answers 100,
// whatever it was given).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../agentwasm.mjs';
import { loadRuntime, variant } from '../testing/helpers.mjs';

/** The instance's GOGC, as debug.gcPercent answers it. */
async function gcPercent(runtime) {
  const reply = await runtime.call({ op: 'debug.gcPercent' });
  assert.equal(reply.ok, true, JSON.stringify(reply));
  return reply.value;
}

test('the module runs its collector at GOGC 400 unless the page gives gcPercent', async () => {
  const expect = (n) => (variant === 'tiny' ? 100 : n);
  assert.equal(await gcPercent(await loadRuntime()), expect(400));
  assert.equal(await gcPercent(await loadRuntime({ gcPercent: 100 })), expect(100));
  assert.equal(await gcPercent(await loadRuntime({ gcPercent: 250 })), expect(250));
});

test('a gcPercent that is not a whole number above 0 is refused with bad_options', async () => {
  for (const bad of [0, -1, 1.5, '400', Number.NaN, Infinity, null]) {
    await assert.rejects(load({ gcPercent: bad }), (err) => {
      assert.equal(err.code, 'bad_options', String(bad));
      assert.match(err.message, /gcPercent must be a whole number above 0/);
      return true;
    });
  }
});
