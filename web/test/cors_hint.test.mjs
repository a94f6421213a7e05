// The loader's hint on a failed fetch across origins: when the host's own
// fetch (no fetchImpl) fails with a network error (a TypeError) for a URL of
// another origin than the page's, the turn's error says what a CORS refusal
// needs (--allow-origin with the page's origin); a same-origin URL, another
// kind of failure, no page (Node) or a fetchImpl of the app's get the error
// as it was; the hint names the two origins only, never a path, query or
// credentials. Here globalThis.location and globalThis.fetch stand in for a
// browser page's.
import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { loadRuntime } from '../testing/helpers.mjs';

const runtime = await loadRuntime();
const realFetch = globalThis.fetch;
const hadLocation = Object.hasOwn(globalThis, 'location');

afterEach(() => {
  globalThis.fetch = realFetch;
  if (!hadLocation) delete globalThis.location;
});

/** Runs one turn with the host's fetch failing as fail() says, from a page at pageUrl (none: Node). */
async function failedTurn({ pageUrl, baseUrl, fail, fetchImpl }) {
  if (pageUrl) {
    const u = new URL(pageUrl);
    globalThis.location = { origin: u.origin, href: u.href };
  }
  globalThis.fetch = async () => {
    throw fail();
  };
  const session = runtime.createSession({ baseUrl, disableToolDiscovery: true, ...(fetchImpl ? { fetchImpl } : {}) });
  try {
    return await session.chat('hi');
  } finally {
    session.close();
  }
}

const hint = '--allow-origin http://127.0.0.1:5173 (make run ALLOW_ORIGIN=http://127.0.0.1:5173)';
const cases = [
  { name: 'a page calling another port', pageUrl: 'http://127.0.0.1:5173/app/', baseUrl: 'http://127.0.0.1:8080/api', hinted: true },
  { name: 'a page on localhost calling 127.0.0.1', pageUrl: 'http://localhost:5173/', baseUrl: 'http://127.0.0.1:5173/api', hinted: true,
    want: '--allow-origin http://localhost:5173' },
  { name: 'a page calling its own origin (absolute)', pageUrl: 'http://127.0.0.1:5173/', baseUrl: 'http://127.0.0.1:5173/api', hinted: false },
  { name: 'a page calling its own origin (relative)', pageUrl: 'http://127.0.0.1:5173/', baseUrl: '/api', hinted: false },
  { name: 'no page (Node)', baseUrl: 'http://127.0.0.1:8080/api', hinted: false },
  { name: 'a failure that is not a network error', pageUrl: 'http://127.0.0.1:5173/', baseUrl: 'http://127.0.0.1:8080/api', hinted: false,
    fail: () => new RangeError('something else') },
  { name: 'a fetchImpl of the app', pageUrl: 'http://127.0.0.1:5173/', baseUrl: 'http://127.0.0.1:8080/api', hinted: false,
    fetchImpl: () => Promise.reject(new TypeError('Failed to fetch')) },
];
for (const c of cases) {
  test(`the CORS hint: ${c.name} ${c.hinted ? 'gets it' : 'does not'}`, async () => {
    const turn = await failedTurn({ fail: () => new TypeError('Failed to fetch'), ...c });
    assert.equal(turn.status, 'error');
    assert.equal(turn.errorCode, undefined, 'no new error code');
    assert.match(turn.errorMessage, /^Could not reach the Studio AI proxy at /);
    if (c.hinted) {
      assert.ok(turn.errorMessage.includes(c.want ?? hint), turn.errorMessage);
      assert.match(turn.errorMessage, /TypeError: Failed to fetch \(this page, http:\/\/\S+, called another origin, http:\/\/127\.0\.0\.1:\d+: .*CORS/);
    } else {
      assert.doesNotMatch(turn.errorMessage, /allow-origin|CORS/);
    }
  });
}

// (A baseUrl with a query, a fragment or credentials is refused before any turn: agent_api.test.mjs.)
test('the CORS hint names origins only: no path, query or fragment of the page, no path of the URL', async () => {
  const turn = await failedTurn({
    pageUrl: 'http://127.0.0.1:5173/app/?session=page-secret#frag',
    baseUrl: 'http://127.0.0.1:8080/private-path/api',
    fail: () => new TypeError('Failed to fetch'),
  });
  assert.equal(turn.status, 'error');
  const hint = turn.errorMessage.slice(turn.errorMessage.indexOf('TypeError: Failed to fetch'));
  assert.match(hint, /^TypeError: Failed to fetch \(this page, http:\/\/127\.0\.0\.1:5173, called another origin, http:\/\/127\.0\.0\.1:8080: /);
  assert.doesNotMatch(hint, /page-secret|frag|private-path|\/app\//);
});
