// agentwasm-trace.mjs — the OpenTelemetry spans of a session's turns and of a
// port's MCP server, made in JavaScript from what the loader sees: the turn
// calls and their results, the module's events, the fetches the module makes
// and the page's callbacks it calls. The wasm builds do no tracing work.
//
// The loader (agentwasm.mjs) imports this module only when createSession or
// createPort is given a `tracer`, so a page that does not trace never
// downloads it. The tracer is an OpenTelemetry API Tracer, duck-typed: this
// module uses startSpan(name, {kind, attributes, links, startTime}, context),
// and on a span spanContext(), setAttribute(s), addEvent(name, attributes),
// setStatus({code, message}) and end(). It imports nothing: parent contexts
// are small immutable Context objects of its own (TraceContext) that answer
// the API's span key. Every call into the tracer is caught: a tracer that
// throws never breaks a turn.
//
// The spans, their names and attributes follow the OpenTelemetry GenAI
// semantic conventions and their MCP conventions (semantic-conventions-genai
// v0.1.0, status Development); docs/TRACING.md lists them.

/** The OpenTelemetry API's SpanKind values. */
export const SpanKind = Object.freeze({ INTERNAL: 0, SERVER: 1, CLIENT: 2 });

/** The OpenTelemetry API's SpanStatusCode.ERROR. */
const STATUS_ERROR = 2;

/** The description of the API's context key of the active span. */
const SPAN_KEY_DESCRIPTION = 'OpenTelemetry Context Key SPAN';

/** The API's context key of the active span (@opentelemetry/api makes it with Symbol.for). */
const SPAN_KEY = Symbol.for(SPAN_KEY_DESCRIPTION);

/** The longest tracestate a server span takes from a caller (W3C Trace Context's bound, in bytes). */
const TRACESTATE_MAX = 512;

/** How many bytes of an MCP answer are read for a JSON-RPC error code or an isError result. */
const INSPECT_BYTES = 16 * 1024;

/** The tool that reloads a composition draft after a conflict (session.GetDraftTool). */
const GET_DRAFT_TOOL = 'honua_studio_get_draft';
/** The error.type of a failure that names no code: the conventions' fallback value. */
const OTHER = '_OTHER';
/** The request of the list-changed watch's listening stream in the newer MCP era (not traced, like the older era's GET). */
const LISTEN_METHOD = 'subscriptions/listen';

/** The values of the session option tracePropagation. */
export const PROPAGATIONS = ['same-origin', 'all', 'none'];

/**
 * An immutable OpenTelemetry Context: a tracer reads the parent span from
 * it with the API's span key (or any symbol described as that key).
 */
export class TraceContext {
  #values;

  /** @param {Map<unknown, unknown>} [values] */
  constructor(values = new Map()) {
    this.#values = values;
  }

  /** The value under key; the span key is matched by its description too. */
  getValue(key) {
    if (this.#values.has(key)) return this.#values.get(key);
    if (typeof key === 'symbol' && key.description === SPAN_KEY_DESCRIPTION) return this.#values.get(SPAN_KEY);
    return undefined;
  }

  /** A new context with key set to value. */
  setValue(key, value) {
    const values = new Map(this.#values);
    values.set(typeof key === 'symbol' && key.description === SPAN_KEY_DESCRIPTION ? SPAN_KEY : key, value);
    return new TraceContext(values);
  }

  /** A new context without key. */
  deleteValue(key) {
    const values = new Map(this.#values);
    values.delete(typeof key === 'symbol' && key.description === SPAN_KEY_DESCRIPTION ? SPAN_KEY : key);
    return new TraceContext(values);
  }

  /** The parent span this context holds, or undefined (a root). */
  get span() {
    return this.#values.get(SPAN_KEY);
  }
}

/** The empty context: a span started with it is a root. */
export const ROOT_CONTEXT = new TraceContext();

/** A context whose parent is span (a tracer's span, or a remoteSpan); the root context for none. */
export function contextWith(span) {
  return span ? ROOT_CONTEXT.setValue(SPAN_KEY, span) : ROOT_CONTEXT;
}

const HEX32 = /^[0-9a-f]{32}$/;
const HEX16 = /^[0-9a-f]{16}$/;

/** Whether a span context has valid W3C ids (lower-case hex, not all zeros). */
function validIds(sc) {
  return !!sc && typeof sc.traceId === 'string' && typeof sc.spanId === 'string' && HEX32.test(sc.traceId) && HEX16.test(sc.spanId)
    && !/^0+$/.test(sc.traceId) && !/^0+$/.test(sc.spanId);
}

/** The W3C traceparent of a span context, or '' when its ids are not valid. */
export function traceparentOf(sc) {
  if (!validIds(sc)) return '';
  const flags = Number.isInteger(sc.traceFlags) ? sc.traceFlags & 0xff : 0;
  return `00-${sc.traceId}-${sc.spanId}-${flags.toString(16).padStart(2, '0')}`;
}

/** The tracestate text of a span context (a TraceState object's serialize(), or a string), or ''. */
export function tracestateOf(sc) {
  const ts = sc?.traceState;
  if (ts == null) return '';
  try {
    const text = typeof ts === 'string' ? ts : typeof ts.serialize === 'function' ? ts.serialize() : '';
    return typeof text === 'string' ? text : '';
  } catch {
    return '';
  }
}

/**
 * A remote parent from a W3C traceparent (and tracestate): a non-recording
 * span whose spanContext() is {traceId, spanId, traceFlags, traceState?,
 * isRemote: true}; null when the traceparent is not valid.
 */
export function remoteSpan(traceparent, tracestate) {
  if (typeof traceparent !== 'string') return null;
  const m = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/.exec(traceparent.trim());
  if (!m || m[1] === 'ff' || (m[1] === '00' && m[5] !== undefined)) return null;
  const sc = { traceId: m[2], spanId: m[3], traceFlags: parseInt(m[4], 16) & 1, isRemote: true };
  if (!validIds(sc)) return null;
  // A tracestate past W3C's 512 bytes, or not printable ASCII, is dropped (the trace goes on without it).
  if (typeof tracestate === 'string' && tracestate !== '' && tracestate.length <= TRACESTATE_MAX && /^[\x20-\x7e]*$/.test(tracestate)) {
    const text = tracestate;
    sc.traceState = {
      serialize: () => text,
      get: (key) => text.split(',').map((e) => e.trim().split('=')).find(([k]) => k === key)?.[1],
      set() { return this; },
      unset() { return this; },
    };
  }
  const noop = function noop() { return this; };
  return {
    spanContext: () => sc,
    isRecording: () => false,
    setAttribute: noop,
    setAttributes: noop,
    addEvent: noop,
    addLink: noop,
    addLinks: noop,
    setStatus: noop,
    updateName: noop,
    recordException() {},
    end() {},
  };
}

/**
 * One span of the tracer, every call caught: a tracer or a span that
 * throws leaves a span that does nothing (or does less).
 */
class SafeSpan {
  /** The tracer's span, or null when startSpan threw or gave none. */
  inner = null;
  ended = false;

  /**
   * @param {object} tracer
   * @param {string} name
   * @param {{kind?: number, attributes?: object, links?: object[], startTime?: number}} options
   * @param {SafeSpan | object | null} parent a SafeSpan, a remote span, or null for a root
   */
  constructor(tracer, name, options, parent) {
    const opts = { kind: options.kind ?? SpanKind.INTERNAL, attributes: clean(options.attributes) };
    if (options.links?.length) opts.links = options.links;
    if (options.startTime !== undefined) opts.startTime = options.startTime;
    const parentSpan = parent instanceof SafeSpan ? parent.inner : parent;
    try {
      const span = tracer.startSpan(name, opts, contextWith(parentSpan));
      if (span && typeof span === 'object') this.inner = span;
    } catch {
      // a tracer that throws traces nothing
    }
  }

  /** The span's context ({traceId, spanId, traceFlags, traceState?}), or undefined. */
  context() {
    try {
      return this.inner?.spanContext();
    } catch {
      return undefined;
    }
  }

  /** Sets one attribute (undefined, null and NaN are left out). */
  set(key, value) {
    if (this.inner === null || this.ended || !usable(value)) return this;
    try {
      this.inner.setAttribute(key, value);
    } catch {
      // ignored
    }
    return this;
  }

  /** Sets several attributes (undefined, null and NaN are left out). */
  setAll(attributes) {
    if (this.inner === null || this.ended) return this;
    const values = clean(attributes);
    if (Object.keys(values).length === 0) return this;
    try {
      this.inner.setAttributes(values);
    } catch {
      // ignored
    }
    return this;
  }

  /** Adds an event. */
  event(name, attributes) {
    if (this.inner === null || this.ended) return this;
    try {
      this.inner.addEvent(name, clean(attributes));
    } catch {
      // ignored
    }
    return this;
  }

  /** Marks the span failed: error.type and status ERROR with message. */
  fail(type, message) {
    if (this.inner === null || this.ended) return this;
    this.set('error.type', String(type));
    try {
      const status = { code: STATUS_ERROR };
      if (typeof message === 'string' && message !== '') status.message = message;
      this.inner.setStatus(status);
    } catch {
      // ignored
    }
    return this;
  }

  /** Ends the span, once. */
  end() {
    if (this.ended) return;
    this.ended = true;
    try {
      this.inner?.end();
    } catch {
      // ignored
    }
  }
}

/** Whether value can be an attribute's value. */
function usable(value) {
  if (value === undefined || value === null) return false;
  if (typeof value === 'number') return Number.isFinite(value);
  return true;
}

/** attributes without the values an attribute cannot have. */
function clean(attributes) {
  const out = {};
  if (!attributes) return out;
  for (const [key, value] of Object.entries(attributes)) if (usable(value)) out[key] = value;
  return out;
}

/** A positive whole number, or undefined (usage of 0 is left out). */
const positive = (n) => (Number.isFinite(n) && n > 0 ? n : undefined);

/** The stop reasons as the conventions' finish reasons. */
const FINISH_REASONS = { endTurn: 'stop', toolCall: 'tool_calls', maxTokens: 'length', contentFilter: 'content_filter' };

/** JSON text of value, or undefined when it has none. */
function jsonOf(value) {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

/** The page's URL, when there is a page (a browser, a worker), else undefined. */
function pageHref() {
  try {
    const href = globalThis.location?.href;
    return typeof href === 'string' && href !== '' ? href : undefined;
  } catch {
    return undefined;
  }
}

/** {address, port} of a request URL (port a number, only when the URL names one); {} when unknown. */
export function serverOf(url) {
  let u;
  try {
    u = new URL(String(url), pageHref());
  } catch {
    return {};
  }
  const out = { address: u.hostname.replace(/^\[|\]$/g, '') };
  if (u.port !== '') out.port = Number(u.port);
  return out;
}

/**
 * Whether trace headers go with a request to url: never for 'none', always
 * for 'all'; for 'same-origin' (the default) when url is of the page's
 * origin — or always where there is no page origin (Node), since there a
 * header forces no preflight.
 * @param {string} url
 * @param {'same-origin' | 'all' | 'none'} [mode]
 * @param {{origin?: string, href?: string} | undefined} [location] the page's location (globalThis.location by default)
 */
export function sendsHeaders(url, mode = 'same-origin', location = globalThis.location) {
  if (mode === 'none') return false;
  if (mode === 'all') return true;
  let origin;
  let href;
  try {
    origin = location?.origin;
    href = location?.href;
  } catch {
    return true;
  }
  if (typeof origin !== 'string' || !/^https?:\/\//.test(origin)) return true;
  try {
    return new URL(String(url), href ?? origin).origin === origin;
  } catch {
    return false;
  }
}

/**
 * Skips one JSON value in text from i (whitespace before it too); answers
 * the index after it, or -1 when text is not JSON there.
 */
function skipValue(text, i) {
  i = skipSpace(text, i);
  const c = text[i];
  if (c === '"') return skipString(text, i);
  if (c === '{' || c === '[') {
    const close = c === '{' ? '}' : ']';
    i = skipSpace(text, i + 1);
    if (text[i] === close) return i + 1;
    for (;;) {
      if (c === '{') {
        i = skipSpace(text, i);
        if (text[i] !== '"') return -1;
        i = skipSpace(text, skipString(text, i));
        if (i < 0 || text[i] !== ':') return -1;
        i++;
      }
      i = skipValue(text, i);
      if (i < 0) return -1;
      i = skipSpace(text, i);
      if (text[i] === ',') {
        i++;
        continue;
      }
      return text[i] === close ? i + 1 : -1;
    }
  }
  const m = /^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 400));
  return m ? i + m[0].length : -1;
}

function skipSpace(text, i) {
  if (i < 0) return i;
  while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  return i;
}

function skipString(text, i) {
  if (i < 0 || text[i] !== '"') return -1;
  for (i++; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i + 1;
  }
  return -1;
}

/**
 * The members of the JSON object at text[open] ('{'): [{key, start, valueStart,
 * end}] (start: the key's quote, end: after the value); null when it is no object.
 */
function members(text, open) {
  if (text[open] !== '{') return null;
  const out = [];
  let i = skipSpace(text, open + 1);
  if (text[i] === '}') return { members: out, close: i };
  for (;;) {
    i = skipSpace(text, i);
    const start = i;
    const keyEnd = skipString(text, i);
    if (keyEnd < 0) return null;
    let key;
    try {
      key = JSON.parse(text.slice(start, keyEnd));
    } catch {
      return null;
    }
    i = skipSpace(text, keyEnd);
    if (text[i] !== ':') return null;
    const valueStart = skipSpace(text, i + 1);
    const end = skipValue(text, valueStart);
    if (end < 0) return null;
    out.push({ key, start, valueStart, end });
    i = skipSpace(text, end);
    if (text[i] === ',') {
      i++;
      continue;
    }
    return text[i] === '}' ? { members: out, close: i } : null;
  }
}

/**
 * JSON-RPC message text with params._meta.traceparent / tracestate set to
 * meta's, edited as text: every other byte stays as it was (a number too
 * large for a double keeps its digits). A message without params gets
 * `"params":{"_meta":{…}}`; an existing _meta keeps its other keys. Answers
 * the text unchanged when it is not a JSON object or its params is not an
 * object.
 * @param {string} text
 * @param {{traceparent: string, tracestate?: string}} meta
 */
export function withTraceMeta(text, meta) {
  const fields = [`"traceparent":${JSON.stringify(meta.traceparent)}`];
  if (meta.tracestate) fields.push(`"tracestate":${JSON.stringify(meta.tracestate)}`);
  const open = skipSpace(text, 0);
  const top = members(text, open);
  if (!top || skipSpace(text, top.close + 1) !== text.length) return text;
  const params = top.members.filter((m) => m.key === 'params').pop();
  if (!params) {
    const insert = `"params":{"_meta":{${fields.join(',')}}}`;
    return `${text.slice(0, top.close)}${top.members.length ? ',' : ''}${insert}${text.slice(top.close)}`;
  }
  const p = members(text, params.valueStart);
  if (!p) return text;
  const metaMember = p.members.filter((m) => m.key === '_meta').pop();
  if (!metaMember) {
    const at = params.valueStart + 1;
    return `${text.slice(0, at)}"_meta":{${fields.join(',')}}${p.members.length ? ',' : ''}${text.slice(at)}`;
  }
  const m = members(text, metaMember.valueStart);
  if (!m) return text;
  const kept = m.members.filter((x) => x.key !== 'traceparent' && x.key !== 'tracestate').map((x) => text.slice(x.start, x.end));
  const object = `{${[...fields, ...kept].join(',')}}`;
  return text.slice(0, metaMember.valueStart) + object + text.slice(metaMember.end);
}

/** The value of header name (any case) in a request's headers (a plain object or a Headers), or undefined. */
function headerOf(headers, name) {
  if (!headers) return undefined;
  try {
    if (typeof headers.get === 'function') return headers.get(name) ?? undefined;
    const lower = name.toLowerCase();
    for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === lower) return String(v);
  } catch {
    // unreadable: none
  }
  return undefined;
}

/** init with the trace headers of span context sc added. */
function withHeaders(init, sc) {
  const traceparent = traceparentOf(sc);
  if (!traceparent) return init;
  const tracestate = tracestateOf(sc);
  const given = init.headers;
  let headers;
  if (given && typeof given.set === 'function' && typeof Headers === 'function') {
    headers = new Headers(given);
    headers.set('traceparent', traceparent);
    if (tracestate) headers.set('tracestate', tracestate);
  } else {
    headers = {};
    for (const [k, v] of Object.entries(given ?? {})) {
      if (k.toLowerCase() !== 'traceparent' && k.toLowerCase() !== 'tracestate') headers[k] = v;
    }
    headers.traceparent = traceparent;
    if (tracestate) headers.tracestate = tracestate;
  }
  return { ...init, headers };
}

/** A response's header, or undefined. */
function responseHeader(response, name) {
  try {
    const value = response?.headers?.get?.(name);
    return typeof value === 'string' && value !== '' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** What the first bytes of an MCP answer say failed: {type} of a JSON-RPC error or an isError result, or null. */
export function mcpFailure(text) {
  const m = /"error"\s*:\s*\{[^{}]*?"code"\s*:\s*(-?\d+)/.exec(text);
  if (m) return { type: m[1], rpc: true };
  if (/"isError"\s*:\s*true/.test(text)) return { type: 'tool_error' };
  return null;
}

/**
 * The response with its body wrapped so that onEnd(firstBytes, failure)
 * runs once when the module has read it to its end, cancelled it or it
 * failed (failure: true); firstBytes are at most INSPECT_BYTES of it. The
 * response's other properties are its own (a Proxy). A response without a
 * readable body ends at once.
 */
function watchBody(response, onEnd) {
  let done = false;
  const seen = [];
  let size = 0;
  const finish = (failed) => {
    if (done) return;
    done = true;
    let text = '';
    try {
      const bytes = new Uint8Array(size);
      let at = 0;
      for (const chunk of seen) {
        bytes.set(chunk, at);
        at += chunk.length;
      }
      text = new TextDecoder().decode(bytes);
    } catch {
      // nothing to inspect
    }
    onEnd(text, failed);
  };
  let body;
  try {
    body = response?.body;
  } catch {
    body = undefined;
  }
  if (!body || typeof body.getReader !== 'function' || body.locked || typeof ReadableStream !== 'function') {
    finish(false);
    return response;
  }
  let reader;
  const wrapped = new ReadableStream({
    async pull(controller) {
      reader ??= body.getReader();
      let result;
      try {
        result = await reader.read();
      } catch (err) {
        finish(true);
        controller.error(err);
        return;
      }
      if (result.done) {
        finish(false);
        controller.close();
        return;
      }
      const chunk = result.value;
      if (chunk instanceof Uint8Array && size < INSPECT_BYTES) {
        const part = chunk.subarray(0, INSPECT_BYTES - size);
        seen.push(part.slice());
        size += part.length;
      }
      controller.enqueue(chunk);
    },
    cancel(reason) {
      finish(false);
      return (reader ?? body).cancel(reason);
    },
  }, { highWaterMark: 0 });
  return new Proxy(response, {
    get(target, prop) {
      if (prop === 'body') return wrapped;
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Decodes a request body (a string, a Uint8Array, an ArrayBuffer) to text, or undefined. */
function bodyText(body) {
  try {
    if (typeof body === 'string') return body;
    if (body instanceof Uint8Array || body instanceof ArrayBuffer) return new TextDecoder().decode(body);
  } catch {
    // not text
  }
  return undefined;
}

/** The URL of an OpenAI-compatible endpoint's chat completions (the loader's chatPath). */
function chatPath(base) {
  const p = base.replace(/\/+$/, '');
  if (p.endsWith('/chat/completions')) return p;
  if (p.endsWith('/v1')) return `${p}/chat/completions`;
  return `${p}/v1/chat/completions`;
}

/** The path of a URL (no query, no fragment). */
function pathOf(url) {
  return String(url).replace(/[?#].*$/, '');
}

/** A milliseconds clock for durations (performance.now where there is one). */
const now = () => (typeof performance !== 'undefined' && typeof performance.now === 'function' ? performance.now() : Date.now());

/**
 * The taps of one traced session (the loader calls them in place of its
 * hooks and around each turn): every method calls the hook it is given
 * exactly as the loader would, and never throws anything of its own.
 * @param {object} options the session's options (tracer, traceContent, tracePropagation, model, provider)
 * @param {{openai?: {baseUrl: string}}} json the options as sent to the module
 */
export function tapSession(options, json = {}) {
  const { tracer, traceContent = false, tracePropagation = 'same-origin' } = options;
  const direct = json.openai?.baseUrl;
  const directChat = typeof direct === 'string' ? chatPath(direct) : undefined;
  const model = typeof options.model === 'string' ? options.model : isObj(options.model) ? options.model.name : undefined;
  const provider = directChat ? 'openai' : typeof options.provider === 'string' && options.provider !== '' ? options.provider : 'agentwasm.studio_proxy';
  const content = traceContent === true;

  let turn = null; // the running turn: {span, round, calls, chat, tool, usage}
  let discovery = null; // the open discover_tools span
  const asks = new Map(); // askId → await_approval span

  const start = (name, kind, attributes, parent, links) => new SafeSpan(tracer, name, { kind, attributes, links }, parent);

  // A turn waits for discovery only before its first model request (the module's ensureDiscovery);
  // a pass that starts later (the list-changed watch's, a retry's) is the session's, a root.
  const openDiscovery = () => {
    if (!discovery || discovery.ended) discovery = start('discover_tools', SpanKind.INTERNAL, {}, turn && turn.round === 0 ? turn.span : null);
    return discovery;
  };

  const openChat = () => {
    if (!turn) return null;
    if (turn.chat && !turn.chat.span.ended) return turn.chat;
    turn.round++;
    const attributes = {
      'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': provider, 'gen_ai.request.model': model,
      'gen_ai.request.stream': true, 'agentwasm.round': turn.round,
    };
    turn.chat = { span: start(model ? `chat ${model}` : 'chat', SpanKind.CLIENT, attributes, turn.span), sentAt: now(), answered: false };
    turn.calls = [];
    return turn.chat;
  };

  const endChat = (type, message) => {
    const chat = turn?.chat;
    if (!chat || chat.span.ended) return;
    if (type !== undefined) chat.span.fail(type, message);
    chat.span.end();
  };

  const openTool = (call) => {
    const attributes = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': call.name, 'gen_ai.tool.call.id': call.id };
    if (content && call.args !== undefined) attributes['gen_ai.tool.call.arguments'] = jsonOf(call.args);
    turn.tool = { span: start(call.name ? `execute_tool ${call.name}` : 'execute_tool', SpanKind.INTERNAL, attributes, turn.span), call };
  };

  /** Ends the open execute_tool span with the dispatch record r, then opens the next call's. */
  const toolResult = (r) => {
    if (!turn || !isObj(r)) return;
    if (!turn.tool || turn.tool.span.ended) {
      const i = turn.calls.findIndex((c) => c.id === r.toolCallId);
      openTool(i >= 0 ? turn.calls.splice(i, 1)[0] : { id: r.toolCallId, name: r.toolName });
    }
    const { span } = turn.tool;
    const plane = typeof r.plane === 'string' ? r.plane : 'unknown';
    span.setAll({
      'gen_ai.tool.name': r.toolName, 'gen_ai.tool.call.id': r.toolCallId,
      'gen_ai.tool.type': plane === 'runtime' ? 'function' : plane === 'composition' ? 'extension' : undefined,
      'agentwasm.tool.plane': plane, 'agentwasm.tool.outcome': r.ok ? 'ok' : 'error',
      'agentwasm.tool.retried_after_conflict': r.retriedAfterConflict === true ? true : undefined,
      'agentwasm.approval.ask_id': askOf(r.content),
    });
    if (content && typeof r.content === 'string') span.set('gen_ai.tool.call.result', r.content);
    if (!r.ok) span.fail(r.errorCode || OTHER, r.errorMessage);
    span.end();
    const next = turn.calls.shift();
    turn.tool = null;
    if (next) openTool(next);
  };

  /** One event of the module, as the loader's Session.dispatch reads it. */
  const onEvent = (event) => {
    if (typeof event === 'string') event = { type: 'chat', event: { type: 'textDelta', text: event } };
    if (!isObj(event)) return;
    if (event.type === 'toolDiscovery') {
      // A report with no pass open is the one a session without discovery publishes: no span.
      if (!discovery || discovery.ended) return;
      const report = isObj(event.report) ? event.report : {};
      const span = discovery;
      discovery = null;
      span.setAll({
        'agentwasm.discovery.discovered': report.discovered, 'agentwasm.discovery.routed': Array.isArray(report.routed) ? report.routed.length : undefined,
        'agentwasm.discovery.pages': report.pages, 'agentwasm.discovery.degraded': report.degraded === true ? true : undefined,
      });
      if (report.errorMessage) span.fail('discovery_failed', report.errorMessage);
      span.end();
      return;
    }
    if (!turn) return;
    if (event.type === 'toolResult') {
      toolResult(event.result);
      return;
    }
    if (event.type !== 'chat' || !isObj(event.event)) return;
    const e = event.event;
    // The round's chat span opened with its request (a fetch, or the page's transport); without
    // one, the round's first event opens it. An event after the round ended adds nothing.
    let chat = turn.chat;
    if (!chat || (chat.span.ended && e.type === 'messageStart')) chat = openChat();
    if (chat.span.ended) return;
    if (!chat.answered) {
      chat.answered = true;
      chat.span.set('gen_ai.response.time_to_first_chunk', Math.max(0, now() - chat.sentAt) / 1000);
    }
    switch (e.type) {
      case 'messageStart':
        if (typeof e.model === 'string' && e.model !== '') chat.span.set('gen_ai.response.model', e.model);
        break;
      case 'toolCallStart':
        turn.calls.push({ id: e.toolCallId, name: e.toolName });
        break;
      case 'toolCallStop': {
        const call = turn.calls.find((c) => c.id === e.toolCallId && !c.stopped) ?? turn.calls.find((c) => !c.stopped);
        if (call) {
          call.stopped = true;
          call.args = e.toolArguments;
        }
        break;
      }
      case 'messageStop': {
        const reason = typeof e.stopReason === 'string' && e.stopReason !== '' ? FINISH_REASONS[e.stopReason] ?? e.stopReason : undefined;
        chat.span.setAll({
          'gen_ai.response.finish_reasons': reason ? [reason] : undefined,
          'gen_ai.usage.input_tokens': positive(e.promptTokens), 'gen_ai.usage.output_tokens': positive(e.completionTokens),
        });
        endChat();
        const first = turn.calls.shift();
        if (first) openTool(first);
        break;
      }
      case 'error':
        endChat(e.errorCode || OTHER, e.errorMessage);
        break;
      default:
    }
  };

  /** An MCP request's client span: its parent, name and attributes. */
  const mcpSpan = (message, url, init) => {
    const method = message.method;
    const params = isObj(message.params) ? message.params : {};
    const tool = method === 'tools/call' && typeof params.name === 'string' ? params.name : undefined;
    let parent;
    const running = turn?.tool && !turn.tool.span.ended ? turn.tool.span : null;
    if (method === 'tools/call') {
      parent = running ?? turn?.span ?? null;
      if (running && tool === GET_DRAFT_TOOL) running.event('agentwasm.tool.conflict_retry');
    } else if (running && (method === 'initialize' || method === 'notifications/initialized')) {
      parent = running;
    } else {
      parent = openDiscovery();
    }
    const server = serverOf(url);
    const attributes = {
      'mcp.method.name': method, 'gen_ai.tool.name': tool, 'gen_ai.operation.name': tool !== undefined ? 'execute_tool' : undefined,
      'jsonrpc.request.id': 'id' in message && message.id !== null ? String(message.id) : undefined,
      'mcp.session.id': headerOf(init.headers, 'mcp-session-id'), 'mcp.protocol.version': headerOf(init.headers, 'mcp-protocol-version'),
      'network.protocol.name': 'http', 'server.address': server.address, 'server.port': server.port,
    };
    return start(tool !== undefined ? `${method} ${tool}` : method, SpanKind.CLIENT, attributes, parent);
  };

  /** The fetch tap: chat and MCP requests get a span and the trace context; the rest goes as it is. */
  const onFetch = (fetch, url, init) => {
    let span = null;
    let mcp = false;
    let request = init;
    try {
      const method = String(init?.method ?? 'GET').toUpperCase();
      const path = pathOf(url);
      if (method !== 'GET' && method !== 'DELETE') {
        if (turn && (path.endsWith('/v1/studio/ai/chat') || (directChat !== undefined && path === directChat))) {
          span = openChat().span;
          turn.chat.sentAt = now();
          const server = serverOf(url);
          span.setAll({ 'server.address': server.address, 'server.port': server.port });
        } else {
          const text = bodyText(init?.body);
          const message = text !== undefined && text.includes('"method"') ? parseObject(text) : undefined;
          // The list-changed watch's listening request belongs to no turn: not traced.
          if (message && typeof message.method === 'string' && message.method !== LISTEN_METHOD) {
            mcp = true;
            span = mcpSpan(message, url, init ?? {});
            const sc = span.context();
            const traceparent = traceparentOf(sc);
            if (traceparent && tracePropagation !== 'none') {
              const edited = withTraceMeta(text, { traceparent, tracestate: tracestateOf(sc) });
              if (edited !== text) request = { ...init, body: new TextEncoder().encode(edited) };
            }
          }
        }
        if (span && sendsHeaders(url, tracePropagation)) request = withHeaders(request ?? {}, span.context());
      }
    } catch {
      // tracing failed: the request goes as it is
      request = init;
    }
    if (!span) return fetch(url, init);
    let result;
    try {
      result = fetch(url, request);
    } catch (err) {
      span.fail('transport_error', describe(err));
      span.end();
      throw err;
    }
    const failed = (err) => {
      span.fail('transport_error', describe(err));
      span.end();
      throw err;
    };
    if (!mcp) {
      return result instanceof Promise ? result.then(undefined, failed) : result;
    }
    const answered = (response) => {
      try {
        const session = responseHeader(response, 'mcp-session-id');
        if (session) span.set('mcp.session.id', session);
        const status = response?.status;
        const httpFailed = Number.isInteger(status) && (status < 200 || status > 299);
        return watchBody(response, (text, broken) => {
          if (httpFailed) span.fail(String(status), `the MCP server answered HTTP ${status}`);
          else if (broken) span.fail('transport_error', 'the answer broke off');
          else {
            const failure = mcpFailure(text);
            if (failure?.rpc) span.set('rpc.response.status_code', failure.type).fail(failure.type, 'the MCP server answered a JSON-RPC error');
            else if (failure) span.fail(failure.type, 'the tool answered isError');
          }
          span.end();
        });
      } catch {
        span.end();
        return response;
      }
    };
    return result instanceof Promise ? result.then(answered, failed) : answered(result);
  };

  /** The call tap: a page transport starts a round's chat; a page MCP client's listTools a discovery pass. */
  const onCall = (hook) => {
    if (hook === 'transport') {
      const chat = openChat();
      if (chat) chat.sentAt = now();
    } else if (hook === 'mcp.listTools') {
      openDiscovery();
    }
  };

  /** Ends every open await_approval span with outcome. */
  const abandon = () => {
    for (const [id, span] of asks) {
      span.set('agentwasm.approval.outcome', 'abandoned').end();
      asks.delete(id);
    }
  };

  /** Starts the invoke_agent span of a turn command. */
  const startTurn = (command) => {
    const resume = command.op === 'session.resume';
    const attributes = {
      'gen_ai.operation.name': 'invoke_agent', 'gen_ai.provider.name': provider, 'gen_ai.request.model': model,
      'agentwasm.turn.kind': resume ? 'resume' : 'send',
    };
    if (content && !resume && typeof command.text === 'string') {
      attributes['gen_ai.input.messages'] = JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: command.text }] }]);
    }
    let parent = null;
    const links = [];
    const answered = [];
    if (resume) {
      for (const [ids, approved] of [[command.approve, true], [command.decline, false]]) {
        for (const id of Array.isArray(ids) ? ids : []) {
          answered.push([id, approved]);
          const ask = asks.get(id);
          if (!ask) continue;
          if (parent === null) parent = ask;
          else {
            const sc = ask.context();
            if (sc) links.push({ context: sc });
          }
          ask.set('agentwasm.approval.outcome', approved ? 'approved' : 'declined').end();
          asks.delete(id);
        }
      }
    } else {
      abandon(); // a new message clears the pending asks
    }
    const span = start('invoke_agent', SpanKind.INTERNAL, attributes, parent, links);
    for (const [id, approved] of answered) span.event('agentwasm.approval.answered', { 'agentwasm.approval.ask_id': id, 'agentwasm.approval.approved': approved });
    return { span, round: 0, calls: [], chat: null, tool: null };
  };

  /** Ends the running turn with its record t (or the error its call rejected with). */
  const endTurn = (t, error) => {
    const { span } = turn;
    if (error !== undefined) {
      endChat('transport_error', describe(error));
      if (turn.tool && !turn.tool.span.ended) turn.tool.span.fail('cancelled', describe(error)).end();
      span.fail(error?.code || OTHER, describe(error)).end();
      return;
    }
    const status = typeof t?.status === 'string' ? t.status : undefined;
    const failedTurn = status === 'error' || status === 'refused';
    if (turn.chat && !turn.chat.span.ended) {
      endChat(status === 'cancelled' ? 'cancelled' : failedTurn ? t.errorCode || 'truncated' : 'truncated', t?.errorMessage);
    }
    if (turn.tool && !turn.tool.span.ended) turn.tool.span.fail('cancelled', t?.errorMessage || 'the turn ended before the call was answered').end();
    span.setAll({
      'agentwasm.turn.status': status, 'agentwasm.turn.rounds': Number.isInteger(t?.rounds) ? t.rounds : undefined,
      'gen_ai.usage.input_tokens': positive(t?.usage?.inputTokens), 'gen_ai.usage.output_tokens': positive(t?.usage?.outputTokens),
    });
    if (content && typeof t?.text === 'string') {
      span.set('gen_ai.output.messages', JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: t.text }] }]));
    }
    if (failedTurn) span.fail(t.errorCode || OTHER, t.errorMessage);
    else if (status === 'cancelled') span.fail('cancelled', t.errorMessage || 'the turn was cancelled');
    for (const p of Array.isArray(t?.pendingApprovals) ? t.pendingApprovals : []) {
      if (!isObj(p)) continue;
      const attributes = {
        'agentwasm.approval.ask_id': p.askId, 'agentwasm.approval.action': p.action, 'gen_ai.tool.call.id': p.toolCallId, 'gen_ai.tool.name': p.toolName,
      };
      span.event('agentwasm.approval.requested', attributes);
      if (typeof p.askId === 'string' && !asks.has(p.askId)) {
        asks.set(p.askId, start(p.action ? `await_approval ${p.action}` : 'await_approval', SpanKind.INTERNAL, {
          'agentwasm.approval.ask_id': p.askId, 'agentwasm.approval.action': p.action, 'gen_ai.tool.name': p.toolName, 'gen_ai.tool.call.id': p.toolCallId,
        }, span));
      }
    }
    span.end();
  };

  return {
    /** One event of the session, as the loader read it. */
    observe(event) {
      try {
        onEvent(event);
      } catch {
        // a tracer failure already caught, or an event of no use: nothing to trace
      }
    },
    /** The call hook: the spans, then the loader's (call). */
    call(call, hook, payload, signal) {
      try {
        onCall(hook);
      } catch {
        // ignored
      }
      return call(hook, payload, signal);
    },
    /** The fetch hook. */
    fetch(fetch, url, init) {
      return onFetch(fetch, url, init);
    },
    /**
     * Runs one turn (run() gives its Promise) inside an invoke_agent span.
     * A turn sent while another runs (the module answers busy) is not traced.
     */
    async turn(command, run) {
      if (turn) return run();
      let started = null;
      try {
        started = startTurn(command);
      } catch {
        return run();
      }
      turn = started;
      let t;
      try {
        t = await run();
      } catch (err) {
        try {
          endTurn(undefined, err);
        } finally {
          turn = null;
        }
        throw err;
      }
      try {
        endTurn(t);
      } catch {
        // ignored
      }
      turn = null;
      return t;
    },
    /** The session closed or was reset: the asks nobody answered are abandoned. */
    close() {
      abandon();
    },
  };
}

/** The ask id a tool result asked a person with ({data: {askId, awaitingHuman: true}}), or undefined. */
function askOf(content) {
  if (typeof content !== 'string' || !content.includes('awaitingHuman')) return undefined;
  const value = parseObject(content);
  const data = isObj(value?.data) ? value.data : value;
  return isObj(data) && data.awaitingHuman === true && typeof data.askId === 'string' ? data.askId : undefined;
}

/** The object JSON text holds, or undefined. */
function parseObject(text) {
  try {
    const v = JSON.parse(text);
    return isObj(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

function isObj(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** What a thrown value says. */
function describe(err) {
  try {
    return err instanceof Error ? err.message : String(err);
  } catch {
    return 'failed';
  }
}

/**
 * Answers one MCP message through run(message) inside the port's SERVER
 * span: its parent the remote context of params._meta.traceparent (a new
 * root when it is absent or invalid).
 * @param {object} tracer
 * @param {object | string} message
 * @param {(message: object | string) => Promise<object | null>} run
 */
export async function serveMCP(tracer, message, run) {
  let span = null;
  try {
    const m = typeof message === 'string' ? parseObject(message) : isObj(message) ? message : undefined;
    if (m && typeof m.method === 'string') {
      const params = isObj(m.params) ? m.params : {};
      const meta = isObj(params._meta) ? params._meta : {};
      const tool = m.method === 'tools/call' && typeof params.name === 'string' ? params.name : undefined;
      span = new SafeSpan(tracer, tool !== undefined ? `${m.method} ${tool}` : m.method, {
        kind: SpanKind.SERVER,
        attributes: {
          'mcp.method.name': m.method, 'gen_ai.tool.name': tool, 'gen_ai.operation.name': tool !== undefined ? 'execute_tool' : undefined,
          'jsonrpc.request.id': 'id' in m && m.id !== null ? String(m.id) : undefined,
        },
      }, remoteSpan(meta.traceparent, meta.tracestate));
    }
  } catch {
    span = null;
  }
  if (!span) return run(message);
  let answer;
  try {
    answer = await run(message);
  } catch (err) {
    span.fail(err?.code || OTHER, describe(err)).end();
    throw err;
  }
  try {
    if (isObj(answer?.error)) {
      const code = String(answer.error.code);
      span.set('rpc.response.status_code', code).fail(code, typeof answer.error.message === 'string' ? answer.error.message : undefined);
    } else if (answer?.result?.isError === true) {
      span.fail('tool_error', 'the tool answered isError');
    }
  } catch {
    // ignored
  }
  span.end();
  return answer;
}
