// The agentwasm stack of the peer benchmark: the js module loaded by dist/agentwasm.mjs (the
// build env.variant names), one session on the job's OpenAI-compatible endpoint through the
// direct transport, one page tool with its own execute, and the job's MCP server through the
// module's own MCP client (mcpUrl; its tool allowlisted, since the session routes only
// classified MCP tools by default). Its tools are discovered once, at the first turn; each turn
// starts from an empty history (reset), as the other stacks' turns do.
import { load } from '../../../dist/agentwasm.mjs';

/**
 * Starts the stack on the job's endpoints (env: fetch, chatUrl, mcpUrl, model, localTool,
 * variant) and gives `turn(text)`, which resolves with the answer's text, and `close()`.
 */
export async function start(env) {
  const runtime = await load({ variant: env.variant });
  const session = runtime.createSession({
    model: { baseUrl: env.chatUrl, name: env.model },
    mcpUrl: env.mcpUrl,
    fetchImpl: env.fetch,
    tools: [env.localTool],
    studioTools: { allowlist: [env.mcpToolName] },
  });
  return {
    async turn(text) {
      session.reset();
      const turn = await session.chat(text);
      if (turn.status !== 'completed') throw new Error(`agentwasm: the turn ended ${turn.status}: ${turn.errorCode ?? ''} ${turn.errorMessage ?? ''}`);
      return turn.text;
    },
    close: () => session.close(),
  };
}
