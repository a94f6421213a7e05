// The MCP TypeScript SDK's client alone, for its size in the peer benchmark: a Client over
// StreamableHTTPClientTransport that connects and lists the server's tools. This file is the
// entry run.mjs bundles; no turn is measured (the SDK has no model loop).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** Connects to the job's MCP server (env: fetch, mcpUrl) and lists its tools once. */
export async function start(env) {
  const client = new Client({ name: 'peers', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(env.mcpUrl), { fetch: env.fetch }));
  const { tools } = await client.listTools();
  return { tools, close: () => client.close() };
}
