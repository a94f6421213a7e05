// The js build's two doors against wasm/README.md's command table: callSync
// serves exactly the commands marked sync `yes` and refuses the others with
// bad_command, and an unknown op is answered as unknown through both.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadRuntime } from '../testing/helpers.mjs';

const runtime = await loadRuntime();

/** The rows of the README's command table: [op names, sync column]. */
function commandTable() {
  const text = readFileSync(new URL('../../wasm/README.md', import.meta.url), 'utf8');
  const section = text.split('\n## Commands\n')[1].split('\n## ')[0];
  // The section's first table: its run of lines that start with |.
  const all = section.split('\n');
  const first = all.findIndex((l) => l.startsWith('|'));
  const end = all.findIndex((l, i) => i > first && !l.startsWith('|'));
  const lines = all.slice(first, end === -1 ? undefined : end);
  const head = lines[0].split('|').slice(1, -1).map((c) => c.trim());
  const syncCol = head.indexOf('sync');
  assert.notEqual(syncCol, -1, 'the command table has a sync column');
  return lines.slice(2).map((l) => {
    const cells = l.split('|').slice(1, -1).map((c) => c.trim());
    return { ops: [...cells[0].matchAll(/`([^`]+)`/g)].map((m) => m[1]), sync: cells[syncCol] };
  });
}

const waits = /waits, so it must go through call\(\), not callSync\(\)/;

test('callSync serves the sync commands and refuses the others', () => {
  const rows = commandTable();
  assert.ok(rows.length > 20, 'the table lists the commands');
  for (const { ops, sync } of rows) {
    assert.match(sync, /^(yes|no|without `settleWithinMs`)$/, `the sync cell of ${ops.join(', ')}`);
    for (const op of ops) {
      // Ids nothing is open under: a sync command answers at once, mostly unknown_session or
      // unknown_port; session.create makes a session, closed again below.
      const reply = runtime.callSync({ op, session: 9999, port: 9999, options: { disableToolDiscovery: true } });
      if (sync.startsWith('without')) {
        // Sync only without settleWithinMs (port.call): with it, the command waits.
        assert.doesNotMatch(reply.error?.message ?? '', waits, op);
        const settled = runtime.callSync({ op, port: 9999, settleWithinMs: 100 });
        assert.equal(settled.error?.code, 'bad_command', op);
        assert.match(settled.error.message, waits, op);
      } else if (sync === 'no') {
        assert.equal(reply.ok, false, op);
        assert.equal(reply.error.code, 'bad_command', op);
        assert.match(reply.error.message, waits, op);
      } else {
        assert.doesNotMatch(reply.error?.message ?? '', waits, op);
        assert.doesNotMatch(reply.error?.message ?? '', /unknown op/, op);
      }
      if (op === 'session.create') runtime.callSync({ op: 'session.close', session: reply.session });
    }
  }
});

test('an unknown op is answered as unknown through both doors', async () => {
  for (const reply of [runtime.callSync({ op: 'session.explode' }), await runtime.call({ op: 'session.explode' })]) {
    assert.equal(reply.ok, false);
    assert.equal(reply.error.code, 'bad_command');
    assert.match(reply.error.message, /unknown op "session\.explode"; the ops are version, session\.create, /);
  }
});
