// The free names of the documentation's snippets (snippets.test.mjs compiles each snippet
// with this file): the app's own things a snippet uses without defining them, declared
// once, here, with the types an app would plausibly give them. A snippet that defines a
// name of its own (`const graph = …`) shadows the one here.

/** The loader's load(), for snippets that go on from one that imported it. */
declare const load: typeof import('../agentwasm.mjs').load;
/** The loaded module, for snippets that start after `const runtime = await load()`. */
declare const runtime: import('../agentwasm.mjs').Runtime;
/** A session whose kit is a port. */
declare const agent: import('../agentwasm.mjs').Session;
/** The options a snippet's session was made with. */
declare const options: import('../agentwasm.mjs').SessionOptions;
/** The app's graph. */
declare const graph: import('../agentwasm.mjs').Graph;
/** A signal that cancels the turn (an AbortController's). */
declare const signal: AbortSignal;

/** The app's token store: the bearer token for the Studio AI proxy. */
declare const tokens: { get(forceRefresh: boolean): Promise<string | null> };
/** The app's map. */
declare const map: {
  filter(layer: unknown, options: { signal: AbortSignal }): Promise<{ visible: number }>;
  describe(): string;
};
/** The app's shop. */
declare const shop: { pay(input: unknown): Promise<{ paid: boolean }> };
/** The app's orders. */
declare const orders: { cancel(id: string | undefined): Promise<{ cancelled: boolean }> };
/** A port's action handler of the app's. */
declare const pay: import('../agentwasm.mjs').ActionHandler;

/** Shows streamed text, or a finished turn, in the page. */
declare function render(text: string): void;
declare function render(turn: import('../agentwasm.mjs').Turn): void;
/** Re-renders the shop from the port's state. */
declare function renderShop(state: ReturnType<import('../agentwasm.mjs').Port['state']>): void;
/** Shows an approval card with what the step will do; resolves with the person's answer. */
declare function approvalCard(does: string): Promise<boolean>;
