// Node tests of the module's cheap path for plain text deltas: a delta that
// carries a text and nothing else crosses into the loader as its text alone
// (the boot setting textDeltas) and becomes its event there. The page must
// not be able to tell: every delta reaches onEvent once, as
// {type: 'chat', event: {type: 'textDelta', text}}, in order among the other
// events, whatever the chunks (a frame or a multibyte character cut in two,
// a batch boundary anywhere); a delta with more than a text keeps its
// fields; a delta without text is dropped (every textDelta has its text);
// an observer that throws changes nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRuntime, scriptedFetch, frame } from '../testing/helpers.mjs';

const runtime = await loadRuntime();

/** An answer: message_start, the given text_delta payloads, message_stop. */
function answer(payloads) {
  return frame('message_start', { model: 'fake-model' })
    + payloads.map((p) => frame('text_delta', p)).join('')
    + frame('message_stop', { stopReason: 'endTurn' });
}

const texts = Array.from({ length: 300 }, (_, i) => (i % 3 === 0 ? `é€😀${i} ` : i % 3 === 1 ? `tab\t"q"${i}\\ ` : `w${i} `));
const payloads = texts.map((text, i) => (i === 7 ? { type: 'text_delta', text } : { text }));
// Deltas that are not plain: an extra field, no text.
payloads.splice(10, 0, { text: 'with model', model: 'm2' });
payloads.splice(20, 0, {});

/** The events onEvent should get, built from the payloads as the module's objects; none for a delta without text. */
const expected = [
  { type: 'chat', event: { type: 'messageStart', model: 'fake-model' } },
  ...payloads.filter((p) => p.text !== undefined).map((p) => {
    const event = { type: 'textDelta' };
    if (p.model !== undefined) event.model = p.model;
    if (p.text !== undefined) event.text = p.text;
    return { type: 'chat', event };
  }),
];

for (const chunk of [1, 7, 256, 1 << 16]) {
  test(`plain text deltas reach onEvent as whole events, once and in order (chunks of ${chunk} B)`, async () => {
    const seen = [];
    let calls = 0;
    const session = runtime.createSession({
      fetchImpl: scriptedFetch({ body: answer(payloads), chunk }).fetchImpl,
      onEvent: (event) => {
        calls++;
        if (event.type === 'chat') seen.push(structuredClone(event));
        if (calls % 5 === 0) throw new Error('an observer that throws');
      },
    });
    const turn = await session.chat('hi');
    session.close();
    assert.equal(turn.status, 'completed', turn.errorMessage);
    const chat = seen.filter((e) => e.event.type !== 'messageStop');
    // The message_stop event carries usage fields of the module's own shape: compare the rest.
    assert.deepEqual(chat, expected);
    assert.equal(seen.at(-1).event.type, 'messageStop');
    assert.ok(turn.text === payloads.map((p) => p.text ?? '').join(''), 'the turn\'s text is every delta\'s');
    for (const e of chat.filter((e) => e.event.type === 'textDelta' && e.event.model === undefined)) {
      assert.deepEqual(Object.keys(e), ['type', 'event']);
      assert.deepEqual(Object.keys(e.event), ['type', 'text']);
    }
  });
}
