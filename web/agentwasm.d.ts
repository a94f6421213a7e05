// Type declarations for agentwasm.mjs, the loader of the agentwasm
// WebAssembly module (a GOOS=js build: the Go toolchain's, or TinyGo's).

/** An Error with a stable machine-readable code. */
export interface AgentwasmError extends Error {
  /**
   * `load_failed`; `module_exited` (the module instance died — a trap, or the Go program's exit —
   * so every call of its runtime, sessions and ports that was pending, and every later one, fails
   * with it; the message says what happened; {@link load} a new runtime, or {@link Runtime.restart});
   * `bad_options`, `bad_argument`, `closed`, `bad_command`, `unknown_session`, `unknown_port`,
   * `port_unavailable` (createPort in a session-only build, `variant: 'session'` or `'tiny-session'`), `refused`, `cancelled` (refreshTools aborted by its signal),
   * `busy` ({@link Session.reset} while a chat, stream or resume runs: nothing changed),
   * `bad_snapshot` (a snapshot {@link Runtime.createSession}'s or {@link Runtime.createPort}'s restore option refused:
   * another format, an unknown version, not a snapshot, past the bounds, for a port another graph; the message says
   * which, and nothing was made),
   * `webmcp_failed` ({@link Port.registerWebMCP}: the WebMCP API refused a tool), `internal`.
   */
  code: string;
}

/**
 * A build of the module: `go`, the Go toolchain's (`agentwasm.wasm` with Go's `wasm_exec.js`),
 * `tiny`, TinyGo's (`agentwasm.tiny.wasm` with TinyGo's `wasm_exec.tiny.js`), and each without the
 * serving port, a smaller download whose createPort throws `port_unavailable`: `session`
 * (`agentwasm-session.wasm` with Go's `wasm_exec.js`) and `tiny-session`
 * (`agentwasm-session.tiny.wasm` with TinyGo's `wasm_exec.tiny.js`). All serve the same session
 * API. Under TinyGo a Go panic cannot be recovered: it kills the instance (`module_exited`).
 */
export type Variant = 'go' | 'tiny' | 'session' | 'tiny-session';

/** Options of {@link load}. Unknown names are rejected with code `bad_options`. */
export interface LoadOptions {
  /**
   * Which build to load when `wasm` and `wasmExec` are not given: it picks their defaults beside the
   * loader (`agentwasm.tiny.wasm` and `wasm_exec.tiny.js` for `tiny`, TinyGo's build; `agentwasm.wasm`
   * and `wasm_exec.js` for `go`, the Go toolchain's, which recovers a Go panic where TinyGo's module
   * dies; `agentwasm-session.tiny.wasm` and `agentwasm-session.wasm` for `tiny-session` and `session`,
   * the same builds without the serving port, whose {@link Runtime.createPort} throws code
   * `port_unavailable`). Default `tiny`.
   */
  variant?: Variant;
  /**
   * The module: a URL (string or URL, relative to the loader), its bytes, or a compiled
   * WebAssembly.Module. Default: the variant's module beside the loader.
   */
  wasm?: string | URL | ArrayBuffer | ArrayBufferView | WebAssembly.Module;
  /**
   * The wasm_exec script of the toolchain (and release) that built the module: Go's, or TinyGo's.
   * Default: the variant's script beside the loader.
   */
  wasmExec?: string | URL;
  /** Enables the module's debug.* commands. For tests only. */
  testHooks?: boolean;
  /**
   * The Go collector's GOGC for this instance: how far, in percent of the live heap, the heap may
   * grow before the collector runs. Default 400: a streaming turn allocates a little for every
   * event, and at Go's own default (100) the collector takes a large share of a turn's time, so
   * the module delivers events markedly faster at 400 for a few more megabytes of WebAssembly
   * memory, which a page never gets back (BENCHMARKS.md measures both). Give 100 where memory
   * matters more than speed. A whole number above 0, else `bad_options`. The TinyGo build
   * ignores it.
   */
  gcPercent?: number;
  /**
   * Called once when the module instance dies (a trap, or the Go program's exit), with the
   * `module_exited` error its calls now fail with, after the pending ones were rejected. Whatever it
   * throws or rejects with is ignored.
   */
  onExit?: (error: AgentwasmError) => void | Promise<void>;
}

/**
 * Loads and starts one module instance; each call gives an independent runtime. It rejects with
 * code `load_failed` when the module or its wasm_exec script cannot be loaded; for the default
 * files beside the loader, the message names them and how to put them there.
 * @example
 * ```ts
 * import { load } from 'agentwasm';
 *
 * const runtime = await load();   // agentwasm.wasm and wasm_exec.js beside the loader
 * const session = runtime.createSession({ baseUrl: '/api' });
 * for await (const e of session.stream('Only show schools')) {
 *   if (e.type === 'chat' && e.event.type === 'textDelta') render(e.event.text);
 * }
 * ```
 */
export function load(options?: LoadOptions): Promise<Runtime>;

/** Which tool the model should call. */
export interface ToolChoice {
  mode: 'auto' | 'none' | 'required' | 'specific';
  /** With mode `specific`: the tool to call. */
  toolName?: string;
}

/** A tool the model may call. `parameters` or `input_schema` are accepted in place of `inputSchema`. */
export interface ToolDefinition {
  name: string;
  description?: string;
  inputSchema?: object;
  parameters?: object;
  input_schema?: object;
  annotations?: object;
  outputSchema?: object;
}

/**
 * A tool of the session (in `tools` or a kit's `tools`): a definition, and optionally its own
 * executor, which wins over the shared one (the session's `execute`, or the kit's) for this tool.
 * The function stays in the page; only the definition is sent to the module.
 */
export interface SessionTool extends ToolDefinition {
  execute?: ToolFunction;
}

/**
 * A tool's own executor: the model's arguments (always an object) and the call's context; sync or
 * async. The signal aborts when the turn is cancelled, or the module dies. What it gives is read as a {@link ToolReturn};
 * a throw or rejection fails the call with its message.
 */
export type ToolFunction = (
  args: Record<string, unknown>,
  context: { signal: AbortSignal; toolCallId: string },
) => ToolReturn | Promise<ToolReturn>;

/** A call the model made, as executors receive it. `args` is always an object. */
export interface ToolCall {
  name: string;
  args: Record<string, unknown>;
  toolCallId: string;
}

/** What an executor returns. `ok` and `dry-run` are success. */
export interface ToolResult<T = unknown> {
  status: 'ok' | 'dry-run' | 'denied' | 'error';
  data?: T;
  deniedReason?: string;
}

/**
 * What a tool's executor may give: a {@link ToolResult}, or any other JSON value, sent to the model as
 * `{status: 'ok', data: value}` (`null`: `{status: 'ok', data: null}`; `undefined`: `{status: 'ok'}`). A
 * result larger than the session's bound for one tool result (2 MiB as sent), or one that would take the
 * next chat request past its 8 MiB bound, is not sent: the call fails with errorCode `result_too_large`,
 * which the model reads instead. An object whose `status` is a string is
 * read as a ToolResult, so wrap a value with a `status` of its own: `{status: 'ok', data: value}`. A value
 * with no JSON form (a function, a symbol, a BigInt, a cycle) fails the call with a message naming the tool.
 */
export type ToolReturn =
  | ToolResult
  | string | number | boolean | null | undefined | void
  | readonly unknown[]
  | (object & { readonly status?: never });

/**
 * Runs the runtime tools that have no executor of their own; sync or async. The signal aborts when the
 * turn is cancelled, or the module dies. A throw or rejection fails the call with its message.
 */
export type ToolExecutor = (call: ToolCall, options: { signal: AbortSignal }) => ToolReturn | Promise<ToolReturn>;

/** The page's local tool plane. */
export interface Kit {
  tools: readonly SessionTool[];
  /** Called with the kit as `this`. */
  execute?: ToolExecutor;
  /** Live page context; used as the system prompt (once per turn) when `system` is not given. */
  systemPrompt?: () => string | Promise<string>;
}

/** Where the bearer token comes from: an object, or a bare function. A null or empty token sends no header. */
export type TokenSource =
  | { getAccessToken(options: { forceRefresh: boolean }): string | null | undefined | Promise<string | null | undefined> }
  | ((options: { forceRefresh: boolean }) => string | null | undefined | Promise<string | null | undefined>);

/**
 * The key of an OpenAI-compatible endpoint, read for every request: a string, or null (or undefined, or
 * '') for none. `forceRefresh` is true once after the endpoint answered 401, for a fresh key.
 */
export type ApiKeySource = (options: { forceRefresh: boolean }) => string | null | undefined | Promise<string | null | undefined>;

/**
 * A model at an OpenAI-compatible chat completions endpoint (a local server such as Ollama, llama.cpp's
 * llama-server, vLLM or LM Studio, or a hosted API), which the session then talks to directly instead of
 * the Studio AI proxy: {@link SessionOptions.model}. Give at most one of `apiKey` and `getApiKey`; a local
 * server needs neither. The key goes only to the endpoint's origin, as `Authorization: Bearer <key>`, and
 * never appears in an event, an error, a turn or the history (any echo of it reads `[redacted]`). In a
 * page, the endpoint must allow the page's origin (CORS), or sit behind a pass-through on the page's own
 * origin; and a key given to a page is readable by anyone who can open it: give a page a key of its user's
 * own, or keep the key on a server behind a pass-through.
 */
export interface DirectModel {
  /**
   * The API's base: an absolute http(s) URL such as `'http://127.0.0.1:11434/v1'` (Ollama),
   * `'http://127.0.0.1:8080'` (llama-server) or `'https://api.openai.com/v1'`, or a path of the page's
   * origin such as `'/openai/v1'`. Requests go to `{baseUrl}/chat/completions` when it ends in `/v1`, to
   * `baseUrl` as it is when it ends in `/chat/completions`, to `{baseUrl}/v1/chat/completions` otherwise
   * (trailing slashes dropped first). One with a query, a fragment or an `@` (credentials) is refused with
   * `bad_options`.
   */
  baseUrl: string;
  /** The model's name at the endpoint, sent as the request's `model`, such as `'llama3.2'`. */
  name: string;
  /** The key, a non-empty string, when it does not change. */
  apiKey?: string;
  /** Reads the key for every request (and once more, with `forceRefresh`, after a 401). */
  getApiKey?: ApiKeySource;
}

/** The chat request a transport receives: the proxy's JSON body. */
export interface ChatRequest {
  provider?: string;
  model?: string;
  system?: string;
  messages: Message[];
  tools?: ToolDefinition[];
  toolChoice?: ToolChoice;
  maxTokens?: number;
  temperature?: number;
}

/** Replaces the SSE transport: gives the answer's events for one request. */
export type ChatTransportStream = (
  request: ChatRequest,
  options: { signal: AbortSignal },
) => Iterable<StreamEvent> | AsyncIterable<StreamEvent> | Promise<Iterable<StreamEvent> | AsyncIterable<StreamEvent>>;
export type ChatTransport = ChatTransportStream | { stream: ChatTransportStream };

/** A tool as an MCP server's tools/list describes it. */
export interface McpTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: object;
  outputSchema?: object;
  annotations?: object;
  _meta?: object;
}

/** A tools/call result. */
export interface McpToolResult {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
}

/** An MCP client of the page's own: the session's discovery and composition calls go through it. */
export interface McpClient {
  /** The whole catalog, in server order; reject rather than give a partial one. */
  listTools(options: { signal: AbortSignal }): McpTool[] | Promise<McpTool[]>;
  callTool(name: string, args: Record<string, unknown>, options: { signal: AbortSignal }): McpToolResult | Promise<McpToolResult>;
  close?(): void | Promise<void>;
}

/** The composition draft that composition tools mutate. */
export interface DraftBinding {
  draftId: string;
  generation: number;
}

/** Which tools discovered on the MCP server the session may route (takes effect with MCP discovery). */
export interface StudioToolPolicy {
  families?: string[];
  views?: string[];
  allowlist?: string[];
  required?: string[];
  /** May veto a tool the other rules route; sync or async. */
  approve?: (entry: { name: string; description: string; classification: { family?: string; view?: string; revision?: string } | null }) => boolean | Promise<boolean>;
}

/** Backoff, budget and observer of the list-changed watch (takes effect with MCP discovery). */
export interface ToolListChangedWatchOptions {
  initialDelayMs?: number;
  factor?: number;
  maxDelayMs?: number;
  maxReconnectAttempts?: number;
  stableStreamMs?: number;
  onStatus?: (status: string, detail?: string) => void;
}

/** The ids of a span ({@link TraceSpan.spanContext}), as OpenTelemetry's SpanContext has them. */
export interface TraceSpanContext {
  /** 32 lower-case hex digits. */
  traceId: string;
  /** 16 lower-case hex digits. */
  spanId: string;
  /** The W3C trace flags (1: sampled). */
  traceFlags: number;
  /** Vendor trace state, sent as `tracestate`. */
  traceState?: { serialize(): string };
  isRemote?: boolean;
}

/** A value of a span attribute (the loader sets strings, numbers, booleans and string arrays). */
export type TraceAttributeValue =
  | string | number | boolean | Array<null | undefined | string> | Array<null | undefined | number> | Array<null | undefined | boolean>;

/** Span attributes by name. */
export type TraceAttributes = Record<string, TraceAttributeValue | undefined>;

/**
 * The parent context the loader hands to {@link Tracer.startSpan}: an immutable OpenTelemetry
 * Context of its own, whose value under the API's span key (`Symbol.for('OpenTelemetry Context Key
 * SPAN')`) is the parent span (none for a root).
 */
export interface TraceContext {
  getValue(key: symbol): unknown;
  setValue(key: symbol, value: unknown): TraceContext;
  deleteValue(key: symbol): TraceContext;
}

/** A span as the loader uses it: the part of OpenTelemetry's Span it calls. */
export interface TraceSpan {
  spanContext(): TraceSpanContext;
  setAttribute(key: string, value: TraceAttributeValue): unknown;
  setAttributes(attributes: TraceAttributes): unknown;
  addEvent(name: string, attributes?: TraceAttributes): unknown;
  /** Only ERROR (code 2) is set, with a message. */
  setStatus(status: { code: number; message?: string }): unknown;
  end(endTime?: number): void;
  isRecording?(): boolean;
}

/**
 * An OpenTelemetry API Tracer, duck-typed (`provider.getTracer(name)`; no dependency on
 * `@opentelemetry/api` is needed): the loader calls only `startSpan(name, {kind, attributes, links},
 * context)`, `kind` being the API's SpanKind number (INTERNAL 0, SERVER 1, CLIENT 2). Whatever the
 * tracer or its spans throw is caught and never breaks a turn.
 */
export interface Tracer {
  startSpan(
    name: string,
    options?: { kind?: number; attributes?: TraceAttributes; links?: { context: TraceSpanContext }[] },
    context?: TraceContext,
  ): TraceSpan;
}

/**
 * Options of {@link Runtime.createSession}: the seed's StudioAgentSessionOptions. Unknown names are
 * rejected with code `bad_options`.
 */
export interface SessionOptions {
  auth?: TokenSource;
  /**
   * Base of the Studio API; chat at `${baseUrl}/v1/studio/ai/chat`. Default `/api`. One with a query, a
   * fragment or an `@` (credentials, `user:password@host`) is refused: a token goes through `auth`, never into the URL.
   */
  baseUrl?: string;
  /** Never contact `/mcp`; advertise runtime tools only. */
  disableToolDiscovery?: boolean;
  draft?: DraftBinding;
  /**
   * Executor for the runtime tools without one of their own; replaces the kit's. Not allowed with a Port
   * as the kit (tools with their own execute are: the port's tools still go through the port).
   */
  execute?: ToolExecutor;
  /**
   * The fetch function. Called as a plain function `fetchImpl(url, init)`; may return a Response or a
   * Promise of one, throw or reject. Default: `globalThis.fetch`, called with `globalThis` as receiver.
   * `init.signal` aborts when the module stops reading the answer, or dies.
   */
  fetchImpl?: (input: string, init: RequestInit) => Response | Promise<Response>;
  /**
   * The page's local tool plane: a kit object, or a {@link Port} — the in-page agent then drives
   * the app through its own journeys, and approval cards stay with the page.
   */
  kit?: Kit | Port;
  maxTokens?: number;
  /** Model requests per chat() before the loop stops. Default 8. */
  maxToolRounds?: number;
  /** Replaces the MCP client used for discovery and composition calls. */
  mcpClient?: McpClient;
  /**
   * The MCP endpoint of the default MCP client when it is not `${baseUrl}/mcp`: an absolute http(s) URL, or
   * a path starting with `/`; anything else is refused with `bad_options`. Ignored with `mcpClient`.
   */
  mcpUrl?: string;
  /**
   * The model: a name the Studio AI proxy passes on (a string), or a {@link DirectModel}, an OpenAI-compatible
   * endpoint the session talks to directly (then `provider` is not sent, no capabilities are read, and a
   * failure at the endpoint ends the turn with one of the `upstream_…` codes of {@link Turn.errorCode}; tool
   * discovery still goes to `baseUrl`'s or `mcpUrl`'s MCP server: set disableToolDiscovery when there is none).
   * Not with `transport`.
   */
  model?: string | DirectModel;
  /** Observes every event. Whatever it throws or rejects with is ignored and never breaks a turn. */
  onEvent?: (event: SessionEvent) => void | Promise<void>;
  /**
   * Called after each model round with what it did (the `step` of the `stepFinish` event). Whatever it
   * throws or rejects with is ignored and never breaks a turn.
   */
  onStepFinish?: (step: Step) => void | Promise<void>;
  provider?: string;
  studioTools?: StudioToolPolicy;
  /** The system prompt, or a function called once per chat(). */
  system?: string | (() => string | Promise<string>);
  temperature?: number;
  toolChoice?: ToolChoice;
  /** Bound on one discovery pass; 0 disables. Default 15000. */
  toolDiscoveryTimeoutMs?: number;
  toolListChangedWatch?: ToolListChangedWatchOptions;
  /** Explicit runtime tools, merged after the kit's; the first of a name wins. Each may carry its own `execute`. */
  tools?: readonly SessionTool[];
  transport?: ChatTransport;
  watchToolListChanged?: boolean;
  /** Bound on one server-sent event frame, in bytes. Default 4 MiB. */
  maxFrameBytes?: number;
  /**
   * Bound on the events one chat() records in `turn.events` (a run of text deltas is one); past it the
   * turn ends with status `error` and errorCode `turn_too_large`, keeping the text so far. Default 100000.
   */
  maxTurnEvents?: number;
  /**
   * Bound on the bytes one chat() takes in from the model (the strings of every streamed event: text,
   * tool-call arguments, ids, names, messages); past it as for maxTurnEvents. Default 8 MiB.
   */
  maxTurnTextBytes?: number;
  /**
   * Bound on one chat request as sent (its JSON body): a turn whose next request would pass it sends nothing
   * and ends with status `error` and errorCode `request_too_large`, the history left as it was before the
   * turn. Set it to your proxy's body bound. Default 8 MiB (8,388,608 bytes), the bound of `agentwasm dev`'s
   * proxy.
   */
  maxRequestBytes?: number;
  /**
   * Bound on one tool message as the next request carries it (its content, JSON-escaped): a larger result,
   * or one that would take the next request past maxRequestBytes, fails its call with `result_too_large`,
   * and the model reads that small rejection instead. Default 2 MiB; at most maxRequestBytes.
   */
  maxToolResultBytes?: number;
  /**
   * Bound from sending a chat request to the first byte of its answer; past it the request is aborted and
   * the turn ends with status `error` and errorCode `stream_timeout`, keeping the text so far. 0 disables.
   * Default 120000. (A `transport` of the page's bounds its own streams.)
   */
  streamFirstByteTimeoutMs?: number;
  /**
   * Bound on the silence between bytes of a chat answer, as streamFirstByteTimeoutMs; after `messageStop`,
   * silence ends the answer as complete. 0 disables. Default 120000.
   */
  streamIdleTimeoutMs?: number;
  /** Bound on the capabilities request; past it the turn goes on without the refusal check. 0 disables. Default 30000. */
  capabilitiesTimeoutMs?: number;
  /**
   * A snapshot from {@link Session.snapshot} (the object, or its JSON text): the new session starts
   * from its history, pending approvals, usage, draft binding and call counter, and — given the same
   * options — its next chat sends the very request the snapshotted session would have sent. The
   * options, functions and credentials are this call's own: a snapshot holds none. A refused one
   * (another format, an unknown version, not a snapshot, past twice `maxRequestBytes` and 1 MiB)
   * throws with code `bad_snapshot` and makes no session; one that is neither an object nor a string
   * throws `bad_options`.
   */
  restore?: SessionSnapshot | string;
  /**
   * Makes OpenTelemetry spans of every turn, following the GenAI and MCP semantic conventions:
   * `invoke_agent`, `chat {model}`, `execute_tool {tool}`, `discover_tools`, the MCP requests and
   * `await_approval {action}` (docs/TRACING.md). The spans are made by the loader's trace module
   * (agentwasm-trace.mjs, beside the loader), imported when a tracer is given; the first turn waits
   * for it. Chat and MCP requests carry the W3C `traceparent`/`tracestate` (see tracePropagation).
   * A tracer without startSpan is refused with `bad_options`.
   */
  tracer?: Tracer;
  /**
   * Puts content in the spans: the person's message, the turn's text, each tool call's arguments and
   * result (as the session redacted them). Default false: no content. Never a key or a token.
   */
  traceContent?: boolean;
  /**
   * Where the trace headers go: `'same-origin'` (default) only to this page's origin, since a
   * header to another origin asks for a CORS preflight the server may refuse (in Node, with no page
   * origin, everywhere); `'all'` to every chat and MCP request; `'none'` nowhere. MCP requests carry
   * the trace in `params._meta` too, unless `'none'`.
   */
  tracePropagation?: 'same-origin' | 'all' | 'none';
}

/**
 * A session's state as a plain JSON object, from {@link Session.snapshot}, for
 * {@link SessionOptions.restore}: store it (JSON.stringify) where a reload finds it.
 *
 * It holds the conversation history, the approvals the last turn stopped on, the tokens of every turn
 * so far, the bound draft and the counter of ids given to unnamed tool calls. It never holds an
 * option, a function or a credential: every token the session learned (from `auth`, an endpoint's
 * key) reads `[redacted]`.
 *
 * Versioning: a released `version` stays readable — a later agentwasm restores it — while an agentwasm
 * refuses a version newer than its own (`bad_snapshot`). Treat the object as opaque beyond
 * `interrupted`: its members are described for reading, not for editing.
 */
export interface SessionSnapshot {
  /** Always `agentwasm.session`. */
  format: 'agentwasm.session';
  /** The snapshot format's version (1). */
  version: number;
  /** The conversation history, well-formed: every tool call answered. */
  history: Message[];
  /** The asks the last turn stopped on, as its `pendingApprovals` gave them. */
  pending?: PendingApproval[];
  /** The tokens of every turn so far. */
  usage?: Usage;
  /** The bound composition draft. */
  draft?: DraftBinding;
  /** The counter of ids given to tool calls the model named none for. */
  callSeq?: number;
  /**
   * Set when the snapshot was taken while a turn ran: the snapshot holds the state at that turn's start
   * (the turn is not in it), and `text` is the person's message that began it — offer it again after a
   * restore.
   */
  interrupted?: { text: string };
  /**
   * The session's data options, never a function or a credential: a restore fills each option its own
   * options leave unset from these (the caller's win), so a host that knows nothing of the conversation
   * gets the original's model, prompt and endpoint (an OpenAI-compatible one without its key: give
   * `model.apiKey`/`getApiKey` again).
   */
  options?: {
    baseUrl?: string; mcpUrl?: string; model?: string; provider?: string; system?: string; maxTokens?: number;
    temperature?: number; toolChoice?: ToolChoice; maxToolRounds?: number; openaiBaseUrl?: string;
  };
}

/** One entry of the conversation history. */
export interface Message {
  role: 'user' | 'assistant' | 'tool';
  content: string;
  toolCalls?: { id: string; name: string; arguments: Record<string, unknown> }[];
  toolCallId?: string;
  toolName?: string;
}

/**
 * One event of the chat stream, told apart by `type`: `e.type === 'textDelta'` narrows `e` to a
 * {@link TextDeltaEvent}, whose `text` is a string. A field whose value would be empty (an empty
 * string, 0) is left out, so each type's other fields are optional; a text delta without text is
 * dropped as the stream is read, so every text delta has a text. A page's `transport` yields these too.
 */
export type StreamEvent =
  | MessageStartEvent | TextDeltaEvent | ToolCallStartEvent | ToolCallDeltaEvent | ToolCallStopEvent
  | MessageStopEvent | StreamErrorEvent;

/** The answer starts. */
export interface MessageStartEvent {
  type: 'messageStart';
  /** The model answering, when the proxy names it. */
  model?: string;
}

/** A piece of the answer's text. */
export interface TextDeltaEvent {
  type: 'textDelta';
  /** The piece, never empty. A turn's `events` hold a run of deltas as one, its text the run's. */
  text: string;
}

/** The model starts a tool call. */
export interface ToolCallStartEvent {
  type: 'toolCallStart';
  toolCallId?: string;
  toolName?: string;
}

/** A fragment of a tool call's arguments, as JSON text. */
export interface ToolCallDeltaEvent {
  type: 'toolCallDelta';
  toolCallId?: string;
  toolArgumentsDelta?: string;
}

/** The tool call is complete; its arguments, parsed, when the proxy sends them whole. */
export interface ToolCallStopEvent {
  type: 'toolCallStop';
  toolCallId?: string;
  toolArguments?: unknown;
}

/** The answer ends: why, and the tokens it took when the model reported them. */
export interface MessageStopEvent {
  type: 'messageStop';
  stopReason?: 'endTurn' | 'toolCall' | 'maxTokens' | 'contentFilter' | 'cancelled' | 'error';
  promptTokens?: number;
  completionTokens?: number;
  latencyMs?: number;
}

/** The proxy (or the session, for a bound or a malformed event) ends the answer with an error. */
export interface StreamErrorEvent {
  type: 'error';
  errorMessage?: string;
  errorCode?: string;
  latencyMs?: number;
}

/** What one tool discovery pass found and decided. */
export interface ToolDiscoveryReport {
  discovered: number;
  pages: number;
  routed: string[];
  classification: { families: Record<string, number>; views: Record<string, number>; revisions: Record<string, number> };
  rejected: {
    name: string;
    /**
     * Why it was not routed: the policy's `unclassified`, `family`, `view`, `policy`; or descriptor hygiene:
     * `name` (not 1–128 characters of A–Z a–z 0–9 _ . -), `schema` (inputSchema not a JSON object, or nested
     * too deeply), `descriptor` (unreadable, or annotations not an object), `size` (past the catalog's cap).
     */
    reason: 'unclassified' | 'family' | 'view' | 'policy' | 'name' | 'schema' | 'descriptor' | 'size';
    classification?: { family?: string; view?: string; revision?: string | number };
    detail: string;
  }[];
  missingRequired: string[];
  diagnostics: string[];
  /** Why the pass failed, naming the MCP request that failed or hung; absent on success. */
  errorMessage?: string;
  /**
   * Set on a failed pass: the session goes on with its runtime tools and the last catalog it knew, later
   * turns do not wait for discovery, and a pass is retried in the background (1 s, 2 s, 4 s … at most 60 s)
   * until one succeeds. The retry's timer does not keep a Node process alive.
   */
  degraded?: boolean;
}

/** What `onEvent` observes: every streamed event, every dispatch, every model round, every published discovery pass. */
export type SessionEvent =
  | { type: 'chat'; event: StreamEvent }
  | { type: 'toolResult'; result: DispatchRecord }
  | { type: 'stepFinish'; step: Step }
  | { type: 'toolDiscovery'; report: ToolDiscoveryReport }
  | { type: 'toolWatch'; status: 'idle' | 'connecting' | 'open' | 'reconnecting' | 'unsupported' | 'failed' | 'closed'; detail?: string };

/** The record of one tool dispatch. */
export interface DispatchRecord {
  toolCallId: string;
  toolName: string;
  plane: 'runtime' | 'composition' | 'unknown';
  ok: boolean;
  /**
   * Why the call failed: `unknown_tool`, `no_executor`, `execution_failed`, `cancelled` (the turn ended
   * before or while it ran), `result_too_large` (it ran, but its result was too large to send to the model),
   * a composition code, or the tool's own status.
   */
  errorCode?: string;
  errorMessage?: string;
  content: string;
  draft?: DraftBinding;
  retriedAfterConflict?: boolean;
}

/** Tokens the model reported. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

/**
 * One model round of a turn, as `onStepFinish` and the `stepFinish` event give it: after the round's answer
 * streamed and its calls were dispatched (a round that ended in error, cancellation or truncation has none).
 * Steps are not among `turn.events`.
 */
export interface Step {
  /** The round's number in the turn (or in the resumed part of it), from 1. */
  round: number;
  /** The round's text. */
  text: string;
  /** The round's tool calls and their results. */
  toolCalls: DispatchRecord[];
  stopReason?: string;
  usage?: Usage;
}

/**
 * A high-effect step a turn stopped on — its port answered `needs-confirm` awaiting a person — waiting for the
 * person's answer through {@link Session.resume}.
 * @example
 * ```ts
 * let turn = await agent.chat('Buy what is in my cart');
 * while (turn.pendingApprovals) {
 *   const [ask] = turn.pendingApprovals;
 *   const yes = await approvalCard(ask.detail.willDo.does);
 *   turn = await agent.resume(yes ? { approve: [ask.askId] } : { decline: [ask.askId] });
 * }
 * ```
 */
export interface PendingApproval {
  askId: string;
  /** The tool call that met the ask. */
  toolCallId: string;
  toolName: string;
  /** The app's action that waits. */
  action: string;
  /**
   * The result the call gave: the port's needs-confirm result, awaiting the person (only a {@link Port}
   * kit raises asks). `detail.willDo.does` is the sentence for the approval card.
   */
  detail: NeedsConfirmResult & { awaitingHuman: true };
}

/** The record of one chat() call. */
export interface Turn {
  status: 'completed' | 'cancelled' | 'error' | 'refused';
  /** The text of every round, joined. */
  text: string;
  toolCalls: DispatchRecord[];
  /** Every streamed event, synthetic ones too, in order; a run of text deltas is one `textDelta` (onEvent sees each). */
  events: StreamEvent[];
  stopReason?: string;
  errorMessage?: string;
  /**
   * A stable code for some errors: `busy` (another chat is running), `turn_too_large` (past maxTurnEvents or
   * maxTurnTextBytes), `stream_truncated` (the answer ended without message_stop or error), `stream_timeout`
   * (past streamFirstByteTimeoutMs or streamIdleTimeoutMs), `request_too_large` (the next chat request would
   * pass maxRequestBytes, 8 MiB by default, so nothing was sent), the proxy's own code of an `error` event; from
   * resume(): `bad_resolution` (no id, an empty id, an id named twice), `unknown_ask` (an id that is not
   * pending), `no_approval_doors` (the session's kit has no human doors: only a Port kit has them), `ask_refused`
   * (a door refused an answer, say one the person declined on the card; the asks before it are answered),
   * `port_closed` (the Port kit was closed: the ask was neither approved nor declined, nothing ran, and
   * nothing was added to the history).
   *
   * With a {@link DirectModel}, a failure at the endpoint: `upstream_unauthorized` (401 or 403: the key is
   * missing or wrong), `upstream_not_found` (404: the baseUrl or the model's name is wrong),
   * `upstream_rate_limited` (429; the message says when to retry when the endpoint said), `upstream_unavailable`
   * (a 5xx status), `upstream_rejected` (any other status outside 2xx), `upstream_not_openai` (the answer is
   * not an OpenAI-compatible one, such as an HTML page), `upstream_malformed` (a later chunk is not the
   * expected JSON), `upstream_error` (the endpoint reported an error inside the stream), `upstream_unreachable`
   * (no connection: not running, or a wrong baseUrl), `upstream_cors` (in a page: the endpoint is up but does not
   * allow the page's origin; the message says `refused by CORS` and what to change), and `direct_unavailable`
   * (a module built with `-tags agentwasm_nodirect`, which has no direct transport; nothing was sent). Each
   * message says what to do.
   *
   * A turn whose model request fails before its answer starts (a refused or failed request, a 413 say, a
   * `request_too_large`, or a stream that opens with an error) leaves the history as it was before the turn
   * (for resume(), with the asks' answers kept), so the message can simply be sent again; its `toolCalls`
   * still list what its earlier rounds ran.
   */
  errorCode?: string;
  /** Model requests made. */
  rounds: number;
  /** Tokens over the turn's model requests, when the model reported them. */
  usage?: Usage;
  /**
   * The asks still pending after this turn: when a turn stops on asks (status `completed`), no model request
   * was made after the round that met them. Answer them with {@link Session.resume}; a chat() clears them.
   * Absent when none.
   */
  pendingApprovals?: PendingApproval[];
}

/**
 * What {@link Session.stream} gives: the turn's events as an async iterable — the objects `onEvent`
 * receives, in its order — ending with the turn. Leaving a `for await` early (the iterator's `return()`)
 * aborts the turn and waits for its end.
 */
export interface TurnStream extends AsyncIterable<SessionEvent, Turn | undefined, undefined> {
  /** The finished turn; rejects for misuse, as chat() does. */
  readonly turn: Promise<Turn>;
  [Symbol.asyncIterator](): TurnStream;
  /** The next event, or `{done: true, value: turn}` at the end; rejects for misuse. */
  next(): Promise<IteratorResult<SessionEvent, Turn | undefined>>;
  /** Aborts the turn if it is still running and resolves when it has ended. */
  return(): Promise<IteratorReturnResult<Turn | undefined>>;
}

/** A declarative condition over state keys. */
export type Guard =
  | { key: string; op: 'eq' | 'ne'; value: unknown }
  | { key: string; op: 'in'; value: readonly unknown[] }
  | { key: string; op: 'gt' | 'lt' | 'gte' | 'lte'; value: number }
  | { key: string; op: 'truthy' | 'exists' | 'nonEmpty' }
  | { all: Guard[] }
  | { any: Guard[] }
  | { not: Guard };

/** A page of the app, with optional nested areas. */
export interface GraphPage {
  id: string;
  areas?: GraphArea[];
}

/** An area inside a page; its path is `<page>.<area>[.<area>…]`. */
export interface GraphArea {
  id: string;
  areas?: GraphArea[];
  /**
   * The area repeats: a list of cards (orders, rows), one instance per key, and each fire of an action
   * in it names its card (`instance` in do_action's arguments). Repeating areas do not nest.
   */
  repeats?: boolean;
  /**
   * With `repeats`: the state key whose array lists the cards' keys; {@link Port.setInstances} then
   * says which of them are mounted. Without it, setInstances says which cards there are.
   */
  instancesFrom?: string;
}

/** Something that can be done in the app. */
export interface GraphAction {
  /** `<page>.<name>` or `<page>.<area>.<name>`. */
  id: string;
  /** The authored sentence. */
  does: string;
  /** The page it is on. */
  on: string;
  /** The page it claims to lead to. */
  goTo?: string;
  writes?: string[];
  reads?: string[];
  /** A JSON Schema object for its input, or `"none"`. */
  input?: object | 'none';
  /** High-effect: needs confirm (and human approval where the app requires it). */
  confirm?: boolean;
  /** Is it offered at all. */
  when?: Guard;
  /** Is an offered action greyed out. */
  enabledWhen?: Guard;
  /** What should hold after a fire: the result's `verifyHeld` says whether it did. */
  verify?: Guard;
  /**
   * How fires of the action may overlap: `once`, never again after one was done (a later call names
   * the earlier one, `priorTransitionId`); `single-flight`, one at a time (a call while one is pending
   * names it, `pendingTransitionId`). Default: no limit.
   */
  concurrency?: 'once' | 'single-flight';
  /**
   * `track`: the action's whats_here row names the keys it reads or writes that others changed since
   * the port last fired it (`staleReads`, `staleWrites`); `cite` also gives the row an `offerId`, which
   * each fire must cite (a stale or unknown one is refused, naming what `moved`).
   */
  freshness?: 'track' | 'cite';
}

/** An ordered list of steps (action ids); step one is the entry. */
export interface GraphJourney {
  id: string;
  does: string;
  steps: string[];
  precondition?: Guard;
}

/** What a person can do in an app. */
export interface Graph {
  id: string;
  pages: GraphPage[];
  actions: GraphAction[];
  journeys?: GraphJourney[];
  /** Turns on whats_here's `routeTo` argument: the way from where the person is to a page (the result's `route`). */
  routeTo?: boolean;
}

/** Who made a fire. */
export type Principal = 'user' | 'agent' | 'system' | 'unknown';

/**
 * Runs one action for the app; its return value (or what its Promise resolves to) is the fire's
 * data, a throw or rejection refuses it. A fire outlives the call that made it, so the signal
 * aborts only if the module stops waiting for the handler, or dies.
 */
export type ActionHandler = (
  input: unknown,
  context: {
    action: string;
    source: Principal;
    transitionId: string;
    signal: AbortSignal;
    /** The key of the repeating area's card the fire is for; absent for an action outside one. */
    instance?: string;
  },
) => unknown | Promise<unknown>;

/** A once-only warning of the port (an ungated port, an unguarded high-effect fire). */
export interface PortWarning {
  code: string;
  message: string;
  action?: string;
}

/**
 * Options of {@link Runtime.createPort}: the seed's JourneyToolsOptions (confirmHighEffect,
 * journeyTools, source), the separator, the app session's options, and the MCP server's.
 */
export interface PortOptions {
  /** Require confirm:true before high-effect steps and actions. Default true. */
  confirmHighEffect?: boolean;
  /** How journeys are offered: one tool per journey (default) or one tool taking `journey`. */
  journeyTools?: 'per-journey' | 'single';
  /** Principal stamped on the port's fires. Default `agent`. */
  source?: Principal;
  /** Between graph, door and journey id in tool names. Default `.`; `__` for providers that reject dots. */
  separator?: string;
  /** Agent fires of high-effect actions need an ask a person approved. */
  requireHumanApproval?: boolean;
  /** The page the app starts on. Default: the first declared. */
  page?: string;
  /** The app's initial state. */
  state?: Record<string, unknown>;
  /** Action id → handler. An action without one is refused as NOT_MATERIALIZED. */
  handlers?: Record<string, ActionHandler>;
  /** Called once for each of the port's once-only warnings. */
  onWarn?: (warning: PortWarning) => void;
  /**
   * Called after changes of the app session (for approval cards and views), synchronously and
   * possibly nested inside the call that made the change; it may call the port. Versions may
   * skip when one call makes several changes.
   */
  onChange?: (change: { version: number }) => void;
  /** MCP server: the server name. Default: the graph id. */
  name?: string;
  /** MCP server: the server version. */
  version?: string;
  /**
   * How long a tools/call of the MCP server (and a call from a session whose kit is this port)
   * waits for a fire to settle, in whole milliseconds; 0 answers at once. Default 250.
   */
  settleWithinMs?: number;
  /**
   * How many offers (the `offerId`s of whats_here results) the port remembers for actions with
   * `freshness: 'cite'`; the oldest are forgotten first. A whole number above 0. Default 500.
   */
  offerLedgerSize?: number;
  /**
   * A port snapshot ({@link Port.snapshot}'s object, or its JSON text) taken over the same graph:
   * the port starts with its ask journal, so a card pending at the reload can still be approved or
   * declined, by the same caller's fire only; an approval used before stays used, a declined ask
   * stays declined, an approval past its expiry is expired. A refused one (another format, an
   * unknown version, not JSON, another graph, an ask whose action the graph lacks, oversize)
   * throws an Error with code `bad_snapshot`, and no port is made. The app's own data is not in
   * it: pass `state` and `page`.
   */
  restore?: PortSnapshot | string;
  /**
   * Makes a SERVER span for each message {@link Port.mcp} answers (`{method}`, `tools/call {tool}`),
   * continuing the trace of the message's `params._meta.traceparent` (a new root when it has none or
   * an invalid one). See {@link SessionOptions.tracer}.
   */
  tracer?: Tracer;
}

/** A port's ask journal as a document ({@link Port.snapshot}; `createPort`'s `restore`). */
export interface PortSnapshot {
  format: 'agentwasm.port';
  version: number;
  /** The digest of the graph's canonical JSON; a restore over another graph is refused. */
  graph: string;
  /** The port's own caller identity: the restored port's own calls may use the asks it raised. */
  caller?: string;
  asks: PortSnapshotAsk[];
}

/** One ask of a {@link PortSnapshot}. Times are Unix milliseconds. */
export interface PortSnapshotAsk {
  id: string;
  action: string;
  /** What the action's card shows. */
  does?: string;
  input?: unknown;
  instance?: string;
  state: 'pending' | 'approved' | 'declined' | 'revoked' | 'used';
  /** The conversation whose fire raised it; only its fires may use the approval. */
  caller?: string;
  askedBy: Principal;
  answeredBy?: string;
  createdAt: number;
  /** When an approved ask's approval lapses. */
  expiresAt?: number;
  declinedByPerson?: boolean;
  transition?: string;
}

/** One of the port's tools, as offered to a model. */
export interface PortTool {
  name: string;
  description: string;
  inputSchema: object;
  annotations: { readOnlyHint?: boolean; destructiveHint?: boolean; title?: string };
}

/** The closed set of judgments a port result carries. */
export type Judgment =
  | 'navigate-or-wait' | 'one-ready-step' | 'needs-choice' | 'done' | 'blocked' | 'error' | 'rejected'
  | 'needs-confirm' | 'declined' | 'still-pending' | 'awaiting-human' | 'approved-not-yet-done'
  | 'approval-no-longer-valid' | 'approval-withdrawn';

/**
 * A state condition as a result names it (the leaves of a guard, evaluated): `actual` is the state's
 * value then (absent when the key was missing), `negated` marks one under an odd number of `not`s.
 */
export interface PortCondition {
  key: string;
  op: string;
  value?: unknown;
  actual?: unknown;
  negated?: true;
}

/** What a high-effect step will do, on its needs-confirm result: the action's own words and declarations. */
export interface PortWillDo {
  /** The action's `does`: the sentence for the person's approval card. */
  does: string;
  /** The state keys it declares it writes. */
  writes?: string[];
  /** The page it declares it leads to (`goTo`). */
  navigatesTo?: string;
}

/** A step of the recent past, on a needs-confirm result: an action fired and where it stands. */
export interface PortRecentStep {
  step: string;
  effectStatus: 'pending' | 'performed' | 'refused';
}

/** The decorations a row of an action (or a ready step) may carry, from the graph's opt-in features. */
export interface PortRowDecorations {
  /** The action's cards' keys (a repeating area; the first 50). */
  instances?: string[];
  /** How many cards there are, when more than the 50 `instances` lists. */
  instancesTotal?: number;
  /** Where `instances` come from: the state key of `instancesFrom` (`selector`), or {@link Port.setInstances} (`mounted-window`). */
  enumeration?: 'selector' | 'mounted-window';
  /** The keys a `freshness` action reads that others changed since the port last fired it. */
  staleReads?: string[];
  /** The keys a `freshness` action writes that others changed since the port last fired it. */
  staleWrites?: string[];
  /** The offer a `freshness: 'cite'` action's fires cite (`offerId` in do_action's arguments). */
  offerId?: string;
  /** The busy label the page set ({@link Port.setBusy}). */
  busy?: string;
}

/** An action offered on the page, a row of whats_here's `actions`. */
export interface PortActionRow extends PortRowDecorations {
  action: string;
  does: string;
  /** The page it leads to. */
  goesTo?: string;
  /** A high-effect action: it answers needs-confirm first. */
  highEffect?: true;
  /** The JSON Schema of its input. */
  expects?: object;
  /** Offered but greyed out: `false`, with the conditions that fail. */
  enabled?: false;
  blockedBecause?: string[];
}

/** A journey step that can be done now, a row of a journey result's `readySteps`. */
export interface PortReadyStep extends PortRowDecorations {
  step: string;
  does: string;
  goesTo?: string;
  highEffect?: true;
  expects?: object;
}

/** A journey startable on this page (or the open one), a row of whats_here's `journeys`. */
export interface PortJourneyRow {
  journey: string;
  does: string;
  /** Its precondition holds and its first step is enabled (the open journey: its precondition holds). */
  feasible: boolean;
  standing: 'can-start' | 'open' | 'completed';
}

/** A journey step that cannot be done now, a row of `laterSteps`, with why. */
export interface PortLaterStep {
  step: string;
  status: 'in-flight' | 'waiting-for-first-step' | 'on-another-page' | 'not-offered' | 'disabled';
  /** With `on-another-page`: the page it is on. */
  on?: string;
  /** With `not-offered` and `disabled`: the conditions that fail. */
  blockedBecause?: string[];
}

/**
 * The fields a port result may carry, whatever its judgment. Each result is a JSON object with
 * some of them (and `youAreOn` and `version` last, on every result but those of the reasons
 * `PORT_CLOSED` and `INTERNAL_ERROR`); {@link PortResult} says which come with which judgment.
 * docs/PORT.md describes the features behind the fields.
 */
export interface PortResultBase {
  /** False for a refusal or an error (judgments `rejected`, `error`, `blocked`). */
  ok: boolean;
  judgment?: Judgment;
  /** The reason code of a refusal or an error (`TOOL_DISABLED`, `APPROVAL_REQUIRED`, `STALE_OFFER`, …). */
  reason?: string;
  /** Why, in a sentence for the model. */
  why?: string;
  /** Whether the step was performed (false on a pause or a refusal). */
  performed?: boolean;
  /** The action a fire did. */
  did?: string;
  /** What the action (or the journey) does, in its authored words. */
  does?: string;
  transitionId?: string;
  effectStatus?: 'pending' | 'performed' | 'refused';
  /** Whether the fire has settled (its handler answered). */
  settled?: boolean;
  /** A settled fire's outcome, in a sentence. */
  outcome?: string;
  /** Whether the action's `verify` guard held once it performed; `unevaluable` when it reads a key the state does not have. */
  verifyHeld?: boolean | 'unevaluable';
  /** The conditions of `verify` that failed. */
  verifyFailed?: PortCondition[];
  /** What the handler answered, once performed. */
  data?: unknown;
  /** Why the handler refused the fire; or the text of an argument error. */
  error?: string;
  /** How to learn a pending fire's outcome: call the `tool` (did_it_work) with the `arg`. */
  settleWith?: { tool: string; arg: 'transitionId' };
  askId?: string;
  /** The app's action the result is about. */
  action?: string;
  /** The card (instance key of a repeating area) the fire was for. */
  instance?: string;
  /** The journey step the result is about, and the journey. */
  step?: string;
  journey?: string;
  /** The journey's frame: `opened` by this call, still `open`, or `completed`. */
  frame?: 'open' | 'opened' | 'completed';
  /** The open journey this call cancelled by opening another. */
  cancelled?: string;
  willDo?: PortWillDo;
  /** The conditions that hold and let the step be offered and enabled. */
  because?: PortCondition[];
  /** What the approval binds: the input, and the card. */
  willUse?: { input?: unknown; instance?: string };
  recentSteps?: PortRecentStep[];
  /** A needs-confirm whose ask waits for the person (the app requires their approval). */
  awaitingHuman?: true;
  /** An approval that does not match the fire: what differs (`action`, `input`, `instance`). */
  differs?: string;
  /** The conditions that failed. */
  evidence?: PortCondition[];
  /** The failed conditions, as short text. */
  blockedBecause?: string[];
  /** The JSON Schema the input must match. */
  expects?: unknown;
  /** The input's schema errors. */
  errors?: { path: string; message: string }[];
  /** The same call may succeed later (a card still mounting). */
  retriable?: true;
  /** A `concurrency: 'once'` action refused: the fire that performed it. */
  priorTransitionId?: string;
  /** A `concurrency: 'single-flight'` action refused: the fire still pending. */
  pendingTransitionId?: string;
  /** For a refused stale offer: the keys that moved since it was made. */
  moved?: string[];
  /**
   * A refused fire of a repeating action that named no card or an unknown one: the cards' keys (the
   * rows of whats_here and a journey's ready steps carry theirs, {@link PortRowDecorations}).
   */
  instances?: string[];
  /** A refusal of an action the page marked busy: the label it set ({@link Port.setBusy}). */
  busy?: string;
  /** The way to the page whats_here's `routeTo` named (a graph with `routeTo: true`). */
  route?: {
    to: string;
    /** The actions to do, in order, and the page each leads to. */
    hops?: { action: string; to: string }[];
    means?: string;
    /** The person is there already. */
    alreadyHere?: boolean;
    /** Why there is no way. */
    why?: string;
  };
  /** A journey's steps that can be done now, those that cannot yet, and those done. */
  readySteps?: PortReadyStep[];
  laterSteps?: PortLaterStep[];
  doneSteps?: string[];
  /** whats_here: the recent fires and the caller's open asks. */
  facts?: {
    /** One fire or report: its transition, the action, who made it, where it stands, and a refusal's error. */
    fires: { transition: string; did: string; by: Principal; effectStatus: 'pending' | 'performed' | 'refused'; error?: string }[];
    asks?: { ask: string; action: string; state: PortAsk['state'] }[];
  };
  /** whats_here: where the person is and what happened. */
  brief?: { position: string; sinceVersion?: number; happened: string[]; note?: string };
  /**
   * whats_here: the actions offered here, and the journeys startable here (and the open one); an
   * error for a missing or unknown action or journey lists their names instead.
   */
  actions?: PortActionRow[] | string[];
  journeys?: PortJourneyRow[] | string[];
  /** whats_here: how many journeys are not listed (they start elsewhere), and where. */
  journeysElsewhere?: number;
  journeysElsewhereHint?: string;
  /** why: the state key asked about, its value, and the fires, reports and patches that touched it. */
  key?: string;
  value?: unknown;
  chain?: unknown[];
  /** An unknown transition: the fires still pending, and the caller's asks awaiting a person. */
  pending?: string[];
  asks?: { awaitingHuman: string[] };
  /** An unknown tool: the port's tools. */
  tools?: string[];
  /** An unknown step: the journey's steps, and the ones the name matched. */
  steps?: string[];
  candidates?: string[];
  /** An unknown page asked for with whats_here's `routeTo`: the name given, and the graph's pages. */
  routeTo?: string;
  pages?: string[];
  note?: string;
  /** The page the person is on, and the app session's version, after the call. */
  youAreOn?: string;
  version?: number;
  [key: string]: unknown;
}

/**
 * A high-effect step paused for a yes: nothing was done. `willDo.does` is the sentence for the
 * person's approval card. With `requireHumanApproval`, `awaitingHuman` is set and the person answers
 * `askId` in the page ({@link Session.resume}, {@link Port.approveAsk}).
 */
export interface NeedsConfirmResult extends PortResultBase {
  ok: true;
  judgment: 'needs-confirm';
  why: string;
  performed: false;
  askId: string;
  action: string;
  willDo: PortWillDo;
  because: PortCondition[];
  willUse: { input?: unknown; instance?: string };
  recentSteps: PortRecentStep[];
}

/** A fire the port or the app refused: `reason` says why (`TOOL_DISABLED`, `APPROVAL_DECLINED`, …); nothing was done. */
export interface RejectedResult extends PortResultBase {
  ok: false;
  judgment: 'rejected';
  reason: string;
  why: string;
  performed: false;
  action: string;
}

/**
 * A call that could not be served (`error`: an unknown tool, bad arguments, a closed port …) or a
 * journey whose precondition fails (`blocked`, with `evidence` and `blockedBecause`); nothing was done.
 */
export interface PortErrorResult extends PortResultBase {
  ok: false;
  judgment: 'error' | 'blocked';
  reason: string;
  why: string;
  /** `ACTION_REQUIRED`, `UNKNOWN_ACTION`: the actions offered here, by name. */
  actions?: string[];
  /** `JOURNEY_REQUIRED`, `UNKNOWN_JOURNEY`: the graph's journeys, by name. */
  journeys?: string[];
}

/**
 * Where an ask stands (did_it_work with its id), or a decline: nothing was performed. A decline
 * with no open ask to close has no `askId`.
 */
export interface AskStandingResult extends PortResultBase {
  ok: true;
  judgment: 'declined' | 'awaiting-human' | 'approved-not-yet-done' | 'approval-no-longer-valid' | 'approval-withdrawn';
  why: string;
  performed: false;
  action: string;
}

/**
 * A journey tool's answer: where the journey stands — one step ready, several, none here
 * (`navigate-or-wait`), or `done` — with `readySteps`, `laterSteps` and `doneSteps`; after a fire,
 * the fire's fields too (`did`, `transitionId`, `effectStatus` …).
 */
export interface JourneyResult extends PortResultBase {
  ok: true;
  judgment: 'navigate-or-wait' | 'one-ready-step' | 'needs-choice' | 'done';
  journey: string;
}

/** A fire that has not settled yet (did_it_work): not done yet. */
export interface StillPendingResult extends PortResultBase {
  ok: true;
  judgment: 'still-pending';
  settled: false;
  did: string;
  transitionId: string;
  effectStatus: 'pending';
  why: string;
}

/**
 * A result without a judgment: whats_here (`facts`, `brief`, `actions`, `journeys`, `route`), why
 * (`key`, `value`, `chain`), a fire of do_action (`did`, `transitionId`, `effectStatus`, and once
 * settled `outcome`, `data` or `error`), a settled fire (did_it_work).
 */
export interface PlainPortResult extends PortResultBase {
  ok: true;
  judgment?: undefined;
  actions?: PortActionRow[];
  journeys?: PortJourneyRow[];
}

/**
 * A port result: plain JSON, told apart by `judgment` (`r.judgment === 'needs-confirm'` narrows
 * `r` to a {@link NeedsConfirmResult}). docs/PORT.md describes the features behind the fields.
 */
export type PortResult =
  | NeedsConfirmResult | RejectedResult | PortErrorResult | AskStandingResult | JourneyResult
  | StillPendingResult | PlainPortResult;

/** An ask: a high-effect step the model wants, waiting for (or past) a person's answer. */
export interface PortAsk {
  askId: string;
  action: string;
  does?: string;
  input?: unknown;
  state: 'pending' | 'approved' | 'declined' | 'revoked' | 'used' | 'expired';
  /** Who asked: the port's source. */
  askedBy: Principal;
  /** Who answered, through a human-side door. */
  answeredBy?: string;
  /** When it was asked, in milliseconds since the epoch. */
  createdAtMs?: number;
  /** The fire that used the approval. */
  transitionId?: string;
  /** The instance (card key of a repeating area) the step is for. */
  instance?: string;
}

/** One fire's (or one report's) record. */
export interface PortTransition {
  transitionId: string;
  action: string;
  source: Principal;
  input?: unknown;
  effectStatus: 'pending' | 'performed' | 'refused';
  settled: boolean;
  data?: unknown;
  error?: string;
  askId?: string;
  /** The instance (card key of a repeating area) the fire was for. */
  instance?: string;
  /** Whether the action's `verify` guard held once the fire settled; `unevaluable` when a key it reads is missing. */
  verifyHeld?: boolean | 'unevaluable';
}

/**
 * A tool as {@link Port.registerWebMCP} hands it to WebMCP's `registerTool`: one of the port's tools,
 * and its execute.
 */
export interface WebMCPTool {
  name: string;
  description: string;
  inputSchema: object;
  annotations: PortTool['annotations'];
  /** Calls the port's tool; never throws (a failure is an `isError` result). */
  execute(args?: Record<string, unknown> | unknown[]): Promise<WebMCPCallToolResult>;
}

/**
 * What a registered tool's execute answers: an MCP CallToolResult, the port's result as JSON text and as
 * `structuredContent` (absent when the call failed: a closed port, a dead module). `isError` is set for
 * the reasons `UNKNOWN_TOOL`, `INTERNAL_ERROR` and `PORT_CLOSED`, as the port's MCP server sets it, and
 * when the call failed, whose message is the text.
 */
export interface WebMCPCallToolResult {
  content: { type: 'text'; text: string }[];
  structuredContent?: PortResult;
  isError?: true;
}

/**
 * The WebMCP API {@link Port.registerWebMCP} registers with: `document.modelContext` (WebMCP; what
 * `@mcp-b/webmcp-polyfill` installs), the older `navigator.modelContext`, or one the host gives.
 * `registerTool` may answer a Promise (WebMCP's: it rejects for a name registered already), a handle
 * with `unregister()`, or nothing; a registration is undone by aborting the signal it was given, the
 * handle's unregister(), or `unregisterTool(name)` where the API has it.
 */
export interface WebMCPModelContext {
  registerTool(tool: WebMCPTool, options?: { signal?: AbortSignal }): unknown;
  unregisterTool?(name: string): unknown;
}

/** What {@link Port.registerWebMCP} gives. */
export interface WebMCPRegistration {
  /** Whether the tools were registered: false when there is no WebMCP API. */
  readonly registered: boolean;
  /** Why they were not (no WebMCP API); absent when they were. */
  readonly reason?: string;
  /** The names registered, the port's tools in their order; empty when none were. */
  readonly tools: string[];
  /** Unregisters the tools; does nothing the second time, or when none were registered. */
  unregister(): void;
}

/** A serving port. */
export declare class Port {
  private constructor();
  /** The port's id inside the module. */
  readonly id: number;
  /** The tools, in their fixed order; byte-identical for the port's life. */
  tools(): PortTool[];
  /** Whether close() was called. */
  readonly closed: boolean;
  /**
   * Calls a tool; refusals and pauses resolve as results. Rejects only for misuse: `closed`, or
   * `bad_argument` for args that have no JSON form (a BigInt, a cycle) or a bad option.
   * `settleWithinMs` waits that long for a fire to settle and folds the settled facts into the
   * result, as a session whose kit is the port does (default 0: answer at once, pending).
   */
  call(name: string, args?: Record<string, unknown>, options?: { settleWithinMs?: number }): Promise<PortResult>;
  /** Answers one MCP JSON-RPC message; resolves with the response, or null for a notification. */
  mcp(message: object | string): Promise<object | null>;
  /** Where the app session stands. */
  state(): { page: string; version: number; state: Record<string, unknown> };
  /** The person moved to a page. */
  navigate(page: string, options?: { by?: Principal }): void;
  /** Patches state keys; null deletes a key. */
  patch(state: Record<string, unknown>, options?: { by?: Principal }): void;
  /** The person did an action in the page; returns its transition id. `instance` names the card of a repeating action. */
  report(action: string, options?: { input?: unknown; data?: unknown; instance?: string }): string;
  /**
   * The port's ask journal as a plain object, to keep and pass as `createPort`'s `restore` after a
   * reload (over the same graph). The app's own state is not in it.
   */
  snapshot(): PortSnapshot;
  /** The asks, for the page's approval cards. */
  asks(): PortAsk[];
  /** Human-side doors: the model cannot reach them. */
  approveAsk(askId: string, options?: { by?: string }): void;
  declineAsk(askId: string, options?: { by?: string }): void;
  revokeAsk(askId: string, options?: { by?: string }): void;
  alwaysApprove(action: string, options?: { by?: string; expiresInMs?: number }): void;
  /** One transition's record; an unknown id throws with code `refused`. */
  transition(id: string): PortTransition;
  /**
   * Says which cards of a repeating area (its path, `orders.list`) are mounted — for an area without
   * `instancesFrom`, which cards there are — by their keys; replaces what was said before. Throws
   * `bad_argument` unless `area` is a string and `keys` an array of strings, `refused` for an area
   * that does not repeat or an empty key.
   */
  setInstances(area: string, keys: readonly string[]): void;
  /**
   * Marks an action (its id), an area (its path) or a page busy with a label the model reads
   * (`Saving…`; the module keeps 200 bytes); null, undefined or '' clears it. Busy never gates: the
   * action's rows and refusals carry the label.
   */
  setBusy(id: string, label?: string | null): void;
  /**
   * Registers the port's tools with the page's WebMCP API (`options.modelContext`, else
   * `document.modelContext`, else `navigator.modelContext`): each tool's execute is
   * `call(name, args, {settleWithinMs})` (default 250) answered as an MCP CallToolResult. Nothing in
   * this path approves anything: a high-effect step answers needs-confirm, and only the page's human
   * doors answer its ask. Without an API it resolves `{registered: false, reason}` and registers
   * nothing. Rejects with code `webmcp_failed` when the API refuses a tool (a name registered already),
   * after undoing what this call registered; `bad_argument` for a bad option; `closed`. close() undoes
   * every live registration, and so does the module's death (its tools could answer nothing).
   */
  registerWebMCP(options?: { modelContext?: WebMCPModelContext | null; settleWithinMs?: number }): Promise<WebMCPRegistration>;
  /**
   * Ends the port: its methods throw with code `closed`, a session whose kit it is gets an error
   * result (PORT_CLOSED) for each call, onChange/onWarn hear nothing more, and its WebMCP
   * registrations are undone. Fires already running are not cancelled: they settle when their
   * handlers answer. On a dead runtime it only marks the port closed (and undoes the registrations).
   */
  close(): void;
}

/**
 * One loaded module instance. When it dies, every call of the runtime and of its sessions and
 * ports — pending or later — fails with code `module_exited`; other runtimes are untouched.
 */
export declare class Runtime {
  private constructor();
  /**
   * Whether the module instance is dead: it trapped (under TinyGo, a Go panic), or its Go program
   * exited (under Go, an unrecovered panic). Every call then throws or rejects with code `module_exited`.
   */
  readonly exited: boolean;
  /**
   * Loads a fresh runtime with the options this one was loaded with. This runtime is left as it
   * is: when dead, its sessions and ports stay dead (make new ones on the fresh runtime).
   */
  restart(): Promise<Runtime>;
  /**
   * The module's version: `goVersion` is the compiler that built it, the Go release (`go1.26.8`)
   * or TinyGo's (`tinygo0.41.0`); `serve` is whether the build has the serving port
   * ({@link Runtime.createPort}): false in the session-only build.
   */
  version(): { version: string; abi: number; goVersion: string; serve: boolean };
  /** Creates an agent session. Throws an {@link AgentwasmError} for bad options. */
  createSession(options?: SessionOptions): Session;
  /**
   * Builds a serving port over an app's graph (an object, or its JSON text). Throws an
   * {@link AgentwasmError} with code `bad_options` for a bad graph or option; the message names
   * the offending id. In a session-only build (`load({variant: 'session'})` or `'tiny-session'`) it throws code
   * `port_unavailable`.
   */
  createPort(graph: Graph | string, options?: PortOptions): Port;
}

/** One agent conversation. */
export declare class Session {
  private constructor();
  /** The session's id inside the module. */
  readonly id: number;
  /**
   * Sends the person's message and resolves with the turn record, whose `status` says how it
   * ended. Rejects only for misuse (codes `bad_argument`, `closed`), or with `module_exited` when the
   * module dies.
   */
  chat(text: string, options?: { signal?: AbortSignal; toolChoice?: ToolChoice }): Promise<Turn>;
  /**
   * chat() as an async iterable of the turn's events, ending with the turn (`.turn`, and the iterator's
   * final value). Breaking out of a `for await` aborts the turn. Misuse rejects `.turn` and the first
   * `next()` with the codes of chat().
   */
  stream(text: string, options?: { signal?: AbortSignal; toolChoice?: ToolChoice }): TurnStream;
  /**
   * Answers the asks a turn stopped on (`turn.pendingApprovals`) by id — through the Port kit's human doors,
   * never a tool the model can call — and goes on with the turn with no new message from the person (the
   * session tells the model what was answered); resolves with the turn record as chat() does. The module's
   * refusals are turns with status `error` and an errorCode (`bad_resolution`, `unknown_ask`,
   * `no_approval_doors`, `ask_refused`, `port_closed`, `busy`); rejects only for misuse (`bad_argument`, `closed`), or
   * with `module_exited` when the module dies.
   */
  resume(resolution: { approve?: readonly string[]; decline?: readonly string[] }, options?: { signal?: AbortSignal }): Promise<Turn>;
  /**
   * Clears the history; the capabilities cache is kept. While a chat, stream or resume runs it changes
   * nothing and throws with code `busy`: abort the turn (its signal) or wait for it to settle, then reset.
   */
  reset(): void;
  /** A copy of the conversation history. */
  messages(): Message[];
  /** The tools the next turn will advertise. */
  tools(): ToolDefinition[];
  /** The last published tool discovery report. */
  toolDiscovery(): ToolDiscoveryReport;
  /** Drops the cached catalog and runs a new discovery pass. */
  refreshTools(options?: { signal?: AbortSignal }): Promise<ToolDiscoveryReport>;
  /** Ends the MCP session; only runtime tools are advertised until the next discovery. */
  reconnect(): Promise<void>;
  /** The bound composition draft, or null. */
  draft(): DraftBinding | null;
  /**
   * The session's state as a plain object, at once (it never waits), for {@link SessionOptions.restore}
   * in this or another runtime, after a reload. Taken while a turn runs, it holds the state at that
   * turn's start and sets `interrupted`. It holds no option, function or credential.
   */
  snapshot(): SessionSnapshot;
  /** Binds the composition draft that composition tools mutate; null unbinds. */
  attachDraft(draft: DraftBinding | null): void;
  /**
   * Ends the session; later calls reject with code `closed`. A turn still running (chat, stream or resume)
   * is cancelled: its model request and its tools' signals are aborted, and it settles with status
   * `cancelled`. On a dead runtime it only marks the session closed.
   */
  close(): void;
}
