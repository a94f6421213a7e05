// Node tests of event delivery in batches: the module hands the loader the
// events of a network read (or of a backlog of reads) in one call, and the
// page must not be able to tell — every event still reaches onEvent alone,
// as one plain object, in the module's order, before anything that follows
// it (a tool's execute, the next fetch, the turn's end); a throwing observer
// changes nothing; session.stream() and onStepFinish see the same sequence.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRuntime, studioProxy, textStream, frame } from '../testing/helpers.mjs';

const runtime = await loadRuntime();

/** The type of an event as a short name: a chat event's inner type, or the outer one. */
const kind = (e) => (e.type === 'chat' ? e.event.type : e.type);

/** An answer of text deltas, then a call of tool `name`. */
function textThenToolCall(parts, { id, name, args }) {
  return frame('message_start', { model: 'fake-model' })
    + parts.map((text) => frame('text_delta', { text })).join('')
    + frame('tool_call_start', { toolCallId: id, toolName: name })
    + frame('tool_call_delta', { toolCallId: id, toolArgumentsDelta: JSON.stringify(args) })
    + frame('tool_call_stop', { toolCallId: id })
    + frame('message_stop', { stopReason: 'toolCall' });
}

const before = Array.from({ length: 120 }, (_, i) => `b${i} `);
const after = Array.from({ length: 150 }, (_, i) => `a${i} `);

/**
 * A session whose model writes 120 deltas and calls `probe`, then writes
 * 150 more, in chunks of `chunk` bytes; `probe` records what the observers
 * had received when it ran. `throwOn` picks the events onEvent throws on.
 */
function probeSession({ chunk, throwOn = () => false, log = [] }) {
  const proxy = studioProxy({
    chat: [
      { body: textThenToolCall(before, { id: 'p1', name: 'probe', args: { n: 1 } }), chunk },
      { body: textStream(...after), chunk },
    ],
  });
  const seen = [];
  const probes = [];
  const session = runtime.createSession({
    fetchImpl: proxy.fetchImpl,
    disableToolDiscovery: true,
    tools: [{
      name: 'probe',
      execute: (args) => {
        probes.push({ seen: seen.length, last: seen.at(-1), args });
        log.push(['execute']);
        return { ok: true };
      },
    }],
    onEvent: (e) => {
      seen.push(e);
      log.push(['event', kind(e)]);
      if (throwOn(e, seen.length - 1)) throw new Error(`observer fails on event ${seen.length - 1}`);
    },
    onStepFinish: (step) => log.push(['step', step.round]),
  });
  return { proxy, session, seen, probes, log };
}

/** Checks one turn of probeSession: every event, in order, and the probe's view. */
function checkTurn(turn, seen, probes) {
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.equal(turn.text, before.join('') + after.join(''));
  const kinds = seen.map(kind);
  const deltas = seen.filter((e) => kind(e) === 'textDelta').map((e) => e.event.text);
  assert.deepEqual(deltas, [...before, ...after], 'every delta, once, in order');
  assert.ok(seen.every((e) => Object.getPrototypeOf(e) === Object.prototype), 'each event a plain object');
  assert.equal(new Set(seen).size, seen.length, 'each event its own object');
  assert.deepEqual(kinds.filter((k) => k !== 'textDelta' && k !== 'toolDiscovery'), [
    'messageStart', 'toolCallStart', 'toolCallDelta', 'toolCallStop', 'messageStop', 'toolResult', 'stepFinish',
    'messageStart', 'messageStop', 'stepFinish',
  ]);
  // The tool ran after the observer had every event made before it, and none after: the first
  // event made after it is its toolResult.
  assert.equal(probes.length, 1);
  assert.deepEqual(probes[0].args, { n: 1 });
  assert.equal(probes[0].seen, kinds.indexOf('toolResult'), 'execute saw exactly the events before its result');
  assert.equal(kind(probes[0].last), 'messageStop');
}

for (const chunk of [1, 7, 256, 1 << 16]) {
  test(`chunks of ${chunk} B: every event reaches onEvent alone and in order, and a tool's execute sees all the events before it`, async () => {
    const { session, seen, probes, proxy } = probeSession({ chunk });
    const turn = await session.chat('go');
    checkTurn(turn, seen, probes);
    assert.equal(proxy.chatRequests().length, 2);
    // The turn's record holds one textDelta per run, with the run's text.
    assert.deepEqual(turn.events.filter((e) => e.type === 'textDelta').map((e) => e.text), [before.join(''), after.join('')]);
    session.close();
  });
}

test('an onEvent that throws on some events still gets every event after them, and the turn is unchanged', async () => {
  const { session, seen, probes } = probeSession({ chunk: 64, throwOn: (e, i) => i % 3 === 0 || kind(e) === 'messageStop' });
  const turn = await session.chat('go');
  checkTurn(turn, seen, probes);
  session.close();
});

test('onStepFinish runs right before onEvent gets the same stepFinish event, and execute between the events around it', async () => {
  const log = [];
  const { session } = probeSession({ chunk: 32, log });
  const turn = await session.chat('go');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  const steps = log.flatMap((entry, i) => (entry[0] === 'step' ? [i] : []));
  assert.equal(steps.length, 2);
  for (const [n, i] of steps.entries()) {
    assert.deepEqual(log[i], ['step', n + 1]);
    assert.deepEqual(log[i + 1], ['event', 'stepFinish'], 'the same event, at once');
  }
  const exec = log.findIndex((entry) => entry[0] === 'execute');
  assert.deepEqual(log[exec - 1], ['event', 'messageStop']);
  assert.deepEqual(log[exec + 1], ['event', 'toolResult']);
  session.close();
});

test('session.stream() yields the very events onEvent receives, in its order, over many chunks and a tool call', async () => {
  const { session, seen, probes } = probeSession({ chunk: 9, throwOn: (e, i) => i % 5 === 1 });
  const stream = session.stream('go');
  const events = [];
  for await (const e of stream) events.push(e);
  const turn = await stream.turn;
  checkTurn(turn, seen, probes);
  assert.equal(events.length, seen.length);
  assert.ok(events.every((e, i) => e === seen[i]), 'the same objects, in the same order');
  session.close();
});

test('two sessions streaming at once: each one\'s observer gets its own events, all of them, in order', async () => {
  const log = [];
  const make = (name, parts) => {
    const proxy = studioProxy({ chat: [{ body: textStream(...parts), chunk: 13 }] });
    return runtime.createSession({
      fetchImpl: proxy.fetchImpl,
      disableToolDiscovery: true,
      onEvent: (e) => log.push([name, e]),
    });
  };
  const partsA = Array.from({ length: 300 }, (_, i) => `A${i} `);
  const partsB = Array.from({ length: 200 }, (_, i) => `B${i} `);
  const a = make('a', partsA);
  const b = make('b', partsB);
  const [ta, tb] = await Promise.all([a.chat('one'), b.chat('two')]);
  assert.equal(ta.text, partsA.join(''));
  assert.equal(tb.text, partsB.join(''));
  const deltas = (name) => log.filter(([n, e]) => n === name && kind(e) === 'textDelta').map(([, e]) => e.event.text);
  assert.deepEqual(deltas('a'), partsA);
  assert.deepEqual(deltas('b'), partsB);
  for (const name of ['a', 'b']) {
    const kinds = log.filter(([n]) => n === name).map(([, e]) => kind(e)).filter((k) => k !== 'textDelta' && k !== 'toolDiscovery');
    assert.deepEqual(kinds, ['messageStart', 'messageStop', 'stepFinish']);
  }
  a.close();
  b.close();
});

test('every event of a turn has reached onEvent when chat() resolves, and the next fetch is made after them', async () => {
  const seen = [];
  const fetchesAt = [];
  const proxy = studioProxy({ chat: [{ body: textStream(...before), chunk: 50 }] });
  const session = runtime.createSession({
    fetchImpl: (url, init) => {
      fetchesAt.push(seen.length);
      return proxy.fetchImpl(url, init);
    },
    disableToolDiscovery: true,
    onEvent: (e) => seen.push(e),
  });
  const first = await session.chat('one');
  const atEnd = seen.length;
  assert.equal(kind(seen.at(-1)), 'stepFinish', 'the turn\'s last event came before chat() resolved');
  const second = await session.chat('two');
  assert.equal(first.text, before.join(''));
  assert.equal(second.text, before.join(''));
  assert.equal(fetchesAt.at(-1), atEnd, 'the second turn\'s fetch came after every event of the first');
  const secondKinds = seen.slice(atEnd).map(kind);
  assert.deepEqual(secondKinds, ['messageStart', ...before.map(() => 'textDelta'), 'messageStop', 'stepFinish']);
  session.close();
});
