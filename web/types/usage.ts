// Type test for agentwasm.d.ts: `npm run typecheck` (part of `make test`)
// compiles this file. Each @ts-expect-error line must be an error, so the
// declarations are checked in both directions: what the loader accepts
// compiles, and what it rejects does not.
import {
  load, type SessionOptions, type Turn, type SessionEvent, type Kit, type ChatTransport,
  type Graph, type Guard, type Judgment, type Port, type PortOptions, type PortResult, type PortWarning,
  type SessionTool, type Step, type PendingApproval, type TurnStream, type ToolReturn, type Usage, type StreamEvent,
  type AgentwasmError, type LoadOptions, type Runtime, type Variant,
  type WebMCPModelContext, type WebMCPRegistration, type WebMCPCallToolResult, type PortTransition, type PortAsk, type PortSnapshot,
  type PortActionRow, type DirectModel, type ApiKeySource, type SessionSnapshot,
} from '../agentwasm.mjs';

export async function usage(signal: AbortSignal): Promise<string> {
  const runtime = await load({ wasm: new URL('./agentwasm.wasm', import.meta.url) });
  const version: number = runtime.version().abi;

  // Either build, and what happens when the module dies.
  const variant: Variant = 'tiny';
  const loadOptions: LoadOptions = {
    variant,
    testHooks: false,
    onExit: (error: AgentwasmError) => console.log(error.code, error.message),
  };
  const tiny: Runtime = await load(loadOptions);
  await load({ variant: 'go', wasmExec: './wasm_exec.js', onExit: async () => {} });
  await load({ variant: 'tiny', wasm: new Uint8Array(8), wasmExec: new URL('./wasm_exec.tiny.js', import.meta.url) });
  const sessionOnly: Runtime = await load({ variant: 'session', gcPercent: 100 });
  const serves: boolean = sessionOnly.version().serve;
  void serves;
  const tinySessionOnly: Runtime = await load({ variant: 'tiny-session' });
  void tinySessionOnly;
  const dead: boolean = tiny.exited;
  const fresh: Runtime = dead ? await tiny.restart() : tiny;
  void fresh;
  // @ts-expect-error the builds are go, tiny, session and tiny-session
  await load({ variant: 'wasm' });
  // @ts-expect-error gcPercent is a number
  await load({ gcPercent: '400' });
  // @ts-expect-error onExit is a function
  await load({ onExit: true });
  // @ts-expect-error an unknown load option is rejected
  await load({ wasmURL: './agentwasm.wasm' });
  // @ts-expect-error exited is read-only
  tiny.exited = false;

  const kit: Kit = {
    tools: [{ name: 'zoom', inputSchema: { type: 'object' } }, { name: 'pan', parameters: {} }],
    execute(call) {
      const level = call.args.level;
      return level === undefined ? { status: 'denied', deniedReason: 'no level' } : { status: 'ok', data: level };
    },
    systemPrompt: async () => 'live map context',
  };
  const transport: ChatTransport = {
    async *stream(request, { signal: s }) {
      if (!s.aborted && request.messages.length > 0) yield { type: 'textDelta', text: 'hi' };
    },
  };
  const options: SessionOptions = {
    baseUrl: '/api',
    auth: { getAccessToken: async ({ forceRefresh }) => (forceRefresh ? 'new' : 'old') },
    kit,
    tools: [{ name: 'setFilter', description: 'Filter', inputSchema: { type: 'object' } }],
    execute: async (call, { signal: s }) => ({ status: s.aborted ? 'error' : 'dry-run' }),
    system: () => Promise.resolve('prompt'),
    onEvent: (e: SessionEvent) => {
      if (e.type === 'chat') console.log(e.event.type);
      else if (e.type === 'toolResult') console.log(e.result.ok);
      else if (e.type === 'toolDiscovery') console.log(e.report.routed.length);
      else if (e.type === 'stepFinish') console.log(e.step.round);
      else console.log(e.status, e.detail);
    },
    maxToolRounds: 4,
    toolChoice: { mode: 'specific', toolName: 'zoom' },
    studioTools: { families: ['honua.studio.composition'], approve: () => true },
    toolListChangedWatch: { maxReconnectAttempts: 2, onStatus: (status) => console.log(status) },
    draft: { draftId: 'd1', generation: 3 },
    transport,
    fetchImpl: (url, init) => fetch(url, init),
  };
  const session = runtime.createSession(options);
  runtime.createSession({ auth: () => null, system: 'plain' });
  runtime.createSession({ maxRequestBytes: 1 << 20, maxToolResultBytes: 256 << 10 });
  const turn: Turn = await session.chat('hello', { signal, toolChoice: { mode: 'none' } });
  session.reset();
  const report = await session.refreshTools({ signal });
  session.attachDraft({ draftId: 'd2', generation: 1 });
  const generation = session.draft()?.generation ?? 0;
  await session.reconnect();
  // @ts-expect-error a draft needs a generation
  session.attachDraft({ draftId: 'd3' });
  const roles = session.messages().map((m) => m.role);
  const names = session.tools().map((t) => t.name);
  session.close();

  // A model at an OpenAI-compatible endpoint, straight from the page: a fixed key, one read per request, or none.
  const local: DirectModel = { baseUrl: 'http://127.0.0.1:11434/v1', name: 'llama3.2' };
  runtime.createSession({ model: local, disableToolDiscovery: true });
  runtime.createSession({ model: { baseUrl: '/openai/v1', name: 'gpt-4o-mini', apiKey: 'sk-user' } });
  const readKey: ApiKeySource = async ({ forceRefresh }) => (forceRefresh ? sessionStorage.getItem('key') : 'cached');
  const byok = runtime.createSession({ model: { baseUrl: 'https://api.example.test/v1', name: 'm', getApiKey: readKey } });
  const direct: Turn = await byok.chat('hi');
  if (direct.errorCode === 'upstream_cors' || direct.errorCode === 'upstream_unauthorized') console.log(direct.errorMessage);
  byok.close();
  // @ts-expect-error an endpoint needs the model's name
  runtime.createSession({ model: { baseUrl: 'http://127.0.0.1:8080' } });
  // @ts-expect-error the key is a string
  runtime.createSession({ model: { baseUrl: 'http://127.0.0.1:8080', name: 'm', apiKey: 42 } });
  // @ts-expect-error getApiKey is a function
  runtime.createSession({ model: { baseUrl: 'http://127.0.0.1:8080', name: 'm', getApiKey: 'sk' } });

  // @ts-expect-error an unknown option is rejected
  runtime.createSession({ modle: 'x' });
  // @ts-expect-error system is a string or a function
  runtime.createSession({ system: 42 });
  // @ts-expect-error a tool result needs a known status
  runtime.createSession({ execute: () => ({ status: 'fine' }) });
  // @ts-expect-error chat takes a string
  await session.chat(42);
  // @ts-expect-error toolChoice modes are closed
  await session.chat('x', { toolChoice: { mode: 'sometimes' } });

  // Tools with their own execute; any JSON value, or a ToolResult, comes back.
  interface Order { id: string; total: number }
  const order: Order = { id: 'o-1', total: 3 };
  const tools: SessionTool[] = [
    { name: 'getOrder', inputSchema: { type: 'object' }, execute: async (args, { signal: s, toolCallId }) => (s.aborted ? null : { ...order, by: toolCallId, id: String(args.id) }) },
    { name: 'count', execute: () => 42 },
    { name: 'list', execute: () => [order] },
    { name: 'noop', execute: () => {} },
    { name: 'deny', execute: () => ({ status: 'denied', deniedReason: 'not now' }) },
    { name: 'when', execute: () => new Date() },
    { name: 'shared' },
  ];
  const plain: ToolReturn = order;
  const agentTools = runtime.createSession({
    tools,
    execute: ({ name }) => (name === 'shared' ? 'a string' : undefined),
    kit: { tools: [{ name: 'kitTool', execute: () => ({ status: 'ok', data: 1 }) }] },
    mcpUrl: 'https://studio.example/mcp',
    onStepFinish: (step: Step) => {
      const usage: Usage | undefined = step.usage;
      console.log(step.round, step.text, step.toolCalls.map((c) => c.ok), step.stopReason, usage?.inputTokens, usage?.outputTokens);
    },
    onEvent: (e) => { if (e.type === 'stepFinish') console.log(e.step.round); },
  });
  // @ts-expect-error a tool's execute is a function
  runtime.createSession({ tools: [{ name: 'x', execute: 'run' }] });
  // @ts-expect-error an object with a status of its own is read as a result: its status must be known
  runtime.createSession({ tools: [{ name: 'x', execute: () => ({ status: 'shipped' }) }] });
  // @ts-expect-error a BigInt has no JSON form
  runtime.createSession({ tools: [{ name: 'x', execute: () => 1n }] });
  // @ts-expect-error a tool's execute gets the arguments, whose fields are unknown
  runtime.createSession({ tools: [{ name: 'x', execute: (args: { id: number }) => args.id }] });
  // @ts-expect-error mcpUrl is a string
  runtime.createSession({ mcpUrl: new URL('https://studio.example/mcp') });
  // @ts-expect-error onStepFinish is a function
  runtime.createSession({ onStepFinish: true });

  // A snapshot survives a reload: stored as JSON text, restored as text or as the object.
  const snapshot: SessionSnapshot = agentTools.snapshot();
  const stored: string = JSON.stringify(snapshot);
  const again = runtime.createSession({ tools: [{ name: 'x' }], restore: stored });
  runtime.createSession({ restore: JSON.parse(stored) as SessionSnapshot });
  const retry: string | undefined = again.snapshot().interrupted?.text;
  const asks: PendingApproval[] = snapshot.pending ?? [];
  const spent: number = (snapshot.usage?.inputTokens ?? 0) + snapshot.history.length + asks.length + (retry?.length ?? 0);
  // @ts-expect-error restore takes a snapshot or its JSON text
  runtime.createSession({ restore: 42 });
  // @ts-expect-error a snapshot is agentwasm.session's
  runtime.createSession({ restore: { format: 'agentwasm.port', version: 1, history: [] } });

  // Streaming a turn: the events, then the turn.
  const stream: TurnStream = agentTools.stream('hello', { signal, toolChoice: { mode: 'auto' } });
  for await (const e of stream) {
    if (e.type === 'chat' && e.event.type === 'textDelta') {
      const piece: string = e.event.text; // narrowed: a text delta always has its text
      console.log(piece);
    } else if (e.type === 'chat' && e.event.type === 'messageStop') {
      const tokens: number | undefined = e.event.completionTokens;
      console.log(e.event.stopReason, tokens);
    } else if (e.type === 'chat') {
      // @ts-expect-error only a text delta has a text
      console.log(e.event.text);
    } else if (e.type === 'stepFinish') console.log(e.step.toolCalls.length);
  }
  // @ts-expect-error a text delta needs its text
  const noText: StreamEvent = { type: 'textDelta' };
  void noText;
  const streamed: Turn = await stream.turn;
  const it = agentTools.stream('again')[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done) console.log(first.value?.status);
  else console.log(first.value.type);
  await it.return();
  // @ts-expect-error stream takes a string
  agentTools.stream(42);

  // Approvals: a turn that stopped on asks, resumed.
  const pending: PendingApproval[] = streamed.pendingApprovals ?? [];
  // The card's sentence and what the approval binds, typed: the detail is the port's needs-confirm result.
  const cardText: string | undefined = pending[0]?.detail.willDo.does;
  const waits: true | undefined = pending[0]?.detail.awaitingHuman;
  const binds: string | undefined = pending[0]?.detail.willUse.instance;
  console.log(cardText, waits, binds, pending[0]?.detail.willDo.navigatesTo, pending[0]?.detail.because.map((c) => c.key));
  const resumed: Turn = await agentTools.resume({ approve: pending.map((p) => p.askId), decline: [] }, { signal });
  await agentTools.resume({ decline: ['ask#2'] });
  console.log(resumed.usage?.outputTokens, pending.map((p) => `${p.toolCallId} ${p.toolName} ${p.action} ${p.detail}`).join(), String(plain));
  // @ts-expect-error ask ids are strings
  await agentTools.resume({ approve: [1] });
  // @ts-expect-error resume takes approve and decline
  await agentTools.resume({ accept: ['ask#1'] });

  const graph: Graph = {
    id: 'shop',
    pages: [{ id: 'cart', areas: [{ id: 'summary' }] }, { id: 'checkout' }],
    actions: [
      { id: 'cart.checkout', does: 'Go to checkout', on: 'cart', goTo: 'checkout', enabledWhen: { key: 'cart.items', op: 'nonEmpty' } },
      { id: 'checkout.pay', does: 'Pay', on: 'checkout', confirm: true, input: 'none', when: { all: [{ key: 'total', op: 'gt', value: 0 }] } },
    ],
    journeys: [{ id: 'buy', does: 'Buy the cart', steps: ['cart.checkout', 'checkout.pay'] }],
  };
  const portOptions: PortOptions = {
    journeyTools: 'single',
    requireHumanApproval: true,
    handlers: { 'checkout.pay': async (input, { transitionId, signal }) => ({ input, transitionId, aborted: signal.aborted }) },
    onWarn: (w: PortWarning) => w.code,
    onChange: ({ version: v }) => v.toFixed(0),
  };
  const port: Port = runtime.createPort(graph, portOptions);
  const result: PortResult = await port.call('shop.whats_here', { sinceVersion: 0 });
  const settled: PortResult = await port.call('shop.do_action', { action: 'cart.checkout' }, { settleWithinMs: 250 });
  void settled;
  // @ts-expect-error settleWithinMs is a number of milliseconds
  await port.call('shop.whats_here', {}, { settleWithinMs: '250' });
  const judgment: Judgment | undefined = result.judgment;
  // The judgment tells the shapes apart.
  if (result.judgment === 'needs-confirm') {
    const does: string = result.willDo.does;
    const askId: string = result.askId;
    console.log(does, askId, result.recentSteps.map((r) => r.effectStatus));
  } else if (result.judgment === 'rejected') {
    const reason: string = result.reason;
    const ok: false = result.ok;
    console.log(reason, ok);
  } else if (result.judgment === 'one-ready-step') {
    console.log(result.journey, result.readySteps?.map((s) => s.step), result.laterSteps?.map((s) => s.status));
  } else if (result.judgment === undefined) {
    console.log(result.actions?.map((a) => `${a.action} ${a.highEffect ?? false}`), result.brief?.happened);
    // @ts-expect-error a result without a judgment has no willDo to read through
    console.log(result.willDo.does);
  }
  port.approveAsk('ask#1', { by: 'ana' });
  port.alwaysApprove('checkout.pay', { expiresInMs: 60_000 });
  const cards = port.asks().map((a) => a.askId);
  const kept: PortSnapshot = port.snapshot();
  const pendingCards: string[] = kept.asks.filter((a) => a.state === 'pending').map((a) => a.id);
  runtime.createPort(graph, { requireHumanApproval: true, restore: kept }).close();
  runtime.createPort(graph, { restore: JSON.stringify(kept) }).close();
  // @ts-expect-error restore is a snapshot object or its JSON text
  runtime.createPort(graph, { restore: 1 });
  void pendingCards;
  const agent = runtime.createSession({ kit: port });
  agent.close();
  port.close();
  // @ts-expect-error journeyTools modes are closed
  runtime.createPort(graph, { journeyTools: 'many' });
  // @ts-expect-error a guard needs an op
  const badGuard: Guard = { key: 'x' };
  // @ts-expect-error source is a principal
  runtime.createPort(graph, { source: 'robot' });
  // @ts-expect-error gt compares numbers
  const badGt: Guard = { key: 'total', op: 'gt', value: 'x' };
  // @ts-expect-error in takes a list
  const badIn: Guard = { key: 'role', op: 'in', value: 3 };
  const status: 'pending' | 'performed' | 'refused' = port.transition('x#1').effectStatus;

  // The second version of the graph: repeating areas, verify, concurrency, freshness, routes.
  const orders: Graph = {
    id: 'orders',
    routeTo: true,
    pages: [{ id: 'orders', areas: [{ id: 'list', repeats: true, instancesFrom: 'orders.ids' }] }],
    actions: [{
      id: 'orders.list.cancel', does: 'Cancel the order', on: 'orders', confirm: true, input: 'none',
      verify: { key: 'orders.cancelled', op: 'truthy' }, concurrency: 'single-flight', freshness: 'cite',
    }, { id: 'orders.list.open', does: 'Open the order', on: 'orders', freshness: 'track', concurrency: 'once' }],
  };
  // @ts-expect-error freshness is track or cite
  const badFreshness: Graph = { ...orders, actions: [{ id: 'a.b', does: 'x', on: 'a', freshness: 'always' }] };
  void badFreshness;
  const ordersPort = runtime.createPort(orders, {
    offerLedgerSize: 100,
    handlers: { 'orders.list.cancel': (_input, { instance }) => ({ cancelled: instance ?? null }) },
  });
  ordersPort.setInstances('orders.list', ['o-1', 'o-2']);
  ordersPort.setBusy('orders.list.cancel', 'Saving…');
  ordersPort.setBusy('orders.list.cancel', null);
  ordersPort.setBusy('orders.list');
  const listed: PortResult = await ordersPort.call('orders.whats_here', { routeTo: 'orders' });
  const keys: string[] = listed.instances ?? [];
  // A whats_here row carries its action's cards, freshness and offer; an error lists names only.
  const row: PortActionRow | undefined = listed.judgment === undefined ? listed.actions?.[0] : undefined;
  const how: 'selector' | 'mounted-window' | undefined = row?.enumeration;
  if (listed.judgment === 'error') {
    const names: string[] | undefined = listed.actions;
    console.log(names, listed.journeys?.join(), listed.pages);
  }
  // @ts-expect-error the rows' decorations are not on the result itself
  const notTop: string = listed.offerId;
  void notTop;
  const hops = listed.route?.hops?.map((h) => `${h.action}→${h.to}`) ?? [];
  const held: boolean | 'unevaluable' | undefined = listed.verifyHeld;
  const record: PortTransition = ordersPort.transition('orders.list.cancel#1');
  const ask: PortAsk | undefined = ordersPort.asks()[0];
  console.log(keys, how, hops, held, listed.busy, row?.offerId, row?.staleReads, row?.instancesTotal, listed.pendingTransitionId, record.instance, record.verifyHeld, ask?.instance);
  // @ts-expect-error instance keys are strings
  ordersPort.setInstances('orders.list', [1, 2]);
  // @ts-expect-error a busy label is a string
  ordersPort.setBusy('orders.list.cancel', true);
  // @ts-expect-error concurrency is once or single-flight
  const badConcurrency: Graph = { ...orders, actions: [{ id: 'a.b', does: 'x', on: 'a', concurrency: 'many' }] };
  // @ts-expect-error offerLedgerSize is a number
  runtime.createPort(orders, { offerLedgerSize: '500' });

  // WebMCP: the port's tools registered with the page's document.modelContext (or one given).
  const registration: WebMCPRegistration = await ordersPort.registerWebMCP({ settleWithinMs: 500 });
  if (!registration.registered) console.log(registration.reason);
  const registered: string[] = registration.tools;
  registration.unregister();
  const executed: WebMCPCallToolResult[] = [];
  const fake: WebMCPModelContext = {
    async registerTool(tool, { signal } = {}) {
      executed.push(await tool.execute({ action: 'orders.list.cancel' }));
      signal?.addEventListener('abort', () => {});
    },
  };
  const handleStyle: WebMCPModelContext = {
    registerTool: (tool) => ({ unregister: () => console.log(tool.name, tool.annotations.readOnlyHint) }),
    unregisterTool: (name) => console.log(name),
  };
  await ordersPort.registerWebMCP({ modelContext: fake });
  await ordersPort.registerWebMCP({ modelContext: handleStyle });
  await ordersPort.registerWebMCP({ modelContext: null });
  console.log(registered, executed.map((r) => `${r.isError} ${r.content[0]?.text} ${r.structuredContent?.judgment}`));
  // @ts-expect-error settleWithinMs is a number of milliseconds
  await ordersPort.registerWebMCP({ settleWithinMs: 'soon' });
  // @ts-expect-error a WebMCP API has registerTool
  await ordersPort.registerWebMCP({ modelContext: {} });
  // @ts-expect-error a registration's tools are read-only
  registration.registered = false;
  void badConcurrency;

  return `${status} ${String(badGt)} ${String(badIn)} ${judgment} ${cards.join()} ${String(badGuard)} ${report.discovered} ${spent} ${generation} ${version} ${turn.status} ${turn.text} ${roles.join()} ${names.join()} ${turn.toolCalls.map((r) => r.plane).join()}`;
}
