// agentwasm.mjs — the ES module that loads the agentwasm WebAssembly module
// (a GOOS=js build) and gives JavaScript hosts a Promise-based API:
//
//   import { load } from './agentwasm.mjs';
//   const runtime = await load();
//   const session = runtime.createSession({ baseUrl: '/api', model: 'm' });
//   // or straight to an OpenAI-compatible endpoint (a local server, a hosted API):
//   // runtime.createSession({ model: { baseUrl: 'http://127.0.0.1:11434/v1', name: 'llama3.2' } });
//   const turn = await session.chat('hello', { signal });
//   for await (const event of session.stream('and now?')) console.log(event.type);
//
// Works in browsers, Electron-style hosts and Node 20+. Types are in
// agentwasm.d.ts; the commands underneath are documented in wasm/README.md.
//
// Two builds of the same module run behind the same API: TinyGo's
// (`variant: 'tiny'`, the default: agentwasm.tiny.wasm with TinyGo's
// wasm_exec.tiny.js, the smaller download and the lighter memory) and the Go
// toolchain's (`variant: 'go'`: agentwasm.wasm with Go's wasm_exec.js, which
// recovers a Go panic where TinyGo's traps). Both wasm_exec scripts define globalThis.Go, so the
// loader keeps the class each one defined, per URL. Each has a build
// without the serving port, a smaller download for pages that only chat,
// whose createPort throws code `port_unavailable`: `variant: 'session'`
// (agentwasm-session.wasm with Go's wasm_exec.js) and `variant:
// 'tiny-session'` (agentwasm-session.tiny.wasm with TinyGo's
// wasm_exec.tiny.js).
//
// A module instance can die: under TinyGo a Go panic traps the instance (a
// WebAssembly.RuntimeError thrown out of the call), under Go an unrecovered
// panic ends the Go program. The loader watches every call into the
// instance; once it is dead, every Promise it handed out that is still
// pending and every later call reject with code `module_exited`.
//
// Bundler-safe: the default assets are found with literal
// `new URL('./agentwasm.wasm', import.meta.url)` forms (one per asset of each
// build, see defaultAssets), so that bundlers that know the pattern
// (webpack 5, Vite/Rollup) emit the files and rewrite the URLs; the others
// (esbuild) keep import.meta.url, so the files go next to the bundle (the
// package's `npx agentwasm-assets <outdir>` copies them; a load that cannot
// find them fails load_failed saying so, missingAssetHint).
// wasm_exec.js is loaded at run time from its URL, never bundled, and
// `node:fs/promises` (for file: URLs, in Node) is imported through a name the
// bundler cannot see, so a browser bundle never meets a `node:` import.

const here = import.meta.url;

/**
 * Node's fs module, for file: URLs only. The specifier is in a variable and
 * the import carries the ignore comments of webpack and Vite, so bundlers
 * leave it to run time instead of failing to resolve it for a browser.
 */
const NODE_FS = 'node:fs/promises';

/** Options that travel to the module as JSON, as given. */
const JSON_OPTIONS = new Set([
  'baseUrl', 'disableToolDiscovery', 'draft', 'maxTokens', 'maxToolRounds', 'provider', 'temperature',
  'toolChoice', 'toolDiscoveryTimeoutMs', 'watchToolListChanged', 'maxFrameBytes', 'maxTurnEvents', 'maxTurnTextBytes',
  'maxRequestBytes', 'maxToolResultBytes', 'streamFirstByteTimeoutMs', 'streamIdleTimeoutMs', 'capabilitiesTimeoutMs', 'mcpUrl',
]);

/**
 * Options handled here: functions, objects with methods, and model (a name
 * as given, or an OpenAI-compatible endpoint whose key stays here).
 */
const JS_OPTIONS = new Set([
  'auth', 'execute', 'fetchImpl', 'kit', 'mcpClient', 'model', 'onEvent', 'onStepFinish', 'studioTools', 'system',
  'toolListChangedWatch', 'tools', 'transport', 'restore', 'tracer', 'traceContent', 'tracePropagation',
]);

/** The options of load(). */
const LOAD_OPTIONS = new Set(['wasm', 'wasmExec', 'variant', 'testHooks', 'onExit', 'gcPercent']);

/** The Go collector's GOGC the loader starts the module with (load's gcPercent). */
const DEFAULT_GC_PERCENT = 400;

/** The builds of the module load() knows. */
const VARIANTS = ['go', 'tiny', 'session', 'tiny-session'];
/** The build load() picks when no variant is given: TinyGo's, by measurement (docs/SIZE.md, Which build to load). */
const DEFAULT_VARIANT = 'tiny';

/**
 * An Error with a stable `code`.
 * @param {string} code
 * @param {string} message
 */
function agentError(code, message, ErrorType = Error, cause = undefined) {
  const err = cause === undefined ? new ErrorType(message) : new ErrorType(message, { cause });
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

/**
 * The default files of a build, beside the loader. Each URL is written out
 * literally, `new URL('./…', import.meta.url)`, so that bundlers find all of
 * them; a computed name would hide them.
 * @param {'go' | 'tiny' | 'session' | 'tiny-session'} variant
 */
function defaultAssets(variant) {
  if (variant === 'session') {
    return {
      wasm: new URL('./agentwasm-session.wasm', import.meta.url),
      wasmExec: new URL('./wasm_exec.js', import.meta.url),
    };
  }
  if (variant === 'tiny-session') {
    return {
      wasm: new URL('./agentwasm-session.tiny.wasm', import.meta.url),
      wasmExec: new URL('./wasm_exec.tiny.js', import.meta.url),
    };
  }
  if (variant === 'tiny') {
    return {
      wasm: new URL('./agentwasm.tiny.wasm', import.meta.url),
      wasmExec: new URL('./wasm_exec.tiny.js', import.meta.url),
    };
  }
  return {
    wasm: new URL('./agentwasm.wasm', import.meta.url),
    wasmExec: new URL('./wasm_exec.js', import.meta.url),
  };
}

/**
 * What to do when a default asset (one beside the loader) cannot be loaded:
 * the usual cause is a bundler that copied the loader into a bundle but not
 * the files it fetches (esbuild copies none). '' for a URL the caller gave.
 * @param {URL | string} url
 * @param {'go' | 'tiny' | 'session' | 'tiny-session'} variant
 */
function missingAssetHint(url, variant) {
  const assets = defaultAssets(variant);
  if (String(url) !== String(assets.wasm) && String(url) !== String(assets.wasmExec)) return '';
  const files = [assets.wasm, assets.wasmExec].map((u) => u.pathname.slice(u.pathname.lastIndexOf('/') + 1));
  const flag = variant === DEFAULT_VARIANT ? '' : ` --variant ${variant}`;
  return `. The loader fetches ${files.join(' and ')} from beside itself (${new URL('.', assets.wasm)}); `
    + `a bundler that does not copy them (esbuild) needs them next to the bundle: run \`npx agentwasm-assets <your bundle's folder>${flag}\` `
    + 'after each build (the agentwasm package\'s command), copy them from the package yourself, '
    + 'or say where they are with load({wasm, wasmExec})';
}

/** The Go class each wasm_exec script defined, by URL (a Promise of it). */
const execLoaded = new Map();

/**
 * What every copy of this loader in the realm shares (a page or a process
 * may hold two, say a bundle's and a package's): the class each wasm_exec
 * script defined, by URL, and the end of the last script import started, so
 * that the scripts run one at a time whichever copy imports them.
 */
const shared = (() => {
  const key = Symbol.for('agentwasm.wasmExec');
  if (typeof globalThis[key] !== 'object' || globalThis[key] === null) {
    Object.defineProperty(globalThis, key, { value: { classes: new Map(), queue: Promise.resolve() } });
  }
  return globalThis[key];
})();

/**
 * Loads a wasm_exec script (Go's or TinyGo's) once per URL and resolves
 * with the Go class it defined. Each script assigns globalThis.Go, so the
 * class is read as soon as its script has run, before another script may
 * run and replace it: loading one build after the other in one page or
 * process gives each load its own build's class. A script that had already
 * run (the module map answered the import without running it again) gave
 * its class to the copy of the loader that first imported it.
 */
function loadWasmExec(url, variant) {
  const key = String(url);
  if (!execLoaded.has(key)) {
    let before;
    // A run-time import of the URL: bundlers must not follow it (wasm_exec.js
    // is a script with side effects, loaded from beside the wasm).
    const loaded = shared.queue.then(() => {
      before = globalThis.Go;
      return import(/* webpackIgnore: true */ /* @vite-ignore */ key);
    }).then(() => {
      const ran = globalThis.Go !== before;
      const Go = ran ? globalThis.Go : (shared.classes.get(key) ?? globalThis.Go);
      if (typeof Go !== 'function') {
        throw agentError('load_failed', `agentwasm: ${key} did not define globalThis.Go; is it the wasm_exec.js of Go or TinyGo?`);
      }
      if (ran) shared.classes.set(key, Go);
      return Go;
    }, (err) => {
      execLoaded.delete(key);
      throw agentError('load_failed', `agentwasm: could not load ${key}: ${err && err.message}${missingAssetHint(key, variant)}`);
    });
    shared.queue = loaded.catch(() => {});
    execLoaded.set(key, loaded);
  }
  return execLoaded.get(key);
}

/** Reads the module's bytes, or instantiates from what the caller gave. */
async function instantiate(wasm, imports, variant) {
  if (wasm instanceof WebAssembly.Module) {
    return WebAssembly.instantiate(wasm, imports);
  }
  if (wasm instanceof ArrayBuffer || ArrayBuffer.isView(wasm)) {
    return (await WebAssembly.instantiate(wasm, imports)).instance;
  }
  const url = wasm instanceof URL ? wasm : new URL(String(wasm), here);
  if (url.protocol === 'file:') {
    const { readFile } = await import(/* webpackIgnore: true */ /* @vite-ignore */ NODE_FS);
    let bytes;
    try {
      bytes = await readFile(url);
    } catch (err) {
      throw agentError('load_failed', `agentwasm: could not read ${url}: ${err && err.message}${missingAssetHint(url, variant)}`);
    }
    return (await WebAssembly.instantiate(bytes, imports)).instance;
  }
  const response = await fetch(url);
  if (!response.ok) {
    throw agentError('load_failed', `agentwasm: fetching ${url} answered ${response.status}${missingAssetHint(url, variant)}`);
  }
  if (WebAssembly.instantiateStreaming && response.headers.get('content-type') === 'application/wasm') {
    return (await WebAssembly.instantiateStreaming(response, imports)).instance;
  }
  return (await WebAssembly.instantiate(await response.arrayBuffer(), imports)).instance;
}

/** What the thrown value says, for a message. */
function describe(err) {
  if (err instanceof Error) return err.name && err.name !== 'Error' ? `${err.name}: ${err.message}` : err.message;
  try {
    return String(err);
  } catch {
    return 'a value that cannot be described';
  }
}

/**
 * The life of one module instance. It dies once — a trap or an exception
 * thrown out of a call into the instance, or the Go program's exit — and
 * then tells its listeners and aborts the signals of the fetches and hooks
 * the module had started.
 */
class Life {
  dead = false;
  /** Why it died, for messages. */
  reason = '';
  #cause;
  #listeners = new Set();
  /** The controllers of the module's running fetches and hooks (see track). */
  #live = new Set();

  /** A fresh Error with code module_exited that says why. */
  error() {
    return agentError('module_exited', `agentwasm: ${this.reason}. The runtime's sessions and ports are gone with it; `
      + 'call load() for a new runtime (or runtime.restart())', Error, this.#cause);
  }

  /** Calls fn once, when the instance dies (at once if it has). Returns the unsubscribe. */
  onDeath(fn) {
    if (this.dead) {
      fn();
      return () => {};
    }
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  die(reason, cause) {
    if (this.dead) return;
    this.dead = true;
    this.reason = reason;
    this.#cause = cause;
    const live = [...this.#live];
    this.#live.clear();
    for (const controller of live) controller.abort(this.error());
    const listeners = [...this.#listeners];
    this.#listeners.clear();
    for (const fn of listeners) {
      try {
        fn();
      } catch {
        // a listener's failure stops no other
      }
    }
  }

  /**
   * A signal for one fetch or hook the module starts: it aborts when the
   * module's own signal does, and when the module dies (the page's work is
   * then for nobody). `forget()` says the work is over.
   */
  track(signal) {
    const controller = new AbortController();
    const hasSignal = isObject(signal) && isFunction(signal.addEventListener);
    const forget = () => {
      this.#live.delete(controller);
      if (hasSignal) signal.removeEventListener('abort', onAbort);
    };
    const onAbort = () => {
      forget();
      controller.abort(signal.reason);
    };
    if (this.dead) controller.abort(this.error());
    else if (hasSignal && signal.aborted) controller.abort(signal.reason);
    else {
      this.#live.add(controller);
      if (hasSignal) signal.addEventListener('abort', onAbort, { once: true });
    }
    return { signal: controller.signal, forget };
  }
}

/**
 * Watches one instance for its death. Every exported function of the
 * instance Go's or TinyGo's wasm_exec calls (run or _start, resume,
 * go_scheduler…) goes through a guard: a throw out of it — a trap, or a
 * JavaScript exception that went through the module's frames — kills the
 * instance, and is not rethrown (it would surface in a timer or a promise
 * job of wasm_exec's, far from any caller); after the Go program's exit or
 * a death, calls into the instance do nothing. Returns the instance to
 * hand to go.run(): the same instance, with the guarded exports.
 */
function watch(go, instance, life) {
  let exitCode = 0;
  const exit = go.exit;
  if (isFunction(exit)) {
    // Go's wasm_exec reports the exit code here (TinyGo's in go.exitCode).
    go.exit = (code) => {
      exitCode = code;
      exit.call(go, code);
    };
  }
  const exited = () => {
    const code = Number.isInteger(go.exitCode) && go.exitCode !== 0 ? go.exitCode : exitCode;
    life.die(code === 0
      ? 'the module\'s Go program exited'
      : `the module's Go program exited with code ${code} (an unrecovered Go panic does this; the console has its message)`);
  };
  // Go's wasm_exec runs its timers through _resume, and retries while Go
  // has not taken the event: a dead module never takes it.
  const stopTimers = () => {
    const timers = go._scheduledTimeouts;
    if (!(timers instanceof Map)) return;
    for (const timer of timers.values()) clearTimeout(timer);
    timers.clear();
  };
  life.onDeath(stopTimers);
  let trapped = false;
  const died = (err) => {
    trapped = true;
    go.exited = true; // TinyGo's wasm_exec timers stop calling in
    life.die(err instanceof WebAssembly.RuntimeError
      ? `the module trapped (${describe(err)}) and cannot run again (under TinyGo a Go panic does this)`
      : `the module failed: ${describe(err)} was thrown out of a call into it, which leaves it unusable`, err);
  };
  const exports = {};
  for (const [name, value] of Object.entries(instance.exports)) {
    // getsp (Go's, called inside every syscall/js import) cannot fail: left as it is.
    if (!isFunction(value) || name === 'getsp') {
      exports[name] = value;
      continue;
    }
    exports[name] = (...args) => {
      if (life.dead) return undefined;
      let result;
      try {
        result = value(...args);
      } catch (err) {
        if (go.exited && !trapped) {
          exited();
          // TinyGo's proc_exit unwinds with a marker (not an Error) its
          // wasm_exec catches. Anything else comes from frames the exit left
          // running: Go's wasm_exec drops the instance at exit, and the
          // imports still running fail on it.
          if (!(err instanceof Error)) throw err;
          stopTimers();
          return undefined;
        }
        // The first failure kills the instance; the frames it leaves behind
        // (a call that was running when a nested one failed) fail again,
        // and are swallowed as well.
        died(err);
        stopTimers();
        return undefined;
      }
      if (go.exited) exited();
      if (life.dead) stopTimers(); // the frames a death left running may have scheduled one
      return result;
    };
  }
  // A callback into a dead module (a late promise, a timer, an abort
  // listener) does nothing, where wasm_exec would throw "Go program has
  // already exited" into whoever called it.
  const resume = go._resume;
  go._resume = function guardedResume(...args) {
    if (go.exited && !life.dead) exited();
    if (life.dead) {
      stopTimers(); // one may have been scheduled by the frames a death left running
      return undefined;
    }
    return resume.apply(this, args);
  };
  // Go's wasm_exec insists on a WebAssembly.Instance: an object whose
  // prototype is the instance is one, with its own exports.
  return Object.create(instance, { exports: { value: Object.freeze(exports), enumerable: true } });
}

/**
 * The module's direct entry points, when it has them (wasm/js/exports.go):
 * commands and replies pass as bytes in the module's memory, and the
 * module is woken by a call to its exported wake function, where a
 * function made with Go's js.FuncOf goes through the runtime's event path
 * (under Go a pass of its scheduler, under TinyGo a new goroutine with a
 * whole stack for each call). Answers null for a module without them.
 *
 * - callSync(text) runs a command that never waits and answers its reply
 *   text (undefined when the module died during it).
 * - call(text, hooks, signal) starts a command and resolves with its reply
 *   text; the module takes the hooks, signal and resolve function from the
 *   slot it is given (take).
 * - waker(id) makes the function the module hands out to be woken by (a
 *   body pump's wake); watch(promise, id) settles a box with a promise's
 *   outcome and wakes id.
 *
 * A wake, a started command and a sync command that did more than read
 * run the Go scheduler from a microtask (what they made runnable, such as
 * the waits a close cancels, runs then), never inside a call the module is
 * making: the page's code the module calls may wake it synchronously.
 */
function directEntry(go, exports, life) {
  const {
    agentwasm_buffer: buffer, agentwasm_call_sync: callSync, agentwasm_reply: reply,
    agentwasm_call: call, agentwasm_wake: wake, go_scheduler: scheduler,
  } = exports;
  const memory = exports.mem ?? exports.memory;
  if (![buffer, callSync, reply, call, wake].every(isFunction) || !(memory instanceof WebAssembly.Memory)) return null;
  // TinyGo's runtime runs its goroutines from go_scheduler; Go's from resume, through wasm_exec's _resume.
  const run = isFunction(scheduler) ? () => scheduler() : () => go._resume();
  let queued = false;
  const kick = () => {
    if (queued) return;
    queued = true;
    queueMicrotask(() => {
      queued = false;
      if (!life.dead) run();
    });
  };
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  /** Writes text into the module's command buffer; answers its length in bytes, or -1 if the module is dead. */
  const write = (text) => {
    const room = text.length * 3; // UTF-8 takes at most 3 bytes per UTF-16 unit
    const at = buffer(room);
    if (at === undefined) return -1;
    return encoder.encodeInto(text, new Uint8Array(memory.buffer, at, room)).written;
  };
  const slots = new Map();
  let lastSlot = 0;
  return {
    callSync(text) {
      const n = write(text);
      if (n < 0) return undefined;
      let size = callSync(n);
      if (size === undefined) return undefined;
      if (size < 0) {
        // What the command made runnable (a close cancels a turn's waits) runs next.
        kick();
        size = -size - 1;
      }
      return decoder.decode(new Uint8Array(memory.buffer, reply(), size));
    },
    call(text, hooks, signal) {
      return new Promise((resolve) => {
        lastSlot = lastSlot >= 0x7fffffff ? 1 : lastSlot + 1;
        const slot = lastSlot; // a call the page makes from inside this one takes the next
        slots.set(slot, { hooks, signal, resolve });
        const n = write(text);
        if (n >= 0) call(n, slot);
        slots.delete(slot);
        kick();
      });
    },
    take(slot) {
      return slots.get(slot);
    },
    waker(id) {
      return () => {
        wake(id);
        kick();
      };
    },
    watch(promise, id) {
      const box = { failed: false, value: undefined };
      const settle = () => {
        wake(id);
        kick();
      };
      promise.then((value) => {
        box.value = value;
        settle();
      }, (reason) => {
        box.failed = true;
        box.value = reason;
        settle();
      });
      return box;
    },
  };
}

/** How many bytes a body pump reads ahead of the module before it waits for the module to take them. */
const BODY_READ_AHEAD = 1 << 20;

/** The scheduler of the body pumps' wakes (see later). */
let laterImpl;

/**
 * Runs fn in a task of its own, after the promise jobs queued so far and
 * those they queue: setImmediate in Node, a MessageChannel message in
 * browsers (no clamping, unlike nested setTimeouts), setTimeout elsewhere.
 * A body pump wakes the module this way, so that every chunk a stream has
 * queued — each read settles in a promise job — is read first and taken in
 * one call.
 */
function later(fn) {
  if (laterImpl === undefined) {
    if (typeof setImmediate === 'function') {
      laterImpl = (f) => setImmediate(f);
    } else if (typeof MessageChannel === 'function') {
      const queue = [];
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        for (const f of queue.splice(0)) {
          try {
            f();
          } catch {
            // a wake cannot fail (the guard of watch swallows a dead module's); the others still run
          }
        }
      };
      // Where a listening port holds the process open (Node's, once onmessage is set), this one must not.
      channel.port1.unref?.();
      laterImpl = (f) => {
        if (queue.push(f) === 1) channel.port2.postMessage(undefined);
      };
    } else {
      laterImpl = (f) => setTimeout(f, 0);
    }
  }
  laterImpl(fn);
}

/**
 * The body pump, the boot setting `readBody` (wasm/README.md, js): the
 * module hands it the ReadableStreamDefaultReader of each response body it
 * streams, and takes the bytes from the pump instead of calling read()
 * itself, since every value crossing into Go costs it. The pump reads the
 * reader in JavaScript ahead of the module — one read() at a time, chained
 * here, until BODY_READ_AHEAD bytes wait to be taken — and hands the module
 * its whole backlog in one call. It never throws: under TinyGo an exception
 * inside a call from Go kills the module.
 *
 *   take()   → a Uint8Array of every byte read and not yet taken (the chunk
 *              itself when there is one); null at the end of the stream;
 *              undefined when nothing is ready yet; or, once the bytes before
 *              it are taken, the failure that ended the reads: {failed:
 *              'read', reason} (read() threw or rejected with reason),
 *              {failed: 'result'} (a read gave a non-object) or {failed:
 *              'chunk'} (a chunk that is not a Uint8Array). The first take()
 *              starts the reads, and a take() resumes them when the bound
 *              paused them: read() may run the stream's source (the page's
 *              code) right there.
 *   wait(fn) → calls fn once, in a task of its own (later), when take() has
 *              something to give; one waiter at a time, wait(null) removes it.
 *   stop()   → no more reads, no more calls of the waiter, the backlog
 *              dropped. It does not cancel the reader: the module does that
 *              itself (as it does without a pump).
 */
function readBody(reader) {
  const chunks = [];
  let size = 0; // the bytes in chunks
  let reading = false; // a read() is in flight
  let end = null; // null while the stream goes on; then true (its end) or the failure record take() gives
  let stopped = false;
  let waiter = null;
  let scheduled = false; // a wake is scheduled (later)
  const ready = () => chunks.length > 0 || end !== null;
  const wake = () => {
    scheduled = false;
    const fn = waiter;
    if (fn === null || stopped || !ready()) return;
    waiter = null;
    fn();
  };
  const changed = () => {
    if (waiter !== null && !scheduled) {
      scheduled = true;
      later(wake);
    }
  };
  const failed = (reason) => {
    reading = false;
    if (stopped || end !== null) return;
    end = { failed: 'read', reason };
    changed();
  };
  const settled = (result) => {
    reading = false;
    if (stopped || end !== null) return;
    try {
      if (result === null || typeof result !== 'object') {
        end = { failed: 'result' };
      } else if (result.done) {
        end = true;
      } else if (!(result.value instanceof Uint8Array)) {
        end = { failed: 'chunk' };
      } else {
        if (result.value.length > 0) {
          chunks.push(result.value);
          size += result.value.length;
        }
        next();
      }
    } catch (err) {
      end = { failed: 'read', reason: err }; // a result whose getters throw
    }
    changed();
  };
  // Reads once more, unless a read is in flight, the stream is over or the bound is reached.
  const next = () => {
    if (reading || stopped || end !== null || size >= BODY_READ_AHEAD) return;
    reading = true;
    try {
      // A polyfill's reader may answer a thenable or a plain result: Promise.resolve takes both.
      Promise.resolve(reader.read()).then(settled, failed);
    } catch (err) {
      failed(err);
    }
  };
  return {
    take() {
      if (stopped) return null;
      let bytes;
      if (chunks.length === 1) {
        bytes = chunks[0];
      } else if (chunks.length > 1) {
        bytes = new Uint8Array(size);
        let at = 0;
        for (const chunk of chunks) {
          bytes.set(chunk, at);
          at += chunk.length;
        }
      }
      chunks.length = 0;
      size = 0;
      next();
      if (bytes !== undefined) return bytes;
      return end === null ? undefined : end === true ? null : end;
    },
    wait(fn) {
      waiter = typeof fn === 'function' ? fn : null;
      if (ready()) changed();
    },
    stop() {
      stopped = true;
      waiter = null;
      chunks.length = 0;
      size = 0;
    },
  };
}

let loads = 0;

/**
 * Loads and starts one module instance. Each call gives an independent
 * runtime with its own sessions.
 * @param {import('./agentwasm.d.ts').LoadOptions} [options]
 * @returns {Promise<Runtime>}
 */
export async function load(options = {}) {
  if (!isObject(options)) throw badOption('load takes an options object');
  for (const [key, value] of Object.entries(options)) {
    if (value !== undefined && !LOAD_OPTIONS.has(key)) throw badOption(`unknown load option ${key}`);
  }
  const { wasm, wasmExec, testHooks = false, variant = DEFAULT_VARIANT, onExit, gcPercent } = options;
  if (gcPercent !== undefined && !(Number.isSafeInteger(gcPercent) && gcPercent > 0)) {
    throw badOption(`gcPercent must be a whole number above 0 (the Go collector's GOGC; the module's default is 400), not ${JSON.stringify(gcPercent)}`);
  }
  if (!VARIANTS.includes(variant)) throw badOption(`variant must be 'go', 'tiny', 'session' or 'tiny-session', not ${JSON.stringify(variant)}`);
  if (onExit !== undefined && !isFunction(onExit)) throw badOption('onExit must be a function');
  const assets = defaultAssets(variant);
  const Go = await loadWasmExec(wasmExec == null ? assets.wasmExec : new URL(String(wasmExec), here), variant);
  const go = new Go();
  const life = new Life();
  const name = `__agentwasm_register_${++loads}_${Math.random().toString(36).slice(2)}`;
  let registered = false;
  const ready = new Promise((resolve) => {
    globalThis[name] = (api) => {
      registered = true;
      resolve(api);
    };
  });
  // The boot settings reach the module two ways: its environment (Go's
  // wasm_exec has one; a module older than __agentwasmBoot reads it) and
  // globalThis.__agentwasmBoot, which main reads and deletes at once.
  // GOGC: the Go runtime reads its collector setting from the environment
  // before main runs. The module's default is 400: the heap may grow to five
  // times what is live before the collector runs, where Go's default lets it
  // double. A streaming turn allocates a little for every event, and at Go's
  // default the collector's work was a large part of a turn's time; at 400
  // the module delivers markedly more deltas per second for a few more
  // megabytes of wasm memory (BENCHMARKS.md has both figures). TinyGo's
  // collector has no such setting and ignores it.
  go.env = { AGENTWASM_REGISTER: name, GOGC: String(gcPercent ?? DEFAULT_GC_PERCENT) };
  if (testHooks) go.env.AGENTWASM_TEST_HOOKS = '1';
  let stopWaiting = () => {};
  try {
    let instance;
    try {
      instance = await instantiate(wasm ?? assets.wasm, go.importObject, variant);
    } catch (err) {
      if (err?.code) throw err;
      // A module and a wasm_exec script of different builds do not link.
      const pairing = err instanceof WebAssembly.LinkError || err instanceof TypeError
        ? ' (the module and its wasm_exec script must come from the same build, Go\'s or TinyGo\'s: see load\'s variant option)'
        : '';
      // Not a module at all: often a server's fallback page in place of a missing file.
      const missing = wasm == null && err instanceof WebAssembly.CompileError ? missingAssetHint(assets.wasm, variant) : '';
      throw agentError('load_failed', `agentwasm: could not instantiate the module: ${describe(err)}${pairing}${missing}`);
    }
    const died = new Promise((resolve, reject) => {
      stopWaiting = life.onDeath(() => reject(agentError('load_failed', `agentwasm: the module died before it was ready: ${life.reason}`)));
    });
    died.catch(() => {}); // awaited below, unless the load fails first
    const watched = watch(go, instance, life);
    const legacy = globalThis.agentwasm;
    // Set right before the run: main reads it synchronously inside go.run,
    // so two loads at once each hand their own to their own module. readBody
    // is the body pump the module reads response bodies through; textDeltas
    // says a session's plain text delta may come as its text alone (Session.dispatch).
    const direct = directEntry(go, watched.exports, life);
    const boot = { register: name, testHooks: Boolean(testHooks), readBody, textDeltas: true };
    if (direct) Object.assign(boot, { waker: direct.waker, watch: direct.watch, take: direct.take });
    globalThis.__agentwasmBoot = boot;
    let running;
    try {
      running = go.run(watched);
    } finally {
      if (globalThis.__agentwasmBoot === boot) delete globalThis.__agentwasmBoot;
    }
    Promise.resolve(running).then(() => {
      // Go's run() settles when the program has exited; TinyGo's also
      // when a reactor module has only been initialized.
      if (go.exited) life.die('the module\'s Go program exited');
    }, (err) => {
      life.die(`the module failed to run: ${describe(err)}`, err);
    });
    if (!registered && !life.dead && globalThis.agentwasm !== legacy) {
      throw agentError('load_failed', 'agentwasm: the module stored its API as globalThis.agentwasm instead of calling the loader: '
        + 'it read neither globalThis.__agentwasmBoot nor its environment (a build older than the boot settings?)');
    }
    const api = await Promise.race([ready, died]);
    return new Runtime(api, life, { ...options }, direct);
  } catch (err) {
    life.die('the load failed');
    throw err;
  } finally {
    stopWaiting();
    delete globalThis[name];
  }
}

/** One loaded module instance. */
export class Runtime {
  #api;
  #life;
  #options;
  /** Whether the module recovers a panic: the Go build does, TinyGo's cannot. */
  #recovers = true;
  /** The rejecters of the calls sent and not yet answered. */
  #pending = new Set();
  /** The module's direct entry points (directEntry), or null. */
  #direct;

  /** @internal */
  constructor(api, life, options, direct = null) {
    this.#api = api;
    this.#life = life;
    this.#options = options;
    this.#direct = direct;
    try {
      this.#recovers = !/^tinygo/.test(this.callSyncText('{"op":"version"}').goVersion);
    } catch {
      // an older module: the Go build
    }
    life.onDeath(() => {
      this.#api = undefined;
      const pending = [...this.#pending];
      this.#pending.clear();
      for (const reject of pending) reject(life.error());
      const { onExit } = options;
      if (onExit) {
        // After the rejections, outside wasm_exec's stack; what it does changes nothing here.
        queueMicrotask(() => {
          try {
            const result = onExit(life.error());
            if (result && typeof result.then === 'function') result.then(undefined, () => {});
          } catch {
            // ignored
          }
        });
      }
    });
  }

  /**
   * Whether the module instance is dead (a trap, or the Go program's exit):
   * every call then throws or rejects with code `module_exited`.
   */
  get exited() {
    return this.#life.dead;
  }

  /**
   * Loads a fresh runtime with the options this one was loaded with. This
   * runtime is left as it is: when dead, its sessions and ports stay dead.
   * @returns {Promise<Runtime>}
   */
  restart() {
    return load(this.#options);
  }

  /** @internal Calls fn once when the instance dies (at once if it has); returns the unsubscribe. */
  onDeath(fn) {
    return this.#life.onDeath(fn);
  }

  /** @internal Throws module_exited when the instance is dead. */
  checkAlive() {
    if (this.#life.dead) throw this.#life.error();
  }

  /** @internal Sends a command that never waits. */
  callSync(command, hooks) {
    return this.callSyncText(jsonText(command, 'bad_argument', 'an argument'), hooks);
  }

  /** @internal Sends a command, already JSON, that never waits. */
  callSyncText(text, hooks) {
    this.checkAlive();
    const reply = hooks === undefined && this.#direct ? this.#direct.callSync(text) : this.#api.callSync(text, hooks);
    this.checkAlive(); // it died during the call
    return JSON.parse(reply);
  }

  /**
   * @internal Sends a command that may wait. Resolves with the reply, or
   * rejects with module_exited if the instance dies first.
   */
  async call(command, hooks, signal) {
    const text = jsonText(command, 'bad_argument', 'an argument');
    this.checkAlive();
    const reply = this.#direct ? this.#direct.call(text, hooks, signal) : this.#api.call(text, hooks, signal);
    this.checkAlive(); // it died during the call
    return new Promise((resolve, reject) => {
      this.#pending.add(reject);
      Promise.resolve(reply).then((answer) => {
        this.#pending.delete(reject);
        try {
          resolve(JSON.parse(answer));
        } catch (err) {
          reject(err);
        }
      }, (err) => {
        this.#pending.delete(reject);
        reject(err);
      });
    });
  }

  /**
   * @internal The hooks the module calls for a session or a port: the
   * page's functions get a signal that also aborts when the module dies.
   */
  hooks({ event, call, fetch, direct }) {
    const life = this.#life;
    // Frames a death left running may still call out: they reach nothing.
    // Nothing the page does throws into the module: under TinyGo, which cannot
    // recover, a JavaScript exception inside a call from Go kills it.
    const hooks = {
      event: (id, text) => {
        if (life.dead) return;
        try {
          event(id, text);
        } catch {
          // an observer's failure changes nothing
        }
      },
      call: (hook, payload, signal) => {
        if (life.dead) return Promise.reject(life.error());
        const { signal: tracked, forget } = life.track(signal);
        let result;
        try {
          result = call(hook, payload, tracked);
        } catch (err) {
          forget();
          return Promise.reject(err);
        }
        return settled(result, forget);
      },
    };
    if (fetch !== undefined) {
      hooks.fetch = (url, init) => {
        if (life.dead) return Promise.reject(life.error());
        const { signal: tracked, forget } = life.track(init?.signal);
        let result;
        try {
          // fetchImpl as a plain function; the default is globalThis.fetch with globalThis as receiver.
          result = fetch === null ? globalThis.fetch(url, { ...init, signal: tracked }) : fetch(url, { ...init, signal: tracked });
        } catch (err) {
          forget();
          // The Go build says the fetch function threw; TinyGo's, which cannot
          // catch it, is told it rejected.
          if (this.#recovers) throw err;
          return Promise.reject(err);
        }
        // A response keeps the signal until the module closes its body (it aborts its own signal then).
        if (result instanceof Promise) {
          result.then(undefined, forget);
          // The browser's own fetch failing across origins: tell a refusal (CORS) from a server that is down.
          if (fetch === null) {
            return result.catch((err) => crossOriginHint(err, url, {
              direct: direct !== undefined && url === chatPath(direct),
              probe: (origin) => probeOrigin(origin, life.track(init?.signal)),
            }));
          }
        }
        return result;
      };
    }
    return hooks;
  }

  /**
   * The module's version.
   * @returns {{version: string, abi: number, goVersion: string}}
   */
  version() {
    const reply = this.callSync({ op: 'version' });
    if (!reply.ok) throw replyError(reply);
    return { version: reply.version, abi: reply.abi, goVersion: reply.goVersion, serve: reply.serve === true };
  }

  /**
   * Creates an agent session.
   * @param {import('./agentwasm.d.ts').SessionOptions} [options]
   * @returns {Session}
   */
  createSession(options = {}) {
    this.checkAlive();
    if (options === null || typeof options !== 'object') {
      throw agentError('bad_options', 'agentwasm: createSession takes an options object', TypeError);
    }
    const json = sessionOptionsJSON(options, this);
    const session = new Session(this, {
      onEvent: options.onEvent, onStepFinish: options.onStepFinish, onWatchStatus: options.toolListChangedWatch?.onStatus,
    });
    const hooks = this.hooks({
      event: (id, text) => session.dispatch(text), call: callbacks(options), fetch: options.fetchImpl ?? null, direct: json.openai?.baseUrl,
    });
    if (options.tracer) {
      // The spans are made by the trace module (loaded now, awaited by the first turn) around these hooks
      // and from the events the session reads.
      let tap;
      session.traceWith(traceModule().then((m) => (tap = m.tapSession(options, json)), () => {}));
      for (const k of ['call', 'fetch']) {
        const hook = hooks[k];
        hooks[k] = (...a) => (tap ? tap[k](hook, ...a) : hook(...a));
      }
    }
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
    this.checkAlive();
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
    const { handlers: given = {}, onWarn, onChange, restore, tracer, ...rest } = options;
    checkTracer(tracer);
    const json = {};
    for (const [key, value] of Object.entries(rest)) {
      if (value === undefined) continue;
      if (!PORT_OPTIONS.has(key)) throw badOption(`unknown port option ${key}`);
      json[key] = value;
    }
    if (restore !== undefined) json.restore = portSnapshotOption(restore);
    if (json.settleWithinMs !== undefined && !(Number.isSafeInteger(json.settleWithinMs) && json.settleWithinMs >= 0)) {
      throw badOption('settleWithinMs must be a whole number of milliseconds, 0 or more');
    }
    if (json.offerLedgerSize !== undefined && !(Number.isSafeInteger(json.offerLedgerSize) && json.offerLedgerSize > 0)) {
      throw badOption('offerLedgerSize must be a whole number above 0 (the offers the port remembers; default 500)');
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
    const port = new Port(this, { onWarn, onChange, tracer });
    const hooks = this.hooks({ event: (id, text) => port.dispatch(text), call: portCallbacks(handlers) });
    // The graph travels as raw JSON inside the command.
    const command = `{"op":"port.create","graph":${graphJSON},"options":${jsonText(json, 'bad_options', 'the port options')}}`;
    const reply = this.callSyncText(command, hooks);
    if (!reply.ok) throw replyError(reply);
    port.bind(reply.port, reply.value);
    return port;
  }

}

/**
 * The trace module (agentwasm-trace.mjs), imported once a tracer is given:
 * a literal specifier, so that bundlers split it off the loader.
 */
let traced;
const traceModule = () => (traced ??= import('./agentwasm-trace.mjs'));

/** Throws bad_options unless tracer is undefined or has startSpan (an OpenTelemetry Tracer). */
function checkTracer(tracer) {
  if (tracer !== undefined && !isFunction(tracer?.startSpan)) throw badOption('tracer must be an OpenTelemetry Tracer (an object with startSpan)');
}

/** How long probeOrigin waits for an answer, in milliseconds. */
const PROBE_MS = 2000;

/**
 * The URL of an OpenAI-compatible endpoint's chat completions, as the
 * module makes it from the base (internal/openai ChatPath): a base ending
 * in /v1 gets /chat/completions, one ending in /chat/completions is used as
 * it is, any other gets /v1/chat/completions.
 */
function chatPath(base) {
  const p = base.replace(/\/+$/, '');
  if (p.endsWith('/chat/completions')) return p;
  if (p.endsWith('/v1')) return `${p}/chat/completions`;
  return `${p}/v1/chat/completions`;
}

/**
 * Asks whether a server answers at origin at all: a plain GET in no-cors
 * mode (no credentials), whose opaque answer the browser hands over whatever
 * the server's CORS headers say. Resolves 'up' when it answered, 'down' when
 * the request failed too, 'unknown' when it was cut by PROBE_MS or by the
 * module's signal (tracked: {signal, forget} of Life.track).
 */
async function probeOrigin(origin, tracked) {
  const { signal, forget } = tracked;
  if (signal.aborted) {
    forget();
    return 'unknown';
  }
  const controller = new AbortController();
  const stop = () => controller.abort();
  signal.addEventListener('abort', stop, { once: true });
  const timer = setTimeout(stop, PROBE_MS);
  try {
    await globalThis.fetch(`${origin}/`, { method: 'GET', mode: 'no-cors', credentials: 'omit', cache: 'no-store', signal: controller.signal });
    return 'up';
  } catch {
    return controller.signal.aborted ? 'unknown' : 'down';
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', stop);
    forget();
  }
}

/** Whether an http URL's origin is this machine, which a browser lets an https page call. */
function loopback(origin) {
  return /^http:\/\/(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?$/i.test(origin);
}

/**
 * Rejects with the error of the host's fetch for url, with a hint when it
 * may be a CORS refusal: a network failure (a TypeError) of a request from
 * a page to another origin. A browser reports a refusal exactly as an
 * unreachable server, so probe asks whether a server answers at all (see
 * probeOrigin): when it does, the browser refused the answer, and the
 * message says `refused by CORS` (the session's direct transport turns those
 * words into the code upstream_cors, session/openai_transport.go); when it
 * does not, the server is not reachable; when the probe could not tell, the
 * hint says both. The advice is for the Studio AI proxy (agentwasm dev's
 * flags), or with direct for an OpenAI-compatible endpoint (the model
 * option's baseUrl). The hint names the two origins only, never a path, a
 * query or a credential. Anything else is rejected with as it is.
 */
async function crossOriginHint(err, url, { direct, probe }) {
  const page = globalThis.location?.origin;
  if (!(err instanceof TypeError) || typeof page !== 'string' || !/^https?:/.test(page)) throw err;
  let target;
  try {
    target = new URL(url, globalThis.location.href).origin;
  } catch {
    throw err;
  }
  if (target === page) throw err;
  const answered = await probe(target);
  const allow = direct
    ? 'Allow it on the server (Ollama: the OLLAMA_ORIGINS environment variable; llama-server: --cors-origins; vLLM: --allowed-origins; '
      + 'LM Studio: its CORS setting, or lms server start --cors), answering the preflight too (an OPTIONS request, which asks for the '
      + 'Authorization header when there is a key), or send the requests through a pass-through on this page\'s origin and give its path '
      + 'as the model\'s baseUrl (such as \'/openai/v1\')'
    : `With agentwasm dev, start it with --allow-origin ${page} (make run ALLOW_ORIGIN=${page}), serve the page from it with --web, `
      + 'or proxy /api through your own dev server';
  let why;
  if (answered === 'up') {
    why = `the server answered, but the browser refused its answer (refused by CORS): the server does not allow this page's origin. ${allow}`;
  } else if (answered === 'down') {
    const mixed = page.startsWith('https:') && target.startsWith('http:') && !loopback(target)
      ? '; this page is https and the URL is http, which the browser blocks (mixed content): serve the endpoint over https' : '';
    why = `no server answered there, not even a plain request: it is not running, or the ${direct ? 'model\'s baseUrl' : 'URL'} is wrong${mixed}`;
    if (!direct) why += `. Once it runs, it must also allow this page's origin (CORS). ${allow}`;
  } else {
    why = `if that server is running, most likely the browser refused its answer: the server does not allow this page's origin (CORS). ${allow}`;
  }
  throw new TypeError(`${err.message} (this page, ${page}, called another origin, ${target}: ${why})`, { cause: err });
}

/**
 * What a hook gave, handed on as it is; `forget` runs when the work is over:
 * a Promise settled, a stream of chunks ended (or its reader was closed,
 * which aborts the module's signal), or at once for anything else.
 */
function settled(result, forget) {
  if (result instanceof Promise) {
    result.then(forget, forget);
    return result;
  }
  if (isObject(result) && isFunction(result.next)) {
    return {
      next() {
        let chunk;
        try {
          chunk = result.next();
        } catch (err) {
          forget();
          return Promise.reject(err);
        }
        Promise.resolve(chunk).then((line) => {
          if (line == null) forget();
        }, forget);
        return chunk;
      },
    };
  }
  forget();
  return result;
}

/**
 * The restore option of createPort: a port snapshot (port.snapshot()'s
 * object, or its JSON text) as the object the module reads. Not an object
 * (or JSON text of one) throws code `bad_snapshot`, as the module does for
 * one it refuses.
 */
function portSnapshotOption(restore) {
  let snapshot = restore;
  if (typeof restore === 'string') {
    try {
      snapshot = JSON.parse(restore);
    } catch (err) {
      throw agentError('bad_snapshot', `agentwasm: the port snapshot to restore is not JSON: ${err.message}; pass port.snapshot()'s object or its JSON text`, TypeError);
    }
  }
  if (!isObject(snapshot)) {
    throw agentError('bad_snapshot', 'agentwasm: restore must be a port snapshot: port.snapshot()\'s object or its JSON text', TypeError);
  }
  return snapshot;
}

/** Port options that travel to the module as JSON, as given. */
const PORT_OPTIONS = new Set([
  'confirmHighEffect', 'journeyTools', 'source', 'separator', 'requireHumanApproval', 'page', 'state',
  'name', 'version', 'settleWithinMs', 'offerLedgerSize',
]);

/** The port reasons a WebMCP tool answers with isError, as the port's MCP server does (serve.Result.IsError). */
const WEBMCP_ERROR_REASONS = new Set(['UNKNOWN_TOOL', 'INTERNAL_ERROR', 'PORT_CLOSED']);

/**
 * The page's WebMCP API for registerWebMCP: {context}, or {absent: why not}.
 * An API is an object with registerTool().
 */
function findModelContext(options) {
  if (options.modelContext !== undefined) {
    const given = options.modelContext;
    if (given === null) return { absent: 'no WebMCP API was given (options.modelContext is null); the port\'s tools were not registered' };
    if (!isObject(given) || !isFunction(given.registerTool)) {
      return { absent: 'the options.modelContext given is not a WebMCP API (it has no registerTool method); the port\'s tools were not registered' };
    }
    return { context: given };
  }
  for (const read of [() => globalThis.document?.modelContext, () => globalThis.navigator?.modelContext]) {
    let context;
    try {
      context = read();
    } catch {
      continue; // a getter that throws is no API
    }
    if (isObject(context) && isFunction(context.registerTool)) return { context };
  }
  return {
    absent: 'this browser offers no WebMCP API (neither document.modelContext nor navigator.modelContext has registerTool); '
      + 'the port\'s tools were not registered: load a WebMCP polyfill such as @mcp-b/webmcp-polyfill, or pass options.modelContext',
  };
}

/**
 * The module's way to run the page's action handlers: the "handler" hook
 * gets {action, input, source, transitionId, instance?} (instance: the key
 * of the repeating area's card the fire is for); the handler's return value
 * (or what its Promise resolves to) is the fire's data, a throw refuses it.
 */
function portCallbacks(handlers) {
  return (hook, payload, signal) => {
    if (hook !== 'handler') return Promise.reject(new Error(`a port has no ${hook} callback`));
    try {
      const { action, input, source, transitionId, instance } = JSON.parse(payload);
      const fn = handlers[action];
      if (!fn) return Promise.reject(new Error(`the page supplied no handler for ${action}`));
      const context = { action, source, transitionId, signal };
      if (instance != null && instance !== '') context.instance = instance;
      return Promise.resolve(fn(input, context))
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

/** Calls an observer of events: if it throws or rejects, nothing changes. */
function observeQuietly(fn, ...args) {
  try {
    const result = fn(...args);
    if (result && typeof result.then === 'function') result.then(undefined, () => {});
  } catch {
    // ignored
  }
}

/** observeQuietly for an observer of one event (no rest parameters: it runs once per text delta). */
function observe(fn, event) {
  try {
    const result = fn(event);
    if (result && typeof result.then === 'function') result.then(undefined, () => {});
  } catch {
    // ignored
  }
}

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

/** The origin of an absolute http(s) URL, or '' for anything else. */
function originOf(url) {
  if (!/^https?:\/\//i.test(url)) return '';
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}

/**
 * Checks model given as an OpenAI-compatible endpoint, {baseUrl, name,
 * apiKey?, getApiKey?}, and returns what travels: the model's name and
 * {baseUrl, apiKey: true when there is a key} (wire.OpenAIEndpoint). The key
 * itself never travels as data nor appears in an error: the module asks the
 * apiKey hook for it (callbacks).
 */
function directModel(model) {
  if (!isObject(model) || Array.isArray(model)) {
    throw badOption('model must be a string (the model\'s name at the Studio AI proxy) or an object {baseUrl, name, apiKey?, getApiKey?} '
      + 'for an OpenAI-compatible endpoint');
  }
  for (const name of Object.keys(model)) {
    if (!['baseUrl', 'name', 'apiKey', 'getApiKey'].includes(name)) {
      throw badOption(`unknown model option ${name}: an endpoint takes baseUrl, name, and apiKey or getApiKey`);
    }
  }
  const { baseUrl, name, apiKey, getApiKey } = model;
  if (typeof baseUrl !== 'string' || baseUrl === '') {
    throw badOption('model.baseUrl must be the endpoint\'s base URL, a non-empty string such as \'http://127.0.0.1:11434/v1\' '
      + 'or a path of this page\'s origin such as \'/openai/v1\'');
  }
  // A backslash is refused: a browser reads /\\host as //host, another origin.
  if (baseUrl.includes('\\') || !(originOf(baseUrl) || (baseUrl.startsWith('/') && !baseUrl.startsWith('//')))) {
    throw badOption('model.baseUrl must be an absolute http:// or https:// URL (such as \'http://127.0.0.1:11434/v1\') '
      + 'or a path starting with / (such as \'/openai/v1\')');
  }
  if (/[?#@]/.test(baseUrl)) {
    throw badOption('model.baseUrl has a query, a fragment or credentials (?, # or @); give the URL without them, and the key as model.apiKey '
      + 'or model.getApiKey');
  }
  if (typeof name !== 'string' || name === '') {
    throw badOption('model.name must be the model\'s name at the endpoint, a non-empty string such as \'llama3.2\'');
  }
  if (apiKey !== undefined && getApiKey !== undefined) {
    throw badOption('give model.apiKey or model.getApiKey, not both');
  }
  // The message never shows the value: it may be a key of the wrong type.
  if (apiKey !== undefined && (typeof apiKey !== 'string' || apiKey === '')) {
    throw badOption('model.apiKey must be the key as a non-empty string (leave it out for an endpoint that needs none, '
      + 'or give model.getApiKey to read it for each request)');
  }
  if (getApiKey !== undefined && !isFunction(getApiKey)) {
    throw badOption('model.getApiKey must be a function ({forceRefresh}) => key, returning a string (or null for none), or a Promise of one');
  }
  const openai = { baseUrl };
  if (apiKey !== undefined || getApiKey !== undefined) openai.apiKey = true;
  return { name, openai };
}

/**
 * The restore option as the module takes it: a snapshot object as given, or
 * the object a snapshot's JSON text holds. The module checks the snapshot
 * itself (bad_snapshot); text that is no JSON is refused here alike.
 */
function restoreJSON(restore) {
  if (typeof restore === 'string') {
    try {
      return JSON.parse(restore);
    } catch (err) {
      throw agentError('bad_snapshot', `agentwasm: restore is not a snapshot's JSON (${err && err.message}); give what session.snapshot() returned, or its JSON text`);
    }
  }
  if (!isObject(restore) || Array.isArray(restore)) {
    throw badOption('restore must be a snapshot from session.snapshot() (a plain object) or its JSON text');
  }
  return restore;
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
    auth, execute, fetchImpl, kit, mcpClient, mcpUrl, model, onEvent, onStepFinish, studioTools, system, toolListChangedWatch,
    tools, transport, restore, tracer, traceContent, tracePropagation,
  } = options;
  if (restore !== undefined) json.restore = restoreJSON(restore);
  // The trace options stay in JavaScript: the trace module makes the spans (createSession).
  checkTracer(tracer);
  if (traceContent !== undefined && typeof traceContent !== 'boolean') throw badOption('traceContent must be true or false');
  if (!['same-origin', 'all', 'none', undefined].includes(tracePropagation)) throw badOption('tracePropagation must be \'same-origin\', \'all\' or \'none\'');
  if (typeof model === 'string') {
    json.model = model;
  } else if (model !== undefined) {
    const direct = directModel(model);
    if (transport !== undefined) throw badOption('give model as an endpoint object or a transport, not both: the transport replaces the endpoint');
    json.model = direct.name;
    json.openai = direct.openai;
  }
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
  if (isObject(options.model)) {
    // The endpoint's key: the one given, or getApiKey's for each request
    // (forceRefresh once after a 401). The key goes to the module only.
    const { apiKey, getApiKey } = options.model;
    if (apiKey !== undefined || getApiKey !== undefined) {
      handlers.apiKey = async (payload) => {
        const { forceRefresh } = JSON.parse(payload);
        const key = apiKey !== undefined ? apiKey : await getApiKey({ forceRefresh });
        if (key != null && typeof key !== 'string') throw new TypeError(`model.getApiKey gave a ${typeof key}, not a string key`);
        return JSON.stringify(key ?? null);
      };
    }
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
  if (signal !== undefined && !(isObject(signal) && 'aborted' in signal && isFunction(signal.addEventListener)
    && isFunction(signal.removeEventListener))) {
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

/** The turn of a chat() or resume() that close() overtook before the module took it up. */
const closedTurn = () => ({
  status: 'cancelled', text: '', toolCalls: [], events: [], rounds: 0,
  errorMessage: 'The session was closed before this turn ran.',
});

/** One agent conversation. */
export class Session {
  #runtime;
  #id = 0;
  #onEvent;
  /** With a tracer: the trace module's taps of this session, once it is loaded (a Promise). */
  #tap;
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

  /** @internal The taps that make this session's spans (createSession with a tracer). */
  traceWith(tap) {
    this.#tap = tap;
    // The taps see each event as the session reads it, once: a sink that stays.
    tap.then((t) => t && this.#sinks.add((event) => t.observe(event)));
  }

  /** @internal */
  bind(id) {
    this.#id = id;
  }

  /**
   * @internal Hands the module's events to the observers, each event alone
   * and in order: the module's event hook receives them in batches, a JSON
   * array of the events of one network read, say (wasm/js/events.go), where
   * a plain text delta comes as its text alone (the boot setting
   * textDeltas) and becomes its event here.
   * Nothing the observers do can break the turn.
   */
  dispatch(text) {
    const onEvent = this.#onEvent;
    if (!onEvent && !this.#onWatchStatus && !this.#onStepFinish && this.#sinks.size === 0) return;
    let events;
    try {
      events = JSON.parse(text);
    } catch {
      return;
    }
    if (!Array.isArray(events)) events = [events];
    for (let i = 0; i < events.length; i++) {
      let event = events[i];
      if (typeof event === 'string') {
        event = { type: 'chat', event: { type: 'textDelta', text: event } };
        if (this.#sinks.size !== 0) for (const sink of this.#sinks) sink(event);
      } else {
        if (!isObject(event)) continue;
        for (const sink of this.#sinks) sink(event);
        if (this.#onWatchStatus && event.type === 'toolWatch') observeQuietly(this.#onWatchStatus, event.status, event.detail);
        if (this.#onStepFinish && event.type === 'stepFinish') observeQuietly(this.#onStepFinish, event.step);
      }
      if (onEvent) observe(onEvent, event);
    }
  }

  /** The session's id inside the module. */
  get id() {
    return this.#id;
  }

  #open() {
    if (this.#closed) throw agentError('closed', 'agentwasm: this session is closed; create a new one');
    this.#runtime.checkAlive();
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
      const run = async () => {
        const reply = await this.#runtime.call(command, undefined, signal);
        if (!reply.ok) {
          // close() ran before the module took up the turn: it ends cancelled, as a running one does.
          if (this.#closed && reply.error?.code === 'unknown_session') return closedTurn();
          throw replyError(reply);
        }
        return reply.turn;
      };
      const tap = this.#tap && await this.#tap;
      return await (tap ? tap.turn(command, run) : run());
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

  /**
   * Clears the history; the capabilities cache is kept. While a turn runs the module refuses it with
   * code `busy`, changing nothing.
   */
  reset() {
    this.#sync('session.reset');
    this.#tap?.then((t) => t?.close());
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
   * The session's state as a plain object (wasm/README.md, session.snapshot),
   * for createSession's restore option; it never waits.
   * @returns {import('./agentwasm.d.ts').SessionSnapshot}
   */
  snapshot() {
    return this.#sync('session.snapshot').snapshot;
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

  /**
   * Ends the session; later calls reject with code `closed`. A running turn
   * is cancelled (the module aborts its fetch and its tools' signals) and
   * settles `cancelled`. Closing a session of a dead runtime only marks it
   * closed.
   */
  close() {
    if (this.#closed) return;
    this.#closed = true;
    this.#tap?.then((t) => t?.close());
    if (this.#runtime.exited) return; // gone with the module
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
  /** The live WebMCP registrations (registerWebMCP), undone by close(). */
  #webmcp = new Set();
  /** The tracer of port.mcp's server spans, or undefined. */
  #tracer;

  /** @internal */
  constructor(runtime, { onWarn, onChange, tracer }) {
    this.#runtime = runtime;
    this.#onWarn = onWarn;
    this.#onChange = onChange;
    this.#tracer = tracer;
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

  /**
   * @internal Hands the port's events to the page, one by one: the module's
   * event hook receives them in batches, a JSON array (wasm/js/events.go).
   * Nothing the page does reaches the module.
   */
  dispatch(text) {
    if (this.#closed) return;
    let events;
    try {
      events = JSON.parse(text);
    } catch {
      return;
    }
    if (!Array.isArray(events)) events = [events];
    for (const event of events) {
      if (this.#closed) return; // closed by an observer of an earlier event
      if (!isObject(event)) continue;
      const fn = event.type === 'warning' ? this.#onWarn : this.#onChange;
      // A version is always a number (a module that omits a zero means 0).
      if (fn) observeQuietly(fn, event.type === 'warning' ? event.warning : { version: Number.isFinite(event.version) ? event.version : 0 });
    }
  }

  /** The port's id inside the module. */
  get id() {
    return this.#id;
  }

  #open() {
    if (this.#closed) throw agentError('closed', 'agentwasm: this port is closed; create a new one');
    this.#runtime.checkAlive();
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
    let reply;
    if (settle) {
      command.settleWithinMs = settle;
      reply = await this.#runtime.call(command);
    } else {
      // Without settleWithinMs a call never waits (a fire's handler runs after it has answered):
      // it goes in and out synchronously, where a started command costs a goroutine and a wake.
      reply = this.#runtime.callSync(command);
    }
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
    const run = async () => {
      const command = typeof message === 'string'
        ? { op: 'port.mcp', port: this.#id, text: message } // malformed text is answered -32700
        : { op: 'port.mcp', port: this.#id, message };
      const reply = await this.#runtime.call(command);
      if (!reply.ok) throw replyError(reply);
      return reply.value ?? null;
    };
    const m = this.#tracer && await traceModule().catch(() => {});
    return m ? m.serveMCP(this.#tracer, message, run) : run();
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

  /**
   * The person did `action` in the page; returns the transition id. For an
   * action of a repeating area, `instance` names the card (a `once` action
   * the person did on it is then not done again by a fire).
   */
  report(action, options = {}) {
    const { input, data, instance } = options ?? {};
    if (instance !== undefined && typeof instance !== 'string') {
      throw agentError('bad_argument', 'agentwasm: report\'s instance must be a string, the card\'s key', TypeError);
    }
    return this.#sync('port.report', { action: String(action), input, data, instance }).value.transitionId;
  }

  /**
   * The port's ask journal as a snapshot: a plain object
   * `{format: 'agentwasm.port', version: 1, graph, caller?, asks: [...]}`
   * to keep (JSON.stringify it) and hand to `createPort(graph, {restore})`
   * after a reload, over the same graph. A card pending now can then still
   * be approved or declined; each ask keeps its id, its caller and its
   * expiry. The app's own state is not in it: pass it as `state`/`page`.
   */
  snapshot() {
    return this.#sync('port.snapshot').snapshot;
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

  /**
   * Says which cards of a repeating area are mounted (for an area without
   * `instancesFrom`, which cards there are): `area` is its path
   * (`orders.list`), `keys` the instance keys, in the page's order.
   * Replaces what was said before; the module refuses an area that does not
   * repeat, or an empty key.
   * @param {string} area
   * @param {string[]} keys
   */
  setInstances(area, keys) {
    if (typeof area !== 'string' || area === '') {
      throw agentError('bad_argument', 'agentwasm: setInstances(area, keys) takes the area\'s path, a string like "orders.list"', TypeError);
    }
    if (!Array.isArray(keys) || !keys.every((k) => typeof k === 'string')) {
      throw agentError('bad_argument', 'agentwasm: setInstances(area, keys) takes the instance keys as an array of strings', TypeError);
    }
    this.#sync('port.setInstances', { area, keys: [...keys] });
  }

  /**
   * Marks an action (by id), an area (by path) or a page busy with a short
   * label the model reads (`Saving…`; the module keeps 200 bytes); null,
   * undefined or '' clears it. Busy never gates an action.
   * @param {string} id
   * @param {string | null} [label]
   */
  setBusy(id, label) {
    if (typeof id !== 'string' || id === '') {
      throw agentError('bad_argument', 'agentwasm: setBusy(id, label) takes an action id or an area path, a string', TypeError);
    }
    if (label != null && typeof label !== 'string') {
      throw agentError('bad_argument', 'agentwasm: setBusy(id, label) takes a string label, or null to clear it', TypeError);
    }
    this.#sync('port.setBusy', { id, label: label ?? '' });
  }

  /**
   * Registers the port's tools with the page's WebMCP API, so that an agent
   * of the browser (or an extension) calls them as a model calls the port:
   * each tool's `execute` is `port.call(name, args, {settleWithinMs})`,
   * answered as an MCP CallToolResult — the result as JSON text and as
   * `structuredContent`, `isError` only for UNKNOWN_TOOL, INTERNAL_ERROR and
   * PORT_CLOSED, as the port's MCP server answers; an execute never throws
   * (a closed port or a dead module is an `isError` result with the
   * message). Nothing here approves anything: a high-effect step answers
   * needs-confirm as port.call does, and only the page's human doors
   * (approveAsk…) answer its ask.
   *
   * The API is `options.modelContext` when given (null: none), else
   * `document.modelContext`, else `navigator.modelContext`. Without one the
   * registration is a no-op that says why (`registered: false`, `reason`).
   * Each tool is registered with `registerTool(tool, {signal})`; its undoing
   * aborts the signal (WebMCP's way, and @mcp-b/webmcp-polyfill's), calls
   * the `unregister()` of a handle registerTool gave, else the API's
   * `unregisterTool(name)` where it has one. `unregister()` undoes the
   * registration (idempotent); close() undoes every live one, and so does
   * the module's death.
   *
   * Rejects with code `webmcp_failed` when the API refuses a tool (a tool of
   * that name is registered already, say), after undoing the tools this call
   * registered; `bad_argument` for a bad option; `closed` when the port is
   * (or gets) closed.
   * @param {{modelContext?: object | null, settleWithinMs?: number}} [options]
   * @returns {Promise<import('./agentwasm.d.ts').WebMCPRegistration>}
   */
  async registerWebMCP(options = {}) {
    if (!isObject(options)) throw agentError('bad_argument', 'agentwasm: registerWebMCP takes an options object', TypeError);
    for (const [key, value] of Object.entries(options)) {
      if (value !== undefined && key !== 'modelContext' && key !== 'settleWithinMs') {
        throw agentError('bad_argument', `agentwasm: unknown registerWebMCP option ${key}`, TypeError);
      }
    }
    const settleWithinMs = options.settleWithinMs ?? 250;
    if (!(Number.isSafeInteger(settleWithinMs) && settleWithinMs >= 0)) {
      throw agentError('bad_argument', 'agentwasm: registerWebMCP options.settleWithinMs must be a whole number of milliseconds, 0 or more', TypeError);
    }
    this.#open();
    const { context, absent } = findModelContext(options);
    if (absent) return { registered: false, reason: absent, tools: [], unregister() {} };

    const tools = this.tools();
    const controller = new AbortController();
    // One entry per tool: live once registerTool fulfilled, until undone.
    const entries = tools.map((tool) => ({ name: tool.name, live: false, handle: undefined }));
    let undone = false;
    const undo = (entry) => {
      entry.live = false;
      try {
        if (isObject(entry.handle) && isFunction(entry.handle.unregister)) entry.handle.unregister();
        else if (isFunction(context.unregisterTool)) context.unregisterTool(entry.name);
      } catch {
        // gone already, or the API refuses: nothing more to undo
      }
    };
    let forgetDeath = () => {};
    const registration = {
      registered: true,
      tools: tools.map((t) => t.name),
      unregister: () => {
        undone = true;
        forgetDeath();
        this.#webmcp.delete(registration);
        controller.abort();
        for (const entry of entries) if (entry.live) undo(entry);
      },
    };
    this.#webmcp.add(registration);
    // A dead module serves no call: its tools leave WebMCP with it.
    forgetDeath = this.#runtime.onDeath(() => registration.unregister());
    const outcomes = await Promise.allSettled(tools.map((tool) => {
      const descriptor = {
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema,
        annotations: { ...tool.annotations },
        execute: (args) => this.#webmcpExecute(tool.name, args, settleWithinMs),
      };
      try {
        return Promise.resolve(context.registerTool(descriptor, { signal: controller.signal }));
      } catch (err) {
        return Promise.reject(err);
      }
    }));
    outcomes.forEach((outcome, i) => {
      if (outcome.status === 'fulfilled') {
        entries[i].live = true;
        entries[i].handle = outcome.value;
      }
    });
    if (undone || this.#closed) {
      registration.unregister();
      this.#runtime.checkAlive(); // a module that died meanwhile: module_exited
      throw agentError('closed', 'agentwasm: this port was closed while its tools were being registered with WebMCP; create a new one');
    }
    const failed = outcomes.findIndex((o) => o.status === 'rejected');
    if (failed >= 0) {
      registration.unregister();
      const { reason } = outcomes[failed];
      throw agentError('webmcp_failed', `agentwasm: WebMCP refused the tool ${tools[failed].name}: ${describe(reason)}`
        + ' (a tool of that name may be registered already); the tools this call had registered were unregistered', Error, reason);
    }
    return registration;
  }

  /** A WebMCP tool's execute: the port's call as an MCP CallToolResult; never throws. */
  async #webmcpExecute(name, args, settleWithinMs) {
    let result;
    try {
      result = await this.call(name, args ?? {}, { settleWithinMs });
    } catch (err) {
      return { content: [{ type: 'text', text: (err instanceof Error ? err.message : describe(err)) || `agentwasm: ${name} failed` }], isError: true };
    }
    const answer = { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
    if (isObject(result) && WEBMCP_ERROR_REASONS.has(result.reason)) answer.isError = true;
    return answer;
  }

  /**
   * Ends the port; later calls throw with code `closed`, and its WebMCP
   * registrations are undone. Closing a port of a dead runtime only marks
   * it closed (and undoes the registrations).
   */
  close() {
    if (this.#closed) return;
    this.#closed = true;
    this.#onWarn = undefined;
    this.#onChange = undefined;
    for (const registration of [...this.#webmcp]) registration.unregister();
    if (this.#runtime.exited) return; // gone with the module
    const reply = this.#runtime.callSync({ op: 'port.close', port: this.#id });
    if (!reply.ok && reply.error?.code !== 'unknown_port') throw replyError(reply);
  }
}
