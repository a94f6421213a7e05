// Test helpers for web/test (kept outside it so node --test does not run them): loading the built module and scripting a Studio AI proxy as
// a fetch function whose Response streams through a ReadableStream.

import { existsSync } from 'node:fs';
import { load } from '../agentwasm.mjs';

export const dist = new URL('../../dist/', import.meta.url);

/**
 * The files of each build of the module in dist/: `make build` writes go's and session's (the Go
 * build without the serving port), `make build-tiny` tiny's and tiny-session's (TinyGo's without it).
 */
export const variantFiles = {
  go: { wasm: 'agentwasm.wasm', wasmExec: 'wasm_exec.js' },
  tiny: { wasm: 'agentwasm.tiny.wasm', wasmExec: 'wasm_exec.tiny.js' },
  session: { wasm: 'agentwasm-session.wasm', wasmExec: 'wasm_exec.js' },
  'tiny-session': { wasm: 'agentwasm-session.tiny.wasm', wasmExec: 'wasm_exec.tiny.js' },
};

/**
 * The build the tests run against: `AGENTWASM_VARIANT=tiny` picks TinyGo's
 * (`make test-tiny`), anything else but `go` or nothing is a mistake. (The
 * session-only builds, session and tiny-session, lack the port most tests
 * use; session_build.test.mjs runs the one of this toolchain, sessionVariant.)
 * @type {'go' | 'tiny'}
 */
export const variant = (() => {
  const v = process.env.AGENTWASM_VARIANT || 'go';
  if (v !== 'go' && v !== 'tiny') throw new Error(`AGENTWASM_VARIANT is ${JSON.stringify(v)}: go or tiny`);
  return v;
})();

/** The session-only build of the toolchain under test: session (Go's) or tiny-session (TinyGo's). */
export const sessionVariant = variant === 'tiny' ? 'tiny-session' : 'session';

/** Whether dist/ holds both files of a build. */
export function built(which) {
  return Object.values(variantFiles[which]).every((file) => existsSync(new URL(file, dist)));
}

/**
 * Why a test that needs the TinyGo build beside the Go build cannot run ('' when it can): dist/
 * lacks one of them. `make test` builds only the Go modules, so there such a test skips saying
 * so; with AGENTWASM_REQUIRE_TINY=1 (`make test-tiny` and CI set it) a missing build throws
 * instead, and the test file fails.
 */
export function tinyMissing() {
  const why = ['go', 'tiny'].filter((which) => !built(which))
    .map((which) => (which === 'go' ? 'the Go build (make build)' : 'the TinyGo build (make build-tiny)'))
    .join(' and ');
  if (why && process.env.AGENTWASM_REQUIRE_TINY === '1') throw new Error(`AGENTWASM_REQUIRE_TINY=1 but dist/ lacks ${why}`);
  return why && `dist/ lacks ${why}`;
}

/**
 * Loads a fresh runtime from dist/ with test hooks: the build `variant`
 * names (`options.variant` picks another), from the files `make build` or
 * `make build-tiny` wrote.
 */
export function loadRuntime(options = {}) {
  const which = options.variant ?? variant;
  const files = variantFiles[which];
  if (!files) throw new Error(`no build ${JSON.stringify(which)}: go, tiny, session or tiny-session`);
  return load({
    wasm: new URL(files.wasm, dist),
    wasmExec: new URL(files.wasmExec, dist),
    testHooks: true,
    ...options,
    variant: which,
  });
}

/** One SSE frame. */
export function frame(event, data) {
  return `event: ${event}\ndata: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

/** A complete text-only answer. */
export function textStream(...parts) {
  return frame('message_start', { model: 'fake-model' })
    + parts.map((text) => frame('text_delta', { text })).join('')
    + frame('message_stop', { stopReason: 'endTurn', promptTokens: 3, completionTokens: 2 });
}

const enc = new TextEncoder();

/**
 * A scripted fetch: each call takes the next reply ({status, body, chunk,
 * hang}); the last repeats. Requests are recorded with their parsed body.
 * Requests to the MCP endpoint ({baseUrl}/mcp, where the session's default
 * MCP client discovers tools) are answered 404, so that discovery fails fast,
 * take no reply and are recorded apart, in mcpRequests.
 */
export function scriptedFetch(...replies) {
  const requests = [];
  const mcpRequests = [];
  const fetchImpl = async (url, init = {}) => {
    if (String(url).endsWith('/mcp')) {
      mcpRequests.push({ url, init });
      return new Response('not found', { status: 404 });
    }
    const reply = replies[Math.min(requests.length, replies.length - 1)];
    const request = { url, init, body: init.body ? JSON.parse(new TextDecoder().decode(init.body)) : undefined, cancelled: false };
    requests.push(request);
    const bytes = enc.encode(reply.body ?? '');
    const chunk = reply.chunk ?? bytes.length;
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < bytes.length; i += Math.max(chunk, 1)) controller.enqueue(bytes.slice(i, i + Math.max(chunk, 1)));
        if (!reply.hang) controller.close();
        init.signal?.addEventListener('abort', () => controller.error(init.signal.reason));
      },
      cancel() {
        request.cancelled = true;
      },
    });
    return new Response(stream, { status: reply.status ?? 200, headers: { 'content-type': 'text/event-stream' } });
  };
  return { fetchImpl, requests, mcpRequests };
}

/** SSE for an answer that calls tools: [{id, name, args}] → start/stop frames. */
export function toolCallStream(...calls) {
  return frame('message_start', { model: 'fake-model' })
    + calls.map(({ id, name, args = {} }) => frame('tool_call_start', { toolCallId: id, toolName: name })
      + frame('tool_call_stop', { toolCallId: id, toolArguments: args })).join('')
    + frame('message_stop', { stopReason: 'toolCall' });
}

/**
 * A session transport (the `transport` option) that plays one round per model request: a list of
 * tool calls ({name, args}), or a text answer.
 */
export function scriptedRounds(rounds) {
  let n = 0;
  return async function* () {
    const round = rounds[n++];
    yield { type: 'messageStart', model: 'scripted' };
    if (typeof round === 'string') {
      yield { type: 'textDelta', text: round };
      yield { type: 'messageStop', stopReason: 'endTurn' };
      return;
    }
    for (const [i, c] of round.entries()) {
      yield { type: 'toolCallStart', toolCallId: `c${n}-${i}`, toolName: c.name };
      yield { type: 'toolCallStop', toolCallId: `c${n}-${i}`, toolArguments: c.args };
    }
    yield { type: 'messageStop', stopReason: 'toolCall' };
  };
}

/**
 * A scripted Studio AI proxy as a fetch function: chat requests take the
 * next of `chat` (the last repeats), capabilities requests get
 * `capabilities` (an object, or a status number to fail with; undefined
 * answers 404); MCP requests ({baseUrl}/mcp) are answered 404. Every request
 * is recorded with its URL, headers and body.
 */
export function studioProxy({ chat = [], capabilities } = {}) {
  const requests = [];
  let chats = 0;
  const fetchImpl = async (url, init = {}) => {
    const headers = { ...(init.headers ?? {}) };
    const request = { url, method: init.method, headers, body: init.body ? JSON.parse(new TextDecoder().decode(init.body)) : undefined };
    requests.push(request);
    if (url.endsWith('/mcp')) return new Response('not found', { status: 404 });
    if (url.endsWith('/v1/studio/ai/capabilities')) {
      if (capabilities === undefined) return new Response('not here', { status: 404 });
      if (typeof capabilities === 'number') return new Response('failed', { status: capabilities });
      return new Response(JSON.stringify(capabilities), { status: 200, headers: { 'content-type': 'application/json' } });
    }
    const reply = typeof chat === 'function' ? chat(request, chats) : chat[Math.min(chats, chat.length - 1)];
    chats++;
    return scriptedFetch(reply).fetchImpl(url, init);
  };
  return { fetchImpl, requests, chatRequests: () => requests.filter((r) => r.url.endsWith('/v1/studio/ai/chat')) };
}

/**
 * Runs `body` as an ES module in a child Node process, after
 * `import {loadRuntime, scriptedFetch, textStream} from <these helpers>`,
 * and resolves with what it printed and its exit code — or 'killed' when it
 * was still running after limitMs: a process that does not exit by itself.
 * The child's stderr is the parent's, or with `stderr: 'pipe'` collected
 * into `err` (a module that dies on purpose prints its panic there).
 * The child inherits the environment, so AGENTWASM_VARIANT too.
 */
export async function runChild(body, { limitMs = 30_000, stderr = 'inherit' } = {}) {
  const { spawn } = await import('node:child_process');
  const script = `import { loadRuntime, scriptedFetch, textStream } from ${JSON.stringify(import.meta.url)};\n${body}`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', stderr] });
  let out = '';
  let err = '';
  child.stdout.on('data', (b) => { out += b; });
  child.stderr?.on('data', (b) => { err += b; });
  const code = await new Promise((resolve) => {
    const timer = setTimeout(() => { child.kill(); resolve('killed'); }, limitMs);
    child.on('exit', (c) => { clearTimeout(timer); resolve(c); });
  });
  return { out: out.trim(), err, code };
}
