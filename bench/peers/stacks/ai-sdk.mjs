// The Vercel AI SDK stack of the peer benchmark: `streamText` with an OpenAI-compatible provider,
// one local tool made with `tool()`, and the MCP server's tools through an `@ai-sdk/mcp` client,
// listed once at start. This file is the stack's entry: run.mjs bundles it for its size.
import { jsonSchema, streamText, tool } from 'ai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createMCPClient } from '@ai-sdk/mcp';

/**
 * Starts the stack on the job's endpoints (env: fetch, chatUrl, mcpUrl, model, localTool) and
 * gives `turn(text)`, which resolves with the answer's streamed text, and `close()`.
 */
export async function start(env) {
  const mcp = await createMCPClient({ transport: { type: 'http', url: env.mcpUrl, fetch: env.fetch } });
  const mcpTools = await mcp.tools();
  const provider = createOpenAICompatible({ name: 'peer', baseURL: env.chatUrl, fetch: env.fetch, includeUsage: true });
  const model = provider(env.model);
  const { name, description, inputSchema, execute } = env.localTool;
  const tools = { ...mcpTools, [name]: tool({ description, inputSchema: jsonSchema(inputSchema), execute }) };
  return {
    async turn(text) {
      const result = streamText({ model, tools, prompt: text });
      let answer = '';
      for await (const delta of result.textStream) answer += delta;
      return answer;
    },
    close: () => mcp.close(),
  };
}
