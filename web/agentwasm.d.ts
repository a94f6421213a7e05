// Type declarations for agentwasm.mjs, the loader of the agentwasm
// WebAssembly module (GOOS=js build).

/** An Error with a stable machine-readable code. */
export interface AgentwasmError extends Error {
  /**
   * `load_failed`, `module_exited`, `bad_options`, `unsupported_option`,
   * `bad_argument`, `closed`, `bad_command`, `unknown_session`, `internal`.
   */
  code: string;
}

/** Options of {@link load}. */
export interface LoadOptions {
  /**
   * The module: a URL (string or URL, relative to the loader), its bytes, or
   * a compiled WebAssembly.Module. Default: `./agentwasm.wasm` beside the loader.
   */
  wasm?: string | URL | ArrayBuffer | ArrayBufferView | WebAssembly.Module;
  /** Go's wasm_exec.js for the Go release that built the module. Default: `./wasm_exec.js` beside the loader. */
  wasmExec?: string | URL;
  /** Enables the module's debug.* commands. For tests only. */
  testHooks?: boolean;
}

/** Loads and starts one module instance; each call gives an independent runtime. */
export function load(options?: LoadOptions): Promise<Runtime>;

/** Which tool the model should call. */
export interface ToolChoice {
  mode: 'auto' | 'none' | 'required' | 'specific';
  /** With mode `specific`: the tool to call. */
  toolName?: string;
}

/** Options of {@link Runtime.createSession}. Unknown names are rejected with code `bad_options`. */
export interface SessionOptions {
  /** Base of the Studio API; chat goes to `${baseUrl}/v1/studio/ai/chat`. Default `/api`. */
  baseUrl?: string;
  provider?: string;
  model?: string;
  maxTokens?: number;
  temperature?: number;
  toolChoice?: ToolChoice;
  /** The system prompt. */
  system?: string;
  /**
   * The fetch function. Called as a plain function `fetchImpl(url, init)`; may return a Response or a
   * Promise of one, throw or reject. Default: `globalThis.fetch`, called with `globalThis` as receiver.
   */
  fetchImpl?: (input: string, init: RequestInit) => Response | Promise<Response>;
  /** Observes every event. Whatever it throws or rejects with is ignored and never breaks a turn. */
  onEvent?: (event: SessionEvent) => void | Promise<void>;
  /** Bound on one server-sent event frame, in bytes. Default 4 MiB. */
  maxFrameBytes?: number;
}

/** One event of the chat stream. Only the fields of its type are present. */
export interface StreamEvent {
  type: 'messageStart' | 'textDelta' | 'toolCallStart' | 'toolCallDelta' | 'toolCallStop' | 'messageStop' | 'error';
  model?: string;
  text?: string;
  toolCallId?: string;
  toolName?: string;
  toolArgumentsDelta?: string;
  toolArguments?: unknown;
  stopReason?: 'endTurn' | 'toolCall' | 'maxTokens' | 'contentFilter' | 'cancelled' | 'error';
  promptTokens?: number;
  completionTokens?: number;
  latencyMs?: number;
  errorMessage?: string;
  errorCode?: string;
}

/** What `onEvent` observes. */
export interface SessionEvent {
  type: 'chat';
  event: StreamEvent;
}

/** The record of one tool dispatch. */
export interface DispatchRecord {
  toolCallId: string;
  toolName: string;
  plane: 'runtime' | 'composition' | 'unknown';
  ok: boolean;
  errorCode?: string;
  errorMessage?: string;
  content: string;
  draft?: unknown;
  retriedAfterConflict?: boolean;
}

/** The record of one chat() call. */
export interface Turn {
  status: 'completed' | 'cancelled' | 'error' | 'refused';
  /** The text of every round, joined. */
  text: string;
  toolCalls: DispatchRecord[];
  /** Every streamed event, synthetic ones too, in order. */
  events: StreamEvent[];
  stopReason?: string;
  errorMessage?: string;
  /** A stable code for some errors, e.g. `busy`. */
  errorCode?: string;
  /** Model requests made. */
  rounds: number;
}

/** One loaded module instance. */
export declare class Runtime {
  private constructor();
  /** The module's version. */
  version(): { version: string; abi: number; goVersion: string };
  /** Creates an agent session. Throws an {@link AgentwasmError} for bad options. */
  createSession(options?: SessionOptions): Session;
}

/** One agent conversation. */
export declare class Session {
  private constructor();
  /** The session's id inside the module. */
  readonly id: number;
  /**
   * Sends the person's message and resolves with the turn record, whose `status` says how it
   * ended. Rejects only for misuse (codes `bad_argument`, `closed`).
   */
  chat(text: string, options?: { signal?: AbortSignal }): Promise<Turn>;
  /** Ends the session; later chats reject with code `closed`. */
  close(): void;
}
