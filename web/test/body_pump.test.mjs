// Node tests of how the js module reads a response body: through the loader's
// body pump (the boot setting readBody, web/agentwasm.mjs), which reads the
// stream in JavaScript ahead of the module and hands it each backlog in one
// call, and without it (a host that boots the module without the loader),
// where the module keeps reads in flight itself. Both read every chunk size
// into the exact text, end a failing stream with the same error texts, keep
// the module serving after a bad chunk, cancel the reader when a turn is
// aborted or goes silent, and stream a live answer as each chunk comes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRuntime, scriptedFetch, frame, textStream, runChild, variant } from '../testing/helpers.mjs';

const enc = new TextEncoder();

// Go's and TinyGo's syscall/js say so on the console when JavaScript calls a
// function the module released (the module would have handed out a wake it
// then released): counted here, and checked by the last test.
const releasedCalls = [];
const consoleError = console.error;
console.error = (...args) => {
  if (args[0] === 'call to released function') releasedCalls.push(new Error('called here').stack);
  consoleError.apply(console, args);
};

/**
 * Loads a runtime that boots without the body pump: the boot settings the
 * loader sets go through an accessor that drops readBody before the module
 * reads them (the module reads and deletes the global synchronously inside
 * go.run, so the accessor is gone when load resolves).
 */
async function loadWithoutPump() {
  const key = '__agentwasmBoot';
  let boot;
  Object.defineProperty(globalThis, key, {
    configurable: true,
    get: () => boot,
    set: (value) => {
      if (value !== null && typeof value === 'object') delete value.readBody;
      boot = value;
    },
  });
  try {
    return await loadRuntime();
  } finally {
    delete globalThis[key];
  }
}

const runtimes = { pump: await loadRuntime(), 'no pump': await loadWithoutPump() };

/** A Response over a ReadableStream with the given source, as the proxy's chat answer; other URLs answer 404. */
function streamFetch(source, { onRequest } = {}) {
  return async (url, init) => {
    if (!url.endsWith('/v1/studio/ai/chat')) return new Response('not here', { status: 404 });
    onRequest?.(init);
    return new Response(new ReadableStream(source), { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
}

/** A Response-like object whose body's reader answers read() with reads(i) for the i-th read. */
function readerFetch(reads, counters = { inFlight: 0, maxInFlight: 0, cancelled: false }) {
  const fetchImpl = async (url) => {
    if (!url.endsWith('/v1/studio/ai/chat')) return new Response('not here', { status: 404 });
    let i = 0;
    const reader = {
      read() {
        counters.inFlight++;
        counters.maxInFlight = Math.max(counters.maxInFlight, counters.inFlight);
        const result = reads(i++);
        const done = () => { counters.inFlight--; };
        if (result instanceof Promise) result.then(done, done);
        else done();
        return result;
      },
      cancel() {
        counters.cancelled = true;
        return Promise.resolve();
      },
    };
    return { status: 200, headers: { 'content-type': 'text/event-stream' }, body: { locked: false, getReader: () => reader } };
  };
  return { fetchImpl, counters };
}

const opening = frame('message_start', { model: 'm' }) + frame('text_delta', { text: 'par' });
const answer = 'Hé, ✓ ' + Array.from({ length: 400 }, (_, i) => `word${i} é✓ `).join('');
const answerParts = answer.match(/.{1,9}/gsu);

for (const [name, runtime] of Object.entries(runtimes)) {
  for (const chunk of [1, 7, 256, 64 * 1024]) {
    test(`${name}: an answer streamed in ${chunk} B chunks gives the exact text`, async () => {
      let deltas = '';
      const session = runtime.createSession({
        fetchImpl: scriptedFetch({ body: textStream(...answerParts), chunk }).fetchImpl,
        disableToolDiscovery: true,
        onEvent: (e) => { if (e.type === 'chat' && e.event.type === 'textDelta') deltas += e.event.text; },
      });
      const turn = await session.chat('hi');
      assert.equal(turn.status, 'completed', turn.errorMessage);
      assert.equal(turn.text, answer);
      assert.equal(deltas, answer, 'onEvent saw every delta');
      session.close();
    });
  }

  const failures = [
    ['a stream that errors mid-stream', streamFetch({
      start(c) { c.enqueue(enc.encode(opening)); },
      pull(c) { return new Promise((resolve) => setTimeout(resolve, 5)).then(() => c.error(new TypeError('socket hang up'))); },
    }), 'par', 'The Studio AI proxy\'s stream failed: bridge: reading server-sent events: bridge: reading the response body: TypeError: socket hang up'],
    ['a stream that errors at once', streamFetch({
      start(c) { c.enqueue(enc.encode(opening)); c.error(new TypeError('socket hang up')); },
    }), '', 'The Studio AI proxy\'s stream failed: bridge: reading server-sent events: bridge: reading the response body: TypeError: socket hang up'],
    ['a stream that errors with a plain object', streamFetch({
      start(c) { c.enqueue(enc.encode(opening)); },
      pull(c) { c.error({ reason: 'gone' }); },
    }), 'par', 'The Studio AI proxy\'s stream failed: bridge: reading server-sent events: bridge: reading the response body: {"reason":"gone"}'],
    ['a chunk that is not a Uint8Array', streamFetch({
      start(c) { c.enqueue(enc.encode(opening)); c.enqueue('a string'); c.close(); },
    }), 'par', 'The Studio AI proxy\'s stream failed: bridge: reading server-sent events: the response body produced a chunk that is not a Uint8Array'],
    ['a chunk that is an ArrayBuffer', streamFetch({
      start(c) { c.enqueue(enc.encode(opening)); c.enqueue(new ArrayBuffer(4)); c.close(); },
    }), 'par', 'The Studio AI proxy\'s stream failed: bridge: reading server-sent events: the response body produced a chunk that is not a Uint8Array'],
    ['a reader that gives a non-object', readerFetch((i) => Promise.resolve(i === 0 ? { done: false, value: enc.encode(opening) } : 42)).fetchImpl,
      'par', 'The Studio AI proxy\'s stream failed: bridge: reading server-sent events: bridge: the response body\'s reader returned a non-object'],
    // Without the pump the module makes its reads in a batch, and the throw
    // ends the batch before the first chunk is taken: its bytes are lost.
    ['a reader whose read() throws', readerFetch((i) => {
      if (i === 0) return Promise.resolve({ done: false, value: enc.encode(opening) });
      throw new RangeError('reader broke');
    }).fetchImpl, name === 'pump' ? 'par' : '', 'The Studio AI proxy\'s stream failed: bridge: reading server-sent events: bridge: reading the response body: RangeError: reader broke'],
  ];
  for (const [what, fetchImpl, text, message] of failures) {
    // Without the pump a TinyGo build calls read() itself, and cannot catch a
    // throw: the instance traps (the pump catches it in JavaScript).
    const skip = name === 'no pump' && variant === 'tiny' && what.includes('throws') && 'TinyGo cannot recover a throw out of read()';
    test(`${name}: ${what} ends the turn with its error, and the module serves on`, { skip }, async () => {
      const session = runtime.createSession({ fetchImpl, disableToolDiscovery: true });
      const turn = await session.chat('hi');
      assert.equal(turn.status, 'error');
      assert.equal(turn.errorMessage, message);
      assert.equal(turn.errorCode, undefined);
      assert.equal(turn.text, text);
      session.close();
      const next = runtime.createSession({ fetchImpl: scriptedFetch({ body: textStream('still ', 'here'), chunk: 3 }).fetchImpl, disableToolDiscovery: true });
      const again = await next.chat('and now?');
      assert.equal(again.status, 'completed', again.errorMessage);
      assert.equal(again.text, 'still here');
      next.close();
    });
  }

  test(`${name}: aborting a turn mid-stream cancels the reader and ends the turn cancelled`, async () => {
    let cancelled = false;
    let signal;
    const controller = new AbortController();
    const session = runtime.createSession({
      fetchImpl: streamFetch({
        start(c) { c.enqueue(enc.encode(opening)); }, // and nothing more: the stream stays open
        cancel() { cancelled = true; },
      }, { onRequest: (init) => { signal = init.signal; } }),
      disableToolDiscovery: true,
      onEvent: (e) => { if (e.type === 'chat' && e.event.type === 'textDelta') controller.abort(); },
    });
    const turn = await session.chat('hi', { signal: controller.signal });
    assert.equal(turn.status, 'cancelled');
    assert.equal(turn.text, 'par');
    assert.ok(cancelled, 'the stream saw cancel');
    assert.equal(signal.aborted, true, 'the fetch was aborted');
    session.close();
  });

  test(`${name}: an answer that goes silent is cancelled by the idle bound`, async () => {
    let cancelled = false;
    const session = runtime.createSession({
      fetchImpl: streamFetch({ start(c) { c.enqueue(enc.encode(opening)); }, cancel() { cancelled = true; } }),
      disableToolDiscovery: true,
      streamIdleTimeoutMs: 60,
    });
    const turn = await session.chat('hi');
    assert.equal(turn.errorCode, 'stream_timeout');
    assert.equal(turn.text, 'par');
    assert.ok(cancelled, 'the stream saw cancel');
    session.close();
  });

  test(`${name}: a live stream streams each chunk's events as it comes`, async () => {
    const parts = ['one ', 'two ', 'three ', 'four ', 'five'];
    const seenBefore = []; // the deltas onEvent had seen when each chunk was enqueued
    let seen = 0;
    // Waits (boundedly: 5 s) until onEvent has seen n deltas. A module that held the events back
    // until the stream ended would make it give up, and the assertion below fail.
    const seenAtLeast = async (n) => {
      for (let i = 0; i < 500 && seen < n; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    };
    const session = runtime.createSession({
      fetchImpl: streamFetch({
        async start(c) {
          c.enqueue(enc.encode(frame('message_start', { model: 'm' })));
          for (const [i, part] of parts.entries()) {
            await seenAtLeast(i);
            seenBefore.push(seen);
            c.enqueue(enc.encode(frame('text_delta', { text: part })));
          }
          await seenAtLeast(parts.length);
          seenBefore.push(seen);
          c.enqueue(enc.encode(frame('message_stop', { stopReason: 'endTurn' })));
          c.close();
        },
      }),
      disableToolDiscovery: true,
      onEvent: (e) => { if (e.type === 'chat' && e.event.type === 'textDelta') seen++; },
    });
    const turn = await session.chat('hi');
    assert.equal(turn.status, 'completed', turn.errorMessage);
    assert.equal(turn.text, parts.join(''));
    assert.deepEqual(seenBefore, [0, 1, 2, 3, 4, 5], 'each delta reached onEvent before the next chunk came');
    session.close();
  });
}

test('the pump keeps one read in flight; without it the module keeps several', async () => {
  const body = enc.encode(textStream(...answerParts));
  const chunk = 64;
  const reads = (i) => Promise.resolve(i * chunk < body.length ? { done: false, value: body.slice(i * chunk, (i + 1) * chunk) } : { done: true });
  const maxInFlight = {};
  for (const [name, runtime] of Object.entries(runtimes)) {
    const { fetchImpl, counters } = readerFetch(reads);
    const session = runtime.createSession({ fetchImpl, disableToolDiscovery: true });
    const turn = await session.chat('hi');
    assert.equal(turn.status, 'completed', turn.errorMessage);
    assert.equal(turn.text, answer);
    maxInFlight[name] = counters.maxInFlight;
    session.close();
  }
  assert.equal(maxInFlight.pump, 1, 'the pump chains its reads');
  assert.ok(maxInFlight['no pump'] > 1, `without the pump the module reads ahead itself (${maxInFlight['no pump']} reads at once)`);
});

test('the pump reads at most about 1 MiB ahead of the module', async () => {
  // A pull source (it gives a chunk only when read) that counts the bytes it
  // gave; onEvent counts those the module has parsed. 4 MiB in all: the
  // module takes several backlogs, each up to the pump's bound.
  const piece = enc.encode(frame('text_delta', { text: 'x'.repeat(1000) }));
  let given = 0;
  const fetchImpl = async (url) => {
    if (!url.endsWith('/v1/studio/ai/chat')) return new Response('not here', { status: 404 });
    let started = false;
    const stream = new ReadableStream({
      pull(c) {
        if (!started) {
          started = true;
          c.enqueue(enc.encode(frame('message_start', { model: 'm' })));
        } else if (given >= 4 << 20) {
          c.enqueue(enc.encode(frame('message_stop', { stopReason: 'endTurn' })));
          c.close();
        } else {
          given += piece.length;
          c.enqueue(piece);
        }
      },
    }, { highWaterMark: 0 });
    return new Response(stream, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
  let maxAhead = 0;
  let parsed = 0;
  const session = runtimes.pump.createSession({
    fetchImpl,
    disableToolDiscovery: true,
    onEvent: (e) => {
      if (e.type !== 'chat' || e.event.type !== 'textDelta') return;
      parsed += piece.length;
      maxAhead = Math.max(maxAhead, given - parsed);
    },
  });
  const turn = await session.chat('hi');
  assert.equal(turn.status, 'completed', turn.errorMessage);
  assert.equal(turn.text.length, given / piece.length * 1000);
  assert.ok(maxAhead <= (1 << 20) + 2 * piece.length, `read ${maxAhead} bytes ahead of the module`);
  session.close();
});

test('without setImmediate (a browser) the pump wakes the module through a MessageChannel, which holds no process open', { timeout: 60_000 }, async () => {
  const { out, code } = await runChild(`
    delete globalThis.setImmediate; // before the first wake: the loader picks its scheduler then
    const runtime = await loadRuntime();
    const parts = Array.from({ length: 300 }, (_, i) => 'w' + i + ' ');
    const session = runtime.createSession({ fetchImpl: scriptedFetch({ body: textStream(...parts), chunk: 256 }).fetchImpl, disableToolDiscovery: true });
    const turn = await session.chat('hi');
    console.log(turn.status, turn.text === parts.join(''));
  `);
  assert.equal(out, 'completed true');
  assert.equal(code, 0, 'the process exits by itself');
});

test('no function the module released was called', async () => {
  await new Promise((resolve) => setTimeout(resolve, 50)); // the reads the last tests cancelled have settled
  assert.deepEqual(releasedCalls, []);
});
