// The OpenAI Agents JS stack of the peer benchmark: an Agent on an OpenAI-compatible
// chat-completions model, one local tool made with `tool()`, and the MCP server through
// MCPServerStreamableHttp (its tool list cached, so listed once), run streamed. This file is the
// stack's entry: run.mjs bundles it for its size. In a browser bundle the package's MCP server
// classes are stubs that throw "Method not implemented.", so this stack runs in Node only.
import { Agent, MCPServerStreamableHttp, OpenAIChatCompletionsModel, run, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';

/**
 * Starts the stack on the job's endpoints (env: fetch, chatUrl, mcpUrl, model, localTool) and
 * gives `turn(text)`, which resolves with the answer's streamed text, and `close()`.
 */
export async function start(env) {
  setTracingDisabled(true);
  const mcp = new MCPServerStreamableHttp({ url: env.mcpUrl, name: 'peers', fetch: env.fetch, cacheToolsList: true });
  await mcp.connect();
  const client = new OpenAI({ apiKey: 'peers', baseURL: env.chatUrl, fetch: env.fetch, maxRetries: 0 });
  const { name, description, inputSchema, execute } = env.localTool;
  const agent = new Agent({
    name: 'peers',
    instructions: 'You help with a map.',
    model: new OpenAIChatCompletionsModel(client, env.model),
    tools: [tool({ name, description, parameters: { ...inputSchema, additionalProperties: false }, strict: false, execute })],
    mcpServers: [mcp],
  });
  return {
    async turn(text) {
      const result = await run(agent, text, { stream: true });
      let answer = '';
      for await (const delta of result.toTextStream()) answer += delta;
      await result.completed;
      return answer;
    },
    close: () => mcp.close(),
  };
}
