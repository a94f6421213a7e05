// agentwasm.mjs — the ES module that loads the agentwasm WebAssembly module
// (the GOOS=js build) and gives JavaScript hosts a Promise-based API:
//
//   import { load } from './agentwasm.mjs';
//   const runtime = await load();
//   const session = runtime.createSession({ baseUrl: '/api', model: 'm' });
//   const turn = await session.chat('hello', { signal });
//
// Works in browsers, Electron-style hosts and Node 20+. Types are in
// agentwasm.d.ts; the commands underneath are documented in wasm/README.md.

const here = import.meta.url;

/** Options that travel to the module as JSON. */
const JSON_OPTIONS = new Set([
  'baseUrl', 'model', 'provider', 'system', 'maxTokens', 'temperature', 'toolChoice', 'maxFrameBytes',
]);

/** Options handled here, in JavaScript. */
const JS_OPTIONS = new Set(['fetchImpl', 'onEvent']);

/** Options of the reference session that this version does not implement yet. */
const LATER_OPTIONS = new Set([
  'auth', 'disableToolDiscovery', 'draft', 'execute', 'kit', 'maxToolRounds', 'mcpClient', 'studioTools',
  'toolDiscoveryTimeoutMs', 'toolListChangedWatch', 'tools', 'transport', 'watchToolListChanged',
]);

/**
 * An Error with a stable `code`.
 * @param {string} code
 * @param {string} message
 */
function agentError(code, message, ErrorType = Error) {
  const err = new ErrorType(message);
  err.code = code;
  return err;
}

/** Turns a failed reply into a thrown Error. */
function replyError(reply) {
  const e = reply.error || { code: 'internal', message: 'agentwasm: the module answered without a result' };
  return agentError(e.code, e.message);
}

let execLoaded = new Map();

/** Loads wasm_exec.js (which defines globalThis.Go) once per URL. */
function loadWasmExec(url) {
  const key = String(url);
  if (!execLoaded.has(key)) {
    execLoaded.set(key, import(key).then(() => {
      if (typeof globalThis.Go !== 'function') {
        throw agentError('load_failed', `agentwasm: ${key} did not define globalThis.Go; is it Go's wasm_exec.js?`);
      }
    }, (err) => {
      execLoaded.delete(key);
      throw agentError('load_failed', `agentwasm: could not load ${key}: ${err && err.message}`);
    }));
  }
  return execLoaded.get(key);
}

/** Reads the module's bytes, or instantiates from what the caller gave. */
async function instantiate(wasm, imports) {
  if (wasm instanceof WebAssembly.Module) {
    return WebAssembly.instantiate(wasm, imports);
  }
  if (wasm instanceof ArrayBuffer || ArrayBuffer.isView(wasm)) {
    return (await WebAssembly.instantiate(wasm, imports)).instance;
  }
  const url = new URL(String(wasm ?? new URL('./agentwasm.wasm', here)), here);
  if (url.protocol === 'file:') {
    const { readFile } = await import('node:fs/promises');
    return (await WebAssembly.instantiate(await readFile(url), imports)).instance;
  }
  const response = await fetch(url);
  if (!response.ok) {
    throw agentError('load_failed', `agentwasm: fetching ${url} answered ${response.status}`);
  }
  if (WebAssembly.instantiateStreaming && response.headers.get('content-type') === 'application/wasm') {
    return (await WebAssembly.instantiateStreaming(response, imports)).instance;
  }
  return (await WebAssembly.instantiate(await response.arrayBuffer(), imports)).instance;
}

let loads = 0;

/**
 * Loads and starts one module instance. Each call gives an independent
 * runtime with its own sessions.
 * @param {import('./agentwasm.d.ts').LoadOptions} [options]
 * @returns {Promise<Runtime>}
 */
export async function load(options = {}) {
  const { wasm, wasmExec, testHooks = false } = options;
  await loadWasmExec(new URL(String(wasmExec ?? new URL('./wasm_exec.js', here)), here));
  const go = new globalThis.Go();
  const name = `__agentwasm_register_${++loads}_${Math.random().toString(36).slice(2)}`;
  const ready = new Promise((resolve) => {
    globalThis[name] = (api) => resolve(api);
  });
  go.env = { AGENTWASM_REGISTER: name };
  if (testHooks) go.env.AGENTWASM_TEST_HOOKS = '1';
  try {
    let instance;
    try {
      instance = await instantiate(wasm, go.importObject);
    } catch (err) {
      throw err.code ? err : agentError('load_failed', `agentwasm: could not instantiate the module: ${err && err.message}`);
    }
    const exited = go.run(instance);
    const api = await Promise.race([
      ready,
      exited.then(() => { throw agentError('load_failed', 'agentwasm: the module exited before it was ready'); }),
    ]);
    return new Runtime(api, go);
  } finally {
    delete globalThis[name];
  }
}

/** One loaded module instance. */
export class Runtime {
  #api;
  #go;

  /** @internal */
  constructor(api, go) {
    this.#api = api;
    this.#go = go;
  }

  /** @internal Sends a command that never waits. */
  callSync(command, hooks) {
    this.#alive();
    return JSON.parse(this.#api.callSync(JSON.stringify(command), hooks));
  }

  /** @internal Sends a command that may wait. */
  async call(command, hooks, signal) {
    this.#alive();
    return JSON.parse(await this.#api.call(JSON.stringify(command), hooks, signal));
  }

  #alive() {
    if (this.#go.exited) {
      throw agentError('module_exited', 'agentwasm: the module has exited; load() a new runtime');
    }
  }

  /**
   * The module's version.
   * @returns {{version: string, abi: number, goVersion: string}}
   */
  version() {
    const reply = this.callSync({ op: 'version' });
    if (!reply.ok) throw replyError(reply);
    return { version: reply.version, abi: reply.abi, goVersion: reply.goVersion };
  }

  /**
   * Creates an agent session.
   * @param {import('./agentwasm.d.ts').SessionOptions} [options]
   * @returns {Session}
   */
  createSession(options = {}) {
    if (options === null || typeof options !== 'object') {
      throw agentError('bad_options', 'agentwasm: createSession takes an options object', TypeError);
    }
    const json = {};
    for (const [key, value] of Object.entries(options)) {
      if (value === undefined) continue;
      if (JSON_OPTIONS.has(key)) {
        json[key] = value;
      } else if (LATER_OPTIONS.has(key)) {
        throw agentError('unsupported_option', `agentwasm: the option ${key} is not supported by this version yet`);
      } else if (!JS_OPTIONS.has(key)) {
        throw agentError('bad_options', `agentwasm: unknown option ${key}`, TypeError);
      }
    }
    if (typeof json.system !== 'undefined' && typeof json.system !== 'string') {
      throw agentError('bad_options', 'agentwasm: system must be a string', TypeError);
    }
    for (const key of JS_OPTIONS) {
      if (options[key] !== undefined && typeof options[key] !== 'function') {
        throw agentError('bad_options', `agentwasm: ${key} must be a function`, TypeError);
      }
    }
    const session = new Session(this);
    const hooks = { event: (id, text) => session.dispatch(text) };
    if (options.fetchImpl) hooks.fetch = options.fetchImpl;
    const reply = this.callSync({ op: 'session.create', options: json }, hooks);
    if (!reply.ok) throw replyError(reply);
    session.bind(reply.session, options.onEvent);
    return session;
  }
}

/** One agent conversation. */
export class Session {
  #runtime;
  #id = 0;
  #onEvent;
  #closed = false;

  /** @internal */
  constructor(runtime) {
    this.#runtime = runtime;
  }

  /** @internal */
  bind(id, onEvent) {
    this.#id = id;
    this.#onEvent = onEvent;
  }

  /** @internal Hands one event to the observer; nothing it does can break the turn. */
  dispatch(text) {
    if (!this.#onEvent) return;
    try {
      const result = this.#onEvent(JSON.parse(text));
      if (result && typeof result.then === 'function') result.then(undefined, () => {});
    } catch {
      // An observer that throws changes nothing in the turn.
    }
  }

  /** The session's id inside the module. */
  get id() {
    return this.#id;
  }

  /**
   * Sends the person's message and resolves with the turn record. The turn's
   * `status` says how it ended; the Promise rejects only for misuse.
   * @param {string} text
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<import('./agentwasm.d.ts').Turn>}
   */
  async chat(text, options = {}) {
    if (typeof text !== 'string') {
      throw agentError('bad_argument', 'agentwasm: chat(text) takes a string', TypeError);
    }
    if (this.#closed) {
      throw agentError('closed', 'agentwasm: this session is closed; create a new one');
    }
    const { signal } = options ?? {};
    if (signal !== undefined && !(typeof signal === 'object' && signal !== null && 'aborted' in signal)) {
      throw agentError('bad_argument', 'agentwasm: signal must be an AbortSignal', TypeError);
    }
    const reply = await this.#runtime.call({ op: 'session.chat', session: this.#id, text }, undefined, signal);
    if (!reply.ok) throw replyError(reply);
    return reply.turn;
  }

  /** Ends the session; later chats reject with code `closed`. */
  close() {
    if (this.#closed) return;
    this.#closed = true;
    const reply = this.#runtime.callSync({ op: 'session.close', session: this.#id });
    if (!reply.ok && reply.error?.code !== 'unknown_session') throw replyError(reply);
  }
}
