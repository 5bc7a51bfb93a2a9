// The floor: the barest MCP stdio server the SDK allows, with one tool that makes one undici GET
// to POSTHOG_HOST + path with the key and returns the body as text. No validation beyond the
// SDK's own, no output schema, no shaping. Same SDK, zod and undici copies as the project.
// undici is loaded on the first call, so the cold start measured is the SDK's alone.

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const host = process.env.POSTHOG_HOST ?? 'http://127.0.0.1:9';
const apiKey = process.env.POSTHOG_PERSONAL_API_KEY ?? '';
let pool;

const server = new McpServer({ name: 'floor', version: '1.0.0' });
server.registerTool('get', { description: 'GET a PostHog API path and return the body.', inputSchema: { path: z.string() } }, async ({ path }) => {
  pool ??= new (await import('undici')).Pool(host);
  const response = await pool.request({ method: 'GET', path, headers: { authorization: `Bearer ${apiKey}` } });
  return { content: [{ type: 'text', text: await response.body.text() }] };
});
await server.connect(new StdioServerTransport());
