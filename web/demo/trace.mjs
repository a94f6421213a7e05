// A small recording tracer for the demo page: it answers the OpenTelemetry
// API's Tracer as the loader calls it (startSpan(name, options, context) →
// a Span with spanContext, setAttribute(s), addEvent, setStatus, end, …;
// duck-typed, no import of the API) and keeps the spans of the last few
// traces in memory, as plain records the trace view draws. Nothing leaves
// the page. Memory is bounded: at most `maxTraces` traces and `maxSpans`
// spans (the traces touched least recently go first).

/**
 * The OpenTelemetry API's context key for the active span. The loader's
 * Context answers a key by its description, so a Symbol of our own with the
 * same description finds the parent span.
 */
export const SPAN_KEY = Symbol('OpenTelemetry Context Key SPAN');

/** OpenTelemetry's span kinds (the API's SpanKind numbers) by name. */
export const SpanKind = Object.freeze({ INTERNAL: 0, SERVER: 1, CLIENT: 2, PRODUCER: 3, CONSUMER: 4 });

/** OpenTelemetry's status codes (the API's SpanStatusCode numbers). */
export const StatusCode = Object.freeze({ UNSET: 0, OK: 1, ERROR: 2 });

const kindNames = ['internal', 'server', 'client', 'producer', 'consumer'];

/** Lower-case hex of n random bytes; never all zero (an invalid id in W3C Trace Context). */
function randomHex(n) {
  const bytes = new Uint8Array(n);
  do crypto.getRandomValues(bytes); while (bytes.every((b) => b === 0));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The time now, in milliseconds since the epoch, with the monotonic clock's precision. */
function nowMs() {
  return performance.timeOrigin + performance.now();
}

/**
 * A time as OpenTelemetry's TimeInput allows it (a Date; an [seconds, nanoseconds] pair; a number of
 * milliseconds since the epoch, or, when smaller than the page's time origin, since that origin as
 * performance.now() counts) in milliseconds since the epoch; now when absent or unreadable.
 */
export function toEpochMs(time) {
  if (time instanceof Date) return time.getTime();
  if (Array.isArray(time) && time.length === 2) return time[0] * 1e3 + time[1] / 1e6;
  if (typeof time === 'number' && Number.isFinite(time)) return time < performance.timeOrigin ? performance.timeOrigin + time : time;
  return nowMs();
}

/** An attribute value as kept: primitives and arrays of them; anything else (undefined, null, objects) is dropped. */
function attrValue(value) {
  if (['string', 'number', 'boolean'].includes(typeof value)) return value;
  if (Array.isArray(value)) return value.filter((v) => ['string', 'number', 'boolean'].includes(typeof v));
  return undefined;
}

/** Copies the readable attributes of obj into into. */
function putAttributes(into, obj) {
  if (!obj || typeof obj !== 'object') return;
  for (const [key, value] of Object.entries(obj)) {
    const v = attrValue(value);
    if (v !== undefined) into[key] = v;
  }
}

/** The parent span context given by context (the loader's Context, or the API's), or null for a root. */
function parentOf(context) {
  let parent;
  try {
    parent = context?.getValue?.(SPAN_KEY);
  } catch {
    parent = undefined;
  }
  const sc = parent?.spanContext?.();
  return sc && /^[0-9a-f]{32}$/.test(sc.traceId) && !/^0+$/.test(sc.traceId) && /^[0-9a-f]{16}$/.test(sc.spanId) ? sc : null;
}

/**
 * Makes a recording tracer. `onChange(span)` is called after a span starts or ends (a record, see
 * spans()); a throwing callback is ignored.
 * @param {{maxSpans?: number, maxTraces?: number, onChange?: (span: object) => void}} [options]
 */
export function createTraceRecorder({ maxSpans = 2000, maxTraces = 8, onChange } = {}) {
  /** traceId → {spans: record[], touched: number}; a Map keeps the order traces were touched in (re-inserted on touch). */
  const traces = new Map();
  let total = 0;
  let touch = 0;
  let lastTurn = null; // the trace of the invoke_agent span started last

  /** Marks a trace as touched now (the last to be evicted) and returns its entry. */
  function touchTrace(traceId) {
    let entry = traces.get(traceId);
    if (entry) traces.delete(traceId);
    else entry = { spans: [] };
    entry.touched = ++touch;
    traces.set(traceId, entry);
    return entry;
  }

  /** Drops the traces touched least recently until the bounds hold; a trace alone over maxSpans loses its oldest spans. */
  function evict(current) {
    for (const [id, entry] of traces) {
      if (traces.size <= maxTraces && total <= maxSpans) break;
      if (id === current) continue;
      traces.delete(id);
      total -= entry.spans.length;
    }
    const entry = traces.get(current);
    if (entry && total > maxSpans) {
      const drop = total - maxSpans;
      entry.spans.splice(0, drop);
      total -= drop;
    }
  }

  function changed(record) {
    try { onChange?.(record); } catch { /* the view's problem, not the turn's */ }
  }

  /** Starts a span: the loader's call. */
  function startSpan(name, options = {}, context = undefined) {
    const parent = options?.root ? null : parentOf(context);
    const record = {
      name: String(name),
      kind: kindNames[options?.kind ?? 0] ?? 'internal',
      traceId: parent?.traceId ?? randomHex(16),
      spanId: randomHex(8),
      parentSpanId: parent?.spanId ?? null,
      startTime: toEpochMs(options?.startTime),
      endTime: null,
      attributes: {},
      events: [],
      links: [],
      status: { code: StatusCode.UNSET },
      seq: 0,
    };
    putAttributes(record.attributes, options?.attributes);
    for (const link of Array.isArray(options?.links) ? options.links : []) addLink(link);
    const entry = touchTrace(record.traceId);
    record.seq = ++touch;
    entry.spans.push(record);
    total += 1;
    if (record.name === 'invoke_agent') lastTurn = record.traceId;
    evict(record.traceId);

    const spanContext = Object.freeze({ traceId: record.traceId, spanId: record.spanId, traceFlags: 1 });
    const ended = () => record.endTime !== null;
    function addLink(link) {
      const sc = link?.context;
      if (sc?.traceId && sc?.spanId) {
        const attributes = {};
        putAttributes(attributes, link.attributes);
        record.links.push({ traceId: sc.traceId, spanId: sc.spanId, attributes });
      }
    }
    const span = {
      spanContext: () => spanContext,
      setAttribute(key, value) {
        const v = attrValue(value);
        if (!ended() && v !== undefined) record.attributes[key] = v;
        return span;
      },
      setAttributes(attributes) {
        if (!ended()) putAttributes(record.attributes, attributes);
        return span;
      },
      addEvent(eventName, attributesOrTime, time) {
        if (ended()) return span;
        const timeGiven = attributesOrTime instanceof Date || typeof attributesOrTime === 'number' || Array.isArray(attributesOrTime);
        const attributes = {};
        if (!timeGiven) putAttributes(attributes, attributesOrTime);
        record.events.push({ name: String(eventName), time: toEpochMs(timeGiven ? attributesOrTime : time), attributes });
        return span;
      },
      addLink(link) {
        if (!ended()) addLink(link);
        return span;
      },
      addLinks(links) {
        if (!ended()) for (const link of links ?? []) addLink(link);
        return span;
      },
      setStatus(status) {
        if (ended() || !status) return span;
        // OK is final; UNSET never replaces a status set before (OpenTelemetry's rules).
        if (record.status.code === StatusCode.OK || status.code === StatusCode.UNSET) return span;
        record.status = status.code === StatusCode.ERROR
          ? { code: StatusCode.ERROR, ...(typeof status.message === 'string' && status.message ? { message: status.message } : {}) }
          : { code: status.code };
        return span;
      },
      updateName(newName) {
        if (!ended()) record.name = String(newName);
        return span;
      },
      recordException(exception, time) {
        const attributes = typeof exception === 'string'
          ? { 'exception.message': exception }
          : { 'exception.type': exception?.code ?? exception?.name ?? 'Error', 'exception.message': exception?.message ?? String(exception) };
        return span.addEvent('exception', attributes, time);
      },
      end(endTime) {
        if (ended()) return;
        record.endTime = Math.max(record.startTime, toEpochMs(endTime));
        touchTrace(record.traceId);
        changed(record);
      },
      isRecording: () => !ended(),
    };
    changed(record);
    return span;
  }

  return {
    /** The Tracer the loader calls: `createSession({tracer: recorder.tracer})`. */
    tracer: {
      startSpan,
      /** The API's startActiveSpan, for completeness: calls fn with the span (the last argument). */
      startActiveSpan(name, ...args) {
        const fn = args.pop();
        const [options, context] = args;
        return fn(startSpan(name, options, context));
      },
    },
    /** Copies of the spans of traceId (of every kept trace when absent), in the order they started. */
    spans(traceId) {
      const pick = traceId === undefined ? [...traces.values()].flatMap((e) => e.spans) : traces.get(traceId)?.spans ?? [];
      return pick
        .slice()
        .sort((a, b) => a.seq - b.seq)
        .map((r) => structuredClone(r));
    },
    /** The ids of the kept traces, the one touched last at the end. */
    traceIds: () => [...traces.keys()],
    /** The trace of the turn (invoke_agent span) started last, while it is kept; else null. */
    lastTurnTrace: () => (lastTurn && traces.has(lastTurn) ? lastTurn : null),
    /** How many spans are kept. */
    size: () => total,
    /** Forgets every span. */
    clear() {
      traces.clear();
      total = 0;
      lastTurn = null;
    },
  };
}
