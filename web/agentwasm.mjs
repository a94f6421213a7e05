// agentwasm.mjs — the ES module that loads the agentwasm WebAssembly module
// (the GOOS=js build) and gives JavaScript hosts a Promise-based API:
//
//   import { load } from './agentwasm.mjs';
//   const runtime = await load();
//   const session = runtime.createSession({ baseUrl: '/api', model: 'm' });
//   const turn = await session.chat('hello', { signal });
//   for await (const event of session.stream('and now?')) console.log(event.type);
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
  'streamFirstByteTimeoutMs', 'streamIdleTimeoutMs', 'capabilitiesTimeoutMs', 'mcpUrl',
]);

/** Options handled here: functions and objects with methods. */
const JS_OPTIONS = new Set([
  'auth', 'execute', 'fetchImpl', 'kit', 'mcpClient', 'onEvent', 'onStepFinish', 'studioTools', 'system',
  'toolListChangedWatch', 'tools', 'transport',
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
    const session = new Session(this, {
      onEvent: options.onEvent, onStepFinish: options.onStepFinish, onWatchStatus: options.toolListChangedWatch?.onStatus,
    });
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

/** A tool definition as the module takes it (its own execute stays here). */
function toolJSON(tool, where) {
  if (!isObject(tool) || typeof tool.name !== 'string' || tool.name === '') {
    throw badOption(`${where} needs a name`);
  }
  if (tool.execute !== undefined && !isFunction(tool.execute)) throw badOption(`${where}.execute must be a function`);
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
  const {
    auth, execute, fetchImpl, kit, mcpClient, mcpUrl, onEvent, onStepFinish, studioTools, system, toolListChangedWatch, tools,
    transport,
  } = options;
  if (auth !== undefined) {
    if (!isFunction(auth) && !(isObject(auth) && isFunction(auth.getAccessToken))) {
      throw badOption('auth must be a function or an object with getAccessToken()');
    }
    json.auth = true;
  }
  for (const [name, value] of [['execute', execute], ['fetchImpl', fetchImpl], ['onEvent', onEvent], ['onStepFinish', onStepFinish]]) {
    if (value !== undefined && !isFunction(value)) throw badOption(`${name} must be a function`);
  }
  if (mcpUrl !== undefined && typeof mcpUrl !== 'string') throw badOption('mcpUrl must be a string');
  if (tools !== undefined) {
    if (!Array.isArray(tools)) throw badOption('tools must be an array');
    json.tools = tools.map((t, i) => toolJSON(t, `tools[${i}]`));
  }
  // A tool's own execute runs through the session's execute hook, which
  // routes it (ownExecutors); the shared executor keeps the other tools.
  if (execute || tools?.some((t) => t.execute)) json.execute = true;
  if (kit instanceof Port) {
    // A serving port as the kit: its tools are the session's runtime tools,
    // its approval doors stay with the page.
    if (!kit.belongsTo(runtime)) throw badOption('kit is a Port of another runtime; build the port with this runtime\'s createPort');
    if (kit.closed) throw agentError('closed', 'agentwasm: kit is a closed Port; create a new one');
    // The page's own tools may sit beside the port's, each with its own
    // execute: the execute hook then runs those only, never a port tool.
    if (execute !== undefined) {
      throw badOption('a session whose kit is a Port runs the port\'s tools through the port and its gates; drop execute, and give each of the page\'s own tools its execute (tools: [{name, execute}])');
    }
    json.port = kit.id;
  } else if (kit !== undefined) {
    if (!isObject(kit)) throw badOption('kit must be an object with tools and execute(), or a Port');
    const kitTools = kit.tools ?? [];
    if (!Array.isArray(kitTools)) throw badOption('kit.tools must be an array');
    if (kit.execute !== undefined && !isFunction(kit.execute)) throw badOption('kit.execute must be a function');
    if (kit.systemPrompt !== undefined && !isFunction(kit.systemPrompt)) throw badOption('kit.systemPrompt must be a function');
    json.kit = {
      tools: kitTools.map((t, i) => toolJSON(t, `kit.tools[${i}]`)),
      execute: isFunction(kit.execute) || kitTools.some((t) => t.execute),
      systemPrompt: isFunction(kit.systemPrompt),
    };
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
  const own = ownExecutors(options);
  // Both tool hooks route the same way: the tool's own execute, else the
  // session's, else the kit's (the module calls "execute" whenever the
  // session has one, "kit.execute" otherwise).
  const runTool = async (payload, signal) => {
    const { toolCallId, name, args } = JSON.parse(payload);
    const fn = own.get(name);
    let value;
    if (fn) value = await fn(args, { signal, toolCallId });
    else if (execute) value = await execute({ name, args, toolCallId }, { signal });
    else if (isObject(kit) && isFunction(kit.execute)) value = await kit.execute({ name, args, toolCallId }, { signal });
    else throw new Error(`the runtime tool ${name} has no executor: give it an execute function, or give the session one`);
    return toolAnswer(value, name);
  };
  handlers.execute = runTool;
  handlers['kit.execute'] = runTool;
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

/**
 * The tools that carry their own execute, by name: the kit's first (a
 * Port's tools are the port's), then the session's tools, the first of a
 * name winning, as the module merges the definitions it advertises.
 */
function ownExecutors({ kit, tools }) {
  const own = new Map();
  const seen = new Set();
  let kitTools = [];
  if (kit instanceof Port) kitTools = kit.tools();
  else if (isObject(kit) && Array.isArray(kit.tools)) kitTools = kit.tools;
  for (const t of [...kitTools, ...(tools ?? [])]) {
    if (seen.has(t.name)) continue;
    seen.add(t.name);
    if (isFunction(t.execute)) own.set(t.name, t.execute.bind(t));
  }
  return own;
}

/**
 * What a tool gave, as the result JSON the module takes: an object whose
 * `status` is a string is a result ({status, data?, deniedReason?}; other
 * keys are dropped); anything else is the data of an ok result (undefined:
 * none). A value with no JSON form (a function, a symbol, a BigInt, a cycle)
 * throws, naming the tool, and the call fails with that message.
 */
function toolAnswer(value, name) {
  const isResult = isObject(value) && !Array.isArray(value) && typeof value.status === 'string';
  const data = isResult ? value.data : value;
  let text = `{"status":${JSON.stringify(isResult ? value.status : 'ok')}`;
  if (data !== undefined) {
    const kind = typeof data;
    if (kind === 'function' || kind === 'symbol' || kind === 'bigint') {
      throw new TypeError(`agentwasm: the tool ${name} gave a ${kind}${isResult ? ' as its data' : ''}, which has no JSON form; give a JSON value or a result {status, data?, deniedReason?}`);
    }
    let json;
    try {
      json = JSON.stringify(data);
    } catch (err) {
      throw new TypeError(`agentwasm: the result of the tool ${name} cannot be sent as JSON: ${err && err.message}`);
    }
    if (json === undefined) throw new TypeError(`agentwasm: the result of the tool ${name} has no JSON form`);
    text += `,"data":${json}`;
  }
  if (isResult && value.deniedReason != null) text += `,"deniedReason":${JSON.stringify(String(value.deniedReason))}`;
  return `${text}}`;
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

/** Throws a coded TypeError unless signal is undefined or an AbortSignal. */
function checkSignal(signal) {
  if (signal !== undefined && !(isObject(signal) && 'aborted' in signal)) {
    throw agentError('bad_argument', 'agentwasm: signal must be an AbortSignal', TypeError);
  }
}

/**
 * The async iterable of session.stream(): the turn's events, queued until
 * pulled, then the end with the turn as the final value. The turn starts at
 * once; return() (a `for await` left early) aborts it and waits for its end.
 */
class TurnStream {
  #queue = [];
  #waiting = [];
  #controller = new AbortController();
  #settled = false;
  #outcome; // {turn} or {error}
  #finished = false; // the end was handed out
  #closed = false; // return() was called: no more events
  #turnPromise;

  /** @param {(sink: (event: object) => void, signal: AbortSignal) => Promise<object>} start */
  constructor(start, signal) {
    const own = this.#controller;
    let unlink = () => {};
    let turn;
    try {
      checkSignal(signal);
      if (signal?.aborted) own.abort(signal.reason);
      else if (signal) {
        const onAbort = () => own.abort(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        unlink = () => signal.removeEventListener('abort', onAbort);
      }
      turn = start((event) => this.#push(event), own.signal);
    } catch (err) {
      turn = Promise.reject(err);
    }
    this.#turnPromise = turn;
    turn.then((t) => this.#end({ turn: t }), (error) => this.#end({ error })).finally(unlink);
  }

  #push(event) {
    if (this.#closed) return;
    const next = this.#waiting.shift();
    if (next) next.resolve({ done: false, value: event });
    else this.#queue.push(event);
  }

  #end(outcome) {
    this.#settled = true;
    this.#outcome = outcome;
    for (const next of this.#waiting.splice(0)) this.#finish(next.resolve, next.reject);
  }

  #finish(resolve, reject) {
    if (this.#finished) return resolve({ done: true, value: this.#outcome.turn });
    this.#finished = true;
    if ('error' in this.#outcome) reject(this.#outcome.error);
    else resolve({ done: true, value: this.#outcome.turn });
  }

  /** The finished turn; rejects for misuse, as chat() does. */
  get turn() {
    return this.#turnPromise;
  }

  [Symbol.asyncIterator]() {
    return this;
  }

  next() {
    if (this.#queue.length) return Promise.resolve({ done: false, value: this.#queue.shift() });
    return new Promise((resolve, reject) => {
      if (this.#settled) this.#finish(resolve, reject);
      else this.#waiting.push({ resolve, reject });
    });
  }

  /** Stops listening: aborts the turn if it is still running, and resolves when it has ended. */
  async return() {
    this.#closed = true;
    this.#queue.length = 0;
    if (!this.#settled) this.#controller.abort(new DOMException('the stream was closed', 'AbortError'));
    let turn;
    try {
      turn = await this.turn;
    } catch {
      // misuse: the end carries no turn
    }
    this.#finished = true;
    for (const next of this.#waiting.splice(0)) next.resolve({ done: true, value: turn });
    return { done: true, value: turn };
  }
}

/** One agent conversation. */
export class Session {
  #runtime;
  #id = 0;
  #onEvent;
  #onStepFinish;
  #onWatchStatus;
  #closed = false;
  /** The event sinks of the running turn's streams. */
  #sinks = new Set();
  /** Turns (chat, stream, resume) sent and not yet answered. */
  #running = 0;

  /** @internal */
  constructor(runtime, { onEvent, onStepFinish, onWatchStatus }) {
    this.#runtime = runtime;
    this.#onEvent = onEvent;
    this.#onStepFinish = onStepFinish;
    this.#onWatchStatus = onWatchStatus;
  }

  /** @internal */
  bind(id) {
    this.#id = id;
  }

  /** @internal Hands one event to the observers; nothing they do can break the turn. */
  dispatch(text) {
    if (!this.#onEvent && !this.#onWatchStatus && !this.#onStepFinish && this.#sinks.size === 0) return;
    let event;
    try {
      event = JSON.parse(text);
    } catch {
      return;
    }
    for (const sink of this.#sinks) sink(event);
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
    if (this.#onStepFinish && event.type === 'stepFinish') observe(this.#onStepFinish, event.step);
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
   * Runs one turn command (session.chat, session.resume) and resolves with
   * its turn. `sink`, if given, receives the turn's events — unless another
   * turn is already running, which the module answers `busy` with none.
   */
  async #turn(command, signal, sink) {
    if (sink && this.#running === 0) this.#sinks.add(sink);
    this.#running++;
    try {
      const reply = await this.#runtime.call(command, undefined, signal);
      if (!reply.ok) throw replyError(reply);
      return reply.turn;
    } finally {
      this.#running--;
      this.#sinks.delete(sink);
    }
  }

  /** The session.chat command for chat() and stream(), checked. */
  #chatCommand(text, options, method) {
    if (typeof text !== 'string') {
      throw agentError('bad_argument', `agentwasm: ${method}(text) takes a string`, TypeError);
    }
    this.#open();
    const { signal, toolChoice } = options ?? {};
    checkSignal(signal);
    const command = { op: 'session.chat', session: this.#id, text };
    if (toolChoice !== undefined) command.toolChoice = toolChoice;
    return command;
  }

  /**
   * Sends the person's message and resolves with the turn record. The turn's
   * `status` says how it ended; the Promise rejects only for misuse.
   * @param {string} text
   * @param {{signal?: AbortSignal, toolChoice?: import('./agentwasm.d.ts').ToolChoice}} [options]
   * @returns {Promise<import('./agentwasm.d.ts').Turn>}
   */
  async chat(text, options = {}) {
    const command = this.#chatCommand(text, options, 'chat');
    return this.#turn(command, options?.signal);
  }

  /**
   * Sends the person's message and gives the turn's events as an async
   * iterable — the objects onEvent receives, in its order — that ends with
   * the turn (the iterator's final value, and `.turn`). Leaving a `for await`
   * early aborts the turn.
   * @param {string} text
   * @param {{signal?: AbortSignal, toolChoice?: import('./agentwasm.d.ts').ToolChoice}} [options]
   * @returns {import('./agentwasm.d.ts').TurnStream}
   */
  stream(text, options = {}) {
    return new TurnStream((sink, signal) => {
      const command = this.#chatCommand(text, options, 'stream');
      return this.#turn(command, signal, sink);
    }, options?.signal);
  }

  /**
   * Answers the asks a turn stopped on (`turn.pendingApprovals`) and goes on
   * with the turn, with no new message from the person.
   * @param {{approve?: string[], decline?: string[]}} resolution
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<import('./agentwasm.d.ts').Turn>}
   */
  async resume(resolution, options = {}) {
    if (!isObject(resolution) || Array.isArray(resolution)) {
      throw agentError('bad_argument', 'agentwasm: resume takes {approve?: askIds, decline?: askIds}', TypeError);
    }
    const command = { op: 'session.resume', session: this.#id };
    for (const [key, ids] of Object.entries(resolution)) {
      if (ids === undefined) continue;
      if (key !== 'approve' && key !== 'decline') {
        throw agentError('bad_argument', `agentwasm: resume takes approve and decline, not ${key}`, TypeError);
      }
      if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) {
        throw agentError('bad_argument', `agentwasm: resume's ${key} must be an array of ask ids (strings)`, TypeError);
      }
      command[key] = ids;
    }
    this.#open();
    const signal = options?.signal;
    checkSignal(signal);
    return this.#turn(command, signal);
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
      // A version is always a number (a module that omits a zero means 0).
      const result = fn?.(event.type === 'warning' ? event.warning : { version: Number.isFinite(event.version) ? event.version : 0 });
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
