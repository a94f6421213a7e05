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
//
// Bundler-safe: the default assets are found with
// `new URL('./agentwasm.wasm', import.meta.url)` and
// `new URL('./wasm_exec.js', import.meta.url)`, written literally so that
// bundlers that know the pattern (webpack 5, Vite/Rollup) emit the files and
// rewrite the URLs; the others (esbuild) keep import.meta.url, so the two
// files go next to the bundle. wasm_exec.js is loaded at run time from its
// URL, never bundled, and `node:fs/promises` (for file: URLs, in Node) is
// imported through a name the bundler cannot see, so a browser bundle never
// meets a `node:` import.

const here = import.meta.url;

/**
 * Node's fs module, for file: URLs only. The specifier is in a variable and
 * the import carries the ignore comments of webpack and Vite, so bundlers
 * leave it to run time instead of failing to resolve it for a browser.
 */
const NODE_FS = 'node:fs/promises';

/** Options that travel to the module as JSON, as given. */
const JSON_OPTIONS = new Set([
  'baseUrl', 'disableToolDiscovery', 'draft', 'maxTokens', 'maxToolRounds', 'model', 'provider', 'temperature',
  'toolChoice', 'toolDiscoveryTimeoutMs', 'watchToolListChanged', 'maxFrameBytes', 'maxTurnEvents', 'maxTurnTextBytes',
  'streamFirstByteTimeoutMs', 'streamIdleTimeoutMs', 'capabilitiesTimeoutMs',
]);

/** Options handled here: functions and objects with methods. */
const JS_OPTIONS = new Set([
  'auth', 'execute', 'fetchImpl', 'kit', 'mcpClient', 'onEvent', 'studioTools', 'system', 'toolListChangedWatch',
  'tools', 'transport',
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

/**
 * JSON.stringify that fails with a coded TypeError (a BigInt, a cycle, a
 * toJSON that throws or gives nothing) instead of an uncoded one.
 */
function jsonText(value, code, what) {
  let text;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    throw agentError(code, `agentwasm: ${what} cannot be sent as JSON: ${err && err.message}`, TypeError);
  }
  if (text === undefined) throw agentError(code, `agentwasm: ${what} has no JSON form`, TypeError);
  return text;
}

/** Turns a failed reply into a thrown Error. */
function replyError(reply) {
  const e = reply.error || { code: 'internal', message: 'agentwasm: the module answered without a result' };
  return agentError(e.code, e.message);
}

const execLoaded = new Map();

/** Loads wasm_exec.js (which defines globalThis.Go) once per URL. */
function loadWasmExec(url) {
  const key = String(url);
  if (!execLoaded.has(key)) {
    // A run-time import of the URL: bundlers must not follow it (wasm_exec.js
    // is a script with side effects, loaded from beside the wasm).
    execLoaded.set(key, import(/* webpackIgnore: true */ /* @vite-ignore */ key).then(() => {
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
  const url = wasm == null ? new URL('./agentwasm.wasm', import.meta.url) : new URL(String(wasm), here);
  if (url.protocol === 'file:') {
    const { readFile } = await import(/* webpackIgnore: true */ /* @vite-ignore */ NODE_FS);
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
  await loadWasmExec(wasmExec == null ? new URL('./wasm_exec.js', import.meta.url) : new URL(String(wasmExec), here));
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
    return JSON.parse(this.#api.callSync(jsonText(command, 'bad_argument', 'an argument'), hooks));
  }

  /** @internal Sends a command that may wait. */
  async call(command, hooks, signal) {
    this.#alive();
    return JSON.parse(await this.#api.call(jsonText(command, 'bad_argument', 'an argument'), hooks, signal));
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
    const json = sessionOptionsJSON(options, this);
    const session = new Session(this, options.onEvent, options.toolListChangedWatch?.onStatus);
    const hooks = { event: (id, text) => session.dispatch(text), call: callbacks(options) };
    if (options.fetchImpl) hooks.fetch = options.fetchImpl;
    const reply = this.callSync({ op: 'session.create', options: json }, hooks);
    if (!reply.ok) throw replyError(reply);
    session.bind(reply.session);
    return session;
  }

  /**
   * Builds a serving port: the app's graph offered to a model as a small,
   * byte-stable set of tools, with confirm gates and human approval.
   * @param {object | string} graph the graph (an object, or its JSON text)
   * @param {import('./agentwasm.d.ts').PortOptions} [options]
   * @returns {Port}
   */
  createPort(graph, options = {}) {
    if (options === null || typeof options !== 'object') {
      throw agentError('bad_options', 'agentwasm: createPort takes a graph and an options object', TypeError);
    }
    let graphJSON = graph;
    if (typeof graph === 'string') {
      try {
        JSON.parse(graph);
      } catch (err) {
        throw agentError('bad_options', `agentwasm: the graph is not JSON: ${err.message}`, TypeError);
      }
    } else {
      if (!isObject(graph)) throw agentError('bad_options', 'agentwasm: createPort needs a graph object', TypeError);
      graphJSON = jsonText(graph, 'bad_options', 'the graph');
    }
    const { handlers: given = {}, onWarn, onChange, ...rest } = options;
    const json = {};
    for (const [key, value] of Object.entries(rest)) {
      if (value === undefined) continue;
      if (!PORT_OPTIONS.has(key)) throw badOption(`unknown port option ${key}`);
      json[key] = value;
    }
    if (json.settleWithinMs !== undefined && !(Number.isSafeInteger(json.settleWithinMs) && json.settleWithinMs >= 0)) {
      throw badOption('settleWithinMs must be a whole number of milliseconds, 0 or more');
    }
    if (!isObject(given)) throw badOption('handlers must be an object of action id → function');
    // A copy: the handlers are the ones given now, whatever the object becomes.
    const handlers = Object.assign(Object.create(null), given);
    for (const [action, fn] of Object.entries(handlers)) {
      if (!isFunction(fn)) throw badOption(`handlers[${JSON.stringify(action)}] must be a function`);
    }
    for (const [name, value] of [['onWarn', onWarn], ['onChange', onChange]]) {
      if (value !== undefined && !isFunction(value)) throw badOption(`${name} must be a function`);
    }
    json.handlers = Object.keys(handlers);
    const port = new Port(this, { onWarn, onChange });
    const hooks = { event: (id, text) => port.dispatch(text), call: portCallbacks(handlers) };
    // The graph travels as raw JSON inside the command.
    const command = `{"op":"port.create","graph":${graphJSON},"options":${jsonText(json, 'bad_options', 'the port options')}}`;
    const reply = this.callSyncText(command, hooks);
    if (!reply.ok) throw replyError(reply);
    port.bind(reply.port, reply.value);
    return port;
  }

  /** @internal Sends a command, already JSON, that never waits. */
  callSyncText(text, hooks) {
    this.#alive();
    return JSON.parse(this.#api.callSync(text, hooks));
  }
}

/** Port options that travel to the module as JSON, as given. */
const PORT_OPTIONS = new Set([
  'confirmHighEffect', 'journeyTools', 'source', 'separator', 'requireHumanApproval', 'page', 'state',
  'name', 'version', 'settleWithinMs',
]);

/**
 * The module's way to run the page's action handlers: the "handler" hook
 * gets {action, input, source, transitionId}; the handler's return value
 * (or what its Promise resolves to) is the fire's data, a throw refuses it.
 */
function portCallbacks(handlers) {
  return (hook, payload, signal) => {
    if (hook !== 'handler') return Promise.reject(new Error(`a port has no ${hook} callback`));
    try {
      const { action, input, source, transitionId } = JSON.parse(payload);
      const fn = handlers[action];
      if (!fn) return Promise.reject(new Error(`the page supplied no handler for ${action}`));
      return Promise.resolve(fn(input, { action, source, transitionId, signal }))
        .then((data) => JSON.stringify(data ?? null));
    } catch (err) {
      return Promise.reject(err);
    }
  };
}

/** Throws a coded TypeError for an option of the wrong type. */
function badOption(message) {
  return agentError('bad_options', `agentwasm: ${message}`, TypeError);
}

const isFunction = (v) => typeof v === 'function';
const isObject = (v) => v !== null && typeof v === 'object';

/** A tool definition as the module takes it. */
function toolJSON(tool, where) {
  if (!isObject(tool) || typeof tool.name !== 'string' || tool.name === '') {
    throw badOption(`${where} needs a name`);
  }
  const out = { name: tool.name };
  if (tool.description !== undefined) out.description = String(tool.description);
  const schema = tool.inputSchema ?? tool.parameters ?? tool.input_schema;
  if (schema !== undefined) out.inputSchema = schema;
  if (tool.annotations !== undefined) out.annotations = tool.annotations;
  if (tool.outputSchema !== undefined) out.outputSchema = tool.outputSchema;
  return out;
}

/** Checks the options and returns their JSON part (wasm/README.md). */
function sessionOptionsJSON(options, runtime) {
  const json = {};
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined) continue;
    if (JSON_OPTIONS.has(key)) json[key] = value;
    else if (!JS_OPTIONS.has(key)) throw badOption(`unknown option ${key}`);
  }
  const { auth, execute, fetchImpl, kit, mcpClient, onEvent, studioTools, system, toolListChangedWatch, tools, transport } = options;
  if (auth !== undefined) {
    if (!isFunction(auth) && !(isObject(auth) && isFunction(auth.getAccessToken))) {
      throw badOption('auth must be a function or an object with getAccessToken()');
    }
    json.auth = true;
  }
  for (const [name, value] of [['execute', execute], ['fetchImpl', fetchImpl], ['onEvent', onEvent]]) {
    if (value !== undefined && !isFunction(value)) throw badOption(`${name} must be a function`);
  }
  if (execute) json.execute = true;
  if (kit instanceof Port) {
    // A serving port as the kit: its tools are the session's runtime tools,
    // its approval doors stay with the page.
    if (!kit.belongsTo(runtime)) throw badOption('kit is a Port of another runtime; build the port with this runtime\'s createPort');
    if (kit.closed) throw agentError('closed', 'agentwasm: kit is a closed Port; create a new one');
    if (execute !== undefined) throw badOption('a session whose kit is a Port runs its tools through the port; execute would bypass its gates, so drop execute');
    json.port = kit.id;
  } else if (kit !== undefined) {
    if (!isObject(kit)) throw badOption('kit must be an object with tools and execute(), or a Port');
    const kitTools = kit.tools ?? [];
    if (!Array.isArray(kitTools)) throw badOption('kit.tools must be an array');
    if (kit.execute !== undefined && !isFunction(kit.execute)) throw badOption('kit.execute must be a function');
    if (kit.systemPrompt !== undefined && !isFunction(kit.systemPrompt)) throw badOption('kit.systemPrompt must be a function');
    json.kit = {
      tools: kitTools.map((t, i) => toolJSON(t, `kit.tools[${i}]`)),
      execute: isFunction(kit.execute),
      systemPrompt: isFunction(kit.systemPrompt),
    };
  }
  if (tools !== undefined) {
    if (!Array.isArray(tools)) throw badOption('tools must be an array');
    json.tools = tools.map((t, i) => toolJSON(t, `tools[${i}]`));
  }
  if (system !== undefined) {
    if (typeof system === 'string') json.system = system;
    else if (isFunction(system)) json.systemFunction = true;
    else throw badOption('system must be a string or a function');
  }
  if (transport !== undefined) {
    if (!isFunction(transport) && !(isObject(transport) && isFunction(transport.stream))) {
      throw badOption('transport must be a function or an object with stream()');
    }
    json.transport = true;
  }
  if (mcpClient !== undefined) {
    if (!isObject(mcpClient) || !isFunction(mcpClient.listTools) || !isFunction(mcpClient.callTool)) {
      throw badOption('mcpClient must be an object with listTools() and callTool()');
    }
    json.mcpClient = true;
  }
  if (studioTools !== undefined) {
    if (!isObject(studioTools)) throw badOption('studioTools must be an object');
    const { approve, ...lists } = studioTools;
    for (const [name, list] of Object.entries(lists)) {
      if (!['families', 'views', 'allowlist', 'required'].includes(name)) throw badOption(`unknown studioTools option ${name}`);
      if (list !== undefined && (!Array.isArray(list) || !list.every((x) => typeof x === 'string'))) {
        throw badOption(`studioTools.${name} must be an array of strings`);
      }
    }
    if (approve !== undefined && !isFunction(approve)) throw badOption('studioTools.approve must be a function');
    json.studioTools = { ...lists, approve: isFunction(approve) };
  }
  if (toolListChangedWatch !== undefined) {
    if (!isObject(toolListChangedWatch)) throw badOption('toolListChangedWatch must be an object');
    const { onStatus, ...rest } = toolListChangedWatch;
    for (const [name, v] of Object.entries(rest)) {
      if (!['initialDelayMs', 'factor', 'maxDelayMs', 'maxReconnectAttempts', 'stableStreamMs'].includes(name)) {
        throw badOption(`unknown toolListChangedWatch option ${name}`);
      }
      if (v !== undefined && typeof v !== 'number') throw badOption(`toolListChangedWatch.${name} must be a number`);
    }
    if (onStatus !== undefined && !isFunction(onStatus)) throw badOption('toolListChangedWatch.onStatus must be a function');
    json.toolListChangedWatch = rest;
  }
  return json;
}

/**
 * The module's way to call the page's functions: call(hook, payloadJSON,
 * signal) answers a JSON string (or a Promise of one); for "transport" an
 * object whose next() gives the next line of events, or null at the end.
 */
function callbacks(options) {
  const { auth, execute, kit, mcpClient, studioTools, system, transport } = options;
  const handlers = {};
  if (mcpClient) {
    handlers['mcp.listTools'] = async (payload, signal) => JSON.stringify({ tools: await mcpClient.listTools({ signal }) });
    handlers['mcp.callTool'] = async (payload, signal) => {
      const { name, arguments: args } = JSON.parse(payload);
      return JSON.stringify(await mcpClient.callTool(name, args ?? {}, { signal }));
    };
    handlers['mcp.close'] = async () => JSON.stringify((await mcpClient.close?.()) ?? null);
  }
  if (studioTools && isFunction(studioTools.approve)) {
    handlers['studioTools.approve'] = async (payload) => JSON.stringify(Boolean(await studioTools.approve(JSON.parse(payload))));
  }
  if (auth) {
    handlers.auth = async (payload) => {
      const { forceRefresh } = JSON.parse(payload);
      const token = isFunction(auth) ? await auth({ forceRefresh }) : await auth.getAccessToken({ forceRefresh });
      if (token != null && typeof token !== 'string') throw new TypeError(`auth gave a ${typeof token}, not a string token`);
      return JSON.stringify(token ?? null);
    };
  }
  const tool = (fn, self) => async (payload, signal) => {
    const { toolCallId, name, args } = JSON.parse(payload);
    const result = await fn.call(self, { name, args, toolCallId }, { signal });
    return JSON.stringify(result ?? null);
  };
  if (execute) handlers.execute = tool(execute);
  if (kit && isFunction(kit.execute)) handlers['kit.execute'] = tool(kit.execute, kit);
  if (kit && isFunction(kit.systemPrompt)) handlers['kit.systemPrompt'] = async () => JSON.stringify(String(await kit.systemPrompt()));
  if (isFunction(system)) {
    handlers.system = async () => {
      const text = await system();
      if (typeof text !== 'string') throw new TypeError(`system gave a ${typeof text}, not a string`);
      return JSON.stringify(text);
    };
  }
  if (transport) {
    handlers.transport = (payload, signal) => {
      const request = JSON.parse(payload);
      const source = Promise.resolve().then(() => (isFunction(transport)
        ? transport(request, { signal })
        : transport.stream(request, { signal })));
      source.catch(() => {}); // handled when next() awaits it
      return eventLines(source);
    };
  }
  return (hook, payload, signal) => {
    const handler = handlers[hook];
    if (!handler) return Promise.reject(new Error(`the page supplied no ${hook} callback`));
    try {
      return handler(payload, signal);
    } catch (err) {
      return Promise.reject(err);
    }
  };
}

/** Turns an (async) iterable of events, or a Promise of one, into JSON lines. */
function eventLines(source) {
  let iterator;
  return {
    async next() {
      if (!iterator) {
        const events = await source;
        if (events && isFunction(events[Symbol.asyncIterator])) iterator = events[Symbol.asyncIterator]();
        else if (events && isFunction(events[Symbol.iterator])) iterator = events[Symbol.iterator]();
        else throw new TypeError('transport must give an iterable or async iterable of events');
      }
      const { done, value } = await iterator.next();
      return done ? null : `${JSON.stringify(value)}\n`;
    },
  };
}

/** One agent conversation. */
export class Session {
  #runtime;
  #id = 0;
  #onEvent;
  #onWatchStatus;
  #closed = false;

  /** @internal */
  constructor(runtime, onEvent, onWatchStatus) {
    this.#runtime = runtime;
    this.#onEvent = onEvent;
    this.#onWatchStatus = onWatchStatus;
  }

  /** @internal */
  bind(id) {
    this.#id = id;
  }

  /** @internal Hands one event to the observer; nothing it does can break the turn. */
  dispatch(text) {
    if (!this.#onEvent && !this.#onWatchStatus) return;
    let event;
    try {
      event = JSON.parse(text);
    } catch {
      return;
    }
    // Observers that throw or reject change nothing in the turn.
    const observe = (fn, ...args) => {
      try {
        const result = fn(...args);
        if (result && typeof result.then === 'function') result.then(undefined, () => {});
      } catch {
        // ignored
      }
    };
    if (this.#onWatchStatus && event.type === 'toolWatch') observe(this.#onWatchStatus, event.status, event.detail);
    if (this.#onEvent) observe(this.#onEvent, event);
  }

  /** The session's id inside the module. */
  get id() {
    return this.#id;
  }

  #open() {
    if (this.#closed) throw agentError('closed', 'agentwasm: this session is closed; create a new one');
  }

  #sync(op, fields) {
    this.#open();
    const reply = this.#runtime.callSync({ op, session: this.#id, ...fields });
    if (!reply.ok) throw replyError(reply);
    return reply;
  }

  /**
   * Sends the person's message and resolves with the turn record. The turn's
   * `status` says how it ended; the Promise rejects only for misuse.
   * @param {string} text
   * @param {{signal?: AbortSignal, toolChoice?: import('./agentwasm.d.ts').ToolChoice}} [options]
   * @returns {Promise<import('./agentwasm.d.ts').Turn>}
   */
  async chat(text, options = {}) {
    if (typeof text !== 'string') {
      throw agentError('bad_argument', 'agentwasm: chat(text) takes a string', TypeError);
    }
    this.#open();
    const { signal, toolChoice } = options ?? {};
    if (signal !== undefined && !(isObject(signal) && 'aborted' in signal)) {
      throw agentError('bad_argument', 'agentwasm: signal must be an AbortSignal', TypeError);
    }
    const command = { op: 'session.chat', session: this.#id, text };
    if (toolChoice !== undefined) command.toolChoice = toolChoice;
    const reply = await this.#runtime.call(command, undefined, signal);
    if (!reply.ok) throw replyError(reply);
    return reply.turn;
  }

  /** Clears the history; the capabilities cache is kept. */
  reset() {
    this.#sync('session.reset');
  }

  /** A copy of the conversation history. */
  messages() {
    return this.#sync('session.messages').messages ?? [];
  }

  /** The tools the next turn will advertise. */
  tools() {
    return this.#sync('session.tools').tools ?? [];
  }

  /** The last published tool discovery report. */
  toolDiscovery() {
    return this.#sync('session.toolDiscovery').report;
  }

  /**
   * Drops the cached catalog and runs a new discovery pass.
   * @param {{signal?: AbortSignal}} [options]
   */
  async refreshTools(options = {}) {
    this.#open();
    const reply = await this.#runtime.call({ op: 'session.refreshTools', session: this.#id }, undefined, options?.signal);
    if (!reply.ok) throw replyError(reply);
    return reply.report;
  }

  /**
   * Ends the MCP session (the MCP client's close may do I/O, so this waits);
   * only runtime tools are advertised until the next discovery.
   */
  async reconnect() {
    this.#open();
    const reply = await this.#runtime.call({ op: 'session.reconnect', session: this.#id });
    if (!reply.ok) throw replyError(reply);
  }

  /** The bound composition draft, or null. */
  draft() {
    return this.#sync('session.draft').draft ?? null;
  }

  /**
   * Binds the composition draft that composition tools mutate; null unbinds.
   * @param {import('./agentwasm.d.ts').DraftBinding | null} draft
   */
  attachDraft(draft) {
    if (draft !== null && !(isObject(draft) && typeof draft.draftId === 'string' && typeof draft.generation === 'number')) {
      throw agentError('bad_argument', 'agentwasm: attachDraft takes {draftId, generation} or null', TypeError);
    }
    this.#sync('session.attachDraft', draft ? { draft } : {});
  }

  /** Ends the session; later calls reject with code `closed`. */
  close() {
    if (this.#closed) return;
    this.#closed = true;
    const reply = this.#runtime.callSync({ op: 'session.close', session: this.#id });
    if (!reply.ok && reply.error?.code !== 'unknown_session') throw replyError(reply);
  }
}

/** A serving port: the app's journeys as tools, and the human-side doors. */
export class Port {
  #runtime;
  #id = 0;
  #tools = '[]';
  #onWarn;
  #onChange;
  #closed = false;

  /** @internal */
  constructor(runtime, { onWarn, onChange }) {
    this.#runtime = runtime;
    this.#onWarn = onWarn;
    this.#onChange = onChange;
  }

  /** @internal */
  bind(id, tools) {
    this.#id = id;
    this.#tools = JSON.stringify(tools ?? []);
  }

  /** @internal Whether this port lives in runtime. */
  belongsTo(runtime) {
    return this.#runtime === runtime;
  }

  /** Whether close() was called. */
  get closed() {
    return this.#closed;
  }

  /** @internal Hands one port event to the page; nothing it does reaches the module. */
  dispatch(text) {
    if (this.#closed) return;
    try {
      const event = JSON.parse(text);
      const fn = event.type === 'warning' ? this.#onWarn : this.#onChange;
      const result = fn?.(event.type === 'warning' ? event.warning : { version: event.version });
      if (result && typeof result.then === 'function') result.then(undefined, () => {});
    } catch {
      // An observer that throws changes nothing.
    }
  }

  /** The port's id inside the module. */
  get id() {
    return this.#id;
  }

  #open() {
    if (this.#closed) throw agentError('closed', 'agentwasm: this port is closed; create a new one');
  }

  #sync(op, fields) {
    this.#open();
    const reply = this.#runtime.callSync({ op, port: this.#id, ...fields });
    if (!reply.ok) throw replyError(reply);
    return reply;
  }

  /** The port's tools, in their fixed order (a fresh copy each call). */
  tools() {
    this.#open();
    return JSON.parse(this.#tools);
  }

  /**
   * Calls one of the port's tools. Resolves with the port's result object;
   * refusals and pauses are results too (`ok: false`, `judgment`), never throws
   * for the model's mistakes. With `settleWithinMs`, a fire's result waits
   * that long to come back settled (as a session whose kit is the port does).
   * @param {string} name
   * @param {object} [args]
   * @param {{settleWithinMs?: number}} [options]
   * @returns {Promise<import('./agentwasm.d.ts').PortResult>}
   */
  async call(name, args = {}, options = {}) {
    if (typeof name !== 'string') throw agentError('bad_argument', 'agentwasm: call(name, args) takes a tool name', TypeError);
    const settle = options?.settleWithinMs;
    if (settle !== undefined && !(Number.isSafeInteger(settle) && settle >= 0)) {
      throw agentError('bad_argument', 'agentwasm: call options.settleWithinMs must be a whole number of milliseconds, 0 or more', TypeError);
    }
    this.#open();
    const command = { op: 'port.call', port: this.#id, name, args: args ?? {} };
    if (settle) command.settleWithinMs = settle;
    const reply = await this.#runtime.call(command);
    if (!reply.ok) throw replyError(reply);
    return reply.value;
  }

  /**
   * Answers one MCP JSON-RPC message (the transport-free MCP server); resolves
   * with the response, or null for a notification.
   * @param {object | string} message
   */
  async mcp(message) {
    this.#open();
    const command = typeof message === 'string'
      ? { op: 'port.mcp', port: this.#id, text: message } // malformed text is answered -32700
      : { op: 'port.mcp', port: this.#id, message };
    const reply = await this.#runtime.call(command);
    if (!reply.ok) throw replyError(reply);
    return reply.value ?? null;
  }

  /** Where the app session stands: {page, version, state}. */
  state() {
    return this.#sync('port.state').value;
  }

  /** The person moved to `page` (a host report, stamped `user` unless `by` says otherwise). */
  navigate(page, options = {}) {
    this.#sync('port.navigate', { page: String(page), by: options?.by });
  }

  /** Patches state keys (null deletes one). */
  patch(state, options = {}) {
    if (!isObject(state)) throw agentError('bad_argument', 'agentwasm: patch(state) takes an object', TypeError);
    this.#sync('port.patch', { state, by: options?.by });
  }

  /** The person did `action` in the page; returns the transition id. */
  report(action, options = {}) {
    const { input, data } = options ?? {};
    return this.#sync('port.report', { action: String(action), input, data }).value.transitionId;
  }

  /** The asks a person may answer (the approval cards). */
  asks() {
    return this.#sync('port.asks').value ?? [];
  }

  /** Approves an ask (a human-side door; the model can't reach it). */
  approveAsk(askId, options = {}) {
    this.#sync('port.approveAsk', { askId: String(askId), by: options?.by });
  }

  /** Declines an ask. */
  declineAsk(askId, options = {}) {
    this.#sync('port.declineAsk', { askId: String(askId), by: options?.by });
  }

  /** Withdraws an approval not yet used. */
  revokeAsk(askId, options = {}) {
    this.#sync('port.revokeAsk', { askId: String(askId), by: options?.by });
  }

  /** A standing grant for one action, optionally expiring. */
  alwaysApprove(action, options = {}) {
    const { by, expiresInMs } = options ?? {};
    if (expiresInMs !== undefined && !(Number.isSafeInteger(expiresInMs) && expiresInMs >= 0)) {
      throw agentError('bad_argument', 'agentwasm: expiresInMs must be a whole number of milliseconds, 0 (no expiry) or more', TypeError);
    }
    this.#sync('port.alwaysApprove', { action: String(action), by, expiresInMs });
  }

  /** One transition's record, by id. */
  transition(id) {
    return this.#sync('port.transition', { id: String(id) }).value;
  }

  /** Ends the port; later calls throw with code `closed`. */
  close() {
    if (this.#closed) return;
    this.#closed = true;
    this.#onWarn = undefined;
    this.#onChange = undefined;
    const reply = this.#runtime.callSync({ op: 'port.close', port: this.#id });
    if (!reply.ok && reply.error?.code !== 'unknown_port') throw replyError(reply);
  }
}
